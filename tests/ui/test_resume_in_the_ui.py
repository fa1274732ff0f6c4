"""A person who leaves the terminal UI mid-match (or whose process dies) comes back with
`p2pgenius resume` in the UI and finishes the match: a bot host in another process waits for them."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import Any

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import verify
from p2pgenius.ui import bridge
from p2pgenius.ui.app import build
from p2pgenius.ui.table import TableScreen
from tests.net.test_processes import listening_port, spawn
from tests.patience import HANG_S

from .harness import until

CTRL_Q = "\x11"
ME = Identity.from_seed(b"\x07" * 32)


Driver = Callable[[TableScreen, Callable[[str], None]], Coroutine[Any, Any, None]]


def screen(table: TableScreen, main: Callable[[], Awaitable[None]], drive: Driver) -> None:
    async def run() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=DummyOutput())
            driver = asyncio.ensure_future(drive(table, keys.send_text))
            await asyncio.wait_for(bridge._main(table, app, main), HANG_S)
            driver.cancel()

    asyncio.run(run())


def person(tmp: Path, table: TableScreen) -> Peer:
    peer = Peer(
        ME,
        "ann",
        Files(tmp / "ann.p2pt", tmp / "ann.secrets"),
        table.adapter.decide,
        table.adapter.report,
        table.adapter.line,
        pin_dir=tmp / "pins",
    )
    table.adapter.peer = peer
    peer.confirm = table.adapter.confirm_lobby
    return peer


def test_leave_the_ui_then_resume_in_the_ui_and_finish(tmp_path: Path) -> None:
    host_out = tmp_path / "host.txt"
    host = spawn(
        tmp_path / "h",
        host_out,
        "host",
        "duel",
        "--port",
        "0",
        "--bot",
        "wizard",  # (the club level: the strongest would make this scripted duel long)
        "--fast",
        "--grace",
        "60",
        "--seat",
        "1",
        "--transcript",
        str(tmp_path / "host.p2pt"),
    )
    try:
        port = listening_port(host_out)
        gestures = itertools.cycle(["S D", "D S", "W W", "> S", "P W", "S W", "D D"])

        async def two_turns_then_leave(table: TableScreen, send: Callable[[str], None]) -> None:
            await until(lambda: table.adapter.lobby_answered is not None)
            send("y\r")
            for _ in range(2):
                await until(lambda: bool(table.state.asking))
                asked = dict(table.state.asking)
                send(next(gestures) + "\r")
                await until(lambda asked=asked: table.state.asking != asked)  # type: ignore[misc]
            send("say see you after the crash\r")
            await until(lambda: any("see you" in line for line in table.state.chat_lines))
            await asyncio.sleep(0.2)  # (on its way to the transcript)
            send(CTRL_Q)
            await until(lambda: table.input.leaving)
            send(CTRL_Q)

        first = TableScreen()
        peer = person(tmp_path, first)

        async def join() -> None:
            await peer.join(await trio.open_tcp_stream("127.0.0.1", port))

        screen(first, join, two_turns_then_leave)
        assert peer.session is not None and not peer.session.finished

        async def play_to_the_end(table: TableScreen, send: Callable[[str], None]) -> None:
            await until(lambda: bool(table.state.asking) or table.state.finished)
            resumed["names"] = table.text.names()
            resumed["log"] = list(table.state.log)
            resumed["chat"] = list(table.state.chat_lines)
            while not table.state.finished:
                await until(lambda: bool(table.state.asking) or table.state.finished)
                if table.state.finished:
                    break
                asked = dict(table.state.asking)
                send(next(gestures) + "\r")
                await until(lambda asked=asked: table.state.asking != asked or table.state.finished)  # type: ignore[misc]
            send(CTRL_Q)

        resumed: dict[str, Any] = {}
        before = list(first.state.log)
        again = TableScreen()
        back = person(tmp_path, again)
        back.resume((tmp_path / "ann.p2pt").read_bytes(), (tmp_path / "ann.secrets").read_bytes())
        back.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
        screen(again, back.play, play_to_the_end)
        assert again.state.result is not None
        assert host.wait(timeout=HANG_S) == 0, host_out.read_text()
        # Who is who, and what happened before the resume, come back with it.
        host_name = next(n for s, n in first.text.names().items() if s == 1)
        assert resumed["names"] == {0: "ann", 1: host_name} and "peer" not in host_name
        kept = [line for line in before if line.startswith(("seats ", "turn 1:", "turn 2:"))]
        assert kept and all(line in resumed["log"] for line in kept), (kept, resumed["log"])
        assert "-- resumed: the match goes on from here --" in resumed["log"]
        assert resumed["chat"] == ["ann: see you after the crash"]
    finally:
        host.kill()
    for path in (tmp_path / "ann.p2pt", tmp_path / "host.p2pt"):
        report = verify(path.read_bytes())
        assert report.ok, report.summary
