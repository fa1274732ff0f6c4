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
from p2pgenius.errors import EncodingError, LocalMisuseError, P2PGeniusError
from p2pgenius.games.names import GAME_NAMES
from p2pgenius.net import DEFAULT_GRACE_S
from p2pgenius.net.keystore import trust
from p2pgenius.protocol.channel import PROTOCOL_VERSION, ChannelError, Established, Received, SecureChannel
from p2pgenius.protocol.clocks import MS_WARNINGS
from p2pgenius.protocol.identity import Identity, fingerprint
from p2pgenius.protocol.session import Event, Session, TimeoutClaimed, claims_problem, seat_groups
from p2pgenius.protocol.transcript import frame, header
from p2pgenius.protocol.transcript import records as read_records

READ_BYTES: Final = 65536
HANDSHAKE_TIMEOUT_S: Final = 10.0
PING_S: Final = 10.0
"""How often a peer pings each connection (round-trip times for the lag allowance; liveness)."""
LAG_FLOOR_S: Final = 1.0
"""The least lag allowed before claiming another seat's timeout (plus twice the round trip)."""
MAX_ALLOWANCE_S: Final = 10.0
"""The most lag allowed, however slow a peer's pongs."""
LOBBY_FIELDS: Final = (
    "game",
    "options",
    "setup",
    "names",
    "keys",
    "claims",
    "ready",
    "you",
    "needed",
    "start",
)

Item = tuple[str, Any, Any]
"""What the match loop reads: ("msg", connection, payload), ("gone", connection, None),
("decided", None, (stage, seat, action)) or ("chat", None, text)."""
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

    async def send(self, payload: bytes) -> None:
        """Send one application payload."""
        self.channel.send(payload)
        await self._write()

    async def messages(self, inbox: trio.MemorySendChannel[Item]) -> None:
        """Read payloads into ``inbox`` until the connection ends (then say it is gone)."""
        try:
            while True:
                for event in await self._read():
                    if isinstance(event, Received):
                        inbox.send_nowait(("msg", self, event.payload))
        except PeerGoneError:
            inbox.send_nowait(("gone", self, None))

    async def aclose(self) -> None:
        """Close the stream."""
        await self.stream.aclose()


@dataclass
class Member:
    """A player in the host's lobby: its connection and key, its name, its seat claim (None until
    it says it is ready)."""

    connection: Connection
    key: bytes
    name: str
    claim: list[int] | None = None


def _ready_claim(payload: bytes) -> list[int] | None:
    """The seats a ``ready`` message claims (None if it is not a well-formed ready)."""
    try:
        value = decode(payload)
    except EncodingError:
        return None
    if not (isinstance(value, list) and len(value) == 2 and value[0] == "ready"):
        return None
    seats = value[1].get("seats") if isinstance(value[1], dict) else None
    if not (isinstance(seats, list) and len(seats) <= 4 and all(type(s) is int for s in seats)):
        return None
    return sorted(seats)


def lobby_text(lobby: Mapping[str, Any]) -> str:
    """The lobby in one line."""
    options = ", ".join(f"{k}={v}" for k, v in sorted(lobby["options"].items())) or "default options"
    if lobby.get("setup"):
        options += "; setup " + ", ".join(f"{k}={v}" for k, v in sorted(lobby["setup"].items()))
    people = []
    for index, (name, key) in enumerate(zip(lobby["names"], lobby["keys"], strict=True)):
        claim = lobby["claims"][index] if index < len(lobby.get("claims", [])) else []
        ready = lobby["ready"][index] if index < len(lobby.get("ready", [])) else False
        tags = [t for t in ("host" if index == 0 else "", "you" if index == lobby["you"] else "") if t]
        if claim:
            tags.append("seats " + " ".join(f"p{s}" for s in claim))
        if not ready:
            tags.append("not ready")
        people.append(f"{name} {fingerprint(key)[:9]}" + (f" ({', '.join(tags)})" if tags else ""))
    waiting = f"; waiting for {lobby['needed']} more" if lobby["needed"] else ""
    start = "; starting" if lobby["start"] else ""
    return f"lobby: {lobby['game']} ({options}): {'; '.join(people)}{waiting}{start}"


def _minutes(seconds: int) -> str:
    return f"{seconds // 60} minute{'s' if seconds != 60 else ''}" if seconds >= 60 else f"{seconds} s"


@dataclass
class Files:
    """Where this peer's transcript and secrets go."""

    transcript: Path
    secrets: Path
    log: Path | None = None
    _open: dict[Path, int] = field(default_factory=dict, repr=False)

    def append(self, path: Path, records: list[bytes]) -> None:
        """Append framed records and hand them to the kernel before anything is sent.

        Once ``write`` returns, a crash of this process (even SIGKILL) cannot lose them. They
        are not fsynced record by record: that costs milliseconds a step and only guards
        against the whole machine losing power mid-match. Each file stays open (in append
        mode) until :meth:`close`: opening it for every step cost more than the writing."""
        if not records:
            return
        descriptor = self._open.get(path)
        if descriptor is None:
            descriptor = self._open[path] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        data = b"".join(frame(r) for r in records)
        while data:
            data = data[os.write(descriptor, data) :]

    def close(self) -> None:
        """Close the files (appending again reopens them)."""
        for descriptor in self._open.values():
            os.close(descriptor)
        self._open.clear()


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
    confirm: Callable[[Mapping[str, Any]], Awaitable[bool]] | None = None  # agree to a lobby
    listener: trio.abc.Listener[trio.abc.Stream] | None = None  # a host's door, kept open
    _inbox: trio.MemorySendChannel[Item] | None = None
    _nursery: trio.Nursery | None = None
    _host_claim: list[int] = field(default_factory=list)
    _setup: dict[str, Any] = field(default_factory=dict)
    # clocks, measured here
    _stage_number: int = -2
    _stage_at: float = 0.0
    _deciding: dict[int, tuple[int, trio.CancelScope]] = field(default_factory=dict)
    _claimed: dict[int, float] = field(default_factory=dict)  # seat -> when we claimed its timeout
    _warned: set[tuple[int, int, int]] = field(default_factory=set)
    _heard: dict[int, float] = field(default_factory=dict)  # peer -> last time anything came
    _progress: dict[int, float] = field(default_factory=dict)  # peer -> its last accepted message
    _rtts: list[float] = field(default_factory=list)
    _pings: dict[int, float] = field(default_factory=dict)
    _ping_count: int = 0
    _next_ping: float = 0.0

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
        """Hold the lobby until ``peers - 1`` players have joined and said they are ready, then
        propose the match and play it."""
        self._setup = dict(setup)
        members = await self._lobby(listener, game, dict(options), peers, sorted(seats))
        keys = [self.identity.public] + [m.key for m in members]
        names = [self.name] + [m.name for m in members]
        claims = [sorted(seats)] + [m.claim or [] for m in members]
        for index, member in enumerate(members, start=1):
            await member.connection.send(
                encode(["lobby", self._lobby_view(game, options, members, peers, index, start=True)])
            )
            self.via[index] = member.connection
            self.connections.append(member.connection)
        self.session = Session(keys=keys, me=0, identity=self.identity, names=names)
        self.listener = listener
        await self._start_transcript("host")
        self.session.propose(game, options=options, setup=setup, claims=claims)
        await self.play()

    def _lobby_view(
        self,
        game: str,
        options: Mapping[str, Any],
        members: Sequence[Member],
        peers: int,
        you: int,
        *,
        start: bool = False,
    ) -> dict[str, Any]:
        return {
            "game": game,
            "options": dict(options),
            "setup": self._setup,
            "names": [self.name] + [m.name for m in members],
            "keys": [self.identity.public] + [m.key for m in members],
            "claims": [list(self._host_claim)] + [m.claim or [] for m in members],
            "ready": [True] + [m.claim is not None for m in members],
            "you": you,
            "needed": peers - 1 - len(members),
            "start": start,
        }

    async def _lobby(
        self,
        listener: trio.abc.Listener[trio.abc.Stream],
        game: str,
        options: dict[str, Any],
        peers: int,
        seats: list[int],
    ) -> list[Member]:
        """Greet players as they come, show everyone who is there, and take their seat claims
        and readiness; returns the members once the table is full and everyone is ready."""
        self._host_claim = seats
        members: list[Member] = []
        send, said = trio.open_memory_channel[tuple[str, Connection, Any]](math.inf)
        groups = seat_groups(game, peers)

        async def greet(stream: trio.abc.Stream) -> None:
            connection = Connection(
                stream, self.channel(initiator=False, hello={"name": self.name, "game": game})
            )
            try:
                established = await connection.handshake()
                name = self.pin(established)
            except (P2PGeniusError, trio.TooSlowError) as exc:
                self.report_line(f"refused a connection: {exc}")
                await connection.aclose()
                return
            send.send_nowait(("joined", connection, (established.peer_key, name)))
            try:
                while True:
                    for event in await connection._read():
                        if isinstance(event, Received):
                            send.send_nowait(("said", connection, event.payload))
            except PeerGoneError:
                send.send_nowait(("left", connection, None))

        async def doors(nursery: trio.Nursery) -> None:
            while True:
                nursery.start_soon(greet, await listener.accept())

        async def refuse(connection: Connection, reason: str) -> None:
            with contextlib.suppress(PeerGoneError):
                await connection.send(encode(["refused", reason]))
            await connection.aclose()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(doors, nursery)
            while len(members) < peers - 1 or any(m.claim is None for m in members):
                what, connection, data = await said.receive()
                member = next((m for m in members if m.connection is connection), None)
                if what == "joined":
                    key, name = data
                    if key == self.identity.public or any(m.key == key for m in members):
                        self.report_line(f"refused {name}: already at the table")
                        await refuse(connection, "you are already at this table")
                        continue
                    if len(members) >= peers - 1:
                        self.report_line(f"refused {name}: the table is full")
                        await refuse(connection, "the table is full")
                        continue
                    members.append(Member(connection, key, name))
                    self.report_line(f"{name} joined ({key.hex()[:8]}...)")
                elif what == "left" and member is not None:
                    members.remove(member)
                    self.report_line(f"{member.name} left the lobby")
                elif what == "said" and member is not None:
                    claim = _ready_claim(data)
                    taken = [seats] + [m.claim or [] for m in members if m is not member]
                    problem = (
                        "a malformed ready message"
                        if claim is None
                        else claims_problem(groups, [*taken, claim])
                    )
                    if problem:
                        self.report_line(f"refused {member.name}: {problem}")
                        members.remove(member)
                        await refuse(member.connection, problem)
                        continue
                    member.claim = claim
                    self.report_line(f"{member.name} is ready")
                else:
                    continue
                for index, other in enumerate(members, start=1):
                    view = self._lobby_view(game, options, members, peers, index)
                    with contextlib.suppress(PeerGoneError):
                        await other.connection.send(encode(["lobby", view]))
            nursery.cancel_scope.cancel()
        return members

    async def join(self, stream: trio.abc.Stream, *, seats: Sequence[int] = ()) -> None:
        """Handshake with the host, say we are ready (claiming ``seats``), follow the lobby until
        the match starts, and play."""
        connection = Connection(stream, self.channel(initiator=True, hello={"name": self.name}))
        established = await connection.handshake()
        self.pin(established)
        self.connections.append(connection)
        shown = None
        agreed: dict[str, Any] | None = None  # what the player said yes to
        while True:
            events = await connection._read()
            payloads = [e.payload for e in events if isinstance(e, Received)]
            for position, payload in enumerate(payloads):
                lobby = self._check_lobby(payload, established.peer_key)
                if lobby != shown:
                    shown = lobby
                    self.report_line(lobby_text(lobby))
                if agreed is None:  # the first lobby shows the terms: agree to them, or leave
                    if self.confirm is not None and not await self.confirm(lobby):
                        raise PeerGoneError("left the lobby")
                    await connection.send(encode(["ready", {"seats": sorted(seats)}]))
                    agreed = {key: lobby[key] for key in ("game", "options", "setup")}
                changed = [key for key in agreed if lobby[key] != agreed[key]]
                if changed:
                    raise PeerGoneError(f"the host changed the {' and '.join(changed)} after we agreed")
                if lobby["start"]:
                    expected = {**agreed, "claim": sorted(seats)}
                    self.session = Session(
                        keys=lobby["keys"],
                        me=lobby["you"],
                        identity=self.identity,
                        names=lobby["names"],
                        expected=expected,
                    )
                    await self._start_transcript("join")
                    # Whatever came in the same read as the start (the terms, often) goes first.
                    await self.play(first=[(connection, extra) for extra in payloads[position + 1 :]])
                    return

    def _check_lobby(self, payload: bytes, host_key: bytes) -> dict[str, Any]:
        """A lobby message from the host, checked; raises PeerGoneError on a refusal or junk."""
        try:
            value = decode(payload)
        except EncodingError as exc:
            raise PeerGoneError(f"the host sent a malformed lobby: {exc}") from None
        if isinstance(value, list) and len(value) == 2 and value[0] == "refused":
            raise PeerGoneError(f"the host refused us: {value[1]}")
        lobby = value[1] if isinstance(value, list) and len(value) == 2 and value[0] == "lobby" else None
        if not (isinstance(lobby, dict) and set(LOBBY_FIELDS) <= set(lobby)):
            raise PeerGoneError("the host did not send the lobby")
        keys, names, you = lobby["keys"], lobby["names"], lobby["you"]
        if not (
            isinstance(keys, list)
            and isinstance(names, list)
            and len(names) == len(keys)
            and all(isinstance(k, bytes) for k in keys)
            and all(isinstance(n, str) for n in names)
            and type(you) is int
            and 0 < you < len(keys)
            and keys[you] == self.identity.public
            and keys[0] == host_key
            and lobby["game"] in GAME_NAMES
            and isinstance(lobby["options"], dict)
            and all(isinstance(k, str) and type(v) in (int, bool) for k, v in lobby["options"].items())
            and isinstance(lobby["setup"], dict)
            and isinstance(lobby["start"], bool)
            and type(lobby["needed"]) is int
            and isinstance(lobby["claims"], list)
            and len(lobby["claims"]) == len(keys)
            and all(isinstance(c, list) and all(type(x) is int for x in c) for c in lobby["claims"])
            and isinstance(lobby["ready"], list)
            and len(lobby["ready"]) == len(keys)
            and all(type(r) is bool for r in lobby["ready"])
        ):
            raise PeerGoneError("the host sent a malformed lobby (or one that does not list us)")
        return lobby

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
        # Empty, not merely there: a reused path must not hand an old match's coin or nonces to
        # a restore of this one.
        descriptor = os.open(self.files.secrets, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(descriptor)

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
        missing = session.missing_for(theirs)
        # Anything accepted from now until the connection is adopted (even while the sends below
        # wait) must not fall between this snapshot and the broadcasts that will include it.
        connection.caught_up = len(session.archive)
        if not speak_first:
            await connection.send(encode(["sync", session.next_seq]))
        for raw in missing:
            await connection.send(encode(["m", raw]))
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
        connection or restarting. Each caller is greeted in its own task, so a slow or hostile
        one cannot keep the door shut."""
        assert self._nursery is not None
        while True:
            self._nursery.start_soon(self._greet_again, await listener.accept())

    async def _greet_again(self, stream: trio.abc.Stream) -> None:
        session = self.session
        assert session is not None
        connection = Connection(stream, self.channel(initiator=False, hello={"name": self.name}))
        try:
            established = await connection.handshake()
            if established.peer_key not in session.keys[1:]:
                with contextlib.suppress(PeerGoneError):
                    await connection.send(encode(["refused", "the match has started without you"]))
                raise PeerGoneError("not a player of this match")
            self.pin(established)
            behind = await self._sync(connection, speak_first=False)
        except (P2PGeniusError, trio.TooSlowError) as exc:
            self.report_line(f"refused a connection: {exc}")
            await connection.aclose()
            return
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
            self._inbox.send_nowait(("msg", connection, payload))
        self._nursery.start_soon(connection.messages, self._inbox)

    # -- playing ---------------------------------------------------------------------------

    async def play(self, first: Sequence[tuple[Connection, bytes]] = ()) -> None:
        """Run the match to its end (or a fault); ``first``: payloads already read.

        One loop owns the session. Local players decide in their own tasks (so messages, chat
        and clocks go on while someone thinks) and hand their decisions to the loop; between
        items the loop keeps the clocks: its own seats' timeouts, claims against other seats,
        forfeits after the grace period, Magic Square warnings, and pings."""
        try:
            await self._play(first)
        finally:
            self.files.close()

    async def _play(self, first: Sequence[tuple[Connection, bytes]]) -> None:
        session = self.session
        assert session is not None
        send, inbox = trio.open_memory_channel[Item](math.inf)
        now = trio.current_time()
        self._heard = {peer: now for peer in range(len(session.keys)) if peer != session.me}
        self._progress = dict(self._heard)
        self._next_ping = now + PING_S
        async with trio.open_nursery() as nursery:
            self._inbox, self._nursery = send, nursery
            for connection, payload in first:
                send.send_nowait(("msg", connection, payload))
            for connection in self.connections:
                nursery.start_soon(connection.messages, send)
            if self.listener is not None:
                nursery.start_soon(self._welcome_back, self.listener)
            if self.reconnect is not None and not self.connections:
                nursery.start_soon(self._come_back)  # a restarted joiner finds its host again
            await self._flush()
            while not session.finished and session.fault is None:
                self._follow_stage()
                item: Item | None = None
                with trio.move_on_at(self._next_deadline()):
                    item = await inbox.receive()
                if item is not None:  # (handled outside the deadline: a send is never cut short)
                    await self._on_item(item)
                else:
                    await self._on_time()
            nursery.cancel_scope.cancel()
        for connection in self.connections:
            with trio.move_on_after(1):
                await connection.aclose()

    async def _on_item(self, item: Item) -> None:
        kind, connection, data = item
        if kind == "msg":
            await self._on_payload(connection, data)
        elif kind == "gone":
            await self._gone(connection)
        elif kind == "chat":
            session = self.session
            assert session is not None
            try:
                session.chat(data)
            except P2PGeniusError as exc:
                self.report_line(str(exc))
            await self._flush()
        else:  # a local decision
            await self._decided(*data)

    def offer(self, seat: int, action: Mapping[str, Any] | None) -> None:
        """A decision for a local seat from outside the ``decide`` callback (a terminal UI;
        in a duel without "fast", a change of mind before the minute is up)."""
        session = self.session
        if self._inbox is not None and session is not None and session.stage is not None:
            self._inbox.send_nowait(("decided", None, (session.stage.number, seat, action)))

    def chat(self, text: str) -> None:
        """Say something to the table (from outside the loop, like :meth:`offer`)."""
        if self._inbox is not None:
            self._inbox.send_nowait(("chat", None, text))

    # -- deciding ----------------------------------------------------------------------------

    def _follow_stage(self) -> None:
        """Notice a new stage: note when it began here and start the local deciders."""
        session = self.session
        assert session is not None and self._nursery is not None
        number = session.stage.number if session.stage is not None else -1
        if number != self._stage_number:
            self._stage_number = number
            self._stage_at = trio.current_time()
            self._claimed.clear()
        for seat, (stage, scope) in list(self._deciding.items()):
            if stage != number or seat not in session.awaiting():
                scope.cancel()
                del self._deciding[seat]
        for seat in session.awaiting():
            if seat not in self._deciding:
                scope = trio.CancelScope()
                self._deciding[seat] = (number, scope)
                self._nursery.start_soon(self._decider, number, seat, scope)

    async def _decider(self, number: int, seat: int, scope: trio.CancelScope) -> None:
        session = self.session
        assert session is not None and self._inbox is not None
        with scope:
            action = await self.decide(session, seat)
            self._inbox.send_nowait(("decided", None, (number, seat, action)))

    async def _decided(self, number: int, seat: int, action: Mapping[str, Any] | None) -> None:
        session = self.session
        assert session is not None
        stage = session.stage
        if stage is None or stage.number != number or session.finished or session.fault is not None:
            return  # too late: the stage moved on (a timeout, say)
        if seat not in session.awaiting() and seat not in session.unsettled():
            return
        view = session.clocks().get(seat)
        ms = int((trio.current_time() - self._stage_at) * 1000)
        try:
            if view is not None and ms >= view.left_ms:
                self.report_line(f"p{seat}: out of time")
                session.time_out(seat)
            elif action is None:
                session.decline(seat, ms=ms)
            else:
                session.submit(seat, action, ms=ms)
        except P2PGeniusError as exc:
            self.report_line(f"p{seat}: {exc}")
            if seat in self._deciding and self._deciding[seat][0] == number:
                self._deciding.pop(seat)[1].cancel()  # ask again, with a fresh decider
        await self._flush()

    # -- clocks ------------------------------------------------------------------------------

    def clock_readings(self) -> dict[int, tuple[str, float, bool]]:
        """Every seat's clock as this peer shows it: (kind, seconds left, running)."""
        session = self.session
        if session is None:
            return {}
        elapsed = trio.current_time() - self._stage_at
        return {
            seat: (view.kind, max(view.left_ms / 1000 - (elapsed if view.running else 0), 0), view.running)
            for seat, view in session.clocks().items()
        }

    def allowance(self) -> float:
        """How late another seat may be before it is claimed to have run out: network lag
        (capped, so a peer cannot buy time by answering pings late)."""
        return min(LAG_FLOOR_S + 2 * max(self._rtts, default=0.0), MAX_ALLOWANCE_S)

    def _deadlines(self) -> list[tuple[float, str, int, int]]:
        """(when, what, seat, detail) for every clock event still to come at this stage."""
        session = self.session
        assert session is not None
        out: list[tuple[float, str, int, int]] = []
        owed = session.owed()
        views = session.clocks()
        for seat, view in views.items():
            if not view.running:
                continue
            end = self._stage_at + view.left_ms / 1000
            if seat in session.my_seats:
                out.append((end, "expire", seat, 0))
            elif seat in owed and seat not in self._claimed:
                out.append((end + self.allowance(), "claim", seat, 0))
            if view.kind == "round":
                budget = session.stage.clocks[seat][0].budget_ms / 1000 if session.stage else 0
                for mark in MS_WARNINGS:  # (a mark the round never had is no warning)
                    if mark < budget and (seat, view.key, mark) not in self._warned:
                        out.append((end - mark, "warn", seat, mark))
        for seat, at in self._claimed.items():
            if seat in owed:
                out.append((at + self.grace_s, "forfeit", seat, 0))
        for seat in owed:
            peer = session.owner[seat] if seat < len(session.owner) else None
            if peer is None or peer == session.me:
                continue
            # A dead connection: nothing at all (not even a ping) for the grace period.
            out.append((self._heard.get(peer, 0.0) + self.grace_s, "silent", seat, 0))
            if seat not in views or not views[seat].running:
                # Something owed with no clock of its own (a reveal, an opening, a final, an
                # audit): pings do not count, only the signed message that pays the debt.
                since = max(self._progress.get(peer, 0.0), self._stage_at)
                out.append((since + self.grace_s, "silent", seat, 0))
        if session.stage is None and session.outcome is None:  # still setting up
            out.append((max(self._progress.values(), default=0.0) + self.grace_s, "stuck", -1, 0))
        return out

    def _next_deadline(self) -> float:
        return min([self._next_ping] + [when for when, *_ in self._deadlines()])

    async def _on_time(self) -> None:
        """A deadline passed: do what is due, in time order."""
        session = self.session
        assert session is not None
        now = trio.current_time()
        if now >= self._next_ping:
            self._next_ping = now + PING_S
            await self._ping()
        for when, what, seat, mark in sorted(self._deadlines()):
            if when > now or session.finished or session.fault is not None:
                break
            if what == "expire":
                if seat in session.awaiting():  # (not a duel's minute ending on a choice)
                    self.report_line(f"p{seat}: out of time; the rules' timeout is played")
                with contextlib.suppress(LocalMisuseError):
                    session.time_out(seat)
            elif what == "claim":
                observed = int((now - self._stage_at) * 1000)
                self._claimed[seat] = now
                self.report_line(f"p{seat} ran out of time here ({observed / 1000:.1f} s): claimed")
                session.claim_timeout(seat, observed)
            elif what == "warn":
                view = session.clocks()[seat]
                left = view.left_ms / 1000 - (now - self._stage_at)
                passed = [m for m in MS_WARNINGS if m >= left and (seat, view.key, m) not in self._warned]
                self._warned.update((seat, view.key, m) for m in MS_WARNINGS if m >= left)
                self.report_line(f"p{seat}: {_minutes(min(passed or [mark]))} left on the round clock")
            elif what == "forfeit":
                session.forfeit(seat, f"no answer to a timeout claim for {self.grace_s:.0f} seconds")
            elif what == "silent":
                session.forfeit(seat, f"no answer for {self.grace_s:.0f} seconds")
            else:
                raise PeerGoneError(f"the match did not start: no answer for {self.grace_s:.0f} seconds")
            await self._flush()
            break  # the state changed: deadlines are computed afresh

    async def _ping(self) -> None:
        self._pings[self._ping_count] = trio.current_time()
        payload = encode(["ping", self._ping_count])
        self._ping_count += 1
        for connection in list(self.connections):
            with contextlib.suppress(PeerGoneError):
                await connection.send(payload)

    def _on_clock_event(self, event: Event) -> None:
        """A timeout claim about one of our seats: accept it if our own clock agrees (within a
        second), else dispute it by carrying on (our decision will declare our measure)."""
        session = self.session
        if not isinstance(event, TimeoutClaimed) or session is None or event.seat not in session.my_seats:
            return
        view = session.clocks().get(event.seat)
        if view is None or event.stage != self._stage_number:
            return
        elapsed = trio.current_time() - self._stage_at
        if elapsed + 1.0 >= view.left_ms / 1000:
            with contextlib.suppress(LocalMisuseError):
                session.time_out(event.seat)
        else:
            self.report_line(
                f"p{event.seat}: {session.names[event.author]} claims it ran out of time "
                f"({event.observed_ms / 1000:.1f} s there, {elapsed:.1f} s here): disputed"
            )

    # -- messages ----------------------------------------------------------------------------

    async def _on_payload(self, connection: Connection, payload: bytes) -> None:
        session = self.session
        assert session is not None
        self._log(f"<- {payload.hex()}")
        now = trio.current_time()
        if session.me == 0:
            for index, known in self.via.items():
                if known is connection:
                    self._heard[index] = now
        else:  # the host relays everyone: hearing it is hearing the table
            for peer in self._heard:
                self._heard[peer] = now
        try:
            kind, raw = decode(payload)
        except (EncodingError, ValueError, TypeError):
            kind, raw = "", payload
        if kind == "ping" and type(raw) is int:
            with contextlib.suppress(PeerGoneError):
                await connection.send(encode(["pong", raw]))
            return
        if kind == "pong" and type(raw) is int:
            sent = self._pings.pop(raw, None)
            if sent is not None:
                self._rtts = [*self._rtts[-4:], now - sent]
            return
        if kind != "m" or not isinstance(raw, bytes):
            self.report_line("a peer sent something that is not a match message (ignored)")
            return
        if session.me == 0:  # relay to the others; each checks the author's signature itself
            for other in self.connections:
                if other is not connection:
                    with contextlib.suppress(PeerGoneError):
                        await other.send(payload)
        before = list(session.next_seq)
        for event in session.receive(raw):
            self.report(session, event)
            self._on_clock_event(event)
        for author, (old, new) in enumerate(zip(before, session.next_seq, strict=True)):
            if new > old:
                self._progress[author] = now
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
            for connection in list(self.connections):
                with contextlib.suppress(PeerGoneError):  # its reader notices and reports
                    await connection.send(payload)
        for event in session.take_events():
            self.report(session, event)
            self._on_clock_event(event)
        if session.flushing.messages or session.flushing.records:
            await self._flush()  # accepting a claim sent something more

    async def _gone(self, connection: Connection) -> None:
        """A connection closed. The match waits: a joiner tries to come back; a host keeps its
        door open; a peer that stays away past the grace period forfeits."""
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
