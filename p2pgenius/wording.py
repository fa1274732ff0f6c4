"""What a match says to people, in one wording for the command line and the terminal UI.

:func:`tell` turns a session event into lines, each with its :class:`Told` kind, so that each
front chooses what to show and where (the command line prints moves only when asked; the UI puts
chat beside the log), the result in its game's words (its spec's ``outcome_words``; what a
person whose seat is kept in the dark is told is the game's front end's, ``dark_words``);
:func:`printable` keeps control characters (from peers' names, chat and reasons) away from the
terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Final

from p2pgenius.games.registry import get_spec
from p2pgenius.protocol.bodies import SETUP
from p2pgenius.protocol.events import (
    Applied,
    ChatReceived,
    ClaimDisputed,
    Confirmed,
    Event,
    Fault,
    MatchOver,
    Rejected,
    SeatsDealt,
    TimeoutClaimed,
)
from p2pgenius.protocol.messages import printable
from p2pgenius.protocol.session.debts import CLOCK, RULES

if TYPE_CHECKING:
    from p2pgenius.protocol.session import SessionView

__all__ = ["Told", "printable", "tell"]

SEATS: Final = "seats"
MOVE: Final = "move"
TIMEOUT: Final = "timeout"
CHAT: Final = "chat"
REFUSED: Final = "refused"
FAULT: Final = "fault"
OVER: Final = "over"


@dataclass(frozen=True, slots=True)
class Told:
    """One line about an event: what it is about (``SEATS``, ``MOVE``, ``TIMEOUT``, ``CHAT``,
    ``REFUSED``, ``FAULT`` or ``OVER``) and its words (not yet made printable)."""

    kind: str
    text: str


def _named(names: Mapping[int, str], seat: int) -> str:
    name = names.get(seat)
    return f"{name} (p{seat})" if name else f"p{seat}"


def tell(session: SessionView, event: Event, *, named: bool = False) -> list[Told]:
    """What ``event`` of ``session`` says, line by line (nothing for events that say nothing);
    ``named``: the moves name each seat's player ("ann (p0)"), else the seat alone ("p0")."""
    names = session.names
    if isinstance(event, SeatsDealt):
        return [Told(SEATS, _seats_words(session, event))]
    if isinstance(event, Applied):
        if session.terms is None:
            return []
        spec = get_spec(session.terms["game"])
        seat_names = {s: names[p] for s, p in enumerate(session.owner)} if named else {}
        who = partial(_named, seat_names)  # ("ann (p0)"; with no names, "p0")
        return [Told(MOVE, spec.words(item, who)) for item in event.events if isinstance(item, dict)]
    if isinstance(event, TimeoutClaimed | ClaimDisputed):
        return [Told(TIMEOUT, time_words(session, event))]
    if isinstance(event, ChatReceived):
        return [Told(CHAT, f"{names[event.author]}: {event.text}")]
    if isinstance(event, Rejected):
        sender = "a peer" if event.author is None else names[event.author]
        return [Told(REFUSED, f"refused a message from {sender}: {event.reason}")]
    if isinstance(event, Fault):
        by = "" if event.peer is None else f" by {names[event.peer]}"
        return [Told(FAULT, f"match stopped ({event.kind}{by}): {event.reason}")]
    if isinstance(event, MatchOver | Confirmed):
        return _the_end(session, event)
    return []


def _seats_words(session: SessionView, event: SeatsDealt) -> str:
    """Who sits where, and how that was decided: as the players claimed, or by the coin."""
    names = session.names
    claims = session.terms.get("claims", []) if session.terms is not None else []
    claimed = {seat for claim in claims for seat in claim}
    seats = ", ".join(
        f"p{s}: {names[p]}{' (claimed)' if s in claimed else ''}" for s, p in enumerate(event.owner)
    )
    left_to_chance = sum(1 for claim in claims if not claim)  # peers the coin deals to
    if not claimed:
        how = "by fair coin flip"
    elif left_to_chance <= 1:
        how = "as claimed"
    else:
        how = "as claimed, the rest by fair coin flip"
    return f"seats {how}: {seats}"


def time_words(session: SessionView, event: TimeoutClaimed | ClaimDisputed) -> str:
    """A claim or a dispute, in words: whose debt, which one, by whose measure."""
    names, mine = session.names, event.seat in session.my_seats
    if event.stage == SETUP:  # (a peer, before the deal)
        who = "you" if event.seat == session.me else names[event.seat]
    else:
        seat_names = {s: names[p] for s, p in enumerate(session.owner)}
        who = "you" if mine else _named(seat_names, event.seat)
    if isinstance(event, ClaimDisputed):
        whose = "your" if mine else f"{who}'s"
        left = f"{event.left_ms / 1000:.1f} s"
        return f"{names[event.author]} disputes the claim: {whose} clock has {left} left, as it measures"
    rule = RULES.get(event.kind)
    owed = rule.owed.replace("`", "") if rule is not None else "what it owed (already paid here)"
    on_clock = rule is not None and rule.deadline == CLOCK
    measure = "the clock, as it measures it" if on_clock else "its own measure"
    late = "are" if who == "you" else "is"
    if who == "you":
        owed = owed.replace("its ", "your ")
    return (
        f"{names[event.author]} claims {who} {late} late with {owed} "
        f"({event.observed_ms / 1000:.1f} s since the stage began, on {measure})"
    )


def _the_end(session: SessionView, event: MatchOver | Confirmed) -> list[Told]:
    """The result, known here; then signed by every player (it stands once all have)."""
    if isinstance(event, Confirmed):
        return [Told(OVER, "every player has signed the result, which now stands on the record")]
    assert session.terms is not None  # (a match that is over was played under its terms)
    spec = get_spec(session.terms["game"])
    result = spec.outcome_words(spec.read_outcome(event.outcome), brief=True)
    said = [Told(OVER, f"the match is over: {result}")]
    waiting = ", ".join(session.names[p] for p in session.unconfirmed if p != session.me)
    if waiting:
        said.append(Told(OVER, f"waiting for {waiting} to sign the result"))
    return said
