"""The games' names on the command line (a module of its own so that it imports nothing)."""

from typing import Final

GAME_NAMES: Final = ("duel", "magic-square", "hornswoggle")
"""Every game name of the command line, in the order ``demo`` plays them."""
