"""Which games exist: every game's spec, by name, from the games' table
(:mod:`p2pgenius.games.catalog`). The layers above games/ find a game here and never name one
themselves."""

from __future__ import annotations

from typing import Any

from p2pgenius import __version__
from p2pgenius.canonical import digest
from p2pgenius.games.base import Game
from p2pgenius.games.catalog import find, names
from p2pgenius.games.spec import GameSpec

__all__ = ["engine_fingerprint", "get_game", "get_spec", "names"]


def get_spec(name: str) -> GameSpec:
    """The spec of game ``name``; raises LocalMisuseError for an unknown game."""
    return find(name).load_spec()


def get_game(name: str) -> Game[Any, Any]:
    """The engine of game ``name``; raises LocalMisuseError for an unknown game."""
    return get_spec(name).engine


def engine_fingerprint(name: str, rules_version: int | None = None) -> str:
    """What two peers compare before a match: the same fingerprint means the same rules engine
    (of ``rules_version``; by default the game's own)."""
    version = get_spec(name).rules_version if rules_version is None else rules_version
    return digest([name, version, __version__]).hex()[:32]
