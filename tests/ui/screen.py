"""A real terminal emulator (pyte) behind prompt_toolkit's VT100 output: the tests read the screen
a player would see, cell by cell, at any size, and can resize it mid-match."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pyte
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from tests.patience import HANG_S


class Terminal:
    """A ``columns`` x ``rows`` terminal: prompt_toolkit writes escape sequences, pyte draws them."""

    encoding = "utf-8"

    def __init__(self, columns: int, rows: int) -> None:
        self.columns, self.rows = columns, rows
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)
        self.stale = False  # resized, and not drawn on since (what it shows is the old size's)

    # -- what prompt_toolkit writes to ---------------------------------------------------------

    def write(self, data: str) -> int:
        self.stream.feed(data)
        self.stale = False
        return len(data)

    def flush(self) -> None:
        pass

    def output(self) -> Vt100_Output:
        """The output a prompt_toolkit application draws on this terminal with."""
        return Vt100_Output(self, self.size, term="xterm-256color", enable_cpr=False)  # type: ignore[arg-type]

    def size(self) -> Size:
        return Size(rows=self.rows, columns=self.columns)

    def resize(self, columns: int, rows: int) -> None:
        """A new size (the application redraws at its next invalidation)."""
        self.columns, self.rows = columns, rows
        self.stale = True
        self.screen.resize(rows, columns)
        cursor = self.screen.cursor  # (a terminal keeps its cursor on the screen)
        cursor.x, cursor.y = min(cursor.x, columns - 1), min(cursor.y, rows - 1)

    # -- what a player sees --------------------------------------------------------------------

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def row_of(self, pattern: str) -> int:
        """The first row matching ``pattern`` (a regular expression), or -1."""
        return next((i for i, line in enumerate(self.lines()) if re.search(pattern, line)), -1)


async def seen(terminal: Terminal, *patterns: str, seconds: float = HANG_S) -> str:
    """Wait until every pattern is on the screen, drawn since its last resize; returns the screen
    (fails with the screen)."""
    for _ in range(int(seconds / 0.01)):
        text = terminal.text()
        if not terminal.stale and all(re.search(p, text) for p in patterns):
            return text  # (a whole frame: prompt_toolkit writes each in one piece)
        await asyncio.sleep(0.01)
    missing = [p for p in patterns if not re.search(p, terminal.text())]
    raise AssertionError(f"never saw {missing} on the screen:\n{terminal.text()}")


async def settled(terminal: Terminal, condition: Callable[[], bool] = lambda: True) -> str:
    """The screen once ``condition`` holds, it was drawn on since its last resize, and it stopped
    changing for a moment (a redraw after the last change has landed)."""
    last = ""
    steady = 0
    for _ in range(int(HANG_S / 0.01)):
        text = terminal.text()
        steady = steady + 1 if text == last and not terminal.stale and condition() else 0
        if steady >= 5:
            return text
        last = text
        await asyncio.sleep(0.01)
    raise AssertionError(f"the screen never settled:\n{terminal.text()}")
