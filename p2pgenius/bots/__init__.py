"""Bots that can take any seat: ``make_bot(game, level, seed)``.

Every game has ``random`` (uniformly random legal actions, for fuzzing) and the levels of its own
bots, whose strategies are pure and live with the game (``p2pgenius/games/GAME/bots.py``, named in
the games' table, :mod:`p2pgenius.games.catalog`). ``p2pgenius.bots.driver`` drives bots over a
match session.
"""

from p2pgenius.bots.registry import RANDOM, Bot, BotFactory, demo_levels, level_of, levels, make_bot

__all__ = ["RANDOM", "Bot", "BotFactory", "demo_levels", "level_of", "levels", "make_bot"]
