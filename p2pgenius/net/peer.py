"""Networked play with trio: a thin shell around the sans-IO channel and session.

Topology: the host listens; every other peer connects to it. After each secure handshake the host
sends the lobby (every peer's key and name, and its index) over the channel; then match messages
flow. The host relays each peer's match messages to the others, but integrity never depends on it:
every match message is signed by its author and checked by every receiver.

One reader task per connection feeds one inbox; a single loop owns the session, so the session is
never touched concurrently: a :class:`~p2pgenius.net.match_loop.MatchLoop`, which the peer builds
once the session exists (the host has gathered its players, a joiner has been seated, a crashed
peer has read its files back), and which therefore never asks whether there is one.

:class:`Peer` holds who this peer is and how it plays, runs the lobby's side of a match, then the
loop, and composes the rest, one module a concern:

* ``match_loop``: :class:`MatchLoop`, the match played (deciders, deadlines, relaying, flushing);
* ``connection``: :class:`Connection`, a secure channel over a trio stream, with its pings;
* ``links``: :class:`~p2pgenius.net.links.Links`, the match's connections and the host's relaying;
* ``pins``: :class:`~p2pgenius.net.pins.Pins`, the keys met before, checked and pinned in one place;
* ``lobby``: the host's :class:`~p2pgenius.net.lobby.Lobby` and a joiner's wait for the start;
* ``reconnect``: :class:`~p2pgenius.net.reconnect.Reconnection`, the ways back into a match;
* ``clocks``: :class:`~p2pgenius.net.clocks.Clocks`, the deadlines, warnings and pings;
* ``files``: :class:`Files`, the transcript and secrets on disk;
* ``events``: what the peer tells a screen (``notify``), each with the line it says (``say``).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, NotRequired, TypedDict, Unpack

import trio

from p2pgenius.canonical import encode
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.net import DEFAULT_GRACE_S
from p2pgenius.net.clocks import LAG_FLOOR_S, MAX_ALLOWANCE_S, PING_S, Clocks
from p2pgenius.net.connection import HANDSHAKE_TIMEOUT_S, READ_BYTES, Connection, Item, PeerGoneError
from p2pgenius.net.events import Listening, NetEvent, Notice, Notify, Reconnecting, ignore, lobby_text
from p2pgenius.net.files import Files
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.net.lobby import LOBBY_FIELDS, Joining, Lobby, Member
from p2pgenius.net.match_loop import Decide, MatchLoop, Report
from p2pgenius.net.pins import Pins
from p2pgenius.net.reconnect import Reconnection, WayBack
from p2pgenius.net.spectators import Spectators
from p2pgenius.protocol.channel import Established, SecureChannel
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.session import Session, SessionView
from p2pgenius.protocol.transcript import header
from p2pgenius.protocol.transcript import records as read_records
from p2pgenius.threads import off_loop, settle_heap

__all__ = [
    "HANDSHAKE_TIMEOUT_S",
    "LAG_FLOOR_S",
    "LOBBY_FIELDS",
    "MAX_ALLOWANCE_S",
    "PING_S",
    "READ_BYTES",
    "Connection",
    "Decide",
    "Files",
    "Hosted",
    "Item",
    "MatchLoop",
    "Member",
    "Peer",
    "PeerGoneError",
    "Report",
    "lobby_text",
]


class Hosted(TypedDict):
    """What a host offers (:meth:`Peer.host`): the game, its options and setup, how many peers
    play (``peers``, the host among them), the seats the host claims, and whether watchers may
    come (``spectators``: the lobby shows them every player)."""

    game: str
    options: Mapping[str, Any]
    setup: Mapping[str, Any]
    peers: int
    seats: NotRequired[Sequence[int]]
    spectators: NotRequired[bool]


class WrongHostError(IdentityError):
    """The host that answered at an address has another key than the invite (or announcement)
    names: a joiner says so and tries the invite's other addresses."""


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
    session: Session | None = None
    links: Links = field(default_factory=Links)  # the match's connections; the host relays
    address: str = ""  # recorded in the transcript so that a crashed peer can come back
    reconnect: Callable[[], Awaitable[trio.abc.Stream]] | None = None  # a joiner's way back
    confirm: Callable[[Mapping[str, Any]], Awaitable[bool]] | None = None  # agree to a lobby
    listener: trio.abc.Listener[trio.abc.Stream] | None = None  # a host's door, kept open
    notify: Notify = ignore  # the network layer's events, as data (a screen's status line)
    agreed: dict[str, Any] | None = None  # a joiner: what the terms must carry (the lobby it agreed to)
    expect_key: bytes | None = None  # a joiner's host key known in advance (an invite): pinned exactly
    spectators: Spectators | None = None  # a host's watchers (``host(spectators=True)``)
    expect_from: str = "the invite"  # where expect_key came from, in words ("the announcement")
    token: bytes | None = None  # the invite's seat token: a host's to hand out, a joiner's to show
    invite_only: bool = False  # a host: seat no caller without the token
    bot: str | None = None  # the level of the bot at this peer's seats ("": its game's default)
    expect_name: str | None = None  # a joiner: the host's name as its announcement gave it
    wrong_host: Callable[[], None] = lambda: None  # a joiner: the host that answered last had another key
    _clocks: Clocks = field(default_factory=Clocks, repr=False)  # kept across a match's loops
    decide_ahead: bool = False  # let ``decide`` choose for the next stage when the game allows
    settle_at_once: bool = False  # a sealed choice stands as soon as it is made (bots: no minute)
    considers_proposals: bool = False  # a person hosts: a player's proposal waits for its answer
    linger: bool = False  # after the end, keep the table open for chat until the others leave
    _beside: list[Callable[[], Awaitable[None]]] = field(default_factory=list)  # run beside play
    _lobby: Lobby | None = None  # a host's, while it gathers players
    _joining: Joining | None = None  # a joiner's, until the start
    _loop: MatchLoop | None = None  # while the match is played
    _told_listening: bool = False
    _resumed_stage: tuple[int, float] | None = None  # a resumed peer: (stage, began), from its note

    loop_type: ClassVar[type[MatchLoop]] = MatchLoop
    """The loop this peer plays its matches in (a test's misbehaving peer plays in another)."""

    async def __aenter__(self) -> Peer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        with trio.CancelScope(shield=True):
            await self.aclose()

    async def aclose(self) -> None:
        """Close every connection and the match's files (the lock on them stays its holder's)."""
        await self.links.aclose()
        self.files.close()

    @property
    def view(self) -> SessionView | None:
        """The match as a screen or a report may read it (None before there is one)."""
        return None if self.session is None else self.session.view

    def _match(self) -> Session:
        """The session of the match at hand (LocalMisuseError before there is one: host, join or
        resume first)."""
        if self.session is None:
            raise LocalMisuseError("there is no match yet: host, join or resume one first")
        return self.session

    @property
    def pins(self) -> Pins:
        """The keys this peer met before (``pin_dir``)."""
        return Pins(self.pin_dir)

    @property
    def connections(self) -> list[Connection]:
        """The match's connections (the links' own list)."""
        return self.links.connections

    # -- connecting ------------------------------------------------------------------------

    def check_expected(self, key: bytes) -> None:
        """Refuse a host whose key is not the one an invite (or an announcement) named
        (IdentityError)."""
        if self.expect_key is not None and key != self.expect_key:
            raise WrongHostError(
                f"the host's key is not the one {self.expect_from} names: {self.expect_from} names "
                f"{fingerprint(self.expect_key)}, the host at this address has {fingerprint(key)}. "
                "Someone may be in the middle; do not play, and ask your friend for a fresh invite"
            )

    async def host(self, listener: trio.abc.Listener[trio.abc.Stream], **table: Unpack[Hosted]) -> None:
        """Hold the lobby until ``peers - 1`` players have joined and said they are ready, then
        propose the match and play it (``table``: what is offered, see :class:`Hosted`)."""
        async with trio.open_nursery() as watching:
            self.spectators = Spectators(
                nursery=watching,
                allowed=table.get("spectators", False),
                session=lambda: self.session,
                say=self.report_line,
            )
            lobby = Lobby(
                self.identity,
                self.name,
                tell=self.tell,
                pins=self.pins,
                spectators=self.spectators,
                considers=self.considers_proposals,
                game=table["game"],
                options=table["options"],
                setup=table["setup"],
                peers=table["peers"],
                seats=table.get("seats", ()),
                token=self.token,
                invite_only=self.invite_only,
                bot=self.bot,
            )
            warmed = warm_soon(watching, table["game"])  # (while the players come)
            self._lobby = lobby
            try:
                await self._host(listener, lobby, watching, warmed)
            finally:
                self._lobby = None
            await self.spectators.finish()
            watching.cancel_scope.cancel()

    async def _host(
        self,
        listener: trio.abc.Listener[trio.abc.Stream],
        lobby: Lobby,
        nursery: trio.Nursery,
        warmed: trio.Event,
    ) -> None:
        self._tell_listening(again=False)
        members = await lobby.gather(listener)
        keys = [self.identity.public] + [m.key for m in members]
        names = [self.name] + [m.name for m in members]
        claims = [list(lobby.seats)] + [m.claim or [] for m in members]
        for index, member in enumerate(members, start=1):
            # A player whose connection died this instant is bound by its signed ready: it may
            # come back (the door stays open to the match's players) or forfeit its coin share.
            with contextlib.suppress(PeerGoneError):
                await member.connection.send(encode(["lobby", lobby.view(index, start=True)]))
            self.links.add(member.connection, index)
        # Pinning writes (and syncs) the pins file: in a worker thread, beside the match (the
        # terms need not wait for it).
        nursery.start_soon(self._admit, keys, names)
        await warmed.wait()
        session = self.session = Session(keys=keys, me=0, identity=self.identity, names=names)
        self.listener = listener
        await self._start_transcript("host")
        session.setup.propose(
            lobby.game,
            options=lobby.options,
            setup=lobby.setup,
            claims=claims,
            salt=lobby.salt,
            readies=[None] + [m.ready for m in members],
        )
        await self.play()

    async def join(self, stream: trio.abc.Stream, *, seats: Sequence[int] = ()) -> None:
        """Handshake with the host, say we are ready (claiming ``seats``), follow the lobby until
        the match starts, and play. The host's table comes in its handshake message; a joiner
        that need not ask anyone (no ``confirm``) says it is ready with its last one."""
        joining = Joining(
            self.identity,
            self.name,
            seats,
            confirm=self.confirm,
            tell=self.tell,
            check_host=self._check_host,
            check_peer=self.pins.check,
            bot=self.bot,
        )
        connection = Connection(
            stream, SecureChannel(initiator=True, identity=self.identity, hello=self.hello())
        )
        self._joining = joining
        try:
            established = await connection.handshake(prepare=partial(joining.greeted, connection))
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        self.links.add(connection)
        # The game is in the host's hello: warm it up now, while the host's answer to our ready
        # is on its way (it waits in the socket meanwhile).
        hello_game = established.peer_hello.get("game")
        await warm(str(hello_game))
        try:
            lobby, expected, behind = await joining.await_start(connection)
        finally:
            self._joining = None
        if lobby["game"] != hello_game:
            await warm(lobby["game"])
        host = ([established.peer_key], [str(established.peer_hello.get("name"))])
        self._beside.append(partial(self._admit, *host))
        self.session = Session(
            keys=lobby["keys"],
            me=lobby["you"],
            identity=self.identity,
            names=lobby["names"],
            expected=expected,
            coin=joining.nonce,
        )
        self.agreed = expected
        await self._start_transcript("join")
        # Our coin share is committed (in our ready) before the terms come: on disk now, so that a
        # crash before the terms does not leave us unable to open it (and so forfeit).
        self.files.append(self.files.secrets, [encode(["coin", joining.nonce])])
        # Whatever came in the same read as the start (the terms, often) goes first.
        await self.play(first=[(connection, extra) for extra in behind])

    async def _admit(self, keys: Sequence[bytes], names: Sequence[str]) -> None:
        """Pin the keys of the match's players (it writes and syncs a file: in a worker thread,
        beside the match, which need not wait for it); a failure is said, and changes nothing."""
        try:
            await off_loop(partial(self.pins.admit, keys, names, own=self.identity.public))
        except (P2PGeniusError, OSError) as exc:
            self.tell(Notice(f"the players' keys were not pinned: {exc}"))

    def propose(self, options: dict[str, bool]) -> bool:
        """Propose options in the lobby (fast turns): a host takes them up at once (every player
        then agrees again); a joiner's go with its ready, for the host to take up. False when
        there is no lobby to propose in (or the host does not take such options)."""
        if self._lobby is not None:
            return self._lobby.propose(options)
        if self._joining is not None and not self._joining.sent:
            self._joining.proposal = dict(options)
            return True
        return False

    def decline_proposal(self) -> bool:
        """A host lets a player's proposal go (the table starts with its options)."""
        return self._lobby is not None and self._lobby.decline()

    def hello(self) -> dict[str, Any]:
        """A joiner's hello: its name, the invite's seat token if it has one (it leaves only once
        the host has proved it holds the key the invite names), and its bot's level if a bot
        plays its seats."""
        hello: dict[str, Any] = {"name": self.name}
        if self.token is not None:
            hello["token"] = self.token
        if self.bot is not None:  # (informative: shown beside the name in the lobby)
            hello["bot"] = self.bot
        return hello

    def _check_host(self, host: Established) -> None:
        """The host, as soon as its hello is read: the invite's key, if any, and the pins."""
        self.check_expected(host.peer_key)
        name = self.pins.name_of(host)
        if self.expect_name is not None and name != self.expect_name:
            raise PeerGoneError(
                f"the host calls itself {name!r}, but its announcement said {self.expect_name!r}: not joining"
            )

    def resume(self, transcript: bytes, secrets: bytes) -> dict[str, Any]:
        """Rebuild the session of a crashed match from its files; returns the transcript's
        header (role, address, name) so the caller can reconnect the right way."""
        records = list(read_records(transcript))
        meta = records[0][2]
        if meta["peers"][meta["me"]] != self.identity.public:
            raise PeerGoneError("this transcript belongs to another identity")
        self.session = Session.restore(
            identity=self.identity, transcript=records, secrets=list(read_records(secrets, headed=False))
        )
        self.name = meta.get("name", self.name)
        self.address = meta.get("address", "")
        self._resumed_stage = self.files.stage_began()
        return dict(meta)

    async def _start_transcript(self, role: str) -> None:
        """Begin the match's files; the header says how to come back (and, for a joiner, what
        the terms must carry)."""
        session = self._match()
        meta: dict[str, Any] = {"role": role, "address": self.address, "name": self.name}
        # When the match began here, in UTC (for a reader: export's Date; nothing checks it).
        meta["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        if self.agreed is not None:
            meta["expected"] = self.agreed
        self.files.start(header(session.keys, session.me, **meta))

    def _tell_listening(self, *, again: bool) -> None:
        # The caller that opened the door says where (it knows the address it bound).
        self._told_listening = True
        self.tell(Listening(self.address, again=again), quiet=True)

    # -- playing ---------------------------------------------------------------------------

    async def play(self, first: Sequence[tuple[Connection, bytes]] = ()) -> None:
        """Run the match to its end (or a fault) in a :class:`MatchLoop`; ``first``: payloads
        already read. Raises LocalMisuseError if there is no match to play (host, join or
        resume first)."""
        session = self._match()
        try:
            await self._play(session, first)
        finally:
            self.files.close()
            self.files.release()

    async def _play(self, session: Session, first: Sequence[tuple[Connection, bytes]]) -> None:
        session.courier.defer_audit = True  # (judged in a worker thread: the loop's audit)
        if session.terms is not None:
            await warm(session.terms["game"])
        self._clocks.start(session)
        async with trio.open_nursery() as nursery:
            loop = self._loop = self._match_loop(session, nursery, Inbox[Item](nursery))
            self._open_doors(nursery, loop.reconnection)
            try:
                await loop.run(first)
            finally:
                self._loop = None  # (nothing said from now on reaches anyone)
            nursery.cancel_scope.cancel()
        await self.links.aclose()

    def _match_loop(self, session: Session, nursery: trio.Nursery, inbox: Inbox[Item]) -> MatchLoop:
        """The loop that plays ``session``, and its ways back in (see ``reconnect``)."""
        way_back = None
        if self.reconnect is not None:
            way_back = WayBack(self.reconnect, self.address, self.grace_s, self.wrong_host)
        reconnection = Reconnection(
            session,
            self.links,
            inbox,
            nursery,
            identity=self.identity,
            name=self.name,
            pins=self.pins,
            tell=self.tell,
            came_back=self._clocks.came_back,
            spectators=self.spectators,
            way_back=way_back,
        )
        resumed, self._resumed_stage = self._resumed_stage, None
        return self.loop_type(
            session,
            nursery,
            inbox,
            reconnection,
            self.files,
            self.links,
            self._clocks,
            self.decide,
            self.report,
            self.tell,
            self.grace_s,
            spectators=self.spectators,
            decide_ahead=self.decide_ahead,
            settle_at_once=self.settle_at_once,
            linger=self.linger,
            resumed_stage=resumed,
        )

    def _open_doors(self, nursery: trio.Nursery, reconnection: Reconnection) -> None:
        """What runs beside the match loop: the jobs queued for it, a host's door for players
        coming back, and a restarted joiner's way back to its host."""
        for job in self._beside:
            nursery.start_soon(job)
        self._beside.clear()
        if self.listener is not None:
            if not self._told_listening:  # a restarted host
                self._tell_listening(again=True)
            nursery.start_soon(reconnection.welcome_back, self.listener)
        if self.reconnect is not None and not self.links:
            # A restarted joiner finds its host again (the caller said where it goes).
            self.tell(Reconnecting(self.address), quiet=True)
            reconnection.come_back_soon()

    def offer(self, seat: int, action: Mapping[str, Any] | None) -> None:
        """A decision for a local seat from outside the ``decide`` callback (a terminal UI; a
        change of mind about a sealed choice while its time runs): ignored unless the match is
        being played."""
        if self._loop is not None:
            self._loop.offer(seat, action)

    def settle(self, seat: int) -> None:
        """Let a local seat's sealed choice stand now, before its minute is up (from outside the
        loop, like :meth:`offer`): the turn resolves as soon as every choice stands."""
        if self._loop is not None:
            self._loop.settle(seat)

    @property
    def chat_open(self) -> bool:
        """Whether a chat line would reach the table now (the match is on, or over and the table
        still open: see ``linger``)."""
        return self._loop is not None

    def chat(self, text: str) -> None:
        """Say something to the table (from outside the loop, like :meth:`offer`)."""
        if self._loop is not None:
            self._loop.chat(text)

    def clock_readings(self) -> dict[int, tuple[str, float, bool]]:
        """Every seat's clock as this peer shows it: (kind, seconds left, running)."""
        return {} if self.session is None else self._clocks.readings(self.session)

    # -- what the person running this peer is told -------------------------------------------

    def tell(self, event: NetEvent, *, quiet: bool = False) -> None:
        """Tell the person running this peer: ``notify`` gets the event as data, ``say`` its line
        (``quiet``: the caller says that line itself)."""
        self.notify(event)
        if not quiet:
            self.report_line(event.text)

    def report_line(self, text: str) -> None:
        """A line for the person running this peer."""
        self.say(text)


async def warm(game: str) -> None:
    """Load what the game's engine loads once (the Magic Square's index of every square, say) in
    a worker thread, before the match needs it on the event loop; then set what is loaded aside
    from the garbage collector (:func:`p2pgenius.threads.settle_heap`). An unknown game: nothing
    to load (the lobby or the terms refuse it)."""
    with contextlib.suppress(P2PGeniusError):
        await off_loop(get_spec(game).warm)
    settle_heap()


def warm_soon(nursery: trio.Nursery, game: str) -> trio.Event:
    """:func:`warm` in the background; the event is set once it is done."""
    done = trio.Event()

    async def warming() -> None:
        try:
            await warm(game)
        finally:
            done.set()

    nursery.start_soon(warming)
    return done
