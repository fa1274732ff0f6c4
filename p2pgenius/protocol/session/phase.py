"""A match's phase, explicit: one enum and the transitions allowed between its values.

Every change of phase goes through :func:`advance`, which refuses any move that :data:`MOVES` (the
phase a message of each type may lead to, from each phase) does not list, so the session can never
be, say, playing a stage before the seats were dealt, or finish a match that a fault already
stopped; and what each phase accepts is :data:`ACCEPTED`. (In the manner of h11's ``_state.py``.)
The phase is the one source of where a match stands: nothing else (no flag) says it again.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from p2pgenius.protocol.bodies import (
    Accept,
    Act,
    Body,
    Chat,
    CoinReveal,
    Commit,
    Decline,
    Desync,
    Disclosure,
    Dispute,
    End,
    FinalChoice,
    Forfeit,
    Hash,
    Observed,
    Reveal,
    Terms,
    TimeoutClaim,
    ViewClaim,
)


class Phase(Enum):
    """Where a match stands."""

    TERMS = "terms"
    """Waiting for the host's terms."""
    COIN_REVEAL = "coin_reveal"
    """The terms are known, and with them every peer's committed coin share (each joiner signed
    its own in the lobby); waiting for every other peer's accept and for every share to be
    opened (then seats are dealt)."""
    PLAYING = "playing"
    """Stages are being played."""
    BEHIND = "behind"
    """Playing, but this peer's seat is kept in the dark: stages are seen only through signed
    view claims until the withheld choices are opened and every claim is checked."""
    DISCLOSURE = "disclosure"
    """The game is over; waiting for every peer to disclose what it kept hidden (a game with
    hidden choices), then for the game's verdict on the whole match."""
    ENDING = "ending"
    """The result is known here and every check passed; waiting for every other peer's signed
    word of it (``end``), without which it is only this peer's."""
    OVER = "over"
    """The match finished, every check passed, and every peer signed its result."""
    FAULT = "fault"
    """The match was stopped: a peer cheated, the states diverged, or a peer forfeited."""


class Local(Enum):
    """What moves a match besides a message: a step its driver takes."""

    VERDICT = "verdict"
    """The driver concludes the game's verdict it judged off its event loop (``conclude``). (A
    driver's other steps, such as confirming a forfeit after its grace period, only stop a
    match, which any trigger may.)"""


Trigger = type[Body] | Local
"""What a transition is taken on: the type of the message being handled (a peer's, or one of
ours as it is sent), or a :class:`Local` step."""

_DECIDING: Final = (Act, Commit, FinalChoice, Reveal, Decline)
"""The messages that can complete a stage, and with it the game (a commitment or a final
completes one when the reveal it makes due is withheld from a peer in the dark, so counted at once)."""

MOVES: Final[dict[Phase, dict[Trigger, frozenset[Phase]]]] = {
    Phase.TERMS: {Terms: frozenset({Phase.COIN_REVEAL})},
    Phase.COIN_REVEAL: {CoinReveal: frozenset({Phase.PLAYING})},  # the last share deals the seats
    Phase.PLAYING: {
        ViewClaim: frozenset({Phase.BEHIND}),  # a claim instead of the field: our seat is in the dark
        # The stage that ends the game: to the disclosure of hidden choices (a game with them),
        # else to the signing of the result.
        **{kind: frozenset({Phase.DISCLOSURE, Phase.ENDING}) for kind in _DECIDING},
    },
    Phase.BEHIND: {Reveal: frozenset({Phase.PLAYING})},  # the last withheld choice is opened
    Phase.DISCLOSURE: {Disclosure: frozenset({Phase.ENDING}), Local.VERDICT: frozenset({Phase.ENDING})},
    # Every peer's signed result is in: the last ``end``, or the message that made the result
    # known here when every other peer's came first.
    Phase.ENDING: {kind: frozenset({Phase.OVER}) for kind in (End, Disclosure, Local.VERDICT, *_DECIDING)},
    Phase.OVER: {},
    Phase.FAULT: {},
}
"""The phase each trigger may move a match to, from each phase (as h11's
``EVENT_TRIGGERED_TRANSITIONS``); any trigger may also stop a match that is not stopped
(:attr:`Phase.FAULT`): a cheat, a divergence or a forfeit can come at any point, even after the
end, when a last state hash may still disagree. Nothing else moves a match."""


def _reachable(phase: Phase) -> frozenset[Phase]:
    moves = frozenset(to for targets in MOVES[phase].values() for to in targets)
    return moves if phase is Phase.FAULT else moves | {Phase.FAULT}


TRANSITIONS: Final[dict[Phase, frozenset[Phase]]] = {phase: _reachable(phase) for phase in Phase}
"""From each phase, the phases a match may move to (whatever the trigger)."""


class PhaseError(AssertionError):
    """A transition the table does not allow: a bug in the session, never a peer's doing."""


def advance(current: Phase, to: Phase, trigger: Trigger | None) -> Phase:
    """``to``, if :data:`MOVES` lets ``trigger`` move a match there from ``current`` (staying put
    is always allowed, and stopping is allowed from any phase but the stopped one; with no
    trigger, nothing else is)."""
    if to is current:
        return to
    allowed = MOVES[current].get(trigger, frozenset()) if trigger is not None else frozenset()
    if to not in allowed and not (to is Phase.FAULT and current is not Phase.FAULT):
        name = (
            "nothing"
            if trigger is None
            else trigger.value
            if isinstance(trigger, Local)
            else trigger.__name__
        )
        raise PhaseError(f"a match cannot go from {current.value} to {to.value} on {name}")
    return to


_STAGE: Final = (Act, Commit, Reveal, FinalChoice, Decline, ViewClaim)
_TIME: Final = (TimeoutClaim, Dispute, Forfeit)
ACCEPTED: Final[dict[Phase, tuple[type[Body], ...]]] = {
    Phase.TERMS: (Terms,),
    Phase.COIN_REVEAL: (Terms, Accept, CoinReveal, Chat, Desync, *_TIME),
    Phase.PLAYING: (Terms, Chat, Desync, Hash, Observed, End, *_TIME, *_STAGE),
    Phase.BEHIND: (Terms, Chat, Desync, Hash, Observed, End, *_TIME, *_STAGE),
    Phase.DISCLOSURE: (Terms, Chat, Desync, Hash, Observed, End, Disclosure, *_TIME),
    Phase.ENDING: (Terms, Chat, Desync, Hash, Observed, End, *_TIME),
    Phase.OVER: (Terms, Chat, Desync, Hash, Observed, End),
    Phase.FAULT: (Desync,),
}
"""The message types a match takes in each phase (a second ``terms`` is refused by its handler,
which says why, and so is a second ``end``; one that comes before this peer knows the result is
kept until it does); anything else is refused as out of place, with :data:`WHEN`."""

WHEN: Final[dict[Phase, str]] = {
    Phase.TERMS: "before the terms",
    Phase.COIN_REVEAL: "before the seats are dealt",
    Phase.PLAYING: "while the match is played",
    Phase.BEHIND: "while the match is played",
    Phase.DISCLOSURE: f"after the game's end (during the {Disclosure.kind})",
    Phase.ENDING: "after the match's end (while its result is signed)",
    Phase.OVER: "after the match is over",
    Phase.FAULT: "after the match stopped",
}
"""When a message came that its phase does not take, in words."""
