"""One connection to another peer: a secure channel over a trio stream, with one reader and one
writer. Everything above it sees application payloads only; the channel's own events stay in here,
and so do pings: a connection answers the other side's pings itself and times its own.

Nothing waits for a peer that does not read. What a connection sends goes into its queue
(:meth:`Connection.post`, which never waits) and a task of its own writes it (:meth:`Connection.start`);
pongs go the same way, so a reader never waits to answer a ping either. A write that the other
side's system takes no byte of within :data:`SEND_S`, or a queue grown past :data:`QUEUE_BYTES`,
means the peer is not reading: the connection is dropped (closed, what was queued for it let go),
its reader says it is gone, and the peer is away like any peer cut off: it owes only its debts,
and coming back it is sent what it lacks (``reconnect.sync``), so nothing queued is lost.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

import trio

from p2pgenius.errors import PeerGoneError
from p2pgenius.net.inbox import Inbox
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.channel import PROTOCOL_VERSION, ChannelError, Established, Received, SecureChannel

READ_BYTES: Final = 65536
HANDSHAKE_TIMEOUT_S: Final = 10.0

ROUND_TRIPS_KEPT: Final = 5
"""The latest round trips a connection keeps (its pings answered)."""
SEND_S: Final = 10.0
"""The bound on a write: the other side's system must take the next piece (:data:`PIECE`) of what
we write within this many seconds, else the peer is not reading (its buffers and ours are full)
and the connection is dropped. A peer that reads at all, over the slowest route, takes 64 KiB in
10 s; the handshake is given as long."""
PIECE: Final = 65536
"""What one write hands the system at most (each piece is bound by :data:`SEND_S` on its own, so a
long catch-up over a slow route is judged by its progress, not by its length)."""
LINGER_S: Final = 2.0
"""How long a connection closed after its last words (a refusal) waits, once they are written and
its side is shut, for the other side to close too: closing with bytes of the other's still
unread makes the system send a reset, which may reach the other side before the words do and
lose them (seen on a busy machine). Longer, and the other side is closed on regardless."""
QUEUE_BYTES: Final = 1 << 20
"""What may wait in a connection's queue for its writer (besides what the systems' buffers hold):
a peer that lets more pile up is not reading, and is dropped. A whole match's messages come to
tens of kilobytes, so a spectator that comes late, or a player coming back, is sent its catch-up
well within it."""


class Kind(StrEnum):
    """What an item of the match loop's inbox is."""

    MSG = "msg"  # a payload came: data (payload, when it was read, its message as parsed once)
    HEARD = "heard"  # a ping or its answer came: data the round trip in seconds, or None
    GONE = "gone"  # the connection ended: data None
    DECIDED = "decided"  # a local player decided (no connection): data (stage, seat, action)
    SETTLE = "settle"  # a local sealed choice stands now (no connection): data (stage, seat)
    CHAT = "chat"  # a local player's chat line (no connection): data the text


@dataclass(frozen=True, slots=True)
class Item:
    """One item of the match loop's inbox: its kind, the connection it came on (None: from this
    machine), and its data (see :class:`Kind`)."""

    kind: Kind
    connection: Connection | None
    data: Any


def why(exc: BaseException) -> str:
    """An error's reason in words, never empty (a timeout's own text is)."""
    if str(exc):
        return str(exc)
    return "it took too long" if isinstance(exc, trio.TooSlowError) else type(exc).__name__


class Connection(trio.abc.AsyncResource):
    """A secure channel over a trio stream: one reader, one writer (see the module's docstring).
    Whoever greets a caller and is cancelled before it hands the connection on closes it
    (``trio.aclose_forcefully``): left open, nobody would read or write it again, and the caller
    would wait there for ever."""

    def __init__(self, stream: trio.abc.Stream, channel: SecureChannel) -> None:
        self.stream = stream
        self.channel = channel
        self.peer: Established | None = None
        self.early: list[Any] = []  # events read along with the end of the handshake
        self.caught_up = 0  # how much of the session's archive this peer was sent on resyncing
        self.round_trips: list[float] = []  # the latest, in seconds (ROUND_TRIPS_KEPT of them)
        self._pings: dict[int, float] = {}  # ping number -> when it was sent (the latest few)
        self.unanswered = 0  # pings of ours since the other side last answered one
        self.dropped: str | None = None  # why we gave the connection up (see :meth:`drop`)
        self._closed = False  # nothing more may be sent (closed, or closing once written)
        self._closing = False  # the writer closes the stream once the queue is written
        self._lock = trio.Lock()  # one write at a time (the writer's, or a task's own flush)
        self._queued = 0  # bytes posted since the last write took them
        self._wanted = trio.Event()  # set when there is something for the writer to do
        self._took = trio.Event()  # set (and renewed) each time a write takes the queue
        self._writing = False  # a writer task runs
        self._ended = trio.Event()  # the reader saw the connection end (the other side closed)
        self._write_scope: trio.CancelScope | None = None  # the write under way, cut short by a drop

    def start(self, nursery: trio.Nursery) -> None:
        """Give the connection its writer, a task in ``nursery``, which must outlive every
        :meth:`post` to it (what is posted before it starts waits in the queue). Once is enough:
        a connection that has a writer keeps it until it is closed or dropped."""
        if not self._writing and self.dropped is None and not self._closed:
            self._writing = True
            nursery.start_soon(self._write_on)

    async def _write_on(self) -> None:
        """The writer: each time something is queued, hand it all to the system (within the
        bound); the stream is closed here when the connection is dropped or closing."""
        try:
            while True:
                if not self._wanted.is_set():  # (set already: written at once, without a pause)
                    await self._wanted.wait()
                self._wanted = trio.Event()
                if self.dropped is not None or (self._closed and not self._closing):
                    break
                await self.flush()
                if self._closing:
                    # (What was posted while that write went on, the last words among it, is
                    # still queued: written now, before the stream closes.)
                    await self.flush()
                    break
        except PeerGoneError:
            pass
        finally:
            self._writing = False
            self._took.set()  # (nobody waits for a writer that is gone)
            if self.dropped is None and self._closing:
                await self._linger()
            if self.dropped is not None or self._closed:
                # (Closing the stream wakes the reader, which then says the connection is gone.)
                await trio.aclose_forcefully(self.stream)

    async def _linger(self) -> None:
        """Last words written: shut our side, and let the other side read them and close its own
        before the stream is closed (:data:`LINGER_S`)."""
        with trio.move_on_after(LINGER_S):
            if isinstance(self.stream, trio.abc.HalfCloseableStream):
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await self.stream.send_eof()
            await self._ended.wait()

    def post(self, payload: bytes) -> None:
        """Queue one application payload for the writer; never waits. Raises PeerGoneError if the
        connection is closed or dropped, or is dropped now: its queue would pass
        :data:`QUEUE_BYTES`, so the peer is not reading."""
        if self.dropped is not None or self._closed:
            raise PeerGoneError(self.dropped or "the connection is closed")
        if self._queued + len(payload) > QUEUE_BYTES:
            self.drop(f"it read nothing of the last {QUEUE_BYTES // 1024} KiB sent to it")
            raise PeerGoneError(str(self.dropped))
        self.channel.send(payload)
        self._queued += len(payload)
        self._wanted.set()

    async def send(self, payload: bytes) -> None:
        """Send one application payload, and wait until the system has taken it (within the
        bound): for a task of the connection's own (a handshake's, a resync's, a refusal's);
        the loops :meth:`post`."""
        self.post(payload)
        await self.flush()

    async def handed_over(self) -> None:
        """Wait until the writer has taken what is queued, and so handed it to the system if the
        system had room (a loop that posted a message lets it leave before it goes on with its
        own work, as when it wrote it itself). At once if nothing waits, or if a write is under
        way already: one that waits for a peer that does not read is never waited for."""
        if self._queued and self._writing and self._write_scope is None and not self._lock.locked():
            await self._took.wait()

    async def flush(self) -> None:
        """Hand everything queued to the system, each piece within :data:`SEND_S`. Raises
        PeerGoneError if the connection broke, was dropped, or is dropped now (the bound passed).
        Cut short from outside, the connection is dropped too: how much of a record reached the
        wire is not known, and nothing can follow part of one."""
        try:  # (no pause between taking the lock and writing when it is free)
            self._lock.acquire_nowait()
        except trio.WouldBlock:
            await self._lock.acquire()
        try:
            data = self.channel.data_to_send()
            self._queued = 0
            self._took.set()
            self._took = trio.Event()
            if not data:
                return
            if self.dropped is not None:
                raise PeerGoneError(self.dropped)
            written = False
            try:
                await self._write(memoryview(data))
                written = True
            finally:
                if not written and self.dropped is None:
                    self.dropped = "a write was cut short"
        finally:
            self._lock.release()

    async def _write(self, data: memoryview) -> None:
        for start in range(0, len(data), PIECE):
            with trio.CancelScope(deadline=trio.current_time() + SEND_S) as scope:
                self._write_scope = scope
                try:
                    await self.stream.send_all(data[start : start + PIECE])
                except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    self.dropped = self.dropped or "the connection closed while sending"
                    raise PeerGoneError(self.dropped) from exc
                finally:
                    self._write_scope = None
            if scope.cancelled_caught:  # (the bound passed, or a drop cut the write short)
                self.dropped = self.dropped or f"it took nothing we sent for {SEND_S:g} s: it is not reading"
                raise PeerGoneError(self.dropped)

    def drop(self, reason: str) -> None:
        """Give the connection up now: its peer does not read, or its route is dead. What is
        queued is let go (a peer that comes back is sent what it lacks), a write waiting for the
        peer is cut short, and the writer closes the stream (see :meth:`start`; the reader then
        says the connection is gone)."""
        self.dropped = self.dropped or reason
        if self._write_scope is not None:
            self._write_scope.cancel()
        self._wanted.set()

    def close_soon(self) -> None:
        """Send nothing more: the writer writes what is queued (a refusal, say), within the bound,
        then closes the stream."""
        self._closed = self._closing = True
        self._wanted.set()

    async def handshake(self, prepare: Callable[[Established], None] | None = None) -> Established:
        """Run the handshake to the end; returns who the peer proved to be.

        ``prepare`` sees the peer's identity and hello as soon as they are known and before our
        last handshake message leaves: a joiner refuses a host there without showing who it is,
        or queues its first messages to travel with that last handshake message."""
        with trio.fail_after(HANDSHAKE_TIMEOUT_S):
            await self.flush()
            while self.peer is None:
                for event in await self._read():
                    if isinstance(event, Established):
                        if prepare is not None:
                            prepare(event)
                        self.peer = event
                    else:  # a message that came in the same read: keep it for the next reader
                        self.early.append(event)
                await self.flush()
        return self.peer

    async def _read(self) -> list[Any]:
        """The channel's events of the next read; once the connection has ended (PeerGoneError),
        nothing more is sent on it, and its writer closes our end."""
        try:
            return await self._read_some()
        except PeerGoneError:
            self._closed, self._closing = True, False
            self._wanted.set()
            raise

    async def _read_some(self) -> list[Any]:
        if self.early:
            early, self.early = self.early, []
            return early
        try:
            data = await self.stream.receive_some(READ_BYTES)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            self._ended.set()
            raise PeerGoneError("the connection broke") from exc
        if not data:
            self._ended.set()
            if self.peer is None and self.channel.initiator and self.channel.handshake.message == 1:
                # A host that speaks another channel version closes on reading our hello; the
                # hello is all it can read, so it cannot tell us (SPEC section 8).
                raise PeerGoneError(
                    "the host closed the connection at the start of the handshake: it may run "
                    f"another version of p2pgenius (this one speaks channel version {PROTOCOL_VERSION})"
                )
            raise PeerGoneError("the peer closed the connection")
        try:
            return list(self.channel.receive_data(bytes(data)))
        except ChannelError as exc:
            raise PeerGoneError(f"the peer broke the protocol: {exc}") from exc

    async def receive(self) -> list[bytes]:
        """The application payloads of the next read, in order (possibly none: a read may end
        in the middle of a record). Raises PeerGoneError once the connection has ended."""
        return [event.payload for event in await self._read() if isinstance(event, Received)]

    def ping(self) -> None:
        """Send a ping: its answer gives a round trip, and shows that the other side read all we
        sent before it (bytes from it show only that it sends). Its number is random, so that
        nobody can answer it without reading it."""
        number = secrets.randbits(32)
        self._pings[number] = trio.current_time()
        while len(self._pings) > ROUND_TRIPS_KEPT + 1:  # (never answered: forgotten, oldest first)
            del self._pings[next(iter(self._pings))]
        self.post(wire.ping(number))
        self.unanswered += 1

    def item(self, payload: bytes) -> Item:
        """What ``payload`` is for the match loop: a ping is answered here (queued: a reader never
        waits to write) and is news that the other side is there; the answer to one of ours gives
        a round trip, and shows the other side reads; anything else is the loop's to read."""
        message = wire.parse(payload)
        if isinstance(message, wire.Ping):
            with contextlib.suppress(PeerGoneError):  # (a connection given up: its reader says so)
                self.post(wire.pong(message.number))
            return Item(Kind.HEARD, self, None)
        if isinstance(message, wire.Pong):
            sent = self._pings.pop(message.number, None)
            if sent is None:  # not a ping of ours (or answered twice): nothing measured
                return Item(Kind.HEARD, self, None)
            self.unanswered = 0
            took = trio.current_time() - sent
            self.round_trips = [*self.round_trips[-(ROUND_TRIPS_KEPT - 1) :], took]
            return Item(Kind.HEARD, self, took)
        return Item(Kind.MSG, self, (payload, trio.current_time(), message))

    async def messages(self, inbox: Inbox[Item], first: Sequence[bytes] = ()) -> None:
        """Read payloads into ``inbox`` until the connection ends (then say it is gone);
        ``first``: payloads already read, which go before. The inbox is bounded: while it is
        full this waits and reads nothing, so TCP slows a peer that floods us."""
        try:
            for payload in first:
                await inbox.send(self.item(payload))
            while True:
                for payload in await self.receive():
                    await inbox.send(self.item(payload))
        except PeerGoneError:
            await inbox.send(Item(Kind.GONE, self, None))

    async def aclose(self) -> None:
        """Close the stream; nothing more is sent (what is queued is let go)."""
        self._closed, self._closing = True, False
        self.drop("closed here")  # (a write under way is cut short: the writer ends)
        await self.stream.aclose()


async def flush_all(connections: Iterable[Connection], within: float = SEND_S) -> None:
    """Let each connection write what is queued for it, all at once, for at most ``within``
    seconds in all: a match's last messages leave before its connections close, and a peer that
    does not read is not waited for long."""
    with trio.move_on_after(within):
        async with trio.open_nursery() as nursery:
            for connection in connections:
                nursery.start_soon(_flushed, connection)


async def _flushed(connection: Connection) -> None:
    with contextlib.suppress(PeerGoneError):
        await connection.flush()
