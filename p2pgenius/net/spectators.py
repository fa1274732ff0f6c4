"""Spectators: read-only peers that watch a match live and check it as it goes (SPEC section 4b).

A host whose lobby admits spectators (``host --spectators``, shown to every player before they
agree) lets a caller whose hello says ``"role": "spectator"`` in, at the lobby or mid-match. The
spectator is sent ``["watching", {...}]`` (the players' keys and names) once the match starts,
then every match message the host has accepted, in the order it accepted them, from the first
(a spectator that comes late catches up) and then as they come. It sees exactly what the host
relays: commitments, not hidden cards; nothing a peer kept in the dark may not see yet (the host
never holds a withheld choice before the peer in the dark may have it, or, in the dark itself,
at all). It sends nothing but pongs: anything else, and it is dropped.

Nobody waits for a spectator: what it is sent goes into its connection's queue, which the
connection's own writer empties (as for every connection: ``connection``); one that falls behind
by more than the queue holds (``connection.QUEUE_BYTES``), or does not read for the bound on a
write (``connection.SEND_S``), is dropped, and the match never notices.

:func:`watch` is the spectator's side: it checks every signature, chain link, opening and state
hash as the messages come (an observer session), and gives each event to its caller.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import trio

from p2pgenius.errors import LocalMisuseError, PeerGoneError
from p2pgenius.net.connection import Connection, flush_all
from p2pgenius.net.keystore import check_name
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.channel import Established, SecureChannel
from p2pgenius.protocol.events import Event
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.messages import printable
from p2pgenius.protocol.session import Session, SessionView

MAX_SPECTATORS: Final = 32
"""Spectators a host admits at once (each holds a connection; the players must still get in)."""
ROLE: Final = "spectator"


class NoHandshakeError(PeerGoneError):
    """A spectator's handshake did not finish (through a relay: perhaps not the host at all)."""


@dataclass
class Watcher:
    """One spectator at the host: its connection, and how much of the archive it was sent."""

    connection: Connection
    name: str
    sent: int = -1  # archive entries queued (-1: not even the "watching" header yet)


@dataclass
class Spectators:
    """A host's spectators: admitted in ``nursery`` if ``allowed``, fed from the host's
    ``session`` (None until the match begins) and said (``say``) as they come and go."""

    nursery: trio.Nursery
    session: Callable[[], Session | None]
    say: Callable[[str], None]
    allowed: bool = False
    watchers: list[Watcher] = field(default_factory=list)

    def admit(self, connection: Connection, name: str) -> None:
        """A spectator at the door (the handshake done): let it in, or tell it why not."""
        if not self.allowed:
            self.nursery.start_soon(_refuse, connection, "this match does not admit spectators")
            return
        if len(self.watchers) >= MAX_SPECTATORS:
            full = f"this match has {MAX_SPECTATORS} spectators already"
            self.nursery.start_soon(_refuse, connection, full)
            return
        watcher = Watcher(connection, name)
        self.watchers.append(watcher)
        connection.start(self.nursery)
        self.nursery.start_soon(self._read, watcher)
        key = connection.peer.peer_key if connection.peer is not None else b""
        self.say(f"{name} is watching (fingerprint {fingerprint(key)})")
        self.feed()

    def feed(self) -> None:
        """Queue for every spectator what the host accepted since (never waiting for one)."""
        session = self.session()
        if session is None or (session.terms is None and not session.signed_log.taken):
            return
        for watcher in list(self.watchers):
            try:
                if watcher.sent < 0:
                    watcher.connection.post(wire.watching(session.keys, session.names))
                    watcher.sent = 0
                for raw in session.signed_log.taken_since(watcher.sent):
                    watcher.connection.post(wire.match_message(raw))
                    watcher.sent += 1
            except PeerGoneError as exc:  # (its queue is full: it fell behind; or it is gone)
                self.drop(watcher, str(exc))

    def drop(self, watcher: Watcher, why: str) -> None:
        """Let a spectator go (the match goes on)."""
        if watcher in self.watchers:
            self.watchers.remove(watcher)
            # Its writer closes the connection, cutting short a write stuck on a reader that
            # stalled, and so wakes its reader: nothing of a dropped spectator stays behind.
            watcher.connection.drop(why)
            session = self.session()
            if session is not None and (session.finished or session.fault is not None):
                return  # (the match is over: leaving is what a spectator does then)
            self.say(f"spectator {watcher.name} dropped: {why}")

    async def finish(self, within: float = 2.0) -> None:
        """The match is over: let each spectator's queue drain (for a while, all at once), then
        close."""
        self.feed()
        watchers, self.watchers = list(self.watchers), []
        await flush_all([watcher.connection for watcher in watchers], within)
        for watcher in watchers:
            await _close(watcher.connection)

    async def _read(self, watcher: Watcher) -> None:
        """A spectator only answers pings; anything else it says, and it is dropped."""
        try:
            while watcher in self.watchers:
                for payload in await watcher.connection.receive():
                    # (a pong, or anything that names itself one: its number is not read)
                    if wire.parse(payload).kind != wire.Pong.KIND:
                        self.drop(watcher, "a spectator may not send anything")
                        return
        except PeerGoneError:
            self.drop(watcher, watcher.connection.dropped or "gone")  # (why we gave it up, if we did)


async def _close(connection: Connection) -> None:
    with contextlib.suppress(Exception):
        await connection.aclose()


async def _refuse(connection: Connection, reason: str) -> None:
    with contextlib.suppress(PeerGoneError):
        await connection.send(wire.refused(reason))
    await connection.aclose()


def caller_name(caller: Established) -> str:
    """A caller's name from its hello (its fingerprint's start if the name is no good)."""
    name = caller.peer_hello.get("name")
    try:
        return check_name(name)
    except LocalMisuseError:
        return fingerprint(caller.peer_key)[:9]


def is_spectator(host_side: Established) -> bool:
    """Whether a caller's hello says it comes to watch."""
    return host_side.peer_hello.get("role") == ROLE


@dataclass(frozen=True)
class Onlooker:
    """What a spectator does with the match as it comes: each event goes to ``on_event`` (with
    the session, read only) and each accepted message's bytes to ``on_message`` (to keep a
    transcript)."""

    on_event: Callable[[SessionView, Event], None]
    on_message: Callable[[bytes], None] = lambda raw: None


class RefusedError(PeerGoneError):
    """The host turned the spectator away (its word, in the message): no use calling again."""


@dataclass
class Watched:
    """A spectator's match across its connections to the host: the observer session (None until
    the host lists the players) and a digest of every message received. A host called again (its
    relay restarted, or itself) sends the match from its first message: what is held already is
    not taken twice, and a host that lists other players is not the match watched."""

    onlooker: Onlooker
    session: Session | None = None
    seen: set[bytes] | None = field(default_factory=set)  # (None: every message taken as it comes)
    listed: Callable[[], None] | None = None  # told once, when the next connection lists the players

    @property
    def view(self) -> SessionView | None:
        """The match as far as it was watched (None if it never began)."""
        return None if self.session is None else self.session.view

    @property
    def over(self) -> bool:
        """Whether the match came to its end (its result, or a fault)."""
        return finished(self.session)

    async def follow(
        self, stream: trio.abc.Stream, identity: Identity, name: str, *, expect_key: bytes | None = None
    ) -> None:
        """Watch over one connection (``stream``) until the match is over: every message is
        checked as it comes and handed to the onlooker. Raises PeerGoneError if the connection
        ends first, or the host refuses us (RefusedError); NoHandshakeError if it never got as far
        as the handshake's end."""

        def check(host: Established) -> None:
            if expect_key is not None and host.peer_key != expect_key:
                raise IdentityError(
                    f"the host's key is not the one the invite names: the invite names "
                    f"{fingerprint(expect_key)}, the host at this address has {fingerprint(host.peer_key)}"
                )

        channel = SecureChannel(initiator=True, identity=identity, hello={"name": name, "role": ROLE})
        connection = Connection(stream, channel)
        try:
            host = await connection.handshake(prepare=check)
        except (PeerGoneError, trio.TooSlowError) as exc:
            with contextlib.suppress(Exception):
                await connection.aclose()
            raise NoHandshakeError(str(exc) or "the host did not finish the handshake in time") from exc
        listed = False  # (whether this connection's ``watching`` came)
        try:
            while not self.over:
                for payload in await connection.receive():
                    listed = self.take(payload, host.peer_key, listed=listed)
                    told = self.listed
                    if listed and told is not None:  # (a watching that goes on: said so)
                        self.listed = None
                        told()
                    if self.over:
                        break
        finally:
            with contextlib.suppress(Exception):
                await connection.aclose()

    def take(self, payload: bytes, host_key: bytes | None, *, listed: bool) -> bool:
        """One payload from the host, on a connection whose ``watching`` came already (``listed``:
        a second one is ignored) or not yet (a match message before it is ignored; on a
        connection made again it must list the players watched). Returns whether it has come."""
        message = wire.parse(payload)
        if isinstance(message, wire.Malformed) and message.flaw is not wire.Flaw.BODY:
            raise PeerGoneError("the host sent something that is not a message")
        if isinstance(message, wire.Refused) or message.kind == wire.Refused.KIND:
            reason = message.reason if isinstance(message, wire.Refused) else ""
            raise RefusedError(f"the host refused us: {printable(reason[:200]) or 'it gave no reason'}")
        if message.kind == wire.Watching.KIND and not listed:
            keys, names = _players(message, host_key)
            if self.session is None:
                self.session = Session(keys=keys, me=None, names=names)
            elif keys != list(self.session.keys):  # (called again: the same match, or none of ours)
                raise RefusedError("the host now shows another match than the one watched")
            return True
        if isinstance(message, wire.MatchMessage) and listed and self.session is not None:
            self._message(message.raw, self.session)
        return listed

    def _message(self, body: bytes, session: Session) -> None:
        """A match message from the host, checked by the session and handed to the onlooker."""
        if self.seen is not None:
            digest = hashlib.sha256(body).digest()
            if digest in self.seen:
                return  # (held already: a host called again sends the match from its start)
            self.seen.add(digest)
        accepted = session.signed_log.taken
        events = session.receive(body)
        if session.signed_log.taken > accepted:  # (a message it refused is not the match's)
            # (first: a listener may read the messages so far, this one included)
            self.onlooker.on_message(body)
        for event in events:
            self.onlooker.on_event(session.view, event)


async def watch(
    stream: trio.abc.Stream,
    identity: Identity,
    name: str,
    onlooker: Onlooker,
    *,
    expect_key: bytes | None = None,
) -> SessionView | None:
    """Watch the match of the host at the other end of ``stream`` over that one connection
    (:meth:`Watched.follow`). Returns the session (read only) when the match is over or the host
    closes (None if the match never started); raises PeerGoneError if refused."""
    watched = Watched(onlooker)
    try:
        await watched.follow(stream, identity, name, expect_key=expect_key)
    except RefusedError:
        raise
    except PeerGoneError:
        if watched.session is None:
            raise
    return watched.view


def _take(
    payload: bytes, session: Session | None, onlooker: Onlooker, *, host_key: bytes | None = None
) -> Session | None:
    """One payload from the host for the match watched so far over one connection (its first
    ``watching`` makes the session; see :meth:`Watched.take`)."""
    watched = Watched(onlooker, session, seen=None)
    watched.take(payload, host_key, listed=session is not None)
    return watched.session


def _players(message: wire.Parsed, host_key: bytes | None) -> tuple[list[bytes], list[str] | None]:
    """The players' keys and names of a ``watching`` message, checked (SPEC 4b)."""
    if not isinstance(message, wire.Watching):
        raise PeerGoneError("the host sent a malformed list of players")
    keys = list(message.keys)
    if host_key is not None and keys[0] != host_key:
        # Its own match's host is p0's peer: a host that passes on someone else's match (or
        # makes one up under other keys) is not the match the invite was for.
        raise PeerGoneError(
            f"the host's match is not its own: the players it lists are hosted by "
            f"{fingerprint(keys[0])}, not by the host at this address ({fingerprint(host_key)})"
        )
    return keys, list(message.names) if message.names else None


def finished(session: Session | None) -> bool:
    """Whether a watched match came to its end (its result, every check done; or a fault)."""
    return session is not None and (session.finished or session.fault is not None)
