"""All 7040 magic squares of order 4, and fast questions about partly filled ones.

Magic here means (docs/rules/magic-square.md): each of 1..16 once, and all 4 rows, all 4 columns
and both main diagonals summing to 34. There are exactly 7040 such squares, 880 up to rotation and
reflection.

In the game the numbers go in in order, 1 first, so a position is the list of cells of 1, 2, ..., k.
Each square is keyed by the cells of 1..16, packed 4 bits a cell into one 64-bit integer with the
cell of 1 in the top bits; sorted, the squares that extend a position are then one contiguous slice,
found with two binary searches. That answers "still completable?", "how many completions?", "one
completion" and "where may the next number go?" in microseconds.

The squares ship as data (``squares.bin``: 8 bytes a square, cell 0's number minus one in the top
nibble), because enumerating them takes most of a second; :func:`packed_data` is how the file was
made, and a test checks the two agree.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources
from typing import Final

CELLS: Final = 16
MAGIC_SUM: Final = 34
NUMBERS: Final = range(1, CELLS + 1)
LINES: Final[tuple[tuple[int, ...], ...]] = (
    *(tuple(range(r * 4, r * 4 + 4)) for r in range(4)),
    *(tuple(range(c, 16, 4)) for c in range(4)),
    (0, 5, 10, 15),
    (3, 6, 9, 12),
)
"""The ten lines that must sum to 34: rows, columns, the two main diagonals."""

Grid = tuple[int, ...]


def is_magic(grid: Sequence[int]) -> bool:
    """Whether ``grid`` (16 numbers, row-major) is a magic square."""
    return (
        len(grid) == CELLS
        and sorted(grid) == list(range(1, CELLS + 1))
        and all(sum(grid[i] for i in line) == MAGIC_SUM for line in LINES)
    )


def _pack_positions(grid: Grid) -> int:
    cells = [0] * (CELLS + 1)
    for cell, number in enumerate(grid):
        cells[number] = cell
    code = 0
    for number in range(1, CELLS + 1):
        code = code << 4 | cells[number]
    return code


class MagicIndex:
    """The 7040 squares, sorted by the cells of 1, 2, ..., 16. Use :func:`index`."""

    def __init__(self, grids: Sequence[Grid]) -> None:
        pairs = sorted((_pack_positions(grid), grid) for grid in grids)
        self.codes: list[int] = [code for code, _ in pairs]
        self.grids: list[Grid] = [grid for _, grid in pairs]

    def __len__(self) -> int:
        return len(self.codes)

    def span(self, placed: Sequence[int]) -> tuple[int, int]:
        """The slice [lo, hi) of squares whose numbers 1..k sit on ``placed`` (cells of 1..k)."""
        k = len(placed)
        code = 0
        for cell in placed:
            code = code << 4 | cell
        shift = 4 * (CELLS - k)
        low = code << shift
        return bisect_left(self.codes, low), bisect_left(self.codes, low + (1 << shift))

    def completable(self, placed: Sequence[int]) -> bool:
        """Whether some magic square has 1..k on the cells ``placed``."""
        lo, hi = self.span(placed)
        return hi > lo

    def count(self, placed: Sequence[int]) -> int:
        """How many magic squares complete the position."""
        lo, hi = self.span(placed)
        return hi - lo

    def completion(self, placed: Sequence[int]) -> Grid | None:
        """One completion (the first in the index's order), or None."""
        lo, hi = self.span(placed)
        return self.grids[lo] if hi > lo else None

    def next_cells(self, placed: Sequence[int]) -> tuple[int, ...]:
        """The cells where number k+1 may go so that the square can still be completed."""
        lo, hi = self.span(placed)
        shift = 4 * (CELLS - len(placed) - 1)
        if shift < 0:
            return ()
        found = []
        while lo < hi:
            cell = self.codes[lo] >> shift & 0xF
            found.append(cell)
            # Skip every square with this same cell for k+1: jump to the next prefix.
            lo = bisect_left(self.codes, (self.codes[lo] >> shift) + 1 << shift, lo, hi)
        return tuple(found)

    def children(self, placed: Sequence[int]) -> Iterator[tuple[int, int, int]]:
        """For each cell where k+1 may go: (cell, lo, hi) of the squares that follow (the solver)."""
        lo, hi = self.span(placed)
        yield from self.children_of(lo, hi, len(placed))

    def children_of(self, lo: int, hi: int, k: int) -> Iterator[tuple[int, int, int]]:
        """Like :meth:`children` for the slice [lo, hi) at depth ``k``."""
        shift = 4 * (CELLS - k - 1)
        codes = self.codes
        while lo < hi:
            nxt = bisect_left(codes, (codes[lo] >> shift) + 1 << shift, lo, hi)
            yield codes[lo] >> shift & 0xF, lo, nxt
            lo = nxt

    def matching(self, grid: Sequence[int]) -> list[Grid]:
        """Every square agreeing with a partial grid of any numbers (0 = empty): a plain filter."""
        fixed = [(cell, number) for cell, number in enumerate(grid) if number]
        return [g for g in self.grids if all(g[cell] == number for cell, number in fixed)]


@cache
def index() -> MagicIndex:
    """The index of all 7040 squares (loaded once, in a few milliseconds)."""
    data = resources.files(__package__).joinpath("squares.bin").read_bytes()
    grids = []
    for offset in range(0, len(data), 8):
        packed = int.from_bytes(data[offset : offset + 8], "big")
        grids.append(tuple((packed >> (4 * (15 - cell)) & 0xF) + 1 for cell in range(CELLS)))
    return MagicIndex(grids)


def symmetries(grid: Grid) -> list[Grid]:
    """The 8 images of ``grid`` under rotation and reflection."""
    images = []
    current = grid
    for _ in range(4):
        current = tuple(current[(3 - c) * 4 + r] for r in range(4) for c in range(4))
        images.append(current)
        images.append(tuple(current[r * 4 + (3 - c)] for r in range(4) for c in range(4)))
    return images


def enumerate_squares() -> list[Grid]:
    """Find every magic square by search (how squares.bin was made; slow: a few seconds).

    Cells are chosen in an order that lets a line's last cell be computed: row 0, column 0, the
    anti-diagonal, row 1, then the main diagonal, row 2 and the remaining columns are forced. Each
    step below fills its cells of one shared grid and hands the rest to the next; the numbers
    used so far are a bit set.
    """
    found: list[Grid] = []
    grid = [0] * CELLS
    for c0 in NUMBERS:
        for c1 in _unused(1 << c0):
            for c2 in _unused(1 << c0 | 1 << c1):
                c3 = MAGIC_SUM - c0 - c1 - c2
                used = _with(1 << c0 | 1 << c1, c2, c3)
                if used:
                    grid[0:4] = c0, c1, c2, c3
                    _column0(used, grid, found)
    return sorted(found)


def _unused(used: int) -> list[int]:
    """The numbers not in ``used``, in order."""
    return [number for number in NUMBERS if not used >> number & 1]


def _with(used: int, chosen: int, forced: int) -> int:
    """``used`` with the ``chosen`` number (not in it) and the ``forced`` one that completes its
    line, or 0 when ``forced`` cannot go in (used, ``chosen`` itself, or outside 1..16)."""
    used |= 1 << chosen
    return used | 1 << forced if 1 <= forced <= CELLS and not used >> forced & 1 else 0


def _column0(used: int, grid: list[int], found: list[Grid]) -> None:
    """Column 0 (cells 0, 4, 8, 12): cells 4 and 8 chosen, 12 forced."""
    for c4 in _unused(used):
        for c8 in _unused(used | 1 << c4):
            c12 = MAGIC_SUM - grid[0] - c4 - c8
            taken = _with(used | 1 << c4, c8, c12)
            if taken:
                grid[4], grid[8], grid[12] = c4, c8, c12
                _anti_diagonal(taken, grid, found)


def _anti_diagonal(used: int, grid: list[int], found: list[Grid]) -> None:
    """The anti-diagonal (cells 3, 6, 9, 12): cell 6 chosen, 9 forced."""
    for c6 in _unused(used):
        c9 = MAGIC_SUM - grid[3] - c6 - grid[12]
        taken = _with(used, c6, c9)
        if taken:
            grid[6], grid[9] = c6, c9
            _row1(taken, grid, found)


def _row1(used: int, grid: list[int], found: list[Grid]) -> None:
    """Row 1 (cells 4..7): cell 5 chosen, 7 forced, and with cell 5 column 1's last, cell 13."""
    for c5 in _unused(used):
        c7 = MAGIC_SUM - grid[4] - c5 - grid[6]
        taken = _with(used, c5, c7)
        c13 = MAGIC_SUM - grid[1] - c5 - grid[9]
        if taken and 1 <= c13 <= CELLS and not taken >> c13 & 1:
            grid[5], grid[7], grid[13] = c5, c7, c13
            _last_cells(taken | 1 << c13, grid, found)


def _last_cells(used: int, grid: list[int], found: list[Grid]) -> None:
    """Cell 10 chosen; the main diagonal, row 2 and column 2 force cells 15, 11 and 14, and the
    square is kept if it is magic (column 3 and row 3 are only checked)."""
    diagonal, row2, column2 = (
        MAGIC_SUM - grid[0] - grid[5],
        MAGIC_SUM - grid[8] - grid[9],
        MAGIC_SUM - grid[2] - grid[6],
    )
    for c10 in _unused(used):
        grid[10], grid[15], grid[11], grid[14] = c10, diagonal - c10, row2 - c10, column2 - c10
        # (is_magic alone would do; the cheap checks first keep the search to a few seconds)
        if len(set(grid)) == CELLS and min(grid) >= 1 and is_magic(grid):
            found.append(tuple(grid))


def packed_data() -> bytes:
    """The bytes of squares.bin, regenerated by search. To rewrite the file::

    python -c "from p2pgenius.games.magic_square.squares import packed_data as p;
    open('p2pgenius/games/magic_square/squares.bin', 'wb').write(p())"
    """
    return b"".join(
        sum((n - 1) << (4 * (15 - cell)) for cell, n in enumerate(grid)).to_bytes(8, "big")
        for grid in enumerate_squares()
    )
