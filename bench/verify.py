"""Benchmark: how fast ``p2pgenius verify`` checks transcripts (messages per second).

    .venv/bin/python bench/verify.py [--matches N]

Plays whole bot matches in memory, then times verifying every transcript (signatures, chains,
commitments, legality, hashes, audits), and reports the rate and the time for 10,000 messages.
"""

from __future__ import annotations

import argparse
import time

from p2pgenius.games.catalog import names
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.transcript import verify


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4)
    args = parser.parse_args()
    print("| game | messages checked | messages per second | 10,000 messages |")
    print("|---|---|---|---|")
    for game in names():
        files = [transcript(play(game, seed=seed), 0) for seed in range(args.matches)]
        start = time.perf_counter()
        checked = 0
        for data in files:
            report = verify(data)
            assert report.ok, report.summary
            checked += report.messages
        rate = checked / (time.perf_counter() - start)
        print(f"| {game} | {checked} | {rate:,.0f} | {10_000 / rate:.2f} s |")


if __name__ == "__main__":
    main()
