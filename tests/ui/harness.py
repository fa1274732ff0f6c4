"""Drive the terminal UI headless: prompt_toolkit's pipe input for keystrokes, a dummy output, the
real trio network layer as the UI's guest, and a bot peer on the other side of a loopback socket."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.ui import bridge
from p2pgenius.ui.app import build
from p2pgenius.ui.table import TableScreen
from tests.patience import HANG_S


def make_peer(
    tmp: Path,
    name: str,
    table: TableScreen | None,
    bots: BotDriver | None = None,
    heard: list[Any] | None = None,
) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    if table is not None:
        peer = Peer(
            Identity.generate(),
            name,
            files,
            table.adapter.decide,
            table.adapter.report,
            table.adapter.line,
            pin_dir=tmp / "pins" / name,
        )
        table.adapter.peer = peer
        peer.confirm = table.adapter.confirm_lobby
        return peer
    assert bots is not None
    heard = [] if heard is None else heard
    peer = Peer(
        Identity.generate(),
        name,
        files,
        bots.decide,
        lambda s, e: heard.append(e),
        lambda t: None,
        pin_dir=tmp / "pins" / name,
    )
    peer.heard = heard  # type: ignore[attr-defined]
    return peer


Driver = Callable[[TableScreen, Callable[[str], None]], Any]


@dataclass(frozen=True)
class Staging:
    """How :func:`play` stages its match beyond the game: whether the person's peer hosts
    (``ui_hosts``) and the ``seats`` it claims; the bot (its ``bot_level``, or a ``bot_driver`` of
    its own; with ``bot_settles``, its sealed choices stand at once, as the command line's bots'
    do; ``bot_heard`` collects the events it hears); whether the table ``linger``s after the end
    (for chat); the game's ``setup``; the screen's ``table`` and ``output`` (fresh ones if None)."""

    ui_hosts: bool = True
    seats: tuple[int, ...] = (0,)
    bot_level: str | None = None
    bot_driver: BotDriver | None = None
    bot_settles: bool = False
    bot_heard: list[Any] | None = None
    linger: bool = False
    setup: dict[str, Any] | None = None
    table: TableScreen | None = None
    output: Any = None


def play(
    tmp: Path, game: str, options: dict[str, Any], driver: Driver, staging: Staging | None = None
) -> tuple[TableScreen, Peer, Peer]:
    """A match between a person at the UI (typing what ``driver`` sends) and a bot, staged as
    ``staging`` says (by default: the person hosts and sits at p0, the bot plays at random)."""
    how = staging or Staging()
    table = how.table or TableScreen()
    person = make_peer(tmp, "person", table)
    bot = make_peer(tmp, "bot", None, how.bot_driver or BotDriver(how.bot_level, 5), how.bot_heard)
    bot.settle_at_once = how.bot_settles
    person.linger = bot.linger = how.linger  # (the table stays open for chat after the end)
    ui_hosts, seats = how.ui_hosts, how.seats
    host, guest = (person, bot) if ui_hosts else (bot, person)

    async def match() -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listeners[0],
                    game=game,
                    options=options,
                    setup=how.setup or {},
                    peers=2,
                    seats=seats if ui_hosts else (),
                )
            )
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            await guest.join(stream, seats=() if ui_hosts else seats)
        await listeners[0].aclose()

    async def main() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=how.output or DummyOutput())
            drive = asyncio.ensure_future(driver(table, keys.send_text))
            screen = asyncio.ensure_future(bridge._main(table, app, match))
            done, _ = await asyncio.wait([drive, screen], timeout=HANG_S, return_when=asyncio.FIRST_EXCEPTION)
            if drive in done and drive.exception() is not None:
                if app.is_running:
                    app.exit()
                await asyncio.wait([screen], timeout=10)
                said = f"{table.state.message!r}; log: {list(table.state.log)[-6:]}"
                raise AssertionError(f"the driver failed; the screen said: {said}") from drive.exception()
            if screen not in done:
                raise AssertionError(f"the UI did not finish; the screen said: {table.state.message!r}")
            screen.result()
            drive.cancel()

    asyncio.run(main())
    return table, person, bot


async def until(condition: Callable[[], bool], seconds: float = HANG_S) -> None:
    """Wait (on the asyncio loop, where the UI lives) until ``condition`` holds."""
    for _ in range(int(seconds / 0.005)):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("timed out waiting for the UI")
