"""The wizard duel: simultaneous gestures that cast 16 spells (Waving Hands style)."""

from p2pgenius.games.duel.engine import DUEL, Duel

__all__ = ["DUEL", "Duel"]
