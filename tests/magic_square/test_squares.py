"""The index of all 4x4 magic squares and its queries."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import p2pgenius.games.magic_square as package
from p2pgenius.games.magic_square.squares import LINES, index, is_magic, packed_data, symmetries


def test_there_are_7040_distinct_magic_squares_880_up_to_symmetry() -> None:
    grids = index().grids
    assert len(grids) == 7040
    assert len(set(grids)) == 7040
    assert all(sorted(g) == list(range(1, 17)) for g in grids)
    assert all(sum(g[c] for c in line) == 34 for g in grids for line in LINES)
    assert len({min(symmetries(g)) for g in grids}) == 880


def test_the_shipped_data_is_what_the_search_finds() -> None:
    shipped = (Path(package.__file__).parent / "squares.bin").read_bytes()
    assert shipped == packed_data()


def test_is_magic_checks_every_line() -> None:
    grid = list(index().grids[0])
    assert is_magic(grid)
    grid[0], grid[1] = grid[1], grid[0]
    assert not is_magic(grid)
    assert not is_magic([1] * 16)


@st.composite
def positions(draw: st.DrawFn) -> list[int]:
    """Cells of 1..k: half the time a prefix of a real square, otherwise any distinct cells."""
    k = draw(st.integers(0, 16))
    if draw(st.booleans()):
        grid = draw(st.sampled_from(index().grids))
        return [grid.index(n) for n in range(1, k + 1)]
    return draw(st.lists(st.integers(0, 15), min_size=k, max_size=k, unique=True))


@settings(max_examples=300, deadline=None)
@given(positions())
def test_queries_agree_with_a_plain_filter(cells: list[int]) -> None:
    grid = [0] * 16
    for number, cell in enumerate(cells, start=1):
        grid[cell] = number
    matches = index().matching(grid)
    ix = index()
    assert ix.count(cells) == len(matches)
    assert ix.completable(cells) == bool(matches)
    completion = ix.completion(cells)
    assert (completion in matches) if matches else completion is None
    expected = sorted({g.index(len(cells) + 1) for g in matches}) if len(cells) < 16 else []
    assert list(ix.next_cells(cells)) == expected
