"""Exact play of the Magic Square's placement phase.

Under perfect play nobody places a number that leaves the square uncompletable (the opponent would
challenge and win the round) and nobody challenges a completable square (the challenge would fail).
The placement phase is then a game on the tree of magic-square prefixes: the cells of 1, 2, ... in
order, every node a prefix of at least one of the 7040 squares, every leaf a finished magic square.
Red (p0) wants the largest margin red - blue, blue (p1) the smallest; at each placement round's start
the Lead Player picks who places first. A positive margin wins for red, zero is a 68-68 tie (the
round is replayed), negative wins for blue.

The tree is walked over the sorted index (:class:`~p2pgenius.games.magic_square.squares.MagicIndex`),
memoising the value at each placement round's start, where it no longer depends on who placed what
before. One colouring's whole placement phase takes well under two seconds on one core.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2pgenius.games.magic_square.squares import CELLS, index
from p2pgenius.games.magic_square.state import RED


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


class PlacementSolver:
    """Solves placement positions for one colouring and first Lead Player (memo kept across calls)."""

    def __init__(self, colours: Sequence[int], first_lead: int) -> None:
        if len(colours) != CELLS or sorted(colours) != [0] * 8 + [1] * 8:
            raise ValueError("colours must be 16 seats, eight of each")
        self.first_lead = first_lead
        self.index = index()
        sign = [1 if c == RED else -1 for c in colours]
        self.margins = [sum(n * s for n, s in zip(grid, sign, strict=True)) for grid in self.index.grids]
        self.memo: dict[tuple[int, int], int] = {}

    # The values, red minus blue under perfect play.

    def round_start(self, lo: int, hi: int, k: int) -> int:
        """Value with k numbers placed (k even): the lead chooses who places first."""
        if k == CELLS:
            return self.margins[lo]
        key = (k, lo)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        options = (self.placing(lo, hi, k, 0), self.placing(lo, hi, k, 1))
        value = max(options) if lead_of(self.first_lead, k) == RED else min(options)
        self.memo[key] = value
        return value

    def placing(self, lo: int, hi: int, k: int, placer: int) -> int:
        """Value with k numbers placed and ``placer`` to place number k+1."""
        return self._best_child(lo, hi, k, placer)[1]

    def _after(self, lo: int, hi: int, k: int, placer: int) -> int:
        """Value once ``placer`` has put number k (the slice [lo, hi) holds the squares left)."""
        if k % 2:  # the placement round's second number comes next, by the other player
            return self.placing(lo, hi, k, 1 - placer)
        return self.round_start(lo, hi, k)

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
        red = (136 + margin) // 2
        winner = None if margin == 0 else (0 if margin > 0 else 1)
        return Solution(winner, margin, line[0], tuple(line), (red, 136 - red), to_move)

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
