"""The match loop: the one owner of a session while its match is played.

A :class:`MatchLoop` exists only once there is a session (the host has gathered its players, a
joiner has been seated, a crashed peer has read its files back), so nothing in it asks whether
there is one. Every connection's reader and every local decider hand what they have to its inbox;
the loop takes the items one at a time, so the session is never touched concurrently. After every
call into the session, :meth:`MatchLoop.flush` appends the transcript records and secrets to disk
first, then queues the messages on every connection (each connection's own writer sends them, so
a peer that does not read holds up nobody). Between items it keeps the clocks (``clocks``): its
own seats' timeouts, claims against other seats, forfeits after the grace period, the game's
warnings, and pings.

The peer (``peer``) builds it, with what it needs and nothing more, and opens the doors beside it
(a host's for players coming back, a joiner's way back to its host).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import trio

from p2pgenius.errors import P2PGeniusError
from p2pgenius.net.connection import Connection, Item, Kind
from p2pgenius.net.events import ConnectionLost, DecisionRefused, Notice, Tell
from p2pgenius.net.files import Files
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.net.reconnect import Reconnection
from p2pgenius.net.spectators import Spectators
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.clocks import STALL_PINGS, Clocks, Deadline
from p2pgenius.protocol.events import Hashed, OutOfTime
from p2pgenius.protocol.session import AuditDue, Event, Session, SessionView
from p2pgenius.threads import off_loop

Decide = Callable[[SessionView, int], Awaitable[Mapping[str, Any] | None]]
"""Chooses an action for a local seat (None: let an optional action pass)."""
Report = Callable[[SessionView, Event], None]
"""Shows a session event to the person running this peer."""

MAX_REFUSED: Final = 5
"""Refused decisions for one seat and stage before its decider is given the game's timeout."""


@dataclass(eq=False)  # (one object per match: equal only to itself)
class MatchLoop:
    """One match played to its end (or a fault): the session, the inbox its readers and deciders
    fill, and the nursery their tasks run in, for as long as :meth:`run` runs."""

    session: Session
    nursery: trio.Nursery
    inbox: Inbox[Item]
    reconnection: Reconnection  # the ways back in (a joiner's is tried when its host is lost)
    files: Files
    links: Links
    clocks: Clocks
    decide: Decide
    report: Report
    tell: Tell
    grace_s: float
    spectators: Spectators | None = None  # a host's watchers, fed after every flush
    decide_ahead: bool = False  # let ``decide`` choose for the next stage when the game allows
    settle_at_once: bool = False  # a sealed choice stands as soon as it is made (bots: no minute)
    linger: bool = False  # after the end, keep the table open for chat until the others leave
    resumed_stage: tuple[int, float] | None = None  # a resumed peer: (stage, began), from its note
    _deciding: dict[tuple[int, int], trio.CancelScope] = field(default_factory=dict)  # (stage, seat)
    _not_ahead: set[tuple[int, int]] = field(default_factory=set)  # (stage, seat): refused ahead
    _refused: dict[tuple[int, int], int] = field(default_factory=dict)  # (stage, seat) -> times

    async def run(self, first: Sequence[tuple[Connection, bytes]] = ()) -> None:
        """Play to the end (or a fault); ``first``: payloads already read, each handed in by its
        connection's reader before what it reads. Local players decide in their own tasks (so
        messages, chat and clocks go on while someone thinks) and hand their decisions in."""
        session = self.session
        for connection in self.links:
            ahead = [payload for read_on, payload in first if read_on is connection]
            connection.start(self.nursery)  # (a host's have written since its lobby)
            self.nursery.start_soon(connection.messages, self.inbox, ahead)
        await self.flush()
        while not session.finished and session.fault is None:
            self._follow_stage()
            item: Item | None = None
            with trio.move_on_at(self.clocks.next_deadline(self._deadlines())):
                item = await self.inbox.receive()
            if item is not None:  # (handled outside the deadline: nothing it does is cut short)
                await self._on_item(item)
            else:
                await self._on_time()
        if self.linger and session.finished:
            await self._after_the_end()

    async def _after_the_end(self) -> None:
        """The match is over: the table stays open for chat ("gg") until every other player has
        left (or this one does: its caller cancels the match's task)."""
        while self.links:
            item = await self.inbox.receive()
            if item.kind in (Kind.MSG, Kind.CHAT):
                await self._on_item(item)
            elif item.kind is Kind.GONE and item.connection is not None and self.links.drop(item.connection):
                self.tell(Notice("a player left the table"), quiet=not self.links)
        self.tell(Notice("everyone else has left: the chat has closed"))

    async def _on_item(self, item: Item) -> None:
        kind, connection, data = item.kind, item.connection, item.data
        if kind is Kind.MSG and connection is not None:
            await self._on_payload(connection, *data)
        elif kind is Kind.HEARD:  # a ping, or the answer to ours (``data``: its round trip)
            if data is not None:
                self.clocks.round_trip(data)
        elif kind is Kind.GONE and connection is not None:
            await self._gone(connection)
        elif kind is Kind.SETTLE:
            await self._settle(*data)
        elif kind is Kind.CHAT:
            try:
                self.session.chat(data)
            except P2PGeniusError as exc:
                self.tell(Notice(str(exc)))
            await self.flush()
        elif kind is Kind.DECIDED:  # a local decision
            await self._decided(*data)

    # -- what the person running this peer hands in (from outside the loop) ----------------------

    def offer(self, seat: int, action: Mapping[str, Any] | None) -> None:
        """A decision for a local seat from outside the ``decide`` callback (a terminal UI; a
        change of mind about a sealed choice while its time runs)."""
        stage = self.session.stage
        if stage is not None:
            self.inbox.put(Item(Kind.DECIDED, None, (stage.number, seat, action)))

    def settle(self, seat: int) -> None:
        """Let a local seat's sealed choice stand now, before its minute is up: the turn resolves
        as soon as every choice stands."""
        stage = self.session.stage
        if stage is not None:
            self.inbox.put(Item(Kind.SETTLE, None, (stage.number, seat)))

    def chat(self, text: str) -> None:
        """Say something to the table."""
        self.inbox.put(Item(Kind.CHAT, None, text))

    async def _settle(self, number: int, seat: int) -> None:
        session = self.session
        if session.stage is None or session.stage.number != number or seat not in session.unsettled():
            return  # (the turn moved on, or the choice stands already)
        session.finalize(seat)
        await self.flush()

    # -- deciding ----------------------------------------------------------------------------

    def _away(self, number: int) -> float:
        """Seconds stage ``number`` had run here before this process resumed it (0 for any
        other stage, or a clock that went back): this peer's own seats' clocks go on from
        there, as the other peers' did, rather than give the time already spent back."""
        if self.resumed_stage is None or self.resumed_stage[0] != number:
            return 0.0
        return max(time.time() - self.resumed_stage[1], 0.0)

    def _follow_stage(self) -> None:
        """Notice a new stage: note when it began here and start the local deciders."""
        session = self.session
        number = session.stage.number if session.stage is not None else -1
        away, self.resumed_stage = self._away(number), None
        if self.clocks.follow(number, away):
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
            self.nursery.start_soon(self._decider, *key, scope)

    async def _decider(self, number: int, seat: int, scope: trio.CancelScope) -> None:
        session = self.session
        with scope:
            refused = self._refused.get((number, seat), 0)
            if refused:  # asked again after a refusal: not at once (a bot would spin)
                await trio.sleep(min(0.05 * 2**refused, 2.0))
            view = session.view
            if session.stage is not None and number > session.stage.number:
                view = view.next() or view  # chosen ahead, from the state it will be made in
            action = await self.decide(view, seat)
            # (Once the match is over the loop's nursery is cancelled: nothing reads this then.)
            self.inbox.put(Item(Kind.DECIDED, None, (number, seat, action)))

    async def _decided(self, number: int, seat: int, action: Mapping[str, Any] | None) -> None:
        session = self.session
        stage = session.stage
        if stage is not None and number == stage.number + 1 and action is not None:
            await self._decided_ahead(number, seat, action)
            return
        if stage is None or stage.number != number or session.finished or session.fault is not None:
            return  # too late: the stage moved on (a timeout, say)
        if seat not in session.awaiting() and seat not in session.unsettled():
            return
        view = session.clocks().get(seat)
        ms = int(self.clocks.own_elapsed() * 1000)
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
        await self.flush()

    def _refused_decision(self, number: int, seat: int, exc: P2PGeniusError) -> None:
        """The session refused a local decision: say so, and ask again (a decider that keeps
        choosing what the rules refuse, a broken bot, gets the game's timeout instead of being
        asked for ever)."""
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
        if seat not in session.ahead():
            return
        try:
            session.submit(seat, action, ahead=True)
        except P2PGeniusError as exc:
            self.tell(DecisionRefused(seat, str(exc)))
            self._not_ahead.add((number, seat))  # asked again once that stage opens, not before
            self._deciding.pop((number, seat), None)
            return
        await self.flush()

    # -- clocks (p2pgenius.protocol.clocks) -------------------------------------------------------

    def _deadlines(self) -> list[Deadline]:
        """Every clock event still to come at this stage."""
        return self.clocks.deadlines(self.session, self.grace_s)

    async def _on_time(self) -> None:
        """A deadline passed: do what is due, in time order."""
        if self.clocks.ping_due():
            self.links.ping(stalled_after=STALL_PINGS)
            await self.links.handed_over()  # (a round trip measures the network, not this loop)
        if self.clocks.act(self.session, self._deadlines(), self.grace_s, self.tell):
            await self.flush()

    def _on_clock_event(self, event: Event, at: float | None = None) -> None:
        """Timeout claims about our seats answered, disputes of our claims heeded, and other seats'
        declared times checked against what we saw pass until ``at`` (when the message that
        carried it was read: a busy loop does not make it later; None: now)."""
        self.clocks.answer_claim(self.session, event, self.tell)
        self.clocks.check_declared(self.session, event, self.tell, at)
        if isinstance(event, Hashed) and at is not None:
            self.clocks.hashed(event.author, event.stage, at)

    # -- messages (relaying) -----------------------------------------------------------------

    async def _on_payload(
        self, connection: Connection, payload: bytes, now: float, message: wire.Parsed
    ) -> None:
        """A payload read at ``now`` (in trio's clock) on ``connection``, and its message (parsed
        once, where it was read)."""
        session = self.session
        self.files.note(f"<- {payload.hex()}")
        if not isinstance(message, wire.MatchMessage):
            self.tell(Notice("a peer sent something that is not a match message (ignored)"))
            return
        raw = message.raw
        if session.me == 0:  # relay to the others; each checks the author's signature itself
            self.links.relay(payload, connection)
        before = session.signed_log.counts
        for event in session.receive(raw):
            self.report(session.view, event)
            self._on_clock_event(event, now)
            await self._audit_if_due(event)
        self.clocks.progressed(before, session.signed_log.counts, now)
        await self.flush()

    async def flush(self) -> None:
        """What the session has to persist and send: secrets and records to disk first, then
        the messages, queued on every connection (never waiting for one); then its events, told;
        and again while telling them made more (accepting a claim sends a dispute, say)."""
        session = self.session
        while True:
            out = session.flush()
            # Secrets first: a commitment on record whose nonce was lost could never be opened.
            self.files.append(self.files.secrets, out.secrets)
            self.files.append(self.files.transcript, out.records)
            for raw in out.messages:
                payload = wire.match_message(raw)
                self.files.note(f"-> {payload.hex()}")
                self.links.broadcast(payload)
            # They leave before the events are told and the loop goes on (a write that waits for
            # a peer that does not read is not waited for).
            await self.links.handed_over()
            if self.spectators is not None:
                self.spectators.feed()  # (queued, never waited for)
            events = session.take_events()
            for event in events:
                self.report(session.view, event)
                self._on_clock_event(event)
                await self._audit_if_due(event)
            if not events:
                return

    async def _audit_if_due(self, event: Event) -> None:
        """Every audit is in: judge it in a worker thread (it replays the whole match, tens of
        milliseconds), so that nothing on the event loop takes long; the verdict is given back
        here, on the loop, where the session is touched."""
        if not isinstance(event, AuditDue):
            return
        event.conclude(await off_loop(event.judge))
        await self.flush()

    async def _gone(self, connection: Connection) -> None:
        """A connection closed. The match waits: a joiner tries to come back; a host keeps its
        door open; a peer that stays away past the grace period forfeits."""
        session = self.session
        if not self.links.drop(connection):
            return  # (one replaced by a player's new connection: nothing is lost)
        if session.finished or session.fault is not None:
            return
        index = 0 if session.me != 0 else self.links.index_of(connection)
        away = [p for p in range(len(session.keys)) if p != session.me] if session.me != 0 else [index]
        self.clocks.went_away(p for p in away if p is not None)
        if connection.dropped is not None:  # (given up here: it read nothing, or its route is dead)
            who = session.names[index] if index is not None else "a peer"
            self.tell(Notice(f"the connection to {who} was given up: {connection.dropped}"))
        self.tell(ConnectionLost(index))
        self.reconnection.come_back_soon()  # (a joiner's: a host keeps its door open)
