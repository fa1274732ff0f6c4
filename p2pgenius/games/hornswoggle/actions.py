"""Hornswoggle's actions, in their plain form (docs/sim.md), validated on parse.

A card is ``"doubloon"`` or ``"skull"``. Over the network a card another seat placed or discarded
is a commitment, so an engine run from one seat's point of view sees ``None`` (JSON ``null``) for it;
a flip then carries the card its owner opened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, shown
from p2pgenius.games.base import action_type, only_fields

DOUBLOON: Final = "doubloon"
SKULL: Final = "skull"
CARDS: Final = (DOUBLOON, SKULL)
SEATS: Final = 4


def _card(data: Mapping[str, Any], what: str, *, optional: bool = False) -> str | None:
    card = data.get("card")
    if card is None and (optional or "card" in data):
        return None
    if card not in CARDS:
        raise IllegalActionError(f'{what}: card must be "doubloon" or "skull", got {shown(card)}')
    return str(card)


@dataclass(frozen=True, slots=True)
class Order:
    """The Death Match Opponent picks the first player of round 1."""

    first: int

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "order", "first": self.first}


@dataclass(frozen=True, slots=True)
class Place:
    """Place a card face down on your own pile (``card`` None: hidden, seen from another seat)."""

    card: str | None

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "place", "card": self.card}


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid how many cards you can flip without a skull (the first bid starts the challenge)."""

    count: int

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "bid", "count": self.count}


@dataclass(frozen=True, slots=True)
class Pass:
    """Drop out of this round's bidding."""

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "pass"}


@dataclass(frozen=True, slots=True)
class Insure:
    """Bluff Insurance: spend a Hacked Garnet so a failed challenge costs no card."""

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "insure"}


@dataclass(frozen=True, slots=True)
class Flip:
    """Turn over the top unflipped card of a pile; ``card`` is what it shows, when the engine
    cannot know it itself (another seat's commitment, opened)."""

    pile: int
    card: str | None = None

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        plain: dict[str, Plain] = {"type": "flip", "pile": self.pile}
        if self.card is not None:
            plain["card"] = self.card
        return plain


@dataclass(frozen=True, slots=True)
class Discard:
    """Lose a card of your choice, face down (``card`` None: hidden, seen from another seat)."""

    card: str | None

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "discard", "card": self.card}


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat's decision time ran out: it passes, or plays the first legal action."""

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "timeout"}


HornAction = Order | Place | Bid | Pass | Insure | Flip | Discard | Timeout
_BARE: Final[dict[str, HornAction]] = {"pass": Pass(), "insure": Insure(), "timeout": Timeout()}


def _seat(data: Mapping[str, Any], field: str, what: str) -> int:
    seat = data.get(field)
    if type(seat) is not int or not 0 <= seat < SEATS:
        raise IllegalActionError(f"{what}: {field} must be a seat 0..3, got {shown(seat)}")
    return seat


def _order(data: Mapping[str, Any]) -> Order:
    only_fields(data, "first")
    return Order(_seat(data, "first", "order"))


def _place(data: Mapping[str, Any]) -> Place:
    only_fields(data, "card")
    return Place(_card(data, "place"))


def _discard(data: Mapping[str, Any]) -> Discard:
    only_fields(data, "card")
    return Discard(_card(data, "discard"))


def _bid(data: Mapping[str, Any]) -> Bid:
    only_fields(data, "count")
    count = data.get("count")
    if type(count) is not int or count < 1:
        raise IllegalActionError(f"bid: count must be a whole number from 1, got {shown(count)}")
    return Bid(count)


def _flip(data: Mapping[str, Any]) -> Flip:
    only_fields(data, "pile", "card")
    return Flip(_seat(data, "pile", "flip"), _card(data, "flip", optional=True))


_PARSERS: Final[dict[str, Callable[[Mapping[str, Any]], HornAction]]] = {
    "order": _order,
    "place": _place,
    "discard": _discard,
    "bid": _bid,
    "flip": _flip,
}
_TYPES: Final = (*_BARE, *_PARSERS)


def parse_action(data: Any) -> HornAction:
    """Build a Hornswoggle action from its plain form. Total: any value a peer may send is an
    action or an IllegalActionError saying which field was wrong and what came, never another
    error."""
    kind = action_type(data, _TYPES, "Hornswoggle")
    if kind in _BARE:
        only_fields(data)
        return _BARE[kind]
    return _PARSERS[kind](data)
