"""Coming back to a match under way: a joiner that lost its host connects again and again for as
long as the match is on; a host keeps its door open for the players of its match. Either way the two
sides then exchange how many messages of each author they hold, and send what the other lacks
(``sync``), before the connection joins the match loop.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import KW_ONLY, dataclass, field
from typing import Final, NoReturn, TypeVar

import trio

from p2pgenius.errors import P2PGeniusError, PeerGoneError
from p2pgenius.net.addresses import ConnectError
from p2pgenius.net.connection import HANDSHAKE_TIMEOUT_S, Connection, Item, why
from p2pgenius.net.door import Door
from p2pgenius.net.events import PeerBack, Reconnected, Reconnecting, Refused, Tell
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.net.pins import Pins
from p2pgenius.net.spectators import Spectators, caller_name, is_spectator
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session

RETRY_S: Final = 15.0
"""How often a joiner tries to reach its host again once the grace period has passed."""

T = TypeVar("T")


async def sync(session: Session, connection: Connection, *, speak_first: bool) -> list[bytes]:
    """Exchange how many messages of each author each side holds; send what the other lacks.
    Returns what arrived right behind the other's sync, to be handled first."""
    if speak_first:
        await connection.send(wire.sync(list(session.signed_log.counts)))
    theirs: list[int] | None = None
    behind: list[bytes] = []
    with trio.fail_after(HANDSHAKE_TIMEOUT_S):
        while theirs is None:
            for payload in await connection.receive():
                message = wire.parse(payload)
                if isinstance(message, wire.Malformed) and message.flaw is wire.Flaw.BYTES:
                    raise PeerGoneError(f"a malformed message while resyncing: {message.reason}")
                if theirs is not None:
                    behind.append(payload)
                else:
                    theirs = _counts(message, len(session.keys))
    missing = session.signed_log.missing_for(theirs)
    # Anything accepted from now until the connection is adopted (even while the sends below
    # wait) must not fall between this snapshot and the broadcasts that will include it.
    connection.caught_up = session.signed_log.taken
    if not speak_first:
        await connection.send(wire.sync(list(session.signed_log.counts)))
    for raw in missing:
        await connection.send(wire.match_message(raw))
    return behind


def _counts(message: wire.Parsed, peers: int) -> list[int] | None:
    """The other side's counts if ``message`` is its sync (None: something else, ignored while
    its sync is awaited). Raises PeerGoneError on a sync that is malformed or not one count per
    peer."""
    if isinstance(message, wire.Sync) and len(message.counts) == peers:
        return list(message.counts)
    if message.kind == wire.Sync.KIND:
        raise PeerGoneError("a malformed sync")
    return None


def failed_call(exc: BaseException) -> str:
    """Why a call to the host failed, in words (a first connection's advice, "is the host
    running...?", is no help to one calling again)."""
    return why(exc).split(": ", 1)[0] if isinstance(exc, ConnectError) else why(exc)


async def call_again(
    call: Callable[[], Awaitable[T]],
    tried: Callable[[str], None],
    *,
    often_until: float,
    until: float,
) -> T:
    """What ``call`` gives once it answers, called again and again as a joiner calls its host
    again: each second until ``often_until`` (trio's clock), then every RETRY_S; each call that
    fails is told to ``tried`` (why, and when the next comes: a status, updated in place, not a
    line of the log). Past ``until``, PeerGoneError says for how long nobody answered, and the
    last reason (a spectator's way back: one that watches is waited for by nobody, and gives up
    in time)."""
    began = trio.current_time()
    while True:
        try:
            return await call()
        except (OSError, PeerGoneError, trio.TooSlowError) as exc:
            reason, now = failed_call(exc), trio.current_time()
            if now >= until:
                raise PeerGoneError(
                    f"the host could not be reached again for {now - began:.0f} s ({reason})"
                ) from None
            every = 1.0 if now < often_until else RETRY_S
            tried(f"{reason}; trying again every {every:.0f} s")
            await trio.sleep(min(every, until - now))


@dataclass(frozen=True)
class WayBack:
    """A joiner's way back to its host: ``connect`` opens a stream to where the host was
    (``address``, in words), tried for as long as the match is on (``grace_s``: the first tries
    come each second, for that long; then less often); ``wrong_host`` is told when another key
    answered there (the next try skips that address)."""

    connect: Callable[[], Awaitable[trio.abc.Stream]]
    address: str
    grace_s: float
    wrong_host: Callable[[], None]


@dataclass(eq=False)
class Arrivals:
    """Players' connections back, held before the match loop runs (a resumed peer that missed a
    deadline of its own plays on only once it has reached another player): each as adopted,
    its player's index at the host and what came behind its sync; ``came`` is set at the first."""

    held: list[tuple[Connection, int | None, list[bytes]]] = field(default_factory=list)
    came: trio.Event = field(default_factory=trio.Event)


@dataclass(eq=False)  # (one object per match: equal only to itself)
class Reconnection:
    """The ways back into a match while it is played: new connections are greeted and read in
    ``nursery``, join ``links`` and what they bring goes to the match loop's ``inbox``.

    It is given what it uses, nothing more: the session (read to resync), who this peer is
    (``identity`` and ``name``, for the handshake), its ``pins``, ``tell`` (news for the person),
    ``came_back`` (the clocks judge the players who came back from now on), the host's
    ``spectators`` (a watcher may knock mid-match) and a joiner's ``way_back``."""

    session: Session
    links: Links
    inbox: Inbox[Item]
    nursery: trio.Nursery
    _: KW_ONLY
    identity: Identity
    name: str
    pins: Pins
    tell: Tell
    came_back: Callable[[Iterable[int]], None]
    spectators: Spectators | None = None
    way_back: WayBack | None = None
    arrivals: Arrivals | None = None  # while set, a connection back is held there, not read
    _away: dict[int, float] = field(default_factory=dict)  # a host: when each player away went

    def _channel(self, *, initiator: bool) -> SecureChannel:
        return SecureChannel(initiator=initiator, identity=self.identity, hello={"name": self.name})

    def come_back_soon(self) -> None:
        """A restarted joiner: find its host again, in the background (a host, with no way back,
        waits at its door instead)."""
        if self.way_back is not None:
            self.nursery.start_soon(self.come_back, self.way_back, False)

    def lost(self, index: int | None) -> None:
        """The connection to ``index`` closed mid-match (a joiner's: its host's): a host notes
        when, to say how long its player was away once it is back; a joiner finds its host
        again, in the background."""
        if index is not None:
            self._away.setdefault(index, trio.current_time())
        if self.way_back is not None:
            self.nursery.start_soon(self.come_back, self.way_back, True)

    async def come_back(self, way: WayBack, lost: bool = True) -> None:
        """A joiner that lost the host (``lost``; else restarted): connect again and again
        ``way``, for as long as the match is on (a player away owes only what it owes, and its
        clock runs on: it is not gone). Each second for the grace period, then every RETRY_S.
        Each try updates the status (quietly: the log has one line when the connection was lost
        and one when it is back, however many tries it takes)."""
        session = self.session
        began = trio.current_time()
        often_until, attempt = began + way.grace_s, 0
        while not session.finished and session.fault is None:
            attempt += 1
            try:
                connection, behind = await self._call(way)
            except (OSError, PeerGoneError, trio.TooSlowError) as exc:
                now = trio.current_time()
                pause = 1.0 if now < often_until else RETRY_S
                reason = f"{failed_call(exc)}; trying again every {pause:.0f} s"
                self.tell(Reconnecting(way.address, reason, attempt, now - began), quiet=True)
                await trio.sleep(pause)
                continue
            away = trio.current_time() - began
            self.tell(Reconnected(away, attempt) if lost else Reconnected())
            self.came_back(p for p in range(len(session.keys)) if p != session.me)
            self.adopt(connection, index=None, behind=behind)
            return

    async def _call(self, way: WayBack) -> tuple[Connection, list[bytes]]:
        """One call to the host: its connection, resynced, and what came behind its sync."""
        session = self.session
        stream = await way.connect()
        connection = Connection(stream, self._channel(initiator=True))
        established = await connection.handshake()
        if established.peer_key != session.keys[0]:
            way.wrong_host()  # (the next try skips that address)
            await connection.aclose()
            raise PeerGoneError("another host answered at that address")
        return connection, await sync(session, connection, speak_first=True)

    async def welcome_back(self, listener: trio.abc.Listener[trio.abc.Stream]) -> None:
        """A host keeps its door open: a peer of this match may come back after losing its
        connection or restarting. Each caller is greeted in its own task, so a slow or hostile
        one cannot keep the door shut."""
        await Door(listener).serve(self.nursery, self.greet_again)

    async def greet_again(
        self, stream: trio.abc.Stream, shown_key: Callable[[], None] = lambda: None
    ) -> None:
        """A caller at a host's door mid-match: a player of this match is let back in."""
        session = self.session
        connection = Connection(stream, self._channel(initiator=False))
        try:
            established = await connection.handshake()
            shown_key()
            if is_spectator(established) and self.spectators is not None:
                self.spectators.admit(connection, caller_name(established))
                return
            if is_spectator(established):  # (a watcher is no player: told why it is turned away)
                await _refuse(connection, "this match does not admit spectators")
            if established.peer_key not in session.keys[1:]:
                await _refuse(connection, "the match has started without you", "not a player of this match")
            self.pins.name_of(established)
            behind = await sync(session, connection, speak_first=False)
        except (P2PGeniusError, trio.TooSlowError) as exc:
            self.tell(Refused(why(exc)))
            await connection.aclose()
            return
        except trio.Cancelled:  # (the match's door closed first: cut, not left open)
            await trio.aclose_forcefully(connection)
            raise
        index = session.keys.index(established.peer_key)
        went = self._away.pop(index, None)
        self.tell(PeerBack(session.names[index], None if went is None else trio.current_time() - went))
        self.came_back([index])
        self.adopt(connection, index=index, behind=behind)

    def adopt(self, connection: Connection, *, index: int | None, behind: list[bytes]) -> None:
        """Make a resynced connection one of the match's (``index``: the player it carries, at
        the host): send what was accepted meanwhile, queue what came behind its sync, and read
        it in the match loop. The player's connection it comes in place of is closed: left open,
        its reader read on, and a player coming back again and again held one more each time.
        While ``arrivals`` is set, the connection is held there instead, for the loop to take."""
        if self.arrivals is not None:
            self.arrivals.held.append((connection, index, behind))
            self.arrivals.came.set()
            return
        replaced = self.links.via.get(index) if index is not None else None
        self.links.add(connection, index)
        if replaced is not None and replaced is not connection:
            self.nursery.start_soon(_close, replaced)  # (its reader then says it is gone: a no-op)
        # What was accepted while we were resyncing, queued at once (nothing the loop sends can
        # come between), for the connection's own writer from now on, as the loop's messages.
        connection.start(self.nursery)
        with contextlib.suppress(PeerGoneError):  # (given up already: its reader says so)
            for raw in self.session.signed_log.taken_since(connection.caught_up):
                connection.post(wire.match_message(raw))
        # What came behind its sync goes first, in order, before anything the reader picks up.
        self.nursery.start_soon(connection.messages, self.inbox, behind)


async def _refuse(connection: Connection, reason: str, said: str | None = None) -> NoReturn:
    """Tell a caller why it is turned away (``said``: what this host is told, if not that)."""
    with contextlib.suppress(PeerGoneError):
        await connection.send(wire.refused(reason))
    raise PeerGoneError(said or reason)


async def _close(connection: Connection, within_s: float = 1.0) -> None:
    with trio.move_on_after(within_s), contextlib.suppress(OSError, trio.BrokenResourceError):
        await connection.aclose()
