"""The ``random`` bot level: a uniformly random legal action, from a seeded generator."""

from __future__ import annotations

import random
from typing import Any

from p2pgenius.games.base import Game


class RandomBot:
    """Plays a uniformly random action from ``legal_actions``; for fuzzing and benchmarks."""

    level = "random"
    quick = True  # it picks in microseconds: no worker thread needed (see BotDriver.decide)

    def __init__(self, game: Game[Any, Any], *, seed: int) -> None:
        self.game = game
        self.rng = random.Random(seed)

    def choose(self, state: Any, seat: int) -> Any:
        """An action for ``seat`` (one of the seats to act), or None to let an optional action
        pass (half the time, when the game is not waiting on this seat)."""
        legal = self.game.legal_actions(state, seat)
        if not legal:
            return None  # (asked about a seat with nothing to do: a stage that has moved on)
        optional = seat not in self.game.waiting_on(state)
        if optional and self.rng.random() < 0.5:
            return None
        return legal[self.rng.randrange(len(legal))]
