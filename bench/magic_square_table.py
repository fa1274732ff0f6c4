"""Regenerate the Magic Square's exact tables (p2pgenius/games/magic_square/data/).

    .venv/bin/python bench/magic_square_table.py [--out DIR]

Solves the placement game once per symmetry class of (colouring, first lead), derives each
colouring's match values, solves the colouring game over every partial colouring, and writes
``colourings.bin`` and ``colouring_game.bin`` (their layout: p2pgenius/games/magic_square/table.py).
Prints how long each step took, the files' sizes, and the colouring game's value. One core: about
a minute (70.6 s on a loaded machine, 2026-12-07: the placement solves 4.3 s, the colouring game
57 s), writing the shipped files byte for byte.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from p2pgenius.games.magic_square import table

DATA = Path(table.__file__).parent / "data"


def main() -> None:
    """Compute and write the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args()
    start = time.perf_counter()

    count = [0]

    def progress(solves: int) -> None:
        count[0] = solves
        if solves % 50 == 0:
            print(f"  {solves} placement solves, {time.perf_counter() - start:.0f} s", file=sys.stderr)

    margins = table.solve_margins(progress)
    solved = time.perf_counter()
    values, backwards = table.match_values(margins)
    derived = time.perf_counter()
    memo = table.solve_colouring_game(values)
    played = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    first = (args.out / "colourings.bin").write_bytes(table.pack_values(values))
    second = (args.out / "colouring_game.bin").write_bytes(table.pack_game(memo))
    roots = [memo[table.canonical(0, 0, f)] for f in (0, 1)]
    print(
        f"placement values of {len(margins)} colourings x 2 first leads ({count[0]} solves, one a "
        f"symmetry class): {solved - start:.1f} s"
    )
    print(f"match values: {derived - solved:.1f} s; colourings preferring to lose round 1: {backwards}")
    print(f"colouring game ({len(memo)} classes of positions): {played - derived:.1f} s")
    print(f"colourings.bin {first} bytes, colouring_game.bin {second} bytes; total {played - start:.1f} s")
    for f, value in zip((0, 1), roots, strict=True):
        match, result, margin = table.split(value)
        print(f"p{f} colours first, red's view: match {match:+d}, round 1 {result:+d}, margin {margin:+d}")


if __name__ == "__main__":
    main()
