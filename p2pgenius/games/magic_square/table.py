"""Exact values of the Magic Square's colourings and of its colouring game, from shipped tables.

What a round's value depends on. Under perfect play nobody places a number that leaves the square
uncompletable (the opponent would challenge and win the round) and nobody challenges a completable
one (the challenge would fail), so challenges and completions never happen and a round is the
placement game of :mod:`~p2pgenius.games.magic_square.solver`. Its value depends only on the
colouring and on the round's first Lead Player (who places first is the lead's choice, inside the
game): ``margin(c, L)``, red minus blue under perfect play. A 68-68 tie replays the round with the
same colouring and the other first lead, so the round's result is ``sign(margin(c, L))``, or
``sign(margin(c, 1 - L))`` after a tie, or an endless run of ties (0) when both are zero. Since
red wants a win, then a tie, and a tie is worth what the replay is worth, the margin-maximising
solver also plays the round's result exactly.

The match. Round 1 is the colouring game and a round with first lead = whoever coloured second.
Round 2: its loser may make up to two swaps (any colouring within two swaps: 1 + 64 + 28 * 28 = 849
of them), then leads first; if the loser wins round 2, round 3 is the same with the round-2 loser
swapping. Winning round 2 or 3 is never worse than losing it. With the round results this gives,
for every colouring, exactly (values +1 win, 0 an endless tie, -1 loss):

* ``final(c, t)``: what seat ``t``, swapping before round 3 and leading, gets (its view);
* ``second(c, s)``: what seat ``s``, swapping before round 2, gets from the whole match (its view);
* ``match(c, L)``: the match value of round 1 played on ``c`` with first lead ``L`` (red's view).

``colourings.bin`` holds, for each of the C(16, 8) = 12870 colourings (red cells as a 16-bit mask,
bit i cell i, masks in increasing order), six signed bytes: margin with first lead p0 and p1,
final for p0 and p1, match with first lead p0 and p1 (77,220 bytes). Generating it solves the
placement game once per class of the symmetries below (476 solves, 4 s on one core; 70-75 s before
the solver valued its tree bottom up, issue 49), then derives the match values (6 s).

Symmetries. Exactly 32 permutations of the cells map the 7040 magic squares onto themselves (a
one-off exhaustive search, over the permutations that keep the 16 x 16 matrix of sums over all
squares of products of two cells' numbers, found these 32 and no others; a test checks the 32):
those that map the ten lines (rows, columns, both diagonals) onto themselves, i.e. a row and a
column permutation, each commuting with reversal and tied so the diagonals stay diagonals, with
or without the transpose. The placement game on a colouring and on its image is the same game,
so they share values. Exchanging the seats (red <-> blue, first lead L <-> 1-L) negates the margin.

What the tables say (bench/magic_square_table.py prints it): the first Lead Player has the edge
(with red leading first, red wins round 1 on 8468 of the 12870 colourings, blue on 3248, and 1154
tie without end); the seat swapping before round 3 can always reach a colouring it wins; so the
seat swapping before round 2 cannot win the match against perfect play, but can always swap into a
colouring that ties without end: every colouring's match value is 0, and winning round 1 is never
worse than losing it (here: worth the same), so playing each round to win it is exact.

The colouring game. The leaves are the full colourings, valued by ``match``, then round 1's
result, then its margin (``1024 * match + 128 * result + margin``, red's view: a total order that
first of all plays the match exactly). ``colouring_game.bin`` holds the minimax value of every
partial colouring with at most :data:`SHIPPED_DEPTH` cells coloured, one entry per symmetry class
(8 bytes: who coloured first, red mask, blue mask, value; 14,158 entries); deeper positions are
searched at move time (at most 10 cells left: about 17,000 positions, 0.2 s). Solving the whole
game (642,794 classes of positions) takes 30 s. Under perfect play whoever colours first loses
round 1 by 2 points (the match is still a draw).

Regenerate both files with ``python bench/magic_square_table.py`` (about a minute on one core;
it writes the shipped bytes exactly; tests check sampled entries against the solver and a search).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from importlib import resources
from itertools import combinations, permutations
from typing import Final

from p2pgenius.games.magic_square.solver import PlacementSolver
from p2pgenius.games.magic_square.squares import LINES

FULL: Final = 0xFFFF
MASKS: Final[tuple[int, ...]] = tuple(m for m in range(1 << 16) if m.bit_count() == 8)
"""The 12870 colourings as red masks (bit i set: cell i is red), in increasing order."""
RANK: Final[dict[int, int]] = {mask: i for i, mask in enumerate(MASKS)}
RECORD: Final = 6
SHIPPED_DEPTH: Final = 6
"""The colouring game's table holds positions with at most this many cells coloured."""
MATCH_WEIGHT: Final = 1024
RESULT_WEIGHT: Final = 128
"""A colouring-game value is MATCH_WEIGHT * match value + RESULT_WEIGHT * round-1 result + round-1
margin (margins are within 36), so comparing values compares the three in that order."""

Values = list[tuple[int, int, int, int, int, int]]


def symmetries() -> tuple[tuple[int, ...], ...]:
    """The 32 cell permutations that map the ten lines onto themselves (cell c goes to p[c])."""
    lines = {frozenset(line) for line in LINES}
    found = set()
    for rows in permutations(range(4)):
        for cols in permutations(range(4)):
            for transpose in (False, True):
                perm = tuple(
                    cols[c] * 4 + rows[r] if transpose else rows[r] * 4 + cols[c]
                    for r in range(4)
                    for c in range(4)
                )
                if all(frozenset(perm[c] for c in line) in lines for line in lines):
                    found.add(perm)
    return tuple(sorted(found))


@cache
def _byte_images() -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """For each symmetry: the image of each low byte and of each high byte of a mask."""
    out = []
    for perm in symmetries():
        low = tuple(sum(1 << perm[c] for c in range(8) if b >> c & 1) for b in range(256))
        high = tuple(sum(1 << perm[c + 8] for c in range(8) if b >> c & 1) for b in range(256))
        out.append((low, high))
    return tuple(out)


def images(mask: int) -> list[int]:
    """A set of cells (as a mask) under each of the 32 symmetries."""
    return [low[mask & 255] | high[mask >> 8] for low, high in _byte_images()]


def canonical(red: int, blue: int, first: int) -> int:
    """A partial colouring's key, the same for its whole symmetry class: first << 32 | red << 16 |
    blue, least over the symmetries."""
    return min(
        first << 32 | (lo[red & 255] | hi[red >> 8]) << 16 | lo[blue & 255] | hi[blue >> 8]
        for lo, hi in _byte_images()
    )


def colours_of(mask: int) -> list[int]:
    """The seats of the 16 cells (0 red, 1 blue) of a red mask."""
    return [0 if mask >> c & 1 else 1 for c in range(16)]


def mask_of(colours: Sequence[int | None], seat: int) -> int:
    """The cells coloured ``seat``, as a mask."""
    return sum(1 << c for c, owner in enumerate(colours) if owner == seat)


def neighbours(mask: int, swaps: int = 2) -> list[int]:
    """Every colouring reachable with up to ``swaps`` (0..2) swaps, ``mask`` itself first."""
    red = [1 << c for c in range(16) if mask >> c & 1]
    blue = [1 << c for c in range(16) if not mask >> c & 1]
    found = [mask]
    if swaps >= 1:
        found += [mask ^ r ^ b for r in red for b in blue]
    if swaps >= 2:
        found += [
            mask ^ r1 ^ r2 ^ b1 ^ b2 for r1, r2 in combinations(red, 2) for b1, b2 in combinations(blue, 2)
        ]
    return found


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


# Computing the tables (slow; bench/magic_square_table.py).


def solve_margins(progress: Callable[[int], None] | None = None) -> list[tuple[int, int]]:
    """margin(c, L) for every colouring and first lead, one placement solve per symmetry class."""
    found: dict[tuple[int, int], int] = {}
    solves = 0
    for mask in MASKS:
        for lead in (0, 1):
            if (mask, lead) in found:
                continue
            margin = PlacementSolver(colours_of(mask), lead).solve([]).margin
            solves += 1
            if progress is not None:
                progress(solves)
            for image in images(mask):
                found[image, lead] = margin
                found[image ^ FULL, 1 - lead] = -margin
    return [(found[mask, 0], found[mask, 1]) for mask in MASKS]


def round_result(margins: Sequence[tuple[int, int]], rank: int, lead: int) -> int:
    """A round's result, red's view (+1 red wins, -1 blue wins, 0 ties without end)."""
    first = sign(margins[rank][lead])
    return first if first else sign(margins[rank][1 - lead])


def match_values(margins: Sequence[tuple[int, int]]) -> tuple[Values, int]:
    """The six values of each colouring (see the module's doc) from its margins, and how many
    colourings (counting both first leads) would rather lose round 1 than win it (expected 0: if
    not, a round-1 player's best is not simply to win the round)."""
    count = len(MASKS)
    view = (1, -1)
    result = [[view[t] * round_result(margins, r, t) for r in range(count)] for t in (0, 1)]
    final: list[tuple[int, int]] = []
    for r in range(count):
        near = [RANK[m] for m in neighbours(MASKS[r])]
        final.append((max(result[0][o] for o in near), max(result[1][o] for o in near)))
    second: list[tuple[int, int]] = []
    for r in range(count):
        near = [RANK[m] for m in neighbours(MASKS[r])]
        pair = []
        for s in (0, 1):
            pair.append(max(-final[o][1 - s] if result[s][o] == 1 else result[s][o] for o in near))
        second.append((pair[0], pair[1]))
    out: Values = []
    backwards = 0
    for r in range(count):
        match = []
        for lead in (0, 1):
            first = round_result(margins, r, lead)
            match.append(-second[r][1] if first == 1 else second[r][0] if first == -1 else 0)
        backwards += -second[r][1] < second[r][0]
        out.append((*margins[r], *final[r], match[0], match[1]))
    return out, backwards


def leaf_value(values: Values, red: int, first: int) -> int:
    """A full colouring's colouring-game value (red's view); round 1's first lead is the second colourer."""
    row = values[RANK[red]]
    lead = 1 - first
    result = sign(row[lead]) or sign(row[1 - lead])
    return MATCH_WEIGHT * row[4 + lead] + RESULT_WEIGHT * result + row[lead]


def split(value: int) -> tuple[int, int, int]:
    """A colouring-game value's match value, round-1 result and round-1 margin."""
    match, rest = divmod(value + MATCH_WEIGHT // 2, MATCH_WEIGHT)
    result, margin = divmod(rest - MATCH_WEIGHT // 2 + RESULT_WEIGHT // 2, RESULT_WEIGHT)
    return match, result, margin - RESULT_WEIGHT // 2


def mover(red: int, blue: int, first: int) -> int:
    """Who colours next."""
    reds, blues = red.bit_count(), blue.bit_count()
    return first if reds == blues else (1 if reds > blues else 0)


def raw_key(red: int, blue: int, first: int) -> int:
    """A partial colouring's key without symmetry (the search at move time)."""
    return first << 32 | red << 16 | blue


class ColouringSearch:
    """The colouring game's minimax (red's view), memoised under ``key``."""

    def __init__(self, leaf: Callable[[int, int], int], key: Callable[[int, int, int], int]) -> None:
        self.leaf = leaf
        self.key = key
        self.memo: dict[int, int] = {}

    def value(self, red: int, blue: int, first: int) -> int:
        """The value of a partial colouring when ``first`` coloured (or colours) first."""
        if red | blue == FULL:
            return self.leaf(red, first)
        k = self.key(red, blue, first)
        known = self.memo.get(k)
        if known is not None:
            return known
        free = FULL ^ (red | blue)
        children = []
        if mover(red, blue, first) == 0:
            while free:
                bit = free & -free
                free ^= bit
                children.append(self.value(red | bit, blue, first))
            value = max(children)
        else:
            while free:
                bit = free & -free
                free ^= bit
                children.append(self.value(red, blue | bit, first))
            value = min(children)
        self.memo[k] = value
        return value


def solve_colouring_game(values: Values) -> dict[int, int]:
    """Every canonical partial colouring's value (both choices of who colours first)."""
    solver = ColouringSearch(lambda red, first: leaf_value(values, red, first), canonical)
    for first in (0, 1):
        solver.value(0, 0, first)
    return solver.memo


def pack_values(values: Values) -> bytes:
    """colourings.bin."""
    return b"".join(bytes(v & 0xFF for v in row) for row in values)


def pack_game(memo: dict[int, int]) -> bytes:
    """colouring_game.bin: the shipped depths, sorted by key."""
    shallow = sorted(
        (k, v) for k, v in memo.items() if (k >> 16 & FULL | k & FULL).bit_count() <= SHIPPED_DEPTH
    )
    return b"".join(k.to_bytes(6, "big") + v.to_bytes(2, "big", signed=True) for k, v in shallow)


# Reading the tables.


def _signed(byte: int) -> int:
    return byte - 256 if byte > 127 else byte


@cache
def values() -> Values:
    """The six values of every colouring, in MASKS order (loaded once)."""
    data = resources.files(__package__).joinpath("data", "colourings.bin").read_bytes()
    rows: Values = []
    for i in range(0, len(data), RECORD):
        a, b, c, d, e, f = (_signed(x) for x in data[i : i + RECORD])
        rows.append((a, b, c, d, e, f))
    return rows


@cache
def game() -> dict[int, int]:
    """The colouring game's shipped values: canonical key -> value (red's view)."""
    data = resources.files(__package__).joinpath("data", "colouring_game.bin").read_bytes()
    return {
        int.from_bytes(data[i : i + 6], "big"): int.from_bytes(data[i + 6 : i + 8], "big", signed=True)
        for i in range(0, len(data), 8)
    }


def row(colours: Sequence[int | None]) -> tuple[int, int, int, int, int, int]:
    """The six values of a full colouring."""
    return values()[RANK[mask_of(colours, 0)]]


def colouring_values(red: int, blue: int, first: int) -> Iterable[tuple[int, int]]:
    """(cell, value red's view) for each cell the mover may colour next."""
    who = mover(red, blue, first)
    free = [c for c in range(16) if not (red | blue) >> c & 1]
    coloured = (red | blue).bit_count() + 1
    shipped = game()

    deep = ColouringSearch(lambda r, f: leaf_value(values(), r, f), raw_key)
    out = []
    for cell in free:
        r, b = (red | 1 << cell, blue) if who == 0 else (red, blue | 1 << cell)
        if coloured <= SHIPPED_DEPTH:
            out.append((cell, shipped[canonical(r, b, first)]))
        else:
            out.append((cell, deep.value(r, b, first)))
    return out


def root_value(first: int) -> int:
    """The colouring game's value (red's view) when ``first`` colours first."""
    return game()[canonical(0, 0, first)]
