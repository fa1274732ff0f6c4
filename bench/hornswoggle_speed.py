"""Benchmark (issue 49): the processor time of the ``captain`` per decision and per match.

    nice -n 5 .venv/bin/python bench/hornswoggle_speed.py [--matches 20] [--offset 0]

Plays N seeded matches of four captains, the engine alone (no network), each with one Hacked
Garnet a seat; the seat to act and the bots' seeds follow the match's seed, so that two versions
of the code play the same matches for as long as they decide alike. Prints the processor time
(``time.process_time``: this process's CPU, not the wall clock of a shared machine) of a
captain's decision, median and 99th percentile (nearest rank, each with its distribution-free
95% interval), and of a whole match (every decision), its mean
with a 95% bootstrap interval; then a digest of every decision and of the captains' generators
after each, the same for two versions of the code exactly when they made the same decisions with
the same random numbers.

To compare with another version, run this script from that version's tree (or with its
``p2pgenius`` first on ``PYTHONPATH``) with the same arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time

from hornswoggle_bots import play  # (bench/: this folder is on the path)
from stats import bootstrap_mean, quantile_interval

from p2pgenius.games.hornswoggle.actions import HornAction
from p2pgenius.games.hornswoggle.search import CaptainBot
from p2pgenius.games.hornswoggle.state import HornState


def match(seed: int, digest: hashlib._Hash, decisions: list[float]) -> float:
    """One match of four captains; the CPU seconds of its decisions (each one added to
    ``decisions``, each decision and generator state to ``digest``)."""
    captains = [CaptainBot(seed=seed * 10 + seat) for seat in range(4)]  # (the level's bot)
    spent: list[float] = []

    def timed(seat: int, cpu: float) -> None:
        decisions.append(cpu)
        spent.append(cpu)

    def watch(before: HornState, seat: int, action: HornAction, after: HornState) -> None:
        digest.update(f"{seat} {action!r} {captains[seat].rng.getstate()}\n".encode())

    play([*captains], seed, timed, watch, clock=time.process_time)
    return sum(spent)


def _ms(quantile: tuple[float, float, float]) -> str:
    """A quantile and its interval, in milliseconds."""
    estimate, low, high = (f"{x * 1e3:.2f}" for x in quantile)
    return f"{estimate} ms [{low}, {high}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--offset", type=int, default=0, help="the first match's seed")
    args = parser.parse_args()
    digest = hashlib.sha256()
    decisions: list[float] = []
    matches = [match(args.offset + n, digest, decisions) for n in range(args.matches)]
    median, p99 = quantile_interval(decisions, 0.5), quantile_interval(decisions, 0.99)
    mean, (low, high) = statistics.fmean(matches), bootstrap_mean(matches)
    print("| captain vs captain, engine alone | value |")
    print("|---|---|")
    print(f"| matches (seeds {args.offset} to {args.offset + args.matches - 1}) | {args.matches} |")
    print(f"| decisions | {len(decisions)} |")
    print(f"| CPU per decision, median [95% interval] | {_ms(median)} |")
    print(f"| CPU per decision, 99th percentile [95% interval] | {_ms(p99)} |")
    print(f"| CPU per match, mean [95% bootstrap interval] | {mean:.2f} s [{low:.2f}, {high:.2f}] |")
    print(f"| digest of every decision | {digest.hexdigest()[:16]} |")


if __name__ == "__main__":
    main()
