"""The match session, sans-IO: signed messages in, events and messages out (protocol/SPEC.md).

One :class:`Session` per peer drives the game engine in lockstep with the others; a session with
no identity is an observer that re-checks a transcript (``p2pgenius verify``). By concern:

* ``core``: the Session itself: the message chain, dispatch, stages, blindness, the end;
* ``phase``: the match's phase, one enum and its transition table;
* ``setup``: terms and their checks, seat groups and claims, the coin flip's deal;
* ``stage``: the messages gathered for the stage being played;
* ``timing``: the clocks, as the transcript defines them;
* ``cards``: hidden cards on piles, flipped and audited;
* ``p2pgenius.protocol.events``: what a session tells its driver.

Nothing here names a game: every game-specific decision goes through the game's spec
(``p2pgenius.games.spec``).
"""

from p2pgenius.protocol.events import (
    Applied,
    AuditDue,
    BlindClaim,
    ChatReceived,
    ClaimDisputed,
    ClockView,
    Decided,
    Event,
    Fault,
    Flush,
    ForfeitVoided,
    MatchOver,
    Rejected,
    SeatsDealt,
    TimeObserved,
    TimeoutClaimed,
    YourTurn,
)
from p2pgenius.protocol.session.core import Session
from p2pgenius.protocol.session.faults import CheatError, SessionError
from p2pgenius.protocol.session.phase import Phase
from p2pgenius.protocol.session.setup import MATCH_DOMAIN, claims_problem, start_table
from p2pgenius.protocol.session.stage import Stage

__all__ = [
    "MATCH_DOMAIN",
    "Applied",
    "AuditDue",
    "BlindClaim",
    "ChatReceived",
    "CheatError",
    "ClaimDisputed",
    "ClockView",
    "Decided",
    "Event",
    "Fault",
    "Flush",
    "ForfeitVoided",
    "MatchOver",
    "Phase",
    "Rejected",
    "SeatsDealt",
    "Session",
    "SessionError",
    "Stage",
    "TimeObserved",
    "TimeoutClaimed",
    "YourTurn",
    "claims_problem",
    "start_table",
]
