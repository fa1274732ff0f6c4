"""The screens a player sees, through a real terminal emulator (pyte), at 80x24 and 160x50, for
each game's main states, against a bot over loopback: what must be on the screen is there, and
nothing essential is cut. (Not golden files: the essential rows and strings are asserted.)"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import trio

from p2pgenius.games.duel.spells import SPELLS
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.ui.table import TableScreen

from .harness import Staging, play, until
from .screen import Terminal, seen, settled

CTRL_Q = "\x11"
Send = Callable[[str], None]


def rows_between(text: str, first: str, last: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(first, line))
    end = next(i for i, line in enumerate(lines) if i > start and re.search(last, line))
    return lines[start : end + 1]


def assert_fits(terminal: Terminal) -> None:
    """The fixed lines are whole: the prompt line ends the input row, the question is not cut
    mid-word at the right edge (it wraps instead), nothing runs past the edge."""
    lines = terminal.lines()
    assert all(len(line) <= terminal.columns for line in lines)
    prompt = next(i for i, line in enumerate(lines) if re.match(r"^[a-z /?]+>", line))
    assert prompt >= terminal.rows - 4, "the input line is where it belongs, near the bottom"


async def answer(table: TableScreen, send: Send, text: str) -> None:
    """Type ``text`` for the question asked now and wait until the UI moved past it."""
    asked = dict(table.state.asking)
    send(text + "\r")
    await until(
        lambda: table.state.asking != asked or table.state.finished or table.state.confirming is not None
    )
    if table.state.confirming is not None:
        send("y\r")
        await until(lambda: table.state.asking != asked or table.state.finished)


async def trio_finished(table: TableScreen) -> None:
    """Wait until the match's trio run is over (its connections closed)."""
    token = table.adapter.token
    assert token is not None
    for _ in range(3000):
        try:
            token.run_sync_soon(lambda: None)
        except trio.RunFinishedError:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("trio never finished")


def test_the_duel_at_80x24_then_160x50_and_a_chat_after_the_end(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}
    said: list[str] = []

    async def drive(table: TableScreen, send: Send) -> None:
        await until(lambda: bool(table.state.asking))
        await answer(table, send, "S D")
        await until(lambda: bool(table.state.asking) or table.state.finished)
        screens["turn 2"] = await settled(terminal, lambda: bool(table.state.asking))
        log_newest = table.state.log[-1]
        screens["newest"] = log_newest
        terminal.resize(160, 50)
        table.state.invalidate()
        screens["wide"] = await seen(terminal, "Power Word Kill", "P-W-P-W-S-S-S-D")
        terminal.resize(80, 24)
        table.state.invalidate()
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y\r")
        await until(lambda: table.state.finished)
        send("say gg\r")  # at once: the match's connections may still be closing
        await until(
            lambda: "chat" in table.state.message or any("gg" in line for line in table.state.chat_lines)
        )
        said.append(table.state.message)
        await trio_finished(table)
        send("say gg again\r")  # and once trio has finished: no crash, a line saying why
        await until(lambda: said[-1] != table.state.message or "closed" in table.state.message)
        said.append(table.state.message)
        screens["end"] = await settled(terminal)
        send(CTRL_Q)

    table, person, _ = play(
        tmp_path, "duel", {"fast": True}, drive, Staging(bot_level="wizard", output=terminal.output())
    )
    assert table.state.result is not None
    narrow = screens["turn 2"]
    rows = narrow.splitlines()
    assert "you: person (p0)" in rows[0]
    assert person.session is not None
    other = fingerprint(person.session.keys[1])
    assert other in "\n".join(rows[:2]), "the opponent's whole fingerprint in the status bar"
    board = rows_between(narrow, r"Turn 2", r"what happened")
    text = "\n".join(board)
    assert "you: person (p0)" in text and "opponent: bot (p1)" in text
    assert text.count("HP ") == 2 and re.search(r"\b1  S  D\b", text)  # (the turn history's row)
    assert text.count("L next") == 2 and text.count("R next") == 2  # both wizards, both hands
    for name in ("Shield", "Counter", "Missile", "Fireball", "PW Kill", "Blindness", "Paralysis", "Fear"):
        assert name in text
    assert "DSPSD" in text and "PWPWSSSD" in text  # the gestures beside the spells
    assert re.search(r"turn 2: choose your gestures", narrow) and "gestures>" in narrow
    log = rows_between(narrow, "what happened", r"clocks")
    assert screens["newest"].endswith(log[-2].strip()), "the log shows its newest line"
    wide = screens["wide"]
    for spell in SPELLS:  # the whole spell book, full names and gestures
        assert spell.title in wide
    log_row = next(i for i, line in enumerate(wide.splitlines()) if "what happened" in line)
    assert log_row < 30, "at 160x50 the log grows under the board instead of leaving it empty"
    end = screens["end"]
    assert re.search(r"match over: you lose \(you surrendered\)\. Ctrl-Q leaves", end)
    assert "stopped: the match is over" in end and "\u25b6" not in end  # no clock runs
    # The result, then (once the other has signed it too) that it stands on the record.
    assert any("you lose (you surrendered)" in line for line in list(table.state.log)[-3:]), list(
        table.state.log
    )[-3:]
    # Right after the result the table is still there (each peer waits for the other's signed
    # word of the result): the first line may reach it; once everyone has left, none does.
    assert "closed" in said[-1], said
    assert ("closed" in said[0]) != any(line.endswith("(you): gg") for line in table.state.chat_lines), said
    assert not any("gg again" in line for line in table.state.chat_lines), (
        "nothing pretends to have been said"
    )


def test_the_magic_square_from_colouring_to_the_final_grid(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    async def drive(table: TableScreen, send: Send) -> None:
        while not table.state.finished:
            await until(lambda: bool(table.state.asking) or table.state.finished)
            if table.state.finished:
                break
            question = table.text.question()
            assert question is not None
            key = question.prompt
            if key not in screens:
                screens[key] = await settled(terminal, lambda: bool(table.state.asking))
            if key == "place" and "wide place" not in screens:
                terminal.resize(160, 50)
                table.state.invalidate()
                wide = (r"chat \(say TEXT\)", r"place \d+ on an empty cell")
                screens["wide place"] = await seen(terminal, *wide)
                terminal.resize(80, 24)
                table.state.invalidate()
            offered = [c.text for c in table.text.completions("")]
            if not offered:  # a challenge window that lapsed meanwhile: the question goes by itself
                asked = dict(table.state.asking)
                await until(lambda: table.state.asking != asked or table.state.finished)  # noqa: B023
                continue
            await answer(table, send, "pass" if "pass" in offered else offered[0])
        screens["end"] = await settled(terminal)
        send(CTRL_Q)

    table, _, _ = play(
        tmp_path,
        "magic-square",
        {},
        drive,
        Staging(bot_level="heuristic", output=terminal.output(), table=TableScreen(hints=True)),
    )
    assert table.state.result is not None
    assert "choose who colours first" in screens.get("who colours first", "") or "colour" in screens
    assert re.search(r"colour a cell (red|blue), like b3 \(\d of your 8 cells left\)", screens["colour"])
    place = screens["place"]
    assert re.search(r"place \d+ on an empty cell", place) and "*" in place and "place>" in place
    for row in "1234":
        assert re.search(rf"^\s+{row}\s", place, re.MULTILINE), f"grid row {row} is on the screen"
    assert re.search(r"red: person \(p0\) \d+ .* blue: bot \(p1\) \d+", place)
    if "challenge?" in screens:
        assert re.search(r"you may challenge bot \(p1\)'s \d+ on [a-d][1-4]", screens["challenge?"])
    if "swap" in screens:
        assert "swap one red and one blue cell (swap a1 b2), or done" in screens["swap"]
        assert "round 1:" in screens["swap"]
    wide = screens["wide place"]  # 160x50: cells of three rows; the log beside, the chat under the board
    grid = rows_between(wide, r"\ba\s+b\s+c\s+d\b", r"red: person")
    assert len(grid) >= 16 and "*" in "\n".join(grid)
    chat_row = next(i for i, line in enumerate(wide.splitlines()) if "chat (say TEXT)" in line)
    assert 20 <= chat_row < 40 and "what happened" in wide.splitlines()[1]
    end = screens["end"]
    assert "Final position" in end
    final = re.search(r"the last round: (.+) won, (\d+)-(\d+) \((score|not magic)\)", end)
    assert final, end
    grid = rows_between(end, "Final position", r"red: person")
    numbers = {int(n) for n in re.findall(r"[RB]\s*(\d+)", "\n".join(grid[1:-1]))}
    assert numbers == set(range(1, 17)), "the final grid keeps its 16 numbers"
    assert int(final.group(2)) + int(final.group(3)) == 136
    assert re.search(r"match over: you (win|lose), \d-\d in rounds", end)
    assert not any("cell=" in line for line in table.state.log) and "cell=" not in end
    for text in screens.values():
        assert "place cell" not in text and "_" not in text.split("what happened")[0]


def test_hornswoggle_lobby_piles_reckoning_and_a_wrong_flip(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}
    refused: list[str] = []

    async def drive(table: TableScreen, send: Send) -> None:
        await until(lambda: table.adapter.lobby_answered is not None)
        screens["lobby"] = await seen(terminal, "join this match")
        send("y\r")
        while not table.state.finished:
            await until(lambda: bool(table.state.asking) or table.state.finished)
            if table.state.finished:
                break
            view = table.text.view()
            assert view is not None
            offered = [c.text for c in table.text.completions("")]
            phase = view["phase"]
            if phase == "flipping" and "flipping" not in screens and view["flipped"][0].count(False):
                screens["flipping"] = await settled(terminal, lambda: bool(table.state.asking))
                send("flip p1\r")
                await until(lambda: "flip" in table.state.message)
                refused.append(table.state.message)
                screens["wrong flip"] = await settled(terminal)
            if table.state.memory.get("reckoning") and phase == "opening" and "reckoning" not in screens:
                screens["reckoning"] = await settled(terminal, lambda: bool(table.state.asking))
                terminal.resize(160, 50)
                table.state.invalidate()
                screens["wide"] = await seen(terminal, "reckoning", "team A")
                terminal.resize(80, 24)
                table.state.invalidate()
            bids = [text for text in offered if text.startswith("bid")]
            await answer(table, send, bids[-1] if phase == "turns" and bids else offered[0])
        screens["end"] = await settled(terminal)
        send(CTRL_Q)

    table, person, bot = play(
        tmp_path,
        "hornswoggle",
        {},
        drive,
        Staging(
            ui_hosts=False,
            bot_level="pirate",
            seats=(0, 2),
            output=terminal.output(),
            table=TableScreen(partner_delay=0),
        ),
    )
    lobby = screens["lobby"]
    assert bot.identity.fingerprint in lobby and person.identity.fingerprint in lobby
    assert "each decision: 1m" in lobby and "join this match, with these players and options? y or n" in lobby
    assert "fast=" not in lobby and "decision_seconds" not in lobby
    flipping = screens["flipping"]
    assert re.search(r"you flip for \d+: \d+ found, \d+ to go; own pile first", flipping)
    assert "flip your own pile first: flip p0" in flipping  # the question says it
    for seat, role in ((0, "you"), (1, "opponent"), (2, r"your partner"), (3, "opponent")):
        assert re.search(rf"\(p{seat}\)\s+{role}", flipping), (seat, role)
    assert re.search(r"person's bot \(p2\)\s+your partner", flipping)  # a name of its own
    assert "piles bottom to top" in flipping
    assert refused == ["flip your own pile first: flip p0"], refused
    wrong = screens["wrong flip"]
    assert wrong.splitlines()[-1].strip() == "flip your own pile first: flip p0", "under the input"
    assert "cannot flip" not in wrong and not any("cannot flip" in line for line in table.state.log)
    reckoning = screens["reckoning"]
    assert re.search(r"Round \d+'s reckoning: .+ bid \d+; flipped p\d [DS]", reckoning)
    assert "place your opening card face down" in reckoning  # while the next round opens
    assert "team A" in screens["wide"] and "team B" in screens["wide"]
    assert not re.search(r"\b1 (cards|doubloons|skulls)\b", "\n".join(screens.values()))
    assert re.search(r"your team (wins|loses)", screens["end"])
    for text in screens.values():
        assert all(len(line) <= 80 for line in text.splitlines() if text is not screens["wide"])
