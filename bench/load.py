"""Load: one host process serving many concurrent bot matches on loopback.

    .venv/bin/python bench/load.py [--matches 200] [--waves 2] [--game duel]

This process hosts every match (one listener each, port 0); a second process joins them all at
once. Each wave runs ``--matches`` matches at the same time; between waves the host's memory, file
descriptors and trio tasks are counted, to show they come back to where they were (nothing leaks).
Prints matches per minute and peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pgenius.net.peer import Peer  # noqa: E402
from tests.net.test_load import peer, tasks  # noqa: E402  (the same helpers as the leak test)


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def wave(tmp: Path, matches: int, game: str, number: int) -> tuple[float, int]:
    """Host ``matches`` matches at once; a child process joins them. Returns (seconds, finished)."""
    hosts = [peer(tmp, f"w{number}-host{i}", i) for i in range(matches)]
    listeners = [(await trio.open_tcp_listeners(0, host="127.0.0.1"))[0] for _ in hosts]
    ports = [listener.socket.getsockname()[1] for listener in listeners]
    options = {"fast": True} if game == "duel" else {}
    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for host, listener in zip(hosts, listeners, strict=True):
            nursery.start_soon(partial(host.host, listener, game=game, options=options, setup={}, peers=2))
        joiners = [sys.executable, __file__, "--join", json.dumps(ports), "--game", game]
        await trio.run_process([*joiners, "--dir", str(tmp / f"j{number}")], capture_stdout=True)
    took = time.perf_counter() - start
    for listener in listeners:
        await listener.aclose()
    finished = sum(1 for h in hosts if h.session is not None and h.session.finished)
    for h in hosts:
        session = h.session
        if session is not None and not session.finished:
            stage = session.stage.number if session.stage else None
            print(f"  unfinished: {h.name} at stage {stage}: {session.fault}", file=sys.stderr)
    return took, finished


async def join_all(ports: list[int], game: str, tmp: Path) -> None:
    async with trio.open_nursery() as nursery:
        for index, port in enumerate(ports):
            guest = peer(tmp, f"guest{index}", 1000 + index)

            async def one(g: Peer = guest, p: int = port) -> None:
                await g.join(await trio.open_tcp_stream("127.0.0.1", p))

            nursery.start_soon(one)
    del game


async def host_waves(matches: int, waves: int, game: str) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        baseline = (rss_mb(), fds(), tasks())
        print(f"before: {baseline[0]:.0f} MB, {baseline[1]} fds, {baseline[2]} tasks")
        total_matches, total_time = 0, 0.0
        for number in range(1, waves + 1):
            took, finished = await wave(tmp, matches, game, number)
            total_matches += finished
            total_time += took
            await trio.sleep(0.5)  # let closed sockets and tasks go
            print(
                f"wave {number}: {finished} of {matches} matches at once finished in {took:.1f} s; "
                f"after: {rss_mb():.0f} MB, {fds()} fds, {tasks()} tasks"
            )
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{total_matches / total_time * 60:.0f} matches per minute ({game}, random bots, "
            f"{matches} at once); peak memory of the host process {peak:.0f} MB "
            f"({(peak - baseline[0]) / matches * 1024:.0f} kB per concurrent match)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--waves", type=int, default=2)
    parser.add_argument("--game", default="duel")
    parser.add_argument("--join", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.join:
        Path(args.dir).mkdir(parents=True, exist_ok=True)
        trio.run(join_all, json.loads(args.join), args.game, Path(args.dir))
        return
    trio.run(host_waves, args.matches, args.waves, args.game)


if __name__ == "__main__":
    main()
