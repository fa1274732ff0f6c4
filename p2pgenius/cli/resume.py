"""``p2pgenius resume``: rebuild a match from its transcript and secrets, reconnect (a joiner to
its host; a host listens again on its address) and play on."""

from __future__ import annotations

import argparse
import datetime
import os
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TextIO

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.correspondence import run_resume_mail
from p2pgenius.cli.host import door
from p2pgenius.cli.play import (
    Printer,
    ask_number,
    finish,
    held,
    identity_of,
    match_files,
    one_line,
    played,
)
from p2pgenius.cli.terminal import interactive
from p2pgenius.cli.versus import resume_play
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.local_files import TooLargeError, bots_table, read_within
from p2pgenius.net import DEFAULT_GRACE_S, transit
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.addresses import listen
from p2pgenius.net.invite import Invite
from p2pgenius.net.keystore import check_name
from p2pgenius.net.lobby import DeclinedError
from p2pgenius.net.mail_state import OVER, load, state_path
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.transcript import read_header, verify


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
    path = named[0] if named else unfinished_one(printer)
    if state_path(path).exists():
        return run_resume_mail(args, path, out)
    if not os.path.lexists(path):  # (before the lock: a mistyped path leaves nothing behind)
        raise LocalMisuseError(f"cannot read {path}: there is no such file")
    is_transcript(path)  # (before the lock too: nothing is made beside a file that is no match's)
    secrets = path.with_suffix(".secrets")
    files = Files(path, secrets, Path(args.log) if args.log else None)
    with held(files):  # a match still played by another process is not taken over
        return _resume(args, printer, path, files)


def is_transcript(path: Path) -> None:
    """Refuse, in one line, a file that is not a match's transcript (``resume /etc/passwd``)."""
    try:
        read_header(read_within(path))
    except OSError as exc:
        raise LocalMisuseError(f"cannot read {path}: {exc.strerror}") from None
    except TooLargeError as exc:
        raise P2PGeniusError(f"cannot resume {path}: {exc}") from None
    except P2PGeniusError:
        raise LocalMisuseError(
            f"{path} is not a match's transcript: name the .p2pt file a match wrote "
            "(p2pgenius games lists them)"
        ) from None


def unfinished_one(printer: Printer) -> Path:
    """The one unfinished match among this account's newest transcripts and its matches by
    correspondence (LocalMisuseError listing them, if there are several, or saying why none)."""
    folder = match_files(None, "resume", None).transcript.parent
    newest = sorted(folder.glob("*.p2pt"), key=lambda p: p.stat().st_mtime, reverse=True)[:20]
    unfinished: list[tuple[Path, str]] = by_mail(folder)
    live: list[tuple[Path, str]] = []
    for candidate in newest:
        if state_path(candidate).exists() or not candidate.with_suffix(".secrets").exists():
            continue  # (by correspondence: listed above; or no secrets: nothing to resume)
        try:
            report = verify(read_within(candidate))  # (a file too large is no match to resume)
        except (P2PGeniusError, OSError):
            continue
        if report.outcome is None and report.fault is None:
            playing = Files(candidate, candidate.with_suffix(".secrets")).live()
            (live if playing else unfinished).append((candidate, report.game or "a match"))
    if not unfinished:
        raise LocalMisuseError(nothing_to_resume(folder, live))
    unfinished.sort(key=lambda found: _changed(found[0]), reverse=True)  # (newest first, as games)
    if len(unfinished) > 1 and interactive():
        return choose(unfinished, live, printer)
    if len(unfinished) > 1:
        listed = "\n".join(
            f"  p2pgenius resume {found}   ({game}, {_changed(found):%Y-%m-%d %H:%M})"
            for found, game in unfinished
        ) + "".join(f"\n  {found} ({game}): live, open in another process" for found, game in live)
        raise LocalMisuseError(f"{len(unfinished)} unfinished matches; choose one:\n{listed}")
    path = unfinished[0][0]
    printer.line(f"resuming {path} ({unfinished[0][1]})")
    return path


def choose(unfinished: list[tuple[Path, str]], live: list[tuple[Path, str]], printer: Printer) -> Path:
    """Several unfinished matches and a person to ask: which to carry on (``q`` or the end of
    input: none, and nothing is done)."""
    printer.line(f"{len(unfinished)} unfinished matches:")
    for number, (found, game) in enumerate(unfinished, 1):
        printer.line(f"  {number}. {game}, {_changed(found):%Y-%m-%d %H:%M}  {found.name}")
    for found, game in live:
        printer.line(f"  (live, open in another process: {found.name}, {game})")
    names = [found.name for found, _ in unfinished]
    chosen = ask_number(printer.out, f"Which one? 1 to {len(unfinished)} (q: none): ", names)
    if chosen is None:
        raise DeclinedError("nothing resumed")
    path, game = unfinished[chosen]
    printer.line(f"resuming {path} ({game})")
    return path


def _changed(path: Path) -> datetime.datetime:
    """When a match last changed: its transcript, or (a correspondence match still in its lobby)
    its state."""
    kept = path if path.exists() else state_path(path)
    return datetime.datetime.fromtimestamp(kept.stat().st_mtime)


def by_mail(folder: Path) -> list[tuple[Path, str]]:
    """The correspondence matches in ``folder`` that are not over (their transcripts, whether
    they exist yet or not, and their games in words)."""
    found: list[tuple[Path, str]] = []
    for kept in sorted(folder.glob("*.p2pt.mail")) if folder.is_dir() else ():
        transcript = kept.with_name(kept.name[: -len(".mail")])
        try:
            state = load(transcript)
        except LocalMisuseError:
            continue
        if state is not None and state.phase != OVER:
            told = f"; {state.next.words}" if state.next.words else ""  # (whose move: as last left)
            found.append((transcript, f"{state.game or 'a match'} by correspondence{told}"))
    return found


def nothing_to_resume(folder: Path, live: list[tuple[Path, str]]) -> str:
    """Why ``resume`` without a path takes no match: none is unfinished, or each unfinished one
    (``live``: its transcript and game) is being played now in another process."""
    if not live:
        return (
            f"no unfinished match among the newest transcripts in {folder} (to resume an older "
            "one, name it: p2pgenius resume PATH)"
        )
    where = "".join(f"\n  {found} ({game})" for found, game in live)
    if len(live) == 1:
        return (
            "the only unfinished match is being played now, in another p2pgenius process: carry "
            f"on there (resume takes it up once that process has stopped):{where}"
        )
    return f"every unfinished match is being played now, each in another p2pgenius process:{where}"


def _resume(args: argparse.Namespace, printer: Printer, path: Path, files: Files) -> int:
    peer, main = prepared(args, printer, path, files)
    session = peer.view
    if session is not None and (session.finished or session.fault is not None):
        # (Nothing is owed: no door to open again, nobody to wait for; the result as it ended.)
        printer.line(f"this match is over; there is nothing to carry on: {path}")
        return finish(peer, printer)
    if bots_table(path).exists():  # (a match against bots: they come back too)
        return resume_play(args, peer, printer)
    return played(args, peer, main, printer)


def prepared(
    args: argparse.Namespace, printer: Printer, path: Path, files: Files
) -> tuple[Peer, Callable[[], Awaitable[None]]]:
    """The peer read back from the match's files (held by this process), and what plays it on
    (a test runs it inside its own trio run)."""
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
        grace_s=args.grace if args.grace is not None else DEFAULT_GRACE_S,
        decide_early=args.bot is not None,
        settle_at_once=args.bot is not None,
    )
    meta = peer.resume(transcript, kept)
    host, _, port = str(meta.get("address", "")).rpartition(":")
    if not port.isdigit():
        raise LocalMisuseError("the transcript does not say where the match was played")
    host = host.strip("[]")
    invite = saved_invite(files)
    if invite is not None and invite.key != peer.session.keys[0]:  # type: ignore[union-attr]
        invite = None  # (another match's invite: this match's host is the one to find)
    return peer, partial(_rejoin, peer, meta, (host, int(port)), invite)


async def _rejoin(
    peer: Peer, meta: dict[str, object], address: tuple[str, int], invite: Invite | None
) -> None:
    """Open the door again (a host: its address and the invite's relays) or find the host again
    (a joiner: the address it played at, then the invite's other addresses and relays), and play
    on."""
    async with trio.open_nursery() as nursery:
        if meta.get("role") == "host":
            listener = (await listen(*address)).listener
            entrance = door(listener, invite or _bare(peer), peer.say)
            nursery.start_soon(entrance.run)
            peer.listener = entrance
            peer.say(f"listening again on {meta['address']}; waiting for the others")
        else:
            way = way_back(meta, address, invite)
            relays = way.relays

            async def again() -> trio.abc.Stream:
                return (await way.reach())[0]

            peer.reconnect = again
            through = f" (or through {', '.join(map(transit.relay_label, relays))})" if relays else ""
            peer.say(f"reconnecting to {meta['address']}{through}")
        try:
            async with peer:
                await peer.play()
        finally:
            nursery.cancel_scope.cancel()
            if peer.listener is not None:
                with trio.CancelScope(shield=True):
                    await peer.listener.aclose()


def way_back(meta: Mapping[str, object], address: tuple[str, int], invite: Invite | None) -> transit.Way:
    """A joiner's way back to its host, from its files alone: the address it played at, then the
    invite's other addresses and its relays (the invite kept beside the transcript, privately: it
    holds the seat token the relays are called with). One that came through a relay (the header's
    ``relay``) calls there at once, as it came, not after the direct routes' head start."""
    targets = [address] + [t for t in (invite.targets() if invite else []) if t != address]
    relays = invite.relays if invite is not None else ()
    token = transit.relay_token(invite.key, invite.token) if invite and invite.relays else None
    came = meta.get("relay")
    head_start = 0.0 if isinstance(came, str) and came else transit.HEAD_START_S
    return transit.Way(targets, relays, token, head_start_s=head_start)


def saved_invite(files: Files) -> Invite | None:
    """The invite kept beside the transcript (a host's own, or the one a joiner used), if any is
    there and reads: where the host waits for its players at relays, and its other addresses."""
    try:
        text = read_within(files.invite, limit=4096, what="invite").decode("ascii", "replace")
        return invite_codec.parse_live(text.split()[-1])
    except (OSError, TooLargeError, IndexError, invite_codec.InviteError):
        return None


def _bare(peer: Peer) -> Invite:
    """An invite with no relays for a host whose invite is gone (it listens, and nothing more)."""
    assert peer.session is not None
    return Invite(peer.session.keys[0], 1, ("127.0.0.1",))


run = one_line(run_resume)
"""The command, its errors in one line."""
