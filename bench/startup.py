"""Benchmark: start-up time of ``p2pgenius --help`` against a bare Python start, in one run.

.venv/bin/python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def median_s(command: list[str], runs: int) -> float:
    """Median wall time of running ``command``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    bare = median_s([sys.executable, "-c", "pass"], args.runs)
    ours = median_s([sys.executable, "-m", "p2pgenius", "--help"], args.runs)
    print("| start-up (median) | time |")
    print("|---|---|")
    print(f"| python -c pass | {bare * 1000:.0f} ms |")
    print(f"| p2pgenius --help | {ours * 1000:.0f} ms |")
    print(f"| p2pgenius's own share | {(ours - bare) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
