"""The screens' styles: the classes every screen uses, those of a game's board (its front end's),
the replay's marks for the step shown, and the colours the terminal gets."""

from __future__ import annotations

import functools
import os
from typing import Final

from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import BaseStyle, Style, merge_styles

from p2pgenius.ui.frontends import frontend

STYLE: Final = Style.from_dict(
    {
        "status": "reverse",
        "status.title": "reverse bold",
        "status.good": "bg:ansigreen ansiblack",
        "status.warn": "bg:ansiyellow ansiblack",
        "title": "bold",
        "dim": "ansigray",
        "label": "bold",
        "seat": "",
        "seat.me": "bold ansicyan",
        "effect": "ansiyellow",
        "strong": "bold",
        "clock": "",
        "clock.running": "bold ansigreen",
        "clock.low": "bold ansired",
        "message": "ansiyellow",
        "expected": "bold",
        "chat": "ansicyan",
        "rule": "ansigray",
        "fault": "bg:ansired ansiwhite bold",
        "help": "bg:ansiblack ansiwhite",
    }
)

REPLAY_STYLE: Final = Style.from_dict(
    {
        "current": "reverse bold",  # the current step's first line in the log
        "current-text": "bold",  # the rest of the current step (no dot: a dotted class is also its parent)
        "old": "",
        "old-head": "ansigray",
    }
)


def style(game: str | None) -> BaseStyle:
    """The common styles, and those of ``game``'s board once the game is known."""
    if game is None:
        return STYLE
    return _with_board(tuple(sorted(frontend(game).styles.items())))


@functools.lru_cache(maxsize=8)
def _with_board(board: tuple[tuple[str, str], ...]) -> BaseStyle:
    return merge_styles([STYLE, Style.from_dict(dict(board))]) if board else STYLE


def replay_style(game: str | None) -> BaseStyle:
    """The styles of ``game``'s replay: the match's, and the marks of the step shown."""
    return merge_styles([style(game), REPLAY_STYLE])


def colour_depth() -> ColorDepth | None:
    """No colours if NO_COLOR is set or the terminal is dumb (the layout still works)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return ColorDepth.DEPTH_1_BIT
    return None
