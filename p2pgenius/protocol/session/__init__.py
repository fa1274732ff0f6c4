"""The match session, sans-IO: signed messages in, events and messages out (protocol/SPEC.md).

One :class:`Session` per peer drives the game engine in lockstep with the others; a session with
no identity is an observer that re-checks a transcript (``p2pgenius verify``). By job, each part an
object that the thin Session calls:

* ``core``: the Session itself: opens each message and hands it, by type, to the part that takes it;
* ``courier``: what every part shares: who plays, the chain, sending and recording, the phase;
* ``phase``: the match's phase, one enum, the moves each message may make and what each accepts;
* ``chain``: every author's numbered, hash-linked messages, and the archive of them;
* ``setup``: terms and their checks, seat groups and claims, the coin flip's deal;
* ``match``: what the deal yields: game, rules, seats and state, never None;
* ``play``: the stages, from the deal on, with this peer's choices (``stage``: one stage's messages);
* ``sight``: what a peer whose seat is in the dark is withheld and the view claims it is sent
  instead (``unseen``: what stays pending meanwhile, on either side);
* ``ending``: state hashes, the disclosure of what stayed hidden, its verdict and the signed result;
* ``referee``: timeout claims, disputes, observed times, forfeits;
* ``debts``: what is owed, from when; ``ledger``: time on the record; ``timing``: the clocks;
* ``cards``: hidden cards on piles, flipped and disclosed;
* ``faults``: a peer's cheating and a session's own errors, kept apart;
* ``view``: :class:`SessionView`, all that a screen, a bot or a report may read;
* ``p2pgenius.protocol.events``: what a session tells its driver.

Nothing here names a game: every game-specific decision goes through the game's spec
(``p2pgenius.games.spec``).
"""

from p2pgenius.protocol.events import (
    Applied,
    ChatReceived,
    ClaimDisputed,
    ClockView,
    Confirmed,
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
    VerdictDue,
    ViewClaimed,
    YourTurn,
)
from p2pgenius.protocol.messages import MATCH_DOMAIN
from p2pgenius.protocol.session.core import Session
from p2pgenius.protocol.session.faults import CheatError, SessionError
from p2pgenius.protocol.session.phase import Phase
from p2pgenius.protocol.session.setup import claims_problem, start_table
from p2pgenius.protocol.session.stage import Stage
from p2pgenius.protocol.session.view import SessionView, StageView

__all__ = [
    "MATCH_DOMAIN",
    "Applied",
    "ChatReceived",
    "CheatError",
    "ClaimDisputed",
    "ClockView",
    "Confirmed",
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
    "SessionView",
    "Stage",
    "StageView",
    "TimeObserved",
    "TimeoutClaimed",
    "VerdictDue",
    "ViewClaimed",
    "YourTurn",
    "claims_problem",
    "start_table",
]
