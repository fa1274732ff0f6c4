"""The Magic Square's actions, in their plain form (docs/sim.md), validated on parse."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, shown
from p2pgenius.games.base import action_type, only_fields

CELL_COUNT: Final = 16
LAST_CELL: Final = CELL_COUNT - 1


def _int(data: Mapping[str, Any], field: str, low: int, high: int, what: str) -> int:
    value = data.get(field)
    if type(value) is not int or not low <= value <= high:
        raise IllegalActionError(f"{what}: {field} must be a whole number {low}..{high}, got {shown(value)}")
    return value


@dataclass(frozen=True, slots=True)
class Order:
    """Who goes first: who colours first (the Death Match Opponent), or who places first this
    placement round (the Lead Player)."""

    first: int

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "order", "first": self.first}


@dataclass(frozen=True, slots=True)
class Colour:
    """Colour one cell in your colour."""

    cell: int

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "colour", "cell": self.cell}


@dataclass(frozen=True, slots=True)
class Place:
    """Place the next number on an empty cell."""

    cell: int

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "place", "cell": self.cell}


@dataclass(frozen=True, slots=True)
class Challenge:
    """Claim the opponent's last placement left no magic completion."""

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "challenge"}


@dataclass(frozen=True, slots=True)
class Complete:
    """Answer a challenge with a full magic square consistent with every placed number."""

    grid: tuple[int, ...]

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "complete", "grid": list(self.grid)}


@dataclass(frozen=True, slots=True)
class Concede:
    """Give up a challenge without showing a completion."""

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "concede"}


@dataclass(frozen=True, slots=True)
class Swap:
    """Exchange the colours of one red cell and one blue cell (the previous round's loser)."""

    red: int
    blue: int

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "swap", "red": self.red, "blue": self.blue}


@dataclass(frozen=True, slots=True)
class SwapsDone:
    """End the swap step (declining any further swaps)."""

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "swaps_done"}


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat's clock ran out (agreed by both peers; the engine never reads time)."""

    def to_plain(self) -> dict[str, Plain]:
        """The plain form (docs/sim.md)."""
        return {"type": "timeout"}


SquareAction = Order | Colour | Place | Challenge | Complete | Concede | Swap | SwapsDone | Timeout
_BARE: Final[dict[str, SquareAction]] = {
    "challenge": Challenge(),
    "concede": Concede(),
    "swaps_done": SwapsDone(),
    "timeout": Timeout(),
}


def _order(data: Mapping[str, Any]) -> Order:
    only_fields(data, "first")
    return Order(_int(data, "first", 0, 1, "order"))


def _colour(data: Mapping[str, Any]) -> Colour:
    only_fields(data, "cell")
    return Colour(_int(data, "cell", 0, LAST_CELL, "colour"))


def _place(data: Mapping[str, Any]) -> Place:
    only_fields(data, "cell")
    return Place(_int(data, "cell", 0, LAST_CELL, "place"))


def _swap(data: Mapping[str, Any]) -> Swap:
    only_fields(data, "red", "blue")
    return Swap(_int(data, "red", 0, LAST_CELL, "swap"), _int(data, "blue", 0, LAST_CELL, "swap"))


def _complete(data: Mapping[str, Any]) -> Complete:
    only_fields(data, "grid")
    grid = data.get("grid")
    if not isinstance(grid, list) or len(grid) != CELL_COUNT or not all(type(n) is int for n in grid):
        raise IllegalActionError(f"complete: grid must be a list of 16 whole numbers, got {shown(grid)}")
    return Complete(tuple(grid))


_PARSERS: Final[dict[str, Callable[[Mapping[str, Any]], SquareAction]]] = {
    "order": _order,
    "colour": _colour,
    "place": _place,
    "swap": _swap,
    "complete": _complete,
}
_TYPES: Final = (*_BARE, *_PARSERS)


def parse_action(data: Any) -> SquareAction:
    """Build a Magic Square action from its plain form. Total: any value a peer may send is an
    action or an IllegalActionError saying which field was wrong and what came, never another
    error."""
    kind = action_type(data, _TYPES, "the Magic Square")
    if kind in _BARE:
        only_fields(data)
        return _BARE[kind]
    return _PARSERS[kind](data)
