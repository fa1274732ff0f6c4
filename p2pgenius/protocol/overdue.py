"""What one peer owed when its transcript stops, and from when the others may have claimed it.

A peer that crashed and comes back long after (``resume``), or a record that lists its match
(``history``), can tell from the transcript alone what the match waited on from that peer (its
debts, SPEC section 6, "What is owed") and, with two times read beside it, since when: the note of
when the current stage began on this machine (a debt on a clock ran out that much later) and when
the transcript was last written (a debt on the grace period fell due by then at the latest). The
other peers claim a debt once it is late, and forfeit the peer if the claim goes unanswered: a
peer whose debt is late and who cannot reach the others has *most likely* been forfeited. Most
likely, never proven: only the others' transcripts hold their claim and forfeit.

No clock is read here: the callers pass the times (seconds since the epoch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.protocol.bodies import SETUP
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.session.debts import CLOCK, GRACE, RULES


@dataclass(frozen=True, slots=True)
class Owed:
    """One debt when the transcript stops: its kind (``debts.py``), the seat (before the deal:
    the peer) and stage, the peer that owes it, and, for a debt on a clock, what that clock had
    when the stage began."""

    kind: str
    seat: int
    stage: int
    peer: int
    clock_ms: int | None = None

    def words(self) -> str:
        """What is owed, where, to the peer that owes it: "p1 (yours) is late with a decision (act
        or commit), or its timeout, at step 3" (steps counted from 1, as ``verify`` and
        ``export`` count them)."""
        what = RULES[self.kind].owed.replace("`", "")
        if self.stage == SETUP:
            return f"peer {self.peer} (you) is late with {what}, before the deal"
        where = f"at step {self.stage + 1}" if self.stage >= 0 else "after the last step"
        return f"p{self.seat} (yours) is late with {what}, {where}"


@dataclass(frozen=True, slots=True)
class Missed:
    """A debt of this peer's that the others may have claimed: ``since`` its clock ran out
    (``on_clock``) or it fell due at the latest; ``late_at``, from when it is late (seconds since
    the epoch)."""

    owed: Owed
    since: float
    late_at: float
    on_clock: bool

    def how(self) -> str:
        """Since when, in words around the time (the caller words the time itself)."""
        return "its clock ran out then" if self.on_clock else "owed from then at the latest"


def owed_now(session: Session) -> tuple[Owed, ...]:
    """Every debt of the match as ``session`` has it (a peer's restored session, or an observer's
    replay of a transcript), each with its clock where it is on one."""
    clocks = session.clocks()
    out = []
    for debt in session.debts():
        if debt.rule.deadline not in (CLOCK, GRACE):
            continue
        before_deal = debt.stage == SETUP
        peer = debt.seat if before_deal else session.owner[debt.seat]
        view = None if before_deal else clocks.get(debt.seat)
        clock = view.left_ms if view is not None and debt.rule.deadline == CLOCK else None
        out.append(Owed(debt.kind, debt.seat, debt.stage, peer, clock))
    return tuple(out)


def longest_limit(terms: dict[str, Any] | None) -> float:
    """The match's longest time limit in seconds (0 before the terms, or for a game without
    one): the reference waits at least that long for a peer cut off before it claims what that
    peer owes without a clock (SPEC section 6)."""
    if terms is None:
        return 0.0
    try:
        spec = get_spec(str(terms["game"]))
    except P2PGeniusError:
        return 0.0
    options = terms.get("options") or {}
    return float(max([0, *(options.get(t.name, t.seconds) for t in spec.time_options)]))


@dataclass(frozen=True, slots=True)
class Times:
    """What this machine keeps beside a transcript that says when: the note of the stage under
    way and when it began here (``stage_began``; None if there is none), and when the transcript
    was last written (``written``). Seconds since the epoch."""

    stage_began: tuple[int, float] | None
    written: float


def missed(owed: Sequence[Owed], me: int, times: Times, longest_s: float, now: float) -> Missed | None:
    """The first debt of peer ``me`` that was late by ``now`` (None: it owes nothing late). A debt
    on a clock is late once that clock ran out: the stage began when the note says, or by the
    transcript's last write without one; any other is late once the match's longest time limit
    (``longest_s``) has passed since it fell due, by the last write at the latest."""
    late: list[Missed] = []
    for debt in owed:
        if debt.peer != me:
            continue
        if debt.clock_ms is not None:
            noted = times.stage_began
            began = noted[1] if noted is not None and noted[0] == debt.stage else times.written
            ran_out = began + debt.clock_ms / 1000
            late.append(Missed(debt, ran_out, ran_out, on_clock=True))
        else:
            late.append(Missed(debt, times.written, times.written + longest_s, on_clock=False))
    due = [m for m in late if m.late_at <= now]
    return min(due, key=lambda m: m.late_at) if due else None
