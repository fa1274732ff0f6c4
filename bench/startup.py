"""Benchmark: start-up time of the ``p2pgenius`` command, paired with a bare Python start.

    .venv/bin/python bench/startup.py [--runs N]

Each round runs every command once, in an order that turns by one each round, so that the
machine's changes in load hit every command alike; each ``p2pgenius`` run is compared with the bare
``python -c pass`` of its own round. Reported: each command's median and spread (the quartiles),
and for each ``p2pgenius`` command its difference from, and ratio to, bare Python (the median and
quartiles of the per-round figures). ``python -c "import trio"`` is there for scale: the networking
library alone, which ``--help`` should not need. A joiner's start is timed from its spawn to the
first byte of its handshake reaching a listening socket of this process (``p2pgenius join
127.0.0.1:PORT --bot random``, in an account of its own made beforehand; it is stopped there).
Every module is compiled beforehand, as an installed program's are (``bench/bytecode.py``).
Last, the CPU time of each command (user and
system, its median), which a busy machine inflates less than the wall time: on a machine others
share, compare those.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bytecode import as_installed

BARE = "python -c pass"
JOIN = "p2pgenius join: spawn to its first byte"
LISTENER = socket.create_server(("127.0.0.1", 0))
"""Where the timed joiner connects."""


def commands(module: bool = False) -> dict[str, list[str]]:
    """What is timed, by the name shown: the installed ``p2pgenius`` script (as people run it,
    beside this Python; ``module``: ``python -m p2pgenius`` from the working directory, to
    compare two trees with one Python), and bare Python."""
    script = Path(sys.executable).with_name("p2pgenius")
    found = str(script) if script.exists() else shutil.which("p2pgenius")
    ours = [found] if found and not module else [sys.executable, "-m", "p2pgenius"]
    return {
        BARE: [sys.executable, "-c", "pass"],
        'python -c "import trio"': [sys.executable, "-c", "import trio"],
        "p2pgenius --help": [*ours, "--help"],
        "p2pgenius rules duel": [*ours, "rules", "duel"],
        JOIN: [*ours, "join", f"127.0.0.1:{LISTENER.getsockname()[1]}", "--bot", "random"],
    }


CPU_S: dict[str, list[float]] = {}
"""The CPU time (user and system) of each command's runs, by its argument list."""


def wall_s(command: list[str]) -> float:
    """Wall time of one run of ``command`` (its CPU time goes to :data:`CPU_S`); a joiner's, to
    its first byte."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    if "join" in command:
        took = first_byte_s(command, start)
    else:
        subprocess.run(command, check=True, capture_output=True)
        took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    CPU_S.setdefault(" ".join(command), []).append(cpu)
    return took


def first_byte_s(command: list[str], start: float) -> float:
    """Spawn a joiner, wait for the first byte it sends :data:`LISTENER`, then stop it."""
    quiet = subprocess.DEVNULL
    joiner = subprocess.Popen(command, stdin=quiet, stdout=quiet, stderr=subprocess.PIPE)
    LISTENER.settimeout(30)
    try:
        connection, _ = LISTENER.accept()
    except TimeoutError:
        joiner.kill()
        raise SystemExit(f"the joiner never connected: {joiner.communicate()[1].decode()}") from None
    with connection:
        connection.recv(1)
        took = time.perf_counter() - start
        joiner.kill()
        joiner.wait()
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
    parser.add_argument(
        "--module", action="store_true", help="python -m p2pgenius from here, not the installed script"
    )
    args = parser.parse_args()
    compiled = as_installed()
    os.environ["P2PGENIUS_HOME"] = tempfile.mkdtemp(prefix="startup-")  # (the joiner's account)
    named = commands(args.module)
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
        "start of its own round), then summarised. " + compiled
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
