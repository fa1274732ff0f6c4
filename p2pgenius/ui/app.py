"""The full-screen terminal application: a prompt_toolkit view of a :class:`Table`.

Layout, top to bottom: a status bar (game, you, the other players' fingerprints, the connection),
the board beside the log and the chat (on a narrow terminal: the board, then the log with the chat
in it), every seat's clock, what is being decided, the input line with completion of legal moves,
and a feedback line under it. The layout is worked out from the terminal's size at every redraw:
the board gets the rows it needs (a board draws more when it has room), the log the rest, and the
lines that say what to do are wrapped, never cut.

Keys: Tab lists the legal moves; PageUp/PageDown scroll the log (and the rules page), End returns
to the newest lines; F1 or ? opens the help, F2 the rules; Esc closes them; Ctrl-C or Ctrl-Q
leaves after asking. A stopped match covers the screen with what happened and where the evidence
is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
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
from prompt_toolkit.styles import DynamicStyle
from prompt_toolkit.widgets import Frame

from p2pgenius import rules_pages
from p2pgenius.ui import moves
from p2pgenius.ui.frame import Geometry, geometry, lines_text
from p2pgenius.ui.lines import Glyphs, Line, wrap, wrap_all
from p2pgenius.ui.style import colour_depth, style
from p2pgenius.ui.table import Table


class MoveCompleter(Completer):
    """Legal moves for what is typed so far, each with its one-line explanation."""

    def __init__(self, table: Table) -> None:
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


class Screen:
    """The application's pieces that depend on the size of the terminal, worked out once at each
    redraw (the layout asks for them several times)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._memo: dict[str, Any] = {}
        self._drawn: tuple[int, tuple[int, int]] | None = None

    def size(self) -> tuple[int, int]:
        size = get_app().output.get_size()
        return size.columns, size.rows

    def _once(self, name: str, make: Callable[[], Any]) -> Any:
        drawn = (get_app().render_counter, self.size())
        if drawn != self._drawn:
            self._memo.clear()
            self._drawn = drawn
        if name not in self._memo:
            self._memo[name] = make()
        return self._memo[name]

    def status(self) -> list[Line]:
        columns, _ = self.size()
        return self._once("status", lambda: wrap_all(self.table.text.status_lines(columns), columns))  # type: ignore[no-any-return]

    def question(self) -> list[Line]:
        columns, _ = self.size()

        def make() -> list[Line]:
            text = self.table.text.expected()
            return wrap([("class:expected", " " + text)], columns) if text else [[]]

        return self._once("question", make)  # type: ignore[no-any-return]

    def message(self) -> list[Line]:
        columns, _ = self.size()
        text = self.table.state.message
        return wrap([("class:message", " " + text)], columns) if text else [[]]

    def chrome(self) -> int:
        """Rows taken by everything but the board, the log and the chat."""
        return len(self.status()) + 1 + len(self.question()) + 1 + len(self.message())

    def geometry(self) -> Geometry:
        columns, rows = self.size()
        return self._once("geometry", lambda: geometry(columns, rows, self.chrome()))  # type: ignore[no-any-return]

    def board(self) -> list[Line]:
        geo = self.geometry()
        return self._once("board", lambda: self.table.text.board_lines(geo.board_width, geo.board_height))  # type: ignore[no-any-return]

    def log_under(self) -> bool:
        """On a wide screen, whether the board leaves room under it for the log (the chat then
        has the column beside them), rather than the log and chat sharing that column."""
        geo = self.geometry()
        return geo.wide and geo.board_height - len(self.board()) >= 10


def build(table: Table, **app_args: Any) -> Application[None]:
    """The application for ``table`` (``app_args``: input, output, for tests)."""
    buffer = Buffer(
        completer=MoveCompleter(table),
        complete_while_typing=False,
        multiline=False,
    )

    def accept(buff: Buffer) -> bool:
        table.input.enter(buff.text)
        return False  # clear the line

    buffer.accept_handler = accept
    screen = Screen(table)

    def text(make: Callable[[], Any], **more: Any) -> FormattedTextControl:
        return FormattedTextControl(make, focusable=False, **more)

    logs: dict[str, Window] = {}

    def log_window(chat: bool | None) -> Window:
        """A log that follows its newest line, or stays where PageUp put it (its lines wrapped
        at spaces here, so that the scrolling counts what is on the screen)."""

        def lines() -> list[Line]:
            geo = screen.geometry()
            width = (
                geo.columns
                if not geo.wide
                else (geo.board_width if screen.log_under() else geo.side_width - 2)
            )
            shown = table.text.feed_lines(chat=chat) or [
                [("class:dim", "(say TEXT to chat)" if chat else "")]
            ]
            return wrap_all(shown, width)

        def cursor() -> Point:
            # prompt_toolkit scrolls a window to show its cursor: on the newest line the log
            # follows; scrolled back, the cursor is the top line shown.
            if table.input.follow or chat:
                return Point(0, max(len(lines()) - 1, 0))
            return Point(0, max(table.input.log_top, 0))

        def scroll(window: Window) -> int:
            if table.input.follow or chat:
                return window.vertical_scroll
            info = window.render_info
            height = info.window_height if info is not None else 1
            table.input.log_top = max(min(table.input.log_top, len(lines()) - height), 0)
            return table.input.log_top

        return Window(
            text(lambda: lines_text(lines()), get_cursor_position=cursor),
            wrap_lines=False,
            get_vertical_scroll=scroll,
        )

    logs["log"] = log_window(False)
    logs["feed"] = log_window(None)
    chat_window = log_window(True)

    def board_title() -> str:
        return table.text.game() or "p2pgenius"

    def log_title() -> str:
        return "what happened" if table.input.follow else "what happened: End for the newest"

    board_window = Window(text(lambda: lines_text(screen.board())), wrap_lines=False)

    def rule() -> StyleAndTextTuples:
        columns, _ = screen.size()
        glyph = Glyphs.pick(table.state.ascii_only).rule
        title = f" what happened, and the chat ({'End: newest' if not table.input.follow else 'PgUp/PgDn'}) "
        return [("class:rule", (glyph * 2 + title).ljust(columns, glyph)[:columns])]

    def body() -> Any:
        geo = screen.geometry()
        if geo.wide:
            if screen.log_under():  # room under the board: the log grows there
                need = len(screen.board()) + 2
                left = HSplit(
                    [
                        Frame(board_window, title=board_title, height=Dimension.exact(need)),
                        Frame(logs["log"], title=log_title),
                    ]
                )
                chat = Frame(chat_window, title="chat (say TEXT)", width=Dimension.exact(geo.side_width))
                return VSplit([left, chat])
            chat_rows = max(4, min(12, geo.board_height // 4))
            side = HSplit(
                [
                    Frame(logs["log"], title=log_title),
                    Frame(chat_window, title="chat (say TEXT)", height=Dimension.exact(chat_rows + 2)),
                ],
                width=Dimension.exact(geo.side_width),
            )
            return VSplit([Frame(board_window, title=board_title), side])
        # The board asked to fit above MIN_LOG rows of log; one that cannot takes rows of the log
        # rather than lose its own, down to a single line of log.
        height = min(len(screen.board()), geo.rows - screen.chrome() - 2)
        return HSplit(
            [
                Window(text(lambda: lines_text(screen.board())), height=Dimension.exact(height)),
                Window(text(rule), height=1),
                logs["feed"],
            ]
        )

    def active_log() -> Window:
        return logs["log"] if screen.geometry().wide else logs["feed"]

    def help_lines() -> list[Line]:
        columns, _ = screen.size()
        words = moves.help_text(table.text.game()) + "\n\n" + moves.COMMON_HELP + "\n\nEsc closes this help."
        lines: list[Line] = [[]]
        for line in words.splitlines():
            lines += wrap([("class:help", " " + line)], columns - 6, 2) if line else [[]]
        return lines

    help_text = Window(text(lambda: lines_text(help_lines())), style="class:help")
    fault_screen = Window(text(lambda: [("class:fault", table.text.fault_text())]), wrap_lines=True)

    def rules_lines() -> list[Line]:
        columns, _ = screen.size()
        return rules_view(table.input.rules, columns - 6)

    def rules_scroll(window: Window) -> int:
        info = window.render_info
        height = info.window_height if info is not None else 10
        top = max(min(table.input.rules_scroll, len(rules_lines()) - height), 0)
        table.input.rules_scroll = top
        return top

    def rules_cursor() -> Point:  # (prompt_toolkit keeps a window's cursor in view: the top line)
        return Point(0, max(min(table.input.rules_scroll, len(rules_lines()) - 1), 0))

    rules_window = Window(
        text(lambda: lines_text(rules_lines()), get_cursor_position=rules_cursor),
        get_vertical_scroll=rules_scroll,
    )
    rules_shown = Condition(lambda: table.input.rules_open)
    root = FloatContainer(
        content=HSplit(
            [
                Window(
                    text(lambda: lines_text(screen.status())),
                    height=lambda: len(screen.status()),
                    style="class:status",
                ),
                DynamicContainer(body),
                Window(text(lambda: table.text.clock_line(screen.size()[0])), height=1),
                Window(text(lambda: lines_text(screen.question())), height=lambda: len(screen.question())),
                Window(BufferControl(buffer, input_processors=[BeforeInput(table.text.prompt)]), height=1),
                Window(text(lambda: lines_text(screen.message())), height=lambda: len(screen.message())),
            ]
        ),
        floats=[
            Float(content=CompletionsMenu(max_height=12, scroll_offset=1), xcursor=True, ycursor=True),
            Float(
                ConditionalContainer(
                    Frame(help_text, title="help"), Condition(lambda: table.input.help_open)
                ),
                left=2,
                right=2,
                top=1,
                bottom=2,
            ),
            Float(
                ConditionalContainer(
                    Frame(rules_window, title="rules (PageUp/PageDown, Esc closes)"), rules_shown
                ),
                left=2,
                right=2,
                top=1,
                bottom=2,
            ),
            Float(
                ConditionalContainer(
                    Frame(fault_screen, title="stopped"), Condition(lambda: table.state.fault is not None)
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
    at_end = Condition(lambda: buffer.cursor_position >= len(buffer.text))

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
        table.input.help_open = not table.input.help_open

    @keys.add("f2")
    def _rules(event: KeyPressEvent) -> None:
        if table.input.rules_open:
            table.input.rules_open = False
        else:
            table.input.show_rules()

    @keys.add("pagedown", filter=rules_shown)
    @keys.add("down", filter=rules_shown)
    def _rules_down(event: KeyPressEvent) -> None:
        table.input.rules_scroll += 15 if event.key_sequence[0].key == "pagedown" else 1

    @keys.add("pageup", filter=rules_shown)
    @keys.add("up", filter=rules_shown)
    def _rules_up(event: KeyPressEvent) -> None:
        table.input.rules_scroll = max(
            table.input.rules_scroll - (15 if event.key_sequence[0].key == "pageup" else 1), 0
        )

    def page() -> tuple[int, int, int]:
        """The log's top line now, its height, and how many lines it holds."""
        info = active_log().render_info
        count = info.content_height if info is not None else 0
        if info is None:
            return 0, 10, count
        return active_log().vertical_scroll, max(info.window_height - 1, 1), count

    @keys.add("pageup", filter=~rules_shown)
    def _log_up(event: KeyPressEvent) -> None:
        top, height, _ = page()
        table.input.log_top = max(top - height, 0)
        table.input.follow = False

    @keys.add("pagedown", filter=~rules_shown)
    def _log_down(event: KeyPressEvent) -> None:
        top, height, count = page()
        if table.input.follow:
            return
        table.input.log_top = top + height
        if table.input.log_top + height >= count:
            table.input.follow = True

    @keys.add("end", filter=~rules_shown & at_end)
    def _log_end(event: KeyPressEvent) -> None:
        table.input.follow = True

    @keys.add("home", filter=~rules_shown & empty)
    def _log_home(event: KeyPressEvent) -> None:
        table.input.follow = False
        table.input.log_top = 0

    @keys.add("escape", eager=True)
    def _close(event: KeyPressEvent) -> None:
        table.input.help_open = False
        table.input.rules_open = False
        if table.input.leaving:
            table.input.leaving = False
            table.state.message = ""
        if table.state.confirming is not None:
            table.input.enter("n")

    @keys.add("c-c")
    @keys.add("c-q")
    def _leave(event: KeyPressEvent) -> None:
        if table.state.finished or table.input.leaving:
            event.app.exit()
            return
        table.input.leaving = True
        table.state.message = (
            "leave the match? Your transcript is kept and `p2pgenius resume` carries on. "
            "Ctrl-Q again leaves, Esc stays"
        )

    app: Application[None] = Application(
        layout=Layout(root, focused_element=buffer),
        key_bindings=keys,
        style=DynamicStyle(lambda: style(table.text.game())),
        full_screen=True,
        mouse_support=False,
        color_depth=colour_depth(),
        **app_args,
    )
    table.state.invalidate = app.invalidate
    return app


def rules_view(page: list[tuple[str, str]], width: int) -> list[Line]:
    """The rules page as wrapped, styled lines: headings stand out, a table's last column wraps
    under itself."""
    out: list[Line] = []
    indent = 4
    for kind, text in page:
        if kind == rules_pages.HEADING:
            out.append([("class:title", " " + text)])
        elif kind == rules_pages.SUBHEADING:
            out.append([("class:strong", " " + text)])
        elif kind == rules_pages.TABLE:
            if text and set(text) <= {"-", " "}:  # the rule under a table's header
                last = text.rstrip().rfind("  ")
                indent = last + 3 if 0 < last < width * 2 // 3 else 4
                continue
            out += wrap([("", " " + text)], width, indent)
        else:
            bullet = len(text) - len(text.lstrip(" ")) + 2 if text.lstrip()[:2] in ("\u2022 ", "- ") else 1
            out += wrap([("", " " + text)], width, bullet + 1) if text else [[]]
    return wrap_all(out, width)
