"""Networked play with trio: a thin shell around the sans-IO channel and session.

Topology: the host listens; every other peer connects to it. After each secure handshake the host
sends the lobby (every peer's key and name, and its index) over the channel; then match messages
flow. The host relays each peer's match messages to the others, but integrity never depends on it:
every match message is signed by its author and checked by every receiver.

One reader task per connection feeds one inbox; a single loop owns the session, so the session is
never touched concurrently: a :class:`~p2pgenius.net.match_loop.MatchLoop`, built once the session
exists (the host has gathered its players, a joiner has been seated, a crashed peer has read its
files back), and which therefore never asks whether there is one.

:class:`Peer` holds who this peer is and how it plays (its fields, which its caller may set until
it hosts, joins or plays), and hands each job to its own object:

* ``host``: :class:`~p2pgenius.net.host.Host`, the host's side (the lobby, the terms, the door);
* ``joiner``: :class:`~p2pgenius.net.joiner.Joiner`, a joiner's (the handshake, the lobby followed);
* ``party``: :class:`~p2pgenius.net.party.Party`, what both sides share, which plays the match in
  a :class:`MatchLoop` once its session exists (also for a match read back from its files);
* ``connection``, ``links``, ``pins``, ``lobby``, ``reconnect``, ``clocks``, ``files``: a secure
  channel, the match's connections, the keys met before, the lobby's two sides, the ways back in,
  the deadlines, the files on disk;
* ``events``: what the peer tells a screen (``notify``), each with the line it says (``say``).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Unpack

import trio

from p2pgenius.errors import LocalMisuseError, PeerGoneError
from p2pgenius.net import DEFAULT_GRACE_S
from p2pgenius.net.connection import HANDSHAKE_TIMEOUT_S, READ_BYTES, Connection, Item, Kind
from p2pgenius.net.events import NetEvent, Notify, ignore, lobby_text
from p2pgenius.net.files import Files
from p2pgenius.net.host import Host, Hosted, Seating
from p2pgenius.net.joiner import Expected, Joiner, WrongHostError
from p2pgenius.net.links import Links
from p2pgenius.net.lobby import LOBBY_FIELDS, Joining, Lobby, LocalPlayer, Member
from p2pgenius.net.match_loop import Ask, Decide, MatchLoop, Report
from p2pgenius.net.overdue import overdue
from p2pgenius.net.party import Doors, Party, Playing, warm_now
from p2pgenius.net.pins import Pins
from p2pgenius.net.reconnect import WayBack
from p2pgenius.net.spectators import Spectators
from p2pgenius.protocol.clocks import LAG_FLOOR_S, MAX_ALLOWANCE_S, PING_S, Clocks
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.machine import MatchMachine
from p2pgenius.protocol.overdue import Times
from p2pgenius.protocol.session import Session, SessionView
from p2pgenius.protocol.transcript import header
from p2pgenius.protocol.transcript import records as read_records

__all__ = [
    "HANDSHAKE_TIMEOUT_S",
    "LAG_FLOOR_S",
    "LOBBY_FIELDS",
    "MAX_ALLOWANCE_S",
    "PING_S",
    "READ_BYTES",
    "Ask",
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
    "WrongHostError",
    "lobby_text",
    "warm_now",
]


@dataclass
class Peer:
    """One peer of a networked match: its settings, and the side it plays (:meth:`host`,
    :meth:`join`, or :meth:`resume` then :meth:`play`)."""

    identity: Identity
    name: str
    files: Files
    decide: Decide
    report: Report
    say: Callable[[str], None]
    grace_s: float = DEFAULT_GRACE_S
    pin_dir: Path | None = None
    session: Session | None = None  # the match's, once a side has one (a screen reads it)
    links: Links = field(default_factory=Links)  # the match's connections; the host relays
    address: str = ""  # recorded in the transcript so that a crashed peer can come back
    relay: str = ""  # a joiner that came through a relay: its HOST:PORT (resume calls there at once)
    reconnect: Callable[[], Awaitable[trio.abc.Stream]] | None = None  # a joiner's way back
    confirm: Callable[[Mapping[str, Any]], Awaitable[bool]] | None = None  # agree to a lobby
    listener: trio.abc.Listener[trio.abc.Stream] | None = None  # a resumed host's door
    notify: Notify = ignore  # the network layer's events, as data (a screen's status line)
    asks: Ask | None = None  # a person plays the first seat: told what it is asked, it answers by offer
    agreed: dict[str, Any] | None = None  # a joiner: what the terms must carry (the lobby it agreed to)
    watched: bool = False  # a host: its lobby admitted spectators (a resumed host admits them again)
    expect_key: bytes | None = None  # a joiner's host key known in advance (an invite): pinned exactly
    expect_from: str = "the invite"  # where expect_key came from, in words ("the announcement")
    token: bytes | None = None  # the invite's seat token: a host's to hand out, a joiner's to show
    invite_only: bool = False  # a host: seat no caller without the token
    bot: str | None = None  # the level of the bot at this peer's seats ("": its game's default)
    expect_name: str | None = None  # a joiner: the host's name as its announcement gave it
    wrong_host: Callable[[], None] = lambda: None  # a joiner: the host that answered last had another key
    _clocks: Clocks = field(default_factory=lambda: Clocks(trio.current_time), repr=False)  # (across loops)
    decide_early: bool = False  # let ``decide`` choose for the next stage when the game allows
    settle_at_once: bool = False  # a sealed choice stands as soon as it is made (bots: no minute)
    considers_proposals: bool = False  # a person hosts: a player's proposal waits for its answer
    linger: bool = False  # after the end, keep the table open for chat until the others leave
    _side: Host | Joiner | None = None  # the side being played (its lobby, then its match)
    _party: Party | None = None  # what the side plays with (its loop, while the match is played)
    _resumed_stage: tuple[int, float] | None = None  # a resumed peer: (stage, began), from its note
    _kept: Times | None = None  # a resumed peer: when its files said the match was last at

    loop_type: ClassVar[type[MatchLoop]] = MatchLoop
    machine_type: ClassVar[type[MatchMachine]] = MatchMachine
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

    @property
    def pins(self) -> Pins:
        """The keys this peer met before (``pin_dir``)."""
        return Pins(self.pin_dir)

    @property
    def connections(self) -> list[Connection]:
        """The match's connections (the links' own list)."""
        return self.links.connections

    @property
    def lobby(self) -> Lobby | None:
        """The host's lobby, while it gathers players (None otherwise)."""
        return self._side.lobby if isinstance(self._side, Host) else None

    @property
    def joining(self) -> Joining | None:
        """A joiner's side of the lobby, until the start (None otherwise)."""
        return self._side.joining if isinstance(self._side, Joiner) else None

    @property
    def loop(self) -> MatchLoop | None:
        """The loop of the match being played (None before it and after it)."""
        return None if self._party is None else self._party.loop

    def _make_party(self) -> Party:
        """What this peer's side plays with, from its settings as they are now."""
        player = LocalPlayer(self.identity, self.name, self.pins, self.tell, self.bot)
        playing = Playing(
            self.decide,
            self.report,
            self.grace_s,
            asks=self.asks,
            decide_early=self.decide_early,
            settle_at_once=self.settle_at_once,
            linger=self.linger,
            loop_type=self.loop_type,
            machine_type=self.machine_type,
        )
        return Party(
            player, self.address, self.files, self.links, self._clocks, self.say, playing, self._began
        )

    @contextlib.contextmanager
    def _playing(self, party: Party, side: Host | Joiner | None = None) -> Iterator[None]:
        """While a side (or a match read back from its files) is played: the lobby and the loop
        that :meth:`propose`, :meth:`offer`, :meth:`settle` and :meth:`chat` reach. Let go after:
        the party refers back to this peer, and a peer dropped after a failed join must close
        its connection at once (by reference counting), not at the next garbage collection."""
        self._side, self._party = side, party
        try:
            yield
        finally:
            self._side = self._party = None

    def _way_back(self) -> WayBack | None:
        """A joiner's way back to its host (None: its caller gave none)."""
        if self.reconnect is None:
            return None
        return WayBack(self.reconnect, self.address, self.grace_s, self.wrong_host)

    # -- the sides ---------------------------------------------------------------------------

    async def host(self, listener: trio.abc.Listener[trio.abc.Stream], **table: Unpack[Hosted]) -> None:
        """Hold the lobby until ``peers - 1`` players have joined and said they are ready, then
        propose the match and play it (``table``: what is offered, see :class:`Hosted`)."""
        seating = Seating(self.token, self.invite_only, self.considers_proposals)
        party = self._make_party()
        side = Host(party, seating)
        with self._playing(party, side):
            await side.run(listener, table)

    async def join(self, stream: trio.abc.Stream, *, seats: Sequence[int] = ()) -> None:
        """Handshake with the host, say we are ready (claiming ``seats``), follow the lobby until
        the match starts, and play (see :class:`~p2pgenius.net.joiner.Joiner`)."""
        expected = Expected(self.expect_key, self.expect_from, self.expect_name)
        party = self._make_party()
        side = Joiner(party, expected, token=self.token, confirm=self.confirm, way_back=self._way_back())
        with self._playing(party, side):
            await side.run(stream, seats)

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
        self.watched = meta.get("role") == "host" and meta.get("spectators") is True
        self._resumed_stage = self.files.stage_began()
        with contextlib.suppress(OSError):  # (when the files were last written: what it owes is
            # late from then, at the latest; no file, no such judgement)
            self._kept = Times(self._resumed_stage, self.files.transcript.stat().st_mtime)
        return dict(meta)

    def forget_the_pause(self) -> None:
        """After :meth:`resume`: play on as if no time had passed while no process played (a
        match against bots on one machine stopped whole, every clock with it): the stage begins
        again here, and nothing is judged late from when the files were last written."""
        self._resumed_stage = self._kept = None

    async def play(self) -> None:
        """Play on the match read back by :meth:`resume`, to its end (or a fault): a host with
        its door (``listener``) open again, a joiner finding its host (``reconnect``). Raises
        LocalMisuseError if there is no match to play (resume first)."""
        session = self.session
        if session is None:
            raise LocalMisuseError("there is no match yet: host, join or resume one first")
        resumed, self._resumed_stage = self._resumed_stage, None
        party = self._make_party()
        async with trio.open_nursery() as watching:
            # A host's door takes watchers again as its lobby did (the header says whether),
            # and tells one of a match that admits none so, not that it started without it.
            spectators = None
            if self.listener is not None:
                spectators = Spectators(watching, lambda: session, self.say, allowed=self.watched)
            late = overdue(session, self._kept, self.grace_s)
            doors = Doors(self.listener, self._way_back(), spectators, restarted=True, overdue=late)
            with self._playing(party):
                await party.play(session, doors, resumed_stage=resumed)
            if spectators is not None:
                await spectators.finish()
            watching.cancel_scope.cancel()

    async def _began(self, session: Session, role: str, kept: Mapping[str, Any]) -> None:
        """A side has its session: a screen may read it now, and the match's files begin
        (``kept``: what the header keeps besides, see :data:`~p2pgenius.net.party.Began`)."""
        self.session, self.agreed = session, kept.get("expected")
        self.watched = kept.get("spectators") is True
        await self._start_transcript(role)

    async def _start_transcript(self, role: str) -> None:
        """Begin the match's files; the header says how to come back (and, for a joiner, what
        the terms must carry; for a host, that it admits spectators). A test's dishonest peer
        wraps its session here."""
        if self.session is None:
            raise LocalMisuseError("there is no match yet: host, join or resume one first")
        meta: dict[str, Any] = {"role": role, "address": self.address, "name": self.name}
        # When the match began here, in UTC (for a reader: export's Date; nothing checks it).
        meta["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        if self.agreed is not None:
            meta["expected"] = self.agreed
        if self.watched:
            meta["spectators"] = True
        if self.relay:
            meta["relay"] = self.relay
        self.files.start(header(self.session.keys, self.session.me, **meta))

    # -- in the lobby, and while the match is played (from outside the loop) ---------------------

    def propose(self, options: dict[str, bool]) -> bool:
        """Propose options in the lobby (fast turns): a host takes them up at once (every player
        then agrees again); a joiner's go with its ready, for the host to take up. False when
        there is no lobby to propose in (or the host does not take such options)."""
        if self.lobby is not None:
            return self.lobby.propose(options)
        if self.joining is not None and not self.joining.sent:
            self.joining.proposal = dict(options)
            return True
        return False

    def decline_proposal(self) -> bool:
        """A host lets a player's proposal go (the table starts with its options)."""
        return self.lobby is not None and self.lobby.decline()

    def offer(self, number: int, seat: int, action: Mapping[str, Any] | None) -> None:
        """The person's decision for ``seat`` at stage ``number`` (what ``asks`` said it is asked;
        or a change of mind about a sealed choice while its time runs), handed in as a bot's is:
        to the machine's one entry for decisions. Ignored unless the match is being played; one
        for a stage that has moved on meanwhile (a timeout, say) is not taken."""
        self._hand_in(Item(Kind.DECIDED, None, (number, seat, action)))

    def settle(self, number: int, seat: int) -> None:
        """Let a local seat's sealed choice of stage ``number`` stand now, before its minute is
        up (like :meth:`offer`): the turn resolves as soon as every choice stands."""
        self._hand_in(Item(Kind.SETTLE, None, (number, seat)))

    @property
    def chat_open(self) -> bool:
        """Whether a chat line would reach the table now (the match is on, or over and the table
        still open: see ``linger``)."""
        return self.loop is not None

    def chat(self, text: str) -> None:
        """Say something to the table (like :meth:`offer`)."""
        self._hand_in(Item(Kind.CHAT, None, text))

    def _hand_in(self, item: Item) -> None:
        """What the person hands in, to the match's inbox (nothing while no match is played)."""
        if self.loop is not None:
            self.loop.inbox.put(item)

    def clock_readings(self) -> dict[int, tuple[str, float, bool]]:
        """Every seat's clock as this peer shows it: (kind, seconds left, running)."""
        return {} if self.session is None else self._clocks.readings(self.session)

    # -- what the person running this peer is told -------------------------------------------

    def tell(self, event: NetEvent, *, quiet: bool = False) -> None:
        """Tell the person running this peer: ``notify`` gets the event as data, ``say`` its line
        (``quiet``: the caller says that line itself)."""
        self.notify(event)
        if not quiet:
            self.say(event.text)
