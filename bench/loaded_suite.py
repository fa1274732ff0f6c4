"""The test suite on a loaded machine: run it several times with busy processes beside it, and say
whether any test failed (a test that fails only when the machine is slow waits for time, not for
what it needs).

    .venv/bin/python bench/loaded_suite.py                 # 3 runs, 4 busy processes, the whole suite
    .venv/bin/python bench/loaded_suite.py --runs 1 --load 2 -- tests/ui   # some tests, lighter
    .venv/bin/python bench/loaded_suite.py --write         # and keep the result in docs/testing.md

Each busy process spins on one core for as long as the runs last (on two cores, four of them
hold the load average near 5 to 6, as a machine busy with a build and a browser does). Each run
is the README's test command's pytest, with the arguments given after ``--``; what is reported
is each run's count of passed, failed and errored tests, its wall time, the load average seen
while it ran, and the name of every test that failed.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "testing.md"
BEGIN, END = "<!-- loaded-suite -->", "<!-- /loaded-suite -->"
SPIN = "while True:\n    pass\n"


@dataclass
class Run:
    """One run of the suite: its counts, wall time, the load seen, the tests that failed."""

    passed: int = 0
    failed: int = 0
    errors: int = 0
    seconds: float = 0.0
    loads: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def line(self, number: int) -> str:
        load = f"{min(self.loads):.1f}-{max(self.loads):.1f}" if self.loads else "?"
        return (
            f"run {number}: {self.passed} passed, {self.failed} failed, {self.errors} errors "
            f"in {self.seconds / 60:.1f} min at load {load}"
        )


def spinning(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` processes that each keep one core busy."""
    return [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]


def sample(run: Run, stop: threading.Event) -> None:
    """The one-minute load average, every 10 s, until ``stop``."""
    while not stop.wait(10):
        run.loads.append(os.getloadavg()[0])


def once(pytest_args: list[str]) -> Run:
    """The suite run once (the README's pytest), its outcome read from its summary."""
    run = Run()
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(run, stop), daemon=True)
    sampler.start()
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    run.seconds = time.monotonic() - began
    stop.set()
    sampler.join()
    for kind in ("passed", "failed", "errors", "error"):
        found = re.search(rf"(\d+) {kind}\b", done.stdout.splitlines()[-1] if done.stdout else "")
        if found:
            setattr(run, "errors" if kind == "error" else kind, int(found.group(1)))
    run.failures = [line for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    if run.failures:  # (what failed, whole, for whoever fixes it)
        kept = Path(tempfile.gettempdir()) / f"loaded-suite-{os.getpid()}-{time.monotonic_ns()}.txt"
        kept.write_text(done.stdout + done.stderr, encoding="utf-8")
        run.failures.append(f"(the run's whole output: {kept})")
    if done.returncode not in (0, 1) and not run.failures:
        run.failures = [f"pytest exited {done.returncode}: {(done.stderr or done.stdout)[-300:]}"]
    return run


def report(runs: list[Run], load: int, pytest_args: list[str]) -> str:
    """The result in words (what docs/testing.md keeps)."""
    day = datetime.date.today().isoformat()
    what = " ".join(pytest_args) or "the whole suite"
    lines = [
        f"{day}: {what}, {len(runs)} runs with {load} busy processes beside it on "
        f"{os.cpu_count()} cores (`bench/loaded_suite.py --runs {len(runs)} --load {load}`):",
        "",
    ]
    lines += [f"* {run.line(number)}" for number, run in enumerate(runs, start=1)]
    failures = [failure for run in runs for failure in run.failures]
    lines += ["", "Failures: none." if not failures else "Failures:"]
    lines += [f"* `{failure}`" for failure in failures]
    return "\n".join(lines) + "\n"


def write(text: str) -> None:
    """Keep ``text`` in docs/testing.md between its markers."""
    doc = DOC.read_text(encoding="utf-8")
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    DOC.write_text(doc[:start] + "\n" + text + doc[end:], encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="how many times to run the suite (3)")
    parser.add_argument("--load", type=int, default=4, help="busy processes beside it (4)")
    parser.add_argument("--write", action="store_true", help="keep the result in docs/testing.md")
    parser.add_argument("pytest_args", nargs="*", help="after --: what pytest runs (default: everything)")
    args = parser.parse_args()
    busy = spinning(args.load)
    runs: list[Run] = []
    try:
        for number in range(1, args.runs + 1):
            runs.append(once(args.pytest_args))
            print(runs[-1].line(number), flush=True)
            for failure in runs[-1].failures:
                print(f"  {failure}", flush=True)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    text = report(runs, args.load, args.pytest_args)
    print(text)
    if args.write:
        write(text)
    return 0 if not any(run.failures or run.failed or run.errors for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
