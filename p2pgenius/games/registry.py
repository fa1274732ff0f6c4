"""Which games exist, and which this version can play."""

from __future__ import annotations

from typing import Any, Final

from p2pgenius import __version__
from p2pgenius.canonical import digest
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.base import Game
from p2pgenius.games.duel import DUEL
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.names import GAME_NAMES

_AVAILABLE: Final[dict[str, Game[Any, Any]]] = {
    "duel": DUEL,
    "magic-square": MAGIC_SQUARE,
    "hornswoggle": HORNSWOGGLE,
}


class GameUnavailableError(LocalMisuseError):
    """A game that exists but that this version cannot play yet."""


def get_game(name: str) -> Game[Any, Any]:
    """The engine of game ``name``; raises LocalMisuseError for an unknown or unavailable game."""
    if name in _AVAILABLE:
        return _AVAILABLE[name]
    if name in GAME_NAMES:
        raise GameUnavailableError(f"the game {name!r} is not available in this version yet")
    raise LocalMisuseError(f"unknown game {name!r} (choose one of: {', '.join(GAME_NAMES)})")


RULES_VERSIONS: Final = {"duel": 2, "magic-square": 2, "hornswoggle": 1}
"""Bumped whenever a game's rules engine would compute anything differently."""


def engine_fingerprint(name: str) -> str:
    """What two peers compare before a match: the same fingerprint means the same rules engine."""
    get_game(name)
    return digest([name, RULES_VERSIONS[name], __version__]).hex()[:32]
