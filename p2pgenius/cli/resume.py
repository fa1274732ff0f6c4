"""``p2pgenius resume``: rebuild a match from its transcript and secrets, reconnect (a joiner to
its host; a host listens again on its address) and play on."""

from __future__ import annotations

import argparse
import datetime
import os
from pathlib import Path
from typing import TextIO

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.play import (
    Printer,
    held,
    identity_of,
    match_files,
    one_line,
    played,
)
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.local_files import TooLargeError, read_within
from p2pgenius.net.addresses import (
    connect,
    listen,
)
from p2pgenius.net.keystore import check_name
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.transcript import verify


def run_resume(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius resume [TRANSCRIPT]``: with ``--bot`` a bot plays on; without, the terminal
    UI. Without TRANSCRIPT, the unfinished match among this account's newest transcripts (or,
    if there are several, a list of them to choose from)."""
    printer = Printer(out, moves=True)
    named = [Path(p) for p in (args.path, args.transcript) if p is not None]
    if len(named) == 2 and named[0].resolve() != named[1].resolve():
        raise LocalMisuseError(
            "resume carries on in the match's own transcript: "
            f"{named[0]} or --transcript {named[1]}, not both"
        )
    if named:
        path = named[0]
    else:
        folder = match_files(None, "resume", None).transcript.parent
        newest = sorted(folder.glob("*.p2pt"), key=lambda p: p.stat().st_mtime, reverse=True)[:20]
        unfinished: list[tuple[Path, str]] = []
        live: list[tuple[Path, str]] = []
        for candidate in newest:
            if not candidate.with_suffix(".secrets").exists():
                continue
            try:
                report = verify(read_within(candidate))  # (a file too large is no match to resume)
            except (P2PGeniusError, OSError):
                continue
            if report.outcome is None and report.fault is None:
                playing = Files(candidate, candidate.with_suffix(".secrets")).live()
                (live if playing else unfinished).append((candidate, report.game or "a match"))
        if not unfinished:
            running = "".join(f"\n{found} ({game}): live, open in another process" for found, game in live)
            raise LocalMisuseError(
                f"no unfinished match among the newest transcripts in {folder} that is not being "
                f"played now: name one (p2pgenius resume PATH){running}"
            )
        if len(unfinished) > 1:
            listed = "\n".join(
                f"  p2pgenius resume {found}   ({game}, "
                f"{datetime.datetime.fromtimestamp(found.stat().st_mtime):%Y-%m-%d %H:%M})"
                for found, game in unfinished
            ) + "".join(f"\n  {found} ({game}): live, open in another process" for found, game in live)
            raise LocalMisuseError(f"{len(unfinished)} unfinished matches; choose one:\n{listed}")
        path = unfinished[0][0]
        printer.line(f"resuming {path} ({unfinished[0][1]})")
    if not os.path.lexists(path):  # (before the lock: a mistyped path leaves nothing behind)
        raise LocalMisuseError(f"cannot read {path}: there is no such file")
    secrets = path.with_suffix(".secrets")
    files = Files(path, secrets, Path(args.log) if args.log else None)
    with held(files):  # a match still played by another process is not taken over
        return _resume(args, printer, path, files)


def _resume(args: argparse.Namespace, printer: Printer, path: Path, files: Files) -> int:
    secrets = files.secrets
    try:
        # (Both were checked by the lock: this user's regular files, no links.)
        transcript, kept = read_within(path), read_within(secrets, what="secrets file")
    except OSError as exc:
        raise LocalMisuseError(f"cannot read {exc.filename}: {exc.strerror}") from None
    except TooLargeError as exc:
        raise P2PGeniusError(f"cannot resume {path}: {exc}") from None
    identity = identity_of(transcript)
    peer = Peer(
        identity,
        check_name(args.name) if args.name else identity.fingerprint[:9],
        files,
        BotDriver(args.bot, 3, delay=args.pace).decide,
        printer.event,
        printer.line,
        grace_s=args.grace,
        decide_ahead=args.bot is not None,
        settle_at_once=args.bot is not None,
    )
    meta = peer.resume(transcript, kept)
    host, _, port = str(meta.get("address", "")).rpartition(":")
    if not port.isdigit():
        raise LocalMisuseError("the transcript does not say where the match was played")
    host = host.strip("[]")

    async def main() -> None:
        if meta.get("role") == "host":
            peer.listener = (await listen(host, int(port))).listener
            peer.report_line(f"listening again on {meta['address']}; waiting for the others")
        else:

            async def again() -> trio.abc.Stream:
                return (await connect([(host, int(port))]))[0]

            peer.reconnect = again
            peer.report_line(f"reconnecting to {meta['address']}")
        async with peer:
            await peer.play()

    return played(args, peer, main, printer)


run = one_line(run_resume)
"""The command, its errors in one line."""
