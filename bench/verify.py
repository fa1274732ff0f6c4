"""Benchmark: how fast ``p2pgenius verify`` checks transcripts (messages per second), and how
many Ed25519 verifications it makes per message.

    .venv/bin/python bench/verify.py [--matches N] [--python [--runs N] [--game NAME]]

Plays whole bot matches in memory, then times verifying every transcript (signatures, chains,
commitments, legality, hashes, audits), and reports the rate and the time for 10,000 messages;
then counts the Ed25519 verifications (libsodium's, each a real one: none remembered from before)
per message checked, of one peer's transcript (``p2pgenius verify``) and of every peer's copies
merged (``verify_copies``, what the record does with the copies of a match).

With ``--python``, the Python alone instead: each transcript verified once, which remembers its
signatures (``identity.VERIFIED``), then all of them verified again ``--runs`` times, each run's
processor time (``time.process_time``) divided by the messages checked; the least, the median and
the most of the runs, per game.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import nacl.bindings

from p2pgenius.games.catalog import names
from p2pgenius.inmemory import MemoryTable, play, transcript
from p2pgenius.protocol.identity import VERIFIED
from p2pgenius.protocol.transcript import Report, verify, verify_copies


def counted(check: Callable[[], list[Report]]) -> tuple[int, int]:
    """(Ed25519 verifications, messages checked) of ``check``, from a process that has verified
    nothing yet (as ``p2pgenius verify`` starts)."""
    VERIFIED.clear()
    library = nacl.bindings.crypto_sign_open
    calls = 0

    def opened(signed: bytes, pk: bytes) -> bytes:
        nonlocal calls
        calls += 1
        return library(signed, pk)

    nacl.bindings.crypto_sign_open = opened
    try:
        reports = check()
    finally:
        nacl.bindings.crypto_sign_open = library
    assert all(report.ok for report in reports), [report.summary for report in reports]
    return calls, sum(report.messages for report in reports)


def python_alone(game: str, matches: int, runs: int) -> tuple[int, list[float]]:
    """(messages checked, processor microseconds a message of each run) of verifying ``matches``
    transcripts of ``game`` whose signatures are remembered already (the Python alone)."""
    files = [transcript(play(game, seed=seed), 0) for seed in range(matches)]
    reports = [verify(data) for data in files]  # (remembers every signature)
    assert all(report.ok for report in reports), [report.summary for report in reports]
    checked = sum(report.messages for report in reports)
    per_message = []
    for _ in range(runs):
        start = time.process_time()
        for data in files:
            verify(data)
        per_message.append((time.process_time() - start) / checked * 1e6)
    return checked, per_message


def main() -> None:
    """Run and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--python", action="store_true", help="the Python alone, signatures remembered")
    parser.add_argument("--runs", type=int, default=5, help="with --python: timed runs")
    parser.add_argument("--game", choices=names(), help="with --python: this game alone")
    args = parser.parse_args()
    if args.python:
        print("| game | messages checked | Python per message: least | median | most |")
        print("|---|---|---|---|---|")
        for game in [args.game] if args.game else names():
            checked, runs = python_alone(game, args.matches, args.runs)
            low, mid, high = min(runs), sorted(runs)[len(runs) // 2], max(runs)
            print(f"| {game} | {checked} | {low:.1f} us | {mid:.1f} us | {high:.1f} us |")
        return
    print("| game | messages checked | messages per second | 10,000 messages |")
    print("|---|---|---|---|")
    tables = {game: [play(game, seed=seed) for seed in range(args.matches)] for game in names()}
    for game, played in tables.items():
        files = [transcript(table, 0) for table in played]
        VERIFIED.clear()  # (playing the matches here verified every message of them)
        start = time.perf_counter()
        checked = 0
        for data in files:
            report = verify(data)
            assert report.ok, report.summary
            checked += report.messages
        rate = checked / (time.perf_counter() - start)
        print(f"| {game} | {checked} | {rate:,.0f} | {10_000 / rate:.2f} s |")
    print()
    print("| game | Ed25519 verifications per message: one transcript | every peer's copies merged |")
    print("|---|---|---|")
    for game, played in tables.items():

        def one_each(played: list[MemoryTable] = played) -> list[Report]:
            return [verify(transcript(table, 0)) for table in played]

        def merged_each(played: list[MemoryTable] = played) -> list[Report]:
            return [
                verify_copies([transcript(table, peer) for peer in range(len(table.sessions))])
                for table in played
            ]

        one, merged = counted(one_each), counted(merged_each)
        print(f"| {game} | {one[0] / one[1]:.2f} | {merged[0] / merged[1]:.2f} |")


if __name__ == "__main__":
    main()
