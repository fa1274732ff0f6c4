"""The ``random`` bot level: a uniformly random legal action, from a seeded generator."""

from __future__ import annotations

import random
from typing import Any

from p2pgenius.games.base import Game


class RandomBot:
    """Plays a uniformly random action from ``legal_actions``; for fuzzing and benchmarks."""

    level = "random"

    def __init__(self, game: Game[Any, Any], *, seed: int) -> None:
        self.game = game
        self.rng = random.Random(seed)

    def choose(self, state: Any, seat: int) -> Any:
        """An action for ``seat``, which must be one of the seats to act."""
        legal = self.game.legal_actions(state, seat)
        return legal[self.rng.randrange(len(legal))]
