"""The duel's screens in the hard moments, through a real terminal emulator (pyte) at 80x24 and
160x50: a wizard blinded (what the screen says, once, and what hit it), and a duel resumed in the
middle of a turn (what the person had chosen, and the clocks)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import trio
from prompt_toolkit.input import create_pipe_input

from p2pgenius.bots.driver import BotDriver
from p2pgenius.games.duel.engine import DUEL
from p2pgenius.protocol.transcript import verify
from p2pgenius.ui import bridge
from p2pgenius.ui.app import build
from p2pgenius.ui.lines import plain
from p2pgenius.ui.replay import Replay
from p2pgenius.ui.table import TableScreen
from tests.net.test_processes import listening_port, spawn
from tests.patience import HANG_S
from tests.ui.test_resume_in_the_ui import person

from .harness import Staging, play, until
from .screen import Terminal, settled

CTRL_Q = "\x11"
SIZES = ((80, 24), (160, 50))


class Script:
    """A bot that plays a fixed list of gestures ("LR": left and right), then nothing."""

    level = "script"
    quick = True

    def __init__(self, moves: list[str]) -> None:
        self.moves = list(moves)

    def choose(self, state: Any, seat: int) -> Any:
        legal = DUEL.legal_actions(state, seat)
        if legal and legal[0].to_plain()["type"] == "paralyze":
            return legal[0]
        move = self.moves.pop(0) if self.moves else "--"
        return DUEL.parse_action({"type": "gestures", "left": move[0], "right": move[1]})


async def both_sizes(terminal: Terminal, table: TableScreen, into: dict[str, str], name: str) -> None:
    """The screen now at 80x24 and at 160x50 (then back to 80x24)."""
    for columns, rows in SIZES:
        terminal.resize(columns, rows)
        table.state.invalidate()
        into[f"{name} {columns}"] = await settled(terminal)
    terminal.resize(*SIZES[0])
    table.state.invalidate()


def test_a_blinded_wizard_is_told_once_sees_what_hit_it_and_no_stale_choice(tmp_path: Path) -> None:
    # The bot (p0) blinds the person (p1) on turn 5; p1 is blind on turns 6 to 8, and p0 stabs it
    # on turns 6 and 7.
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        for turn in range(1, 10):
            await until(lambda: bool(table.state.asking) or table.state.finished)
            if table.state.finished:
                break
            if turn == 7:  # blind, a turn after its first
                await both_sizes(terminal, table, screens, "blind")
            asked = dict(table.state.asking)
            send("- -\r")
            await until(lambda asked=asked: table.state.asking != asked or table.state.finished)  # type: ignore[misc]
        await until(lambda: bool(table.state.asking) or table.state.finished)
        send("P P\r")
        await until(lambda: table.state.confirming is not None or table.state.finished)
        send("y")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    bots = BotDriver(bots={0: Script(["D-", "W-", "S-", "W-", "CC", ">-", ">-", "--", "--"])})
    table, person, _ = play(
        tmp_path,
        "duel",
        {"fast": True},
        drive,
        Staging(seats=(1,), bot_driver=bots, setup={"hp": [15, 15]}, output=terminal.output()),
    )
    told = [line for line in table.state.log if "you are blind" in line]
    assert len(told) == 1, told  # once, when the blindness began
    stabs = [line for line in table.state.log if "stab" in line.lower()]
    assert len(stabs) == 2 and all("person" in line for line in stabs), table.state.log  # seen, once each
    assert "stab hits person (p1)" in screens["blind 160"], "told while blind, not only after"
    for columns, _ in SIZES:
        screen = screens[f"blind {columns}"]
        turn_line = next(line for line in screen.splitlines() if re.search(r"Turn 7\b", line))
        assert "you: chose" not in turn_line, turn_line  # (not last turn's choice)
        assert "you: choosing" in turn_line, turn_line
        assert "blind" in screen.lower()
        assert all(len(line) <= columns for line in screen.splitlines())
    assert person.session is not None and person.session.finished


def run_screen(terminal: Terminal, table: TableScreen, main: Any, drive: Any) -> None:
    """The UI on ``terminal`` running ``main`` (the peer's match) while ``drive`` types."""

    async def run() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=terminal.output())
            driver = asyncio.ensure_future(drive(table, keys.send_text))
            await asyncio.wait_for(bridge._main(table, app, main), HANG_S)
            driver.cancel()

    asyncio.run(run())


async def choose_then_leave(table: TableScreen, send: Callable[[str], None]) -> None:
    """Join, choose S D on turn 1 (not done: the minute runs), and leave."""
    await until(lambda: table.adapter.lobby_answered is not None)
    send("y")
    await until(lambda: bool(table.state.asking))
    send("S D\r")
    await until(lambda: table.text.expected().startswith("you chose"))
    send(CTRL_Q)
    await until(lambda: table.input.leaving)
    send(CTRL_Q)


def looked_then_finished(terminal: Terminal, screens: dict[str, str]) -> Any:
    """Look at the resumed screen at both sizes, then let the choice stand and surrender."""

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: table.text.expected().startswith("you chose") and bool(table.state.clocks))
        await asyncio.sleep(0.3)  # (the clocks are read four times a second)
        await both_sizes(terminal, table, screens, "resumed")
        send("done\r")
        await until(lambda: bool(table.state.asking))
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y")
        await until(lambda: table.text.expected().startswith("you chose"))
        send("done\r")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    return drive


def test_a_duel_resumed_mid_turn_shows_the_choice_made_before_and_one_story(tmp_path: Path) -> None:
    # Turns last their minute (no fast): the person chose S D on turn 1, and left before the
    # minute was up. Back with `resume`, the screen says what it chose, and that it may let it
    # stand; its clock goes on from when the turn began; the bot's (done at once) stopped.
    host_out = tmp_path / "host.txt"
    args = ["host", "duel", "--port", "0", "--bot", "--no-fast", "--seat", "1", "--grace", "60"]
    host = spawn(tmp_path / "h", host_out, *args, "--transcript", str(tmp_path / "host.p2pt"))
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}
    try:
        port = listening_port(host_out)
        peer = person(tmp_path, first := TableScreen())
        run_screen(terminal, first, partial(join_at, peer, port), choose_then_leave)
        time.sleep(3)  # (away a while: its clock went on meanwhile)
        back = person(tmp_path, again := TableScreen())
        back.resume((tmp_path / "ann.p2pt").read_bytes(), (tmp_path / "ann.secrets").read_bytes())
        back.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
        run_screen(terminal, again, back.play, looked_then_finished(terminal, screens))
        assert again.state.result is not None
    finally:
        host.kill()
    for columns, _ in SIZES:
        shown = screens[f"resumed {columns}"]
        assert re.search(r"Turn 1 .*you: chose S D", shown), shown
        assert "you chose S D" in shown and "done" in shown  # the question says how to go on
        clocks = next((line for line in shown.splitlines() if "clocks" in line and "ann" in line), shown)
        mine = re.search(r"ann \(p0\) (\d):(\d\d)", clocks)
        assert mine is not None and int(mine.group(1)) * 60 + int(mine.group(2)) <= 57, clocks


async def join_at(peer: Any, port: int) -> None:
    await peer.join(await trio.open_tcp_stream("127.0.0.1", port))


async def surrender_and_leave(table: TableScreen, send: Callable[[str], None]) -> None:
    """At the next question: P P, the surrender confirmed, and Ctrl-Q once the match is over."""
    await until(lambda: bool(table.state.asking))
    send("P P\r")
    await until(lambda: table.state.confirming is not None)
    send("y")
    await until(lambda: table.state.finished)
    send(CTRL_Q)


def test_a_paralysis_asks_for_the_hand_by_name_and_takes_left_or_right_alone(tmp_path: Path) -> None:
    # The person (p0) completes Paralysis (W-W-W) on turn 3 while the bot's hands make S and D:
    # asked which hand to hold, it types `right` alone, and is told what that did.
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        for gestures in ("W -", "W -", "W -"):
            await until(lambda: bool(table.state.asking))
            asked = dict(table.state.asking)
            send(gestures + "\r")
            await until(lambda asked=asked: table.state.asking != asked)  # type: ignore[misc]
        await until(lambda: "choose the hand to paralyse" in table.text.expected())
        await both_sizes(terminal, table, screens, "asked")
        send("right\r")
        await until(lambda: "right hand is paralysed" in "\n".join(table.state.log))
        await both_sizes(terminal, table, screens, "told")
        await surrender_and_leave(table, send)

    bots = BotDriver(bots={1: Script(["SD", "DS", "SD", "--", "--"])})
    table, _, _ = play(
        tmp_path, "duel", {"fast": True}, drive, Staging(bot_driver=bots, output=terminal.output())
    )
    for columns, _ in SIZES:
        asked = screens[f"asked {columns}"]
        question = " ".join(asked[asked.index("choose the hand to") :].split())  # (wrapped at spaces)
        assert question.startswith(
            "choose the hand to paralyse: bot (p1)'s left repeats S, right repeats D next turn "
            "(type left or right)"
        ), asked
        assert "paralyze p1" not in asked, asked
        assert "Turn 3   your Paralysis: you choose the hand it holds" in asked, asked  # (turn 3 cast it)
        told = screens[f"told {columns}"]
        assert "turn 3: bot (p1)'s right hand is paralysed next turn" in told, told  # (what it did)
        assert "paralysed: right hand repeats" in told and "R next none: it must repeat D" in told, told
    # At 80x24 the board is compact (each wizard's name and HP on one row) so that the log under
    # it has 7 rows, an effect on the board and all (it had 5).
    rows = screens["told 80"].splitlines()
    rule = next(i for i, row in enumerate(rows) if "what happened" in row)
    clocks = next(i for i, row in enumerate(rows) if "clocks" in row)
    assert clocks - rule - 1 >= 7, screens["told 80"]
    assert re.search(r"you: person \(p0\)\s+HP 13/15", screens["told 80"])
    ending = [line for line in table.state.log if "duel is over" in line.lower()]
    assert ending and all("_" not in line for line in ending), ending


def test_a_turn_played_blind_is_logged_under_its_own_number_when_the_blindness_ends(tmp_path: Path) -> None:
    # The bot (p0) blinds the person (p1) on turn 5 (blind on turns 6 to 8) and raises a Shield on
    # turn 7, which the blinded person is not told of then: it is logged when the blindness ends,
    # as turn 7's.
    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        for _ in range(9):
            await until(lambda: bool(table.state.asking))
            asked = dict(table.state.asking)
            send("- -\r")
            await until(lambda asked=asked: table.state.asking != asked)  # type: ignore[misc]
        await surrender_and_leave(table, send)

    bots = BotDriver(bots={0: Script(["D-", "W-", "S-", "W-", "CC", "--", "P-", "--", "--"])})
    table, _, _ = play(tmp_path, "duel", {"fast": True}, drive, Staging(seats=(1,), bot_driver=bots))
    shield = [line for line in table.state.log if "bot (p0) casts Shield" in line]
    assert shield == ["turn 7: bot (p0) casts Shield (left hand) at bot (p0)"], table.state.log
    # Its replay keeps p0 on the left at every turn, the blind ones (shown as p1 saw them) too,
    # and the board's heading names the turn the status bar does.
    replay = Replay(verify((tmp_path / "person.p2pt").read_bytes()))
    for index in range(1, replay.count + 1):
        replay.jump(index)
        rows = plain(replay.board_lines(80, 20)).splitlines()
        wizards = next(row for row in rows if "person (p1)" in row)
        assert wizards.index("bot (p0)") < wizards.index("person (p1)"), (replay.where(), rows)
        turn = int(replay.where().split()[1])
        assert rows[0].startswith(f" After turn {turn}") or rows[0].startswith(f" Turn {turn}:"), rows[0]
    blind = [i for i, entry in enumerate(replay.entries) if "blind" in entry.head]
    assert blind, [entry.head for entry in replay.entries]
