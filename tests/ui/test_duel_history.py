"""A duel read at a glance (issue 47), through a real terminal emulator (pyte) at 80x24 and
160x50: the turn history (both hands of both wizards a turn a row, a spell's completing gesture
marked with the spell's name, the newest at the bottom, Up and Down to scroll it), in a match,
in ``p2pgenius replay`` and in ``p2pgenius watch``; every spell under way listed at 80 columns;
and the line under the input emptied when a new turn begins."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.bots.driver import BotDriver
from p2pgenius.games.duel.spells import BY_NAME, next_gestures
from p2pgenius.ui import moves
from p2pgenius.ui.frontends.duel import SHORT
from p2pgenius.ui.table import TableScreen

from .harness import Staging, play, until
from .screen import Terminal, seen, settled
from .test_duel_screens import Script
from .test_replay_and_watch_screens import Feed, Send, drive, replay_of, watch_on

CTRL_Q = "\x11"
UP, DOWN = "\x1b[A", "\x1b[B"
SIZES = ((80, 24), (160, 50))
LONG_TURNS = {"fast": True, "turn_seconds": 3600}
"""An hour a turn: a loaded machine may take more than the default minute to draw a turn at both
sizes, and a turn that ran out meanwhile would show the next one's screen (seen under load 10)."""
# The person (p0): left D S P (a Fireball under way, a Shield on turn 3), right S D (a Missile on
# turn 2), then nothing, long enough for the history to scroll at 160x50 too.
PERSON = ["D S", "S D", "P -"] + ["- -"] * 15
BOT = ["--", "-P"]  # the bot (p1): a Shield with its right hand on turn 2, then nothing


class SlowScript(Script):
    """The script, thinking a second on turn 1 (in a worker thread: the screen goes on)."""

    quick = False

    def choose(self, state: Any, seat: int) -> Any:
        if state.turn == 1:
            time.sleep(1)
        return super().choose(state, seat)


def turn_row(turn: int, gestures: str) -> str:
    """A history row: the turn's number, then its gestures (a completing one followed by ``*``)."""
    return rf"(^|\s)[ ^v]\s*{turn}  {gestures}"


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
    play(tmp_path, "duel", LONG_TURNS, drive, Staging(bot_driver=bots, output=terminal.output()))
    assert feedback_row(screens["said"]).startswith(" not your move now"), screens["said"]
    for columns, _ in SIZES:
        shown = screens[f"turn 2 {columns}"]
        assert re.search(r"turn 2: choose your gestures", shown), shown
        assert feedback_row(shown).strip() == "", f"last turn's words stayed: {feedback_row(shown)!r}"


def under_way(hand: str) -> list[str]:
    """Every spell ``hand``'s gestures have under way, each as a board lists it: its name (in
    full or short) and the gestures it still needs (after how many, on a large board)."""
    out = []
    for name, rest in next_gestures(tuple(hand), 0):
        named = "|".join(re.escape(n) for n in (BY_NAME[name].title, SHORT.get(name, BY_NAME[name].title)))
        out.append(rf"({named})( \+{len(rest)})? {rest}\b")
    return out


def test_every_spell_under_way_is_listed_at_80x24_and_160x50(tmp_path: Path) -> None:
    # After D S P the left hand has a Cure and an Anti-spell a gesture away, a Fireball two, and
    # more further: 80 columns listed only the two nearest (no Fireball).
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        for gestures in PERSON[:3]:
            await until(lambda: bool(table.state.asking))
            asked = dict(table.state.asking)
            send(gestures + "\r")
            await until(lambda asked=asked: table.state.asking != asked)  # type: ignore[misc]
        await until(lambda: bool(table.state.asking))
        await at_sizes(terminal, table, screens, "turn 4")
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    bots = BotDriver(bots={1: Script(BOT)})
    play(tmp_path, "duel", LONG_TURNS, drive, Staging(bot_driver=bots, output=terminal.output()))
    expected = under_way("DSP")
    assert len(expected) >= 4
    for columns, _ in SIZES:
        shown = screens[f"turn 4 {columns}"]
        assert all(len(row) <= columns for row in shown.splitlines())
        assert re.search(r"Fireball( \+2)? SD\b", shown), shown
        for pattern in expected:
            assert re.search(pattern, shown), (pattern, shown)


async def scrolled(terminal: Terminal, table: TableScreen, into: dict[str, str], send: Send) -> None:
    """At each size: Up until turn 1 shows (and further: it stops there), then Down back to the
    newest."""
    for columns, rows in SIZES:
        terminal.resize(columns, rows)
        table.state.invalidate()
        await settled(terminal)
        send(UP * 25)
        await seen(terminal, turn_row(1, "D  S"))
        into[f"up {columns}"] = await settled(terminal)
        send(DOWN * 25)
        await seen(terminal, turn_row(18, "-  -"))
        into[f"down {columns}"] = await settled(terminal)


def test_the_turn_history_at_80x24_and_160x50_and_scrolling_it(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    async def play_turns(table: TableScreen, send: Callable[[str], None]) -> None:
        for turn, gestures in enumerate(PERSON, start=1):
            await until(lambda: bool(table.state.asking))
            if turn == 4:
                await at_sizes(terminal, table, screens, "turn 4")
            asked = dict(table.state.asking)
            send(gestures + "\r")
            await until(lambda asked=asked: table.state.asking != asked)  # type: ignore[misc]
        await until(lambda: bool(table.state.asking))
        await at_sizes(terminal, table, screens, "newest")
        await scrolled(terminal, table, screens, send)
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    bots = BotDriver(bots={1: Script(BOT)})
    play(tmp_path, "duel", LONG_TURNS, play_turns, Staging(bot_driver=bots, output=terminal.output()))
    for columns, _ in SIZES:
        turn4 = screens[f"turn 4 {columns}"]
        assert all(len(row) <= columns for row in turn4.splitlines())
        # Both wizards' gestures a turn a row, each spell's completing gesture marked, named.
        assert re.search(turn_row(2, r"S  D\*  Missile"), turn4), turn4
        assert re.search(turn_row(2, r"-  P\*  Shield"), turn4), turn4
        assert re.search(turn_row(3, r"P\* -   Shield"), turn4), turn4
        rows = turn4.splitlines()
        second = next(i for i, row in enumerate(rows) if re.search(turn_row(2, "S  D"), row))
        third = next(i for i, row in enumerate(rows) if re.search(turn_row(3, "P"), row))
        assert third > second, "the newest turn at the bottom"
    assert re.search(turn_row(1, "D  S"), screens["turn 4 160"])  # (room for all three there)
    for columns, _ in SIZES:
        newest, up, down = (screens[f"{name} {columns}"] for name in ("newest", "up", "down"))
        assert re.search(turn_row(18, "-  -"), newest) and not re.search(turn_row(1, "D  S"), newest)
        assert re.search(r"(^|\u2502)\^ +\d+  ", newest, re.MULTILINE), "older turns above: marked"
        assert re.search(turn_row(1, "D  S"), up) and not re.search(turn_row(18, "-  -"), up)
        assert re.search(r"(^|\u2502)v +\d+  ", up, re.MULTILINE), "newer turns below: marked"
        assert re.search(turn_row(18, "-  -"), down) and not re.search(turn_row(1, "D  S"), down)


@pytest.mark.parametrize("size", SIZES)
def test_a_replay_shows_the_turn_history_and_scrolls_it(size: tuple[int, int]) -> None:
    terminal = Terminal(*size)
    replay = replay_of("duel")
    screens: dict[str, str] = {}

    async def driver(send: Send) -> None:
        send("go 3\r")  # (turn 3: peer 1 (p0)'s Shield and Missile)
        await until(lambda: replay.numbers[replay.index] == 3)
        screens["turn 3"] = await settled(terminal)
        send("\x1b[F")  # End: the last turn
        await until(lambda: replay.index == replay.count)
        screens["last"] = await settled(terminal)
        send(UP * 10)
        await seen(terminal, turn_row(1, "S  S"))
        screens["up"] = await settled(terminal)
        send("q")

    drive(replay, terminal, driver)
    turn3 = screens["turn 3"]
    assert re.search(turn_row(3, r"P\* D\*  Shield, Missile"), turn3), turn3
    assert re.search(turn_row(2, r"P\* -   Shield"), turn3), turn3  # (peer 0, p1)
    assert not re.search(turn_row(4, ""), turn3), "not a turn after the one shown"
    last, up = screens["last"], screens["up"]
    assert re.search(turn_row(8, r">  -"), last) and re.search(turn_row(8, "D  S"), last), last
    assert re.search(turn_row(1, "D  -"), up), up  # (peer 0's first turn beside peer 1's)
    if size == (80, 24):  # a few turns: scrolled back, the first shows, the newest not
        assert not re.search(turn_row(1, "S  S"), last) and not re.search(turn_row(8, ">  -"), up), up
    else:  # all eight: nothing to scroll
        assert re.search(turn_row(1, "S  S"), last) and up == last, up


@pytest.mark.parametrize("size", SIZES)
def test_a_live_watch_shows_the_turn_history(size: tuple[int, int]) -> None:
    terminal = Terminal(*size)
    feed = Feed("duel", upto=10_000)
    screens: dict[str, str] = {}

    async def driver(send: Send) -> None:
        await seen(terminal, r"the match is over", turn_row(8, ">  -"))
        screens["end"] = await settled(terminal)
        send("q")

    watch_on(terminal, feed, driver)
    end = screens["end"]
    assert re.search(turn_row(8, ">  -"), end) and re.search(turn_row(7, r"P\* S   Shield"), end), end


def test_the_help_says_how_to_scroll_the_turn_history() -> None:
    assert "Up scrolls it a turn back, Down a turn forward" in moves.help_text("duel")
    assert re.search(r"Up / Down +the turn history: a turn older / newer", replay_of("duel").help_text())
    assert "Up / Down" not in replay_of("magic-square").help_text()  # (nothing to scroll there)
