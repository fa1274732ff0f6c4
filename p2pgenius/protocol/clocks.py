"""The match's clocks as one peer keeps them, on whatever clock its caller passes (``now``: the
networked peer passes trio's, a test a fake one).

The session says how much time each seat's clock had when the stage began (a function of the
transcript); this measures the time since, here. From the two come the deadlines: a local seat's
own timeout, a claim against another seat that is late by more than the network's lag, the
forfeit of a claim left unanswered or of a peer silent for the grace period, the game's warnings
on "round" clocks, and the pings that measure the lag and keep connections alive.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from p2pgenius.errors import LocalMisuseError, PeerGoneError
from p2pgenius.games.registry import get_spec
from p2pgenius.protocol.bodies import SETUP
from p2pgenius.protocol.events import (
    ClockWarning,
    OutOfTime,
    Tell,
    TimeoutClaimSent,
    TimeoutDisputed,
    TimeUnderDeclared,
)
from p2pgenius.protocol.session import ClaimDisputed, ClockView, Decided, Event, Session, TimeoutClaimed
from p2pgenius.protocol.session.debts import GRACE, Debt
from p2pgenius.protocol.session.ledger import MAX_ALLOWANCE_MS

PING_S: Final = 10.0
"""How often a peer pings each connection (round-trip times for the lag allowance; liveness)."""
STALL_PINGS: Final = 3
"""A connection whose other side answered none of this many pings of ours is closed as dead: a
peer there answers pings at once, so the silence is the route's (a relay that holds bytes back, a
NAT that forgot the mapping, a cable pulled) or the peer does not read (its own bytes, pings
included, do not show that it reads ours: only a pong does). The joiner then comes back another way
or the same way anew, and a peer cut off is waited for as section 5's table says (never claimed
for the route's silence)."""
LAG_FLOOR_S: Final = 1.0
"""The least lag allowed before claiming another seat's timeout (plus twice the round trip)."""
MAX_ALLOWANCE_S: Final = MAX_ALLOWANCE_MS / 1000
"""The most lag allowed, however slow a peer's pongs or hashes (every peer's bound: an observed
time beyond what it allows is refused, see ``TimeLedger.most_seen``)."""
OPENED_KEPT: Final = 8
"""How many recent stages' opening times are kept (to measure peers' processing time)."""
PROCESSING_KEPT: Final = 5
"""How many recent processing times of a peer count (the largest is allowed for)."""


class Due(StrEnum):
    """What a deadline is for."""

    EXPIRE = "expire"  # a local seat's clock ran out: its timeout is played
    CLAIM = "claim"  # a debt on another's clock, run out: claimed
    WARN = "warn"  # a round clock's warning mark (the deadline's detail: the mark, in seconds)
    FORFEIT = "forfeit"  # a claim left unanswered for the grace period (detail 1: or for what
    # was left of the seat's grace past its clock, see ``Clocks.overtime``)
    LATE = "late"  # a debt on the grace period, unpaid: claimed
    CONFIRM = "confirm"  # another's forfeit, checked here (detail: its stage)
    WALKING = "walking"  # before the deal: a peer that has not opened its coin share, claimed
    WALKED = "walked"  # ... and then forfeited
    STUCK = "stuck"  # the match made no progress for the grace period (seat -1)


@dataclass(frozen=True, slots=True, order=True)
class Deadline:
    """When something is due, what, for which seat (a peer, for WALKING and WALKED), and its
    detail (see :class:`Due`); deadlines sort by time (then by the rest, so that the order of
    two at one instant never depends on the order they were found in)."""

    when: float
    what: Due
    seat: int
    detail: int


def patience(session: Session, grace_s: float) -> float:
    """The most a debt on the grace period waits for its debtor's connection to come back: as
    long as one of its decisions may take (the match's longest time limit), never less than the
    grace period. It is one allowance per debt, used up by the time the debtor is away while it
    owes, never renewed by coming back (protocol/SPEC.md, section 6, "What is owed")."""
    if session.terms is None:
        return grace_s
    spec, options = get_spec(session.terms["game"]), session.terms["options"]
    limits = [float(options.get(t.name, t.seconds)) for t in spec.time_options]
    return max([grace_s, *limits])


def seat_words(session: Session, seat: int) -> str:
    """The seat's player and the seat, in words: "bob (p3)" (the seat alone before the deal)."""
    owner = session.owner
    return f"{session.names[owner[seat]]} (p{seat})" if seat < len(owner) else f"p{seat}"


def debt_words(session: Session, seat: int) -> tuple[str, str]:
    """(the seat's player, what it owes now), in words, for what the screen says of a claim."""
    who = seat_words(session, seat)
    debt = next((d for d in session.debts() if d.seat == seat and d.stage != SETUP), None)
    return who, debt.rule.owed.replace("`", "") if debt is not None else ""


def warnings(session: Session) -> tuple[int, ...]:
    """The seconds left on a "round" clock at which the match's game warns its player."""
    return get_spec(session.terms["game"]).warnings if session.terms is not None else ()


@dataclass
class Clocks:
    """What this peer measures: when the current stage began here, when each debt fell due here,
    what it claimed and warned of, and the round trips of its pings; ``now`` reads the caller's
    clock (seconds, monotonic). It reads no clock of its own and does no I/O: the caller feeds it
    the session and what the network did, asks for the deadlines, sleeps until the next one and
    calls :meth:`act`."""

    now: Callable[[], float]

    stage_number: int = -2
    stage_at: float = 0.0  # when the current stage began here (other seats' clocks run from it)
    own_at: float = 0.0  # when it began for this peer's own seats: earlier on a resumed stage
    claimed: dict[int, float] = field(default_factory=dict)  # seat -> when we claimed its timeout
    disputed: dict[int, float] = field(default_factory=dict)  # seat -> no new claim before then
    walk_claimed: dict[int, float] = field(default_factory=dict)  # peer -> claimed: its coin share
    due: dict[tuple[str, int, int], tuple[float, float]] = field(default_factory=dict)
    """(kind, seat, stage) of each debt on the grace period -> (when it fell due here, how long
    its debtor had been cut off in all by then: see :meth:`away_for`)."""
    forfeit_seen: dict[tuple[int, int], float] = field(default_factory=dict)  # another's forfeit: read
    warned: set[tuple[int, int, int]] = field(default_factory=set)
    back: dict[int, float] = field(default_factory=dict)  # peer -> when its connection came back
    away: dict[int, float] = field(default_factory=dict)  # peer -> since when it is cut off
    gone: dict[int, float] = field(default_factory=dict)  # peer -> seconds cut off, earlier absences
    late: dict[int, tuple[int, float, tuple[int, int]]] = field(default_factory=dict)
    """Another seat owing on its clock -> (the stage, when it is late here: its clock as we keep
    it, plus the lag allowance; the budget its time past that is taken from)."""
    cutoff: dict[int, float] = field(default_factory=dict)
    """Another seat owing on its clock -> when, at this stage, it has used up its grace past its
    clock: a claim about it that stands then is a forfeit, however recent."""
    overtime: dict[tuple[int, int], float] = field(default_factory=dict)
    """(seat, round) -> seconds it kept the match waiting past the moment it was late, over its
    decisions of the round (a game without rounds: of the match). At most the grace period is
    ever granted so, per seat and round: a fresh clock a decision, or a dispute, does not renew
    it (protocol/SPEC.md, section 6, "Forfeits")."""
    progress: dict[int, float] = field(default_factory=dict)  # peer -> its last accepted message
    rtts: list[float] = field(default_factory=list)
    under: dict[tuple[int, int], float] = field(default_factory=dict)
    """(seat, clock key) -> seconds another seat's decisions on that clock declared less than we
    saw pass (less the lag allowance): on a round clock, summed over the round."""
    under_now: dict[tuple[int, int], tuple[int, float]] = field(default_factory=dict)
    """(seat, clock key) -> (stage, seconds) of ``under`` that decisions of that stage added: a
    seat whose clock still runs after it decided at the stage (a sealed choice that may change
    until its time is up) has those seconds in the time since the stage began already."""
    keys: dict[int, int] = field(default_factory=dict)  # seat -> the key of its clock when last running
    kinds: dict[int, str] = field(default_factory=dict)  # seat -> the kind of that clock
    excused: dict[tuple[int, int], float] = field(default_factory=dict)
    """(seat, round) -> seconds of its decisions on a round clock not judged against that clock
    because its peer came back mid-stage (they are judged from its return: it may not have seen
    the stage open). They come out of the same grace as ``overtime``; past it, they count on the
    clock: its clock runs on while it is away, and coming back renews nothing."""
    grace_s: float = math.inf  # (the grace period the deadlines were last worked out with)
    opened: dict[int, float] = field(default_factory=dict)  # stage -> when it opened here (recent ones)
    processing: dict[int, list[float]] = field(default_factory=dict)
    """peer -> how long it took to apply recent stages, as its hashes showed (seconds): a slow
    machine (or a peer that runs another program for its claims) opens each stage later than
    we do, and its decisions must not look late for that."""
    next_ping: float = 0.0
    ping_s: float = PING_S  # (a test that spans a week of a fake clock pings less often)
    absent: bool = False
    """The other peers are never connected (correspondence: they come by letters, at their
    visits): each debt of theirs on the grace period waits as a peer cut off all along would,
    the grace period and :func:`patience` (protocol/SPEC.md, section 4f)."""

    def start(self, session: Session) -> None:
        """Play begins (or begins again after a restart): every other peer counts as just heard."""
        now = self.now()
        self.progress = {peer: now for peer in range(len(session.keys)) if peer != session.me}
        self.next_ping = now  # a round trip measured before the first decision is judged

    def follow(self, number: int, away: float = 0.0) -> bool:
        """The session is at stage ``number``: if it is a new one, it began now; True if it is
        new. ``away``: a resumed peer's stage that began that many seconds before, which its own
        seats' clocks go on from (the other seats' run from now: their decisions and claims may
        have waited for this peer, and judging them by the time it was away would wrong them)."""
        if number != self.stage_number:
            self.stage_number = number
            self.stage_at = self.now()
            self.opened[number] = self.stage_at
            for old in [n for n in self.opened if n < number - OPENED_KEPT]:
                del self.opened[old]
            self.own_at = self.stage_at - away
            self.claimed.clear()
            self.disputed.clear()
            return True
        return False

    def elapsed(self) -> float:
        """Seconds since the current stage began here."""
        return self.now() - self.stage_at

    def own_elapsed(self) -> float:
        """Seconds this peer's own seats have spent on the current stage."""
        return self.now() - self.own_at

    def began(self, session: Session, seat: int) -> float:
        """When ``seat``'s clock started on the current stage, as this peer keeps it."""
        return self.own_at if seat in session.my_seats else self.stage_at

    def judged_from(self, session: Session, seat: int) -> float:
        """When what another seat's decision declared is judged from: the stage's start here, or
        later if its peer's connection came back since (until then it could not see the stage,
        or its answer could not reach us). Claims still run from the stage's start: a peer that
        reconnects must not thereby put its clock off; its own clock answers a claim. (On a round
        clock, what this excuses is granted only out of the seat's grace: :meth:`_judge`.)"""
        start = self.began(session, seat)
        peer = session.owner[seat] if seat < len(session.owner) else None
        return max(start, self.back.get(peer, start)) if peer is not None else start

    def came_back(self, peers: Iterable[int]) -> None:
        """The connection to ``peers`` came back (a joiner's to its host: every other peer)."""
        now = self.now()
        for peer in peers:
            self.back[peer] = now
            if peer in self.away:
                self.gone[peer] = self.gone.get(peer, 0.0) + now - self.away.pop(peer)

    def away_for(self, peer: int) -> float:
        """Seconds ``peer``'s connection has been down here in all, its current absence included
        (a debt on the grace period waits that long more, within :func:`patience`)."""
        now = self.now()
        return self.gone.get(peer, 0.0) + (now - self.away[peer] if peer in self.away else 0.0)

    def went_away(self, peers: Iterable[int]) -> None:
        """The connection to ``peers`` was lost (a joiner's to its host: every other peer)."""
        now = self.now()
        for peer in peers:
            self.away.setdefault(peer, now)

    def readings(self, session: Session) -> dict[int, tuple[str, float, bool]]:
        """Every seat's clock as this peer shows it: (kind, seconds left, running). Every clock
        runs from when the stage began here (a resumed stage: before the restart, as its note
        says), as the other peers show it; a claim against another seat waits longer than that
        (``judged_from``), which the screen need not show."""
        if self.stage_number == -2:
            return {}  # (not playing yet: a resumed match before its loop has begun)
        now = self.now()
        return {
            seat: (
                view.kind,
                max(view.left_ms / 1000 - (now - self.own_at if view.running else 0), 0),
                view.running,
            )
            for seat, view in session.clocks().items()
        }

    def allowance(self, peer: int | None = None) -> float:
        """How late another seat may be before it is claimed to have run out: network lag, and
        the time ``peer`` takes to apply a stage (capped, so a peer cannot buy time by answering
        pings or sending its hashes late)."""
        lag = LAG_FLOOR_S + 2 * max(self.rtts, default=0.0)
        if peer is not None:
            lag += max(self.processing.get(peer, ()), default=0.0)
        return min(lag, MAX_ALLOWANCE_S)

    def seat_allowance(self, session: Session, seat: int) -> float:
        """:meth:`allowance` for the peer holding ``seat``."""
        return self.allowance(session.owner[seat] if seat < len(session.owner) else None)

    def hashed(self, peer: int, stage: int, now: float) -> None:
        """``peer``'s hash of ``stage`` came: it had applied the stage by then. What it took
        beyond a round trip after the next stage opened here is its processing time."""
        opened = self.opened.get(stage + 1)
        if opened is not None:
            took = max(now - opened - max(self.rtts, default=0.0), 0.0)
            self.processing[peer] = [*self.processing.get(peer, [])[-(PROCESSING_KEPT - 1) :], took]

    # -- what the network says ---------------------------------------------------------------

    def progressed(self, before: Sequence[int], after: Sequence[int], now: float) -> None:
        """The session accepted messages: ``before``/``after`` are its counts per author."""
        for author, (old, new) in enumerate(zip(before, after, strict=True)):
            if new > old:
                self.progress[author] = now

    def round_trip(self, seconds: float) -> None:
        """A connection timed a round trip (its ping answered): the lag allowance follows the
        latest ones."""
        self.rtts = [*self.rtts[-4:], seconds]

    # -- deadlines ---------------------------------------------------------------------------

    def deadlines(self, session: Session, grace_s: float) -> list[Deadline]:
        """Every clock event still to come at this stage: for each of the session's debts, the one
        rule of its kind (``p2pgenius.protocol.session.debts``), and what follows a claim."""
        self.grace_s = grace_s
        debts = session.debts()
        owed = {debt.seat for debt in debts if debt.stage != SETUP}
        views = session.clocks()
        out = self._on_clocks(session, views, owed, grace_s)
        out += self._after_claims(session, owed, grace_s)
        out += self._late(session, debts, grace_s)
        out += self._forfeits_to_check(session, views, grace_s)
        if session.stage is None and session.outcome is None and not debts:  # still setting up
            out.append(Deadline(max(self.progress.values(), default=0.0) + grace_s, Due.STUCK, -1, 0))
        return out

    def _on_clocks(
        self, session: Session, views: Mapping[int, ClockView], owed: set[int], grace_s: float
    ) -> list[Deadline]:
        """The debts on a running clock (a decision, a duel's final): a local seat's own timeout,
        a claim against another seat once it is late by more than the lag allowance, and the
        game's warnings on "round" clocks."""
        self._charge_overtime(session, views, owed)
        self.cutoff = {}
        out: list[Deadline] = []
        for seat, view in views.items():
            if not view.running:
                continue
            self.keys[seat], self.kinds[seat] = view.key, view.kind
            end = self.began(session, seat) + view.left_ms / 1000
            if seat in session.my_seats:
                out.append(Deadline(end, Due.EXPIRE, seat, 0))
            elif seat in owed:
                out += self._claim(session, seat, view, grace_s)
            if view.kind == "round":
                budget = session.stage.clocks[seat][0].budget_ms / 1000 if session.stage else 0
                for mark in warnings(session):  # (a mark the round never had is no warning)
                    if mark < budget and (seat, view.key, mark) not in self.warned:
                        out.append(Deadline(end - mark, Due.WARN, seat, mark))
        return out

    def _claim(self, session: Session, seat: int, view: ClockView, grace_s: float) -> list[Deadline]:
        """Another seat owing on its running clock: claimed once it is late (its clock, as we
        keep it, run out, plus the lag allowance), or after the time a dispute said it had left;
        and, whatever a dispute said, no later than its cutoff: the moment it has taken, past
        the clock, the grace period in all this round (a game without rounds: this match)."""
        # Judged by what we saw, not only by what it declared: a peer that declares 0 ms for
        # every decision of a round has still spent the time we saw pass.
        seen_left = view.left_ms / 1000 - self._under_before(seat, view.key)
        wait = self.seat_allowance(session, seat)
        late_at = self.began(session, seat) + max(seen_left, 0.0) + wait
        budget = (seat, session.played.clockbook.round_key)
        self.late[seat] = (self.stage_number, late_at, budget)
        spare = grace_s - self.overtime.get(budget, 0.0) - self.excused.get(budget, 0.0)
        cutoff = self.cutoff[seat] = late_at + max(spare, 0.0)
        if seat in self.claimed:
            return []
        disputed = self.disputed.get(seat)
        claim_at = late_at if disputed is None else max(late_at, disputed + wait)
        return [Deadline(min(claim_at, cutoff), Due.CLAIM, seat, 0)]

    def _charge_overtime(self, session: Session, views: Mapping[int, ClockView], owed: set[int]) -> None:
        """Seats that were on their clock here and are no longer (they paid, or the stage moved
        on): the time each kept the match waiting past the moment it was late (until its
        peer's last message here, no later than now) is taken from its grace past its clock."""
        for seat, (stage, late_at, budget) in list(self.late.items()):
            view = views.get(seat)
            if stage == self.stage_number and view is not None and view.running and seat in owed:
                continue
            del self.late[seat]
            peer = session.owner[seat] if seat < len(session.owner) else None
            paid = min(self.now(), self.progress.get(peer, late_at) if peer is not None else late_at)
            if paid > late_at:
                self.overtime[budget] = self.overtime.get(budget, 0.0) + paid - late_at

    def _after_claims(self, session: Session, owed: set[int], grace_s: float) -> list[Deadline]:
        """Our claims still standing: each forfeits once unanswered for the grace period, or, on
        a clock, once the seat's cutoff has passed (its grace past its clock used up, by earlier
        decisions or by this one); one answered (a decision, a dispute) though something is
        still owed is forgotten, so that the seat is claimed anew."""
        number = session.stage.number if session.stage is not None else -1
        out: list[Deadline] = []
        for seat, at in list(self.claimed.items()):
            if seat in owed and session.me in session.time.claimants((number, seat)):
                when = max(at, min(at + grace_s, self.cutoff.get(seat, math.inf)))
                # (Its reason says which came first, to the second it words them in: a claim made
                # a moment after the seat was late forfeits at its cutoff, a moment early.)
                out.append(Deadline(when, Due.FORFEIT, seat, int(when < at + grace_s - 0.5)))
            else:
                del self.claimed[seat]
        return out

    def _forfeits_to_check(
        self, session: Session, views: Mapping[int, ClockView], grace_s: float
    ) -> list[Deadline]:
        """Another peer's forfeit, checked ourselves: not before the seat's own clock (as we keep
        it) has run out and any time its peer said it still had (a dispute) has passed; then our
        own grace period; and no later than the seat's cutoff, when we would forfeit it
        ourselves."""
        out: list[Deadline] = []
        for stage, seat in session.referee.forfeits_pending():
            since = self.forfeit_seen.setdefault((stage, seat), self.now())
            shown = views.get(seat) if stage >= 0 else None
            if shown is not None and shown.running:
                since = max(since, self.stage_at + shown.left_ms / 1000 + self.seat_allowance(session, seat))
            if stage >= 0 and seat in self.disputed:
                since = max(since, self.disputed[seat] + self.seat_allowance(session, seat))
            when = since + grace_s
            if stage == self.stage_number and seat in self.cutoff:  # (as our own forfeit would)
                when = max(self.forfeit_seen[(stage, seat)], min(when, self.cutoff[seat]))
            out.append(Deadline(when, Due.CONFIRM, seat, stage))
        return out

    def _late(self, session: Session, debts: Sequence[Debt], grace_s: float) -> list[Deadline]:
        """The debts on the grace period (an opening, a window, a disclosure, a result, a coin share):
        each another peer's is claimed once the grace period has passed since it fell due, as we
        saw it, and then forfeited if the claim goes unanswered as long. The time its debtor's
        connection was down while it owed the debt (it could not pay, nor perhaps see the debt
        fall due) is added, at most :func:`patience` per debt in all: away an hour in a turn of
        a week is not gone, and coming back gives no new grace period (a debtor that drops and
        comes back every few seconds is claimed as if it had stayed away). Nothing else
        counts: pings say a peer is there, not that it paid; and a seat with time on its clock
        owes nothing yet, away or not."""
        now = self.now()
        due = {(debt.kind, debt.seat, debt.stage) for debt in debts if debt.rule.deadline == GRACE}
        for key in [key for key in self.due if key not in due]:
            del self.due[key]  # (paid)
        most = patience(session, grace_s)
        out: list[Deadline] = []
        for debt in debts:
            if debt.rule.deadline != GRACE:
                continue
            peer = debt.seat if debt.stage == SETUP else session.owner[debt.seat]
            fell_due, away_then = self.due.setdefault(
                (debt.kind, debt.seat, debt.stage), (now, self.away_for(peer))
            )
            if peer == session.me:
                continue
            when = fell_due + grace_s + min(self.away_for(peer) - away_then, most)
            if (peer in self.away and when > now) or self.absent:
                when = fell_due + grace_s + most  # (its absence counts on, up to the bound)
            if debt.stage == SETUP:  # (a peer, before the deal: its coin share)
                claimed = self.walk_claimed.get(debt.seat)
                if claimed is None:
                    out.append(Deadline(when, Due.WALKING, debt.seat, 0))
                else:
                    out.append(Deadline(claimed + grace_s, Due.WALKED, debt.seat, 0))
            elif debt.seat not in self.claimed:
                out.append(Deadline(when, Due.LATE, debt.seat, 0))
        return out

    def next_deadline(self, deadlines: Iterable[Deadline]) -> float:
        """When the match loop must look at the clocks next (the next ping at the latest)."""
        return min([self.next_ping] + [deadline.when for deadline in deadlines])

    def ping_due(self) -> bool:
        """Whether it is time for the next ping (then the one after is scheduled)."""
        now = self.now()
        if now < self.next_ping:
            return False
        self.next_ping = now + self.ping_s
        return True

    def act(self, session: Session, deadlines: Iterable[Deadline], grace_s: float, tell: Tell) -> bool:
        """Do the first deadline that has passed; returns whether the session changed (the
        deadlines must then be worked out afresh). Raises PeerGoneError if the match never
        started."""
        now = self.now()
        for deadline in sorted(deadlines):
            if deadline.when > now or session.finished or session.fault is not None:
                break
            self._do(deadline, session, grace_s, tell)
            return True
        return False

    def _do(self, deadline: Deadline, session: Session, grace_s: float, tell: Tell) -> None:
        """What a deadline that has passed calls for."""
        what, seat, now = deadline.what, deadline.seat, self.now()
        if what is Due.EXPIRE:
            if seat in session.awaiting():  # (not a changeable choice's time running out)
                tell(OutOfTime(seat, timeout_played=True, who=seat_words(session, seat)))
            with contextlib.suppress(LocalMisuseError):
                session.choices.time_out(seat)
        elif what in (Due.CLAIM, Due.LATE):
            # Owed and unpaid (on its clock, or for the grace period): claim first, signed; the
            # seat's peer, if it is there at all, answers it, and a claim left unanswered for
            # the grace period becomes a forfeit. A forfeit is never a bare assertion.
            observed = int((now - self.stage_at) * 1000)
            self.claimed[seat] = now
            tell(TimeoutClaimSent(seat, observed, *debt_words(session, seat)))
            session.referee.claim_timeout(seat, observed)
        elif what is Due.WARN:
            self._warn(session, seat, deadline.detail, tell)
        elif what in (Due.FORFEIT, Due.WALKED):
            reason = f"no answer to a timeout claim for {grace_s:.0f} seconds"
            if deadline.detail:  # (sooner: its clock spent, and its grace past it)
                reason = (
                    f"no answer to a timeout claim, its clock and its {grace_s:.0f} seconds past it spent"
                )
            with contextlib.suppress(LocalMisuseError):
                session.referee.forfeit(seat, reason)
        elif what is Due.CONFIRM:  # (the detail: the stage) silent for our own grace period too
            session.referee.confirm_forfeit(deadline.detail, seat)
        elif what is Due.WALKING:  # (seat: a peer) claim first, signed, as for any silence
            self.walk_claimed[seat] = now
            session.referee.claim_walkaway(seat, int((now - self.stage_at) * 1000))
        else:
            raise PeerGoneError(f"the match did not start: no answer for {grace_s:.0f} seconds")

    def _warn(self, session: Session, seat: int, mark: int, tell: Tell) -> None:
        """A round clock reached a warning mark: say so, once for every mark it has passed."""
        view = session.clocks()[seat]
        left = view.left_ms / 1000 - (self.now() - self.began(session, seat))
        # (The deadline's own mark has passed, whatever the float arithmetic says: a clock that
        # does not move on between the deadline and now, a test's, would spin.)
        reached = {m for m in warnings(session) if m >= left} | {mark}
        passed = [m for m in sorted(reached) if (seat, view.key, m) not in self.warned]
        self.warned.update((seat, view.key, m) for m in reached)
        tell(ClockWarning(seat, 1000 * min(passed or [mark]), view.kind))

    def check_declared(self, session: Session, event: Event, tell: Tell, at: float | None = None) -> None:
        """Another seat's decision declared less time than we saw pass before it (until ``at``,
        when its message was read; None: now), less the lag allowance: say so, signed, on the
        record. Every peer still charges the declared time, so the clocks agree; a peer that
        under-declares is shown, decision by decision."""
        if not isinstance(event, Decided) or event.stage != self.stage_number:
            return
        allowed = self.seat_allowance(session, event.seat)
        peer = session.owner[event.seat] if event.seat < len(session.owner) else None
        if peer not in self.processing:
            # Its first hash has not shown yet how long its machine takes to apply a stage (a
            # ping cannot: the connection answers those at once): the benefit of the doubt.
            allowed = MAX_ALLOWANCE_S
        arrived = self.now() if at is None else at
        seen = int((arrived - self.judged_from(session, event.seat) - allowed) * 1000)
        if event.seat in self.keys:  # (the clock it decided on: the stage has moved on since)
            whole = int((arrived - self.began(session, event.seat) - allowed) * 1000)
            self._judge(event, seen, whole)
        if seen > event.declared_ms:
            with contextlib.suppress(LocalMisuseError):
                session.referee.note_observed(event.stage, event.seat, seen)
                tell(TimeUnderDeclared(event.seat, event.declared_ms, seen))

    def _judge(self, event: Decided, seen_ms: int, whole_ms: int) -> None:
        """Take what another seat's decision declared less than we saw pass (``seen_ms``, from
        its peer's return if it came back mid-stage) off its clock as we judge it (``under``: on
        a round clock, summed over the round). On a round clock what the return excused (the
        stage's time before it: ``whole_ms`` less ``seen_ms``) is granted only out of the seat's
        grace; past that, it counts on the clock too. (A peer away whenever a stage opened was
        judged from each return, and so never seen to spend its round.)"""
        seat, key = event.seat, self.keys[event.seat]
        judged = max(seen_ms - event.declared_ms, 0) / 1000
        excused = max(whole_ms - event.declared_ms, 0) / 1000 - judged
        if excused > 0 and self.kinds.get(seat) == "round":  # (a round clock's key: its round)
            spare = self.grace_s - self.overtime.get((seat, key), 0.0) - self.excused.get((seat, key), 0.0)
            granted = min(excused, max(spare, 0.0))
            self.excused[(seat, key)] = self.excused.get((seat, key), 0.0) + granted
            judged += excused - granted
        if judged > 0:
            self.under[(seat, key)] = self.under.get((seat, key), 0.0) + judged
            stage, now = self.under_now.get((seat, key), (self.stage_number, 0.0))
            self.under_now[(seat, key)] = (
                self.stage_number,
                judged + (now if stage == self.stage_number else 0.0),
            )

    def _under_before(self, seat: int, key: int) -> float:
        """What ``seat``'s decisions on clock ``key`` declared less than we saw pass, before the
        stage under way (what it added at this stage is in the time since the stage began)."""
        stage, now = self.under_now.get((seat, key), (-1, 0.0))
        return self.under.get((seat, key), 0.0) - (now if stage == self.stage_number else 0.0)

    def answer_claim(self, session: Session, event: Event, tell: Tell) -> None:
        """A timeout claim about one of our seats: accept it if our own clock agrees (within a
        second), else dispute it, signed, with the time our clock has left (once a stage: the
        next claim comes after that time, when our clock agrees). A dispute of our claim: no new
        claim before the time its peer says it has left."""
        if isinstance(event, ClaimDisputed) and event.stage == self.stage_number:
            self.claimed.pop(event.seat, None)
            # No new claim before the time it says it has left, unless we saw it spend more of
            # its round than it declared: then no more than what we saw it has (a round's time
            # is bounded by what passed, not by the sum of what was declared).
            left = event.left_ms / 1000
            view = session.clocks().get(event.seat)
            under = self._under_before(event.seat, view.key) if view is not None else 0.0
            if under > 0 and view is not None:
                seen_left = view.left_ms / 1000 - under - (self.now() - self.stage_at)
                left = min(left, max(seen_left, 0.0))
            self.disputed[event.seat] = self.now() + left
            return
        if not isinstance(event, TimeoutClaimed) or event.seat not in session.my_seats:
            return
        view = session.clocks().get(event.seat)
        if view is None or event.stage != self.stage_number:
            return
        elapsed = self.own_elapsed()
        if elapsed + 1.0 >= view.left_ms / 1000:
            with contextlib.suppress(LocalMisuseError):
                session.choices.time_out(event.seat)
        else:
            left = int((view.left_ms / 1000 - elapsed) * 1000)
            with contextlib.suppress(LocalMisuseError):
                session.referee.dispute(event.seat, left)
            claimant = session.names[event.author]
            tell(TimeoutDisputed(event.seat, claimant, event.observed_ms, int(elapsed * 1000), left))
