"""Benchmark: Magic Square completability queries and exact solves (one process, one core).

    .venv/bin/python bench/magic_square.py [--queries N] [--colourings N]

Reports the median time of a completability query on the index and of the same question answered
by a plain filter over the 7040 squares (both measured in this run, with their ratio), and the time
to solve one colouring's whole placement phase exactly.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from p2pgenius.games.magic_square.solver import PlacementSolver
from p2pgenius.games.magic_square.squares import index


def positions(rng: random.Random, count: int) -> list[list[int]]:
    """Random positions: prefixes of random squares (completable) and random cells (mostly not)."""
    found = []
    for _ in range(count):
        k = rng.randrange(1, 16)
        if rng.random() < 0.5:
            grid = rng.choice(index().grids)
            found.append([grid.index(n) for n in range(1, k + 1)])
        else:
            found.append(rng.sample(range(16), k))
    return found


def median_ns(function: object, inputs: list[list[int]]) -> float:
    """Median wall time of one call, in nanoseconds."""
    times = []
    for cells in inputs:
        start = time.perf_counter_ns()
        function(cells)  # type: ignore[operator]
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times)


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20000)
    parser.add_argument("--colourings", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(2026)
    ix = index()
    inputs = positions(rng, args.queries)

    def plain(cells: list[int]) -> bool:
        wanted = list(enumerate(cells, start=1))
        return any(all(g[c] == n for n, c in wanted) for g in ix.grids)

    fast = median_ns(ix.completable, inputs)
    slow = median_ns(plain, inputs[: max(200, args.queries // 50)])
    solves = []
    for _ in range(args.colourings):
        colours = [0] * 8 + [1] * 8
        rng.shuffle(colours)
        start = time.perf_counter()
        PlacementSolver(colours, 0).solve([])
        solves.append(time.perf_counter() - start)
    print("| measure | value |")
    print("|---|---|")
    print(f"| completability query, index (median) | {fast / 1000:.2f} us |")
    print(f"| same query, plain filter over 7040 (median) | {slow / 1000:.1f} us |")
    print(f"| speed-up of the index | {slow / fast:,.0f}x |")
    print(
        f"| exact solve of one colouring's placement phase (median of {args.colourings}) "
        f"| {statistics.median(solves):.3f} s |"
    )


if __name__ == "__main__":
    main()
