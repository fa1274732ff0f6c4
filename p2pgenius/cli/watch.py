"""``p2pgenius watch``: a spectator of a match, live, checking every message as it comes.

The host must admit spectators (``host --spectators``, which every player saw in the lobby). The
moves are printed as they happen; the messages received are kept as a transcript (its header's
``me`` is nil: an observer's), which ``p2pgenius verify`` and ``replay`` read afterwards; at the
end the transcript is verified here too, and the verdict printed.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path
from typing import TextIO

import trio

from p2pgenius.canonical import encode
from p2pgenius.cli.play import Printer, first_error, target_of
from p2pgenius.errors import P2PGeniusError
from p2pgenius.net.addresses import connect
from p2pgenius.net.connection import PeerGoneError
from p2pgenius.net.keystore import check_name, config_dir, load_identity
from p2pgenius.net.spectators import watch
from p2pgenius.protocol.session import Event, Session
from p2pgenius.protocol.transcript import frame, header, verify


def transcript_path(args: argparse.Namespace) -> Path:
    """Where the watched match's transcript goes."""
    if args.transcript:
        return Path(args.transcript)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    return config_dir() / "matches" / f"{stamp}-watch.p2pt"


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Watch a match; returns 0 once it ended and its transcript verified."""
    target = target_of(args.address)
    identity = load_identity()[0]
    name = check_name(args.name) if args.name else identity.fingerprint[:9]
    printer = Printer(out, moves=True)
    path = transcript_path(args)
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    received: list[bytes] = []

    def on_event(session: Session, event: Event) -> None:
        printer.event(session, event)

    async def main() -> Session | None:
        printer.line(f"connecting to {target.what} to watch")
        stream, where = await connect(target.targets)
        printer.line(f"watching at {where}: every message is checked as it comes")
        return await watch(
            stream, identity, name, on_event, expect_key=target.key, on_message=received.append
        )

    try:
        try:
            session = trio.run(main)
        except BaseExceptionGroup as group:
            raise first_error(group) from None
    except (PeerGoneError, trio.TooSlowError) as exc:
        raise P2PGeniusError(str(exc) or "the host took too long") from None
    if session is None:
        printer.line("the match did not start")
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"role": "watch", "address": args.address, "date": started}
    records = b"".join(frame(encode(["msg", raw])) for raw in received)
    path.write_bytes(header(list(session.keys), None, **meta) + records)
    report = verify(path.read_bytes())
    printer.line(f"verified: {report.summary}")
    printer.line(f"transcript: {path}")
    return 0 if report.ok else 1
