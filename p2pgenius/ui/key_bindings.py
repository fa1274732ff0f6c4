"""The match screen's keys: which key does what; what it does is the person's input's
(:class:`~p2pgenius.ui.table_input.TableInput`).

Tab lists the legal moves (again: the next one), Enter on one sends it; PageUp/PageDown scroll
the log (and the rules page or the help, while it is open), End returns to the newest lines,
Home goes to the first; Up/Down scroll the board's history (the duel's turns; the help, while it
is open); F2 opens the rules page; F3 copies a host's invite; and the frame's keys: F1 or ? the
help, Esc closes what is open, Ctrl-C or Ctrl-Q leaves after asking.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import Window

from p2pgenius.ui.frame import frame_keys
from p2pgenius.ui.table_input import TableInput

PAGE_ROWS: Final = 15
"""How far PageUp/PageDown move the rules page (the arrows: one line)."""


def match_keys(
    typed: TableInput,
    buffer: Buffer,
    active_log: Callable[[], Window],
    history_limit: Callable[[], int] = lambda: 0,
) -> KeyBindingsBase:
    """The keys of the match screen typing into ``buffer`` (``active_log``: the log window the
    keys scroll, as the layout has it now; ``history_limit``: how far back the board's history
    scrolls at its size now)."""
    empty = Condition(lambda: not buffer.text)
    rules_shown = Condition(lambda: typed.rules_open)
    help_shown = Condition(lambda: typed.help_open)

    def leave(event: KeyPressEvent) -> None:
        if typed.leave():
            event.app.exit()

    return merge_key_bindings(
        [
            answer_keys(typed, buffer),
            completion_keys(buffer),
            rules_keys(typed, rules_shown),
            invite_keys(typed),
            log_keys(typed, buffer, active_log, ~rules_shown & ~help_shown),
            history_keys(typed, buffer, history_limit, ~rules_shown & ~help_shown),
            frame_keys(
                empty=empty, toggle_help=typed.toggle_help, help_pane=typed, close=typed.close, leave=leave
            ),
        ]
    )


def answer_keys(typed: TableInput, buffer: Buffer) -> KeyBindings:
    """A yes-or-no question (send this? join this table?) is answered by its key alone: y or n,
    no Enter needed (on an empty input line; a word typed there is typed as ever)."""
    keys = KeyBindings()
    asked = Condition(lambda: typed.asks_yes_no() and not buffer.text)

    @keys.add("y", filter=asked)
    @keys.add("Y", filter=asked)
    @keys.add("n", filter=asked)
    @keys.add("N", filter=asked)
    def _answer(event: KeyPressEvent) -> None:
        typed.enter(str(event.key_sequence[0].key).lower())

    return keys


def completion_keys(buffer: Buffer) -> KeyBindings:
    """Tab shows the legal moves with the first one chosen, again the next one; Enter on a chosen
    completion sends it (one key less for the common case)."""
    keys = KeyBindings()

    @keys.add("tab")
    def _complete(event: KeyPressEvent) -> None:
        if buffer.complete_state is not None:
            buffer.complete_next()
        else:
            buffer.start_completion(select_first=True)

    @keys.add("enter", filter=Condition(lambda: buffer.complete_state is not None))
    def _take(event: KeyPressEvent) -> None:
        buffer.complete_state = None
        buffer.validate_and_handle()

    return keys


def invite_keys(typed: TableInput) -> KeyBindings:
    """F3 copies a host's invite whole to the clipboard."""
    keys = KeyBindings()

    @keys.add("f3")
    def _copy(event: KeyPressEvent) -> None:
        typed.copy_invite()

    return keys


def rules_keys(typed: TableInput, shown: Filter) -> KeyBindings:
    """F2 opens and closes the rules page; while it is ``shown``, PageUp/PageDown and the arrows
    scroll it."""
    keys = KeyBindings()

    @keys.add("f2")
    def _rules(event: KeyPressEvent) -> None:
        typed.toggle_rules()

    @keys.add("pagedown", filter=shown)
    @keys.add("down", filter=shown)
    def _rules_down(event: KeyPressEvent) -> None:
        typed.scroll_rules(PAGE_ROWS if event.key_sequence[0].key == "pagedown" else 1)

    @keys.add("pageup", filter=shown)
    @keys.add("up", filter=shown)
    def _rules_up(event: KeyPressEvent) -> None:
        typed.scroll_rules(-PAGE_ROWS if event.key_sequence[0].key == "pageup" else -1)

    return keys


def log_keys(
    typed: TableInput, buffer: Buffer, active_log: Callable[[], Window], shown: Filter
) -> KeyBindings:
    """While the log is ``shown`` (no page over it): PageUp/PageDown page through it, End (at
    the end of the input line) returns to its newest line, Home (on an empty one) to its first."""
    keys = KeyBindings()

    def page() -> tuple[int, int, int]:
        """The log's top line now, its height, and how many lines it holds."""
        info = active_log().render_info
        count = info.content_height if info is not None else 0
        if info is None:
            return 0, 10, count
        return active_log().vertical_scroll, max(info.window_height - 1, 1), count

    @keys.add("pageup", filter=shown)
    def _log_up(event: KeyPressEvent) -> None:
        top, height, _ = page()
        typed.page_up(top, height)

    @keys.add("pagedown", filter=shown)
    def _log_down(event: KeyPressEvent) -> None:
        typed.page_down(*page())

    @keys.add("end", filter=shown & Condition(lambda: buffer.cursor_position >= len(buffer.text)))
    def _log_end(event: KeyPressEvent) -> None:
        typed.newest()

    @keys.add("home", filter=shown & Condition(lambda: not buffer.text))
    def _log_home(event: KeyPressEvent) -> None:
        typed.oldest()

    return keys


def history_keys(typed: TableInput, buffer: Buffer, limit: Callable[[], int], shown: Filter) -> KeyBindings:
    """While the board is ``shown`` (no page over it) and no completions are listed (the arrows
    choose among those): Up scrolls the board's history (the duel's turns) a turn back, Down a
    turn forward."""
    keys = KeyBindings()
    free = shown & Condition(lambda: buffer.complete_state is None)

    @keys.add("up", filter=free)
    def _older(event: KeyPressEvent) -> None:
        typed.scroll_history(1, limit())

    @keys.add("down", filter=free)
    def _newer(event: KeyPressEvent) -> None:
        typed.scroll_history(-1, limit())

    return keys
