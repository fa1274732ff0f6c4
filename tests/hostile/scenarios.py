"""Every attack of the hostile-peer suite, with what the honest peer must make of it. The tests
(test_tcp.py) and bench/hostile.py's table both run these."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Final

import trio
import trio.testing

from p2pgenius.canonical import encode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.net.connection import Connection
from p2pgenius.net.keystore import trust
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.channel import PROTOCOL_VERSION, SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Confirmed, Fault, Rejected
from p2pgenius.protocol.transcript import Report, verify
from tests.patience import HANG_S

from .villain import (
    Chain,
    Lie,
    Seen,
    Staller,
    StallingLoop,
    frame_header,
    honest,
    raw_call,
    small_send_buffers,
    small_window,
    staller,
    villain,
)


@dataclass
class Result:
    """What the honest host showed and kept."""

    seen: Seen
    host: Peer
    report: Report

    def rejected(self) -> list[str]:
        return [e.reason for e in self.seen.events if isinstance(e, Rejected)]

    def fault(self) -> Fault | None:
        return next((e for e in self.seen.events if isinstance(e, Fault)), None)


PLAYS: Final = "random"
"""The bots of the honest players and the villain: the attacks are on the protocol, which every
bot plays alike, and a random bot decides at once (a club bot thinks in a process of its own,
which made each match of the table take seconds, not a fraction of one)."""


async def _match(tmp: Path, rewrite: Any, game: str, grace: float, options: dict[str, Any]) -> Result:
    seen = Seen()
    host = honest(tmp, "host", seen, level=PLAYS, grace=grace)
    bad = villain(tmp, rewrite, level=PLAYS)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(listeners[0], game=game, options=options, setup={}, peers=2, seats=[0])
        )
        nursery.start_soon(bad.join, await trio.open_tcp_stream("127.0.0.1", port))
        with trio.fail_after(HANG_S):  # until the host has *shown* the end (events follow the sends)
            while not any(isinstance(e, Fault | Confirmed) for e in seen.events):
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    await listeners[0].aclose()
    return Result(seen, host, verify(host.files.transcript.read_bytes()))


def in_match(
    lie: Lie, *, game: str = "duel", grace: float = 60, clock: int | None = None
) -> Callable[[Path], Awaitable[Result]]:
    """A match of ``game`` in which the villain tells ``lie`` (each run with a chain of its own)."""
    options: dict[str, Any] = {"fast": True} if game == "duel" else {}
    if clock is not None:  # (a seat owing its decision is late only once its clock has run out)
        options["turn_seconds"] = clock
    return lambda tmp: _match(tmp, Chain(lie), game, grace, options)


async def _at_the_door(tmp: Path, attack: Callable[[int, Path], Awaitable[Any]]) -> Result:
    """Run ``attack`` against a host waiting in its lobby; then an honest player joins and the
    match must be played to the end as if nothing happened."""
    seen = Seen()
    host = honest(tmp, "host", seen, level=PLAYS)
    friend = honest(tmp, "friend", Seen(), level=PLAYS)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            nursery.start_soon(attack, port, tmp)
            await trio.sleep(0.3)  # the attack is under way
            await friend.join(await trio.open_tcp_stream("127.0.0.1", port))
            nursery.cancel_scope.cancel()
    await listeners[0].aclose()
    return Result(seen, host, verify(host.files.transcript.read_bytes()))


def at_the_door(attack: Callable[[int, Path], Awaitable[Any]]) -> Callable[[Path], Awaitable[Result]]:
    return lambda tmp: _at_the_door(tmp, attack)


async def flood(port: int, tmp: Path) -> None:
    del tmp
    streams = []
    for _ in range(100):
        streams.append(await trio.open_tcp_stream("127.0.0.1", port))
    await trio.sleep_forever()  # hold them all open


async def wrong_key(port: int, tmp: Path) -> None:
    """A caller using the name of someone the host pinned, with another key."""
    trust("mallory", Identity.generate().public, tmp / "pins" / "host")
    liar = honest(tmp, "mallory", Seen())
    with contextlib.suppress(P2PGeniusError):  # the host refuses it: that is the point
        await liar.join(await trio.open_tcp_stream("127.0.0.1", port))


async def knock_and_leave(port: int, tmp: Path, name: str) -> None:
    """A caller that says ``name``, sees the lobby, and leaves (a stranger's key, never admitted)."""
    caller = honest(tmp, "caller", Seen())
    caller.name = name

    async def leave(lobby: Any) -> bool:
        del lobby
        return False  # it does not say ready: it goes

    caller.confirm = leave
    with trio.move_on_after(0.5), contextlib.suppress(P2PGeniusError):
        await caller.join(await trio.open_tcp_stream("127.0.0.1", port))


async def junk_ready(port: int, tmp: Path) -> None:
    """A real handshake, then a malformed ready message in the lobby."""
    liar = honest(tmp, "junky", Seen())
    original = Peer.join

    async def join(self: Peer, stream: Any, *, seats: Any = ()) -> None:
        del seats
        await original(self, stream, seats=[7, 8, 9])  # seats that do not exist

    with contextlib.suppress(P2PGeniusError):  # refused, as it should be
        await join(liar, await trio.open_tcp_stream("127.0.0.1", port))


async def forged_ready(port: int, tmp: Path) -> None:
    """A ready whose coin commitment is signed by another key than the caller's: it would put a
    commitment in the terms that the caller could later disown."""
    caller = Identity.generate()
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    connection = Connection(stream, SecureChannel(initiator=True, identity=caller, hello={"name": "forger"}))
    with contextlib.suppress(P2PGeniusError, trio.TooSlowError):
        await connection.handshake()
        ready = {"seats": [], "coin": bytes(32), "signature": Identity.generate().sign(b"not this")}
        await connection.send(encode(["ready", ready]))
        with trio.fail_after(5):
            while True:
                await connection.receive()


FAKE_HOUR: Final = 3600.0
"""The most a match against a staller may take, in seconds of the autojump clock (it takes a few
minutes of them: a write's bound, a decision's time, grace periods)."""


@dataclass
class Stalled:
    """A match against a :class:`Staller`: the honest host (and what it showed), the honest
    joiners, the staller, and how many pings the staller sent once it stopped reading."""

    host: Peer
    seen: Seen
    joiners: list[Peer]
    staller: Staller
    pings: int = 0
    lines: list[Seen] = field(default_factory=list)  # what each honest joiner showed


async def against_a_staller(tmp: Path, game: str, peers: int) -> Stalled:
    """An honest host with bots, ``peers - 2`` honest joiners and a staller that stops reading once
    it has made its decision at stage 1, over loopback TCP (its window and the host's send buffers small: the
    attack is the same with the systems' sizes, only longer), on the autojump clock. Returns once
    every honest peer's match is over (or a fake hour has passed)."""
    seen = Seen()
    host = honest(tmp, "host", seen)
    joined = [Seen() for _ in range(peers - 2)]
    joiners = [honest(tmp, f"joiner{n}", told) for n, told in enumerate(joined, start=1)]
    bad = staller(tmp)
    StallingLoop.most = 0  # (this run's staller's count)
    result = Stalled(host, seen, joiners, bad, lines=joined)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    small_send_buffers(listeners[0])
    port = listeners[0].socket.getsockname()[1]
    options: dict[str, Any] = {"fast": True} if game == "duel" else {}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            partial(host.host, listeners[0], game=game, options=options, setup={}, peers=peers, seats=[0])
        )
        # At p1: the duel's other wizard; in Hornswoggle the Opponent, who picks who begins (the
        # host), lays its opening card, then stops reading: the host's decision is owed next.
        nursery.start_soon(partial(bad.join, await small_window(port), seats=[1]))
        while host.session is None and not (host.lobby and host.lobby.members):
            await trio.sleep(0.01)  # (the staller is at the table first: the host writes to it first)
        for joiner in joiners:
            nursery.start_soon(joiner.join, await trio.open_tcp_stream("127.0.0.1", port))
        with trio.move_on_after(FAKE_HOUR):
            while not all(over(side) for side in (host, *joiners)):
                await trio.sleep(1)
        nursery.cancel_scope.cancel()
    result.pings = StallingLoop.most  # (counted as sent, not sampled: a busy machine samples late)
    await listeners[0].aclose()
    return result


def over(side: Peer) -> bool:
    """Whether a peer's match is over (its result, or a fault)."""
    return side.session is not None and (side.session.finished or side.session.fault is not None)


def on_a_fake_clock(run: Callable[[Path], Awaitable[Result]]) -> Callable[[Path], Awaitable[Result]]:
    """``run`` in a trio run of its own on the autojump clock (in a worker thread), so that an
    attack whose answer takes minutes of deadlines takes none of them in real time, whatever the
    clock of the caller's run (the suite's, bench/hostile.py's)."""

    async def on_its_own_clock(tmp: Path) -> Result:
        clock = trio.testing.MockClock(autojump_threshold=0)
        return await trio.to_thread.run_sync(partial(trio.run, run, tmp, clock=clock))

    return on_its_own_clock


async def stalled_duel(tmp: Path) -> Result:
    """A duel whose joiner stops reading once it has chosen its second turn, and keeps sending
    pings."""
    stalled = await against_a_staller(tmp, "duel", 2)
    return Result(stalled.seen, stalled.host, verify(stalled.host.files.transcript.read_bytes()))


@dataclass(frozen=True)
class Attack:
    name: str
    run: Callable[[Path], Awaitable[Result]]
    expect: str
    """"rejected: <words>" (refused, recorded, the match goes on), "fault <kind>: <words>" (the
    match stops with that fault), "refused: <words>" (the caller is turned away with these words in
    the host's log) or "served" (the caller gets nowhere; the honest player still plays)."""


def _reveal_other(body: list[Any]) -> list[Any]:
    action = dict(body[3])
    action["left"] = "P" if action.get("left") != "P" else "W"
    return [body[0], body[1], body[2], action, body[4]]


def _small_order_hello() -> bytes:
    """Handshake message 1 with u = 0 as the ephemeral key: every X25519 result with it is zero.
    (Answering it once raised a bare ValueError that stopped the host.)"""
    message = bytes(32) + encode(["p2pgenius-hello", PROTOCOL_VERSION])
    return frame_header(len(message)) + message


ATTACKS: list[Attack] = [
    Attack(
        "garbage bytes instead of a handshake",
        at_the_door(lambda p, t: raw_call(p, os.urandom(300))),
        "refused: ",
    ),
    Attack(
        "a truncated record, then silence",
        at_the_door(lambda p, t: raw_call(p, frame_header(1000) + b"x" * 10, read=True)),
        "served",
    ),
    Attack(
        "an oversized record header",
        at_the_door(lambda p, t: raw_call(p, frame_header(70_000) + b"x" * 100)),
        "refused: ",
    ),
    Attack(
        "slow-loris: a byte every 0.2 s",
        at_the_door(lambda p, t: raw_call(p, os.urandom(40), trickle=0.2)),
        "served",
    ),
    Attack("a connection flood (100 idle connections)", at_the_door(flood), "served"),
    Attack(
        "a hello with an ephemeral key of small order",
        at_the_door(lambda p, t: raw_call(p, _small_order_hello(), read=True)),
        "refused: small order",
    ),
    Attack("a known name with another key", at_the_door(wrong_key), "refused: has changed"),
    Attack(
        "a name the host's pin file once could not store (José), knocking and leaving",
        at_the_door(lambda p, t: knock_and_leave(p, t, "José")),
        "served",
    ),
    Attack(
        "a stranger taking the next player's name (friend), knocking and leaving first",
        at_the_door(lambda p, t: knock_and_leave(p, t, "friend")),
        "served",
    ),
    Attack(
        "a seat claim for seats that do not exist", at_the_door(junk_ready), "refused: not one peer's seats"
    ),
    Attack(
        "a ready whose coin commitment another key signed",
        at_the_door(forged_ready),
        "refused: signature does not verify",
    ),
    Attack("a forged signature", in_match(Lie("hash", nth=1, mode="forge")), "rejected: forged"),
    Attack("a replayed message", in_match(Lie("commit", nth=1, mode="replay")), "rejected: replayed"),
    Attack(
        "a message from another match",
        in_match(Lie("commit", nth=1, mode="foreign")),
        "rejected: another match",
    ),
    Attack("an oversized message", in_match(Lie("hash", nth=1, mode="oversize")), "rejected: limit"),
    Attack(
        "a decision declaring more time than its clock had",
        in_match(Lie("commit", lambda b: [*b[:4], 10**9], nth=1), grace=3, clock=3),
        "rejected+forfeit: declares",
    ),
    Attack(
        "equivocation (two messages, one number)",
        in_match(Lie("hash", lambda b: [b[0], b[1], bytes(32)], mode="equivocate")),
        "fault cheat: equivocation",
    ),
    Attack(
        "a commitment opened to another value",
        in_match(Lie("reveal", _reveal_other, nth=1)),
        "fault cheat: opened",
    ),
    Attack(
        "a lying state hash",
        in_match(Lie("hash", lambda b: [b[0], b[1], bytes(32)], nth=1)),
        "fault desync: differs",
    ),
    Attack(
        "an illegal action",
        in_match(
            Lie("act", lambda b: [b[0], b[1], b[2], {"type": "place", "cell": 99}, b[4]], nth=1),
            game="magic-square",
        ),
        "fault cheat: illegal",
    ),
    Attack(
        "a chat line that would drive the reader's terminal (an escape sequence)",
        in_match(Lie("commit", lambda b: ["chat", "gg \x1b]0;owned\x07\x1b[2J"], mode="inject")),
        "rejected: a chat line has 1 to 500 printable characters",
    ),
    Attack(
        "a forfeit whose reason would drive a verifier's terminal",
        in_match(
            Lie(
                "commit",
                lambda b: ["forfeit", b[1], 0, "timed out\x1b[2J\x1b]52;c;cHduZWQ=\x07"],
                mode="inject",
            )
        ),
        "rejected: a forfeit whose reason is not printable",
    ),
    Attack(
        "a forfeit of the honest seat, no claim first, while it is answering",
        in_match(Lie("commit", lambda b: ["forfeit", b[1], 0, "no answer for 120 seconds"], mode="inject")),
        "rejected: a forfeit of p0",
    ),
    Attack(
        "a forfeit of the honest seat after a claim, no grace period",
        in_match(
            Lie(
                "commit",
                lambda b: [["timeout", b[1], 0, 130_000], ["forfeit", b[1], 0, "no answer to a claim"]],
                mode="inject",
            )
        ),
        "rejected: a forfeit of p0",
    ),
    Attack(
        "walking away from the coin flip, its share never opened (a free re-roll of the seats)",
        in_match(Lie("coin_reveal", nth=0, mode="drop"), grace=3),
        "fault forfeit: coin share",
    ),
    Attack(
        "refusing to open a commitment",
        in_match(Lie("reveal", nth=1, mode="drop"), grace=3),
        "fault forfeit: no answer",
    ),
    Attack(
        "an observed time of the honest seat's decision no peer can have seen (a billion ms)",
        in_match(Lie("hash", lambda b: ["observed", b[1], 0, 10**9], mode="inject")),
        "rejected: more than any peer can wait",
    ),
    Attack(
        "walking away at the very end, the result never signed (to keep a loss off the record)",
        in_match(Lie("end", nth=0, mode="drop"), grace=2, clock=3),  # (gone: waited for as long as a turn)
        "fault forfeit: no answer",
    ),
    Attack(
        "a result signed that the match did not have",
        in_match(Lie("end", lambda b: ["end", {**b[1], "winner": 0 if b[1].get("winner") else 1}], nth=0)),
        "fault cheat: signed a result",
    ),
    Attack(
        "a player that stops reading mid-match and keeps sending pings (a flood of them)",
        on_a_fake_clock(stalled_duel),
        "fault forfeit: no answer",
    ),
]
