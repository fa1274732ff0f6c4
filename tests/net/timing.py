"""Whole matches between real peers over an in-memory network on trio's autojump clock, for the
proofs that time never wrongs an honest player (test_time_is_fair.py, bench/time_fairness.py):
players that think for a drawn share of what their clock has left, a network with a one-way
delay, a joiner's connection cut and come back, and a seat that really stays silent."""

from __future__ import annotations

import collections
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import trio.testing

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.clocks import Deadline, Due
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.machine import MatchMachine
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.transcript import Report, records, verify

TIME_KINDS = ("timeout", "dispute", "forfeit", "observed")
"""Messages that say someone's time was wrong: none in an honest match."""


class Pipe(trio.abc.SendStream, trio.abc.ReceiveStream):
    """One way of a connection with a latency: each write arrives ``delay_s`` after it was made,
    in order, and a write never waits for the ones before it (a network's delay, not a slow
    link's)."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.queue: collections.deque[tuple[float, bytes]] = collections.deque()
        self.changed = trio.Event()
        self.closed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.closed:
            raise trio.BrokenResourceError("the connection is closed")
        self.queue.append((trio.current_time() + self.delay_s, bytes(data)))
        self.changed.set()
        await trio.lowlevel.checkpoint()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        while True:
            if self.queue:
                at, data = self.queue[0]
                if trio.current_time() >= at:
                    taken = data if max_bytes is None else data[:max_bytes]
                    if len(taken) < len(data):
                        self.queue[0] = (at, data[len(taken) :])
                    else:
                        self.queue.popleft()
                    await trio.lowlevel.checkpoint()
                    return taken
                await trio.sleep_until(at)
                continue
            if self.closed:
                await trio.lowlevel.checkpoint()
                return b""
            self.changed = trio.Event()
            await self.changed.wait()

    async def aclose(self) -> None:
        self.closed = True
        self.changed.set()
        await trio.lowlevel.checkpoint()


def connection(delay_s: float) -> tuple[trio.StapledStream[Pipe, Pipe], trio.StapledStream[Pipe, Pipe]]:
    """Both ends of a connection with a one-way delay of ``delay_s``."""
    there, back = Pipe(delay_s), Pipe(delay_s)
    return trio.StapledStream(there, back), trio.StapledStream(back, there)


class Cut(trio.abc.Stream):
    """A connection the network cuts once, ``after_s`` seconds into it."""

    def __init__(self, inner: trio.abc.Stream, after_s: float) -> None:
        self.inner = inner
        self.at = trio.current_time() + after_s

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if trio.current_time() >= self.at:
            await self.inner.aclose()
            raise trio.BrokenResourceError("cut by the network")
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        with trio.move_on_at(self.at):
            return await self.inner.receive_some(max_bytes)
        await self.inner.aclose()
        raise trio.BrokenResourceError("cut by the network")

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Network:
    """An in-memory network: the host's listener, and a way in for each joiner (every call a new
    connection), each way delayed by ``delay_s``; a joiner's first connection cut after
    ``cut_s`` if given (``every``: each of its connections, so that it keeps dropping and coming
    back)."""

    delay_s: float = 0.0
    cut_s: float | None = None
    away_s: float = 0.0
    """After the cut, how long the joiner cannot reach the host at all (its tries fail)."""
    every: bool = False
    calls: list[trio.abc.Stream] = field(default_factory=list)
    down: tuple[float, float] = (0.0, 0.0)  # (from, until): the joiner cut off cannot come back

    def __post_init__(self) -> None:
        self.send, self.receive = trio.open_memory_channel[trio.abc.Stream](16)

    async def connect(self) -> trio.abc.Stream:
        if self.down[0] <= trio.current_time() < self.down[1]:
            raise OSError("the network is down")
        mine, theirs = connection(self.delay_s)
        cut = self.cut_s is not None and (self.every or not self.calls)
        if cut and self.cut_s is not None:
            at = trio.current_time() + self.cut_s
            self.down = (at, at + self.away_s)
        await self.send.send(theirs)
        here: trio.abc.Stream = mine
        if cut and self.cut_s is not None:
            here = Cut(mine, self.cut_s)
        self.calls.append(here)
        return here

    def listener(self) -> trio.abc.Listener[trio.abc.Stream]:
        network = self

        class Door(trio.abc.Listener[trio.abc.Stream]):
            async def accept(self) -> trio.abc.Stream:
                return await network.receive.receive()

            async def aclose(self) -> None:
                pass

        return Door()


class Person(BotDriver):
    """A player who thinks, before each decision, a share of what its clock has left, drawn from
    ``shares`` in turn (0.95 at most: inside its clock); then plays as ``level`` would."""

    def __init__(self, level: str, seed: int, shares: list[float]) -> None:
        super().__init__(level, seed, thread=False)
        self.shares = shares or [0.0]
        self.turn = 0

    async def decide(self, session: SessionView, seat: int) -> Any:
        share = min(self.shares[self.turn % len(self.shares)], 0.95)
        self.turn += 1
        clock = session.clocks().get(seat)
        if clock is not None and clock.running:
            await trio.sleep(share * clock.left_ms / 1000)
        return await super().decide(session, seat)


class Mute(BotDriver):
    """A player who never decides (its peer still answers pings, and never times it out)."""

    async def decide(self, session: SessionView, seat: int) -> Any:
        await trio.sleep_forever()


class SilentMachine(MatchMachine):
    """The rules of time of :class:`NeverTimesOut`."""

    def _deadlines(self) -> list[Deadline]:
        return [d for d in super()._deadlines() if d.what is not Due.EXPIRE]

    def _on_clock_event(self, event: Any, at: float | None = None) -> None:
        pass


class NeverTimesOut(Peer):
    """A peer connected but silent: it never plays its own seats' timeouts nor answers a claim
    about them (a hung program, or one that will not lose), so its seat stays silent past its
    clock."""

    machine_type = SilentMachine


@dataclass
class Played:
    """A match played: every peer, what each transcript says (verified), and the kinds of the
    messages each holds, in order (read before the files go)."""

    peers: list[Peer]
    reports: list[Report]
    messages: list[list[str]]
    silent: int | None = None
    """The silent peer's index in the match (joiners are numbered as they came), if any."""

    def kinds(self, index: int) -> list[str]:
        return self.messages[index]


async def play_match(  # noqa: PLR0913  (a match's every knob, by name)
    tmp: Path,
    game: str,
    *,
    peers: int,
    options: dict[str, Any],
    setup: dict[str, Any],
    deciders: list[BotDriver],
    grace_s: float,
    network: Network | None = None,
    settle: list[bool] | None = None,
    make: Callable[..., Peer] = Peer,
    silent: int | None = None,
    within_s: float = 10**8,
    ping_s: float | None = None,
    watch: Callable[[list[Peer]], Awaitable[None]] | None = None,
) -> Played:
    """Host (peer 0) and ``peers - 1`` joiners play a whole match; ``silent``: the index of the
    peer built with ``make`` (a hostile one), every other an honest :class:`Peer`; ``watch``: a
    task beside the match, given every peer."""
    network = network or Network()
    made: list[Peer] = []
    for index in range(peers):
        build = make if index == silent else Peer
        made.append(
            build(
                Identity.from_seed(bytes([7, index]) * 16),
                f"player{index}",
                Files(tmp / f"p{index}.p2pt", tmp / f"p{index}.secrets"),
                deciders[index].decide,
                lambda view, event: None,
                lambda text: None,
                grace_s=grace_s,
                pin_dir=tmp / "pins" / str(index),
                settle_at_once=settle[index] if settle else True,
            )
        )
    host, joiners = made[0], made[1:]
    for joiner in joiners:
        joiner.reconnect = network.connect
    if ping_s is not None:  # (a week of pings every 10 s is 60,000 round trips)
        for each in made:
            each._clocks.ping_s = ping_s

    def over(peer: Peer) -> bool:
        return peer.session is not None and (peer.session.finished or peer.session.fault is not None)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(network.listener(), game=game, options=options, setup=setup, peers=peers)
        )
        for joiner in joiners:
            nursery.start_soon(_join, joiner, network)
        if watch is not None:
            nursery.start_soon(watch, made)
        honest = [peer for index, peer in enumerate(made) if index != silent]
        with trio.fail_after(within_s):  # (fake seconds: the autojump clock skips the waits)
            while not all(over(peer) for peer in honest):
                await trio.sleep(600)
        nursery.cancel_scope.cancel()
    data = [peer.files.transcript.read_bytes() for peer in made]
    kinds = [[decode(r[1])[5][0] for r in records(one) if r[0] == "msg"] for one in data]
    quiet = made[silent].session if silent is not None else None
    return Played(made, [verify(one) for one in data], kinds, None if quiet is None else quiet.me)


async def _join(joiner: Peer, network: Network) -> None:
    await joiner.join(await network.connect())


def shares(seed: int, count: int = 64) -> list[float]:
    """Shares of a clock a person thinks, drawn from ``seed`` (anywhere from 0 to 0.95)."""
    draw = random.Random(seed)
    return [draw.uniform(0.0, 0.95) for _ in range(count)]


Scenario = Callable[[Path], Awaitable[Played]]
