"""Benchmark: start-up time of the ``p2pgenius`` command, paired with a bare Python start.

    .venv/bin/python bench/startup.py [--runs N]

Each round runs every command once, in an order that turns by one each round, so that the
machine's changes in load hit every command alike; each ``p2pgenius`` run is compared with the bare
``python -c pass`` of its own round. Reported: each command's median and spread (the quartiles),
and for each ``p2pgenius`` command its difference from, and ratio to, bare Python (the median and
quartiles of the per-round figures). ``python -c "import trio"`` is there for scale: the networking
library alone, which ``--help`` should not need. Last, the CPU time of each command (user and
system, its median), which a busy machine inflates less than the wall time: on a machine others
share, compare those.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

BARE = "python -c pass"


def commands() -> dict[str, list[str]]:
    """What is timed, by the name shown: the installed ``p2pgenius`` script (as people run it,
    beside this Python), and bare Python."""
    script = Path(sys.executable).with_name("p2pgenius")
    found = str(script) if script.exists() else shutil.which("p2pgenius")
    ours = [found] if found else [sys.executable, "-m", "p2pgenius"]
    return {
        BARE: [sys.executable, "-c", "pass"],
        'python -c "import trio"': [sys.executable, "-c", "import trio"],
        "p2pgenius --help": [*ours, "--help"],
        "p2pgenius rules duel": [*ours, "rules", "duel"],
    }


CPU_S: dict[str, list[float]] = {}
"""The CPU time (user and system) of each command's runs, by its argument list."""


def wall_s(command: list[str]) -> float:
    """Wall time of one run of ``command`` (its CPU time goes to :data:`CPU_S`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    CPU_S.setdefault(" ".join(command), []).append(cpu)
    return took


def spread(values: Sequence[float], unit: str = "ms") -> str:
    """The median, and the middle half of the runs (the quartiles) in brackets."""
    low, mid, high = quartiles(values)
    if unit == "x":
        return f"{mid:.2f}x ({low:.2f} to {high:.2f})"
    return f"{mid * 1000:.0f} ms ({low * 1000:.0f} to {high * 1000:.0f})"


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile)."""
    if len(values) < 2:
        return values[0], values[0], values[0]
    low, mid, high = statistics.quantiles(values, n=4)
    return low, mid, high


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="rounds (each runs every command once)")
    args = parser.parse_args()
    named = commands()
    for command in named.values():
        wall_s(command)  # once unmeasured: the file cache warm for every command alike
    CPU_S.clear()
    times: dict[str, list[float]] = {name: [] for name in named}
    order = list(named)
    for round_ in range(args.runs):
        turned = order[round_ % len(order) :] + order[: round_ % len(order)]
        for name in turned:
            times[name].append(wall_s(named[name]))
    bare = times[BARE]
    print(f"| start-up ({args.runs} paired runs) | time | minus bare Python | ratio to bare Python |")
    print("|---|---|---|---|")
    for name, values in times.items():
        if name == BARE:
            print(f"| {name} | {spread(values)} | | |")
            continue
        minus = [ours - base for ours, base in zip(values, bare, strict=True)]
        ratio = [ours / base for ours, base in zip(values, bare, strict=True)]
        print(f"| {name} | {spread(values)} | {spread(minus)} | {spread(ratio, 'x')} |")
    print()
    print(
        "Medians, with the middle half of the runs (first to third quartile) in brackets; the "
        "difference and the ratio are taken within each round (each command beside the bare "
        "start of its own round), then summarised."
    )
    print()
    floor = statistics.median(CPU_S[" ".join(named[BARE])])
    cpu = {name: statistics.median(CPU_S[" ".join(command)]) for name, command in named.items()}
    print(
        "CPU time (user and system, median): "
        + "; ".join(
            f"{name} {value * 1000:.0f} ms" + ("" if name == BARE else f" ({value / floor:.2f}x)")
            for name, value in cpu.items()
        )
    )


if __name__ == "__main__":
    main()
