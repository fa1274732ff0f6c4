"""Run every benchmark and write the tables to docs/performance.md (and print them).

    .venv/bin/python bench/all.py [--quick] [--out FILE]

Each benchmark measures both sides of its comparison in the same run; the figures to read are the
ratios. ``--quick`` runs fewer repetitions (a look, not for the record); ``--smoke`` runs each on the
smallest input that exercises its code (the test suite's check that every benchmark still runs and
measures something: seconds, not minutes; two run at a time there, one a core); ``--out`` writes the
tables elsewhere.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHES: list[tuple[str, str, list[str], list[str]]] = [
    ("Engine throughput", "engines.py", [], ["--matches", "2", "--slow-matches", "1"]),
    ("Duel engine", "duel_turns.py", [], ["--matches", "60"]),
    ("Magic Square index and solver", "magic_square.py", [], ["--queries", "2000", "--colourings", "2"]),
    (
        "Hornswoggle bots",
        "hornswoggle_bots.py",
        ["--matches", "100"],
        ["--matches", "2", "--rows", "captain-random,pirate-random"],
    ),
    ("Protocol", "protocol.py", [], ["--matches", "4", "--handshakes", "50"]),
    ("Networked play", "network.py", [], ["--matches", "1", "--turns", "100", "--memory-runs", "1"]),
    ("Correspondence: visits per turn", "visits.py", [], ["--matches", "5"]),
    ("Wide-area link: round trips", "wan.py", [], ["--delays", "25", "--samples", "2", "--turns", "5"]),
    (
        "Wide-area link: through a relay",
        "wan.py",
        ["--routes", "--delays", "25,50,100", "--samples", "3", "--turns", "10"],
        ["--routes", "--delays", "50", "--samples", "1", "--turns", "3"],
    ),
    (
        "Wide-area link: through the command line",
        "wan.py",
        ["--cli", "--delays", "25,50,100", "--samples", "5"],
        ["--cli", "--delays", "50", "--samples", "2"],
    ),
    ("Event-loop stalls", "loop.py", [], ["--matches", "1", "--max-stages", "200"]),
    (
        "Load: matches at once in one host process",
        "load.py",
        ["--matches", "200", "--waves", "2"],
        ["--matches", "40", "--waves", "1"],
    ),
    ("Transcript verification", "verify.py", [], ["--matches", "1"]),
    ("The record: history over many transcripts", "history.py", [], ["--transcripts", "25", "--runs", "1"]),
    ("Start-up", "startup.py", [], ["--runs", "5"]),
]


SMOKE: dict[str, list[str]] = {
    "Engine throughput": ["--matches", "1", "--slow-matches", "1", "--max-actions", "20"],
    "Duel engine": ["--matches", "5"],
    "Magic Square index and solver": ["--queries", "200", "--colourings", "1"],
    "Hornswoggle bots": ["--matches", "1", "--rows", "captain-random,pirate-random"],
    "Protocol": ["--matches", "1", "--handshakes", "5"],
    "Networked play": ["--matches", "1", "--turns", "10", "--memory-runs", "0", "--games", "duel"],
    "Correspondence: visits per turn": ["--matches", "1"],
    "Wide-area link: round trips": ["--delays", "10", "--samples", "1", "--turns", "2"],
    "Wide-area link: through a relay": ["--routes", "--delays", "10", "--samples", "1", "--turns", "2"],
    "Wide-area link: through the command line": ["--cli", "--delays", "10", "--samples", "1"],
    "Event-loop stalls": ["--matches", "1", "--max-stages", "20"],
    "Load: matches at once in one host process": ["--matches", "4", "--waves", "1"],
    "Transcript verification": ["--matches", "1"],
    "The record: history over many transcripts": ["--transcripts", "5", "--runs", "1"],
    "Start-up": ["--runs", "1"],
}
"""``--smoke``: each benchmark's smallest input (every one of BENCHES has one)."""


def main() -> None:
    """Run the benchmarks in turn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "performance.md", help="where to write the tables"
    )
    args = parser.parse_args()
    sections = [
        "# Performance\n",
        "Written by `bench/all.py` "
        f"on {datetime.date.today().isoformat()} ({platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()}). Each comparison runs both sides in "
        "one run; read the ratios, not the absolute times. What the profiles showed and what was "
        "changed: [profiling.md](profiling.md).\n",
    ]

    def run(bench: tuple[str, str, list[str], list[str]]) -> subprocess.CompletedProcess[str]:
        title, script, full, quick = bench
        print(f"== {title}", file=sys.stderr, flush=True)
        return subprocess.run(
            [sys.executable, str(ROOT / "bench" / script), *sizes(args, title, full, quick)],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )

    # A smoke run only shows that each benchmark runs: two at a time, one a core. The record's
    # runs go one by one, so that no benchmark shares the machine with another.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2 if args.smoke else 1) as pool:
        for (title, script, _, _), done in zip(BENCHES, pool.map(run, BENCHES), strict=True):
            if done.returncode != 0:
                sys.stderr.write(done.stderr)
                sys.exit(f"bench/{script} failed (exit {done.returncode}); {args.out} was not written")
            sections.append(f"## {title}\n\n{done.stdout.strip()}\n")
            print(done.stdout, flush=True)
    args.out.write_text("\n".join(sections), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


def sizes(args: argparse.Namespace, title: str, full: list[str], quick: list[str]) -> list[str]:
    """The arguments of one benchmark for this run (``--smoke``, ``--quick``, or the record's)."""
    if args.smoke:
        return SMOKE[title]
    return quick if args.quick else full


if __name__ == "__main__":
    main()
