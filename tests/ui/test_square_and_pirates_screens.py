"""The Magic Square's end and a Hornswoggle pirate that is out, on the screen a player sees (a real
terminal emulator, pyte) at 80x24 and 160x50, against a bot over loopback; and the table's words
that need the game's front end (an order's echo, the question line of a pirate that is out, a
completion drawn when it beats a challenge)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from prompt_toolkit.input import create_pipe_input

from p2pgenius.bots.driver import BotDriver
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import perspective
from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.protocol.events import Applied
from p2pgenius.ui import bridge
from p2pgenius.ui.app import build
from p2pgenius.ui.lines import plain
from p2pgenius.ui.table import TableScreen
from tests.magic_square.helpers import place_square, square, start
from tests.patience import HANG_S

from .harness import Staging, make_peer, play, until
from .screen import Terminal, seen
from .test_table import seated

CTRL_Q = "\x11"
Send = Callable[[str], None]
Driver = Callable[[TableScreen, Send], Any]


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


PAUSING: list[BotDriver] = []
"""The bots of the match :func:`host_with_setup` plays, pausing between moves (see :func:`quicken`)."""


def quicken() -> None:
    """The screens were read: the bots play the rest of the match without pausing."""
    for driver in PAUSING:
        driver.delay = 0.0


def host_with_setup(
    tmp: Path, game: str, setup: dict[str, Any], driver: Driver, terminal: Terminal
) -> TableScreen:
    """The harness's match (the person hosts at the UI, holding p0 and p2; a bot peer joins),
    with the engine ``setup`` given (the harness passes none)."""
    table = TableScreen(partner_delay=0.3)  # (bots that pause: the match goes on while the screen is read)
    person = make_peer(tmp, "person", table)
    opponents = BotDriver(None, 5, delay=0.3)
    bot = make_peer(tmp, "bot", None, opponents)
    PAUSING[:] = [table.adapter.partners, opponents]

    async def match() -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: person.host(listeners[0], game=game, options={}, setup=setup, peers=2, seats=(0, 2))
            )
            await bot.join(await trio.open_tcp_stream("127.0.0.1", port))
        await listeners[0].aclose()

    async def main() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=terminal.output())
            drive = asyncio.ensure_future(driver(table, keys.send_text))
            screen = asyncio.ensure_future(bridge._main(table, app, match))
            done, _ = await asyncio.wait([drive, screen], timeout=HANG_S, return_when=asyncio.FIRST_EXCEPTION)
            if drive in done and drive.exception() is not None:
                if app.is_running:
                    app.exit()
                await asyncio.wait([screen], timeout=10)
                raise AssertionError(
                    f"the driver failed; the screen:\n{terminal.text()}"
                ) from drive.exception()
            assert screen in done, f"the UI did not finish; the screen:\n{terminal.text()}"
            screen.result()
            drive.cancel()

    asyncio.run(main())
    return table


async def both_sizes(terminal: Terminal, table: TableScreen, *patterns: str) -> tuple[str, str]:
    """The screen at 80x24, then at 160x50 (each the first frame with ``patterns`` on it), back to
    80x24."""

    # The frame that shows them, as drawn (the match goes on meanwhile: waiting for the screen to
    # stop changing could read a later one, the end's, on a busy machine).
    narrow = await seen(terminal, *patterns)
    terminal.resize(160, 50)
    table.state.invalidate()
    wide = await seen(terminal, *patterns)
    terminal.resize(80, 24)
    table.state.invalidate()
    return narrow, wide


# -- the Magic Square's end -----------------------------------------------------------------------

LAST_ROUND = re.compile(
    r"the last round: (you|bot \(p1\)) won, (\d+)-(\d+) \((score|not magic)\): "
    r"(your|bot \(p1\)'s) (\d+) to (your|bot \(p1\)'s) (\d+)"
)


def test_the_magic_squares_end_says_who_won_the_last_round_by_how_much(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    async def drive(table: TableScreen, send: Send) -> None:
        while not table.state.finished:
            await until(lambda: bool(table.state.asking) or table.state.finished)
            if table.state.finished:
                break
            offered = [c.text for c in table.text.completions("")]
            if not offered:  # a challenge window that lapsed meanwhile: the question goes by itself
                asked = dict(table.state.asking)
                await until(lambda: table.state.asking != asked or table.state.finished)  # noqa: B023
                continue
            swaps = [text for text in offered if text.startswith("swap")]  # (two swaps end the step)
            await answer(table, send, "pass" if "pass" in offered else (swaps or offered)[0])
        screens["narrow"], screens["wide"] = await both_sizes(terminal, table, "Final position", "match over")
        send(CTRL_Q)

    table, _, _ = play(
        tmp_path,
        "magic-square",
        {},
        drive,
        Staging(bot_level="heuristic", output=terminal.output(), table=TableScreen(hints=True)),
    )
    assert table.state.result is not None
    # The log never ends a round with a bare "55-81": it says who won it, and on what.
    assert not any(re.fullmatch(r"[\d\s:-]+", line) for line in table.state.log), list(table.state.log)
    ended = [
        line for line in table.state.log if line.startswith(("all 16 placed", "the full square is not magic"))
    ]
    assert ended, list(table.state.log)
    for line in ended:
        assert re.fullmatch(
            r"all 16 placed and the square is magic: .+ wins round [123] on score, (\d+) to .+'s (\d+)"
            r"|all 16 placed and the square is magic, but the scores tie 68-68: the round is void"
            r"|the full square is not magic: .+ placed 16 and loses",
            line,
        ), line
    for size, text in screens.items():
        flat = re.sub(r"\s+", " ", text)  # (a line the narrow screen wraps)
        found = LAST_ROUND.search(flat)
        assert found, (size, text)
        winner, won, lost, reason, first, again, second, other = found.groups()
        assert (won, lost) == (again, other), "the winner's score first, then the loser's"
        assert first == ("your" if winner == "you" else "bot (p1)'s") and second != first
        if reason == "score":
            assert int(won) > int(lost)
        assert re.search(r"match over: you (win|lose), \d-\d in rounds", flat)
        assert all(len(line) <= (80 if size == "narrow" else 160) for line in text.splitlines())


# -- a Hornswoggle pirate that is out -------------------------------------------------------------

OUT_SETUP = {"hands": [[1, 0], [0, 1], [3, 1], [3, 1]]}
"""p0 holds a single doubloon and p1 a single skull: p0 bids every card on the table, flips its
own doubloon, then p1's skull, and discards its only card (or it pays for the bots' success)."""


def test_a_hornswoggle_pirate_that_is_out_is_told_its_partner_plays_on(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    screens: dict[str, str] = {}

    def out() -> bool:
        view = table_view[0]()
        return view is not None and bool(view["out"][0])

    table_view: list[Callable[[], Any]] = []

    async def drive(table: TableScreen, send: Send) -> None:
        table_view.append(table.text.view)
        while not out() and not table.state.finished:
            await until(lambda: bool(table.state.asking) or table.state.finished or out())
            if out() or table.state.finished:
                break
            view = table.text.view()
            assert view is not None
            offered = [c.text for c in table.text.completions("")]
            bids = [text for text in offered if text.startswith("bid")]
            if view["phase"] in ("turns", "bidding") and bids:
                await answer(table, send, bids[-1])  # every card on the table: the challenger at once
            else:
                await answer(table, send, offered[0])
        assert out(), "p0 went out"
        told = "you're out of cards: your partner (p2, bot) plays on for your team"
        screens["narrow"], screens["wide"] = await both_sizes(
            terminal, table, told.replace("(", r"\(").replace(")", r"\)")
        )
        quicken()
        await until(lambda: table.state.finished)
        send(CTRL_Q)

    table = host_with_setup(tmp_path, "hornswoggle", OUT_SETUP, drive, terminal)
    assert table.state.result is not None
    boards = {}
    for size, text in screens.items():
        rows = text.splitlines()
        # the board: above the log (narrow), or left of it and above the chat (wide)
        under = next(i for i, row in enumerate(rows) if i > 1 and re.search("what happened|chat [(]say", row))
        boards[size] = [row.split("\u2502\u2502")[0] for row in rows[:under]]
        board = "\n".join(boards[size])
        assert re.search(r"\(p0\)\s+you.*out", board), (size, board)
        assert "you're out of cards: your partner (p2, bot) plays on for your team" in board
        assert all(len(row) <= terminal.columns for row in rows if size == "narrow")
    # The bot partner's moves are its own in the log, never the person's.
    assert any(line.startswith("your partner (p2, bot) ") for line in table.state.log), list(table.state.log)
    assert not any(line.startswith("person (p2)") for line in table.state.log)
    arranged = {size: any("(p0)" in row and "(p1)" in row for row in board) for size, board in boards.items()}
    assert arranged == {"narrow": False, "wide": True}, "a row a pirate at 80 columns, a team a column at 160"


# -- the table's words that come from the game's front end (echo, idle, remember) -----------------


def test_typing_second_is_echoed_as_second() -> None:
    table, _ = seated("magic-square", start(), my_seats=(1,), me=1)
    table.adapter.token = type("Token", (), {"run_sync_soon": lambda self, *a: None})()
    table.adapter.peer.offer = lambda number, seat, action: None  # type: ignore[union-attr, method-assign]
    table.state.asking = {1: 1}
    table.input.enter("second")
    assert table.state.message == "sent: second: your opponent colours first"


def test_the_question_line_of_a_pirate_that_is_out_is_not_blank() -> None:
    state = HORNSWOGGLE.initial(OUT_SETUP, {})
    act = HORNSWOGGLE.parse_action
    state = HORNSWOGGLE.apply(state, 1, act({"type": "order", "first": 0}))
    for seat, card in ((0, "doubloon"), (1, "skull"), (2, "doubloon"), (3, "doubloon")):
        state = HORNSWOGGLE.apply(state, seat, act({"type": "place", "card": card}))
    for action in ({"type": "bid", "count": 4}, {"type": "flip", "pile": 0}, {"type": "flip", "pile": 1}):
        state = HORNSWOGGLE.apply(state, 0, act(action))
    state = HORNSWOGGLE.apply(state, 0, act({"type": "discard", "card": "doubloon"}))
    assert state.pirates[0].out
    table, _ = seated(
        "hornswoggle", perspective(state, (0, 2)), my_seats=(0, 2), owner=(0, 1, 0, 1), names=["Fay", "Bot"]
    )
    assert table.text.expected().startswith(
        "you're out of cards: your partner (p2, bot) plays on for your team"
    )


def test_a_completion_that_beats_a_challenge_is_drawn_on_the_players_board() -> None:
    grid = square(5)
    state = place_square(start([0, 1] * 8, 0), grid, upto=3)
    state = MAGIC_SQUARE.apply(state, 0, MAGIC_SQUARE.parse_action({"type": "challenge"}))
    complete = {"type": "complete", "grid": list(grid)}
    after = MAGIC_SQUARE.apply(state, 1, MAGIC_SQUARE.parse_action(complete))
    table, session = seated("magic-square", after)
    table.adapter.report(session, Applied(7, ((1, complete),), after.events, after))  # type: ignore[arg-type]
    assert "bob (p1)'s completion (round 1):" in plain(table.text.board_lines(80, 14))
