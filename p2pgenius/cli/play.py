"""``p2pgenius host``, ``join``, ``resume`` and ``demo``: networked matches.

With ``--bot`` a bot plays the peer's seats and moves are printed; without it, ``host`` and ``join``
open the terminal UI (``p2pgenius.ui``), imported only then.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import trio

from p2pgenius import wording
from p2pgenius.bots import demo_levels, level_of
from p2pgenius.bots.driver import BotDriver
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import get_spec, names
from p2pgenius.net.keystore import account_identities, check_name, claim_identity, config_dir, load_identity
from p2pgenius.net.peer import Files, Peer, PeerGoneError
from p2pgenius.protocol.events import Event
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import records as read_records
from p2pgenius.protocol.transcript import verify


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT or [IPv6]:PORT."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise LocalMisuseError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def match_files(path: str | None, label: str, log: str | None) -> Files:
    """The transcript, secrets and log paths for a match."""
    if path is None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        transcript = config_dir() / "matches" / f"{stamp}-{label}.p2pt"
    else:
        transcript = Path(path)
    return Files(transcript, transcript.with_suffix(".secrets"), Path(log) if log else None)


class Printer:
    """Prints what happens, as it happens."""

    SHOWN = (wording.CHAT, wording.REFUSED, wording.FAULT)
    """What is printed always; with ``moves``, the seats and the moves too."""

    def __init__(self, out: TextIO, *, moves: bool, prefix: str = "") -> None:
        self.out = out
        self.moves = moves
        self.prefix = prefix

    def line(self, text: str) -> None:
        """One line of output (control characters from peers never reach the terminal)."""
        self.out.write(f"{self.prefix}{wording.printable(text)}\n")
        self.out.flush()

    def event(self, session: Session, event: Event) -> None:
        """Show a session event."""
        for told in wording.tell(session, event):
            if told.kind in self.SHOWN or (self.moves and told.kind == wording.SEATS):
                self.line(told.text)
            elif self.moves and told.kind == wording.MOVE:
                self.line(f"  {told.text}")


def finish(peer: Peer, printer: Printer) -> int:
    """Print the result of a finished peer; returns the exit code."""
    session = peer.session
    if session is None:
        printer.line("the match did not start")
        return 1
    if session.outcome is None and session.fault is None:
        printer.line(f"the match did not finish; carry on with: p2pgenius resume {peer.files.transcript}")
        return 1
    if session.fault is not None:
        printer.line(f"the match stopped: {session.fault.reason}")
        printer.line(f"transcript (evidence): {peer.files.transcript}")
        return 1
    assert session.outcome is not None
    printer.line(f"result: {wording.outcome_words(session.outcome.to_plain())}")
    printer.line(f"transcript: {peer.files.transcript}")
    return 0


def match_options(args: argparse.Namespace) -> dict[str, Any]:
    """The game options from ``--fast`` and ``--option KEY=SECONDS`` (the game's time options);
    ``fast`` is an option of games whose moves are sealed, and bots play them fast."""
    spec = get_spec(args.game)
    allowed = [option.name for option in spec.time_options]
    options: dict[str, Any] = {}
    for text in args.option:
        key, sep, value = text.partition("=")
        if key not in allowed or not sep:
            takes = ", ".join(allowed) if allowed else "no time options"
            raise LocalMisuseError(f"--option {text!r}: {args.game} takes {takes} (KEY=SECONDS)")
        if not value.isdigit() or int(value) <= 0:
            raise LocalMisuseError(f"--option {text!r}: the seconds must be a positive whole number")
        options[key] = int(value)
    fast = args.fast if args.fast is not None else args.bot is not None
    if spec.sealed:
        options["fast"] = bool(fast)
    elif args.fast:
        sealed = " or ".join(name for name in names() if get_spec(name).sealed) or "sealed-move game's"
        raise LocalMisuseError(f"--fast is a {sealed} option")
    return options


def check_level(game: str | None, level: str | None) -> None:
    """Refuse a bot level ``game`` does not have (before anything connects)."""
    if game is not None and level:
        level_of(game, level)


def identity_of(transcript: bytes) -> Identity:
    """The account identity a transcript was played with (the account's own key, or the key of
    a second process of the account); the account's own key if none matches."""
    try:
        meta = next(iter(read_records(transcript)))[2]
        wanted = meta["peers"][meta["me"]]
    except (P2PGeniusError, StopIteration, LookupError, TypeError):
        wanted = None
    return next((i for i in account_identities() if i.public == wanted), load_identity()[0])


def make_peer(args: argparse.Namespace, label: str, seed: int, printer: Printer) -> Peer:
    """The peer for ``host`` or ``join``: bots at its seats (``--bot``) or, for now, a printer."""
    identity, _, number = claim_identity()
    if number:
        printer.line(
            f"another p2pgenius of this account is playing: this one plays as the account's "
            f"process {number} key, {identity.fingerprint}"
        )
    return Peer(
        identity,
        check_name(args.name) if args.name else identity.fingerprint[:9],
        match_files(args.transcript, label, args.log),
        BotDriver(args.bot, seed).decide,
        printer.event,
        printer.line,
        grace_s=args.grace,
    )


def run_host(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius host``."""
    check_level(args.game, args.bot)
    get_spec(args.game).seat_groups(args.peers)  # refuses a number of peers the game is not for
    options = match_options(args)
    printer = Printer(out, moves=True)
    peer = make_peer(args, f"{args.game}-host", 1, printer)

    async def main() -> None:
        listeners = await trio.open_tcp_listeners(args.port, host=args.bind)
        address = listeners[0].socket.getsockname()
        host = f"[{address[0]}]" if ":" in address[0] else address[0]
        peer.report_line(f"listening on {host}:{address[1]}")
        peer.address = f"{host}:{address[1]}"
        peer.report_line(f"fingerprint: {peer.identity.fingerprint}")
        await peer.host(
            listeners[0],
            game=args.game,
            options=options,
            setup={},
            peers=args.peers,
            seats=args.seat,
        )

    if args.bot is None:
        return in_terminal(args, peer, main, printer)
    trio.run(main)
    return finish(peer, printer)


def run_join(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius join``."""
    address, port = parse_address(args.address)
    printer = Printer(out, moves=True)
    peer = make_peer(args, "join", 2, printer)
    peer.address = args.address
    peer.reconnect = partial(trio.open_tcp_stream, address, port)

    async def main() -> None:
        try:
            stream = await trio.open_tcp_stream(address, port)
        except OSError as exc:
            raise PeerGoneError(f"cannot connect to {args.address}: {exc.strerror or exc}") from None
        await peer.join(stream, seats=args.seat)

    if args.bot is None:
        return in_terminal(args, peer, main, printer)
    trio.run(main)
    return finish(peer, printer)


def in_terminal(args: argparse.Namespace, peer: Peer, main: Any, printer: Printer) -> int:
    """Play ``peer``'s match in the full-screen terminal UI; afterwards print the result."""
    # Imported here: prompt_toolkit costs start-up time that bot and demo runs do not need.
    from p2pgenius.ui.app import build  # noqa: PLC0415
    from p2pgenius.ui.bridge import run as run_ui  # noqa: PLC0415
    from p2pgenius.ui.table import Table  # noqa: PLC0415

    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise LocalMisuseError("the terminal UI needs a terminal: run it in one, or add --bot")
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    table = Table(
        ascii_only=args.ascii or encoding != "utf8",
        hints=args.hints,
        partner_level=args.partner,
        game=getattr(args, "game", None),
    )
    table.peer = peer
    peer.decide, peer.report, peer.say = table.decide, table.report, table.line
    peer.confirm = table.confirm_lobby
    run_ui(table, build(table), main)
    return finish(peer, printer)


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
        host, _guest = trio.run(demo_match, game, directory, printer)
        if finish(host, printer) != 0:
            code = 1
            continue
        report = verify(host.files.transcript.read_bytes())
        printer.line(f"verified: {report.summary}")
        printer.line("")
        code |= 0 if report.ok else 1
    return code


def run_resume(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius resume TRANSCRIPT``: with ``--bot`` a bot plays on; without, the terminal UI."""
    path = Path(args.transcript)
    secrets = path.with_suffix(".secrets")
    try:
        transcript, kept = path.read_bytes(), secrets.read_bytes()
    except OSError as exc:
        raise LocalMisuseError(f"cannot read {exc.filename}: {exc.strerror}") from None
    identity = identity_of(transcript)
    printer = Printer(out, moves=True)
    peer = Peer(
        identity,
        check_name(args.name) if args.name else identity.fingerprint[:9],
        Files(path, secrets, Path(args.log) if args.log else None),
        BotDriver(args.bot, 3).decide,
        printer.event,
        printer.line,
        grace_s=args.grace,
    )
    meta = peer.resume(transcript, kept)
    host, _, port = str(meta.get("address", "")).rpartition(":")
    if not port.isdigit():
        raise LocalMisuseError("the transcript does not say where the match was played")
    host = host.strip("[]")

    async def main() -> None:
        if meta.get("role") == "host":
            listeners = await trio.open_tcp_listeners(int(port), host=host)
            peer.report_line(f"listening again on {meta['address']}; waiting for the others")
            peer.listener = listeners[0]
        else:
            peer.reconnect = partial(trio.open_tcp_stream, host, int(port))
            peer.report_line(f"reconnecting to {meta['address']}")
        await peer.play()

    if args.bot is None:
        return in_terminal(args, peer, main, printer)
    trio.run(main)
    return finish(peer, printer)


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Dispatch ``host``, ``join``, ``resume`` or ``demo``; errors from inside trio come out as
    one line."""
    try:
        try:
            if args.command == "host":
                return run_host(args, out)
            if args.command == "join":
                return run_join(args, out)
            if args.command == "resume":
                return run_resume(args, out)
            return run_demo(args, out)
        except BaseExceptionGroup as group:
            raise first_error(group) from None
    except (PeerGoneError, trio.TooSlowError) as exc:
        raise P2PGeniusError(str(exc) or "the peer took too long") from None
    except BrokenPipeError:
        if args.command == "demo":
            raise  # nothing was at stake: quietly done
        raise P2PGeniusError(
            "the output closed mid-match; the transcript is kept: carry on with p2pgenius resume"
        ) from None


def first_error(group: BaseExceptionGroup[Any]) -> BaseException:
    """The first error worth showing in a group raised by a nursery."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return first_error(exc)
        if isinstance(exc, P2PGeniusError):
            return exc
        if isinstance(exc, BrokenPipeError):
            return exc  # the reader went away (``| head``): see ``run``
        if isinstance(exc, (OSError, trio.TooSlowError)):
            return P2PGeniusError(str(exc) or "the peer took too long")
        if isinstance(exc, KeyboardInterrupt):
            return exc
    return group.exceptions[0]
