"""``p2pgenius demo``: two peers on loopback, bots in every seat, a whole match over the real
protocol, then the transcript verified."""

from __future__ import annotations

import argparse
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
    printer = Printer(out, moves=True)
    code = 0
    for game in games:
        warm_now(game)  # (before the loop: see net/party.py)
        host, _guest = trio.run(demo_match, game, directory, printer)
        if finish(host, printer, personal=False) != 0:
            code = 1
            continue
        report = verify(host.files.transcript.read_bytes())
        printer.line(f"verified: {report.summary}")
        printer.line("")
        code |= 0 if report.ok else 1
    return code


run = one_line(run_demo)
"""The command, its errors in one line."""
