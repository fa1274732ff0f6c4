"""Exact play of the Magic Square's placement phase.

Under perfect play nobody places a number that leaves the square uncompletable (the opponent would
challenge and win the round) and nobody challenges a completable square (the challenge would fail).
The placement phase is then a game on the tree of magic-square prefixes: the cells of 1, 2, ... in
order, every node a prefix of at least one of the 7040 squares, every leaf a finished magic square.
Red (p0) wants the largest margin red - blue, blue (p1) the smallest; at each placement round's start
the Lead Player picks who places first. A positive margin wins for red, zero is a 68-68 tie (the
round is replayed), negative wins for blue.

The tree's shape is the same for every colouring (:class:`PlacementTree`, built once from the sorted
index, :class:`~p2pgenius.games.magic_square.squares.MagicIndex`). Two facts make solving it cheap:
a prefix that only one square extends is worth that square's margin, whoever moves (every later
placement is forced), and every prefix of nine numbers is a single square's; so a solver values the
10,249 prefixes that some choice is left in, bottom up, depth by depth, each from the contiguous
run of its children one depth down. A round's value is the lead's pick at its start, where
it no longer depends on who placed what before. One colouring's whole placement phase takes about
5 ms on one core (it took 0.1-0.2 s walking every prefix top down: issue 49).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Final

from p2pgenius.games.magic_square.squares import CELLS, index
from p2pgenius.games.magic_square.state import RED

TOTAL: Final = 136
"""1 + 2 + ... + 16: red's and blue's scores add up to it."""


def lead_of(first_lead: int, placed: int) -> int:
    """The Lead Player when ``placed`` numbers are down (the lead alternates every round)."""
    return first_lead if (placed // 2) % 2 == 0 else 1 - first_lead


@dataclass(frozen=True, slots=True)
class Solution:
    """The game-theoretic result from a position.

    ``winner`` 0/1, or None for a 68-68 tie; ``margin`` red minus blue of the final square under
    perfect play; ``best`` the best next decision as an action dict (order, place or challenge);
    ``line`` the principal variation as actions; ``scores`` the final [red, blue].
    """

    winner: int | None
    margin: int
    best: dict[str, int | str]
    line: tuple[dict[str, int | str], ...]
    scores: tuple[int, int]
    to_move: int


@dataclass(frozen=True, slots=True)
class PlacementTree:
    """The placement game's tree, the same for every colouring: the prefixes (cells of 1..k) of the
    sorted index, depth by depth, down to the first depth where each prefix is a single square.

    ``starts[k]`` holds, for each prefix of k numbers in index order, the index of its first square
    (its squares are a slice of the index, up to the next prefix's start). ``branches[k]`` lists the
    prefixes of depth k that more than one square extends, as (j, a, b): the prefix is
    ``starts[k][j]`` and its children are the prefixes ``a`` to ``b - 1`` of depth k + 1 (children of
    a prefix are contiguous in index order). ``columns[c]`` is the number in cell c of each square.
    """

    starts: tuple[tuple[int, ...], ...]
    branches: tuple[tuple[tuple[int, int, int], ...], ...]
    columns: tuple[tuple[int, ...], ...]

    @property
    def depth(self) -> int:
        """The first depth at which every prefix is a single square."""
        return len(self.starts) - 1


@cache
def placement_tree() -> PlacementTree:
    """The tree of the shipped index (built once, in about 10 ms)."""
    squares = index()
    codes = squares.codes
    # How many leading numbers each square shares with the one before (4 bits a number, 1 on top).
    shared = [CELLS - 1 - ((a ^ b).bit_length() - 1) // 4 for a, b in pairwise(codes)]
    depth = max(shared) + 1
    starts: list[list[int]] = [[0] for _ in range(depth + 1)]
    for i, common in enumerate(shared, start=1):
        for k in range(common + 1, depth + 1):  # a new prefix of every depth past the common part
            starts[k].append(i)
    branches = []
    for k in range(depth):
        ends = [*starts[k][1:], len(codes)]
        branches.append(
            tuple(
                (j, bisect_left(starts[k + 1], lo), bisect_left(starts[k + 1], hi))
                for j, (lo, hi) in enumerate(zip(starts[k], ends, strict=True))
                if hi - lo > 1
            )
        )
    columns = tuple(zip(*squares.grids, strict=True))
    return PlacementTree(tuple(map(tuple, starts)), tuple(branches), columns)


class PlacementSolver:
    """Solves placement positions for one colouring and first Lead Player (every prefix's value is
    computed at construction; decisions then only look values up)."""

    def __init__(self, colours: Sequence[int], first_lead: int) -> None:
        if len(colours) != CELLS or sorted(colours) != [0] * 8 + [1] * 8:
            raise ValueError("colours must be 16 seats, eight of each")
        self.first_lead = first_lead
        self.index = index()
        self.tree = placement_tree()
        red = [self.tree.columns[cell] for cell in range(CELLS) if colours[cell] == RED]
        self.margins = [2 * red_sum - TOTAL for red_sum in map(sum, zip(*red, strict=True))]
        """Red minus blue of each square of the index, in index order."""
        self.round_starts: dict[int, list[int]] = {}
        """For even k: the value of each prefix of depth k (in ``tree.starts[k]``'s order) at its
        placement round's start, where the lead picks who places first."""
        self.second_numbers: dict[int, tuple[list[int], list[int]]] = {}
        """For odd k: the value of each prefix of depth k with red, then with blue, placing k + 1."""
        self._solve_tree()

    # The values, red minus blue under perfect play.

    def _solve_tree(self) -> None:
        """Every prefix's value, bottom up: a depth's prefixes from their children's values."""
        tree = self.tree
        bottom = [self.margins[lo] for lo in tree.starts[tree.depth]]  # single squares: whoever moves
        rounds, red_next, blue_next = bottom, bottom, bottom
        self.round_starts[tree.depth] = bottom
        self.second_numbers[tree.depth] = (bottom, bottom)
        for k in range(tree.depth - 1, -1, -1):
            here = [self.margins[lo] for lo in tree.starts[k]]  # right for single squares; the rest:
            if k % 2:  # the second number comes next, by a given seat; then a round starts
                red_next, blue_next = here, here.copy()
                for j, a, b in tree.branches[k]:
                    red_next[j], blue_next[j] = max(rounds[a:b]), min(rounds[a:b])
                self.second_numbers[k] = (red_next, blue_next)
            else:  # a round starts: the lead picks whoever placing first is worth more to it
                pick = max if lead_of(self.first_lead, k) == RED else min
                for j, a, b in tree.branches[k]:
                    here[j] = pick(max(blue_next[a:b]), min(red_next[a:b]))
                rounds = self.round_starts[k] = here

    def placing(self, lo: int, hi: int, k: int, placer: int) -> int:
        """Value with k numbers placed and ``placer`` to place number k+1."""
        return self._best_child(lo, hi, k, placer)[1]

    def _after(self, lo: int, hi: int, k: int, placer: int) -> int:
        """Value once ``placer`` has put number k (the slice [lo, hi) holds the squares left)."""
        if hi - lo == 1:
            return self.margins[lo]
        j = bisect_left(self.tree.starts[k], lo)
        if k % 2:  # the placement round's second number comes next, by the other player
            return self.second_numbers[k][1 - placer][j]
        return self.round_starts[k][j]

    # Decisions.

    def solve(self, placed: Sequence[int], next_placer: int | None = None) -> Solution:
        """The result from the position with ``placed`` = cells of 1..k.

        ``next_placer`` says who places k+1. With k even it means the lead has already chosen; without
        it the next decision is the lead's order choice. With k odd it defaults to the seat that is
        not the Lead Player (as if the lead placed first).
        """
        k = len(placed)
        lo, hi = self.index.span(placed)
        if hi == lo:
            # The last number left no magic completion: challenging it wins the round.
            if k % 2 and next_placer is not None:
                culprit = 1 - next_placer
            else:
                culprit = lead_of(self.first_lead, k)  # as if each lead had placed first
            best: dict[str, int | str] = {"type": "challenge"}
            return Solution(1 - culprit, 0, best, (best,), (0, 0), 1 - culprit)
        decided = next_placer is not None
        if k % 2 == 0 and not decided:
            to_move = lead_of(self.first_lead, k)
            placer = 0  # chosen below, at the round start
        else:
            placer = next_placer if next_placer is not None else 1 - lead_of(self.first_lead, k)
            to_move = placer
        line: list[dict[str, int | str]] = []
        while k < CELLS:
            if k % 2 == 0 and not decided:
                options = [self.placing(lo, hi, k, f) for f in (0, 1)]
                wanted = max(options) if lead_of(self.first_lead, k) == RED else min(options)
                placer = options.index(wanted)
                line.append({"type": "order", "first": placer})
            decided = False
            (cell, lo, hi), _ = self._best_child(lo, hi, k, placer)
            line.append({"type": "place", "cell": cell})
            k += 1
            if k % 2:
                placer = 1 - placer
        margin = self.margins[lo]
        red = (TOTAL + margin) // 2
        winner = None if margin == 0 else (0 if margin > 0 else 1)
        return Solution(winner, margin, line[0], tuple(line), (red, TOTAL - red), to_move)

    def _best_child(self, lo: int, hi: int, k: int, placer: int) -> tuple[tuple[int, int, int], int]:
        """The placer's best cell for number k+1 (with its slice of squares) and its value."""
        best: tuple[int, int, int] | None = None
        best_value = 0
        for cell, clo, chi in self.index.children_of(lo, hi, k):
            value = self._after(clo, chi, k + 1, placer)
            if best is None or (value > best_value if placer == RED else value < best_value):
                best, best_value = (cell, clo, chi), value
        assert best is not None, "every prefix in the index has a child"
        return best, best_value
