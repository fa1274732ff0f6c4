"""Hornswoggle's actions, in their plain form (docs/sim.md), validated on parse.

A card is ``"doubloon"`` or ``"skull"``. Over the network a card another seat placed or discarded
is a commitment, so an engine run from one seat's point of view sees ``None`` (JSON ``null``) for it;
a flip then carries the card its owner opened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError
from p2pgenius.games.base import only_fields

DOUBLOON: Final = "doubloon"
SKULL: Final = "skull"
CARDS: Final = (DOUBLOON, SKULL)
SEATS: Final = 4


def _card(data: Mapping[str, Any], what: str, *, optional: bool = False) -> str | None:
    card = data.get("card")
    if card is None and (optional or "card" in data):
        return None
    if card not in CARDS:
        raise IllegalActionError(f'{what}: card must be "doubloon" or "skull", got {card!r}')
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


def parse_action(data: Any) -> HornAction:
    """Build a Hornswoggle action from its plain form; raises IllegalActionError if malformed."""
    if not isinstance(data, Mapping):
        raise IllegalActionError('action must be an object with a "type"')
    kind = data.get("type")
    if kind in _BARE:
        only_fields(data)
        return _BARE[kind]
    if kind == "order":
        only_fields(data, "first")
        first = data.get("first")
        if type(first) is not int or not 0 <= first < SEATS:
            raise IllegalActionError(f"order: first must be a seat 0..3, got {first!r}")
        return Order(first)
    if kind == "place":
        only_fields(data, "card")
        return Place(_card(data, "place"))
    if kind == "discard":
        only_fields(data, "card")
        return Discard(_card(data, "discard"))
    if kind == "bid":
        only_fields(data, "count")
        count = data.get("count")
        if type(count) is not int or count < 1:
            raise IllegalActionError(f"bid: count must be a whole number from 1, got {count!r}")
        return Bid(count)
    if kind == "flip":
        only_fields(data, "pile", "card")
        pile = data.get("pile")
        if type(pile) is not int or not 0 <= pile < SEATS:
            raise IllegalActionError(f"flip: pile must be a seat 0..3, got {pile!r}")
        return Flip(pile, _card(data, "flip", optional=True))
    raise IllegalActionError(f"unknown action type {kind!r} for Hornswoggle")
