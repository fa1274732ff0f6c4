"""A duel read at a glance (issue 47), through a real terminal emulator (pyte) at 80x24 and
160x50: the line under the input emptied when a new turn begins."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2pgenius.bots.driver import BotDriver
from p2pgenius.ui.table import TableScreen

from .harness import Staging, play, until
from .screen import Terminal, settled
from .test_duel_screens import Script

CTRL_Q = "\x11"
SIZES = ((80, 24), (160, 50))


class SlowScript(Script):
    """The script, thinking a second on turn 1 (in a worker thread: the screen goes on)."""

    quick = False

    def choose(self, state: Any, seat: int) -> Any:
        if state.turn == 1:
            time.sleep(1)
        return super().choose(state, seat)


def feedback_row(screen: str) -> str:
    """The line under the input: the feedback of the last thing typed."""
    rows = screen.splitlines()
    prompt = max(i for i, row in enumerate(rows) if re.match(r"[a-z]+> ?", row))
    return rows[prompt + 1] if prompt + 1 < len(rows) else ""


async def at_sizes(terminal: Terminal, table: TableScreen, into: dict[str, str], name: str) -> None:
    for columns, rows in SIZES:
        terminal.resize(columns, rows)
        table.state.invalidate()
        into[f"{name} {columns}"] = await settled(terminal)


def test_the_line_under_the_input_empties_when_a_new_turn_begins(tmp_path: Path) -> None:
    # The person sends its turn 1, then types while the bot thinks: the line under the input says
    # it is not its move. Turn 2 begins: that line is last turn's, and goes.
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: bool(table.state.asking))
        send("S D\r")
        await until(lambda: not table.state.asking)
        send("hello\r")
        await until(lambda: table.state.message.startswith("not your move now"))
        screens["said"] = await settled(terminal)
        await until(lambda: bool(table.state.asking))
        await at_sizes(terminal, table, screens, "turn 2")
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    bots = BotDriver(bots={1: SlowScript([])})
    play(tmp_path, "duel", {"fast": True}, drive, Staging(bot_driver=bots, output=terminal.output()))
    assert feedback_row(screens["said"]).startswith(" not your move now"), screens["said"]
    for columns, _ in SIZES:
        shown = screens[f"turn 2 {columns}"]
        assert re.search(r"turn 2: choose your gestures", shown), shown
        assert feedback_row(shown).strip() == "", f"last turn's words stayed: {feedback_row(shown)!r}"
