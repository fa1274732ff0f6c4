"""What a player types, turned into actions; and the legal moves offered as completions.

Pure functions of the game, the state this machine knows and the seat: the terminal UI and its
tests share them. The game's front end (``p2pgenius.ui.frontends``) reads what was typed; the
engine itself then checks it, so the player hears why before anything is sent. Every error is one
line that says what would be accepted instead.
"""

from __future__ import annotations

from typing import Any, Final

from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.ui.frontends import Choice, InputError, Parsed, frontend
from p2pgenius.ui.frontends.base import TIME_UP

__all__ = ["COMMON_HELP", "Choice", "InputError", "Parsed", "choices", "dark_choices", "help_text", "parse"]


def parse(game: str, text: str, state: Any, seat: int, *, hints: bool = False) -> Parsed:
    """The move ``text`` means for ``seat``; raises InputError. Legality is checked here too
    (``state`` None: this machine does not know the state, so only the front end's syntax is);
    with ``hints``, a legal move they mark as a mistake is to be confirmed first."""
    if not text.split():
        raise InputError("type a move (Tab shows the legal ones), or help")
    front = frontend(game)
    parsed = front.parse(text, state, seat)
    if parsed.action is not None and state is not None:
        spec = get_spec(game)
        try:
            action = spec.engine.parse_action(parsed.action)
            if spec.flipped_pile(action.to_plain()) is None:  # a flip's card comes from its owner
                spec.engine.apply(state, seat, action)
        except P2PGeniusError as exc:
            raise InputError(str(exc)) from None
        caution = front.caution(parsed.action, state, seat) if hints and not parsed.confirm else ""
        if caution:
            return Parsed(parsed.action, caution)
    return parsed


def choices(game: str, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
    """The completions for what is typed so far."""
    return frontend(game).choices(state, seat, typed, hints=hints)


def dark_choices(game: str, typed: str, seat: int) -> list[Choice]:
    """The completions while this machine does not know the state (its seat is in the dark)."""
    return frontend(game).dark_choices(typed, seat)


def help_text(game: str | None, time_up: str = "the time is up") -> str:
    """What to type in ``game`` (empty before the game is known), saying ``time_up`` where the
    match's time limit runs out ("the turn's time is up (2m a turn)")."""
    return frontend(game).help.replace(TIME_UP, time_up) if game else ""


COMMON_HELP: Final = (
    "Tab: the legal moves, each with what it does; Tab again for the next, Enter sends.\n"
    "The line above the input says what is being decided; mistakes are explained under it.\n"
    "say TEXT (or 'TEXT): chat to the table.\n"
    "PageUp/PageDown: scroll what happened; End: the newest.\n"
    "F1 or ?: this help; PageUp/PageDown (or Up/Down) scroll it, Esc closes it.\n"
    "rules (or F2): the rules page, PageUp/PageDown to scroll.\n"
    "copy (or F3): a host's invite, whole, to the clipboard.\n"
    "Ctrl-C / Ctrl-Q: leave (asks first; p2pgenius resume carries on)."
)
