"""Driving Magic Square matches in tests."""

from __future__ import annotations

from typing import Any

from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.squares import Grid, index
from p2pgenius.games.magic_square.state import SquareState

TOP_HALF_RED = [0] * 8 + [1] * 8  # rows 1-2 red, rows 3-4 blue: every magic square is 68-68


def start(colours: list[int] | None = None, first_lead: int = 0, **setup: Any) -> SquareState:
    """A match with the colouring given (so it starts at the first lead decision)."""
    if colours is None:
        return MAGIC_SQUARE.initial(setup, {})
    return MAGIC_SQUARE.initial({"colours": colours, "first_lead": first_lead, **setup}, {})


def act(state: SquareState, seat: int, action: dict[str, Any]) -> SquareState:
    """Apply one plain action."""
    return MAGIC_SQUARE.apply(state, seat, MAGIC_SQUARE.parse_action(action))


def cells_of(grid: Grid) -> list[int]:
    """The cells of 1, 2, ..., 16 in a full grid."""
    return [grid.index(n) for n in range(1, 17)]


def place_square(state: SquareState, grid: Grid, upto: int = 16) -> SquareState:
    """Place 1..upto as in ``grid``; each Lead Player places first."""
    cells = cells_of(grid)
    for number in range(len(state.cells) + 1, upto + 1):
        if state.phase == "lead":
            state = act(state, state.lead, {"type": "order", "first": state.lead})
        state = act(state, state.placer, {"type": "place", "cell": cells[number - 1]})
    return state


def red_winning_colours(grid: Grid) -> list[int]:
    """A colouring where red holds the eight largest numbers of ``grid``."""
    return [0 if n > 8 else 1 for n in grid]


def square(n: int = 0) -> Grid:
    """The n-th magic square of the index."""
    return index().grids[n]
