"""A duel resumed (``p2pgenius resume``) tells each turn once (issue 47): the turn history lists
its rows in order, once each, and the log ("what happened") says each turn once, at 80x24 and
160x50, whether the person comes back in the middle of a turn that its Paralysis choice
finishes (that choice's stage tells the turn's events again) or a turn after it. The host is a
scripted bot in a thread of its own, waiting for the person to come back."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.ui.table import TableScreen
from tests.patience import HANG_S

from .harness import make_peer, until
from .screen import Terminal
from .test_duel_screens import Script, both_sizes, join_at, run_screen
from .test_resume_in_the_ui import person

CTRL_Q = "\x11"
SIZES = ((80, 24), (160, 50))
PARALYSIS = ["W -", "W -", "W -"]  # the person (p0) casts Paralysis on turn 3
BOT = ["SD", "DS", "SD"]  # the bot (p1): a Missile on turns 2 and 3, then nothing
ASKED = "choose the hand to paralyse"
# A history row: its mark, the turn's number, both hands' gestures (``*``: one that completed).
ROW = re.compile(r"(?:^|[\s\u2502])[ ^v] {0,2}(\d{1,3})  \S[* ] \S(?=[* ]|$)", re.MULTILINE)


@contextmanager
def bot_host(tmp: Path) -> Iterator[int]:
    """A bot hosting a fast duel (the person at p0, the bot at p1 playing :data:`BOT`), in a
    thread of its own; yields its port, then waits for the match to end."""
    bot = make_peer(tmp, "bot", None, BotDriver(bots={1: Script(BOT)}))
    bot.settle_at_once = True
    ports: list[int] = []
    failed: list[BaseException] = []

    async def host() -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        ports.append(listeners[0].socket.getsockname()[1])
        await bot.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2, seats=(1,))

    def run() -> None:
        try:
            trio.run(host)
        except BaseException as exc:  # (a failure on its own thread: the test says it)
            failed.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    for _ in range(int(HANG_S / 0.01)):
        if ports or failed:
            break
        threading.Event().wait(0.01)
    assert ports, failed
    yield ports[0]
    thread.join(HANG_S)
    assert not failed, failed


def history_rows(screen: str) -> list[list[int]]:
    """The turn numbers of each wizard's column of the turn history, top to bottom."""
    columns: list[list[int]] = [[], []]
    for line in screen.splitlines():
        for column, number in zip(columns, ROW.findall(line), strict=False):
            column.append(int(number))
    return columns


def assert_history(screen: str, turns: int, columns: int) -> None:
    """Both wizards' columns list turns in order, once each, up to the last one played (all of
    them at 160x50; the last few at 80x24)."""
    for rows in history_rows(screen):
        assert rows and rows[-1] == turns, (rows, screen)
        assert rows == list(range(rows[0], turns + 1)), (rows, screen)
        if columns >= 160:
            assert rows[0] == 1, (rows, screen)


def assert_told_once(log: list[str]) -> None:
    """The turns in order, each told once (turn 3's Paralysis and what it did once: the hand it
    holds, chosen later, is told under turn 3 too, as news)."""
    told = [int(found[1]) for line in log if (found := re.match(r"turn (\d+): ", line))]
    assert told == sorted(told), log
    for words in ("casts Paralysis", "bot (p1) is paralysed", "from 14 to 13 HP"):
        assert sum(words in line for line in log) == 1, (words, log)


async def play(table: TableScreen, send: Callable[[str], None], moves: list[str]) -> None:
    for move in moves:
        await until(lambda: bool(table.state.asking))
        asked = dict(table.state.asking)
        send(move + "\r")
        await until(lambda asked=asked: table.state.asking != asked)  # type: ignore[misc]


def leave_when(asked: str, then: list[str]) -> Callable[[TableScreen, Callable[[str], None]], object]:
    """Join, cast Paralysis, answer ``then`` (the hand, ...), and leave once ``asked``."""

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: table.adapter.lobby_answered is not None)
        send("y")
        await play(table, send, PARALYSIS)
        await until(lambda: ASKED in table.text.expected())
        for move in then:
            await play(table, send, [move])
        await until(lambda: asked in table.text.expected())
        send(CTRL_Q)
        await until(lambda: table.input.leaving)
        send(CTRL_Q)

    return drive


@pytest.mark.parametrize(
    ("then", "asked"),
    [
        pytest.param([], ASKED, id="asked-the-hand"),  # while asked which hand the Paralysis holds
        pytest.param(["left"], "turn 4: choose your gestures", id="turn-4"),  # a turn after it
    ],
)
def test_a_resumed_duel_tells_each_turn_once(tmp_path: Path, then: list[str], asked: str) -> None:
    terminal = Terminal(*SIZES[0])
    screens: dict[str, str] = {}
    logs: dict[str, list[str]] = {}

    async def resumed(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: asked in table.text.expected())
        await both_sizes(terminal, table, screens, "resumed")
        logs["resumed"] = list(table.state.log)
        await play(table, send, ["left", "- -", "- -"][len(then) :])
        await until(lambda: bool(table.state.asking))
        await both_sizes(terminal, table, screens, "later")
        logs["later"] = list(table.state.log)
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    with bot_host(tmp_path) as port:
        peer = person(tmp_path, first := TableScreen())
        run_screen(terminal, first, partial(join_at, peer, port), leave_when(asked, then))
        back = person(tmp_path, again := TableScreen())
        back.resume((tmp_path / "ann.p2pt").read_bytes(), (tmp_path / "ann.secrets").read_bytes())
        back.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
        run_screen(terminal, again, back.play, resumed)
    assert again.state.result is not None
    for when, turns in (("resumed", 3), ("later", 5)):
        assert_told_once(logs[when])
        for columns, _ in SIZES:
            shown = screens[f"{when} {columns}"]
            assert_history(shown, turns, columns)
            if columns >= 160:  # (the log beside the board: whole)
                assert shown.count("casts Paralysis (left hand)") == 1 + (when == "resumed"), shown
    assert sum("left hand is paralysed next turn" in line for line in logs["later"]) == 1, logs["later"]
