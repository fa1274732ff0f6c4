"""What the coin flip yields: a match whose game, rules, seats and state are all known (never
None), with the cards still hidden and the actions as this peer applied them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p2pgenius.canonical import Plain
from p2pgenius.games.base import Game
from p2pgenius.games.spec import GameSpec
from p2pgenius.protocol.session.cards import HiddenCards


@dataclass
class DealtMatch:
    """One match from the deal on."""

    terms: dict[str, Any]
    game: Game[Any, Any]
    spec: GameSpec
    owner: tuple[int, ...]
    """The peer holding each seat."""
    mine: tuple[int, ...]
    """The seats this peer holds (none for an observer)."""
    state: Any
    """The engine state (from this peer's perspective: another seat's hidden cards as placeholders)."""
    cards: HiddenCards
    log: list[tuple[int, int, Plain]] = field(default_factory=list)
    """(stage, seat, action) as applied here."""

    sealed: bool = field(init=False)
    """Every choice travels as a commitment (the duel)."""
    fast: bool = field(init=False)
    """A sealed stage closes as soon as every commitment is in."""

    def __post_init__(self) -> None:
        # (Asked several times a message: worked out once, from the spec and terms that never
        # change after the deal.)
        self.sealed = self.spec.sealed
        self.fast = not self.spec.sealed or bool(self.terms["options"].get("fast", False))
