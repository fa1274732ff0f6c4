"""Which bots play which game: every game's bot levels, by name.

A game's bots are registered with :func:`register_bots` (the built-in games' modules in
p2pgenius/bots/ register theirs on import); ``random`` (a uniformly random legal action) plays
every registered game, one registered later included, so any game can be played by bots.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol

from p2pgenius.bots.uniform import RandomBot
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.registry import get_game

RANDOM: Final = "random"
"""The level every game has."""


class Bot(Protocol):
    """A player: given the state it may see and its seat, it returns an action."""

    level: str

    def choose(self, state: Any, seat: int) -> Any:
        """An action for ``seat`` (one of the seats to act), or None to let an optional action
        (one the game is not waiting on) pass."""
        ...


class BotFactory(Protocol):
    """Makes a bot of one level (a bot class whose constructor takes the seed will do)."""

    def __call__(self, *, seed: int) -> Bot: ...


_LEVELS: Final[dict[str, dict[str, BotFactory]]] = {}
_DEMO: Final[dict[str, tuple[str, str]]] = {}


def register_bots(
    game: str, levels: Mapping[str, BotFactory], *, demo: tuple[str, str] | None = None
) -> None:
    """Give ``game`` these bot levels, the first being its default (``random`` is added after
    them). ``demo``: the levels of the host's and the guest's bots in ``p2pgenius demo`` (default:
    the default level for both)."""
    if not levels:
        raise LocalMisuseError(f"no bot levels given for {game}")
    _LEVELS[game] = dict(levels)
    if demo is not None:
        for level in demo:
            if level not in _LEVELS[game] and level != RANDOM:
                raise LocalMisuseError(f"the demo of {game} names an unknown bot level {level!r}")
        _DEMO[game] = demo
    else:
        _DEMO.pop(game, None)


def unregister_bots(game: str) -> None:
    """Forget a game's bots (for tests that register their own)."""
    _LEVELS.pop(game, None)
    _DEMO.pop(game, None)


def levels(game: str) -> tuple[str, ...]:
    """The bot levels of ``game``, its default first; raises LocalMisuseError for an unknown game."""
    get_game(game)  # an unknown game is refused here, not at the first move
    own = tuple(_LEVELS.get(game, {}))
    return own if RANDOM in own else (*own, RANDOM)


def level_of(game: str, level: str | None) -> str:
    """``level`` (None or "": the default) if ``game`` has it; raises LocalMisuseError if not."""
    known = levels(game)
    chosen = level or known[0]
    if chosen not in known:
        raise LocalMisuseError(f"no bot level {chosen!r} for {game} (choose: {', '.join(known)})")
    return chosen


def demo_levels(game: str) -> tuple[str, str]:
    """The levels of the host's and the guest's bots in ``p2pgenius demo``."""
    default = levels(game)[0]
    return _DEMO.get(game, (default, default))


def make_bot(game: str, level: str | None, *, seed: int) -> Bot:
    """A bot for ``game`` at ``level`` (None: the game's default), seeded for reproducibility."""
    chosen = level_of(game, level)
    factory = _LEVELS.get(game, {}).get(chosen)
    if factory is None:  # random, the level every game has
        return RandomBot(get_game(game), seed=seed)
    return factory(seed=seed)
