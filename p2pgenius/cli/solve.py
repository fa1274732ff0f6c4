"""``p2pgenius solve magic-square``: the exact result of the placement phase under perfect play."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.magic_square.solver import PlacementSolver
from p2pgenius.games.magic_square.state import cell_name


def parse_colours(text: str) -> list[int]:
    """16 letters R/B into seats; raises LocalMisuseError."""
    letters = text.strip().upper()
    if len(letters) != 16 or set(letters) - {"R", "B"} or letters.count("R") != 8:
        raise LocalMisuseError("--colours must be 16 letters R or B, eight of each (row-major)")
    return [0 if letter == "R" else 1 for letter in letters]


def parse_placed(text: str) -> list[int]:
    """Comma-separated distinct cells 0..15; raises LocalMisuseError."""
    if not text.strip():
        return []
    try:
        cells = [int(part) for part in text.split(",")]
    except ValueError:
        raise LocalMisuseError("--placed must be cells 0..15 separated by commas") from None
    if any(not 0 <= c <= 15 for c in cells) or len(set(cells)) != len(cells):
        raise LocalMisuseError("--placed must be distinct cells 0..15")
    return cells


def describe(action: dict[str, int | str], mover: int) -> str:
    """An action of the line, in words."""
    if action["type"] == "order":
        return f"p{mover} leads: p{action['first']} places first"
    if action["type"] == "place":
        return f"place on {cell_name(int(action['cell']))}"
    return "challenge"


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Solve and print; returns the exit code."""
    colours = parse_colours(args.colours)
    placed = parse_placed(args.placed)
    solution = PlacementSolver(colours, args.first_lead).solve(placed, args.next)
    if args.json:
        out.write(
            json.dumps(
                {
                    "winner": solution.winner,
                    "best": solution.best,
                    "margin": solution.margin,
                    "scores": list(solution.scores),
                    "to_move": solution.to_move,
                    "line": list(solution.line),
                }
            )
            + "\n"
        )
        return 0
    if solution.best["type"] == "challenge":
        out.write(
            f"The last number leaves no magic completion: p{solution.winner} challenges and wins the round.\n"
        )
        return 0
    red, blue = solution.scores
    verdict = (
        "a 68-68 tie (the round is replayed)"
        if solution.winner is None
        else f"p{solution.winner} ({'red' if solution.winner == 0 else 'blue'}) wins "
        f"{max(red, blue)}-{min(red, blue)}"
    )
    out.write(f"Under perfect play: {verdict}.\n")
    out.write(f"Best for p{solution.to_move}: {describe(solution.best, solution.to_move)}.\n")
    out.write(
        "Line: "
        + ", ".join(
            describe(a, -1) if a["type"] != "order" else f"p{a['first']} first" for a in solution.line
        )
        + "\n"
    )
    return 0
