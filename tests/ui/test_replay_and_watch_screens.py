"""One numbering in a replay (the status bar, the log, the rule and ``go N`` agree: the steps from 1,
or the duel's turns; never the protocol's stages beside them), and ``p2pgenius watch``'s live
screen, titled as watching and saying the match goes on until its result comes: both through a
real terminal emulator (pyte) at 80x24 and 160x50."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from prompt_toolkit.input import create_pipe_input

from p2pgenius.canonical import decode, encode
from p2pgenius.cli.play import Printer
from p2pgenius.cli.watch import LiveScreen, live
from p2pgenius.games.registry import names
from p2pgenius.net.spectators import Onlooker, _take
from p2pgenius.protocol.events import Fault, FaultKind
from p2pgenius.protocol.session import Event, SessionView
from p2pgenius.protocol.transcript import records, verify
from p2pgenius.ui.lines import plain
from p2pgenius.ui.replay import Replay, build
from tests.patience import HANG_S

from .harness import until
from .screen import Terminal, seen, settled

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
GAMES = names()  # (every game in the table: each has its transcript vector)
SIZES = [(80, 24), (160, 50)]
UNITS = {"duel": "turn", "magic-square": "step", "hornswoggle": "step"}
Send = Callable[[str], None]


def log_of(text: str) -> str:
    """The log's words on a screen, its wrapped lines joined: on a narrow screen everything under
    the rule; on a wide one, the column in the frame titled "what happened"."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if "what happened" in line)
    left = lines[top].rfind("\u250c", 0, lines[top].index("what happened"))
    rows = []
    for line in lines[top + 1 :]:
        if left > 0:  # (wide: between the frame's sides)
            if line[left : left + 1] != "\u2502":
                break
            line = line[left + 1 :].split("\u2502")[0]
        rows.append(line.strip())
    return " ".join(row for row in rows if row)


def transcript(game: str) -> bytes:
    return (VECTORS / f"transcript-{game}.p2pt").read_bytes()


def replay_of(game: str) -> Replay:
    return Replay(verify(transcript(game)))


# -- one numbering --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_the_status_the_log_and_go_n_count_the_same_way(game: str) -> None:
    replay = replay_of(game)
    unit, last = UNITS[game], replay.numbers[-1]
    assert replay.unit == unit
    for index in range(1, replay.count + 1):
        replay.jump(index)
        number = replay.numbers[index]
        where = replay.where()
        assert where.startswith(f"{unit} {number} of {last}"), where
        assert "stage" not in where and where.count(" of ") == 1, "one numbering, not two"
        head = plain(replay.entry_lines(index, 200)).splitlines()[0]
        assert head.startswith(f"{unit} {number}"), head
        # What the status bar calls N is where `go N` lands (the first step of it).
        replay.jump(0)
        assert replay.enter(f"go {number}") is False
        assert replay.numbers[replay.index] == number and replay.where().startswith(f"{unit} {number} of")
        assert replay.index == replay.numbers.index(number)
    replay.enter("go 0")
    assert replay.index == 0 and replay.where() == f"{unit} 0 of {last} (the start)"


def test_a_step_of_a_match_is_its_step_not_the_stage_before_it() -> None:
    # The report: "step 32 of 56 (stage 31)", and `go 31` landed on step 32.
    replay = replay_of("hornswoggle")
    replay.jump(31)
    assert replay.where() == f"step 31 of {replay.count}"
    replay.enter("go 30")
    assert replay.index == 30 and replay.where() == f"step 30 of {replay.count}"
    replay.enter("12")
    assert replay.index == 12
    assert not replay.go(replay.count + 1)
    assert (
        replay.message == f"no step {replay.count + 1} in this match: steps 0 (the start) to {replay.count}"
    )
    assert all("stage" not in entry.head for entry in replay.entries)


def test_a_fault_is_told_in_the_replays_numbering() -> None:
    def stopped(game: str, stage: int) -> Replay:
        report = verify(transcript(game))
        fault = Fault(FaultKind.DESYNC, 1, stage, "the state hashes differ", {})
        return Replay(dataclasses.replace(report, ok=False, outcome=None, fault=fault))

    replay = stopped("magic-square", 11)  # the twelfth step's stage
    assert replay.verdict() == ("fault: desync at step 12", False)
    replay.last()
    assert "at step 12): the state hashes differ" in plain(replay.log_lines(200))
    assert "stage" not in plain(replay.log_lines(200))
    assert stopped("magic-square", 500).verdict()[0] == f"fault: desync at step {replay.count + 1}"
    assert stopped("duel", 2).verdict()[0] == "fault: desync at turn 3"
    assert stopped("duel", 500).verdict()[0] == "fault: desync at the step after turn 8"


def drive(replay: Replay, terminal: Terminal, driver: Callable[[Send], Awaitable[None]]) -> None:
    """Run the replay's application on ``terminal`` while ``driver`` types; it must leave."""

    async def run() -> None:
        with create_pipe_input() as keys:
            app = build(replay, input=keys, output=terminal.output())
            shown = asyncio.ensure_future(app.run_async())
            await seen(terminal, r"replay>")
            await driver(keys.send_text)
            await asyncio.wait_for(shown, HANG_S)

    asyncio.run(run())


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("game", "number"), [("duel", 3), ("hornswoggle", 12)])
def test_go_n_on_the_screen_lands_on_what_the_status_bar_calls_n(
    game: str, number: int, size: tuple[int, int]
) -> None:
    terminal = Terminal(*size)
    replay = replay_of(game)
    screens: list[str] = []
    unit, last = UNITS[game], replay.numbers[-1]

    async def driver(send: Send) -> None:
        send(f"go {number}\r")
        await until(lambda: replay.numbers[replay.index] == number)
        screens.append(await settled(terminal))
        send("q")

    drive(replay, terminal, driver)
    text = screens[0]
    status = "\n".join(text.splitlines()[:3])
    assert f"{unit} {number} of {last}" in status
    assert "stage" not in text, "the protocol's stages are not a person's numbering"
    head = next(line for line in text.splitlines() if re.search(rf"\b{unit} {number}  p\d", line))
    assert head, text
    if size[0] < 110:  # narrow: the rule over the log says where the log goes up to
        assert f"what happened, up to {unit} {number} of {last}" in text
    else:  # wide: the board's frame does
        assert f"{unit} {number} of {last}" in next(line for line in text.splitlines() if "\u2500" in line)


# -- watching live --------------------------------------------------------------------------------


class Feed:
    """A host's messages to a spectator, from a vector transcript, as far as the test lets them go
    (``upto``), through the spectator's own checks (``net.spectators._take``); and the lines the
    command prints besides (``say``: a player's chat, the connection), through its printer, which
    writes to ``out`` what does not reach the screen."""

    def __init__(self, game: str, upto: int) -> None:
        rows = list(records(transcript(game)))
        self.keys = rows[0][2]["peers"]
        self.messages = [row[1] for row in rows[1:] if row[0] == "msg"]
        self.upto = upto
        self.ended = False  # the host closes the connection once all it lets go has gone
        self.received: list[bytes] = []
        self.out = io.StringIO()
        self.printer = Printer(self.out, moves=False)
        self.listeners: list[Callable[[SessionView, Event], None]] = [self.printer.event]
        self.lines: list[str] = ["connecting to the host to watch"]
        self.linger = False  # the connection stays open after the end (the players chat)

    def say(self, text: str) -> None:
        """A line the command prints (as a chat line is), between two messages."""
        self.lines.append(text)

    def on_event(self, session: SessionView, event: Event) -> None:
        for listener in list(self.listeners):
            listener(session, event)

    async def main(self) -> SessionView | None:
        onlooker = Onlooker(self.on_event, self.received.append)
        session = _take(encode(["watching", {"keys": self.keys}]), None, onlooker)
        fed = 0
        while fed < len(self.messages) and not (self.ended and fed >= self.upto):
            while self.lines:
                self.printer.line(self.lines.pop(0))
            while fed < min(self.upto, len(self.messages)):
                session = _take(encode(["m", self.messages[fed]]), session, onlooker)
                fed += 1
            await trio.sleep(0.01)
        while self.linger or self.lines:
            while self.lines:
                self.printer.line(self.lines.pop(0))
            await trio.sleep(0.01)
        assert session is not None
        return session.view


def watch_on(terminal: Terminal, feed: Feed, driver: Callable[[Send], Awaitable[None]]) -> Any:
    """``watch``'s live screen on ``terminal``, fed by ``feed``, while ``driver`` types (in a
    thread of its own: the screen runs in this one, as the command runs it); returns what
    :func:`live` returns."""
    failed: list[BaseException] = []
    with create_pipe_input() as keys:

        async def typing() -> None:
            try:
                await seen(terminal, r"watch>")
                await driver(keys.send_text)
            except BaseException as exc:
                failed.append(exc)
                keys.send_text("q")  # (the screen must not wait for a driver that gave up)

        typist = threading.Thread(target=asyncio.run, args=(typing(),), daemon=True)
        typist.start()
        session = live(
            feed.main,
            LiveScreen(feed.received, {"role": "watch"}, ascii_only=False),
            feed.listeners,
            feed.printer,
            input=keys,
            output=terminal.output(),
        )
        typist.join(10)
    if failed:
        raise failed[0]
    return session


@pytest.mark.parametrize("size", SIZES)
def test_a_live_watch_is_titled_watching_and_says_the_match_goes_on_until_its_result(
    size: tuple[int, int],
) -> None:
    terminal = Terminal(*size)
    feed = Feed("duel", upto=30)
    screens: dict[str, str] = {}

    async def driver(send: Send) -> None:
        await seen(terminal, r"the match goes on: waiting for the next move", r"checked so far")
        screens["during"] = await settled(terminal)
        feed.upto = len(feed.messages)  # the match goes on to its end
        await seen(terminal, r"the match is over: peer 1 \(p0\) wins", r" valid ")
        screens["after"] = await settled(terminal)
        send("q")

    session = watch_on(terminal, feed, driver)
    assert session is not None and session.outcome is not None
    during, after = screens["during"], screens["after"]
    status = "\n".join(during.splitlines()[:3])
    assert re.search(r"watching (The wizard duel|duel) live", status), status
    assert "replay" not in during, "a live watch is no replay"
    assert "the transcript ends here" not in during and "no result" not in during
    assert "the match goes on" in status and "checked so far" in status
    assert re.search(r"^watch>", during, re.MULTILINE)
    assert "the match goes on: waiting for the next move" in log_of(during)
    assert "peer 1 (p0) wins (knocked out)" in "\n".join(after.splitlines()[:3])
    assert "the match is over: peer 1 (p0) wins (knocked out)" in log_of(after)
    assert "the match goes on" not in after and " valid " in after


@pytest.mark.parametrize("size", SIZES)
def test_a_watch_cut_short_says_so_not_that_the_match_goes_on(size: tuple[int, int]) -> None:
    terminal = Terminal(*size)
    feed = Feed("magic-square", upto=40)
    screens: dict[str, str] = {}

    async def driver(send: Send) -> None:
        await seen(terminal, r"the match goes on")
        feed.ended = True  # the host goes away mid-match
        screens["cut"] = await seen(terminal, r"no result: the watching stopped")
        screens["cut"] = await settled(terminal)
        send("q")

    session = watch_on(terminal, feed, driver)
    assert session is not None and session.outcome is None
    text = screens["cut"]
    said = "the watching stopped here, before the match ended: nothing more came"
    assert said in log_of(text)
    assert "the match goes on" not in text and "no result: the watching stopped" in text


@pytest.mark.parametrize("size", SIZES)
def test_the_signatures_that_come_after_the_last_move_reach_the_live_screen(size: tuple[int, int]) -> None:
    # The signed results come in messages of their own, after the stage that ends the match: the
    # screen must be drawn again for them, and say the match is over, not that nobody signed it.
    terminal = Terminal(*size)
    kinds = [body[0] for body in (decode(raw)[5] for raw in Feed("duel", 0).messages)]
    assert kinds[-1] == "end"
    feed = Feed("duel", upto=len(kinds) - 1)  # all but the last signed result
    screens: dict[str, str] = {}

    async def driver(send: Send) -> None:
        screens["moved"] = await seen(terminal, r"to sign it", seconds=20)
        feed.upto, feed.ended = len(feed.messages), True  # the signatures, then the host goes
        screens["signed"] = await seen(terminal, r"the match is over: peer 1", seconds=20)
        screens["signed"] = await settled(terminal)
        send("q")

    watch_on(terminal, feed, driver)
    assert "waiting for" in log_of(screens["moved"])
    assert "never signed" not in screens["signed"] and "unconfirmed" not in screens["signed"]


@pytest.mark.parametrize("size", SIZES)
def test_the_watch_screen_shows_from_the_start_and_every_line_goes_through_it(size: tuple[int, int]) -> None:
    # The report: until the first move the spectator saw plain text lines, and a chat line came
    # as raw text after the prompt (the screen scrolled, the title was lost, stale characters
    # stayed until Ctrl-L).
    terminal = Terminal(*size)
    feed = Feed("duel", upto=0)
    feed.linger = True
    screens: dict[str, str] = {}

    async def driver(send: Send) -> None:
        screens["before"] = await seen(terminal, r"waiting for the match to begin", r"connecting to the host")
        screens["before"] = await settled(terminal)
        feed.say("Alice: good luck")
        screens["luck"] = await seen(terminal, r"Alice: good luck")
        feed.upto = 30
        await seen(terminal, r"the match goes on: waiting")
        feed.say("Bob: you too")
        screens["during"] = await seen(terminal, r"Bob: you too")
        screens["during"] = await settled(terminal)
        feed.upto = len(feed.messages)
        await seen(terminal, r"the match is over")
        feed.say("Alice: gg")
        screens["after"] = await seen(terminal, r"Alice: gg")
        screens["after"] = await settled(terminal)
        feed.linger = False
        send("q")

    watch_on(terminal, feed, driver)
    assert feed.out.getvalue() == "", "nothing is printed under the screen while it shows"
    before, during, after = screens["before"], screens["during"], screens["after"]
    assert re.search(r"watching a match live", before.splitlines()[0]), before
    assert re.search(r"^watch>", before, re.MULTILINE)
    assert "connecting to the host to watch" in log_of(before)
    assert "not begun yet" in "\n".join(before.splitlines()[:3])
    for text in (during, after):
        assert re.search(r"watching (The wizard duel|duel) live", text.splitlines()[0]), text
        assert re.search(r"^watch>", text, re.MULTILINE), "the prompt stays on its row"
    log = log_of(during)
    assert "Alice: good luck" in log_of(screens["luck"]) and "Bob: you too" in log
    assert log.index("Bob: you too") < log.index("the match goes on"), "what was said, then how it ends"
    assert "Alice: gg" in log_of(after) and "the match is over" in log_of(after)


def test_a_watching_that_ends_before_the_match_began_closes_the_screen_and_prints_what_it_said() -> None:
    terminal = Terminal(80, 24)
    feed = Feed("duel", upto=0)
    feed.ended = True  # the host closes before the deal
    feed.messages = feed.messages[:1]
    with create_pipe_input() as keys:
        screen = LiveScreen(feed.received, {"role": "watch"}, ascii_only=False)
        session = live(feed.main, screen, feed.listeners, feed.printer, input=keys, output=terminal.output())
    assert session is not None and session.game_name is None
    assert feed.out.getvalue() == "connecting to the host to watch\n"


@pytest.mark.parametrize("game", GAMES)
def test_the_log_names_the_players_beside_their_moves(game: str) -> None:
    report = verify(transcript(game))
    replay = Replay(dataclasses.replace(report, names=["Ann", "Bob"]))
    heads = [entry.head for entry in replay.entries[1:] if ": " in entry.head]
    assert heads, "steps with moves"
    assert all(re.search(r"(Ann|Bob) \(p\d\): ", head) for head in heads), heads[:3]
    assert not any(re.search(r"(^|  |; )p\d: ", head) for head in heads), "a name, not a seat alone"


def test_the_start_names_each_seats_player_as_the_log_does() -> None:
    report = verify(transcript("duel"))
    replay = Replay(dataclasses.replace(report, names=["Ann", "Bob"]))
    start = replay.entries[0]
    assert start.head == "the start" and start.lines[0].startswith("seats: "), start
    assert re.fullmatch(r"seats: (Ann|Bob) \(p0\), (Ann|Bob) \(p1\)", start.lines[0]), start.lines
