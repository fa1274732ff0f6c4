"""The frame the match screen (:mod:`p2pgenius.ui.app`) and the replay (:mod:`p2pgenius.ui.replay`)
share: top to bottom, a status bar, the board and the log (the board framed beside the log on a
wide terminal, stacked over a rule and the log on a narrow one), the lines that say what to do,
the input line; the help over it all, scrolled by PageUp/PageDown and the arrows when it is taller
than the screen, its last line always saying how and that Esc closes it; the same keys for the
help (F1, or ? on an empty line), for closing what is open (Esc) and for leaving (Ctrl-C,
Ctrl-Q); and the one way both become a full-screen application. What each screen puts in the
frame is its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import AnyFormattedText, StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent
from prompt_toolkit.layout import (
    AnyContainer,
    ConditionalContainer,
    Dimension,
    DynamicContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.styles import BaseStyle, DynamicStyle
from prompt_toolkit.widgets import Frame

from p2pgenius.ui.lines import Glyphs, Line, wrap
from p2pgenius.ui.style import colour_depth

WIDE: Final = 120
"""From this many columns on, the log and the chat stand beside the board; below, under it."""
BOARD_ROOM: Final = 96
"""The columns a wide screen gives its board before the log beside it grows (a board this wide
draws everything; a log narrower than its side column's least wraps every line)."""
SIDE_LEAST, SIDE_MOST = 40, 72
MIN_LOG: Final = 3
"""Rows of the log kept on a narrow screen, whatever the board needs."""
HELP_CHROME: Final = 6
"""Rows of the screen the help's text does not have: one above its window, two under it, the
window's frame (two), and its last line (how to scroll it, and that Esc closes it)."""
HELP_CLOSES: Final = "Esc closes this help"
"""The help's last line always ends with this, wherever it is scrolled."""


class HelpPane(Protocol):
    """What a screen keeps of its help: whether it is open, the first of its lines shown, and
    its words."""

    help_open: bool
    help_top: int

    def help_text(self) -> str: ...


@dataclass(frozen=True)
class Geometry:
    """Where things go on a screen of ``columns`` x ``rows``."""

    columns: int
    rows: int
    wide: bool
    board_width: int  # inside the board's frame (wide) or the whole width (narrow)
    board_height: int  # the most rows the board may have
    side_width: int  # the log and chat column (wide)


def geometry(columns: int, rows: int, chrome: int) -> Geometry:
    """The layout of a ``columns`` x ``rows`` screen whose fixed lines take ``chrome`` rows."""
    body = max(rows - chrome, 4)
    if columns >= WIDE:
        side = min(max(columns - BOARD_ROOM - 2, SIDE_LEAST), SIDE_MOST)
        return Geometry(columns, rows, True, columns - side - 2, body - 2, side)
    return Geometry(columns, rows, False, columns, max(body - MIN_LOG - 1, 1), 0)


def terminal_size() -> tuple[int, int]:
    """The columns and rows of the terminal the running application draws on."""
    size = get_app().output.get_size()
    return size.columns, size.rows


# -- pieces of text -------------------------------------------------------------------------------


def lines_text(lines: Iterable[Line]) -> StyleAndTextTuples:
    """Styled lines as one piece of prompt_toolkit text."""
    out: StyleAndTextTuples = []
    for index, line in enumerate(lines):
        if index:
            out.append(("", "\n"))
        out.extend(line)
    return out


def text_control(make: Callable[[], Any], **more: Any) -> FormattedTextControl:
    """Text made anew at each redraw (never focused: the input line keeps the focus)."""
    return FormattedTextControl(make, focusable=False, **more)


def fitted(lines: Callable[[], list[Line]], **more: Any) -> Window:
    """A window as tall as its ``lines`` are at each redraw."""
    return Window(text_control(lambda: lines_text(lines())), height=lambda: len(lines()), **more)


def rule_line(title: str, columns: int, *, ascii_only: bool) -> StyleAndTextTuples:
    """A rule across the screen with ``title`` in it (between the board and the log)."""
    glyph = Glyphs.pick(ascii_only).rule
    return [("class:rule", (glyph * 2 + title).ljust(columns, glyph)[:columns])]


def help_lines(words: str, columns: int) -> list[Line]:
    """A help text in the help window of a ``columns``-wide screen, each line wrapped."""
    lines: list[Line] = [[]]
    for line in words.splitlines():
        lines += wrap([("class:help", " " + line)], columns - 6, 2) if line else [[]]
    return lines


# -- the layout -----------------------------------------------------------------------------------


def stacked(
    board: Callable[[], list[Line]], height: int, rule: Callable[[], StyleAndTextTuples], log: Window
) -> HSplit:
    """A narrow screen's body: ``height`` rows of the board, a rule, then the log."""
    return HSplit(
        [
            Window(text_control(lambda: lines_text(board())), height=Dimension.exact(height)),
            Window(text_control(rule), height=1),
            log,
        ]
    )


def overlay(content: AnyContainer, title: str, shown: Filter, *, top: int = 1, bottom: int = 2) -> Float:
    """``content`` framed over the screen while ``shown``."""
    return Float(
        ConditionalContainer(Frame(content, title=title), shown), left=2, right=2, top=top, bottom=bottom
    )


def help_rows() -> int:
    """The rows of help text the help window shows at once on this terminal."""
    return max(terminal_size()[1] - HELP_CHROME, 1)


def help_footer(top: int, count: int, rows: int, width: int) -> str:
    """The help's last line, ``width`` columns at most, under its ``count`` lines shown ``rows``
    at a time from ``top``: how to see the rest, if there is more than shows, and (always, the
    rest shortened first) that Esc closes it."""
    if count <= rows:
        return f" {HELP_CLOSES}"
    shown = f"lines {top + 1}-{min(top + rows, count)} of {count}"
    if top <= 0:
        where = "PageDown (or Down) for more"
    elif top + rows >= count:
        where = "PageUp (or Up) for the start"
    else:
        where = "PageDown for more, PageUp back"
    said = (f" {where} ({shown}); {HELP_CLOSES}", f" {where}; {HELP_CLOSES}", f" PgDn/PgUp; {HELP_CLOSES}")
    return next((line for line in said if len(line) <= width), f" {HELP_CLOSES}")


def help_scrolled(pane: HelpPane, rows: int = 0) -> int:
    """The first line of ``pane``'s help shown, ``rows`` further down (up, if negative) from
    where it is, never past its end (its last line at the bottom of the window)."""
    most = len(help_lines(pane.help_text(), terminal_size()[0])) - help_rows()
    pane.help_top = max(min(pane.help_top + rows, most), 0)
    return pane.help_top


def help_overlay(pane: HelpPane) -> Float:
    """The help window while ``pane`` has it open: its words wrapped to the screen, from the line
    the keys scrolled to (never past the end), over a last line that says how to scroll and
    how to close it."""

    def lines() -> list[Line]:
        return help_lines(pane.help_text(), terminal_size()[0])

    body = Window(
        # (prompt_toolkit keeps a window's cursor in view: the top line)
        text_control(lambda: lines_text(lines()), get_cursor_position=lambda: Point(0, help_scrolled(pane))),
        get_vertical_scroll=lambda window: help_scrolled(pane),
        style="class:help",
    )

    def footer() -> StyleAndTextTuples:
        width = terminal_size()[0] - 6  # (inside the window's frame)
        return [("class:help", help_footer(help_scrolled(pane), len(lines()), help_rows(), width))]

    last = text_control(footer)
    content = HSplit([body, Window(last, height=1, style="class:help")])
    return overlay(content, "help", Condition(lambda: pane.help_open))


@dataclass(frozen=True)
class InputLine:
    """The line the person types on, and what sits around it: the ``buffer`` typed into after
    its ``prompt``, the windows ``above`` it (the question) and those ``below`` it (the message)."""

    buffer: Buffer
    prompt: AnyFormattedText
    above: Sequence[AnyContainer] = ()
    below: Sequence[AnyContainer] = ()

    def windows(self) -> list[AnyContainer]:
        """Top to bottom: what is above, the line itself, what is below."""
        typed = BufferControl(self.buffer, input_processors=[BeforeInput(self.prompt)])
        return [*self.above, Window(typed, height=1), *self.below]


def frame(
    *,
    status: Callable[[], list[Line]],
    body: Callable[[], AnyContainer],
    typing: InputLine,
    floats: Sequence[Float] = (),
) -> FloatContainer:
    """The whole screen: the ``status`` bar, the ``body`` (laid out anew at each redraw), the
    input line with what is around it (``typing``), and the ``floats`` over it all."""
    return FloatContainer(
        content=HSplit([fitted(status, style="class:status"), DynamicContainer(body), *typing.windows()]),
        floats=list(floats),
    )


# -- keys and the application ---------------------------------------------------------------------


def frame_keys(
    *,
    empty: Filter,
    toggle_help: Callable[[], None],
    help_pane: HelpPane,
    close: Callable[[], None],
    leave: Callable[[KeyPressEvent], None],
) -> KeyBindings:
    """F1, or ? on an ``empty`` input line, opens and closes the help (while it is open,
    PageUp/PageDown and the arrows scroll it); Esc closes what is open; Ctrl-C and Ctrl-Q
    leave."""
    keys = KeyBindings()
    shown = Condition(lambda: help_pane.help_open)

    @keys.add("pagedown", filter=shown)
    @keys.add("down", filter=shown)
    @keys.add("pageup", filter=shown)
    @keys.add("up", filter=shown)
    def _scroll(event: KeyPressEvent) -> None:
        key = event.key_sequence[0].key
        rows = max(help_rows() - 1, 1) if key in ("pagedown", "pageup") else 1
        help_scrolled(help_pane, rows if key in ("pagedown", "down") else -rows)

    @keys.add("f1")
    @keys.add("?", filter=empty)
    def _help(event: KeyPressEvent) -> None:
        toggle_help()

    @keys.add("escape", eager=True)
    def _close(event: KeyPressEvent) -> None:
        close()

    keys.add("c-c")(leave)
    keys.add("c-q")(leave)
    return keys


ESCAPE_WAIT_S: Final = 0.1
"""How long Esc waits to be told from the start of a key's escape sequence."""


def application(
    root: FloatContainer,
    *,
    buffer: Buffer,
    keys: KeyBindingsBase,
    style: Callable[[], BaseStyle],
    **app_args: Any,
) -> Application[None]:
    """The full-screen application of ``root``, typing into ``buffer`` (``app_args``: input,
    output, for tests)."""
    app: Application[None] = Application(
        layout=Layout(root, focused_element=buffer),
        key_bindings=keys,
        style=DynamicStyle(style),
        full_screen=True,
        mouse_support=False,
        color_depth=colour_depth(),
        **app_args,
    )
    # Esc alone closes a pane: prompt_toolkit waits this long to tell it from the start of a key's
    # escape sequence (by default 0.5 s, which a player feels). A terminal sends a whole sequence
    # at once; 0.1 s is what Vim's defaults take too.
    app.ttimeoutlen = ESCAPE_WAIT_S
    return app
