"""Front ends: how each game is shown and played in the terminal UI, one module a game.

``frontend(name)`` gives a game's front end: the one registered with ``register_frontend``, or
the generic :class:`FrontEnd` (the state as its JSON view, moves typed as JSON or as an action's
type and fields, the legal actions as completions), so a game without a front end of its own is
still playable, and never through another game's rules. The built-in games' front ends register
themselves when their modules are imported, below.
"""

from p2pgenius.ui.frontends import duel, hornswoggle, magic_square
from p2pgenius.ui.frontends.base import (
    Choice,
    FrontEnd,
    InputError,
    Parsed,
    Question,
    frontend,
    register_frontend,
    unregister_frontend,
)

BUILT_IN = (duel, magic_square, hornswoggle)
"""The modules of the built-in games' front ends (each registered itself on import)."""

__all__ = [
    "BUILT_IN",
    "Choice",
    "FrontEnd",
    "InputError",
    "Parsed",
    "Question",
    "frontend",
    "register_frontend",
    "unregister_frontend",
]
