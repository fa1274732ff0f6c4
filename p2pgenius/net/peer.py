"""Networked play with trio: a thin shell around the sans-IO channel and session.

Topology: the host listens; every other peer connects to it. After each secure handshake the host
sends the lobby (every peer's key and name, and its index) over the channel; then match messages
flow. The host relays each peer's match messages to the others, but integrity never depends on it:
every match message is signed by its author and checked by every receiver.

One reader task per connection feeds one inbox; a single loop owns the session, so the session is
never touched concurrently. After every call into the session, :meth:`Peer._flush` appends the
transcript records and secrets to disk first, then sends.

:class:`Peer` runs that loop (deciding, relaying) and composes the rest, one module a concern:

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
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Final

import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.net import DEFAULT_GRACE_S
from p2pgenius.net.clocks import LAG_FLOOR_S, MAX_ALLOWANCE_S, PING_S, STALL_PINGS, Clocks, Deadline
from p2pgenius.net.connection import HANDSHAKE_TIMEOUT_S, READ_BYTES, Connection, Item, Kind, PeerGoneError
from p2pgenius.net.events import (
    ConnectionLost,
    DecisionRefused,
    Listening,
    NetEvent,
    Notice,
    Notify,
    OutOfTime,
    Reconnecting,
    ignore,
    lobby_text,
)
from p2pgenius.net.files import Files
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.net.lobby import LOBBY_FIELDS, Joining, Lobby, Member, check_lobby
from p2pgenius.net.pins import Pins
from p2pgenius.net.reconnect import Reconnection, WayBack
from p2pgenius.net.spectators import Spectators
from p2pgenius.protocol.channel import Established, SecureChannel
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.session import AuditDue, Event, Session, SessionView
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
    "Item",
    "Member",
    "Peer",
    "PeerGoneError",
    "Report",
    "lobby_text",
    "open_peer",
]

Decide = Callable[[SessionView, int], Awaitable[Mapping[str, Any] | None]]
"""Chooses an action for a local seat (None: let an optional action pass)."""
Report = Callable[[SessionView, Event], None]
"""Shows a session event to the person running this peer."""


MAX_REFUSED: Final = 5
"""Refused decisions for one seat and stage before its decider is given the game's timeout."""


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
    _inbox: Inbox[Item] | None = None  # the match loop's, while it runs
    _nursery: trio.Nursery | None = None
    _clocks: Clocks = field(default_factory=Clocks, repr=False)
    _reconnection: Reconnection | None = None  # while playing
    decide_ahead: bool = False  # let ``decide`` choose for the next stage when the game allows
    settle_at_once: bool = False  # a sealed choice stands as soon as it is made (bots: no minute)
    considers_proposals: bool = False  # a person hosts: a player's proposal waits for its answer
    linger: bool = False  # after the end, keep the table open for chat until the others leave
    _deciding: dict[tuple[int, int], trio.CancelScope] = field(default_factory=dict)  # (stage, seat)
    _not_ahead: set[tuple[int, int]] = field(default_factory=set)  # (stage, seat): refused ahead
    _beside: list[Callable[[], Awaitable[None]]] = field(default_factory=list)  # run beside play
    _lobby: Lobby | None = None  # a host's, while it gathers players
    _joining: Joining | None = None  # a joiner's, until the start
    _refused: dict[tuple[int, int], int] = field(default_factory=dict)  # (stage, seat) -> times
    _told_listening: bool = False
    _resumed_stage: tuple[int, float] | None = None  # a resumed peer: (stage, began), from its note

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

    @property
    def pins(self) -> Pins:
        """The keys this peer met before (``pin_dir``)."""
        return Pins(self.pin_dir)

    @property
    def connections(self) -> list[Connection]:
        """The match's connections (the links' own list)."""
        return self.links.connections

    # -- connecting ------------------------------------------------------------------------

    def channel(self, *, initiator: bool, hello: Mapping[str, Any]) -> SecureChannel:
        """A fresh channel carrying our identity."""
        return SecureChannel(initiator=initiator, identity=self.identity, hello=hello)

    def check_expected(self, key: bytes) -> None:
        """Refuse a host whose key is not the one an invite (or an announcement) named
        (IdentityError)."""
        if self.expect_key is not None and key != self.expect_key:
            raise WrongHostError(
                f"the host's key is not the one {self.expect_from} names: {self.expect_from} names "
                f"{fingerprint(self.expect_key)}, the host at this address has {fingerprint(key)}. "
                "Someone may be in the middle; do not play, and ask your friend for a fresh invite"
            )

    async def host(
        self,
        listener: trio.abc.Listener[trio.abc.Stream],
        *,
        game: str,
        options: Mapping[str, Any],
        setup: Mapping[str, Any],
        peers: int,
        seats: Sequence[int] = (),
        spectators: bool = False,
    ) -> None:
        """Hold the lobby until ``peers - 1`` players have joined and said they are ready, then
        propose the match and play it (``spectators``: admit read-only watchers, as the lobby
        shows every player)."""
        async with trio.open_nursery() as watching:
            self.spectators = Spectators(
                nursery=watching, allowed=spectators, session=lambda: self.session, say=self.report_line
            )
            lobby = Lobby(
                self.identity,
                self.name,
                tell=self.tell,
                pins=self.pins,
                spectators=self.spectators,
                considers=self.considers_proposals,
                game=game,
                options=options,
                setup=setup,
                peers=peers,
                seats=seats,
                token=self.token,
                invite_only=self.invite_only,
                bot=self.bot,
            )
            warmed = self._warm_soon(watching, game)  # (while the players come)
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
        self.session = Session(keys=keys, me=0, identity=self.identity, names=names)
        self.listener = listener
        await self._start_transcript("host")
        self.session.propose(
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
        connection = Connection(stream, self.channel(initiator=True, hello=self.hello()))
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
        await self._warm(str(hello_game))
        try:
            lobby, expected, behind = await joining.await_start(connection)
        finally:
            self._joining = None
        if lobby["game"] != hello_game:
            await self._warm(lobby["game"])
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

    @staticmethod
    async def _warm(game: str) -> None:
        """Load what the game's engine loads once (the Magic Square's index of every square, say)
        in a worker thread, before the match needs it on the event loop; then set what is loaded
        aside from the garbage collector (:func:`p2pgenius.threads.settle_heap`)."""
        with contextlib.suppress(P2PGeniusError):
            await off_loop(get_spec(game).warm)
        settle_heap()

    def _warm_soon(self, nursery: trio.Nursery, game: str) -> trio.Event:
        """:meth:`_warm` in the background; the event is set once it is done."""
        done = trio.Event()

        async def warm() -> None:
            try:
                await self._warm(game)
            finally:
                done.set()

        nursery.start_soon(warm)
        return done

    def _check_host(self, host: Established) -> None:
        """The host, as soon as its hello is read: the invite's key, if any, and the pins."""
        self.check_expected(host.peer_key)
        name = self.pins.name_of(host)
        if self.expect_name is not None and name != self.expect_name:
            raise PeerGoneError(
                f"the host calls itself {name!r}, but its announcement said {self.expect_name!r}: not joining"
            )

    def _check_lobby(self, payload: bytes, host_key: bytes) -> dict[str, Any]:
        """A lobby message from the host, checked; raises PeerGoneError on a refusal or junk."""
        return check_lobby(payload, host_key, self.identity.public)

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
        assert self.session is not None
        meta: dict[str, Any] = {"role": role, "address": self.address, "name": self.name}
        # When the match began here, in UTC (for a reader: export's Date; nothing checks it).
        meta["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        if self.agreed is not None:
            meta["expected"] = self.agreed
        self.files.start(header(self.session.keys, self.session.me, **meta))

    def _tell_listening(self, *, again: bool) -> None:
        # The caller that opened the door says where (it knows the address it bound).
        self._told_listening = True
        self.tell(Listening(self.address, again=again), quiet=True)

    # -- playing ---------------------------------------------------------------------------

    async def play(self, first: Sequence[tuple[Connection, bytes]] = ()) -> None:
        """Run the match to its end (or a fault); ``first``: payloads already read.

        One loop owns the session. Local players decide in their own tasks (so messages, chat
        and clocks go on while someone thinks) and hand their decisions to the loop; between
        items the loop keeps the clocks: its own seats' timeouts, claims against other seats,
        forfeits after the grace period, the game's warnings on round clocks, and pings."""
        try:
            await self._play(first)
        finally:
            self.files.close()
            self.files.release()

    async def _play(self, first: Sequence[tuple[Connection, bytes]]) -> None:
        session = self.session
        assert session is not None
        session.courier.defer_audit = True  # (judged in a worker thread: _audit_if_due)
        if session.terms is not None:
            await self._warm(session.terms["game"])
        self._clocks.start(session)
        async with trio.open_nursery() as nursery:
            inbox = Inbox[Item](nursery)
            await self._open_table(nursery, inbox, first)
            await self._flush()
            while not session.finished and session.fault is None:
                self._follow_stage()
                item: Item | None = None
                with trio.move_on_at(self._clocks.next_deadline(self._deadlines())):
                    item = await inbox.receive()
                if item is not None:  # (handled outside the deadline: a send is never cut short)
                    await self._on_item(item)
                else:
                    await self._on_time()
            if self.linger and session.finished:
                await self._after_the_end(inbox)
            self._inbox = None  # (nothing said from now on reaches anyone)
            nursery.cancel_scope.cancel()
        self._reconnection = None
        await self.links.aclose()

    async def _open_table(
        self,
        nursery: trio.Nursery,
        inbox: Inbox[Item],
        first: Sequence[tuple[Connection, bytes]],
    ) -> None:
        """Start what runs beside the match loop: a reader per connection (``first``: payloads
        already read, each handed in by its connection's reader before what it reads), the ways
        back in, the jobs queued to run beside play."""
        self._inbox, self._nursery = inbox, nursery
        reconnection = self._reconnection = self._ways_back(inbox, nursery)
        for connection in self.links:
            ahead = [payload for read_on, payload in first if read_on is connection]
            nursery.start_soon(connection.messages, inbox, ahead)
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

    async def _after_the_end(self, inbox: Inbox[Item]) -> None:
        """The match is over: the table stays open for chat ("gg") until every other player has
        left (or this one does: its caller cancels the match's task)."""
        while self.links:
            item = await inbox.receive()
            if item.kind in (Kind.MSG, Kind.CHAT):
                await self._on_item(item)
            elif item.kind is Kind.GONE and item.connection is not None and self.links.drop(item.connection):
                self.tell(Notice("a player left the table"), quiet=not self.links)
        self.tell(Notice("everyone else has left: the chat has closed"))

    def _ways_back(self, inbox: Inbox[Item], nursery: trio.Nursery) -> Reconnection:
        """How connections come back into this match (see ``reconnect``)."""
        assert self.session is not None
        way_back = None
        if self.reconnect is not None:
            way_back = WayBack(self.reconnect, self.address, self.grace_s, self.wrong_host)
        return Reconnection(
            self.session,
            self.links,
            inbox,
            nursery,
            identity=self.identity,
            name=self.name,
            pins=self.pins,
            tell=self.tell,
            came_back=self.came_back,
            spectators=self.spectators,
            way_back=way_back,
        )

    async def _on_item(self, item: Item) -> None:
        kind, connection, data = item
        if kind is Kind.MSG and connection is not None:
            await self._on_payload(connection, *data)
        elif kind is Kind.HEARD:  # a ping, or the answer to ours (``data``: its round trip)
            if data is not None:
                self._clocks.round_trip(data)
        elif kind is Kind.GONE and connection is not None:
            await self._gone(connection)
        elif kind is Kind.SETTLE:
            await self._settle(*data)
        elif kind is Kind.CHAT:
            session = self.session
            assert session is not None
            try:
                session.chat(data)
            except P2PGeniusError as exc:
                self.tell(Notice(str(exc)))
            await self._flush()
        elif kind is Kind.DECIDED:  # a local decision
            await self._decided(*data)

    def offer(self, seat: int, action: Mapping[str, Any] | None) -> None:
        """A decision for a local seat from outside the ``decide`` callback (a terminal UI; a
        change of mind about a sealed choice while its time runs)."""
        session = self.session
        if self._inbox is not None and session is not None and session.stage is not None:
            self._inbox.put(Item(Kind.DECIDED, None, (session.stage.number, seat, action)))

    def settle(self, seat: int) -> None:
        """Let a local seat's sealed choice stand now, before its minute is up (from outside the
        loop, like :meth:`offer`): the turn resolves as soon as every choice stands."""
        session = self.session
        if self._inbox is not None and session is not None and session.stage is not None:
            self._inbox.put(Item(Kind.SETTLE, None, (session.stage.number, seat)))

    async def _settle(self, number: int, seat: int) -> None:
        session = self.session
        assert session is not None
        if session.stage is None or session.stage.number != number or seat not in session.unsettled():
            return  # (the turn moved on, or the choice stands already)
        session.finalize(seat)
        await self._flush()

    @property
    def chat_open(self) -> bool:
        """Whether a chat line would reach the table now (the match is on, or over and the table
        still open: see ``linger``)."""
        return self._inbox is not None

    def chat(self, text: str) -> None:
        """Say something to the table (from outside the loop, like :meth:`offer`)."""
        if self._inbox is not None:
            self._inbox.put(Item(Kind.CHAT, None, text))

    # -- deciding ----------------------------------------------------------------------------

    def _away(self, number: int) -> float:
        """Seconds stage ``number`` had run here before this process resumed it (0 for any
        other stage, or a clock that went back): this peer's own seats' clocks go on from
        there, as the other peers' did, rather than give the time already spent back."""
        if self._resumed_stage is None or self._resumed_stage[0] != number:
            return 0.0
        return max(time.time() - self._resumed_stage[1], 0.0)

    def _follow_stage(self) -> None:
        """Notice a new stage: note when it began here and start the local deciders."""
        session = self.session
        assert session is not None and self._nursery is not None
        number = session.stage.number if session.stage is not None else -1
        away, self._resumed_stage = self._away(number), None
        if self._clocks.follow(number, away):
            self.files.note_stage(number, time.time() - away)
        wanted = {(number, seat) for seat in session.awaiting()}
        if self.decide_ahead:  # (a choice for the next stage, where the game allows one now)
            wanted |= {(number + 1, seat) for seat in session.ahead()} - self._not_ahead
        for key, scope in list(self._deciding.items()):
            if key not in wanted:
                scope.cancel()
                del self._deciding[key]
        for key in sorted(wanted - self._deciding.keys()):
            scope = self._deciding[key] = trio.CancelScope()
            self._nursery.start_soon(self._decider, *key, scope)

    async def _decider(self, number: int, seat: int, scope: trio.CancelScope) -> None:
        session = self.session
        assert session is not None
        with scope:
            refused = self._refused.get((number, seat), 0)
            if refused:  # asked again after a refusal: not at once (a bot would spin)
                await trio.sleep(min(0.05 * 2**refused, 2.0))
            view = session.view
            if session.stage is not None and number > session.stage.number:
                view = view.next() or view  # chosen ahead, from the state it will be made in
            action = await self.decide(view, seat)
            if self._inbox is not None:  # (None: the match ended while it was deciding)
                self._inbox.put(Item(Kind.DECIDED, None, (number, seat, action)))

    async def _decided(self, number: int, seat: int, action: Mapping[str, Any] | None) -> None:
        session = self.session
        assert session is not None
        stage = session.stage
        if stage is not None and number == stage.number + 1 and action is not None:
            await self._decided_ahead(number, seat, action)
            return
        if stage is None or stage.number != number or session.finished or session.fault is not None:
            return  # too late: the stage moved on (a timeout, say)
        if seat not in session.awaiting() and seat not in session.unsettled():
            return
        view = session.clocks().get(seat)
        ms = int(self._clocks.own_elapsed() * 1000)
        if seat in stage.optional:
            ms, view = 0, None  # a challenge window is not on the clock
        try:
            if view is not None and ms >= view.left_ms:
                self.tell(OutOfTime(seat))
                session.time_out(seat)
            elif action is None:
                session.decline(seat, ms=ms)
            else:
                session.submit(seat, action, ms=ms)
                if seat in session.unsettled() and (self.settle_at_once or stage.waiting == (seat,)):
                    # A bot does not change its mind; nor is there anything to wait for when this
                    # seat is the only one choosing (a Paralysis's hand): its choice stands now.
                    session.finalize(seat)
        except P2PGeniusError as exc:
            self._refused_decision(number, seat, exc)
        await self._flush()

    def _refused_decision(self, number: int, seat: int, exc: P2PGeniusError) -> None:
        """The session refused a local decision: say so, and ask again (a decider that keeps
        choosing what the rules refuse, a broken bot, gets the game's timeout instead of being
        asked for ever)."""
        assert self.session is not None
        self.tell(DecisionRefused(seat, str(exc)))
        refused = self._refused[(number, seat)] = self._refused.get((number, seat), 0) + 1
        if refused >= MAX_REFUSED:
            self.tell(Notice(f"p{seat}: {refused} choices refused in a row; the rules' timeout is played"))
            with contextlib.suppress(P2PGeniusError):
                self.session.time_out(seat)
        elif (number, seat) in self._deciding:
            self._deciding.pop((number, seat)).cancel()  # ask again, with a fresh decider

    async def _decided_ahead(self, number: int, seat: int, action: Mapping[str, Any]) -> None:
        """A choice for the next stage, made while this one is still open (see
        ``Session.ahead``); refused, the seat is simply asked again once that stage opens."""
        session = self.session
        assert session is not None
        if seat not in session.ahead():
            return
        try:
            session.submit_ahead(seat, action)
        except P2PGeniusError as exc:
            self.tell(DecisionRefused(seat, str(exc)))
            self._not_ahead.add((number, seat))  # asked again once that stage opens, not before
            self._deciding.pop((number, seat), None)
            return
        await self._flush()

    # -- clocks (p2pgenius.net.clocks) -------------------------------------------------------

    def clock_readings(self) -> dict[int, tuple[str, float, bool]]:
        """Every seat's clock as this peer shows it: (kind, seconds left, running)."""
        return {} if self.session is None else self._clocks.readings(self.session)

    def came_back(self, peers: Iterable[int]) -> None:
        """The connection to ``peers`` came back: their time is judged from now on this stage."""
        self._clocks.came_back(peers)

    def allowance(self) -> float:
        """How late another seat may be before it is claimed to have run out: network lag
        (capped, so a peer cannot buy time by answering pings late)."""
        return self._clocks.allowance()

    def _deadlines(self) -> list[Deadline]:
        """(when, what, seat, detail) for every clock event still to come at this stage."""
        assert self.session is not None
        return self._clocks.deadlines(self.session, self.grace_s)

    async def _on_time(self) -> None:
        """A deadline passed: do what is due, in time order."""
        session = self.session
        assert session is not None
        if self._clocks.ping_due():
            await self.links.ping(stalled_after=STALL_PINGS)
        if self._clocks.act(session, self._deadlines(), self.grace_s, self.tell):
            await self._flush()

    def _on_clock_event(self, event: Event, at: float | None = None) -> None:
        """Timeout claims about our seats answered, disputes of our claims heeded, and other seats'
        declared times checked against what we saw pass until ``at`` (when the message that
        carried it was read: a busy loop does not make it later; None: now)."""
        if self.session is not None:
            self._clocks.answer_claim(self.session, event, self.tell)
            self._clocks.check_declared(self.session, event, self.tell, at)

    # -- messages (relaying) -----------------------------------------------------------------

    async def _on_payload(self, connection: Connection, payload: bytes, now: float) -> None:
        """A payload read at ``now`` (in trio's clock) on ``connection``."""
        session = self.session
        assert session is not None
        self.files.note(f"<- {payload.hex()}")
        try:
            kind, raw = decode(payload)
        except (EncodingError, ValueError, TypeError):
            kind, raw = "", payload
        if kind != "m" or not isinstance(raw, bytes):
            self.tell(Notice("a peer sent something that is not a match message (ignored)"))
            return
        if session.me == 0:  # relay to the others; each checks the author's signature itself
            await self.links.relay(payload, connection)
        before = list(session.chain.next_seq)
        for event in session.receive(raw):
            self.report(session.view, event)
            self._on_clock_event(event, now)
            await self._audit_if_due(event)
        self._clocks.progressed(before, session.chain.next_seq, now)
        hashed = _hash_of(raw)
        if (
            hashed is not None
            and hashed[0] < len(before)
            and session.chain.next_seq[hashed[0]] > before[hashed[0]]
        ):
            self._clocks.hashed(*hashed, now)
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
            self.files.note(f"-> {payload.hex()}")
            await self.links.broadcast(payload)
        if self.spectators is not None:
            self.spectators.feed()  # (queued, never waited for)
        for event in session.take_events():
            self.report(session.view, event)
            self._on_clock_event(event)
            await self._audit_if_due(event)
        if session.courier.flushing.messages or session.courier.flushing.records:
            await self._flush()  # accepting a claim sent something more

    async def _audit_if_due(self, event: Event) -> None:
        """Every audit is in: judge it in a worker thread (it replays the whole match, tens of
        milliseconds), so that nothing on the event loop takes long; the verdict is given back
        here, on the loop, where the session is touched."""
        session = self.session
        if not isinstance(event, AuditDue) or session is None:
            return
        verdict = await off_loop(session.played.ending.audit_verdict)
        session.played.ending.conclude_audit(verdict)
        await self._flush()

    async def _gone(self, connection: Connection) -> None:
        """A connection closed. The match waits: a joiner tries to come back; a host keeps its
        door open; a peer that stays away past the grace period forfeits."""
        session = self.session
        assert session is not None
        if not self.links.drop(connection):
            return  # (one replaced by a player's new connection: nothing is lost)
        if session.finished or session.fault is not None:
            return
        index = 0 if session.me != 0 else self.links.index_of(connection)
        away = [p for p in range(len(session.keys)) if p != session.me] if session.me != 0 else [index]
        self._clocks.went_away(p for p in away if p is not None)
        self.tell(ConnectionLost(index))
        if self.reconnect is not None and self._reconnection is not None:
            self._reconnection.come_back_soon()

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


@contextlib.asynccontextmanager
async def open_peer(
    identity: Identity,
    name: str,
    files: Files,
    decide: Decide,
    report: Report,
    say: Callable[[str], None],
    **options: Any,
) -> AsyncIterator[Peer]:
    """A :class:`Peer` (``options``: its other fields, by name) whose connections and files are
    closed however the block ends: the way to run one.

    ``async with open_peer(identity, "ann", files, bots.decide, report, print) as peer:
    await peer.join(stream)``"""
    async with Peer(identity, name, files, decide, report, say, **options) as peer:
        yield peer


def _hash_of(raw: bytes) -> tuple[int, int] | None:
    """(author, stage) if ``raw`` is a ``hash`` message (for the clocks: how long its author
    took to apply the stage), else None."""
    try:
        envelope = decode(raw)
        author, body = envelope[2], envelope[5]
    except (EncodingError, LookupError, TypeError, ValueError):
        return None
    if isinstance(body, list) and len(body) == 3 and body[0] == "hash" and type(body[1]) is int:
        return (author, body[1]) if type(author) is int and author >= 0 else None
    return None
