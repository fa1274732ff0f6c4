"""The lobby: before a match, the host greets players as they come, shows everyone who is there
and takes their seat claims; a joiner follows the host's lobby, agrees to the terms once and
waits for the start.

The lobby travels inside the handshake where it can (SPEC section 4a): the host's second
handshake message carries the table as it stands (with the table's ``salt``), so a joiner that
agrees at once (a bot, or a player who said yes beforehand) sends its signed ``ready`` with its
committed coin share right behind its last handshake message. The host's later lobby messages list
every peer's key and name, their claims and readiness, the terms, and ``you`` (the receiver's
index); a joiner checks all of it.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import math
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any, Final, NotRequired, TypedDict

import trio

from p2pgenius.errors import LocalMisuseError, P2PGeniusError, PeerGoneError
from p2pgenius.games.catalog import find
from p2pgenius.games.registry import get_spec, names
from p2pgenius.net.connection import Connection, why
from p2pgenius.net.door import Door, address_of
from p2pgenius.net.events import (
    LobbyShown,
    Notify,
    OptionsChanged,
    OptionsProposed,
    PeerJoined,
    PeerLeft,
    PeerReady,
    ProposalsIgnored,
    Refused,
    TableShown,
    Tell,
)
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.keystore import check_name
from p2pgenius.net.pins import Pins
from p2pgenius.net.spectators import Spectators, caller_name, is_spectator
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.bodies import NONCE_LEN
from p2pgenius.protocol.channel import Established, SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import printable
from p2pgenius.protocol.session import claims_problem
from p2pgenius.protocol.session.setup import make_ready, ready_problem

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
    "salt",
)
AGREED: Final = ("game", "options", "setup", "host claim", "salt", "spectators")
"""What a joiner agrees to when it says it is ready, and holds the host to."""
READY_S: Final = 60.0
"""How long a caller without the invite's seat token may stay in the lobby without saying it is
ready (a person reads the table and answers; a squatter is shown the door)."""
INVITED_READY_S: Final = 600.0
"""The same for a caller with the token (a friend who was sent the invite)."""
MAX_UNREADY_PER_ADDRESS: Final = 2
"""Callers without the token, from one address (this machine's own excepted), that may wait in the
lobby unready at once."""
MAX_LEVEL: Final = 32
"""The longest bot level's name a hello may carry (it is only shown)."""
MAX_UNREADY_MESSAGES: Final = 8
"""Messages a caller may send the host before it says it is ready, counted afresh whenever the
options change (the reference joiner sends its ready, maybe with a proposal, and nothing else); a
caller that sends more floods the lobby and is shown the door."""


class DeclinedError(PeerGoneError):
    """The person said no to the host's table: this peer left the lobby, and no match was
    played (the person's own choice, told as such, not as an error)."""


DECLINED: Final = "you said no to the table: you left the lobby, and no match was played"


class LobbyKind(StrEnum):
    """What an item of the lobby's inbox is."""

    JOINED = "joined"  # a caller showed its key at the door: data its :class:`Caller`
    SAID = "said"  # a caller sent something: data its message (parsed once, where it was read)
    LEFT = "left"  # a caller's connection ended: data None
    OPTIONS = "options"  # the host's own answer to a proposal (no connection): data the options
    # to take up, or None to keep the table's


@dataclass(frozen=True, slots=True)
class LobbyItem:
    """One item of the lobby's inbox: its kind, the connection it came on (None: from this
    machine), and its data (see :class:`LobbyKind`)."""

    kind: LobbyKind
    connection: Connection | None
    data: Any


@dataclass(frozen=True, slots=True)
class Caller:
    """A caller that has shown its key at the host's door: its key and name, whether it showed
    the invite's seat token, where it called from, and its bot's level (as its hello said)."""

    key: bytes
    name: str
    invited: bool
    address: str
    bot: str | None


class Hosted(TypedDict):
    """What a host offers: the game, its options and setup, how many peers play (``peers``, the
    host among them), the seats the host claims, and whether watchers may come (``spectators``:
    the lobby shows them every player)."""

    game: str
    options: Mapping[str, Any]
    setup: Mapping[str, Any]
    peers: int
    seats: NotRequired[Sequence[int]]
    spectators: NotRequired[bool]


@dataclass(frozen=True)
class Seating:
    """Whom a host seats and how it hears them: the invite's seat token (its holders come before
    other callers), whether only they are seated, and whether a person hosts (a player's
    proposal then waits for its answer)."""

    token: bytes | None = None
    invite_only: bool = False
    considers: bool = False


@dataclass(frozen=True)
class LocalPlayer:
    """This peer at a table, as the host's lobby and a joiner's both need it: who it is, the level
    of the bot at its seats (None: a person; "": its game's default), the keys it met before, and
    how its person is told."""

    identity: Identity
    name: str
    pins: Pins
    tell: Tell
    bot: str | None = None


def proposal_of(message: wire.Parsed, game: str) -> dict[str, bool] | None:
    """The options a message proposes (a ``propose``, or a ``ready``'s third element), if a host
    of ``game`` may take them up (None: it proposes nothing, or nothing this game has to
    propose about)."""
    proposed = wire.proposed(message)
    if proposed is None:
        return None
    return wire.proposal(proposed, sealed=get_spec(game).sealed)


@dataclass
class Member:
    """A player in the host's lobby: its connection and key, its name, its seat claim (None until
    it says it is ready)."""

    connection: Connection
    key: bytes
    name: str
    claim: list[int] | None = None
    ready: dict[str, Any] | None = None  # its signed ready: seats, coin commitment, signature
    invited: bool = False  # it showed the invite's seat token
    bot: str | None = None  # the level of the bot that plays its seats, as its hello said
    address: str = "?"  # where it called from (host part)
    since: float = 0.0  # when it came in (trio clock)
    said: int = 0  # messages since it was last asked to say it is ready (see MAX_UNREADY_MESSAGES)
    proposed: set[tuple[str, bool]] = field(default_factory=set)  # option values it proposed
    kept_proposing: bool = False  # it proposed a value again, and the host's person was told so

    def ready_by(self) -> float:
        """When it must have said it is ready (trio clock)."""
        return self.since + (INVITED_READY_S if self.invited else READY_S)


def bot_of(hello: Mapping[str, Any]) -> str | None:
    """The bot level a caller's hello names (None: no bot said, or not a level's name: 1 to 32
    letters, digits and hyphens, or "" for its game's default)."""
    bot = hello.get("bot")
    if (
        isinstance(bot, str)
        and len(bot) <= MAX_LEVEL
        and all(c.isascii() and (c.isalnum() or c == "-") for c in bot)
    ):
        return bot
    return None


def level_words(game: str, level: object) -> str | None:
    """A bot level of ``game`` in words, "wizard (club)" (its name alone if ``game`` does not
    know it; None for no level: a person)."""
    if not isinstance(level, str):
        return None
    try:
        return find(game).level_words(level)
    except LocalMisuseError:  # (a game this peer does not have)
        return level or "its game's default"


def _default_level(game: object) -> str:
    """The name of ``game``'s default bot level ("" for a game this peer does not have)."""
    try:
        return find(game).described[0].name
    except LocalMisuseError:
        return ""


def agreed_of(lobby: Mapping[str, Any]) -> dict[str, Any]:
    """What a joiner agrees to in ``lobby``: the game, options, setup, the host's own seat claim
    and the table's salt."""
    agreed = {key: lobby[key] for key in ("game", "options", "setup", "salt")}
    watched = lobby.get("spectators") is True
    return {**agreed, "host claim": lobby["claims"][0], "host": lobby["keys"][0], "spectators": watched}


class Lobby:
    """The host's lobby for one match: what the host (``host``) offers (``hosted``: ``peers``
    peers, the host included, to play ``game``), and whom it seats (``seating``)."""

    def __init__(
        self,
        host: LocalPlayer,
        hosted: Hosted,
        seating: Seating = Seating(),
        *,
        spectators: Spectators | None = None,
        writers: trio.Nursery | None = None,
    ) -> None:
        self.identity = host.identity
        self.bot = host.bot  # the level of the host's own bot, if a bot plays its seats
        self.name = host.name
        self.tell = host.tell
        self.pins = host.pins
        self.spectators = spectators
        # Where the players' connections write (each its own writer): a nursery that outlives the
        # lobby, as they go on into the match (None: the lobby's own, for a lobby alone).
        self.writers = writers
        self.token = seating.token  # the invite's seat token: its holders come before other callers
        self.invite_only = seating.invite_only and seating.token is not None  # ...no one else seated
        self.game = hosted["game"]
        self.options = dict(hosted["options"])
        self.setup = dict(hosted["setup"])
        self.peers = hosted["peers"]
        self.seats = sorted(hosted.get("seats", ()))  # the host's own claim
        self.members: list[Member] = []
        self.salt = secrets.token_bytes(NONCE_LEN)  # this table's: in every lobby and the terms
        self._said: Inbox[LobbyItem] | None = None  # while gathering
        self.considers = seating.considers  # a person hosts: a proposal waits for its answer
        self.pending: dict[str, bool] | None = None  # a proposal waiting for it (the start waits)
        self.declined: set[tuple[str, bool]] = set()  # option values the host's person let go
        self.superseded: list[dict[str, Any]] = []  # what players agreed to before options changed

    def propose(self, options: dict[str, bool]) -> bool:
        """The host takes up options (its own, or a player's proposal): the table changes and
        every player says again whether it is ready. False if the lobby is not open, or the
        options are not ones a player may propose in this game."""
        if self._said is None or wire.proposal(options, sealed=get_spec(self.game).sealed) is None:
            return False
        self._said.put(LobbyItem(LobbyKind.OPTIONS, None, options))
        return True

    def decline(self) -> bool:
        """The host lets a player's proposal go: the table starts with the options it has."""
        if self._said is None or self.pending is None:
            return False
        self._said.put(LobbyItem(LobbyKind.OPTIONS, None, None))
        return True

    def view(self, you: int, *, start: bool = False) -> dict[str, Any]:
        """The lobby message for peer ``you``."""
        members = self.members
        return {
            "game": self.game,
            "options": dict(self.options),
            "setup": self.setup,
            "names": [self.name] + [m.name for m in members],
            "keys": [self.identity.public] + [m.key for m in members],
            "claims": [list(self.seats)] + [m.claim or [] for m in members],
            "ready": [True] + [m.claim is not None for m in members],
            "you": you,
            "needed": self.peers - 1 - len(members),
            "start": start,
            "salt": self.salt,
            "spectators": self.spectators is not None and self.spectators.allowed,
            "bots": [self._level(self.bot)] + [self._level(m.bot) for m in members],
        }

    def _level(self, bot: str | None) -> str | None:
        """A player's bot level by its name in this game (None: a person, as far as it said)."""
        if bot is None:
            return None
        return bot or _default_level(self.game)

    def greeting(self) -> dict[str, Any]:
        """The table as it stands, for the handshake's hello (the caller is not at it yet, so
        there is no ``you``)."""
        view = self.view(0)
        del view["you"]
        return view

    def agreed(self) -> dict[str, Any]:
        """What each joiner signs when it says it is ready (what it read in this lobby)."""
        return agreed_of(self.view(0))

    async def gather(self, listener: trio.abc.Listener[trio.abc.Stream]) -> list[Member]:
        """Greet players as they come, show everyone who is there, and take their seat claims
        and readiness; returns the members once the table is full and everyone is ready."""
        groups = get_spec(self.game).seat_groups(self.peers)
        async with trio.open_nursery() as nursery:
            said = self._said = Inbox[LobbyItem](nursery)
            greet = partial(self._greet, said, self.writers or nursery)
            nursery.start_soon(Door(listener).serve, nursery, greet)
            self.tell(TableShown(self.view(0)), quiet=True)  # (the host's board: how many it waits for)
            changed, backlog = False, None
            while True:
                # Shown once a batch: a caller that says ready in its handshake is "joined" and
                # "ready" at once, and a table that is now full and ready gets the start lobby
                # next (three lobbies in a row made a joiner's screen flicker).
                queued = said.items.statistics().current_buffer_used
                if changed and not queued and not self._complete():
                    self._show()
                    changed = False
                item: LobbyItem | None = None
                if self._complete():
                    # Full and ready: but a player may have left (or said something) at the same
                    # moment, so what waits now is taken first. Only that: a player that keeps
                    # talking (its reader refills the inbox as it empties) cannot hold the start.
                    backlog = queued if backlog is None else backlog
                    if not backlog:
                        break
                    backlog -= 1
                    item = said.items.receive_nowait()
                else:
                    backlog = None
                    with trio.move_on_at(self._ready_by()):
                        item = await said.items.receive()
                if item is None:  # someone took too long to say it is ready
                    self._drop_late()
                    changed = True
                    continue
                changed |= self._take(item, groups)
            nursery.cancel_scope.cancel()
        self._turn_away_the_rest(said)
        self._said = None
        return self.members

    def _turn_away_the_rest(self, said: Inbox[LobbyItem]) -> None:
        """Callers that came after the table was full and ready, still waiting in the inbox:
        turned away as at a full table (not left open with nobody reading them)."""
        while True:
            try:
                item = said.items.receive_nowait()
            except trio.WouldBlock:
                return
            connection = item.connection
            if item.kind is not LobbyKind.JOINED or connection is None:
                continue  # (a member's: after its ready, nothing it says before the start counts)
            if not any(m.connection is connection for m in self.members):
                self.tell(Refused("the table is full", item.data.name))
                _refuse(connection, "the table is full")

    async def _greet(
        self,
        said: Inbox[LobbyItem],
        writers: trio.Nursery,
        stream: trio.abc.Stream,
        shown_key: Callable[[], None],
    ) -> None:
        """A caller at the door: the handshake (our hello shows the table), then everything it
        says goes to the lobby's loop (``said``) until it leaves. The inbox is bounded: while it
        is full this waits and reads nothing, so TCP slows a caller that floods the lobby. What the
        lobby tells it goes through its connection's writer, in ``writers``: the lobby never
        waits for a caller that does not read."""
        tell, spectators = self.tell, self.spectators
        hello = {"name": self.name, "game": self.game, "lobby": self.greeting()}
        connection = Connection(stream, SecureChannel(initiator=False, identity=self.identity, hello=hello))
        try:
            established = await connection.handshake()
        except (P2PGeniusError, trio.TooSlowError) as exc:
            tell(Refused(why(exc)))
            await connection.aclose()
            return
        except trio.Cancelled:
            # The table filled and the lobby's door closed behind it while this caller was in
            # its handshake: cut, so it calls again (a watcher then comes in at the match's door).
            await trio.aclose_forcefully(connection)
            raise
        shown_key()
        if is_spectator(established) and spectators is not None:
            spectators.admit(connection, caller_name(established))
            return
        connection.start(writers)
        try:
            name = self.pins.name_of(established)
        except P2PGeniusError as exc:  # a known name with another key: say so, then close
            tell(Refused(str(exc)))
            _refuse(connection, str(exc))
            return
        token = established.peer_hello.get("token")
        invited = (
            self.token is not None and isinstance(token, bytes) and hmac.compare_digest(token, self.token)
        )
        bot = bot_of(established.peer_hello)
        caller = Caller(established.peer_key, name, invited, address_of(stream), bot)
        try:
            await said.send(LobbyItem(LobbyKind.JOINED, connection, caller))
        except trio.Cancelled:  # (the lobby closed before it took this caller: as above)
            await trio.aclose_forcefully(connection)
            raise
        try:
            while True:
                for payload in await connection.receive():
                    await said.send(LobbyItem(LobbyKind.SAID, connection, wire.parse(payload)))
        except PeerGoneError:
            await said.send(LobbyItem(LobbyKind.LEFT, connection, None))

    def _take(self, item: LobbyItem, groups: Sequence[Sequence[int]]) -> bool:
        """One thing that happened at the door or in the lobby; True if the table changed."""
        kind, connection, data = item.kind, item.connection, item.data
        if kind is LobbyKind.OPTIONS:
            return self._answered(data)
        if kind is LobbyKind.JOINED and connection is not None:
            return self._admit(connection, data)
        member = next((m for m in self.members if m.connection is connection), None)
        if member is None:
            return False  # (a caller already shown the door: what it still said changes nothing)
        if kind is LobbyKind.LEFT:
            self._remove(member)
            self.tell(PeerLeft(member.name))
            return True
        if self._flooding(member):
            return True
        if proposal := proposal_of(data, self.game):
            self._consider(member, proposal)
        if isinstance(data, wire.Propose):
            return False  # (a proposal alone: nothing else changes, whatever it proposes)
        if member.ready is not None:
            return False  # (a ready is said once; anything else before the start means nothing)
        return self._ready(member, data, groups)

    def _flooding(self, member: Member) -> bool:
        """Count a message from a member that has not said it is ready; one too many, and it is
        shown the door (True)."""
        if member.ready is not None:
            return False
        member.said += 1
        if member.said <= MAX_UNREADY_MESSAGES:
            return False
        self._drop(member, f"you sent more than {MAX_UNREADY_MESSAGES} messages without saying you are ready")
        return True

    def _ready(self, member: Member, message: wire.Parsed, groups: Sequence[Sequence[int]]) -> bool:
        """What a caller that has not said it is ready says: its ready, or it is shown the door
        (True: the table changed)."""
        if not isinstance(message, wire.Ready):
            self._drop(member, "a malformed ready message")
            return True
        ready = message.fields
        taken = [self.seats] + [m.claim or [] for m in self.members if m is not member]
        problem = ready_problem(member.key, ready, salt=self.salt, agreed=self.agreed()) or claims_problem(
            groups, [*taken, sorted(ready["seats"])]
        )
        if problem and self._stale(member, ready):
            return False  # (agreed to the table before its options changed: it is asked again)
        if problem:
            self._drop(member, problem)
            return True
        member.ready = ready
        member.claim = sorted(ready["seats"])
        self.tell(PeerReady(member.name))
        return True

    def _consider(self, member: Member, proposal: dict[str, bool]) -> None:
        """A player proposes options. Each option value is put to the host's person at most once
        per player, and not at all while the person has it to answer or once it declined it; the
        start waits for the person's answer. A player that proposes a value again is named to the
        person once, then ignored. A host with nobody to ask keeps its options (it is told)."""
        change = {key: value for key, value in proposal.items() if self.options.get(key) != value}
        if not change:
            return  # (the table has these options already)
        values = set(change.items())
        if values <= member.proposed:
            if not member.kept_proposing:
                member.kept_proposing = True
                self.tell(ProposalsIgnored(member.name, change))
            return
        member.proposed |= values
        if values <= self.declined | set((self.pending or {}).items()):
            return  # (the host's person let it go, or has it to answer already)
        self.tell(OptionsProposed(member.name, change))
        if self.considers:
            self.pending = {**(self.pending or {}), **change}

    def _answered(self, options: dict[str, bool] | None) -> bool:
        """The host's person answered a proposal or changed the options itself (``options``: what
        it takes up; None: the table keeps its options, and what was proposed is let go)."""
        if options is None:
            self.declined |= set((self.pending or {}).items())
            self.pending = None
            return True
        self.pending = None
        return self._change(options)

    def _change(self, options: dict[str, bool]) -> bool:
        """Take up ``options``: every player's ready was signed for the old ones, so each must
        say again that it is ready (with the time to, from now)."""
        if all(self.options.get(key) == value for key, value in options.items()):
            return False
        self.superseded.append(self.agreed())
        self.options.update(options)
        now = trio.current_time()
        for member in self.members:
            member.ready, member.claim, member.since, member.said = None, None, now, 0
        self.tell(OptionsChanged(dict(self.options)))
        return True

    def _stale(self, member: Member, ready: Mapping[str, Any]) -> bool:
        """Whether ``ready`` agrees to the table as it was before its options last changed (it
        crossed the change on the wire: the player is shown the new table and asked again)."""
        return any(
            not ready_problem(member.key, ready, salt=self.salt, agreed=before) for before in self.superseded
        )

    def _show(self) -> None:
        """Every player is sent the lobby as it stands (queued: one that does not read holds up
        nobody, and is dropped once its queue is full or a write to it waits too long), and the
        host's own screen shows it too."""
        for index, other in enumerate(self.members, start=1):
            with contextlib.suppress(PeerGoneError):
                other.connection.post(wire.lobby(self.view(index)))
        self.tell(TableShown(self.view(0)), quiet=True)

    def _ready_by(self) -> float:
        """When the next caller must have said it is ready (trio clock; inf: none need to)."""
        return min([m.ready_by() for m in self.members if m.ready is None] or [math.inf])

    def _complete(self) -> bool:
        """Every place taken, every player ready, and no proposal waiting: the start comes next."""
        full = len(self.members) == self.peers - 1 and all(m.claim is not None for m in self.members)
        return full and self.pending is None

    def _admit(self, connection: Connection, caller: Caller) -> bool:
        """Seat a caller that has shown its key, or say why not (False: the table is as it was)."""
        key, name, invited, address, bot = caller.key, caller.name, caller.invited, caller.address, caller.bot
        members, tell = self.members, self.tell
        if key == self.identity.public or any(m.key == key for m in members):
            tell(Refused("already at the table", name))
            _refuse(connection, "you are already at this table")
            return False
        if self.invite_only and not invited:
            reason = "this table seats only players with the host's invite: ask the host for it"
            tell(Refused(reason, name))
            _refuse(connection, reason)
            return False
        crowd = [m for m in members if m.ready is None and not m.invited and m.address == address]
        if not invited and not _local(address) and len(crowd) >= MAX_UNREADY_PER_ADDRESS:
            reason = f"{len(crowd)} callers from your address already wait in the lobby unready"
            tell(Refused(reason, name))
            _refuse(connection, reason)
            return False
        if len(members) >= self.peers - 1 and invited:
            # A friend with the invite never finds its seat held by a stranger who only knocked:
            # the newest caller without the token that is not ready yet makes room.
            self._make_room()
        if len(members) >= self.peers - 1:
            tell(Refused("the table is full", name))
            _refuse(connection, "the table is full")
            return False
        members.append(
            Member(
                connection, key, name, invited=invited, address=address, since=trio.current_time(), bot=bot
            )
        )
        tell(PeerJoined(name, key, level_words(self.game, self._level(bot))))
        return True

    def _drop_late(self) -> None:
        """Show the door to every caller past its time to say it is ready (its seat is free)."""
        now = trio.current_time()
        for member in [m for m in self.members if m.ready is None and m.ready_by() <= now]:
            waited = INVITED_READY_S if member.invited else READY_S
            self._drop(member, f"you did not say you are ready within {waited:g} s")

    def _make_room(self) -> None:
        """Free the seat of the newest caller without the token that is not ready, if any."""
        strangers = [m for m in self.members if m.ready is None and not m.invited]
        if strangers:
            self._drop(strangers[-1], "a player with the host's invite came for this seat")

    def _remove(self, member: Member) -> None:
        """A member leaves the table (or is shown the door). What it alone proposed is withdrawn:
        a proposal that nobody at the table stands behind no longer holds the start."""
        self.members.remove(member)
        if self.pending is not None:
            backed = {value for m in self.members for value in m.proposed}
            self.pending = {k: v for k, v in self.pending.items() if (k, v) in backed} or None

    def _drop(self, member: Member, reason: str) -> None:
        """Show a member the door (its place is free): the host's person and the member are
        told why."""
        self._remove(member)
        self.tell(Refused(reason, member.name))
        self.tell(PeerLeft(member.name), quiet=True)
        _refuse(member.connection, reason)


def _refuse(connection: Connection, reason: str) -> None:
    """Tell a caller why it is turned away, then close its connection: both by its writer, once
    the refusal is written (the lobby waits for neither)."""
    with contextlib.suppress(PeerGoneError):
        connection.post(wire.refused(reason))
    connection.close_soon()


def _local(address: str) -> bool:
    """Whether ``address`` is this machine's (loopback: a second terminal of the host's own), or
    unknown (a stream with no socket: a test's, in memory)."""
    if address == "?":
        return True
    try:
        return ipaddress.ip_address(address.split("%", maxsplit=1)[0]).is_loopback
    except ValueError:
        return False


def check_lobby(payload: bytes, host_key: bytes, me: bytes) -> dict[str, Any]:
    """A lobby message from the host (``host_key``) to us (``me``), checked; raises
    PeerGoneError on a refusal or junk."""
    message = wire.parse(payload)
    if isinstance(message, wire.Malformed) and message.flaw is wire.Flaw.BYTES:
        raise PeerGoneError(f"the host sent a malformed lobby: {message.reason}")
    if isinstance(message, wire.Refused):
        reason = message.reason if message.reason.strip() else "it gave no reason"
        raise PeerGoneError(f"the host refused us: {printable(reason[:200])}")
    return checked_lobby(message.table if isinstance(message, wire.Lobby) else None, host_key, me)


def checked_lobby(lobby: object, host_key: bytes, me: bytes) -> dict[str, Any]:
    """A lobby map, checked (PeerGoneError if it is malformed or does not list us)."""
    if not (isinstance(lobby, dict) and set(LOBBY_FIELDS) <= set(lobby)):
        raise PeerGoneError("the host did not send the lobby")
    keys, peer_names, you = lobby["keys"], lobby["names"], lobby["you"]
    if not (
        isinstance(keys, list)
        and isinstance(peer_names, list)
        and len(peer_names) == len(keys)
        and all(isinstance(k, bytes) for k in keys)
        and all(_good_name(n) for n in peer_names)
        and type(you) is int
        and 0 < you < len(keys)
        and keys[you] == me
        and keys[0] == host_key
        and lobby["game"] in names()
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
        and isinstance(lobby["salt"], bytes)
        and len(lobby["salt"]) == NONCE_LEN
    ):
        raise PeerGoneError("the host sent a malformed lobby (or one that does not list us)")
    return lobby


class Joining:
    """A joiner's side of the lobby, from the host's hello to the start.

    :meth:`greeted` runs inside the handshake, as soon as the host's hello is read: it checks the
    host (``check_host``: an invite's key, the pins) and the table, and when nobody needs to be
    asked (``confirm`` is None) it queues our signed ready to leave with our last handshake
    message. :meth:`await_start` asks the player if that is still to do, then follows the host's
    lobbies until the start. Every other player at the table is checked against the pins (a
    known name with another key is refused)."""

    def __init__(
        self,
        joiner: LocalPlayer,
        seats: Sequence[int],
        *,
        confirm: Callable[[Mapping[str, Any]], Awaitable[bool]] | None,
        check_host: Callable[[Established], None],
    ) -> None:
        self.identity = joiner.identity
        self.name = joiner.name
        self.seats = sorted(seats)
        self.confirm = confirm
        self.bot = joiner.bot  # the level of the bot at our seats, as our hello says it
        self.tell: Notify = joiner.tell
        self.check_host = check_host
        self.check_peer = joiner.pins.check
        self.nonce = secrets.token_bytes(NONCE_LEN)  # our coin share, committed in the ready
        self.host_key = b""
        self.host_name: object = None  # what the host's hello calls it
        self.shown: dict[str, Any] | None = None
        self.agreed: dict[str, Any] | None = None  # what our last ready agreed to (None: none sent)
        self.proposal: dict[str, bool] | None = None  # options to propose with our ready
        self.held: list[bytes] = []  # what the host sent while the player was asked, not yet read

    def greeted(self, connection: Connection, host: Established) -> None:
        """The host's hello is in (our last handshake message has not left yet)."""
        self.check_host(host)
        self.host_key = host.peer_key
        self.host_name = host.peer_hello.get("name")
        table = host.peer_hello.get("lobby")
        if table is None:
            return  # a host whose match is under way: it says why it turns us away, after this
        if not isinstance(table, dict):
            raise PeerGoneError("the host sent a malformed table")
        # The table as it will be with us at it.
        try:
            lobby = {
                **table,
                "names": [*table["names"], self.name],
                "keys": [*table["keys"], self.identity.public],
                "claims": [*table["claims"], self.seats],
                "ready": [*table["ready"], self.confirm is None],  # (no one to ask: ready at once)
                "you": len(table["keys"]),
                "needed": table["needed"] - 1,
            }
            if isinstance(table.get("bots"), list):  # (informative; see bot_words)
                ours = None if self.bot is None else self.bot or _default_level(table.get("game"))
                lobby["bots"] = [*table["bots"], ours]
        except (KeyError, TypeError) as exc:
            raise PeerGoneError(f"the host sent a malformed table ({exc!r})") from None
        shown = checked_lobby(lobby, self.host_key, self.identity.public)
        self._show(shown)
        if self.confirm is None:
            connection.channel.send(self._ready(shown)[0])

    @property
    def sent(self) -> bool:
        """Whether we have said we are ready (a proposal made now would come too late)."""
        return self.agreed is not None

    def _ready(self, shown: Mapping[str, Any]) -> tuple[bytes, dict[str, Any]]:
        """Our ready for the table ``shown``, and what it agrees to (kept: the host is held to
        it)."""
        agreed = self.agreed = agreed_of(shown)
        ready = make_ready(self.identity, self.nonce, salt=agreed["salt"], agreed=agreed, claim=self.seats)
        return wire.ready(ready, self.proposal), agreed  # (the options we propose ride with it)

    def _show(self, lobby: dict[str, Any]) -> None:
        # The names at the table are the ones each player gave in its own hello: the host cannot
        # show us under another name, nor call itself something else than it said to us.
        if lobby["names"][0] != self.host_name:
            raise PeerGoneError(
                f"the host's lobby calls it {lobby['names'][0]!r}, but its hello said {self.host_name!r}"
            )
        if lobby["names"][lobby["you"]] != self.name:
            raise PeerGoneError(
                f"the host's lobby calls us {lobby['names'][lobby['you']]!r}, not {self.name!r}"
            )
        for index, (name, key) in enumerate(zip(lobby["names"], lobby["keys"], strict=True)):
            if index not in (0, lobby["you"]):
                self.check_peer(name, key)
        if lobby != self.shown:
            self.shown = lobby
            self.tell(LobbyShown(lobby))

    async def await_start(self, connection: Connection) -> tuple[dict[str, Any], dict[str, Any], list[bytes]]:
        """Agree to the table (asking the player if that is still to do), then follow the host's
        lobby until the match starts, holding the host to what we agreed. Returns the starting
        lobby, what the terms must carry, and whatever came in the same read right behind the
        start (the terms, often)."""
        if self.shown is None:  # no table in the hello: the host turns us away (or breaks off)
            for payload in await connection.receive():
                check_lobby(payload, self.host_key, self.identity.public)
            raise PeerGoneError("the host has no table open: its match is under way")
        agreed = self.agreed if self.agreed is not None else await self._agree(connection, self.shown)
        while True:
            try:
                payloads, self.held = self.held or await connection.receive(), []
            except PeerGoneError as exc:  # (the host left its lobby, or the route to it broke)
                raise _before_the_match(exc) from exc
            for position, payload in enumerate(payloads):
                lobby = check_lobby(payload, self.host_key, self.identity.public)
                self._show(lobby)
                now = agreed_of(lobby)
                changed = [key for key in AGREED if now[key] != agreed[key]]
                if (
                    changed == ["options"]
                    and not lobby["ready"][lobby["you"]]
                    and _proposable(now["options"], agreed["options"])
                ):
                    # A proposal taken up (fast turns): the host asks everyone to agree again.
                    agreed = await self._agree(connection, lobby)
                    continue
                if changed:
                    raise PeerGoneError(f"the host changed the {' and '.join(changed)} after we agreed")
                if lobby["ready"][lobby["you"]] and lobby["claims"][lobby["you"]] != self.seats:
                    raise PeerGoneError("the host changed our seat claim after we agreed")
                if lobby["start"]:
                    # The terms must carry exactly the seat claims this lobby showed: the host's,
                    # ours and everyone's (else the host could sit where it likes while we read
                    # "coin flip"), and the salt our coin share is bound to.
                    expected = {key: agreed[key] for key in ("game", "options", "setup", "salt")}
                    expected["claims"] = [sorted(c) for c in lobby["claims"]]
                    # ...and exactly the names it showed, the ones the players will be known by
                    # in the log, the transcript and its export.
                    expected["names"] = list(lobby["names"])
                    return lobby, {**expected, "claim": self.seats}, payloads[position + 1 :]

    async def _agree(self, connection: Connection, shown: Mapping[str, Any]) -> dict[str, Any]:
        """Say we are ready to play the table as ``shown`` (asking the player first, if there is
        one to ask), with our proposal, if we make one; returns what we agreed to."""
        if self.confirm is not None and not await self._answer(connection, self.confirm, shown):
            raise DeclinedError(DECLINED)
        ready, agreed = self._ready(shown)
        await connection.send(ready)
        self.proposal = None
        return agreed

    async def _answer(
        self,
        connection: Connection,
        confirm: Callable[[Mapping[str, Any]], Awaitable[bool]],
        shown: Mapping[str, Any],
    ) -> bool:
        """The player's answer to the table as ``shown``, the host's connection read meanwhile
        (what it sends is kept for :meth:`await_start`): a host that leaves while the player
        reads ends the question at once, not at the answer (a newcomer's try: it still asked
        "join this match?" long after the host had gone)."""
        gone: list[PeerGoneError] = []
        answer = False
        async with trio.open_nursery() as nursery:

            async def listen() -> None:
                try:
                    while True:
                        self.held += await connection.receive()
                except PeerGoneError as exc:
                    gone.append(exc)
                    nursery.cancel_scope.cancel()

            nursery.start_soon(listen)
            answer = await confirm(shown)
            nursery.cancel_scope.cancel()
        if gone:
            for payload in self.held:  # (a host that turned us away first says why: that, then)
                check_lobby(payload, self.host_key, self.identity.public)
            raise _before_the_match(gone[0]) from gone[0]
        return answer


def _before_the_match(exc: PeerGoneError) -> PeerGoneError:
    """A joiner's connection to its host, ended in the lobby: said as the host's, and that no
    match was played."""
    said = str(exc).replace("the peer ", "the host ", 1)
    return PeerGoneError(f"{said} (the match had not begun: nothing was played)")


def _proposable(now: Mapping[str, Any], before: Mapping[str, Any]) -> bool:
    """Whether options changed only in what a player may propose."""
    keys = set(now) | set(before)
    return all(now.get(key) == before.get(key) for key in keys if key not in wire.PROPOSABLE)


def _good_name(name: object) -> bool:
    try:
        check_name(name)
    except LocalMisuseError:
        return False
    return True
