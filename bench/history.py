"""Benchmark: ``p2pgenius history`` over many transcripts, once they are indexed.

    .venv/bin/python bench/history.py [--transcripts N] [--runs R]

Fills a fresh config directory's matches/ with N transcripts (copies of the protocol's vector
matches of every game, each under a name of its own), indexes them once (every transcript
verified, by a worker process a core: timed, with its rate), then times R whole runs of
``p2pgenius history`` (the index brought up to date, which reads no transcript; every line, the
ratings; the output thrown away) and of ``history --json``; last, the index rebuilt by this
process alone (as before issue 48), for the ratio. The targets: under a second for 1,000
transcripts once indexed; 100 transcripts a second indexed, on two cores. The load average is
printed with each figure: the workers share the cores with whatever else runs.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from p2pgenius.protocol.transcript import Report

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"
GAMES = ("duel", "magic-square", "hornswoggle")


def fill(folder: Path, count: int) -> None:
    """``count`` transcripts in ``folder``, named as a peer names them."""
    folder.mkdir(parents=True)
    sources = [(VECTORS / f"transcript-{game}.p2pt").read_bytes() for game in GAMES]
    for number in range(count):
        game = GAMES[number % len(GAMES)]
        clock = time.strftime("%Y%m%d-%H%M%S", time.gmtime(1_790_000_000 + 3600 * number))
        (folder / f"{clock}-{number:06d}-{game}-host.p2pt").write_bytes(sources[number % len(sources)])


def each_a_match_of_its_own() -> None:
    """Verify each transcript as if no other had been: the folder holds copies of three
    transcripts, and the signatures of the first would be remembered for the others (a real
    folder's matches share none; see ``identity.verify``)."""
    from p2pgenius.protocol.identity import VERIFIED  # noqa: PLC0415
    from p2pgenius.record import matches  # noqa: PLC0415
    from p2pgenius.record.verifying import verify  # noqa: PLC0415

    def fresh(data: bytes, *, threads: int | None = None) -> Report:
        VERIFIED.clear()
        return verify(data, threads=threads)

    matches.verify = fresh  # type: ignore[attr-defined]


if __name__ == "__mp_main__":
    # An index worker: spawned, it runs this script first (as __mp_main__), then verifies its
    # share of the transcripts; without this, it would remember every signature of the three
    # transcripts' first copies and check no signature of the other copies.
    each_a_match_of_its_own()


def timed(argv: list[str]) -> float:
    from p2pgenius.cli.main import main  # noqa: PLC0415  (after P2PGENIUS_HOME is set)

    start = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        code = main(argv)
    took = time.perf_counter() - start
    assert code == 0, f"{argv} exited {code}"
    return took


def alone(home: Path) -> tuple[float, float]:
    """The index rebuilt by this process alone, every transcript verified again: (wall-clock
    seconds, processor seconds)."""
    from p2pgenius.record.index import Index  # noqa: PLC0415

    with Index(Path(home) / "history.sqlite", Path(home) / "matches") as index:
        start, used = time.perf_counter(), time.process_time()
        index.rebuild(processes=1)
        return time.perf_counter() - start, time.process_time() - used


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["P2PGENIUS_HOME"] = home
        fill(Path(home) / "matches", args.transcripts)
        each_a_match_of_its_own()
        first = timed(["history"])
        print(
            f"indexing {args.transcripts} transcripts (each verified): {first:.1f} s, "
            f"{args.transcripts / first:.0f} a second ({load()})",
            file=sys.stderr,
        )
        plain = [timed(["history"]) for _ in range(args.runs)]
        as_json = [timed(["history", "--json"]) for _ in range(args.runs)]
        serial, cpu = alone(Path(home))
        print(
            f"the same by one process alone: {serial:.1f} s, {args.transcripts / serial:.0f} a second, "
            f"{1000 * cpu / args.transcripts:.1f} ms of processor a transcript ({load()})",
            file=sys.stderr,
        )
    print("| what | transcripts | median | slowest |")
    print("|---|---|---|---|")
    rate = f"{args.transcripts / first:.0f} a second"
    print(f"| first run: index every transcript | {args.transcripts} | {first:.2f} s ({rate}) | - |")
    each = 1000 * cpu / args.transcripts
    rate = f"{args.transcripts / serial:.0f} a second; {each:.1f} ms of processor each"
    print(f"| the same, one process alone (as before) | {args.transcripts} | {serial:.2f} s ({rate}) | - |")
    for label, runs in (("history, once indexed", plain), ("history --json, once indexed", as_json)):
        print(f"| {label} | {args.transcripts} | {statistics.median(runs):.3f} s | {max(runs):.3f} s |")


if __name__ == "__main__":
    main()
