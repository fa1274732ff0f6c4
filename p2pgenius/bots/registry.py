"""Which bots play which game: every game's bot levels, read from the games' table.

A game's own levels come from its entry's ``bots`` (:class:`p2pgenius.games.catalog.BotLevels`);
``random`` (a uniformly random legal action) plays every game in the table, one without bots of
its own included, so any game can be played by bots.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from p2pgenius.bots.uniform import RandomBot
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.catalog import BotLevels, Level, find
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


def _own(game: str) -> BotLevels:
    """The game's own bots (none: an empty set of levels)."""
    return find(game).load_bots() or BotLevels({})


def levels(game: str) -> tuple[str, ...]:
    """The bot levels of ``game``, its default first; raises LocalMisuseError for an unknown game."""
    own = tuple(_own(game).levels)
    return own if RANDOM in own else (*own, RANDOM)


def described(game: str) -> tuple[Level, ...]:
    """The bot levels of ``game`` as players are told them (the table's words), strongest first,
    ``random`` last; read without loading a bot."""
    return find(game).described


def level_words(game: str, level: str | None) -> str:
    """``level`` of ``game`` (None: the default) in words: "wizard (club)"."""
    return find(game).level_words(level or "")


def level_of(game: str, level: str | None) -> str:
    """``level`` (None or "": the default) if ``game`` has it; raises LocalMisuseError if not."""
    known = levels(game)
    chosen = level or known[0]
    if chosen not in known:
        told = ", ".join(level_words(game, name) for name in known)
        raise LocalMisuseError(f"no bot level {chosen!r} for {game} (choose: {told})")
    return chosen


def demo_levels(game: str) -> tuple[str, str]:
    """The levels of the host's and the guest's bots in ``p2pgenius demo``."""
    default = levels(game)[0]
    return _own(game).demo or (default, default)


def make_bot(game: str, level: str | None, *, seed: int) -> Bot:
    """A bot for ``game`` at ``level`` (None: the game's default), seeded for reproducibility."""
    chosen = level_of(game, level)
    factory = _own(game).levels.get(chosen)
    if factory is None:  # random, the level every game has
        return RandomBot(get_game(game), seed=seed)
    bot: Bot = factory(seed=seed)
    return bot


def thinks_at_once(game: str, level: str | None) -> bool:
    """Whether the bot of ``level`` (None or "": the default, the strongest) picks in microseconds
    (``random``, the level every game has): worth no worker, neither a thread nor a process.
    Told from the table's words, without loading a bot (which may load tables)."""
    return (level or described(game)[0].name) == RANDOM


def plain(action: Any) -> Any:
    """An action's plain form (a bot may return an engine action or plain data)."""
    return action.to_plain() if hasattr(action, "to_plain") else action
