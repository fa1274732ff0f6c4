"""Which games exist: every game's spec, by name. The layers above games/ find a game here and
never name one themselves."""

from __future__ import annotations

from typing import Any, Final

from p2pgenius import __version__
from p2pgenius.canonical import digest
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.base import Game
from p2pgenius.games.duel.spec import DUEL_SPEC
from p2pgenius.games.hornswoggle.spec import HORNSWOGGLE_SPEC
from p2pgenius.games.magic_square.spec import MAGIC_SQUARE_SPEC
from p2pgenius.games.names import GAME_NAMES
from p2pgenius.games.spec import GameSpec

_SPECS: Final[dict[str, GameSpec]] = {}


def register(spec: GameSpec) -> None:
    """Make a game playable everywhere (protocol, clocks, verify, bots' and UI's lookups)."""
    if not spec.name or spec.name in _SPECS:
        raise LocalMisuseError(f"a game needs a name of its own (got {spec.name!r})")
    if spec.engine is None or getattr(spec.engine, "name", spec.name) != spec.name:
        raise LocalMisuseError(f"the spec {spec.name!r} and its engine disagree on the name")
    _SPECS[spec.name] = spec


def unregister(name: str) -> None:
    """Forget a game (for tests that register one of their own)."""
    _SPECS.pop(name, None)


for _spec in (DUEL_SPEC, MAGIC_SQUARE_SPEC, HORNSWOGGLE_SPEC):
    register(_spec)


def names() -> tuple[str, ...]:
    """Every registered game: the built-in ones in ``demo`` order, then any added."""
    return tuple(name for name in GAME_NAMES if name in _SPECS) + tuple(
        name for name in _SPECS if name not in GAME_NAMES
    )


def get_spec(name: str) -> GameSpec:
    """The spec of game ``name``; raises LocalMisuseError for an unknown game."""
    spec = _SPECS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise LocalMisuseError(f"unknown game {name!r} (choose one of: {', '.join(names())})")
    return spec


def get_game(name: str) -> Game[Any, Any]:
    """The engine of game ``name``; raises LocalMisuseError for an unknown game."""
    return get_spec(name).engine


def engine_fingerprint(name: str) -> str:
    """What two peers compare before a match: the same fingerprint means the same rules engine."""
    spec = get_spec(name)
    return digest([name, spec.rules_version, __version__]).hex()[:32]
