"""Front ends: how each game is shown and played in the terminal UI, one module a game.

``frontend(name)`` gives a game's front end: the one the games' table names
(:mod:`p2pgenius.games.catalog`, imported the first time it is asked for), or the generic
:class:`FrontEnd` (the state as its JSON view, moves typed as JSON or as an action's type and
fields, the legal actions as completions), so a game without a front end of its own is still
playable, and never through another game's rules.
"""

from p2pgenius.ui.frontends.base import BoardRequest, Choice, FrontEnd, InputError, Parsed, Question, frontend

__all__ = ["BoardRequest", "Choice", "FrontEnd", "InputError", "Parsed", "Question", "frontend"]
