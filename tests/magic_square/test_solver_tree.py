"""The bottom-up solver (issue 49) against the top-down walk it replaced: the same value at every
prefix, the same decisions at seeded positions, and the same moves in seeded matches of the bots.

The reference below is the previous version's value walk, kept here as the oracle: every prefix
walked top down over the index (not over the tree the new solver builds), memoised at each
placement round's start. The brute force of test_solver.py checks such values against the rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from p2pgenius.bots import Bot
from p2pgenius.games.magic_square.bots import HeuristicSquareBot, PerfectSquareBot
from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.solver import PlacementSolver, lead_of, placement_tree
from p2pgenius.games.magic_square.squares import CELLS, index
from p2pgenius.games.magic_square.state import RED


class TopDownSolver(PlacementSolver):
    """The solver before issue 49: a value is found by walking every prefix below it, top down,
    memoising the value at each round's start (decisions are made by the same code as before)."""

    def __init__(self, colours: Sequence[int], first_lead: int) -> None:
        super().__init__(colours, first_lead)
        self.memo: dict[tuple[int, int], int] = {}

    def round_start(self, lo: int, hi: int, k: int) -> int:
        """Value with k numbers placed (k even): the lead chooses who places first."""
        if k == CELLS:
            return self.margins[lo]
        if (k, lo) not in self.memo:
            options = (self.placing(lo, hi, k, 0), self.placing(lo, hi, k, 1))
            self.memo[k, lo] = max(options) if lead_of(self.first_lead, k) == RED else min(options)
        return self.memo[k, lo]

    def _after(self, lo: int, hi: int, k: int, placer: int) -> int:
        if k % 2:
            return self.placing(lo, hi, k, 1 - placer)
        return self.round_start(lo, hi, k)


def colouring(rng: random.Random) -> list[int]:
    colours = [0] * 8 + [1] * 8
    rng.shuffle(colours)
    return colours


def test_the_tree_holds_every_prefix_of_the_index_down_to_single_squares() -> None:
    tree, codes = placement_tree(), index().codes
    for k in range(tree.depth + 1):
        shift = 4 * (CELLS - k)
        firsts = [i for i, code in enumerate(codes) if i == 0 or code >> shift != codes[i - 1] >> shift]
        assert list(tree.starts[k]) == firsts
        if k == tree.depth:
            break
        ends = [*firsts[1:], len(codes)]
        below = tree.starts[k + 1]
        shared = [(j, lo, hi) for j, (lo, hi) in enumerate(zip(firsts, ends, strict=True)) if hi - lo > 1]
        assert [j for j, *_ in tree.branches[k]] == [j for j, *_ in shared]
        for (_, a, b), (_, lo, hi) in zip(tree.branches[k], shared, strict=True):
            # the children are exactly the prefixes one deeper that start within the parent's slice
            assert below[a] == lo and (b == len(below) or below[b] == hi) and b > a
    assert len(tree.starts[tree.depth]) == len(codes)  # every prefix there is one square
    assert len(tree.starts[tree.depth - 1]) < len(codes)  # and not one depth up


@pytest.mark.parametrize("seed", range(3))
def test_every_prefix_is_worth_what_the_top_down_walk_finds(seed: int) -> None:
    rng = random.Random(seed)
    colours, first_lead = colouring(rng), rng.randrange(2)
    fast, reference = PlacementSolver(colours, first_lead), TopDownSolver(colours, first_lead)
    tree = fast.tree
    checked = 0
    for k in range(tree.depth):
        ends = [*tree.starts[k][1:], len(index())]
        for j, lo in enumerate(tree.starts[k]):
            hi = ends[j]
            if k % 2:
                for placer in (0, 1):
                    assert fast.second_numbers[k][placer][j] == reference.placing(lo, hi, k, placer)
            else:
                assert fast.round_starts[k][j] == reference.round_start(lo, hi, k)
            checked += 1
    assert checked == sum(len(tree.starts[k]) for k in range(tree.depth))


@pytest.mark.parametrize("seed", range(4))
def test_decisions_at_seeded_positions_are_those_of_the_top_down_walk(seed: int) -> None:
    rng = random.Random(100 + seed)
    colours, first_lead = colouring(rng), rng.randrange(2)
    fast, reference = PlacementSolver(colours, first_lead), TopDownSolver(colours, first_lead)
    assert fast.solve([]) == reference.solve([])
    for _ in range(60):
        grid = rng.choice(index().grids)
        placed = [grid.index(n) for n in range(1, rng.randrange(CELLS) + 1)]
        if rng.random() < 0.2:  # sometimes a number that may leave no completion
            placed.append(rng.choice([cell for cell in range(CELLS) if cell not in placed]))
        if len(placed) == CELLS:
            continue
        next_placer = rng.choice([None, 0, 1])
        assert fast.solve(placed, next_placer) == reference.solve(placed, next_placer), (placed, next_placer)


class TopDownBot(PerfectSquareBot):
    """``perfect`` with the previous solver."""

    def solver(self, colours: tuple[int | None, ...], first_lead: int) -> PlacementSolver:
        key = (colours, first_lead)
        if key not in self._solvers:
            self._solvers[key] = TopDownSolver([int(c or 0) for c in colours], first_lead)
        return self._solvers[key]


def moves(bots: list[Bot], seed: int) -> list[tuple[int, dict[str, object]]]:
    """Every action of a seeded match, in order."""
    rng = random.Random(seed)
    state = MAGIC_SQUARE.initial({}, {})
    played: list[tuple[int, dict[str, object]]] = []
    while (seats := MAGIC_SQUARE.to_act(state)) and len(played) < 2000:
        for seat in rng.sample(seats, len(seats)):
            action = bots[seat].choose(state, seat)
            if action is not None:
                break
        else:
            raise AssertionError("no seat the game waits on acted")
        played.append((seat, dict(action.to_plain())))
        state = MAGIC_SQUARE.apply(state, seat, action)
    return played


@pytest.mark.parametrize("seed", range(2))
def test_the_perfect_bot_plays_the_same_moves_as_with_the_top_down_solver(seed: int) -> None:
    # seed 0: perfect against perfect; seed 1: perfect against heuristic
    second, second_before = (PerfectSquareBot, TopDownBot) if seed == 0 else (HeuristicSquareBot,) * 2
    ours = moves([PerfectSquareBot(seed=seed), second(seed=seed + 7)], seed)
    before = moves([TopDownBot(seed=seed), second_before(seed=seed + 7)], seed)
    assert ours == before
    assert sum(action["type"] == "order" for _, action in ours) >= 8  # the solver was asked


def test_a_prefix_of_one_square_is_worth_its_margin_whoever_moves() -> None:
    solver = PlacementSolver([0, 1] * 8, 1)
    grid = index().grids[1234]
    placed = [grid.index(n) for n in range(1, 10)]
    lo, hi = index().span(placed)
    assert hi - lo == 1
    margin = sum(n if c % 2 == 0 else -n for c, n in enumerate(grid))
    assert solver.solve(placed, 0).margin == solver.solve(placed, 1).margin == margin
