"""Networked play with trio: a thin shell around the sans-IO channel and session.

Topology: the host listens; every other peer connects to it. After each secure handshake the host
sends the lobby (every peer's key and name, and its index) over the channel; then match messages
flow. The host relays each peer's match messages to the others, but integrity never depends on it:
every match message is signed by its author and checked by every receiver.

One reader task per connection feeds one inbox; a single loop owns the session, so the session is
never touched concurrently. After every call into the session, :meth:`Peer._flush` appends the
transcript records and secrets to disk first, then sends.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.net import DEFAULT_GRACE_S
from p2pgenius.net.keystore import trust
from p2pgenius.protocol.channel import ChannelError, Established, Received, SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Event, Session
from p2pgenius.protocol.transcript import frame, header
from p2pgenius.protocol.transcript import records as read_records

READ_BYTES: Final = 65536
HANDSHAKE_TIMEOUT_S: Final = 10.0

Decide = Callable[[Session, int], Awaitable[Mapping[str, Any] | None]]
"""Chooses an action for a local seat (None: let an optional action pass)."""
Report = Callable[[Session, Event], None]
"""Shows a session event to the person running this peer."""


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

    async def _write(self) -> None:
        data = self.channel.data_to_send()
        if data:
            async with self.send_lock:
                try:
                    await self.stream.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    raise PeerGoneError("the connection closed while sending") from exc

    async def handshake(self) -> Established:
        """Run the handshake to the end; returns who the peer proved to be."""
        with trio.fail_after(HANDSHAKE_TIMEOUT_S):
            await self._write()
            while self.peer is None:
                for event in await self._read():
                    if isinstance(event, Established):
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
        if not data:
            raise PeerGoneError("the peer closed the connection")
        try:
            return list(self.channel.receive_data(bytes(data)))
        except ChannelError as exc:
            raise PeerGoneError(f"the peer broke the protocol: {exc}") from exc

    async def send(self, payload: bytes) -> None:
        """Send one application payload."""
        self.channel.send(payload)
        await self._write()

    async def messages(self, inbox: trio.MemorySendChannel[tuple[Connection, bytes | None]]) -> None:
        """Read payloads into ``inbox`` until the connection ends (then send None)."""
        try:
            while True:
                for event in await self._read():
                    if isinstance(event, Received):
                        await inbox.send((self, event.payload))
        except PeerGoneError:
            await inbox.send((self, None))

    async def aclose(self) -> None:
        """Close the stream."""
        await self.stream.aclose()


@dataclass
class Files:
    """Where this peer's transcript and secrets go."""

    transcript: Path
    secrets: Path
    log: Path | None = None

    def append(self, path: Path, records: list[bytes]) -> None:
        """Append framed records and hand them to the kernel before anything is sent.

        Once ``write`` returns, a crash of this process (even SIGKILL) cannot lose them. They
        are not fsynced record by record: that costs milliseconds a step and only guards
        against the whole machine losing power mid-match."""
        if not records:
            return
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            data = b"".join(frame(r) for r in records)
            while data:
                data = data[os.write(descriptor, data) :]
        finally:
            os.close(descriptor)


@dataclass
class Peer:
    """One peer of a networked match."""

    identity: Identity
    name: str
    files: Files
    decide: Decide
    report: Report
    say: Callable[[str], None]
    grace_s: float = DEFAULT_GRACE_S
    pin_dir: Path | None = None
    connections: list[Connection] = field(default_factory=list)
    session: Session | None = None
    via: dict[int, Connection] = field(default_factory=dict)  # host: peer index -> connection
    address: str = ""  # recorded in the transcript so that a crashed peer can come back
    reconnect: Callable[[], Awaitable[trio.abc.Stream]] | None = None  # a joiner's way back
    listener: trio.abc.Listener[trio.abc.Stream] | None = None  # a host's door, kept open
    _inbox: trio.MemorySendChannel[tuple[Connection, bytes | None]] | None = None
    _nursery: trio.Nursery | None = None

    # -- connecting ------------------------------------------------------------------------

    def channel(self, *, initiator: bool, hello: Mapping[str, Any]) -> SecureChannel:
        """A fresh channel carrying our identity."""
        return SecureChannel(initiator=initiator, identity=self.identity, hello=hello)

    def pin(self, peer: Established) -> str:
        """Trust on first use; returns the peer's name. Raises IdentityError on a changed key."""
        name = peer.peer_hello.get("name")
        if not isinstance(name, str) or not name:
            raise PeerGoneError("the peer did not say its name")
        trust(name, peer.peer_key, self.pin_dir)
        return name

    async def host(
        self,
        listener: trio.abc.Listener[trio.abc.Stream],
        *,
        game: str,
        options: Mapping[str, Any],
        setup: Mapping[str, Any],
        peers: int,
        seats: Sequence[int] = (),
    ) -> None:
        """Accept ``peers - 1`` players, send them the lobby, propose the match, and play it."""
        keys, names = [self.identity.public], [self.name]
        hello = {"name": self.name, "game": game}
        while len(keys) < peers:
            stream = await listener.accept()
            connection = Connection(stream, self.channel(initiator=False, hello=hello))
            try:
                established = await connection.handshake()
                name = self.pin(established)
            except (P2PGeniusError, trio.TooSlowError) as exc:
                self.report_line(f"refused a connection: {exc}")
                await connection.aclose()
                continue
            if established.peer_key in keys:
                self.report_line(f"refused {name}: already at the table")
                await connection.aclose()
                continue
            self.via[len(keys)] = connection
            keys.append(established.peer_key)
            names.append(name)
            self.connections.append(connection)
            self.report_line(f"{name} joined ({established.peer_key.hex()[:8]}...)")
        for index, connection in self.via.items():
            await connection.send(encode(["lobby", keys, names, index]))
        self.session = Session(keys=keys, me=0, identity=self.identity, names=names)
        self.listener = listener
        await self._start_transcript("host")
        self.session.propose(game, options=options, setup=setup, seats=seats)
        await self.play()

    async def join(self, stream: trio.abc.Stream) -> None:
        """Handshake with the host, take our place from the lobby, and play."""
        connection = Connection(stream, self.channel(initiator=True, hello={"name": self.name}))
        established = await connection.handshake()
        self.pin(established)
        self.connections.append(connection)
        with trio.fail_after(self.grace_s):
            while True:
                events = await connection._read()
                payloads = [e.payload for e in events if isinstance(e, Received)]
                if payloads:
                    break
        try:
            lobby = decode(payloads[0])
        except EncodingError as exc:
            raise PeerGoneError(f"the host sent a malformed lobby: {exc}") from exc
        if not (isinstance(lobby, list) and len(lobby) == 4 and lobby[0] == "lobby"):
            raise PeerGoneError("the host did not send the lobby")
        _, keys, names, index = lobby
        if not (
            isinstance(names, list)
            and isinstance(keys, list)
            and len(names) == len(keys)
            and all(isinstance(n, str) for n in names)
            and type(index) is int
        ):
            raise PeerGoneError("the host sent a malformed lobby")
        if not (
            isinstance(keys, list)
            and 0 < index < len(keys)
            and keys[index] == self.identity.public
            and keys[0] == established.peer_key
        ):
            raise PeerGoneError("the lobby does not list us, or not the host first")
        self.session = Session(keys=keys, me=index, identity=self.identity, names=names)
        await self._start_transcript("join")
        # Whatever came in the same read as the lobby (the terms, often) goes first.
        await self.play(first=[(connection, extra) for extra in payloads[1:]])

    def resume(self, transcript: bytes, secrets: bytes) -> dict[str, Any]:
        """Rebuild the session of a crashed match from its files; returns the transcript's
        header (role, address, name) so the caller can reconnect the right way."""
        records = list(read_records(transcript))
        meta = records[0][2]
        if meta["peers"][meta["me"]] != self.identity.public:
            raise PeerGoneError("this transcript belongs to another identity")
        self.session = Session.restore(
            identity=self.identity, transcript=records, secrets=list(read_records(secrets))
        )
        self.name = meta.get("name", self.name)
        self.address = meta.get("address", "")
        return dict(meta)

    async def _start_transcript(self, role: str) -> None:
        assert self.session is not None
        self.files.transcript.parent.mkdir(parents=True, exist_ok=True)
        self.files.transcript.write_bytes(
            header(self.session.keys, self.session.me, role=role, address=self.address, name=self.name)
        )
        self.files.secrets.touch(mode=0o600)

    # -- coming back -----------------------------------------------------------------------

    async def _sync(self, connection: Connection, *, speak_first: bool) -> list[bytes]:
        """Exchange how many messages of each author each side holds; send what the other
        lacks. Returns what arrived right behind the other's sync, to be handled first."""
        session = self.session
        assert session is not None
        if speak_first:
            await connection.send(encode(["sync", session.next_seq]))
        theirs = None
        behind: list[bytes] = []
        with trio.fail_after(HANDSHAKE_TIMEOUT_S):
            while theirs is None:
                for event in await connection._read():
                    if not isinstance(event, Received):
                        continue
                    try:
                        value = decode(event.payload)
                    except EncodingError as exc:
                        raise PeerGoneError(f"a malformed message while resyncing: {exc}") from None
                    if theirs is None and isinstance(value, list) and value[:1] == ["sync"]:
                        counts = value[1] if len(value) == 2 else None
                        if not (
                            isinstance(counts, list)
                            and len(counts) == len(session.keys)
                            and all(type(n) is int and n >= 0 for n in counts)
                        ):
                            raise PeerGoneError("a malformed sync")
                        theirs = counts
                    elif theirs is not None:
                        behind.append(event.payload)
        if not speak_first:
            await connection.send(encode(["sync", session.next_seq]))
        for raw in session.missing_for(theirs):
            await connection.send(encode(["m", raw]))
        # Anything accepted from now until the connection is adopted must not fall between the
        # snapshot above and the broadcasts that will include this connection.
        connection.caught_up = len(session.archive)
        return behind

    async def _come_back(self) -> None:
        """A joiner that lost the host: connect again and again until the grace period ends."""
        assert self.reconnect is not None
        deadline = trio.current_time() + self.grace_s
        while trio.current_time() < deadline:
            try:
                stream = await self.reconnect()
                connection = Connection(stream, self.channel(initiator=True, hello={"name": self.name}))
                established = await connection.handshake()
                assert self.session is not None
                if established.peer_key != self.session.keys[0]:
                    raise PeerGoneError("another host answered at that address")
                behind = await self._sync(connection, speak_first=True)
            except (OSError, PeerGoneError, trio.TooSlowError) as exc:
                self.report_line(f"reconnecting: {exc}")
                await trio.sleep(1)
                continue
            self.report_line("reconnected to the host")
            await self._adopt(connection, index=0, behind=behind)
            return

    async def _welcome_back(self, listener: trio.abc.Listener[trio.abc.Stream]) -> None:
        """A host keeps its door open: a peer of this match may come back after losing its
        connection or restarting."""
        session = self.session
        assert session is not None
        while True:
            stream = await listener.accept()
            connection = Connection(stream, self.channel(initiator=False, hello={"name": self.name}))
            try:
                established = await connection.handshake()
                if established.peer_key not in session.keys[1:]:
                    raise PeerGoneError("not a player of this match")
                self.pin(established)
                behind = await self._sync(connection, speak_first=False)
            except (P2PGeniusError, trio.TooSlowError) as exc:
                self.report_line(f"refused a connection: {exc}")
                await connection.aclose()
                continue
            index = session.keys.index(established.peer_key)
            old = self.via.get(index)
            if old in self.connections:
                self.connections.remove(old)
            self.report_line(f"{session.names[index]} is back")
            await self._adopt(connection, index=index, behind=behind)

    async def _adopt(self, connection: Connection, *, index: int, behind: list[bytes]) -> None:
        if self.session is not None and self.session.me == 0:
            self.via[index] = connection
        self.connections.append(connection)
        assert self._inbox is not None and self._nursery is not None
        assert self.session is not None
        for _, _, raw in self.session.archive[connection.caught_up :]:
            await connection.send(encode(["m", raw]))  # accepted while we were resyncing
        for payload in behind:  # in order, before anything the reader picks up
            await self._inbox.send((connection, payload))
        self._nursery.start_soon(connection.messages, self._inbox)

    # -- playing ---------------------------------------------------------------------------

    async def play(self, first: Sequence[tuple[Connection, bytes]] = ()) -> None:
        """Run the match to its end (or a fault); ``first``: payloads already read."""
        session = self.session
        assert session is not None
        send, inbox = trio.open_memory_channel[tuple[Connection, bytes | None]](math.inf)
        async with trio.open_nursery() as nursery:
            self._inbox, self._nursery = send, nursery
            for item in first:
                send.send_nowait(item)
            for connection in self.connections:
                nursery.start_soon(connection.messages, send)
            if self.listener is not None:
                nursery.start_soon(self._welcome_back, self.listener)
            if self.reconnect is not None and not self.connections:
                nursery.start_soon(self._come_back)  # a restarted joiner finds its host again
            await self._flush()
            await self._act()
            while not session.finished and session.fault is None:
                with trio.move_on_after(self.grace_s) as waited:
                    connection, payload = await inbox.receive()
                if waited.cancelled_caught:
                    await self._silence()
                    continue
                if payload is None:
                    await self._gone(connection)
                    continue
                await self._on_payload(connection, payload)
                await self._act()
            nursery.cancel_scope.cancel()
        for connection in self.connections:
            with trio.move_on_after(1):
                await connection.aclose()

    async def _on_payload(self, connection: Connection, payload: bytes) -> None:
        session = self.session
        assert session is not None
        self._log(f"<- {payload.hex()}")
        try:
            kind, raw = decode(payload)
        except (EncodingError, ValueError, TypeError):
            kind, raw = "", payload
        if kind != "m" or not isinstance(raw, bytes):
            self.report_line("a peer sent something that is not a match message (ignored)")
            return
        if session.me == 0:  # relay to the others; each checks the author's signature itself
            for other in self.connections:
                if other is not connection:
                    await other.send(payload)
        for event in session.receive(raw):
            self.report(session, event)
        await self._flush()

    async def _flush(self) -> None:
        session = self.session
        assert session is not None
        out = session.flush()
        # Secrets first: a commitment on record whose nonce was lost could never be opened.
        self.files.append(self.files.secrets, out.secrets)
        self.files.append(self.files.transcript, out.records)
        for raw in out.messages:
            payload = encode(["m", raw])
            self._log(f"-> {payload.hex()}")
            for connection in self.connections:
                with contextlib.suppress(PeerGoneError):  # its reader notices and reports
                    await connection.send(payload)
        for event in session.take_events():
            self.report(session, event)

    async def _act(self) -> None:
        """Let the local players decide for every local seat the match waits on."""
        session = self.session
        assert session is not None
        while True:
            seats = session.awaiting()
            if not seats:
                return
            seat = seats[0]
            action = await self.decide(session, seat)
            try:
                if action is None:
                    session.decline(seat)
                else:
                    session.submit(seat, action)
            except P2PGeniusError as exc:
                self.report_line(f"p{seat}: {exc}")
                continue
            await self._flush()

    async def _silence(self) -> None:
        """Nothing came for the grace period: the first seat of another peer that the match waits
        on (a move, a reveal, an opened card, an audit) forfeits."""
        session = self.session
        assert session is not None
        theirs = [s for s in session.owed() if s not in session.my_seats]
        if not theirs or session.awaiting():
            return
        session.forfeit(theirs[0], f"no answer for {self.grace_s:.0f} seconds")
        await self._flush()

    async def _gone(self, connection: Connection) -> None:
        """A connection closed. The match waits: a joiner tries to come back; a host keeps its
        door open; a peer that stays away past the grace period forfeits (``_silence``)."""
        session = self.session
        assert session is not None
        if connection in self.connections:
            self.connections.remove(connection)
        if session.finished or session.fault is not None:
            return
        self.report_line("a peer's connection closed; waiting for it to come back")
        if self.reconnect is not None and self._nursery is not None:
            self._nursery.start_soon(self._come_back)

    def report_line(self, text: str) -> None:
        """A line for the person running this peer."""
        self.say(text)

    def _log(self, text: str) -> None:
        if self.files.log is not None:
            with self.files.log.open("a", encoding="ascii") as handle:
                handle.write(text + "\n")
