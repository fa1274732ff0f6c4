"""Magic Square bots: ``perfect`` (exact in every phase, the default) and ``heuristic`` (fast, greedy).

Both challenge exactly when the opponent's last number left no magic completion, and answer a
challenge with a completion from the index. ``heuristic`` takes the best immediate score among the
cells that keep the square completable, colours the cells of largest mean number (all 8.5: at
random), colours first when it is the one to choose, leads by placing first and never swaps.

``perfect`` plays the whole match exactly: placements and lead choices by the solver
(:mod:`~p2pgenius.games.magic_square.solver`); who colours first, each cell coloured and the swaps
by the shipped tables (:mod:`~p2pgenius.games.magic_square.table`): the colouring game's minimax
over the match value of each full colouring, then round 1's result and margin; a swap step's best
colouring within reach (all 849 with two swaps, 65 with one) by the round's result, then the
match value and the margin, then (equal against perfect play) one whose tie a fallible opponent may
still break rather than one where every square ties.
Ties go to ``random.Random(seed)``. Every decision takes well under 0.1 s on one core: loading
the tables 0.05 s once, a colouring move at most 0.08 s (the search of the last ten cells), a swap
5 ms, a placement solve about 5 ms once per colouring and first lead (10 ms more the first time in
a process, building the solver's tree), every other decision a look-up (bench/magic_square_bots.py
--times; before issue 49 the solve took 0.1-0.2 s).

Under perfect play the match need never end. Whoever colours second leads round 1 first and wins
it by 2 points; the seat swapping before round 3 can always swap into a colouring it wins, so the
loser of round 1, swapping before round 2, would lose the match by winning round 2, and could
instead swap into a colouring whose round ties 68-68 with either first lead: replayed without end.
A match nobody can lose is one that never ends, and no rule stops it, so ``perfect`` plays each
round to win it (the swaps' order above): two ``perfect`` bots finish in three rounds, round 1's
winner taking the match 2-1 (bench/magic_square_bots.py). The demo's guest is ``heuristic``.

``ExactPlacementBot`` is the first ``perfect`` (exact placement, heuristic colouring, six sampled
swaps), kept for bench/magic_square_bots.py.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final, TypeVar

from p2pgenius.games.catalog import BotLevels
from p2pgenius.games.magic_square import table
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

T = TypeVar("T")
EXACT_COLOURING_LEFT: Final = 4
"""With this many cells (or fewer) left to colour, ``exact-placement`` searches the rest exactly."""
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
            return self._colour_order(state, seat)
        if phase == "colouring":
            return Colour(self._colour(state))
        if phase == "swap":
            return self._swap(state, seat)
        if phase == "lead":
            return self._lead(state, seat)
        return Place(self._place(state, seat))

    def _colour_order(self, state: SquareState, seat: int) -> SquareAction:
        return Order(seat)

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


class ExactPlacementBot(HeuristicSquareBot):
    """The first ``perfect``: exact in the placement phase (the solver), but it colours the first
    12 cells like ``heuristic`` (at random: every cell's mean number is 8.5) and tries 6 random
    swaps. Not a level any more; bench/magic_square_bots.py plays it against ``perfect``."""

    level = "exact-placement"

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


class PerfectSquareBot(ExactPlacementBot):
    """Exact in every phase: who colours first, colouring and swaps by the shipped tables
    (:mod:`~p2pgenius.games.magic_square.table`), lead choices and placements by the solver."""

    level = "perfect"

    def _best(self, options: Sequence[tuple[T, tuple[int, ...]]]) -> T:
        """The option with the largest score; ties broken by the seeded generator."""
        top = max(score for _, score in options)
        return self.rng.choice([option for option, score in options if score == top])

    def _colour_order(self, state: SquareState, seat: int) -> SquareAction:
        view = 1 if seat == 0 else -1
        return Order(self._best([(first, (view * table.root_value(first),)) for first in (0, 1)]))

    def _colour(self, state: SquareState) -> int:
        red, blue = table.mask_of(state.colours, 0), table.mask_of(state.colours, 1)
        view = 1 if state.colourer == 0 else -1
        first = 1 - state.first_lead  # the engine made the second colourer round 1's first lead
        return self._best(
            [(cell, (view * value,)) for cell, value in table.colouring_values(red, blue, first)]
        )

    def _swap(self, state: SquareState, seat: int) -> SquareAction:
        mask = table.mask_of(state.colours, 0)
        deciding = sum(state.round_wins) == 2  # round 3 decides the match; round 2 may lead to it
        scored = [
            (other, swap_score(other, seat, deciding)) for other in table.neighbours(mask, state.swaps_left)
        ]
        top = max(score for _, score in scored)
        best = [other for other, score in scored if score == top]
        if len(best) > 1:  # equal against perfect play: keep a tie the opponent may still break
            best = [other for other in best if not always_ties(other)] or best
        if mask in best:
            return SwapsDone()
        target = self.rng.choice(best)
        red = next(c for c in range(16) if mask >> c & 1 and not target >> c & 1)
        blue = next(c for c in range(16) if target >> c & 1 and not mask >> c & 1)
        return Swap(red, blue)


def always_ties(mask: int) -> bool:
    """Whether every magic square scores 68-68 on this colouring, so no play can break a tie (34
    of the 12870 colourings: two rows, two columns, ...)."""
    cells = [c for c in range(16) if mask >> c & 1]
    return all(sum(grid[c] for c in cells) == 68 for grid in index().grids)


def swap_score(mask: int, seat: int, deciding: bool) -> tuple[int, int, int]:
    """How good colouring ``mask`` is for ``seat``, who swapped into it and leads the round, in
    ``seat``'s view: the round's result, then the match's value (round 3, ``deciding``: the
    round's result; round 2: a win leads to round 3, where the other seat swaps), then the round's
    margin. The round comes first: a match that no one can lose is one that never ends (see the
    module's doc), so a bot plays each round to win it, and a match between two of them ends."""
    row = table.values()[table.RANK[mask]]
    view = 1 if seat == 0 else -1
    result = view * (table.sign(row[seat]) or table.sign(row[1 - seat]))
    match = -row[2 + (1 - seat)] if result == 1 and not deciding else result
    return result, match, view * row[seat]


BOTS: Final = BotLevels(
    {"perfect": PerfectSquareBot, "heuristic": HeuristicSquareBot}, demo=("perfect", "heuristic")
)
"""The Magic Square's bot levels (the first is its default) and the demo's pair."""
