"""The Magic Square's immutable state and its plain form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p2pgenius.canonical import Plain
from p2pgenius.games.base import Ending, Outcome

RED: Final = 0  # p0 is red
BLUE: Final = 1  # p1 is blue
COLOUR_NAMES: Final = ("red", "blue")
PHASES: Final = ("colour_order", "colouring", "swap", "lead", "place", "challenge", "over")


class SquareEnding(Ending):
    """How a Magic Square match ends: one player has won two rounds (the ``round_wins`` of its
    outcome say how many each)."""

    ROUND_WINS = "round_wins"


def cell_name(cell: int) -> str:
    """A cell's board name: column a-d, row 1-4 (cell 0 is a1, cell 15 is d4)."""
    return "abcd"[cell % 4] + str(cell // 4 + 1)


@dataclass(frozen=True, slots=True)
class SquareState:
    """A Magic Square match between two actions."""

    opponent: int  # the Death Match Opponent
    phase: str
    colours: tuple[int | None, ...]
    round: int = 1  # the round of the best-of-three match
    round_wins: tuple[int, int] = (0, 0)
    first_lead: int = 0  # the first Lead Player of this round
    colourer: int = 0  # who colours next (colouring phase)
    cells: tuple[int, ...] = ()  # the cells of 1, 2, ..., k
    placers: tuple[int, ...] = ()  # who placed 1, 2, ..., k
    first_placer: int = 0  # who places first in the current placement round
    window: int | None = None  # who may challenge the last placement, until the next action
    challenger: int | None = None
    swaps_left: int = 0
    last_round: dict[str, Plain] | None = None
    outcome: Outcome | None = None
    events: tuple[dict[str, Plain], ...] = ()

    @property
    def grid(self) -> tuple[int, ...]:
        """The 16 cells row-major, 0 where empty."""
        grid = [0] * 16
        for number, cell in enumerate(self.cells, start=1):
            grid[cell] = number
        return tuple(grid)

    @property
    def scores(self) -> tuple[int, int]:
        """Each player's sum of the numbers on its colour."""
        totals = [0, 0]
        for number, cell in enumerate(self.cells, start=1):
            owner = self.colours[cell]
            if owner is not None:
                totals[owner] += number
        return totals[0], totals[1]

    @property
    def lead(self) -> int:
        """The Lead Player of the current placement round (the lead alternates every round)."""
        placement_round = len(self.cells) // 2
        return self.first_lead if placement_round % 2 == 0 else 1 - self.first_lead

    @property
    def placer(self) -> int:
        """Who places the next number (placement phase)."""
        return self.first_placer if len(self.cells) % 2 == 0 else 1 - self.first_placer

    @property
    def actor(self) -> int | None:
        """The seat whose move it is, apart from a challenge window."""
        if self.phase == "colour_order":
            return self.opponent
        if self.phase == "colouring":
            return self.colourer
        if self.phase in ("swap", "lead"):
            return self.first_lead if self.phase == "swap" else self.lead
        if self.phase == "place":
            return self.placer
        if self.phase == "challenge":
            return None if self.challenger is None else 1 - self.challenger
        return None


def full(state: SquareState) -> dict[str, Plain]:
    """Everything (the Magic Square has no hidden information)."""
    return {
        "round": state.round,
        "turn": len(state.cells) + 1,
        "colours": list(state.colours),
        "grid": list(state.grid),
        "scores": list(state.scores),
        "round_wins": list(state.round_wins),
        "phase": state.phase,
        "opponent": state.opponent,
        "first_lead": state.first_lead,
        "lead": state.lead if state.phase in ("lead", "place") else None,
        "to_move": state.actor,
        "placers": list(state.placers),
        "challenge_window": state.window,
        "challenger": state.challenger,
        "swaps_left": state.swaps_left,
        "last_round": state.last_round,
        "outcome": None if state.outcome is None else state.outcome.to_plain(),
    }
