"""Hornswoggle's events in words, for people: each event is data, and this is the one place that
words it. ``who`` renders a seat ("p1" by default; a screen says "Dora (p1)")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Who = Callable[[int], str]


def seat_label(seat: int) -> str:
    """A seat as the rules write it."""
    return f"p{seat}"


def plural(count: int, noun: str) -> str:
    """ "1 doubloon", "3 doubloons"."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def words(event: Mapping[str, Any], who: Who = seat_label) -> str:
    """One event in a sentence."""
    kind, seat = event.get("type"), event.get("seat")
    me = who(int(seat)) if isinstance(seat, int) else ""
    if kind == "order":
        first = int(event["first"])
        picked = "itself" if first == seat else who(first)
        return f"{me} (Death Match Opponent) picks {picked} to start"
    if kind == "opening_card":
        return f"{me} places its opening card face down"
    if kind == "piles_laid":
        return f"every pile has a card; {me} to add a card or bid"
    if kind == "add":
        return f"{me} adds a card"
    if kind == "bid":
        return (
            f"{me} starts the challenge with a bid of {event['count']}"
            if event.get("first")
            else f"{me} raises to {event['count']}"
        )
    if kind == "pass":
        return f"{me} passes"
    if kind == "challenger":
        count = int(event["count"])
        return f"{me} is the challenger: it must flip {plural(count, 'doubloon')} without meeting a skull"
    if kind == "insure":
        return f"{me} spends a Hacked Garnet on Bluff Insurance"
    if kind == "flip":
        pile = int(event["pile"])
        whose = "its own" if pile == seat else f"{who(pile)}'s"
        return f"{me} flips {whose} card: a {event['card']}"
    if kind == "settled":
        return _settled(event, me)
    if kind == "discard":
        return f"{me} discards a card face down"
    if kind == "round":
        out = [who(int(s)) for s in event.get("out") or []]
        note = f" ({', '.join(out)} out)" if out else ""
        return f"round {event['round']}: {who(int(event['first']))} starts{note}"
    if kind == "over":
        a, b = (who(int(s)) for s in event["out"])
        return f"{a} and {b} are out: {who(int(event['winner']))}'s team wins"
    return str(kind)


def _settled(event: Mapping[str, Any], me: str) -> str:
    if event.get("success"):
        owing = "each opponent discards a card" if event.get("owing") else "no opponent has a card"
        return f"{me} flips {plural(int(event['count']), 'doubloon')}: success! {owing}"
    saved = ", but Bluff Insurance saves its card" if event.get("insured") else " and discards a card"
    return f"a skull! {me} fails{saved}"
