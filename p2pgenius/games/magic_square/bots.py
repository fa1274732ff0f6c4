"""Magic Square bots: ``heuristic`` (fast, greedy) and ``perfect`` (exact in the placement phase).

Both challenge exactly when the opponent's last number left no magic completion, and answer a
challenge with a completion from the index. They differ in placement: ``heuristic`` takes the best
immediate score among the cells that keep the square completable; ``perfect`` plays the solver's
move. Colouring and swaps are too large to search from the start, so ``perfect`` uses a heuristic
there, and searches exactly once only a few cells are left to colour.
"""

from __future__ import annotations

import random
from typing import Final

from p2pgenius.games.catalog import BotLevels
from p2pgenius.games.magic_square.actions import (
    Challenge,
    Colour,
    Complete,
    Concede,
    Order,
    Place,
    SquareAction,
    Swap,
    SwapsDone,
)
from p2pgenius.games.magic_square.solver import PlacementSolver
from p2pgenius.games.magic_square.squares import index
from p2pgenius.games.magic_square.state import SquareState

EXACT_COLOURING_LEFT: Final = 4
"""With this many cells (or fewer) left to colour, ``perfect`` searches the rest exactly."""
SWAP_SAMPLES: Final = 6


def _cell_weights() -> list[float]:
    """How much each cell tends to hold: its mean number over all magic squares."""
    grids = index().grids
    return [sum(g[c] for g in grids) / len(grids) for c in range(16)]


class HeuristicSquareBot:
    """Greedy and quick; never leaves the square uncompletable while it has a choice."""

    level = "heuristic"

    def __init__(self, *, seed: int) -> None:
        self.rng = random.Random(seed)
        self.weights = _cell_weights()

    def choose(self, state: SquareState, seat: int) -> SquareAction | None:
        """An action for ``seat``, or None when its only option is a challenge it won't make."""
        if state.window == seat and not index().completable(state.cells):
            return Challenge()
        if seat != state.actor:
            return None
        phase = state.phase
        if phase == "challenge":
            completion = index().completion(state.cells)
            return Concede() if completion is None else Complete(completion)
        if phase == "colour_order":
            return Order(seat)
        if phase == "colouring":
            return Colour(self._colour(state))
        if phase == "swap":
            return self._swap(state, seat)
        if phase == "lead":
            return self._lead(state, seat)
        return Place(self._place(state, seat))

    def _colour(self, state: SquareState) -> int:
        free = [c for c in range(16) if state.colours[c] is None]
        best = max(self.weights[c] for c in free)
        return self.rng.choice([c for c in free if self.weights[c] >= best - 0.25])

    def _swap(self, state: SquareState, seat: int) -> SquareAction:
        return SwapsDone()

    def _lead(self, state: SquareState, seat: int) -> SquareAction:
        return Order(seat)

    def _place(self, state: SquareState, seat: int) -> int:
        number = len(state.cells) + 1
        cells = index().next_cells(state.cells) or tuple(c for c in range(16) if state.grid[c] == 0)

        def gain(cell: int) -> tuple[int, int]:
            mine = number if state.colours[cell] == seat else -number
            return mine, index().count((*state.cells, cell))

        return max(cells, key=gain)


class PerfectSquareBot(HeuristicSquareBot):
    """Exact in the placement phase (the solver), heuristic with a short exact search elsewhere."""

    level = "perfect"

    def __init__(self, *, seed: int) -> None:
        super().__init__(seed=seed)
        self._solvers: dict[tuple[tuple[int | None, ...], int], PlacementSolver] = {}

    def solver(self, colours: tuple[int | None, ...], first_lead: int) -> PlacementSolver:
        """The solver for a colouring (kept, so each round is solved once)."""
        key = (colours, first_lead)
        if key not in self._solvers:
            self._solvers[key] = PlacementSolver([int(c or 0) for c in colours], first_lead)
        return self._solvers[key]

    def value(self, colours: tuple[int | None, ...], first_lead: int) -> int:
        """Red-minus-blue margin of a fresh round under perfect play."""
        return self.solver(colours, first_lead).solve([]).margin

    def _lead(self, state: SquareState, seat: int) -> SquareAction:
        best = self.solver(state.colours, state.first_lead).solve(state.cells).best
        return Order(int(best["first"])) if best["type"] == "order" else Order(seat)

    def _place(self, state: SquareState, seat: int) -> int:
        if not index().completable(state.cells):
            return super()._place(state, seat)
        best = self.solver(state.colours, state.first_lead).solve(state.cells, seat).best
        return int(best["cell"])

    def _colour(self, state: SquareState) -> int:
        free = [c for c in range(16) if state.colours[c] is None]
        if len(free) > EXACT_COLOURING_LEFT:
            return super()._colour(state)
        me = state.colourer
        options = {
            cell: self._colouring_value(state.colours, cell, me, 1 - state.first_lead) for cell in free
        }
        pick = max if me == 0 else min
        return pick(free, key=lambda cell: options[cell])

    def _colouring_value(
        self, colours: tuple[int | None, ...], cell: int, who: int, first_colourer: int
    ) -> int:
        after = list(colours)
        after[cell] = who
        free = [c for c in range(16) if after[c] is None]
        first_lead = 1 - first_colourer
        if not free:
            return self.value(tuple(after), first_lead)
        values = [self._colouring_value(tuple(after), c, 1 - who, first_colourer) for c in free]
        return max(values) if who == 1 else min(values)

    def _swap(self, state: SquareState, seat: int) -> SquareAction:
        red = [c for c in range(16) if state.colours[c] == 0]
        blue = [c for c in range(16) if state.colours[c] == 1]
        candidates = [(r, b) for r in red for b in blue]
        self.rng.shuffle(candidates)
        sign = 1 if seat == 0 else -1
        best: SquareAction = SwapsDone()
        best_value = sign * self.value(state.colours, seat)
        for red_cell, blue_cell in candidates[:SWAP_SAMPLES]:
            after = list(state.colours)
            after[red_cell], after[blue_cell] = 1, 0
            value = sign * self.value(tuple(after), seat)
            if value > best_value:
                best, best_value = Swap(red_cell, blue_cell), value
        return best


# Two perfect bots can tie 68-68 forever (a tie is replayed, and perfect play may force one), so
# the demo's guest plays the heuristic.
BOTS: Final = BotLevels(
    {"perfect": PerfectSquareBot, "heuristic": HeuristicSquareBot}, demo=("perfect", "heuristic")
)
"""The Magic Square's bot levels (the first is its default) and the demo's pair."""
