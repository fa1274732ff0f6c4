"""What a host and a joiner share: one peer as either side of a match needs it.

A :class:`Party` is who this peer is (identity, name, the address it plays at), what it keeps
(files, pins, links, clocks), what it tells its person, and how it plays a match once there is
one. The host's side (``host``) and a joiner's (``joiner``) each hold one, seat the players their
own way, and hand it the session they end with: :meth:`Party.play` builds the
:class:`~p2pgenius.net.match_loop.MatchLoop` for that session, never before it exists, and opens
the doors beside it (:class:`Doors`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import trio

from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.net.connection import Connection, Item
from p2pgenius.net.events import Listening, Reconnecting, Tell
from p2pgenius.net.files import Files
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.net.lobby import LocalPlayer
from p2pgenius.net.match_loop import Ask, Decide, MatchLoop, Report
from p2pgenius.net.overdue import Overdue, company
from p2pgenius.net.reconnect import Arrivals, Reconnection, WayBack
from p2pgenius.net.spectators import Spectators
from p2pgenius.protocol.clocks import Clocks
from p2pgenius.protocol.events import Notice
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.machine import MatchMachine
from p2pgenius.protocol.session import Session
from p2pgenius.threads import off_loop, settle_heap

Began = Callable[[Session, str, Mapping[str, Any]], Awaitable[None]]
"""Told when a side has its session (``role``: "host" or "join"; what its transcript's header keeps
besides: a joiner's ``expected``, what the terms must carry; a host's ``spectators``, whether its
lobby admitted them): the match's files begin, before anything of the match is sent."""


@dataclass(frozen=True)
class Playing:
    """How this peer plays its matches: its deciders (the bots', and the person's questions) and
    what it reports, the grace period, and the loop's options (see
    :class:`~p2pgenius.net.match_loop.MatchLoop`)."""

    decide: Decide
    report: Report
    grace_s: float
    asks: Ask | None = None
    decide_early: bool = False
    settle_at_once: bool = False
    linger: bool = False
    loop_type: type[MatchLoop] = MatchLoop  # (a test's misbehaving peer pumps in another...)
    machine_type: type[MatchMachine] = MatchMachine  # (...or keeps other rules of time)


@dataclass(frozen=True)
class Doors:
    """What opens beside a match: a host's door for its players coming back, a joiner's way back
    to its host, and the jobs queued for the match's nursery. ``restarted``: this process read
    the match back from its files, so the door opens again (or the way back is taken at once),
    and that is said."""

    listener: trio.abc.Listener[trio.abc.Stream] | None = None
    way_back: WayBack | None = None
    spectators: Spectators | None = None  # a host's watchers, fed by the loop
    beside: Sequence[Callable[[], Awaitable[None]]] = ()
    restarted: bool = False
    overdue: Overdue | None = None  # a restarted peer late with what it owed: it reaches another first


@dataclass(eq=False)  # (one object per side of a match: equal only to itself)
class Party:
    """One peer as the host's side and a joiner's both need it (see the module's docstring)."""

    player: LocalPlayer  # who this peer is at a table (its keys met before; how it is told)
    address: str  # recorded in the transcript, so that a crashed peer can come back
    files: Files
    links: Links  # the match's connections; the host relays
    clocks: Clocks  # kept across a match's loops
    say: Callable[[str], None]  # a line for the person running this peer
    playing: Playing
    began: Began
    loop: MatchLoop | None = None  # while the match is played

    @property
    def identity(self) -> Identity:
        """This peer's identity."""
        return self.player.identity

    @property
    def tell(self) -> Tell:
        """How this peer's person is told (the event as data, and its line)."""
        return self.player.tell

    async def admit(self, keys: Sequence[bytes], names: Sequence[str]) -> None:
        """Pin the keys of the match's players (it writes and syncs a file: in a worker thread,
        beside the match, which need not wait for it); a failure is said, and changes nothing."""
        try:
            await off_loop(partial(self.player.pins.admit, keys, names, own=self.identity.public))
        except (P2PGeniusError, OSError) as exc:
            self.tell(Notice(f"the players' keys were not pinned: {exc}"))

    async def play(
        self,
        session: Session,
        doors: Doors,
        *,
        first: Sequence[tuple[Connection, bytes]] = (),
        resumed_stage: tuple[int, float] | None = None,
    ) -> None:
        """Run the match to its end (or a fault) in a :class:`MatchLoop`; ``first``: payloads
        already read; ``resumed_stage``: a resumed peer's (stage, began), from its note. The
        files are closed (and their lock released) however it ends."""
        try:
            await self._play(session, doors, first, resumed_stage)
        finally:
            self.files.close()
            self.files.release()

    async def _play(
        self,
        session: Session,
        doors: Doors,
        first: Sequence[tuple[Connection, bytes]],
        resumed_stage: tuple[int, float] | None,
    ) -> None:
        session.defer_verdict = True  # (the match's end judged in a worker thread: MatchLoop)
        if session.terms is not None:
            await warm(session.terms["game"])
        async with trio.open_nursery() as nursery:
            loop = self.loop = self.match_loop(session, nursery, Inbox[Item](nursery), doors, resumed_stage)
            if doors.overdue is not None:
                loop.reconnection.arrivals = Arrivals()  # (held until another player is reached)
            self._open_doors(nursery, loop.reconnection, doors)
            if doors.overdue is not None:
                first = [*first, *await self._reached(loop.reconnection, doors.overdue)]
            try:
                await loop.run(first)
                # The last messages (the results every peer signs) are queued: they leave before
                # the connections' writers stop (a peer that does not read is not waited for long).
                await self.links.flush()
            finally:
                self.loop = None  # (nothing said from now on reaches anyone)
            nursery.cancel_scope.cancel()
        await self.links.aclose()

    async def _reached(self, reconnection: Reconnection, late: Overdue) -> list[tuple[Connection, bytes]]:
        """A restarted peer late with what it owed plays on only once another player is back
        (:mod:`p2pgenius.net.overdue`): the connections held meanwhile join the match, and what
        came behind each one's sync is read first. Nobody in time: ForfeitedMostLikelyError."""
        self.tell(Notice(late.notice()))
        assert reconnection.arrivals is not None
        try:
            back = await company(reconnection.arrivals, late)
        finally:
            reconnection.arrivals = None  # (from now on each comes back into the match at once)
        first: list[tuple[Connection, bytes]] = []
        for connection, index, behind in back:
            self.links.add(connection, index)
            first += [(connection, payload) for payload in behind]
        return first

    def match_loop(
        self,
        session: Session,
        nursery: trio.Nursery,
        inbox: Inbox[Item],
        doors: Doors,
        resumed_stage: tuple[int, float] | None = None,
    ) -> MatchLoop:
        """The loop that plays ``session``, and its ways back in (see ``reconnect``)."""
        reconnection = Reconnection(
            session,
            self.links,
            inbox,
            nursery,
            identity=self.identity,
            name=self.player.name,
            pins=self.player.pins,
            tell=self.tell,
            came_back=self.clocks.came_back,
            spectators=doors.spectators,
            way_back=doors.way_back,
        )
        how = self.playing
        machine = how.machine_type(
            session,
            self.clocks,
            how.grace_s,
            decide_early=how.decide_early,
            settle_at_once=how.settle_at_once,
        )
        return how.loop_type(
            machine,
            nursery,
            inbox,
            reconnection,
            self.files,
            self.links,
            how.decide,
            how.report,
            self.tell,
            asks=how.asks,
            spectators=doors.spectators,
            linger=how.linger,
            resumed_stage=resumed_stage,
        )

    def _open_doors(self, nursery: trio.Nursery, reconnection: Reconnection, doors: Doors) -> None:
        """What runs beside the match loop: the jobs queued for it, a host's door for players
        coming back, and a restarted joiner's way back to its host."""
        for job in doors.beside:
            nursery.start_soon(job)
        if doors.listener is not None:
            if doors.restarted:  # (a host that gathered its players said so then)
                self.tell(Listening(self.address, again=True), quiet=True)
            nursery.start_soon(reconnection.welcome_back, doors.listener)
        if doors.restarted and doors.way_back is not None and not self.links:
            # A restarted joiner finds its host again (the caller said where it goes).
            self.tell(Reconnecting(self.address), quiet=True)
            reconnection.come_back_soon()


async def warm(game: str) -> None:
    """Load what the game's engine loads once (the Magic Square's index of every square, say) in
    a worker thread, before the match needs it on the event loop; then set what is loaded aside
    from the garbage collector (:func:`p2pgenius.threads.settle_heap`). An unknown game: nothing
    to load (the lobby or the terms refuse it). Once a game is warm in this process, nothing more
    is done: a host warms its game while the players come, and the match does not wait for a
    second trip to a thread; the game's module is imported in the thread too, not on the loop."""
    if game not in _WARM:
        await off_loop(warm_now, game)


def warm_now(game: str) -> None:
    """:func:`warm` in this thread (which :func:`warm` runs in a worker's), for a command before
    any loop runs (a host knows its game before it listens): a worker
    thread that loads a game holds the interpreter from the loop's every step meanwhile (the
    Magic Square's index, tens of milliseconds of Python: a joiner's handshake arriving then took
    50 ms in one step), and here it holds nothing."""
    if game in _WARM:
        return
    with contextlib.suppress(P2PGeniusError):
        get_spec(game).warm()
        _WARM.add(game)
        settle_heap(game)


_WARM: set[str] = set()
"""The games whose engines have loaded what they load once, in this process."""


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
