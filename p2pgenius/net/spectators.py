"""Spectators: read-only peers that watch a match live and check it as it goes (SPEC section 4b).

A host whose lobby admits spectators (``host --spectators``, shown to every player before they
agree) lets a caller whose hello says ``"role": "spectator"`` in, at the lobby or mid-match. The
spectator is sent ``["watching", {...}]`` (the players' keys and names) once the match starts,
then every match message the host has accepted, in the order it accepted them, from the first
(a spectator that comes late catches up) and then as they come. It sees exactly what the host
relays: commitments, not hidden cards; nothing a blinded wizard's machine may not see yet (the
host never holds a withheld gesture before the blinded peer may have it, or, blinded itself, at
all). It sends nothing but pongs: anything else, and it is dropped.

Nobody waits for a spectator: what it is sent goes into its connection's queue, which the
connection's own writer empties (as for every connection: ``connection``); one that falls behind
by more than the queue holds (``connection.QUEUE_BYTES``), or does not read for the bound on a
write (``connection.SEND_S``), is dropped, and the match never notices.

:func:`watch` is the spectator's side: it checks every signature, chain link, opening and state
hash as the messages come (an observer session), and gives each event to its caller.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, LocalMisuseError
from p2pgenius.net.connection import Connection, PeerGoneError, flush_all
from p2pgenius.net.keystore import check_name
from p2pgenius.protocol.channel import Established, SecureChannel
from p2pgenius.protocol.events import Event
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.messages import is_name, printable
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
        if session is None or (session.terms is None and not session.chain.archive):
            return
        for watcher in list(self.watchers):
            try:
                if watcher.sent < 0:
                    players = {"keys": list(session.keys), "names": list(session.names)}
                    watcher.connection.post(encode(["watching", players]))
                    watcher.sent = 0
                for _, _, raw in session.chain.archive[watcher.sent :]:
                    watcher.connection.post(encode(["m", raw]))
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
                    try:
                        kind = decode(payload)[0]
                    except (EncodingError, LookupError, TypeError):
                        kind = None
                    if kind != "pong":
                        self.drop(watcher, "a spectator may not send anything")
                        return
        except PeerGoneError:
            self.drop(watcher, watcher.connection.dropped or "gone")  # (why we gave it up, if we did)


async def _close(connection: Connection) -> None:
    with contextlib.suppress(Exception):
        await connection.aclose()


async def _refuse(connection: Connection, reason: str) -> None:
    with contextlib.suppress(PeerGoneError):
        await connection.send(encode(["refused", reason]))
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


async def watch(
    stream: trio.abc.Stream,
    identity: Identity,
    name: str,
    onlooker: Onlooker,
    *,
    expect_key: bytes | None = None,
) -> SessionView | None:
    """Watch the match of the host at the other end of ``stream``: every message is checked as it
    comes (an observer session) and handed to the ``onlooker``. Returns the session (read only)
    when the match is over or the host closes (None if the match never started); raises
    PeerGoneError if refused."""

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
    session: Session | None = None
    try:
        while not finished(session):
            for payload in await connection.receive():
                session = _take(payload, session, onlooker, host_key=host.peer_key)
                if finished(session):
                    break
    except PeerGoneError:
        if session is None:
            raise
    finally:
        with contextlib.suppress(Exception):
            await connection.aclose()
    return None if session is None else session.view


def _take(
    payload: bytes, session: Session | None, onlooker: Onlooker, *, host_key: bytes | None = None
) -> Session | None:
    try:
        value = decode(payload)
        kind, body = value[0], value[1]
    except (EncodingError, LookupError, TypeError, ValueError):
        raise PeerGoneError("the host sent something that is not a message") from None
    if kind == "refused":
        raise PeerGoneError(f"the host refused us: {printable(str(body)[:200]) or 'it gave no reason'}")
    if kind == "watching" and session is None:
        keys = body.get("keys") if isinstance(body, dict) else None
        names = body.get("names") if isinstance(body, dict) else None
        if not (
            isinstance(keys, list)
            and all(isinstance(k, bytes) for k in keys)
            and 2 <= len(keys) <= 4
            and (names is None or (isinstance(names, list) and len(names) == len(keys)))
            and all(is_name(n) for n in names or ())
        ):
            raise PeerGoneError("the host sent a malformed list of players")
        assert isinstance(keys, list)
        if host_key is not None and keys[0] != host_key:
            # Its own match's host is p0's peer: a host that passes on someone else's match (or
            # makes one up under other keys) is not the match the invite was for.
            raise PeerGoneError(
                f"the host's match is not its own: the players it lists are hosted by "
                f"{fingerprint(keys[0])}, not by the host at this address ({fingerprint(host_key)})"
            )
        return Session(keys=keys, me=None, names=list(names) if names else None)
    if kind == "m" and isinstance(body, bytes) and session is not None:
        accepted = len(session.chain.archive)
        events = session.receive(body)
        if len(session.chain.archive) > accepted:  # (a message it refused is not the match's)
            onlooker.on_message(body)  # (first: a listener may read the messages so far, this one included)
        for event in events:
            onlooker.on_event(session.view, event)
        return session
    return session


def finished(session: Session | None) -> bool:
    """Whether a watched match came to its end (its result, every audit done; or a fault)."""
    return session is not None and (session.finished or session.fault is not None)
