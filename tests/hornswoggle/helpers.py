"""Driving Hornswoggle in tests."""

from __future__ import annotations

from typing import Any

from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState

D, S = "doubloon", "skull"


def start(**setup: Any) -> HornState:
    """A new match."""
    return HORNSWOGGLE.initial(setup, {})


def act(state: HornState, seat: int, kind: str, **fields: Any) -> HornState:
    """Apply one action given as its type and fields."""
    return HORNSWOGGLE.apply(state, seat, HORNSWOGGLE.parse_action({"type": kind, **fields}))


def opened(cards: list[str], first: int = 0, **setup: Any) -> HornState:
    """Round 1 with p1 (the opponent) picking ``first`` and each seat opening with cards[seat]."""
    state = act(start(**setup), setup.get("opponent", 1), "order", first=first)
    for seat, card in enumerate(cards):
        state = act(state, seat, "place", card=card)
    return state
