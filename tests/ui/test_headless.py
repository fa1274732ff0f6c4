"""The terminal UI, headless: keystrokes in through prompt_toolkit's pipe input, the screen's
state out, with the real network layer underneath and a bot on the other side of a socket."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2pgenius.protocol.session import ChatReceived
from p2pgenius.protocol.transcript import verify
from p2pgenius.ui.render import plain
from p2pgenius.ui.table import TableScreen

from .harness import Staging, play, until

CTRL_Q = "\x11"


def moved(table: TableScreen, answered: dict[int, int], *, or_confirming: bool = False) -> Callable[[], bool]:
    """Whether the UI went past the question just answered (or asks to confirm the answer)."""
    return lambda: (
        table.state.asking != answered
        or table.state.finished
        or (or_confirming and table.state.confirming is not None)
    )


def by_first_choice(max_moves: int = 400) -> Callable[[TableScreen, Callable[[str], None]], Any]:
    """A driver that plays the first legal move the completion offers, typed like a person."""

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        for _ in range(max_moves):
            await until(lambda: bool(table.state.asking) or table.state.finished)
            if table.state.finished:
                break
            choices = table.text.completions("")
            if not choices:
                # A challenge window that lapsed (the other player moved) between the question
                # and this look: the question goes away by itself. One that stays is a bug.
                with contextlib.suppress(AssertionError):
                    await until(moved(table, dict(table.state.asking)))
                    continue
                raise AssertionError("a move is asked for but none is offered")
            answered = dict(table.state.asking)
            send(choices[0].text + "\r")
            await until(moved(table, answered, or_confirming=True))
            if table.state.confirming is not None:  # a challenge, say: yes, really
                send("y\r")
                await until(moved(table, answered))
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    return drive


def test_a_whole_duel_typed_at_the_keyboard(tmp_path: Path) -> None:
    typed: list[str] = []
    boards: list[str] = []

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        for gestures in itertools.cycle(["S D", "D S", "W W", "> S", "P W", "S W", "D D"]):
            await until(lambda: bool(table.state.asking) or table.state.finished)
            if table.state.finished or len(typed) > 300:
                break
            boards.append(plain(table.text.board_lines()))
            typed.append(gestures)
            answered = dict(table.state.asking)
            send(gestures + "\r")
            await until(moved(table, answered))
        send(CTRL_Q)

    table, person, bot = play(tmp_path, "duel", {"fast": True}, drive, Staging(bot_level="random"))
    assert table.state.result is not None
    assert person.session is not None and bot.session is not None
    assert person.session.outcome == bot.session.outcome
    assert "Turn 1" in boards[0] and "HP 15/15" in boards[0]
    assert "L next" in boards[0] and "Spell book" in boards[0]
    # What was typed is what was played: the first turn's gestures are p0's first in history.
    wizard = person.session.state.wizards[0]
    assert (wizard.left[0], wizard.right[0]) == ("S", "D")
    assert any("casts" in line for line in table.state.log)
    for side in (person, bot):
        assert verify(side.files.transcript.read_bytes()).ok


def test_bad_input_gets_one_line_and_a_surrender_asks_first(tmp_path: Path) -> None:
    seen: dict[str, str] = {}

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: bool(table.state.asking))
        send("Q Q\r")
        await until(lambda: bool(table.state.message))
        seen["nonsense"] = table.state.message
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        seen["surrender"] = table.text.expected()
        seen["said twice"] = table.state.message
        send("n")  # (the key alone answers)
        await until(lambda: table.state.confirming is None)
        seen["declined"] = table.state.message
        seen["still asked"] = str(bool(table.state.asking))
        send("? ")  # "?" on an empty line opens the help
        await until(lambda: table.input.help_open)
        send("\x1b")
        await until(lambda: not table.input.help_open)
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    table, person, _ = play(tmp_path, "duel", {"fast": True}, drive, Staging(bot_level="random"))
    assert "gestures for the left and right hand" in seen["nonsense"]
    assert "\n" not in seen["nonsense"]
    assert "surrender" in seen["surrender"] and "y or n" in seen["surrender"]
    assert seen["said twice"] == "", "the question line asks; the message line does not repeat it"
    assert seen["declined"] == "not sent" and seen["still asked"] == "True"
    assert table.state.result is not None and table.state.result["reason"] in ("surrender", "draw")
    assert person.session is not None and person.session.outcome is not None


def test_a_whole_magic_square_and_chat_through_the_ui(tmp_path: Path) -> None:
    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: bool(table.state.asking))
        send("say good luck\r")
        await by_first_choice()(table, send)

    table, person, bot = play(
        tmp_path, "magic-square", {}, drive, Staging(bot_level="heuristic", table=TableScreen(hints=True))
    )
    assert table.state.result is not None
    assert person.session is not None and bot.session is not None
    assert person.session.outcome == bot.session.outcome
    heard = [e for e in bot.heard if isinstance(e, ChatReceived)]  # type: ignore[attr-defined]
    assert [e.text for e in heard] == ["good luck"]
    assert any("good luck" in line for line in table.state.chat_lines)
    assert verify(person.files.transcript.read_bytes()).ok


def test_hornswoggle_with_a_bot_partner_and_a_joining_person_who_accepts_the_lobby(tmp_path: Path) -> None:
    asked: list[str] = []

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: table.adapter.lobby_answered is not None)
        asked.append(table.text.expected())
        asked.append(plain(table.text.board_lines()))
        send("y\r")
        await by_first_choice(2000)(table, send)

    table, person, bot = play(
        tmp_path,
        "hornswoggle",
        {},
        drive,
        Staging(ui_hosts=False, bot_level="pirate", seats=(0, 2), table=TableScreen(partner_delay=0)),
    )
    assert "join this match" in asked[0]
    # The lobby: the host's whole fingerprint (once), the time limit in words, no wire format.
    assert "Lobby: Hornswoggle" in asked[1]
    assert asked[1].count(bot.identity.fingerprint) == 1
    assert person.identity.fingerprint in asked[1]
    assert "each decision: 1m" in asked[1] and "=" not in asked[1]
    assert person.session is not None and person.session.my_seats == (0, 2)
    assert table.state.result is not None
    assert person.session.outcome == bot.session.outcome  # type: ignore[union-attr]
    assert verify(person.files.transcript.read_bytes()).ok


def test_leaving_mid_match_keeps_the_files_for_resume(tmp_path: Path) -> None:
    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: bool(table.state.asking))
        send(CTRL_Q)
        await until(lambda: table.input.leaving)
        send(CTRL_Q)

    table, person, _ = play(tmp_path, "duel", {"fast": True}, drive)
    assert table.state.result is None
    assert person.session is not None and not person.session.finished
    records = person.files.transcript.read_bytes()
    assert verify(records).summary.startswith("incomplete")


def test_without_fast_turns_done_resolves_the_turn_at_once(tmp_path: Path) -> None:
    # The minute stays (a player may change its mind until it is up), but it need not be waited
    # out: the bot's choice stands at once, the person says done, and the turn resolves.
    seen: list[str] = []
    waited: list[float] = []

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        for gestures in ("S D", "D S"):
            await until(lambda: bool(table.state.asking))
            answered = dict(table.state.asking)
            send(gestures + "\r")
            await until(lambda: table.text.expected().startswith("you chose"))
            seen.append(table.text.expected())
            started = asyncio.get_running_loop().time()
            send("done\r")
            await until(moved(table, answered))  # (at once, not after the minute: see `waited`)
            waited.append(asyncio.get_running_loop().time() - started)
        await until(lambda: bool(table.state.asking))
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y\r")
        await until(lambda: table.text.expected().startswith("you chose"))
        send("done\r")
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    table, person, _ = play(tmp_path, "duel", {}, drive, Staging(bot_level="random", bot_settles=True))
    assert table.state.result is not None
    assert "you chose S D" in seen[0] and "`done`" in seen[0], seen
    assert max(waited) < 10, waited
    assert person.session is not None and person.session.terms is not None
    assert not person.session.terms["options"].get("fast")  # (the minute was the rule all along)


def test_players_say_gg_after_the_end_until_one_leaves(tmp_path: Path) -> None:
    said: list[str] = []

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: bool(table.state.asking))
        send("P P\r")
        await until(lambda: table.state.confirming is not None)
        send("y")
        await until(lambda: table.state.finished)
        session = table.adapter.peer.session if table.adapter.peer is not None else None
        assert session is not None
        await until(lambda: session.finished)
        before = len(session.chain.archive)
        send("say gg\r")
        await until(lambda: len(session.chain.archive) > before)  # (signed and sent)
        said.append(table.text.prompt())
        await until(lambda: any(isinstance(e, ChatReceived) for e in heard))  # the other reads it
        send(CTRL_Q)

    heard: list[Any] = []
    table, _, bot = play(
        tmp_path, "duel", {"fast": True}, drive, Staging(bot_level="random", linger=True, bot_heard=heard)
    )
    assert table.state.result is not None and said == ["chat> "]
    heard = [e for e in bot.heard if isinstance(e, ChatReceived)]  # type: ignore[attr-defined]
    assert [e.text for e in heard] == ["gg"], "the other player read it, after the end"
    assert verify(bot.files.transcript.read_bytes()).ok  # (a chat after the end is in the record)


def test_the_persons_seat_out_of_time_is_logged_with_its_name_and_seat(tmp_path: Path) -> None:
    # The log said "p0: out of time", the seat alone, where every other line names the player.
    said: list[str] = []

    async def drive(table: TableScreen, send: Callable[[str], None]) -> None:
        await until(lambda: any("out of time" in line for line in table.state.log))
        said.extend(line for line in table.state.log if "out of time" in line)
        send(CTRL_Q)
        await until(lambda: table.input.leaving or table.state.finished)
        send(CTRL_Q)

    play(tmp_path, "duel", {"fast": True, "turn_seconds": 2}, drive, Staging(bot_level="wizard"))
    assert said and said[0].startswith("person (p0): out of time"), said
