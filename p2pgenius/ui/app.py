"""The full-screen terminal application: a prompt_toolkit view of a :class:`TableScreen`.

Put together from its concerns: the layout (:mod:`p2pgenius.ui.layout`, in the frame the replay
shares, :mod:`p2pgenius.ui.frame`), the keys (:mod:`p2pgenius.ui.key_bindings`), the styles
(:mod:`p2pgenius.ui.style`), and here the input line, which completes the legal moves and hands
what the person typed to the table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from p2pgenius.ui.frame import application
from p2pgenius.ui.key_bindings import match_keys
from p2pgenius.ui.layout import MatchLayout
from p2pgenius.ui.style import style
from p2pgenius.ui.table import TableScreen


class MoveCompleter(Completer):
    """Legal moves for what is typed so far, each with its one-line explanation."""

    def __init__(self, table: TableScreen) -> None:
        self.table = table

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        for choice in self.table.text.completions(typed):
            text = choice.text
            if " " in typed.strip() and not typed.endswith(" ") and " " not in text:
                if text.startswith(word):
                    yield Completion(text, start_position=-len(word), display_meta=choice.meta)
            elif typed.endswith(" ") and len(typed.split()) >= 1 and " " not in text:
                yield Completion(text, start_position=0, display_meta=choice.meta)
            elif text.lower().startswith(typed.lower().lstrip()):
                yield Completion(text, start_position=-len(typed), display_meta=choice.meta)


def build(table: TableScreen, **app_args: Any) -> Application[None]:
    """The application for ``table`` (``app_args``: input, output, for tests)."""

    def accept(buff: Buffer) -> bool:
        table.input.enter(buff.text)
        return False  # clear the line

    buffer = Buffer(
        completer=MoveCompleter(table),
        complete_while_typing=False,
        multiline=False,
        accept_handler=accept,
    )
    layout = MatchLayout(table, buffer)
    app = application(
        layout.root,
        buffer=buffer,
        keys=match_keys(table.input, buffer, layout.active_log, layout.history_limit),
        style=lambda: style(table.text.game()),
        **app_args,
    )
    table.state.invalidate = app.invalidate
    return app
