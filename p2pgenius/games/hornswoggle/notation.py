"""Hornswoggle in the notation of ``p2pgenius export``: one line a stage (docs/export.md).

``p1 picks p1 to start``, ``opening: p0 [skull], p1 (hidden), ...``, ``p3 adds [doubloon]``,
``p1 bids 3``, ``p0 passes``, ``p2 insures``, ``p2 flips p3's pile: skull -- p2 fails``,
``p2 discards [skull]``. A card laid or discarded face down travels hidden: it is shown in
brackets as the transcript opens it (a flip of it, or the end-of-match audit), and as ``(hidden)``
if the transcript never opens it. A stage that puts seats out or starts a round says so after
`` -- ``.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pgenius.errors import IllegalActionError
from p2pgenius.games.hornswoggle.actions import (
    SKULL,
    Bid,
    Discard,
    Flip,
    Insure,
    Order,
    Pass,
    Place,
    parse_action,
)
from p2pgenius.games.hornswoggle.state import HornState
from p2pgenius.games.spec import Played

HIDDEN_CARD = "(hidden)"


def moves(initial: HornState, steps: Sequence[Played]) -> list[str]:
    """One line per stage: a decision, or the opening cards or discards laid at once."""
    lines = []
    before = initial
    for step in steps:
        after: HornState = step.state
        words = []
        for seat, action in step.actions:
            try:
                parsed = parse_action(action)
            except IllegalActionError:
                words.append(f"p{seat} {action}")
                continue
            card = parsed.card if isinstance(parsed, Place | Discard) else None
            shown = _shown(card)
            if isinstance(parsed, Place) and before.phase == "opening":
                words.append(f"p{seat} {shown}")
            elif isinstance(parsed, Place):
                words.append(f"p{seat} adds {shown}")
            elif isinstance(parsed, Discard):
                words.append(f"p{seat} {shown}" if len(step.actions) > 1 else f"p{seat} discards {shown}")
            else:
                words.append(_decision(before, after, seat, parsed))
        line = ", ".join(words)
        if before.phase == "opening":
            line = f"opening: {line}"
        elif before.phase == "discarding" and len(step.actions) > 1:
            line = f"discards: {line}"
        notes = _notes(before, after)
        lines.append(line + (f" -- {', '.join(notes)}" if notes else ""))
        before = after
    return lines


def _shown(card: str | None) -> str:
    return HIDDEN_CARD if card is None else f"[{card}]"


def _decision(before: HornState, after: HornState, seat: int, parsed: object) -> str:
    """A decision that lays no hidden card."""
    who = f"p{seat}"
    if isinstance(parsed, Order):
        return f"{who} picks p{parsed.first} to start"
    if isinstance(parsed, Bid):
        return f"{who} bids {parsed.count}"
    if isinstance(parsed, Pass):
        return f"{who} passes"
    if isinstance(parsed, Insure):
        return f"{who} insures"
    if isinstance(parsed, Flip):
        card = parsed.card if parsed.card is not None else "?"
        words = f"{who} flips p{parsed.pile}'s pile: {card}"
        if card == SKULL:
            return words + f" -- {who} fails" + (" (insured)" if before.insured else "")
        if after.phase != "flipping":
            return words + f" -- {who} succeeds"
        return words
    return f"{who} times out"


def _notes(before: HornState, after: HornState) -> list[str]:
    """Seats put out, the challenger once the bidding ends, and the start of a new round."""
    notes = [f"p{seat} out" for seat in range(4) if after.pirates[seat].out and not before.pirates[seat].out]
    if after.phase == "flipping" and before.phase != "flipping":
        notes.append(f"p{after.challenger} is the challenger")
    if after.round > before.round and after.outcome is None:
        notes.append(f"round {after.round}: p{after.first} starts")
    return notes
