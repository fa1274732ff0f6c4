"""The end-of-match audit: did every seat only ever play cards it held?

Over the network every face-down card and every discard is a commitment, opened when flipped or at
the end of the match. Once every seat has opened everything, the whole match can be replayed with
full knowledge; the first action that plays a card its seat did not hold convicts that seat, which
loses the match for its team (reason ``audit_failed``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgenius.errors import IllegalActionError
from p2pgenius.games.base import Outcome
from p2pgenius.games.hornswoggle.actions import Flip, HornAction
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE, result
from p2pgenius.games.hornswoggle.state import HornEnding, HornState, team_of


@dataclass(frozen=True, slots=True)
class AuditFailure:
    """Who failed the audit, at which step of the log (from 1), and why."""

    seat: int
    step: int
    reason: str


@dataclass(frozen=True, slots=True)
class Audited:
    """What the audit found: the first failure (None: the match holds), and the state after each
    action of the log when it holds."""

    failure: AuditFailure | None
    states: tuple[HornState, ...] = ()


def audit(
    setup: Mapping[str, Any], options: Mapping[str, Any], log: Sequence[tuple[int, HornAction]]
) -> Audited:
    """Replay ``log`` (every action, hidden cards opened) with full knowledge."""
    state = HORNSWOGGLE.initial(setup, options)
    states = []
    for step, (seat, action) in enumerate(log, start=1):
        try:
            state = HORNSWOGGLE.apply(state, seat, action)
        except IllegalActionError as exc:
            culprit = action.pile if isinstance(action, Flip) else seat
            return Audited(AuditFailure(culprit, step, str(exc)))
        states.append(state)
    return Audited(None, tuple(states))


def audit_outcome(state: HornState, failure: AuditFailure) -> Outcome:
    """The match result when ``failure.seat`` failed the audit: the other team wins."""
    return result(state, team_of(failure.seat + 1), HornEnding.AUDIT_FAILED)
