"""The match loop: the pump of a match's machine while its match is played.

A :class:`MatchLoop` exists only once there is a session (the host has gathered its players, a
joiner has been seated, a crashed peer has read its files back). Every rule of the match and its
time is decided in its I/O-free :class:`~p2pgenius.protocol.machine.MatchMachine`; the loop only
pumps: every connection's reader and every local decider hand what they have to its inbox, the
loop feeds the items to the machine one at a time (so the session is never touched concurrently),
carries out each :class:`~p2pgenius.protocol.machine.Step` (the transcript records and secrets
appended to disk first, then the messages queued on every connection, each connection's own writer
sending them, so a peer that does not read holds up nobody; then what to tell; the game's verdicts on
the match's end judged in a worker thread and fed back), and sleeps until the machine's next wake-up time.

The peer (``peer``) builds it, with what it needs and nothing more, and opens the doors beside it
(a host's for players coming back, a joiner's way back to its host).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from p2pgenius.net.connection import Connection, Item, Kind
from p2pgenius.net.events import ChatClosed, Tell
from p2pgenius.net.files import Files
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.net.reconnect import Reconnection
from p2pgenius.net.spectators import Spectators
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.clocks import STALL_PINGS
from p2pgenius.protocol.events import SAID, Notice
from p2pgenius.protocol.machine import Key, MatchMachine, Step
from p2pgenius.protocol.session import Event, Session, SessionView
from p2pgenius.threads import off_loop

Decide = Callable[[SessionView, int], Awaitable[Mapping[str, Any] | None]]
"""Chooses an action for a local seat (None: let an optional action pass)."""
Report = Callable[[SessionView, Event], None]
"""Shows a session event to the person running this peer."""
Ask = Callable[[dict[int, int]], None]
"""Tells the person at this peer's first seat which of its seats are asked to decide now (seat ->
stage number; empty: none). Its decisions come back as every decision does: into the inbox
(``Peer.offer``), then to the machine's one entry for them (``MatchMachine.decided``)."""


@dataclass(eq=False)  # (one object per match: equal only to itself)
class MatchLoop:
    """One match played to its end (or a fault): its machine, the inbox its readers and deciders
    fill, and the nursery their tasks run in, for as long as :meth:`run` runs."""

    machine: MatchMachine
    nursery: trio.Nursery
    inbox: Inbox[Item]
    reconnection: Reconnection  # the ways back in (a joiner's is tried when its host is lost)
    files: Files
    links: Links
    decide: Decide  # the bots' (every local seat but the person's, when there is a person)
    report: Report
    tell: Tell
    asks: Ask | None = None  # a person plays the first local seat (None: bots play them all)
    spectators: Spectators | None = None  # a host's watchers, fed after every step
    linger: bool = False  # after the end, keep the table open for chat until the others leave
    resumed_stage: tuple[int, float] | None = None  # a resumed peer: (stage, began), from its note
    _deciding: dict[Key, trio.CancelScope] = field(default_factory=dict)
    _asked: dict[int, int] | None = None  # what the person was last told it is asked

    @property
    def session(self) -> Session:
        """The match's session (the machine's)."""
        return self.machine.session

    async def run(self, first: Sequence[tuple[Connection, bytes]] = ()) -> None:
        """Play to the end (or a fault); ``first``: payloads already read, each handed in by its
        connection's reader before what it reads. Local players decide in their own tasks (so
        messages, chat and clocks go on while someone thinks) and hand their decisions in."""
        machine = self.machine
        for connection in self.links:
            already = [payload for read_on, payload in first if read_on is connection]
            connection.start(self.nursery)  # (a host's have written since its lobby)
            self.nursery.start_soon(connection.messages, self.inbox, already)
        await self.carry_out(machine.start())
        self._resume()
        try:
            while not machine.over:
                self._follow_stage()
                item: Item | None = None
                with trio.move_on_at(machine.wake_at()):
                    item = await self.inbox.items.receive()
                if item is not None:  # (handled outside the deadline: nothing it does is cut short)
                    await self._on_item(item)
                else:
                    await self._on_time()
        finally:
            if self.asks is not None and self._asked:
                self.asks({})  # (over, stopped by a fault, or left: the person is asked nothing)
        if self.linger and self.session.finished:
            await self._after_the_end()

    def _resume(self) -> None:
        """A resumed peer's stage: the machine is told how long it had run (by the wall clock,
        from the files' note) before this process took it up, so that this peer's own seats'
        clocks go on from there rather than give the time already spent back."""
        if self.resumed_stage is not None:
            number, began = self.resumed_stage
            self.machine.resumed = (number, max(time.time() - began, 0.0))  # (none if it went back)

    async def _after_the_end(self) -> None:
        """The match is over: the table stays open for chat ("gg") until every other player has
        left (or this one does: its caller cancels the match's task)."""
        while self.links:
            item = await self.inbox.items.receive()
            if item.kind in (Kind.MSG, Kind.CHAT):
                await self._on_item(item)
            elif item.kind is Kind.GONE and item.connection is not None and self.links.drop(item.connection):
                self.tell(Notice("a player left the table"), quiet=not self.links)
        self.tell(ChatClosed())

    async def _on_item(self, item: Item) -> None:
        kind, connection, data = item.kind, item.connection, item.data
        machine = self.machine
        if kind is Kind.MSG and connection is not None:
            await self._on_payload(connection, *data)
        elif kind is Kind.HEARD:  # a ping, or the answer to ours (``data``: its round trip)
            machine.heard(data)
        elif kind is Kind.GONE and connection is not None:
            await self._gone(connection)
        elif kind is Kind.SETTLE:
            await self.carry_out(machine.settle(*data))
        elif kind is Kind.CHAT:
            await self.carry_out(machine.chat(data))
        elif kind is Kind.DECIDED:  # a local decision
            await self.carry_out(machine.decided(*data))

    # -- deciding ----------------------------------------------------------------------------

    def _follow_stage(self) -> None:
        """Start the local deciders the machine wants (and stop those it no longer does), and
        tell the person what it is asked; a new stage's start is noted in the files."""
        wanted, began = self.machine.follow()
        if began is not None:
            number, away = began
            self.files.note_stage(number, time.time() - away)
        if self.asks is not None and self.session.my_seats:
            person = self.session.my_seats[0]
            theirs = {key for key in wanted if key[1] == person}
            wanted -= theirs
            asked = {seat: number for number, seat in sorted(theirs, reverse=True)}  # (the earliest)
            if asked != self._asked:
                self._asked = asked
                self.asks(dict(asked))
        for key, scope in list(self._deciding.items()):
            if key not in wanted:
                scope.cancel()
                del self._deciding[key]
        for key in sorted(wanted - self._deciding.keys()):
            scope = self._deciding[key] = trio.CancelScope()
            self.nursery.start_soon(self._decider, *key, scope)

    async def _decider(self, number: int, seat: int, scope: trio.CancelScope) -> None:
        session = self.session
        with scope:
            refused = self.machine.refusals((number, seat))
            if refused:  # asked again after a refusal: not at once (a bot would spin)
                await trio.sleep(min(0.05 * 2**refused, 2.0))
            view = session.view
            if session.stage is not None and number > session.stage.number:
                view = view.next() or view  # chosen early, from the state it will be made in
            action = await self.decide(view, seat)
            # (Once the match is over the loop's nursery is cancelled: nothing reads this then.)
            self.inbox.put(Item(Kind.DECIDED, None, (number, seat, action)))

    # -- clocks (p2pgenius.protocol.clocks, through the machine) ---------------------------------

    async def _on_time(self) -> None:
        """A wake-up time came: the machine does what is due."""
        await self.carry_out(self.machine.tick())

    # -- messages (relaying) -----------------------------------------------------------------

    async def _on_payload(
        self, connection: Connection, payload: bytes, now: float, message: wire.Parsed
    ) -> None:
        """A payload read at ``now`` (in trio's clock) on ``connection``, and its message (parsed
        once, where it was read). A host relays it to the others first: each checks the author's
        signature itself."""
        self.files.note(f"<- {payload.hex()}")
        if not isinstance(message, wire.MatchMessage):
            self.tell(Notice("a peer sent something that is not a match message (ignored)"))
            return
        if self.session.me == 0:
            self.links.relay(payload, connection)
        await self.carry_out(self.machine.received(message.raw, now))

    async def carry_out(self, step: Step) -> None:
        """What one input gave: a ping first (its round trip measures the network, not what
        follows), secrets and records to disk, then the messages, queued on every connection
        (never waiting for one); then what to tell; then the game's verdicts on the match's end,
        judged in a worker thread (each replays the whole match) and fed back, in turn carried
        out."""
        if step.ping:
            self.links.ping(stalled_after=STALL_PINGS)
            await self.links.handed_over()
        # Secrets first: a commitment on record whose nonce was lost could never be opened.
        self.files.append(self.files.secrets, step.secrets)
        self.files.append(self.files.transcript, step.records)
        for raw in step.messages:
            payload = wire.match_message(raw)
            self.files.note(f"-> {payload.hex()}")
            self.links.broadcast(payload)
        # They leave before the events are told and the loop goes on (a write that waits for a
        # peer that does not read is not waited for).
        await self.links.handed_over()
        if self.spectators is not None:
            self.spectators.feed()  # (queued, never waited for)
        view = self.session.view
        for said in step.told:
            if isinstance(said, SAID):
                self.tell(said)
            else:
                self.report(view, said)
        for key in step.ask_again:
            if key in self._deciding:
                self._deciding.pop(key).cancel()  # asked again, by a fresh decider
            elif self._asked is not None and key[1] in self._asked:
                self._asked = None  # (the person: told again what it is asked)
        for due in step.verdicts:
            await self.carry_out(self.machine.concluded(due, await off_loop(due.judge)))

    async def _gone(self, connection: Connection) -> None:
        """A connection closed. The match waits: a joiner tries to come back; a host keeps its
        door open; a peer that stays away past the grace period forfeits."""
        session = self.session
        if not self.links.drop(connection):
            return  # (one replaced by a player's new connection: nothing is lost)
        if self.machine.over:
            return
        index = 0 if session.me != 0 else self.links.index_of(connection)
        await self.carry_out(self.machine.gone(index, connection.dropped))
        self.reconnection.lost(index)  # (a joiner calls its host again: a host keeps its door open)
