"""Benchmark: networked play over loopback TCP, against the physical floor, in one run.

    .venv/bin/python bench/network.py [--matches N]

* wall time per duel turn between two peers (bots, the whole protocol, transcripts on disk),
  against the same number of plain trio round trips of the same message count on loopback;
* whole matches per minute per game;
* peak Python heap per match (tracemalloc: both peers and their bots, in one process).
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import os
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path

import trio

from p2pgenius.cli.demo import demo_match
from p2pgenius.cli.play import Printer
from p2pgenius.games.catalog import names
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import read


async def _echo(stream: trio.SocketStream) -> None:
    while data := await stream.receive_some(65536):
        await stream.send_all(data)


async def _exchanges(port: int, count: int, size: int) -> float:
    """Seconds for ``count`` request/response exchanges of ``size`` bytes with an echo server."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    payload = b"x" * size
    start = time.perf_counter()
    for _ in range(count):
        await stream.send_all(payload)
        got = 0
        while got < size:
            got += len(await stream.receive_some(65536))
    elapsed = time.perf_counter() - start
    await stream.aclose()
    return elapsed


async def round_trips(count: int, size: int) -> float:
    """Seconds for ``count`` request/response exchanges of ``size`` bytes over loopback TCP."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, _echo, listeners)
        elapsed = await _exchanges(listeners[0].socket.getsockname()[1], count, size)
        nursery.cancel_scope.cancel()
    return elapsed


def match(game: str, seed: int, *, measure_memory: bool = False) -> tuple[float, int, int, int]:
    """(seconds, stages, messages, peak bytes) of one networked match. Memory is measured only
    when asked, in a run of its own: tracemalloc slows everything down."""
    with tempfile.TemporaryDirectory() as tmp:
        if measure_memory:
            tracemalloc.start()
        start = time.perf_counter()
        printer = Printer(io.StringIO(), moves=False)
        host, _ = trio.run(partial(demo_match, game, Path(tmp), printer, seed=seed))
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] if measure_memory else 0
        tracemalloc.stop()
        assert host.session is not None
        assert host.session.finished
        stages = max(host.session.played.ending.my_hashes) + 1
        messages = len(read(host.files.transcript.read_bytes()).messages)
    return elapsed, stages, messages, peak


STALL_S = 60.0  # set-up and start-up allowance before a stalled benchmark gives up


async def _idle(session: object, seat: int) -> dict[str, str]:
    return {"type": "gestures", "left": "D", "right": "-"}  # a duel that never ends (D casts nothing)


def _peer(tmp: Path, name: str) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    return Peer(Identity.generate(), name, files, _idle, _quiet, _silent, pin_dir=tmp / "pins" / name)


def _quiet(session: object, event: object) -> None:
    pass


def _silent(text: str) -> None:
    pass


async def _host_turns(host: Peer, turns: int, alive: Callable[[], bool] = lambda: True) -> float:
    """Seconds per turn the host sees over ``turns`` turns, once 20 turns are behind it (a
    guest that dies or a match that stalls ends the benchmark with an error, not a hang)."""
    with trio.fail_after(STALL_S + turns * 0.05):
        while host.session is None or host.session.stage is None or host.session.stage.number < 20:
            _check(alive)
            await trio.sleep(0.001)
        start, first = time.perf_counter(), host.session.stage.number
        while host.session.stage.number < first + turns:
            _check(alive)
            await trio.sleep(0.005)
    return (time.perf_counter() - start) / turns


def _check(alive: Callable[[], bool]) -> None:
    if not alive():
        raise RuntimeError("the other process of the benchmark died")


async def _serve_duel(host: Peer, listener: trio.SocketListener) -> None:
    await host.host(listener, game="duel", options={"fast": True}, setup={"hp": [1000, 1000]}, peers=2)


async def steady_turns(turns: int) -> float:
    """Seconds per duel turn once the match is under way (set-up excluded): two peers in this
    process over loopback TCP, both choosing at once, the whole protocol, transcripts on disk."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        host, guest = _peer(tmp, "host"), _peer(tmp, "guest")
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_serve_duel, host, listener)
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            per_turn = await _host_turns(host, turns)
            nursery.cancel_scope.cancel()
    return per_turn


def _child(parent: int, main: Callable[[], Awaitable[None]]) -> None:
    """Run ``main`` in a child process until it ends or the parent is gone (however the parent
    went: a child must never outlive its benchmark)."""

    async def run() -> None:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                while os.getppid() == parent:
                    await trio.sleep(0.2)
                nursery.cancel_scope.cancel()

            nursery.start_soon(watch)
            await main()
            nursery.cancel_scope.cancel()

    trio.run(run)


def _guest_process(parent: int, port: int) -> None:
    """A joining peer in a process of its own (until it is terminated)."""

    async def guest() -> None:
        with tempfile.TemporaryDirectory() as tmp_name:
            await _peer(Path(tmp_name), "guest").join(await trio.open_tcp_stream("127.0.0.1", port))

    _child(parent, guest)


def _echo_process(parent: int, ports: Connection) -> None:
    """An echo server in a process of its own: the far end of the plain round trips."""

    async def serve() -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        ports.send(listeners[0].socket.getsockname()[1])
        ports.close()
        await trio.serve_listeners(_echo, listeners)

    _child(parent, serve)


async def steady_turns_apart(turns: int) -> float:
    """The same as :func:`steady_turns` with the two peers in two processes, as two players
    are (each on its own core here)."""
    with tempfile.TemporaryDirectory() as tmp_name:
        host = _peer(Path(tmp_name), "host")
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        guest = multiprocessing.get_context("spawn").Process(target=_guest_process, args=(os.getpid(), port))
        guest.start()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_serve_duel, host, listener)
                per_turn = await _host_turns(host, turns, guest.is_alive)
                nursery.cancel_scope.cancel()
        finally:
            guest.terminate()
            guest.join()
    return per_turn


async def round_trips_apart(count: int, size: int) -> float:
    """:func:`round_trips` with the echoing end in another process."""
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    server = multiprocessing.get_context("spawn").Process(target=_echo_process, args=(os.getpid(), theirs))
    server.start()
    theirs.close()  # the child's end: if the child dies, ours sees the end of the pipe
    try:
        with trio.fail_after(STALL_S):
            while not ours.poll():
                _check(server.is_alive)
                await trio.sleep(0.01)
        elapsed = await _exchanges(ours.recv(), count, size)
    finally:
        server.terminate()
        server.join()
    return elapsed


def main() -> None:
    """Run and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--turns", type=int, default=1000, help="turns of the steady-state measurement")
    parser.add_argument(
        "--memory-runs", type=int, default=3, help="matches traced for peak memory (slow; 0: not measured)"
    )
    parser.add_argument("--games", nargs="*", default=names(), help="the games whose whole matches are timed")
    args = parser.parse_args()
    # Bots with seeds, but the coin flip and nonces are truly random, so who sits where and how long
    # a match runs vary between runs: per stage is the steady figure, and memory the worst of a few.
    print("| game | matches per minute | stages per match | ms per stage | peak Python heap per match |")
    print("|---|---|---|---|---|")
    duel_time, duel_stages, duel_messages = 0.0, 0, 0
    for game in args.games:
        runs = [match(game, seed) for seed in range(args.matches)]
        seconds = sum(r[0] for r in runs)
        stages = sum(r[1] for r in runs)
        peaks = [match(game, seed, measure_memory=True)[3] for seed in range(args.memory_runs)]
        heap = f"{max(peaks) / 1e6:.1f} MB" if peaks else "not measured"
        if game == "duel":
            duel_time, duel_stages, duel_messages = seconds, stages, sum(r[2] for r in runs)
        print(
            f"| {game} | {60 * len(runs) / seconds:.1f} | {stages / len(runs):.0f} "
            f"| {1000 * seconds / stages:.2f} | {heap} |"
        )
    # Each duel turn needs, at the least, one exchange each way: commitments, then reveals.
    floor = trio.run(round_trips, duel_stages * 2, 300)
    print()
    print("| duel turn over loopback (bots, whole protocol, transcripts on disk) | time |")
    print("|---|---|")
    print(f"| p2pgenius, per turn (match set-up included) | {duel_time / duel_stages * 1000:.2f} ms |")
    print(f"| two plain trio round trips of 300 bytes | {floor / duel_stages * 1000:.2f} ms |")
    print(f"| ratio | {duel_time / floor:.1f}x |")
    print(f"| messages per turn | {duel_messages / duel_stages:.1f} |")
    turns = args.turns
    steady = trio.run(steady_turns, turns)
    trips = trio.run(round_trips, 3 * turns, 300) / turns  # six messages a turn: three exchanges
    apart = trio.run(steady_turns_apart, turns)
    trips_apart = trio.run(round_trips_apart, 3 * turns, 300) / turns
    print()
    print(f"| duel turn once under way ({turns:,} turns, set-up excluded) | one process | two processes |")
    print("|---|---|---|")
    print(f"| p2pgenius, per turn | {steady * 1000:.2f} ms | {apart * 1000:.2f} ms |")
    print(
        "| three plain trio round trips of 300 bytes (its six messages) "
        f"| {trips * 1000:.2f} ms | {trips_apart * 1000:.2f} ms |"
    )
    print(f"| ratio | {steady / trips:.1f}x | {apart / trips_apart:.1f}x |")


if __name__ == "__main__":
    main()
