"""The Magic Square's immutable state and its plain form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p2pgenius.canonical import Plain, normalise
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


FULL_ORDER: Final = (
    "round",
    "turn",
    "colours",
    "grid",
    "scores",
    "round_wins",
    "phase",
    "opponent",
    "first_lead",
    "lead",
    "to_move",
    "placers",
    "challenge_window",
    "challenger",
    "swaps_left",
    "last_round",
    "outcome",
)
"""The order of :func:`full`'s fields, the order ``sim`` prints them in (the state hash's form,
:func:`public_canonical`, has them in the order of their names)."""


def public_canonical(state: SquareState) -> dict[str, Plain]:
    """Everything (the Magic Square has no hidden information), in canonical shape, as
    ``canonical.normalise`` makes it (every map's keys in order, lists): the state hash packs it
    as it is (``games.base.state_hash``), each peer hashing every state, and normalising was most
    of a hash. :func:`full` is the same fields in their own order
    (tests/magic_square/test_state_hash.py compares the two with the hash of before)."""
    last, outcome = state.last_round, state.outcome
    return _fields(
        state,
        None if last is None else normalise(last),
        None if outcome is None else normalise(outcome.to_plain()),
    )


def full(state: SquareState) -> dict[str, Plain]:
    """Everything (the Magic Square has no hidden information): the fields of
    :func:`public_canonical` in :data:`FULL_ORDER`, the last round and the outcome in their own
    order."""
    shaped = _fields(state, state.last_round, None if state.outcome is None else state.outcome.to_plain())
    return {key: shaped[key] for key in FULL_ORDER}


def _fields(state: SquareState, last_round: Plain, outcome: Plain) -> dict[str, Plain]:
    """The plain form's fields in the order of their names, with the last round and the outcome
    as given: normalised for the state hash, as they are for ``sim`` (normalised there too, the
    last round alone would cost :func:`full` about what the rest of the form does)."""
    phase = state.phase
    return {
        "challenge_window": state.window,
        "challenger": state.challenger,
        "colours": list(state.colours),
        "first_lead": state.first_lead,
        "grid": list(state.grid),
        "last_round": last_round,
        "lead": state.lead if phase in ("lead", "place") else None,
        "opponent": state.opponent,
        "outcome": outcome,
        "phase": phase,
        "placers": list(state.placers),
        "round": state.round,
        "round_wins": list(state.round_wins),
        "scores": list(state.scores),
        "swaps_left": state.swaps_left,
        "to_move": state.actor,
        "turn": len(state.cells) + 1,
    }
