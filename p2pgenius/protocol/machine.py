"""One match as an I/O-free machine, in the manner of h11's ``Connection``: the caller feeds it
what happened (a message read, a local decision, a chat line, a deadline passed, a peer cut off,
the game's verdict on a match whose hidden choices were disclosed) and carries out what each
input gives back (:class:`Step`): the secrets and records to persist (in that order, before
anything is sent), the messages to send, what to tell the person, the verdicts to judge (off the
event loop: they replay the whole match) and whether to ping. It deals in signed match messages
only: how they travel (inside the channel's ``match`` message over TCP or a relay, SPEC section
4a; or any other carrier) is its caller's business.
Between inputs it says when it must be woken (:meth:`MatchMachine.wake_at`) and which local seats
are to be asked for a decision (:meth:`MatchMachine.follow`).

Every rule of time lives here and in :mod:`p2pgenius.protocol.clocks` beneath it: when a local
seat times out, when another seat is claimed, when a claim is answered or disputed, when a
forfeit is sent; all measured on the clock the caller passes (``Clocks.now``). The caller (the
networked peer's ``MatchLoop``, a test) is a pump: read, feed, carry out, sleep until the wake-up.
Nothing here awaits, reads a clock of its own or touches a file or a socket.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Concatenate, Final, ParamSpec

from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.clocks import Clocks, Deadline, seat_words
from p2pgenius.protocol.events import ConnectionLost, DecisionRefused, Hashed, Notice, OutOfTime, Said
from p2pgenius.protocol.session import ClaimDisputed, Decided, Event, Session, TimeoutClaimed, VerdictDue

MAX_REFUSED: Final = 5
"""Refused decisions for one seat and stage before the game's timeout is played for it."""

_TIMED: Final = (ClaimDisputed, TimeoutClaimed, Decided, Hashed)
"""The events the rules of time heed (:meth:`MatchMachine._on_clock_event`): a claim about our
seat, a dispute of ours, another seat's declared time, another peer's hash."""

Key = tuple[int, int]
"""(stage number, seat): one decision a local seat is asked for."""

P = ParamSpec("P")


@dataclass
class Step:
    """What one input gave, for the caller to carry out in this order: ``secrets`` appended to
    the secrets file and ``records`` to the transcript (durably: a commitment on record whose nonce
    was lost could never be opened), then ``messages`` (signed match messages) sent to every other
    peer (a host also relays what it reads, see SPEC section 5), then ``told`` told (the session's
    events reported with its view, the rest said), ``verdicts`` judged off the loop and what
    they find fed back (:meth:`MatchMachine.concluded`). ``ask_again``: decisions whose asker
    must start afresh (one was refused); ``ping``: time to ping every connection."""

    secrets: list[bytes] = field(default_factory=list)
    records: list[bytes] = field(default_factory=list)
    messages: list[bytes] = field(default_factory=list)
    told: list[Event | Said] = field(default_factory=list)
    verdicts: list[VerdictDue] = field(default_factory=list)
    ask_again: list[Key] = field(default_factory=list)
    ping: bool = False


Input = Callable[Concatenate["MatchMachine", P], Step]
"""One of the machine's inputs."""


def _an_input(method: Input[P]) -> Input[P]:
    """An input of the machine: it begins its step afresh (what an input that raised left half
    done is never carried out with the next one's)."""

    def fresh(machine: MatchMachine, /, *args: P.args, **kwargs: P.kwargs) -> Step:
        machine._step = Step()
        return method(machine, *args, **kwargs)

    functools.update_wrapper(fresh, method)
    return fresh


@dataclass(eq=False)  # (one object per match: equal only to itself)
class MatchMachine:
    """One match as this peer plays it: its session and its clocks, with the options of how its
    local seats decide (``decide_early``: ask for the next stage's choice where the game allows
    one now; ``settle_at_once``: a sealed choice stands as soon as it is made, as a bot's does)
    and the grace period. ``resumed``: a resumed peer's (stage, seconds it had run before)."""

    session: Session
    clocks: Clocks
    grace_s: float
    decide_early: bool = False
    settle_at_once: bool = False
    resumed: tuple[int, float] | None = None
    _not_early: set[Key] = field(default_factory=set)  # refused early: asked once that stage opens
    _refused: dict[Key, int] = field(default_factory=dict)
    _step: Step = field(default_factory=Step)

    # -- between inputs ------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the match is over here (finished, or stopped by a fault)."""
        return self.session.finished or self.session.fault is not None

    def wake_at(self) -> float:
        """When the caller must call :meth:`tick` at the latest (on the clocks' clock)."""
        return self.clocks.next_deadline(self._deadlines())

    def follow(self) -> tuple[set[Key], tuple[int, float] | None]:
        """The decisions to ask the local seats for now, and the stage that began here if it is
        new (its number, and the seconds it had run before this process resumed it)."""
        session = self.session
        number = session.stage.number if session.stage is not None else -1
        away = 0.0
        if self.resumed is not None and self.resumed[0] == number:
            away = self.resumed[1]
        self.resumed = None
        began = (number, away) if self.clocks.follow(number, away) else None
        wanted = {(number, seat) for seat in session.awaiting()}
        if self.decide_early:  # (a choice for the next stage, where the game allows one now)
            wanted |= {(number + 1, seat) for seat in session.early()} - self._not_early
        return wanted, began

    def refusals(self, key: Key) -> int:
        """How many decisions for ``key`` were refused (its asker waits a little more each time)."""
        return self._refused.get(key, 0)

    # -- inputs ---------------------------------------------------------------------------------

    @_an_input
    def start(self) -> Step:
        """Play begins (or begins again after a restart): every other peer counts as just heard,
        the first ping is due, and what the session has to persist and send already is given."""
        self.clocks.start(self.session)
        return self._flush()

    @_an_input
    def received(self, raw: bytes, at: float) -> Step:
        """A signed match message from a peer, read at ``at`` (on the clocks' clock)."""
        counts = self.session.chain.next_seq  # (how many messages of each author it holds)
        before = tuple(counts)
        for event in self.session.receive(raw):
            self._step.told.append(event)
            self._on_clock_event(event, at)
            self._verdict_if_due(event)
        self.clocks.progressed(before, counts, at)
        return self._flush()

    @_an_input
    def decided(self, number: int, seat: int, action: Mapping[str, Any] | None) -> Step:
        """A local seat's decision for stage ``number`` (None: an optional action let pass);
        one for the next stage is a choice made early (see ``Session.early``)."""
        session = self.session
        stage = session.stage
        if stage is not None and number == stage.number + 1 and action is not None:
            return self._decided_early(number, seat, action)
        if stage is None or stage.number != number or self.over:
            if action is not None and not self.over and (stage is None or number < stage.number):
                # Too late: the stage moved on (a timeout, say). Nothing is played; said, so that a
                # person who saw "sent" does not believe it was.
                late = "the turn had ended before this choice arrived: it was not played"
                self._step.told.append(DecisionRefused(seat, late))
            return self._step
        if seat not in session.awaiting() and seat not in session.unsettled():
            return self._step
        view = session.clocks(seat).get(seat)
        ms = int(self.clocks.own_elapsed() * 1000)
        if seat in stage.optional:
            ms, view = 0, None  # a challenge window is not on the clock
        try:
            if view is not None and ms >= view.left_ms:
                self._step.told.append(OutOfTime(seat, who=seat_words(session, seat)))
                session.choices.time_out(seat)
            elif action is None:
                session.decline(seat, ms=ms)
            else:
                session.submit(seat, action, ms=ms)
                if seat in session.unsettled() and (self.settle_at_once or stage.waiting == (seat,)):
                    # A bot does not change its mind; nor is there anything to wait for when this
                    # seat is the only one choosing (a Paralysis's hand): its choice stands now.
                    session.choices.finalize(seat)
        except P2PGeniusError as exc:
            self._refused_decision(number, seat, exc)
        return self._flush()

    @_an_input
    def settle(self, number: int, seat: int) -> Step:
        """Let a local seat's sealed choice stand now, before its minute is up."""
        session = self.session
        if session.stage is None or session.stage.number != number or seat not in session.unsettled():
            return self._step  # (the turn moved on, or the choice stands already)
        session.choices.finalize(seat)
        return self._flush()

    @_an_input
    def chat(self, text: str) -> Step:
        """Say something to the table."""
        try:
            self.session.chat(text)
        except P2PGeniusError as exc:
            self._step.told.append(Notice(str(exc)))
        return self._flush()

    @_an_input
    def tick(self) -> Step:
        """A wake-up time came: do what is due (a ping first, then one deadline)."""
        self._step.ping = self.clocks.ping_due()
        if self.clocks.act(self.session, self._deadlines(), self.grace_s, self._step.told.append):
            return self._flush()
        return self._step

    def heard(self, round_trip: float | None) -> None:
        """A ping was read, or the answer to one of ours (``round_trip``: after how long)."""
        if round_trip is not None:  # (a ping of theirs: answered by the connection itself)
            self.clocks.round_trip(round_trip)

    @_an_input
    def gone(self, peer: int | None, why: str | None = None) -> Step:
        """The connection to ``peer`` (None: the host, for a joiner, or unknown) closed; ``why``:
        why this side gave it up, if it did. The match waits for it as section 5 says."""
        session = self.session
        if self.over:
            return self._step
        away = [p for p in range(len(session.keys)) if p != session.me] if session.me != 0 else [peer]
        self.clocks.went_away(p for p in away if p is not None)
        if why is not None:  # (given up here: it read nothing, or its route is dead)
            who = "the host" if session.me != 0 else session.names[peer] if peer is not None else "a peer"
            self._step.told.append(Notice(f"the connection to {who} was given up: {why}"))
        if session.me != 0:  # (a joiner's one connection is its host's)
            self._step.told.append(ConnectionLost(0, session.names[0], to_host=True))
        else:
            name = session.names[peer] if peer is not None and peer < len(session.names) else None
            self._step.told.append(ConnectionLost(peer, name))
        return self._step

    @_an_input
    def concluded(self, due: VerdictDue, verdict: Any) -> Step:
        """The game's verdict on the match's end, judged off the loop (``due.judge``)."""
        due.conclude(verdict)
        return self._flush()

    # -- the rules of time (a test's dishonest peer overrides these) ----------------------------

    def _deadlines(self) -> list[Deadline]:
        """Every clock event still to come at this stage."""
        return self.clocks.deadlines(self.session, self.grace_s)

    def _on_clock_event(self, event: Event, at: float | None = None) -> None:
        """Timeout claims about our seats answered, disputes of our claims heeded, and other seats'
        declared times checked against what we saw pass until ``at`` (when the message that
        carried it was read: a busy loop does not make it later; None: now)."""
        if not isinstance(event, _TIMED):
            return  # (most events, a turn or a stage applied, are none of these: three calls spared)
        tell = self._step.told.append
        self.clocks.answer_claim(self.session, event, tell)
        self.clocks.check_declared(self.session, event, tell, at)
        if isinstance(event, Hashed) and at is not None:
            self.clocks.hashed(event.author, event.stage, at)

    # -- within ---------------------------------------------------------------------------------

    def _refused_decision(self, number: int, seat: int, exc: P2PGeniusError) -> None:
        """The session refused a local decision: say so, and ask again (a decider that keeps
        choosing what the rules refuse, a broken bot, gets the game's timeout instead of being
        asked for ever)."""
        self._step.told.append(DecisionRefused(seat, str(exc)))
        refused = self._refused[(number, seat)] = self._refused.get((number, seat), 0) + 1
        if refused >= MAX_REFUSED:
            said = f"p{seat}: {refused} choices refused in a row; the rules' timeout is played"
            self._step.told.append(Notice(said))
            with contextlib.suppress(P2PGeniusError):
                self.session.choices.time_out(seat)
        else:
            self._step.ask_again.append((number, seat))

    def _decided_early(self, number: int, seat: int, action: Mapping[str, Any]) -> Step:
        """A choice for the next stage, made while this one is still open; refused, the seat is
        simply asked again once that stage opens."""
        session = self.session
        if seat not in session.early():
            return self._step
        try:
            session.submit(seat, action, early=True)
        except P2PGeniusError as exc:
            self._step.told.append(DecisionRefused(seat, str(exc)))
            self._not_early.add((number, seat))
            self._step.ask_again.append((number, seat))
            return self._step
        return self._flush()

    def _verdict_if_due(self, event: Event) -> None:
        if isinstance(event, VerdictDue):
            self._step.verdicts.append(event)

    def _flush(self) -> Step:
        """Take what the session has to persist and send, and its events (each also heard by the
        clocks), again while hearing them made more (accepting a claim sends a dispute, say)."""
        session, step = self.session, self._step
        while True:
            out = session.flush()
            step.secrets += out.secrets
            step.records += out.records
            step.messages += out.messages
            events = session.take_events()
            for event in events:
                step.told.append(event)
                self._on_clock_event(event)
                self._verdict_if_due(event)
            if not events:
                return self._step
