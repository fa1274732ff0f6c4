"""The Magic Square in the notation of ``p2pgenius export``: one line a decision (docs/export.md).

``p1 colours c2 blue``, ``p0 has p1 place first``, ``p1 places 7 on d3``, ``p0 challenges``,
``p1 completes 16 2 3 13/5 11 10 8/9 7 6 12/4 14 15 1``, ``p1 swaps a1 (red) and b2 (blue)``; a
decision that ends a round adds `` -- round 1: p0 wins 83-53 (score)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError
from p2pgenius.games.magic_square.actions import (
    Challenge,
    Colour,
    Complete,
    Concede,
    Order,
    Place,
    Swap,
    SwapsDone,
    parse_action,
)
from p2pgenius.games.magic_square.state import COLOUR_NAMES, SquareState, cell_name
from p2pgenius.games.spec import Played


def moves(initial: SquareState, steps: Sequence[Played]) -> list[str]:
    """One line per stage (every Magic Square stage is one decision)."""
    lines = []
    before = initial
    for step in steps:
        words = ", ".join(_decision(before, seat, action) for seat, action in step.actions)
        after: SquareState = step.state
        if after.last_round is not None and after.last_round is not before.last_round:
            words += f" -- {_round_end(after.last_round)}"
        lines.append(words)
        before = after
    return lines


def _decision(before: SquareState, seat: int, action: Plain) -> str:
    """One decision in words."""
    try:
        parsed = parse_action(action)
    except IllegalActionError:
        return f"p{seat} {action}"
    who = f"p{seat}"
    if isinstance(parsed, Order):
        does = "colour" if before.phase == "colour_order" else "place"
        return f"{who} has p{parsed.first} {does} first"
    if isinstance(parsed, Colour):
        return f"{who} colours {cell_name(parsed.cell)} {COLOUR_NAMES[seat]}"
    if isinstance(parsed, Place):
        return f"{who} places {len(before.cells) + 1} on {cell_name(parsed.cell)}"
    if isinstance(parsed, Challenge):
        return f"{who} challenges"
    if isinstance(parsed, Complete):
        rows = "/".join(" ".join(str(n) for n in parsed.grid[row : row + 4]) for row in range(0, 16, 4))
        return f"{who} completes {rows}"
    if isinstance(parsed, Concede):
        return f"{who} concedes"
    if isinstance(parsed, Swap):
        return f"{who} swaps {cell_name(parsed.red)} (red) and {cell_name(parsed.blue)} (blue)"
    if isinstance(parsed, SwapsDone):
        return f"{who} swaps no more"
    return f"{who} times out"


def _round_end(last: dict[str, Plain]) -> str:
    """``round 1: p0 wins 83-53 (score)``, or ``round 2 replayed 68-68 (tie replay)``."""
    scores = last.get("scores")
    score = "-".join(str(s) for s in scores) if isinstance(scores, list) else "?"
    reason = str(last.get("reason")).replace("_", " ")
    winner = last.get("winner")
    if winner is None:
        return f"round {last.get('round')} replayed {score} ({reason})"
    return f"round {last.get('round')}: p{winner} wins {score} ({reason})"
