"""A match's phase, explicit: one enum and the transitions allowed between its values.

Every change of phase goes through :func:`advance`, which refuses any move the table does not
list, so the session can never be, say, playing a stage before the seats were dealt, or finish a
match that a fault already stopped. (In the manner of h11's ``_state.py``.)
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from p2pgenius.protocol.bodies import (
    Accept,
    Act,
    Audit,
    Blind,
    Body,
    Chat,
    CoinReveal,
    Commit,
    Decline,
    Desync,
    Dispute,
    End,
    FinalChoice,
    Forfeit,
    Hash,
    Observed,
    Reveal,
    Terms,
    TimeoutClaim,
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
    """Playing, but this peer's seat is blind: stages are seen only through signed claims until
    the withheld choices are opened and every claim is checked."""
    AUDIT = "audit"
    """The game is over; waiting for every peer to open what it kept hidden."""
    ENDING = "ending"
    """The result is known here and every check passed; waiting for every other peer's signed
    word of it (``end``), without which it is only this peer's."""
    OVER = "over"
    """The match finished, every check passed, and every peer signed its result."""
    FAULT = "fault"
    """The match was stopped: a peer cheated, the states diverged, or a peer forfeited."""


TRANSITIONS: Final[dict[Phase, frozenset[Phase]]] = {
    Phase.TERMS: frozenset({Phase.COIN_REVEAL, Phase.FAULT}),
    Phase.COIN_REVEAL: frozenset({Phase.PLAYING, Phase.FAULT}),
    Phase.PLAYING: frozenset({Phase.BEHIND, Phase.AUDIT, Phase.ENDING, Phase.FAULT}),
    Phase.BEHIND: frozenset({Phase.PLAYING, Phase.FAULT}),
    Phase.AUDIT: frozenset({Phase.ENDING, Phase.FAULT}),
    Phase.ENDING: frozenset({Phase.OVER, Phase.FAULT}),
    Phase.OVER: frozenset({Phase.FAULT}),  # a peer's last state hash may still disagree
    Phase.FAULT: frozenset(),
}
"""From each phase, the phases a match may move to."""


class PhaseError(AssertionError):
    """A transition the table does not allow: a bug in the session, never a peer's doing."""


def advance(current: Phase, to: Phase) -> Phase:
    """``to``, if the table allows moving there from ``current`` (staying put is allowed)."""
    if to is not current and to not in TRANSITIONS[current]:
        raise PhaseError(f"a match cannot go from {current.value} to {to.value}")
    return to


_STAGE: Final = (Act, Commit, Reveal, FinalChoice, Decline, Blind)
_TIME: Final = (TimeoutClaim, Dispute, Forfeit)
ACCEPTED: Final[dict[Phase, tuple[type[Body], ...]]] = {
    Phase.TERMS: (Terms,),
    Phase.COIN_REVEAL: (Terms, Accept, CoinReveal, Chat, Desync, *_TIME),
    Phase.PLAYING: (Terms, Chat, Desync, Hash, Observed, End, *_TIME, *_STAGE),
    Phase.BEHIND: (Terms, Chat, Desync, Hash, Observed, End, *_TIME, *_STAGE),
    Phase.AUDIT: (Terms, Chat, Desync, Hash, Observed, End, Audit, *_TIME),
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
    Phase.AUDIT: "after the game's end (during the audit)",
    Phase.ENDING: "after the match's end (while its result is signed)",
    Phase.OVER: "after the match is over",
    Phase.FAULT: "after the match stopped",
}
"""When a message came that its phase does not take, in words."""
