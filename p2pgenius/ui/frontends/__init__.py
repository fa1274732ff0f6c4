"""Front ends: how each game is shown and played in the terminal UI, one module a game.

Which front end serves which game is the UI's knowledge, not the games' (a lower layer that
names nothing above it): :data:`FRONT_ENDS` lists the built-in games' own front ends, each
imported the first time it is asked for. A game from outside the package (a plugin, or a game a
test defines) brings its own in its entry of the games' table (``Entry.frontend``: the object, or
a ``"module:attribute"`` path into its own package). ``frontend(name)`` gives a game's front end
from one or the other, or else the generic :class:`FrontEnd` (the state as its JSON view, moves
typed as JSON or as an action's type and fields, the legal actions as completions), so a game
without a front end of its own is still playable, and never through another game's rules.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Final

from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.catalog import find
from p2pgenius.ui.frontends.base import BoardRequest, Choice, FrontEnd, InputError, Parsed, Question

__all__ = ["FRONT_ENDS", "BoardRequest", "Choice", "FrontEnd", "InputError", "Parsed", "Question", "frontend"]

FRONT_ENDS: Final[Mapping[str, str]] = {
    "duel": "p2pgenius.ui.frontends.duel:FRONT",
    "magic-square": "p2pgenius.ui.frontends.magic_square:FRONT",
    "hornswoggle": "p2pgenius.ui.frontends.hornswoggle:FRONT",
}
"""The built-in games' own front ends, by game name, as ``"module:attribute"`` paths (a game not
listed here is shown through its table entry's front end, or the generic one)."""


def frontend(name: str) -> FrontEnd:
    """The front end of game ``name``: its own (listed in :data:`FRONT_ENDS`, or given by its
    entry in the games' table), or the generic one (a game without one of its own, or a name no
    game has). A front end that is not one for that game is refused (TypeError): it would show
    another game's board."""
    where = FRONT_ENDS.get(name)
    if where is not None:
        module, _, attribute = where.partition(":")
        found = getattr(importlib.import_module(module), attribute)
    else:
        try:
            found = find(name).load_frontend()
        except LocalMisuseError:
            found = None
    if found is None:
        return FrontEnd(name)
    if not isinstance(found, FrontEnd) or found.game != name:
        raise TypeError(f"the front end given for {name!r} is {found!r}, not one of that game's")
    return found
