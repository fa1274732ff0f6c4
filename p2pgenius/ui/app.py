"""The full-screen terminal application: a prompt_toolkit view of a :class:`Table`.

Layout, top to bottom: a status bar (game, you, the other players' fingerprints, the connection),
the board beside the log and the chat (stacked on a narrow terminal), the clocks, a line saying
what the match waits for, a feedback line, and the input line with completion of legal moves.
F1 or ? opens the help; a stopped match covers the screen with what happened and where the
evidence is; Ctrl-C or Ctrl-Q leaves after asking.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import BaseStyle, DynamicStyle, Style, merge_styles
from prompt_toolkit.widgets import Frame

from p2pgenius.ui import moves
from p2pgenius.ui.frontends import frontend
from p2pgenius.ui.render import Line
from p2pgenius.ui.table import Table

NARROW = 100
"""Below this many columns the log and chat go under the board instead of beside it."""

STYLE = Style.from_dict(
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
        "fault": "bg:ansired ansiwhite bold",
        "help": "bg:ansiblack ansiwhite",
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


def lines_text(lines: Iterable[Line]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for line in lines:
        out.extend(line)
        out.append(("", "\n"))
    return out


class MoveCompleter(Completer):
    """Legal moves for what is typed so far, each with its one-line explanation."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        for choice in self.table.completions(typed):
            text = choice.text
            if " " in typed.strip() and not typed.endswith(" ") and " " not in text:
                if text.startswith(word):
                    yield Completion(text, start_position=-len(word), display_meta=choice.meta)
            elif typed.endswith(" ") and len(typed.split()) >= 1 and " " not in text:
                yield Completion(text, start_position=0, display_meta=choice.meta)
            elif text.lower().startswith(typed.lower().lstrip()):
                yield Completion(text, start_position=-len(typed), display_meta=choice.meta)


def colour_depth() -> ColorDepth | None:
    """No colours if NO_COLOR is set or the terminal is dumb (the layout still works)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return ColorDepth.DEPTH_1_BIT
    return None


def build(table: Table, **app_args: Any) -> Application[None]:
    """The application for ``table`` (``app_args``: input, output, for tests)."""
    buffer = Buffer(
        completer=MoveCompleter(table),
        complete_while_typing=False,
        multiline=False,
    )

    def accept(buff: Buffer) -> bool:
        table.enter(buff.text)
        return False  # clear the line

    buffer.accept_handler = accept

    def text(make: Any) -> FormattedTextControl:
        return FormattedTextControl(make, focusable=False)

    board = Frame(Window(text(lambda: lines_text(table.board_lines())), wrap_lines=True), title="board")
    status = text(table.status_line)
    clocks = text(table.clock_line)
    log = Frame(
        Window(text(lambda: "\n".join(table.log)), wrap_lines=True, get_vertical_scroll=lambda w: 10**6),
        title="what happened",
    )
    chat = Frame(
        Window(text(lambda: "\n".join(table.chat_lines) or "(say TEXT to chat)"), wrap_lines=True),
        title="chat",
    )

    def body() -> Any:
        columns = get_app().output.get_size().columns
        if columns < NARROW:
            return HSplit([board, HSplit([log, chat], height=12)])
        return VSplit([board, HSplit([log, chat], width=max(columns // 3, 36))])

    help_text = Window(
        text(
            lambda: [
                ("class:help", "\n " + moves.help_text(table.game()).replace("\n", "\n ") + "\n\n "),
                ("class:help", moves.COMMON_HELP.replace("\n", "\n ") + "\n\n  Esc closes this help.\n"),
            ]
        )
    )
    fault_screen = Window(text(lambda: [("class:fault", table.fault_text())]), wrap_lines=True)
    rules_scroll = [0]

    def rules_lines() -> str:
        lines = table.rules.splitlines()
        start = min(rules_scroll[0], max(len(lines) - 5, 0))
        rules_scroll[0] = start
        return "\n".join(lines[start:])

    rules_window = Window(text(rules_lines), wrap_lines=True)
    rules_shown = Condition(lambda: table.rules_open)
    root = FloatContainer(
        content=HSplit(
            [
                Window(status, height=1, style="class:status"),
                DynamicContainer(body),
                Window(clocks, height=1),
                Window(text(lambda: [("class:expected", " " + table.expected())]), height=1),
                Window(text(lambda: [("class:message", " " + table.message)]), height=1),
                Window(
                    BufferControl(buffer, input_processors=[BeforeInput(table.prompt)]),
                    height=1,
                ),
            ]
        ),
        floats=[
            Float(content=CompletionsMenu(max_height=12, scroll_offset=1), xcursor=True, ycursor=True),
            Float(ConditionalContainer(Frame(help_text, title="help"), Condition(lambda: table.help_open))),
            Float(
                ConditionalContainer(
                    Frame(rules_window, title="rules (PageUp/PageDown, Esc closes)"), rules_shown
                ),
                left=2,
                right=2,
                top=1,
                bottom=3,
            ),
            Float(
                ConditionalContainer(
                    Frame(fault_screen, title="stopped"), Condition(lambda: table.fault is not None)
                ),
                left=2,
                right=2,
                top=2,
                bottom=4,
            ),
        ],
    )
    keys = KeyBindings()
    empty = Condition(lambda: not buffer.text)

    @keys.add("tab")
    def _complete(event: KeyPressEvent) -> None:
        """Tab shows the legal moves with the first one chosen; again, the next one."""
        if buffer.complete_state is not None:
            buffer.complete_next()
        else:
            buffer.start_completion(select_first=True)

    @keys.add("enter", filter=Condition(lambda: buffer.complete_state is not None))
    def _take(event: KeyPressEvent) -> None:
        """Enter on a chosen completion sends it (one key less for the common case)."""
        buffer.complete_state = None
        buffer.validate_and_handle()

    @keys.add("f1")
    @keys.add("?", filter=empty)
    def _help(event: KeyPressEvent) -> None:
        table.help_open = not table.help_open

    @keys.add("f2")
    def _rules(event: KeyPressEvent) -> None:
        if table.rules_open:
            table.rules_open = False
        else:
            table.show_rules()

    @keys.add("pagedown", filter=rules_shown)
    def _down(event: KeyPressEvent) -> None:
        rules_scroll[0] += 15

    @keys.add("pageup", filter=rules_shown)
    def _up(event: KeyPressEvent) -> None:
        rules_scroll[0] = max(rules_scroll[0] - 15, 0)

    @keys.add("escape", eager=True)
    def _close(event: KeyPressEvent) -> None:
        table.help_open = False
        table.rules_open = False
        if table.leaving:
            table.leaving = False
            table.message = ""
        if table.confirming is not None:
            table.enter("n")

    @keys.add("c-c")
    @keys.add("c-q")
    def _leave(event: KeyPressEvent) -> None:
        if table.finished or table.leaving:
            event.app.exit()
            return
        table.leaving = True
        table.message = (
            "leave the match? Your transcript is kept and `p2pgenius resume` carries on. "
            "Ctrl-Q again leaves, Esc stays"
        )

    app: Application[None] = Application(
        layout=Layout(root, focused_element=buffer),
        key_bindings=keys,
        style=DynamicStyle(lambda: style(table.game())),
        full_screen=True,
        mouse_support=False,
        color_depth=colour_depth(),
        **app_args,
    )
    table.invalidate = app.invalidate
    return app
