"""The match screen's layout, in the frame it shares with the replay (:mod:`p2pgenius.ui.frame`).

Top to bottom: the status bar (game, you, the other players' fingerprints, the connection), the
board beside the log and the chat (on a narrow terminal: the board, then the log with the chat in
it), every seat's clock, what is being decided, the input line, and a feedback line under it. The
layout is worked out from the terminal's size at every redraw: the board gets the rows it needs (a
board draws more when it has room), the log the rest, and the lines that say what to do are
wrapped, never cut. Over it: the completions, the help, the rules page, and, once a match stops,
what happened and where the evidence is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from prompt_toolkit.application import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import AnyContainer, Dimension, Float, HSplit, VSplit, Window
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.widgets import Frame

from p2pgenius import rules_pages
from p2pgenius.ui.frame import (
    WIDE,
    Geometry,
    InputLine,
    fitted,
    frame,
    geometry,
    help_overlay,
    lines_text,
    overlay,
    rule_line,
    stacked,
    terminal_size,
    text_control,
)
from p2pgenius.ui.lines import Line, wrap, wrap_all
from p2pgenius.ui.table import TableScreen
from p2pgenius.ui.table_input import TableInput

CHAT_CLOSED: Final = "(the chat has closed: Ctrl-Q leaves)"
"""The chat box's last line once everyone else has left the table after the end."""
CHAT_UNDER: Final = 6
"""Rows of chat a wide screen's board must leave free under it for the chat to go there."""
CHAT_MOST: Final = 12
"""Rows the chat under a wide screen's board takes at most (the board keeps the rest)."""


class Screen:
    """The match screen's pieces that depend on the size of the terminal, worked out once at each
    redraw (the layout asks for them several times)."""

    def __init__(self, table: TableScreen) -> None:
        self.table = table
        self._memo: dict[str, Any] = {}
        self._drawn: tuple[int, tuple[int, int]] | None = None

    def _once(self, name: str, make: Callable[[], Any]) -> Any:
        drawn = (get_app().render_counter, terminal_size())
        if drawn != self._drawn:
            self._memo.clear()
            self._drawn = drawn
        if name not in self._memo:
            self._memo[name] = make()
        return self._memo[name]

    def status(self) -> list[Line]:
        columns, _ = terminal_size()
        return self._once("status", lambda: wrap_all(self.table.text.status_lines(columns), columns))  # type: ignore[no-any-return]

    def question(self) -> list[Line]:
        columns, _ = terminal_size()

        def make() -> list[Line]:
            text = self.table.text.expected()
            return wrap([("class:expected", " " + text)], columns) if text else [[]]

        return self._once("question", make)  # type: ignore[no-any-return]

    def message(self) -> list[Line]:
        columns, _ = terminal_size()
        text = self.table.state.message
        return wrap([("class:message", " " + text)], columns) if text else [[]]

    def chrome(self) -> int:
        """Rows taken by everything but the board, the log and the chat (and the invite across a
        wide screen)."""
        rows = len(self.status()) + 1 + len(self.question()) + 1 + len(self.message())
        return rows + len(self.invite())

    def invite(self) -> list[Line]:
        """On a wide screen, a host's invite across it while it waits (else none): a narrow one
        has it in the board, which is as wide as the screen."""
        columns, _ = terminal_size()
        if columns < WIDE:
            return []
        return self._once("invite", lambda: self.table.text.invite_banner(columns))  # type: ignore[no-any-return]

    def geometry(self) -> Geometry:
        columns, rows = terminal_size()
        return self._once("geometry", lambda: geometry(columns, rows, self.chrome()))  # type: ignore[no-any-return]

    def board(self) -> list[Line]:
        geo = self.geometry()
        apart = bool(self.invite())
        return self._once(  # type: ignore[no-any-return]
            "board",
            lambda: self.table.text.board_lines(geo.board_width, geo.board_height, invite_apart=apart),
        )

    def chat_under(self) -> bool:
        """On a wide screen, whether the board leaves room under it for the chat (the log then
        has the whole column beside them: the match's whole story), rather than the log and the
        chat sharing that column."""
        geo = self.geometry()
        return geo.wide and geo.board_height - len(self.board()) >= CHAT_UNDER + 2


class MatchLayout:
    """The match screen's windows, and where they go at each redraw (:attr:`root`)."""

    def __init__(self, table: TableScreen, buffer: Buffer) -> None:
        self.table = table
        self.screen = Screen(table)
        self.log = log_window(table, self.screen, chat=False)  # wide: the log, the chat apart
        self.feed = log_window(table, self.screen, chat=None)  # narrow: the log with the chat in it
        self.chat = log_window(table, self.screen, chat=True)
        self.board = Window(text_control(lambda: lines_text(self.screen.board())), wrap_lines=False)
        clocks = Window(text_control(lambda: table.text.clock_line(terminal_size()[0])), height=1)
        self.root = frame(
            status=self.screen.status,
            body=self.body,
            typing=InputLine(
                buffer,
                table.text.prompt,
                above=[clocks, fitted(self.screen.question)],
                below=[fitted(self.screen.message)],
            ),
            floats=self._floats(),
        )

    def history_limit(self) -> int:
        """How far back the board's history (the duel's turns) scrolls at the screen's size."""
        geo = self.screen.geometry()
        return self.table.text.scroll_limit(geo.board_width, geo.board_height)

    def active_log(self) -> Window:
        """The log the keys scroll: the log beside the board, or the one under it."""
        return self.log if self.screen.geometry().wide else self.feed

    def body(self) -> AnyContainer:
        """The board with the log and the chat, as this screen's size has room for them."""
        screen = self.screen
        geo = screen.geometry()
        if not geo.wide:
            # The board asked to fit above MIN_LOG rows of log; one that cannot takes rows of the
            # log rather than lose its own, down to a single line of log.
            height = min(len(screen.board()), geo.rows - screen.chrome() - 2)
            return stacked(screen.board, height, self._rule, self.feed)
        split = self._wide_split(geo)
        invite = screen.invite()  # (across the screen, nothing beside it: a row selection copies it)
        if not invite:
            return split
        across = Window(text_control(lambda: lines_text(invite)), height=Dimension.exact(len(invite)))
        return HSplit([across, split])

    def _wide_split(self, geo: Geometry) -> AnyContainer:
        """A wide screen's board beside the log, with the chat under the board or the log."""
        screen = self.screen
        log = Frame(self.log, title=self._log_title)
        if screen.chat_under():  # room under the board: the chat goes there, the log beside all
            need = len(screen.board()) + 2
            # (the chat takes up to CHAT_MOST rows, the board the rest: no tall empty chat box)
            board = Frame(self.board, title=self._board_title, height=Dimension(min=need, weight=1))
            rows = Dimension(min=CHAT_UNDER + 2, max=CHAT_MOST + 2, preferred=CHAT_MOST + 2)
            chat = Frame(self.chat, title=self._chat_title, height=rows)
            return VSplit([HSplit([board, chat]), HSplit([log], width=Dimension.exact(geo.side_width))])
        chat_rows = max(4, min(12, geo.board_height // 4))
        chat = Frame(self.chat, title=self._chat_title, height=Dimension.exact(chat_rows + 2))
        side = HSplit([log, chat], width=Dimension.exact(geo.side_width))
        return VSplit([Frame(self.board, title=self._board_title), side])

    def _chat_title(self) -> str:
        return "chat (closed)" if self.table.state.chat_closed else "chat (say TEXT)"

    def _board_title(self) -> str:
        return self.table.text.game() or "p2pgenius"

    def _log_title(self) -> str:
        return "what happened" if self.table.input.follow else "what happened: End for the newest"

    def _rule(self) -> StyleAndTextTuples:
        follow = self.table.input.follow
        title = f" what happened, and the chat ({'End: newest' if not follow else 'PgUp/PgDn'}) "
        return rule_line(title, terminal_size()[0], ascii_only=self.table.state.ascii_only)

    def _floats(self) -> list[Float]:
        """The completions, the help, the rules page and the story of a stopped match."""
        table = self.table
        fault = Window(text_control(lambda: [("class:fault", table.text.fault_text())]), wrap_lines=True)
        return [
            Float(content=CompletionsMenu(max_height=12, scroll_offset=1), xcursor=True, ycursor=True),
            help_overlay(table.input),
            overlay(
                rules_window(table.input),
                "rules (PageUp/PageDown, Esc closes)",
                Condition(lambda: table.input.rules_open),
            ),
            overlay(fault, "stopped", Condition(lambda: table.state.fault is not None), top=2, bottom=4),
        ]


def feed_shown(table: TableScreen, *, chat: bool | None) -> list[Line]:
    """The lines of the log (``chat`` False), the chat (True) or both (None); an empty chat box
    says how to chat, and once everyone else has left after the end the chat box says last that
    nobody reads it any more."""
    shown = table.text.feed_lines(chat=chat)
    if chat and table.state.chat_closed:  # (under whatever was said)
        return [*shown, [("class:dim", CHAT_CLOSED)]]
    return shown or [[("class:dim", "(say TEXT to chat)" if chat else "")]]


def log_window(table: TableScreen, screen: Screen, *, chat: bool | None) -> Window:
    """The log (``chat`` False), the chat (True) or both (None): a window that follows its newest
    line, or stays where PageUp put it (its lines wrapped at spaces here, so that the scrolling
    counts what is on the screen). The chat always follows."""
    typed = table.input

    def lines() -> list[Line]:
        geo = screen.geometry()
        width = geo.columns if not geo.wide else geo.side_width - 2
        if geo.wide and chat and screen.chat_under():
            width = geo.board_width
        return wrap_all(feed_shown(table, chat=chat), width)

    def cursor() -> Point:
        # prompt_toolkit scrolls a window to show its cursor: on the newest line the log
        # follows; scrolled back, the cursor is the top line shown.
        if typed.follow or chat:
            return Point(0, max(len(lines()) - 1, 0))
        return Point(0, max(typed.log_top, 0))

    def scroll(window: Window) -> int:
        if typed.follow or chat:
            return window.vertical_scroll
        info = window.render_info
        height = info.window_height if info is not None else 1
        typed.log_top = max(min(typed.log_top, len(lines()) - height), 0)
        return typed.log_top

    return Window(
        text_control(lambda: lines_text(lines()), get_cursor_position=cursor),
        wrap_lines=False,
        get_vertical_scroll=scroll,
    )


def rules_window(typed: TableInput) -> Window:
    """The rules page, scrolled where PageUp/PageDown put it (never past its end)."""

    def lines() -> list[Line]:
        columns, _ = terminal_size()
        return rules_view(typed.rules, columns - 6)

    def scroll(window: Window) -> int:
        info = window.render_info
        height = info.window_height if info is not None else 10
        typed.rules_scroll = max(min(typed.rules_scroll, len(lines()) - height), 0)
        return typed.rules_scroll

    def cursor() -> Point:  # (prompt_toolkit keeps a window's cursor in view: the top line)
        return Point(0, max(min(typed.rules_scroll, len(lines()) - 1), 0))

    return Window(
        text_control(lambda: lines_text(lines()), get_cursor_position=cursor), get_vertical_scroll=scroll
    )


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
