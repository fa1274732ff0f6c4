"""Benchmark: matches over a wide-area link, in round trips (real TCP through a delay proxy).

    .venv/bin/python bench/wan.py [--delays 25,50,100] [--turns 30]

A host and its joiners (one for the duel and the Magic Square, three for Hornswoggle) run in this
process; every joiner reaches the host through ``p2pgenius.net.latency.delay_proxy``, which holds
each byte DELAY ms each way. Reported, in round trips (2 x DELAY):

* to seats: from the joiner's first handshake byte until it knows its seats (the last joiner's, with
  four peers); the floor is 2 (the handshake's own round trip, then the terms and the host's coin
  share), 3 with four (the other joiners' shares travel through the host);
* to first move: until the joiner's bots first decide (later when the host's seat moves first);
* per duel turn: once the duel is under way (both wizards choose at once; the floor is 1).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.files import Files
from p2pgenius.net.latency import delay_proxy
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.events import SeatsDealt
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Event, Session

GAMES: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("duel", 2, {"fast": True}),
    ("magic-square", 2, {}),
    ("hornswoggle", 4, {}),
)


class Timed(trio.abc.Stream):
    """A stream that remembers when it first sent."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.first: float | None = None

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.first is None:
            self.first = time.perf_counter()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Watch:
    def __init__(self, seed: int, *, idle: bool = False) -> None:
        self.driver = BotDriver("random", seed)
        self.idle = idle  # a wizard that only ever points (D casts nothing): a duel that never ends
        self.dealt: float | None = None
        self.first_move: float | None = None

    def event(self, session: Session, event: Event) -> None:
        if isinstance(event, SeatsDealt) and self.dealt is None:
            self.dealt = time.perf_counter()

    async def decide(self, session: Session, seat: int) -> Mapping[str, Any] | None:
        idle = {"type": "gestures", "left": "D", "right": "-"}
        decision = idle if self.idle else await self.driver.decide(session, seat)
        if self.first_move is None:
            self.first_move = time.perf_counter()
        return decision


def _peer(tmp: Path, name: str, watch: Watch) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    pins = tmp / "pins" / name
    return Peer(Identity.generate(), name, files, watch.decide, watch.event, lambda _: None, pin_dir=pins)


async def joining(game: str, peers: int, options: dict[str, Any], delay: float) -> tuple[float, float]:
    """(round trips to seats, round trips to first move) of the last joiner."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        host = _peer(tmp, "host", Watch(1))
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        watches = [Watch(10 + i) for i in range(1, peers)]
        streams: list[Timed] = []
        async with trio.open_nursery() as nursery:
            proxy = await nursery.start(delay_proxy, "127.0.0.1", port, delay)
            nursery.start_soon(lambda: host.host(listener, game=game, options=options, setup={}, peers=peers))
            for index, watch in enumerate(watches, start=1):
                stream = Timed(await trio.open_tcp_stream("127.0.0.1", proxy))
                streams.append(stream)
                nursery.start_soon(_peer(tmp, f"joiner{index}", watch).join, stream)
                with trio.fail_after(30):
                    while stream.first is None:
                        await trio.sleep(0.001)
                if index < len(watches):
                    await trio.sleep(6 * delay)  # in the lobby before the next one comes
            with trio.fail_after(60):
                while watches[-1].first_move is None:
                    await trio.sleep(0.001)
            nursery.cancel_scope.cancel()
    start, watch = streams[-1].first, watches[-1]
    assert start is not None and watch.dealt is not None and watch.first_move is not None
    rtt = 2 * delay
    return (watch.dealt - start) / rtt, (watch.first_move - start) / rtt


async def duel_turns(delay: float, turns: int) -> float:
    """Round trips per duel turn, once 5 turns are behind."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        host, guest = _peer(tmp, "host", Watch(1, idle=True)), _peer(tmp, "guest", Watch(2, idle=True))
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            proxy = await nursery.start(delay_proxy, "127.0.0.1", port, delay)
            nursery.start_soon(
                lambda: host.host(
                    listener, game="duel", options={"fast": True}, setup={"hp": [1000, 1000]}, peers=2
                )
            )
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", proxy))
            with trio.fail_after(60 + turns * delay * 10):
                while host.session is None or host.session.stage is None or host.session.stage.number < 5:
                    await trio.sleep(0.001)
                start, first = time.perf_counter(), host.session.stage.number
                while host.session.stage.number < first + turns:
                    await trio.sleep(0.001)
            elapsed = time.perf_counter() - start
            nursery.cancel_scope.cancel()
    return elapsed / turns / (2 * delay)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", default="25,50,100", help="one-way delays in ms, comma-separated")
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    delays = [int(d) / 1000 for d in args.delays.split(",")]
    print("| one-way delay | game (peers) | to seats (round trips) | to first move | per duel turn |")
    print("|---|---|---|---|---|")
    for delay in delays:
        per_turn = trio.run(duel_turns, delay, args.turns)
        for game, peers, options in GAMES:
            seats, first = trio.run(joining, game, peers, options, delay)
            turn = f"{per_turn:.2f}" if game == "duel" else ""
            row = f"| {delay * 1000:.0f} ms | {game} ({peers}) | {seats:.2f} | {first:.2f} | {turn} |"
            print(row, flush=True)
    print()
    print(
        "Floors: 2 round trips to seats with two peers, 3 with four; 1 per duel turn. The first "
        "move comes a round trip after the seats when the host's seat moves first (the Magic "
        "Square's colouring, a Hornswoggle turn order that starts elsewhere)."
    )


if __name__ == "__main__":
    main()
