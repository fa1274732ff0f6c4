"""One connection to another peer: a secure channel over a trio stream, with one reader and a send
lock. Everything above it sees application payloads only; the channel's own events stay in here,
and so do pings: a connection answers the other side's pings itself and times its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.net.inbox import Inbox
from p2pgenius.protocol.channel import PROTOCOL_VERSION, ChannelError, Established, Received, SecureChannel

READ_BYTES: Final = 65536
HANDSHAKE_TIMEOUT_S: Final = 10.0

ROUND_TRIPS_KEPT: Final = 5
"""The latest round trips a connection keeps (its pings answered)."""


class Kind(StrEnum):
    """What an item of the match loop's inbox is."""

    MSG = "msg"  # a payload came: data (payload, when it was read)
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


class PeerGoneError(P2PGeniusError):
    """The other side closed the connection or broke the channel."""


class Connection:
    """A secure channel over a trio stream: one reader, one send lock."""

    def __init__(self, stream: trio.abc.Stream, channel: SecureChannel) -> None:
        self.stream = stream
        self.channel = channel
        self.send_lock = trio.Lock()
        self.peer: Established | None = None
        self.early: list[Any] = []  # events read along with the end of the handshake
        self.caught_up = 0  # how much of the session's archive this peer was sent on resyncing
        self.round_trips: list[float] = []  # the latest, in seconds (ROUND_TRIPS_KEPT of them)
        self._pings: dict[int, float] = {}  # ping number -> when it was sent
        self.unanswered = 0  # pings sent since bytes last came (a dead route brings none)
        self._next_ping = 0

    async def _write(self) -> None:
        data = self.channel.data_to_send()
        if data:
            async with self.send_lock:
                try:
                    await self.stream.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    raise PeerGoneError("the connection closed while sending") from exc

    async def handshake(self, prepare: Callable[[Established], None] | None = None) -> Established:
        """Run the handshake to the end; returns who the peer proved to be.

        ``prepare`` sees the peer's identity and hello as soon as they are known and before our
        last handshake message leaves: a joiner refuses a host there without showing who it is,
        or queues its first messages to travel with that last handshake message."""
        with trio.fail_after(HANDSHAKE_TIMEOUT_S):
            await self._write()
            while self.peer is None:
                for event in await self._read():
                    if isinstance(event, Established):
                        if prepare is not None:
                            prepare(event)
                        self.peer = event
                    else:  # a message that came in the same read: keep it for the next reader
                        self.early.append(event)
                await self._write()
        return self.peer

    async def _read(self) -> list[Any]:
        if self.early:
            early, self.early = self.early, []
            return early
        try:
            data = await self.stream.receive_some(READ_BYTES)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise PeerGoneError("the connection broke") from exc
        self.unanswered = 0
        if not data:
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

    async def send(self, payload: bytes) -> None:
        """Send one application payload."""
        self.channel.send(payload)
        await self._write()

    async def ping(self) -> None:
        """Send a ping: its answer gives a round trip (and shows the other side is there)."""
        number, self._next_ping = self._next_ping, self._next_ping + 1
        self._pings[number] = trio.current_time()
        for old in [n for n in self._pings if n < number - ROUND_TRIPS_KEPT]:
            del self._pings[old]  # (never answered: the connection is judged by silence)
        await self.send(encode(["ping", number]))
        self.unanswered += 1

    async def item(self, payload: bytes) -> Item:
        """What ``payload`` is for the match loop: a ping is answered here (and is news that the
        other side is there), the answer to one of ours gives a round trip; anything else is
        the loop's to read."""
        message = Item(Kind.MSG, self, (payload, trio.current_time()))
        try:
            kind, number = decode(payload)
        except (EncodingError, TypeError, ValueError):
            return message
        if kind == "ping" and type(number) is int:
            with contextlib.suppress(PeerGoneError):  # (a broken connection: its reader says so)
                await self.send(encode(["pong", number]))
            return Item(Kind.HEARD, self, None)
        if kind == "pong" and type(number) is int:
            sent = self._pings.pop(number, None)
            if sent is None:  # not a ping of ours (or answered twice): nothing measured
                return Item(Kind.HEARD, self, None)
            took = trio.current_time() - sent
            self.round_trips = [*self.round_trips[-(ROUND_TRIPS_KEPT - 1) :], took]
            return Item(Kind.HEARD, self, took)
        return message

    async def messages(self, inbox: Inbox[Item], first: Sequence[bytes] = ()) -> None:
        """Read payloads into ``inbox`` until the connection ends (then say it is gone);
        ``first``: payloads already read, which go before. The inbox is bounded: while it is
        full this waits and reads nothing, so TCP slows a peer that floods us."""
        try:
            for payload in first:
                await inbox.send(await self.item(payload))
            while True:
                for payload in await self.receive():
                    await inbox.send(await self.item(payload))
        except PeerGoneError:
            await inbox.send(Item(Kind.GONE, self, None))

    async def aclose(self) -> None:
        """Close the stream."""
        await self.stream.aclose()
