"""A resumed peer that missed a deadline of its own while it was away.

The others claimed what it owed once it was late (SPEC section 6, "What is owed") and, the claim
unanswered for their grace period, most likely forfeited it and stopped the match. So such a peer
does not simply play on: it first tries to reach another player (a joiner calls its host, a host
waits at its door), for the match's longest time limit (at least the grace period) plus the
grace period. One that answers may still be playing (it goes on as ever: a claim is answered, a
forfeit refused by its own seat); nobody answering, the match was *most likely* forfeited by this
peer, and :class:`ForfeitedMostLikelyError` says so, what it owed and since when, in one line.
Meanwhile nothing is played, claimed or written: the transcript stays as the crash left it.
"""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass

import trio

from p2pgenius.errors import P2PGeniusError
from p2pgenius.net.connection import Connection
from p2pgenius.net.reconnect import Arrivals
from p2pgenius.protocol.clocks import patience
from p2pgenius.protocol.overdue import Missed, Times, longest_limit, missed, owed_now
from p2pgenius.protocol.session import Session


class ForfeitedMostLikelyError(P2PGeniusError):
    """A resumed peer late with what it owed reached nobody in time (see the module's doc)."""


def utc(seconds: float) -> str:
    """A time as the transcripts' headers write one: ``2026-05-01 12:00:25 UTC``."""
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def late_words(late: Missed) -> str:
    """What this peer owes, since when: "p1 is late with a decision (...) at step 1, since
    2026-05-01 12:00:25 UTC (its clock ran out then)"."""
    return f"{late.owed.words()}, since {utc(late.since)} ({late.how()})"


@dataclass(frozen=True)
class Overdue:
    """What a resumed peer was late with (``late``), how long it tries to reach another player
    (``within_s``) and who they are, in words (``others``)."""

    late: Missed
    within_s: float
    others: str

    def words(self) -> str:
        """The one line said when nobody answered in time."""
        return (
            f"the match was most likely forfeited by you: {late_words(self.late)}, and {self.others}, "
            f"not reached for {self.within_s:.0f} s, most likely claimed it and stopped the match "
            "(only their transcript can prove it; your record does not count this match)"
        )

    def notice(self) -> str:
        """What is said as the resumed peer sets out."""
        return (
            f"{late_words(self.late)}: {self.others} most likely claimed it while you were away; "
            f"if nobody is reached within {self.within_s:.0f} s, the match was most likely forfeited"
        )


def overdue(session: Session, times: Times | None, grace_s: float) -> Overdue | None:
    """Whether a session read back from its files (``times``: what was kept beside them) is late
    with something of its own now (None: it owes nothing late, or nothing says since when)."""
    if times is None or session.me is None:
        return None
    late = missed(owed_now(session), session.me, times, longest_limit(session.terms), time.time())
    if late is None:
        return None
    return Overdue(late, patience(session, grace_s) + grace_s, others(session))


def others(session: Session) -> str:
    """The other players, by name and seats: "Hana (p0)", "Hana (p0) and Bob (p1, p3)"."""
    named = []
    for peer, name in enumerate(session.names):
        if peer == session.me:
            continue
        seats = ", ".join(f"p{seat}" for seat, held in enumerate(session.owner) if held == peer)
        named.append(f"{name} ({seats})" if seats else name)
    return " and ".join(named) if len(named) < 3 else ", ".join(named[:-1]) + f" and {named[-1]}"


async def company(arrivals: Arrivals, late: Overdue) -> list[tuple[Connection, int | None, list[bytes]]]:
    """The connections of the players that came back within ``late.within_s`` (the first, and any
    that came with it); ForfeitedMostLikelyError if none did."""
    with trio.move_on_after(late.within_s):
        await arrivals.came.wait()
    if not arrivals.held:
        raise ForfeitedMostLikelyError(late.words())
    return list(arrivals.held)
