"""Hornswoggle's events and results in words, for people: each event is data, and this is the one
place that words it. ``who`` renders a seat ("p1" by default; a screen says "Dora (p1)")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgenius.games.base import Ending, Outcome
from p2pgenius.games.hornswoggle.state import HornEnding

Who = Callable[[int], str]

LOSSES: Final[Mapping[Ending, tuple[str, str]]] = {
    HornEnding.TEAM_ELIMINATED: ("your team is out of cards", "{losers} are out of cards"),
    HornEnding.AUDIT_FAILED: (
        "your team failed the end-of-match audit",
        "{losers} failed the end-of-match audit",
    ),
}
"""How a match was lost, said of the losing team: when it is the person's, and when it is not."""


def seat_label(seat: int) -> str:
    """A seat as the rules write it."""
    return f"p{seat}"


def loss(outcome: Outcome, losers: str | None) -> str:
    """How the match ended, told to a pirate: of the ``losers`` (by name) to a winner, or,
    ``losers`` None, to a loser (GameSpec.loss_words)."""
    said = LOSSES.get(outcome.reason)
    if said is None:
        return outcome.reason.words
    return said[0] if losers is None else said[1].format(losers=losers)


def plural(count: int, noun: str) -> str:
    """ "1 doubloon", "3 doubloons"."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def words(event: Mapping[str, Any], who: Who = seat_label) -> str:
    """One event in a sentence (an event of a kind this version does not know: its kind)."""
    kind, seat = event.get("type"), event.get("seat")
    me = who(int(seat)) if isinstance(seat, int) else ""
    say = SAYINGS.get(kind) if isinstance(kind, str) else None
    return str(kind) if say is None else say(event, me, who)


def _order(event: Mapping[str, Any], me: str, who: Who) -> str:
    first = int(event["first"])
    picked = "itself" if first == event.get("seat") else who(first)
    return f"{me} (Death Match Opponent) picks {picked} to start"


def _bid(event: Mapping[str, Any], me: str, who: Who) -> str:
    if event.get("first"):
        return f"{me} starts the challenge with a bid of {event['count']}"
    return f"{me} raises to {event['count']}"


def _challenger(event: Mapping[str, Any], me: str, who: Who) -> str:
    count = int(event["count"])
    return f"{me} is the challenger: it must flip {plural(count, 'doubloon')} without meeting a skull"


def _flip(event: Mapping[str, Any], me: str, who: Who) -> str:
    pile = int(event["pile"])
    whose = "its own" if pile == event.get("seat") else f"{who(pile)}'s"
    return f"{me} flips {whose} card: a {event['card']}"


def _round(event: Mapping[str, Any], me: str, who: Who) -> str:
    out = [who(int(s)) for s in event.get("out") or []]
    note = f" ({', '.join(out)} out)" if out else ""
    return f"round {event['round']}: {who(int(event['first']))} starts{note}"


def _over(event: Mapping[str, Any], me: str, who: Who) -> str:
    a, b = (who(int(s)) for s in event["out"])
    return f"{a} and {b} are out: {who(int(event['winner']))}'s team wins"


def _settled(event: Mapping[str, Any], me: str, who: Who) -> str:
    if event.get("success"):
        owing = "each opponent discards a card" if event.get("owing") else "no opponent has a card"
        return f"{me} flips {plural(int(event['count']), 'doubloon')}: success! {owing}"
    saved = ", but Bluff Insurance saves its card" if event.get("insured") else " and discards a card"
    return f"a skull! {me} fails{saved}"


Saying = Callable[[Mapping[str, Any], str, Who], str]
"""An event's sentence, from the event, its seat as ``who`` renders it, and ``who``."""

SAYINGS: Final[Mapping[str, Saying]] = {
    "order": _order,
    "opening_card": lambda event, me, who: f"{me} places its opening card face down",
    "piles_laid": lambda event, me, who: f"every pile has a card; {me} to add a card or bid",
    "add": lambda event, me, who: f"{me} adds a card",
    "bid": _bid,
    "pass": lambda event, me, who: f"{me} passes",
    "challenger": _challenger,
    "insure": lambda event, me, who: f"{me} spends a Hacked Garnet on Bluff Insurance",
    "flip": _flip,
    "settled": _settled,
    "discard": lambda event, me, who: f"{me} discards a card face down",
    "round": _round,
    "over": _over,
}
"""Each kind of event the engine says (engine.py), and its sentence."""
