"""``p2pgenius demo``: two peers on loopback, bots in every seat, a whole match over the real
protocol, then the transcript verified; every game's match at once, shown one after another."""

from __future__ import annotations

import argparse
import io
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TextIO

import trio

from p2pgenius.bots import demo_levels
from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.play import (
    Printer,
    finish,
    one_line,
)
from p2pgenius.games.registry import get_spec, names
from p2pgenius.net.keystore import config_dir
from p2pgenius.net.peer import Files, Peer, warm_now
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import verify


async def demo_match(
    game: str, directory: Path, printer: Printer, *, grace_s: float = 30.0, seed: int = 1
) -> tuple[Peer, Peer]:
    """Host and join on loopback, bots everywhere; returns both peers once the match is over."""
    pins = directory / "pins" / game
    host_level, guest_level = demo_levels(game)
    options = dict(get_spec(game).demo_options)
    quiet = Printer(printer.out, moves=False, prefix="  (guest) ")

    def make(name: str, bots: BotDriver, show: Printer) -> Peer:
        files = Files(directory / f"{game}-{name}.p2pt", directory / f"{game}-{name}.secrets")
        return Peer(
            Identity.generate(),
            name,
            files,
            bots.decide,
            show.event,
            show.line,
            grace_s=grace_s,
            pin_dir=pins / name,
            decide_early=True,
            settle_at_once=True,
        )

    host = make("host", BotDriver(host_level, seed), printer)
    guest = make("guest", BotDriver(guest_level, seed + 1), quiet)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    host.address = guest.address = f"127.0.0.1:{port}"
    guest.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
    printer.line(f"{game}: host listening on 127.0.0.1:{port}; guest connecting")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host.host(listeners[0], game=game, options=options, setup={}, peers=2))
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        nursery.start_soon(guest.join, stream)
    await listeners[0].aclose()
    return host, guest


def run_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius demo``."""
    games: Sequence[str] = [args.game] if args.game else names()
    home = config_dir() / "demo"
    home.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix="match-", dir=home))
    for game in games:
        warm_now(game)  # (before the loop: see net/party.py)
    return trio.run(demo_matches, games, directory, Printer(out, moves=True))


async def demo_matches(games: Sequence[str], directory: Path, printer: Printer) -> int:
    """Play every game's match at once, so that the bots of all of them think on every core, and
    show them one after another as the command always has: the first as it happens, each next one
    from what it printed meanwhile, once the one before it is over. Returns the exit code."""
    shown = [printer] + [Printer(io.StringIO(), moves=True) for _ in games[1:]]
    over = [trio.Event() for _ in games]
    hosts: dict[int, Peer] = {}

    async def play(index: int, game: str) -> None:
        hosts[index], _guest = await demo_match(game, directory, shown[index])
        over[index].set()

    code = 0
    async with trio.open_nursery() as nursery:
        for index, game in enumerate(games):
            nursery.start_soon(play, index, game)
        for index, later in enumerate(shown):
            await over[index].wait()
            if later is not printer:
                assert isinstance(later.out, io.StringIO)
                printer.out.write(later.out.getvalue())
            code |= _told(hosts[index], printer)
    return code


def _told(host: Peer, printer: Printer) -> int:
    """The result of one match and its transcript's verification, printed; the exit code."""
    if finish(host, printer, personal=False) != 0:
        return 1
    report = verify(host.files.transcript.read_bytes())
    printer.line(f"verified: {report.summary}")
    printer.line("")
    return 0 if report.ok else 1


run = one_line(run_demo)
"""The command, its errors in one line."""
