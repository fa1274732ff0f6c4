"""Bots that can take any seat: ``make_bot(game, level, seed)``.

Every game has ``random`` (uniformly random legal actions, for fuzzing) and, once its bots are
registered (``register_bots``), a strong default level. The built-in games' bot modules register
theirs when imported, below. ``p2pgenius.bots.driver`` drives bots over a match session.
"""

from p2pgenius.bots import duel, hornswoggle, magic_square
from p2pgenius.bots.registry import (
    RANDOM,
    Bot,
    BotFactory,
    demo_levels,
    level_of,
    levels,
    make_bot,
    register_bots,
    unregister_bots,
)

BUILT_IN = (duel, magic_square, hornswoggle)
"""The modules of the built-in games' bots (each registered its levels on import)."""

__all__ = [
    "BUILT_IN",
    "RANDOM",
    "Bot",
    "BotFactory",
    "demo_levels",
    "level_of",
    "levels",
    "make_bot",
    "register_bots",
    "unregister_bots",
]
