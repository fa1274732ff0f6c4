"""``host --correspondence``, ``join`` with a correspondence invite and ``resume`` of such a match:
each runs one *visit* (:mod:`p2pgenius.net.correspondence`): it reads what arrived on the match's
Nostr relays, plays (a bot, or the person in plain lines), sends what this side owes, prints one
line (``sent to 3 of 3 relays; ann's move next (deadline Tue 18:00)``) and ends; ``--stay`` keeps
it reading until the match is over.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import sys
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Final, TextIO

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.commands import MAIL_GRACE_S
from p2pgenius.cli.play import Printer, check_level, listed_setting, match_files
from p2pgenius.cli.terminal import error
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.registry import get_spec
from p2pgenius.local_files import PRIVATE, replace
from p2pgenius.net.correspondence import (
    POLL_S,
    Carrier,
    Decide,
    Offer,
    Visit,
    Watch,
    joined,
    limits_words,
    new_table,
)
from p2pgenius.net.files import Files
from p2pgenius.net.invite import MAX_MAIL_RELAYS, MailInvite, relay_url_problem
from p2pgenius.net.invite import parse as parse_invite
from p2pgenius.net.keystore import account_identities, check_name, config_dir
from p2pgenius.net.mail_state import OVER, MailState, load, state_path
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.mailbox import Mailbox
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.transcript import verify
from p2pgenius.wording import printable

DEFAULT_MAILBOXES: Final = ("wss://relay.damus.io", "wss://nos.lol", "wss://relay.primal.net")
"""Well-known public relays, used when neither ``--mailbox``, ``$P2PGENIUS_MAILBOX`` nor the
``mailboxes`` file names any."""
MAILBOX_VARIABLE: Final = "P2PGENIUS_MAILBOX"
MAILBOXES_FILE: Final = "mailboxes"


def chosen_mailboxes(args: argparse.Namespace) -> list[str]:
    """The relays of a correspondence match: ``--mailbox`` (repeated), else ``$P2PGENIUS_MAILBOX``
    (separated by commas or spaces), else the config directory's ``mailboxes`` file (one URL a
    line, ``#`` comments), else :data:`DEFAULT_MAILBOXES`."""
    found = listed_setting(
        getattr(args, "mailbox", None), "--mailbox", MAILBOX_VARIABLE, MAILBOXES_FILE, "mailboxes file"
    )
    if found is None:
        return list(DEFAULT_MAILBOXES)
    given, where = found
    relays = list(dict.fromkeys(given))
    for url in relays:
        if (problem := relay_url_problem(url)) is not None:
            raise LocalMisuseError(f"{where}: the relay {printable(url)!r} {problem}")
    if not 0 < len(relays) <= MAX_MAIL_RELAYS:
        raise LocalMisuseError(f"{where}: 1 to {MAX_MAIL_RELAYS} relays, not {len(relays)}")
    return relays


def _relays(count: int) -> str:
    return f"{count} relay" if count == 1 else f"{count} relays"


def mail_options(args: argparse.Namespace, options: dict[str, Any]) -> dict[str, Any]:
    """The match's options by correspondence: every time limit not given takes its default by
    mail (days), and a game of sealed choices resolves each stage once every choice is in (a
    stage that waited out its whole two days would cost every player a visit more)."""
    spec = get_spec(args.game)
    out = dict(options)
    for option in spec.time_options:
        out.setdefault(option.name, option.by_mail)
    if spec.sealed:
        if args.fast is False:
            raise LocalMisuseError("--no-fast: by correspondence a turn resolves once every choice is in")
        out["fast"] = True
    return out


def grace(args: argparse.Namespace, state: MailState) -> float:
    """The grace period of this visit: ``--grace`` if given (kept for the visits after), else
    what this side chose when it hosted or joined, else a day."""
    if args.grace is not None:
        state.grace = float(args.grace)
    return _kept_grace(state)


def _kept_grace(state: MailState) -> float:
    """The grace period this side keeps: what it chose (``--grace``, on any visit), else a day."""
    return state.grace or float(MAIL_GRACE_S)


def run_host_mail(args: argparse.Namespace, options: dict[str, Any], out: TextIO) -> int:
    """``p2pgenius host GAME --correspondence``: the invite, then the first visit (it posts the
    table)."""
    check_level(args.game, args.bot)
    relays = chosen_mailboxes(args)
    identity = account_identities()[0]
    name = check_name(args.name) if args.name else identity.fingerprint[:9]
    files = match_files(args.transcript, f"{args.game}-mail", None)
    files.lock()  # (its folder made, private; held until the visit ends)
    path = files.transcript
    if path.exists() or state_path(path).exists():
        raise LocalMisuseError(f"{path} holds a match already: name another --transcript")
    offer = Offer(args.game, mail_options(args, options), args.peers, args.seat or (), bool(args.spectators))
    state = new_table(identity, name, offer, relays)
    state.save(path)
    invite = parse_invite(state.invite)
    printer = Printer(out, moves=True)
    limits = limits_words(args.game, offer.options)
    printer.line(
        f"a {args.game} match by correspondence{limits}, through {_relays(len(relays))}: {', '.join(relays)}"
    )
    printer.line(f"fingerprint: {identity.fingerprint}")
    printer.line("invite, to send to whoever joins (it carries the relays, this host's key and the mailbox):")
    printer.line(f"  p2pgenius join {invite}")
    if args.spectators and isinstance(invite, MailInvite):
        printer.line(f"spectators follow it with: p2pgenius watch {invite.for_spectators()}")
    with contextlib.suppress(OSError):  # (printed above: the file only helps copying it)
        replace(files.invite, f"p2pgenius join {invite}\n".encode(), PRIVATE)
    return visit(args, out, files, state, printer)


def run_join_mail(args: argparse.Namespace, invite: MailInvite, out: TextIO) -> int:
    """``p2pgenius join`` with a correspondence invite: say we are ready (the first visit)."""
    if not invite.seats:
        raise LocalMisuseError("this invite only lets its holder watch the match: p2pgenius watch INVITE")
    own = list(getattr(args, "mailbox", None) or [])
    for url in own:
        if (problem := relay_url_problem(url)) is not None:
            raise LocalMisuseError(f"--mailbox: the relay {printable(url)!r} {problem}")
    files = match_files(args.transcript, "mail-join", None)
    files.lock()  # (its folder made, private; held until the visit ends)
    path = files.transcript
    if path.exists() or state_path(path).exists():
        raise LocalMisuseError(f"{path} holds a match already: name another --transcript")
    state = joined(invite, relays=own, claim=args.seat or ())
    state.identity = _identity_for(invite)
    state.save(path)
    printer = Printer(out, moves=True)
    printer.line(
        f"joining {invite.fingerprint}'s match by correspondence, through {_relays(len(state.relays))}"
    )
    return visit(args, out, files, state, printer)


def _identity_for(invite: MailInvite) -> int:
    """Which of the account's identities joins: its own key, unless the account hosts the match
    itself or already joined it (a player trying both sides on one account), then the next."""
    keys = [identity.public for identity in account_identities()]
    taken = {invite.key}
    folder = config_dir() / "matches"
    for other in folder.glob("*.mail") if folder.is_dir() else ():
        try:
            state = load(Path(str(other)[: -len(".mail")]))
        except LocalMisuseError:
            continue
        if state is not None and state.role == "join" and state.invite == invite.text():
            taken.add(keys[state.identity] if state.identity < len(keys) else b"")
    for number, key in enumerate(keys):
        if key not in taken:
            return number
    raise LocalMisuseError("every identity of this account is at this table already")


def run_resume_mail(args: argparse.Namespace, path: Path, out: TextIO) -> int:
    """``p2pgenius resume`` of a correspondence match: one visit (``--stay``: until the end)."""
    state = load(path)
    if state is None:
        raise LocalMisuseError(f"{path} is not a correspondence match")
    return visit(args, out, Files(path, path.with_suffix(".secrets")), state, Printer(out, moves=True))


def visit(args: argparse.Namespace, out: TextIO, files: Files, state: MailState, printer: Printer) -> int:
    """One visit of the match whose files are ``files`` (held meanwhile: one process a match),
    then its line."""
    files.lock()
    try:
        return _visit(args, out, files, state, printer)
    finally:
        files.close()
        files.release()


def _visit(args: argparse.Namespace, out: TextIO, files: Files, state: MailState, printer: Printer) -> int:
    path = files.transcript
    identities = account_identities()
    if state.identity >= len(identities):
        raise LocalMisuseError(f"{state_path(path)} names an identity this account does not have")
    identity: Identity = identities[state.identity]
    invite = parse_invite(state.invite)
    if not isinstance(invite, MailInvite):
        raise LocalMisuseError(f"{state_path(path)} does not hold a correspondence invite")
    if state.phase == OVER:
        printer.line(f"this match is over: {state.result or state.next.words}")
        return 0
    decide: Decide
    unasked: Callable[[], bool] = _nothing_typed  # (a person's, at a terminal: discards what was typed)
    if args.bot is not None:
        check_level(state.game or None, args.bot)
        # A visit's bot is made afresh: seeded afresh too (one seed every visit would make it
        # choose as it did on the last, turn after turn).
        decide = BotDriver(args.bot, secrets.randbits(31), delay=args.pace).decide
    else:
        from p2pgenius.ui.prompt import LinePrompt, discard_unasked  # noqa: PLC0415

        printer.named = True  # (a person reads the moves by its players' names, as the board says them)
        typed = sys.stdin.isatty()  # (the UI's line prompt: only for a person)
        unasked = partial(discard_unasked, sys.stdin.fileno()) if typed else _nothing_typed
        decide = LinePrompt(
            out,
            ascii_only=bool(getattr(args, "ascii", False)),
            echo=not typed,
            unasked=unasked,
            memory=partial(memory_of, path),
        ).decide
    name = check_name(args.name) if args.name else identity.fingerprint[:9]
    carrier = Carrier(identity, Mailbox(invite.mailbox), state.relays)
    kept = _kept_grace(state)  # (the grace in force while this side was away: before --grace)
    trip = Visit(carrier, files, state, name, decide, printer.event, printer.line, grace(args, state))
    trip.away_grace_s = kept
    try:
        trio.run(lambda: trip.run(stay=bool(getattr(args, "stay", False))))
    except KeyboardInterrupt:  # (what was signed is written before it is sent: nothing is lost)
        error(f"interrupted: the match is kept; carry on with: p2pgenius resume {path}")
        return 130
    finally:
        unasked()  # (typed while nothing was asked: not for the shell the program returns to)
    return _told(trip, printer)


def _nothing_typed() -> bool:
    """Nothing discards what was typed (a bot's visit, or input from a script)."""
    return False


def _told(trip: Visit, printer: Printer) -> int:
    """The visit's last line (and the result, once over); the exit code."""
    state = trip.state
    sent = trip.sent.words() if trip.sent is not None else "nothing new to send"
    machine = trip.machine
    if state.phase == OVER and machine is not None:
        from p2pgenius.cli.recorded import remember  # noqa: PLC0415  (sqlite: only now)

        remember(trip.files.transcript)
        session = machine.session
        if session.fault is not None:
            printer.line(f"{sent}; the match is over")
            error(f"the match stopped: {session.fault.reason}")
            printer.line(f"transcript (evidence): {trip.files.transcript}")
            state.result = f"stopped: {session.fault.reason}"
            state.save(trip.files.transcript)
            return 1
        if session.outcome is not None:
            spec = get_spec(str(session.view.game_name))
            names = {seat: session.names[peer] for seat, peer in enumerate(session.owner)}
            told = spec.outcome_words(session.outcome, names, mine=session.my_seats)
            brief = spec.outcome_words(session.outcome, brief=True)
            state.result = told
            state.save(trip.files.transcript)
            printer.line(f"{sent}; the match is over")
            printer.line(f"result: {told}; that is, {brief}")
            printer.line(f"transcript: {trip.files.transcript}")
            return 0
    if state.phase == OVER:
        printer.line(f"{sent}; {state.result}")
        return 0
    line = f"{sent}; {state.next.words}" if state.next.words else sent
    if trip.postponed:
        line += f"; carry on with: p2pgenius resume {trip.files.transcript}"
    printer.line(line)
    return 0


def run_watch_mail(args: argparse.Namespace, invite: MailInvite, out: TextIO) -> int:
    """``p2pgenius watch`` with a correspondence invite: every message on the relays so far,
    checked and shown, kept as a transcript; ``--stay``: reading on until the match is over."""
    printer = Printer(out, moves=True)
    files = match_files(args.transcript, "mail-watch", None)
    identity = account_identities()[0]
    watch = Watch(
        Carrier(identity, Mailbox(invite.mailbox), list(invite.relays)), invite.key, files, printer.event
    )
    printer.line(
        f"watching {invite.fingerprint}'s match by correspondence, through {_relays(len(invite.relays))}"
    )

    async def follow() -> None:
        while True:
            await watch.read()
            if watch.over or not getattr(args, "stay", False):
                return
            await trio.sleep(POLL_S)

    try:
        trio.run(follow)
    finally:
        files.close()
        files.release()
    session = watch.session
    if session is None:
        printer.line("the match has not started yet: nothing to follow")
        return 0
    report = verify(files.transcript.read_bytes())
    printer.line(f"{session.signed_log.taken} messages, each checked; transcript: {files.transcript}")
    printer.line(report.summary)
    return 0 if report.ok or not watch.over else 1


def memory_of(transcript: Path, session: SessionView) -> Mapping[str, Any] | None:
    """What a screen's front end would have kept of the match in ``transcript`` so far (read as
    a resumed screen catches up: :meth:`~p2pgenius.ui.table_state.TableState.catch_up`)."""
    from p2pgenius.ui.table_state import TableState  # noqa: PLC0415  (a person's visit alone)

    try:
        data = transcript.read_bytes()
    except OSError:
        return None
    state = TableState()
    state.catch_up(session, data)
    return state.memory
