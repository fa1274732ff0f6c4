"""Benchmark: how fast ``p2pgenius verify`` checks transcripts (messages per second), and how
many Ed25519 verifications it makes per message.

    .venv/bin/python bench/verify.py [--matches N] [--rounds N] [--python [--runs N] [--game NAME]]

Plays whole bot matches in memory, then times verifying every transcript (signatures, chains,
commitments, legality, hashes, audits) from a process that has verified nothing: on one thread
(``protocol.transcript.verify``), and as the commands verify (``record.verifying.verify``: the
signatures checked first on every core, then the replay), wall time and processor time (every
thread's) per message, each also in verifications' worth (one Ed25519 verification of a 300-byte
message timed in the same run); then counts the Ed25519 verifications (libsodium's, each a real
one: none remembered from before)
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
from p2pgenius.protocol.transcript import Report, verify_copies
from p2pgenius.protocol.transcript import verify as plain_verify
from p2pgenius.record.verifying import cores, verify


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
    reports = [plain_verify(data) for data in files]  # (remembers every signature)
    assert all(report.ok for report in reports), [report.summary for report in reports]
    checked = sum(report.messages for report in reports)
    per_message = []
    for _ in range(runs):
        start = time.process_time()
        for data in files:
            plain_verify(data)
        per_message.append((time.process_time() - start) / checked * 1e6)
    return checked, per_message


def one_verification() -> float:
    """Seconds of one Ed25519 verification of a 300-byte message, least of 5 batches."""
    public, secret = nacl.bindings.crypto_sign_keypair()
    signed = nacl.bindings.crypto_sign(b"m" * 300, secret)
    batches = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(1000):
            nacl.bindings.crypto_sign_open(signed, public)
        batches.append((time.perf_counter() - start) / 1000)
    return min(batches)


def timed(files: list[bytes], check: Callable[[bytes], Report], rounds: int) -> tuple[float, float, int]:
    """(wall seconds, processor seconds, messages checked) of verifying ``files`` with ``check``
    from a process that has verified nothing yet, least of ``rounds`` rounds."""
    walls, processors, checked = [], [], 0
    for _ in range(rounds):
        VERIFIED.clear()  # (playing the matches here, or the round before, verified them)
        wall, processor, checked = time.perf_counter(), time.process_time(), 0
        for data in files:
            report = check(data)
            assert report.ok, report.summary
            checked += report.messages
        walls.append(time.perf_counter() - wall)
        processors.append(time.process_time() - processor)
    return min(walls), min(processors), checked


def worth(seconds: float, messages: int, unit: float) -> str:
    """A time per message, in microseconds and in verifications' worth."""
    return f"{seconds / messages * 1e6:.1f} us ({seconds / messages / unit:.2f})"


def main() -> None:
    """Run and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--python", action="store_true", help="the Python alone, signatures remembered")
    parser.add_argument("--runs", type=int, default=5, help="with --python: timed runs")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each verification (least kept)")
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
    unit = one_verification()
    print(
        "| game | messages checked | one thread: wall a message | signatures first on "
        f"{cores()} cores: wall a message | processor time a message |"
    )
    print("|---|---|---|---|---|")
    tables = {game: [play(game, seed=seed) for seed in range(args.matches)] for game in names()}
    for game, played in tables.items():
        files = [transcript(table, 0) for table in played]
        alone = timed(files, plain_verify, args.rounds)
        first = timed(files, verify, args.rounds)
        checked = alone[2]
        print(
            f"| {game} | {checked} | {worth(alone[0], checked, unit)} | {worth(first[0], checked, unit)} "
            f"| {worth(first[1], checked, unit)} |"
        )
    print()
    print(
        f"(In brackets: in verifications' worth, one Ed25519 verification taking {unit * 1e6:.1f} us here.)"
    )
    print()
    print("| game | Ed25519 verifications per message: one transcript | every peer's copies merged |")
    print("|---|---|---|")
    for game, played in tables.items():

        def one_each(played: list[MemoryTable] = played) -> list[Report]:
            return [plain_verify(transcript(table, 0)) for table in played]

        def merged_each(played: list[MemoryTable] = played) -> list[Report]:
            return [
                verify_copies([transcript(table, peer) for peer in range(len(table.sessions))])
                for table in played
            ]

        one, merged = counted(one_each), counted(merged_each)
        print(f"| {game} | {one[0] / one[1]:.2f} | {merged[0] / merged[1]:.2f} |")


if __name__ == "__main__":
    main()
