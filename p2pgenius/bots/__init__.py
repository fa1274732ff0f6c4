"""Bots that can take any seat: ``make_bot(game, level, seed)``.

Every game has ``random`` (uniformly random legal actions, for fuzzing) and a strong default level.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from p2pgenius.bots.duel import WizardBot
from p2pgenius.bots.hornswoggle import PirateBot
from p2pgenius.bots.magic_square import HeuristicSquareBot, PerfectSquareBot
from p2pgenius.bots.uniform import RandomBot
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.registry import get_game


class Bot(Protocol):
    """A player: given the state it may see and its seat, it returns an action."""

    level: str

    def choose(self, state: Any, seat: int) -> Any:
        """An action for ``seat`` (one of the seats to act), or None to let an optional action
        (one the game is not waiting on) pass."""
        ...


LEVELS: Final = {
    "duel": ("wizard", "random"),
    "magic-square": ("perfect", "heuristic", "random"),
    "hornswoggle": ("pirate", "random"),
}
"""Bot levels per game; the first is the default."""


def make_bot(game: str, level: str | None, *, seed: int) -> Bot:
    """A bot for ``game`` at ``level`` (None: the game's default), seeded for reproducibility."""
    engine = get_game(game)
    levels = LEVELS[game]
    chosen = levels[0] if level is None else level
    if chosen not in levels:
        raise LocalMisuseError(f"no bot level {chosen!r} for {game} (choose: {', '.join(levels)})")
    if chosen == "random":
        return RandomBot(engine, seed=seed)
    if chosen == "pirate":
        return PirateBot(seed=seed)
    if chosen == "wizard":
        return WizardBot(seed=seed)
    return PerfectSquareBot(seed=seed) if chosen == "perfect" else HeuristicSquareBot(seed=seed)
