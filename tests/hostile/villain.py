"""A scripted malicious peer over real TCP: a real Peer (with bots) whose outgoing match messages
pass through a rewriting function before they reach the wire, a real Peer that stops reading
(:class:`Staller`), and raw-socket callers that break the transport. Used by the hostile-peer
suite and by bench/hostile.py's table."""

from __future__ import annotations

import contextlib
import hashlib
import math
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode, encode
from p2pgenius.errors import PeerGoneError
from p2pgenius.net.match_loop import MatchLoop
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.clocks import Deadline
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.machine import MatchMachine
from p2pgenius.protocol.messages import MAX_MESSAGE_BYTES, seal
from p2pgenius.protocol.session import Event, SessionView

Rewrite = Callable[[Identity, bytes], list[bytes]]


class Villain(Peer):
    """A peer that lies on the wire: every match message it sends goes through ``rewrite``."""

    rewrite: Rewrite

    async def _start_transcript(self, role: str) -> None:
        await super()._start_transcript(role)
        session = self.session
        assert session is not None
        honest_flush = session.flush

        def lying_flush() -> Any:
            out = honest_flush()
            out.messages = [lie for raw in out.messages for lie in self.rewrite(self.identity, raw)]
            for lie in out.messages:  # (a liar's program knows what it sent in its own name: the
                # others' messages name those, and it must take them)
                envelope = decode(lie)
                if isinstance(envelope, list) and len(envelope) == 7 and envelope[2] == session.me:
                    session.chain.numbered[hashlib.sha256(lie).digest()] = (envelope[2], envelope[3])
            return out

        session.flush = lying_flush


def unchanged(body: list[Any]) -> list[Any]:
    return body


@dataclass(frozen=True)
class Lie:
    """The lie a :class:`Chain` tells: about the ``nth`` message of ``kind`` (counted from 0), in
    its ``mode``: change | replay | equivocate | forge | oversize | drop | foreign | inject
    (``change``: the body it sends instead, or the messages it injects after it)."""

    kind: str
    change: Callable[[list[Any]], list[Any]] = unchanged
    nth: int = 1
    mode: str = "change"


@dataclass
class Chain:
    """Rewrites one message (the one its ``lie`` is about) and keeps the author's hash chain whole
    after it, re-signing every later message, as a real liar would."""

    lie: Lie
    seen: int = 0
    shift: int = 0  # messages injected so far: later ones are numbered after them
    prev: bytes | None = None
    done: bool = False
    log: list[str] = field(default_factory=list)

    def __call__(self, identity: Identity, raw: bytes) -> list[bytes]:
        _, match_id, author, seq, heads, body, _ = decode(raw)
        if self.prev is not None and self.lie.mode in ("change", "inject"):  # re-chain after the lie
            out = seal(identity, match_id, author, seq + self.shift, self.chained(heads, author), list(body))
            self.prev = hashlib.sha256(out).digest()
            return [out]
        if self.done or body[0] != self.lie.kind:
            return [raw]
        if self.seen < self.lie.nth:
            self.seen += 1
            return [raw]
        self.done = True
        self.log.append(f"{self.lie.mode} {body[0]} #{seq}")
        return self._tell(identity, raw)

    def _tell(self, identity: Identity, raw: bytes) -> list[bytes]:
        """What goes on the wire instead of ``raw``, the message lied about."""
        _, match_id, author, seq, heads, body, _ = decode(raw)
        mode = self.lie.mode
        if mode == "replay":
            return [raw, raw]
        if mode == "inject":
            return self._inject(identity, raw)
        if mode == "drop":
            self.done = False  # keep refusing
            return []
        if mode == "forge":  # (someone else's copy: the real one follows)
            return [raw[:-1] + bytes([raw[-1] ^ 1]), raw]
        if mode == "foreign":
            return [seal(identity, bytes(32), author, seq, heads, list(body)), raw]
        if mode == "oversize":
            return [
                seal(identity, match_id, author, seq, heads, ["chat", "x" * (MAX_MESSAGE_BYTES + 10)]),
                raw,
            ]
        changed = seal(identity, match_id, author, seq, heads, self.lie.change(list(body)))
        if mode == "equivocate":
            return [raw, changed]
        self.prev = hashlib.sha256(changed).digest()
        return [changed]

    def _inject(self, identity: Identity, raw: bytes) -> list[bytes]:
        """``raw``, then messages of the villain's own making after it, chained in."""
        _, match_id, author, seq, heads, body, _ = decode(raw)
        made = self.lie.change(list(body))
        sent: list[bytes] = [raw]
        self.prev = hashlib.sha256(raw).digest()
        for extra in made if made and isinstance(made[0], list) else [made]:
            self.shift += 1
            chained = self.chained(heads, author)
            sent.append(seal(identity, match_id, author, seq + self.shift, chained, extra))
            self.prev = hashlib.sha256(sent[-1]).digest()
        return sent

    def chained(self, heads: list[bytes], author: int) -> list[bytes]:
        """``heads`` with the author's own chained after the last message it sent."""
        assert self.prev is not None
        return [self.prev if peer == author else head for peer, head in enumerate(heads)]


@dataclass
class Seen:
    """What the honest peer showed its player."""

    lines: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def line(self, text: str) -> None:
        self.lines.append(text)

    def event(self, session: SessionView, event: Event) -> None:
        del session
        self.events.append(event)


def honest(tmp: Path, name: str, seen: Seen, level: str | None = None, grace: float = 60) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    return Peer(
        Identity.generate(),
        name,
        files,
        BotDriver(level, 1).decide,
        seen.event,
        seen.line,
        grace_s=grace,
        pin_dir=tmp / "pins" / name,
    )


def villain(tmp: Path, rewrite: Rewrite, level: str | None = None) -> Villain:
    files = Files(tmp / "villain.p2pt", tmp / "villain.secrets")
    peer = Villain(
        Identity.generate(),
        "villain",
        files,
        BotDriver(level, 2).decide,
        lambda s, e: None,
        lambda t: None,
        grace_s=math.inf,
        pin_dir=tmp / "pins" / "villain",
    )
    peer.rewrite = rewrite
    return peer


async def raw_call(port: int, data: bytes, *, trickle: float = 0.0, read: bool = False) -> bytes:
    """Connect to the host's port and send ``data`` (a byte at a time every ``trickle`` seconds);
    returns whatever came back before the host closed or 2 s passed."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    got = b""
    try:
        if trickle:
            for byte in data:
                await stream.send_all(bytes([byte]))
                await trio.sleep(trickle)
        else:
            await stream.send_all(data)
        if read:
            with trio.move_on_after(2):
                while chunk := await stream.receive_some(65536):
                    got += chunk
    except trio.BrokenResourceError:
        pass
    finally:
        await stream.aclose()
    return got


def frame_header(length: int) -> bytes:
    """A record's 4-byte length (section 4 of the SPEC)."""
    return struct.pack(">I", length)


SMALL_BUFFER: Final = 4096
"""The host's send buffer on a stalled-reader attack's connection (the system doubles what is
asked); the staller's receive buffer is the least the system allows. With the systems' own sizes
(megabytes on loopback) the attack is the same; it takes megabytes of pings to fill them rather
than a few hundred, which a test need not spend. (The least receive buffer also leaves the
system no slack to take a few more small segments now and then: full is full at once.)"""
FLOOD_PINGS: Final = 2000
"""Pings a staller sends once it has stopped reading: their pongs (about 30 bytes each on the
wire) fill the small buffers above many times over."""


class Deaf(trio.abc.Stream):
    """A stream that can stop reading: once ``deaf`` is set, a read waits for ever, and what the
    other side sends piles up in the systems' buffers until its writes wait too. Sending goes on.
    Its socket's receive buffer shrinks to the least the system allows as it goes deaf, so they
    fill soon; not before: a window that small makes the kernel send a few bytes at a time, on
    its own timers in real seconds, while the tests' autojump clock jumps minutes ahead (the host
    then gave up the staller before its match had begun, once in five runs on a busy machine)."""

    def __init__(self, inner: trio.SocketStream) -> None:
        self.inner = inner
        self._deaf = False

    @property
    def deaf(self) -> bool:
        return self._deaf

    @deaf.setter
    def deaf(self, deaf: bool) -> None:
        if deaf and not self._deaf:
            self.inner.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
        self._deaf = deaf

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        while self.deaf:
            await trio.sleep_forever()
        data = await self.inner.receive_some(max_bytes)
        while self.deaf:  # (what came as it went deaf is never read either)
            await trio.sleep_forever()
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


async def small_window(port: int) -> Deaf:
    """A connection to the host at ``port`` on loopback, ready to go deaf (its receive window as
    small as can be from then on)."""
    return Deaf(await trio.open_tcp_stream("127.0.0.1", port))


def small_send_buffers(listener: trio.SocketListener) -> None:
    """The host's connections accepted from ``listener`` get small send buffers (each inherits the
    listening socket's), so that a peer that does not read fills them soon."""
    listener.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)


class StallingMachine(MatchMachine):
    """The rules of time of a :class:`Staller`: once deaf, none but its pings."""

    deaf = False

    def _deadlines(self) -> list[Deadline]:
        return [] if self.deaf else super()._deadlines()


class StallingLoop(MatchLoop):
    """The loop of a :class:`Staller`: it plays until it has made a decision at stage ``stall_at``
    or later, then reads nothing more and decides nothing more, and keeps sending pings: a flood
    of them at once (whose pongs the host must write into a window that never opens), then one
    every interval, never giving up its own connection (which its pings, unanswered, would). So
    the match goes on without it for a while: the others' next decisions are owed first."""

    stall_at: ClassVar[int] = 1
    pings = 0  # pings it sent once it stopped reading
    most: ClassVar[int] = 0
    """The most pings any staller's loop sent (a staller's loop may be replaced when its
    connection is given up and it comes back: what the first sent is not lost with it)."""

    def deaf(self) -> bool:
        return any(isinstance(c.stream, Deaf) and c.stream.deaf for c in self.links)

    def _follow_stage(self) -> None:
        if self.deaf():
            return  # (deaf, it decides nothing more)
        super()._follow_stage()  # (this stage's decisions are still made, and sent)
        stage = self.session.stage
        if stage is not None and stage.number >= self.stall_at:
            for connection in self.links:
                if isinstance(connection.stream, Deaf):
                    connection.stream.deaf = True
            assert isinstance(self.machine, StallingMachine)
            self.machine.deaf = True  # (it keeps no clock but pings)
            self.nursery.start_soon(self._flood)

    async def _flood(self) -> None:
        for _ in range(FLOOD_PINGS // 100):
            await self._ping(100)

    async def _ping(self, count: int) -> None:
        """``count`` pings on every connection, in one write (answered or not, it never looks)."""
        for connection in self.links:
            with contextlib.suppress(PeerGoneError):
                for _ in range(count - 1):
                    connection.channel.send(encode(["ping", self.pings]))
                    self.pings += 1
                await connection.send(encode(["ping", self.pings]))
                self.pings += 1
            StallingLoop.most = max(StallingLoop.most, self.pings)

    async def _on_time(self) -> None:
        if not self.deaf():
            await super()._on_time()
        elif self.machine.clocks.ping_due():
            await self._ping(1)


class Staller(Peer):
    """A joiner that stops reading mid-match but goes on sending (see :class:`StallingLoop`)."""

    loop_type = StallingLoop
    machine_type = StallingMachine


def staller(tmp: Path, name: str = "staller", seed: int = 2) -> Staller:
    """A :class:`Staller` with bots at its seats (it never comes back: no way back is given).
    Where it picks who begins (Hornswoggle's Opponent), it picks the host's seat p0: the first
    decision owed once it has stopped reading is then the host's, which the host can make only
    if nothing it sends waits for the staller."""
    bots = BotDriver(None, seed)

    async def decide(view: SessionView, seat: int) -> Any:
        action = await bots.decide(view, seat)
        if isinstance(action, dict) and action.get("type") == "order":
            return {**action, "first": 0}
        return action

    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    return Staller(
        Identity.generate(),
        name,
        files,
        decide,
        lambda s, e: None,
        lambda t: None,
        grace_s=math.inf,
        pin_dir=tmp / "pins" / name,
    )
