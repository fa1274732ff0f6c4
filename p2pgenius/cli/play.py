"""What ``host``, ``join``, ``resume`` and ``demo`` share: a peer made from the command line, its
files and options, what it prints, and the terminal UI it opens without ``--bot``
(``p2pgenius.ui``, imported only then). Each command lives in its own module: ``host``,
``join``, ``resume``, ``demo``; :func:`one_line` makes the errors of any of them one line.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, TextIO

import trio

from p2pgenius import durations, wording
from p2pgenius.bots import level_of
from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import encode
from p2pgenius.cli.commands import MAX_OPTION_S
from p2pgenius.cli.terminal import error, interactive
from p2pgenius.durations import words
from p2pgenius.errors import EncodingError, LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import get_game, get_spec, names
from p2pgenius.local_files import TooLargeError, bots_table, read_within
from p2pgenius.net import DEFAULT_GRACE_S
from p2pgenius.net.keystore import account_identities, check_name, claim_identity, config_dir, load_identity
from p2pgenius.net.lobby import DeclinedError
from p2pgenius.net.peer import Files, Peer, PeerGoneError, warm_now
from p2pgenius.protocol.events import Applied, Event, FaultKind
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.session.setup import group_of
from p2pgenius.protocol.transcript import read_header
from p2pgenius.threads import settle_heap


def listed_setting(
    given: list[str] | None, option: str, variable: str, file_name: str, what: str
) -> tuple[list[str], str] | None:
    """A list the player may give three ways, the first that says anything: ``given`` (a
    repeated ``option``), else ``$variable`` (separated by commas or spaces), else the config
    directory's ``file_name`` (one a line, ``#`` comments); with where it came from, for errors.
    None if none says anything (no such file)."""
    if given is not None:
        return given, option
    if text := os.environ.get(variable, "").strip():
        return text.replace(",", " ").split(), f"${variable}"
    path = config_dir() / file_name
    try:
        read = read_within(path, what=what, limit=64 * 1024).decode("utf-8", "replace")
    except FileNotFoundError:
        return None
    except (OSError, TooLargeError) as exc:
        raise LocalMisuseError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    lines = [line.split("#", 1)[0].strip() for line in read.splitlines()]
    return [line for line in lines if line], str(path)


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

    def __init__(self, out: TextIO, *, moves: bool, prefix: str = "", named: bool = False) -> None:
        self.out = out
        self.moves = moves
        self.prefix = prefix
        self.named = named  # (the moves name each seat's player: a person's visit by correspondence)
        self.last_events: list[Any] = []  # the events of the last stage applied
        self.held: list[str] = []  # lines for the screen, once it shows (printed now, it would hide them)
        self.sink: Callable[[str], None] | None = None
        """Where the lines go while a full-screen UI shows (text printed under it would scroll
        it and leave stale characters): the screen's own log."""

    def line(self, text: str) -> None:
        """One line of output (control characters from peers never reach the terminal)."""
        if self.sink is not None:
            self.sink(wording.printable(text))
            return
        self.out.write(f"{self.prefix}{wording.printable(text)}\n")
        self.out.flush()

    def event(self, session: SessionView, event: Event) -> None:
        """Show a session event (a stage that tells its turn again, as a duel turn finished by a
        Paralysis choice does, prints only what is new)."""
        if isinstance(event, Applied):
            events, seen = list(event.events), self.last_events
            self.last_events = events
            if seen and events[: len(seen)] == seen:
                event = replace(event, events=tuple(events[len(seen) :]))
        for told in wording.tell(session, event, named=self.named):
            if told.kind in self.SHOWN or (self.moves and told.kind == wording.SEATS):
                self.line(told.text)
            elif self.moves and told.kind == wording.MOVE:
                self.line(f"  {told.text}")


def finish(peer: Peer, printer: Printer, *, personal: bool = True, by_name: bool = False) -> int:
    """Print the result of a finished peer (``personal``: to the person who played it, "you
    win", and then in the seats' words, or ``by_name``, who won by name: a person's, after the
    screen); returns the exit code."""
    session = peer.view
    if session is None:
        error("the match did not start")
        return 1
    from p2pgenius.cli.recorded import remember  # noqa: PLC0415  (sqlite: only now)

    recorded = remember(peer.files.transcript)  # (the record, kept up to date as matches end)
    # A failure is explained in one line on standard error (the command line's contract).
    if session.outcome is None and session.fault is None:
        error(f"the match did not finish; carry on with: p2pgenius resume {peer.files.transcript}")
        return 1
    if session.fault is not None:
        error(f"the match stopped: {session.fault.reason}")
        printer.line(f"transcript (evidence): {peer.files.transcript}")
        if recorded is not None and recorded.fault_kind == FaultKind.CONTESTED:
            # (What this peer saw is not what its copy proves to anyone who reads it: a forfeit
            # of ours, refused here, whose author never named our answer. Said, not hidden.)
            printer.line(f"on the record: {recorded.result()}; this match counts for nobody")
        return 1
    assert session.outcome is not None
    outcome, spec = session.outcome, get_spec(str(session.game_name))
    names = {seat: session.names[peer] for seat, peer in enumerate(session.owner)}
    brief = spec.outcome_words(outcome, brief=True)  # "p1 wins (surrender)": as scripts read it
    if personal:
        told = spec.outcome_words(outcome, names, mine=session.my_seats)  # "you win (...)"
        if by_name:  # (a person leaving the screen: who won, by name)
            brief = spec.outcome_words(outcome, names)  # "bob (p1) wins (surrender)"
        printer.line(f"result: {told}; that is, {brief}")
    else:
        printer.line(f"result: {brief}")
    printer.line(f"transcript: {peer.files.transcript}")
    return 0


def match_options(args: argparse.Namespace) -> dict[str, Any]:
    """The game options from ``--turn``, ``--option KEY=DURATION`` (the game's time options:
    :func:`time_limits`) and ``--fast``, an option of games whose moves are sealed (bots play
    them fast)."""
    spec = get_spec(args.game)
    options: dict[str, Any] = time_limits(args.game, args.option, args.turn)
    fast = args.fast if args.fast is not None else args.bot is not None
    if spec.sealed:
        options["fast"] = bool(fast)
    elif args.fast:
        sealed = " or ".join(name for name in names() if get_spec(name).sealed) or "sealed-move game's"
        raise LocalMisuseError(f"--fast is a {sealed} option")
    return options


def match_setup(game: str, given: Sequence[str]) -> dict[str, Any]:
    """The game's set-up from ``--setup KEY=VALUE`` (each VALUE in JSON; a key given again: the
    last one), checked by the game's own engine before anyone is asked to join."""
    setup: dict[str, Any] = {}
    for text in given:
        key, sep, value = text.partition("=")
        try:
            if not (key and sep):
                raise ValueError(text)
            setup[key] = json.loads(value)
        except ValueError:
            raise LocalMisuseError(
                f"--setup {text!r}: KEY=VALUE, the VALUE in JSON (like garnets=[1,0,1,0])"
            ) from None
    try:
        get_game(game).initial(setup, {})  # (its words for a value it cannot take come first)
        encode(setup)
    except (EncodingError, LocalMisuseError) as exc:
        raise LocalMisuseError(f"--setup: {exc}") from None
    return setup


def time_limits(game: str, given: Sequence[str], turn: int | None) -> dict[str, int]:
    """The time options ``--option KEY=DURATION`` gives (each a duration: ``90``, ``5m``, ``1d``,
    at most :data:`MAX_OPTION_S`; a key given again: the last one) and ``--turn`` (already read:
    the game's first time option, its main clock, which ``--option`` may not set too)."""
    allowed = [option.name for option in get_spec(game).time_options]
    limits: dict[str, int] = {}
    for text in given:
        key, sep, value = text.partition("=")
        if key not in allowed or not sep:
            takes = ", ".join(allowed) if allowed else "no time options"
            raise LocalMisuseError(f"--option {text!r}: {game} takes {takes} (KEY=DURATION)")
        try:
            limits[key] = durations.parse(value)
        except durations.DurationError as exc:
            raise LocalMisuseError(f"--option {key}={exc}") from None
        if limits[key] > MAX_OPTION_S:
            raise LocalMisuseError(f"--option {text!r}: a time limit is 1s to {words(MAX_OPTION_S)}")
    if turn is not None:
        main = get_spec(game).time_options[0]
        if main.name in limits:
            raise LocalMisuseError(f"--turn and --option {main.name} both set {main.what}: give one of them")
        limits[main.name] = turn
    return limits


def check_level(game: str | None, level: str | None) -> None:
    """Refuse a bot level ``game`` does not have (before anything connects)."""
    if game is not None and level:
        level_of(game, level)


def check_seats(args: argparse.Namespace) -> None:
    """Refuse a number of peers ``args.game`` is not for, or ``--seat``s that are not one peer's
    group (before anything listens)."""
    groups = get_spec(args.game).seat_groups(args.peers)
    if args.seat and group_of(groups, args.seat) is None:
        each = "; ".join(" and ".join(f"{s}" for s in group) for group in groups)
        raise LocalMisuseError(
            f"--seat {' '.join(map(str, args.seat))}: one peer's seats in {args.game} with "
            f"{args.peers} peers are {each}"
        )


def check_partner(args: argparse.Namespace) -> None:
    """Refuse ``--partner`` for a game with no teams (it would be ignored without a word), and a
    partner level the game does not have."""
    if not getattr(args, "partner", None):
        return
    if not any(len(side) > 1 for side in get_spec(args.game).sides):
        raise LocalMisuseError(f"--partner sets a bot partner's level: {args.game} is played without teams")
    level_of(args.game, args.partner)


def identity_of(transcript: bytes) -> Identity:
    """The account identity a transcript was played with (the account's own key, or the key of
    a second process of the account); the account's own key if none matches."""
    try:
        head = read_header(transcript)
        wanted = None if head.me is None else head.peers[head.me]
    except P2PGeniusError:
        wanted = None
    return next((i for i in account_identities() if i.public == wanted), load_identity()[0])


def make_peer(args: argparse.Namespace, label: str, seed: int, printer: Printer) -> Peer:
    """The peer for ``host`` or ``join``: bots at its seats (``--bot``) or, for now, a printer."""
    identity, _, number = claim_identity()
    if number:
        say = printer.line if args.bot is not None else printer.held.append  # (the screen would hide it)
        say(
            f"another p2pgenius of this account is playing: this one plays as the account's "
            f"process {number} key, {identity.fingerprint}"
        )
    return Peer(
        identity,
        check_name(args.name) if args.name else identity.fingerprint[:9],
        match_files(args.transcript, label, args.log),
        BotDriver(args.bot, seed, delay=args.pace).decide,
        printer.event,
        printer.line,
        grace_s=args.grace if args.grace is not None else DEFAULT_GRACE_S,
        decide_early=args.bot is not None,  # (a person is asked once the stage opens)
        settle_at_once=args.bot is not None,  # (a bot does not change its mind)
        bot=args.bot,
    )


@contextlib.contextmanager
def held(files: Files) -> Iterator[None]:
    """Hold a match's files for this command (another process holding them: refused)."""
    files.lock()
    try:
        yield
    finally:
        files.release()


QUIT: Final = ("q", "quit", "exit", "no", "n")
"""What a person types at a numbered question to choose none."""


def numbered(text: str, count: int) -> int | None:
    """The number from 1 to ``count`` that ``text`` is, in ASCII digits ("²" is a digit to
    ``isdecimal``, not to ``int``); None if it is none of them."""
    return int(text) if text.isdecimal() and text.isascii() and 1 <= int(text) <= count else None


def ask_number(out: TextIO, question: str, names: Sequence[str], *, blank: str = "") -> int | None:
    """The index of the one of ``names`` a person chooses at ``question``: its number (1 to
    their count), its name or the start of it; ``blank`` is what an empty answer means (e.g.
    "1"). None for :data:`QUIT` or the end of input; anything else is said to be none of them,
    and asked again."""
    while True:
        out.write(question)
        out.flush()
        answer = sys.stdin.readline()
        said = " ".join(answer.strip().lower().split())
        if not answer or said in QUIT:
            return None
        said = said or blank
        number = numbered(said, len(names))
        if number is not None:
            return number - 1
        chosen = [i for i, name in enumerate(names) if said and name.startswith(said.replace(" ", "-"))]
        if len(chosen) == 1:  # (a name, or its start: "magic", "horn")
            return chosen[0]
        out.write(f"  {said!r} is not one of them\n")


def check_terminal() -> None:
    """Refuse to open the terminal UI without a terminal."""
    if not interactive():
        raise LocalMisuseError("the terminal UI needs a terminal: run it in one, or add --bot")


def ascii_only(args: argparse.Namespace, out: TextIO) -> bool:
    """The terminal UI draws ASCII symbols only: asked for, or a terminal that is not UTF-8."""
    encoding = (getattr(out, "encoding", None) or "").lower().replace("-", "")
    return bool(args.ascii) or encoding != "utf8"


def played(
    args: argparse.Namespace, peer: Peer, main: Callable[[], Awaitable[None]], printer: Printer
) -> int:
    """Run ``main`` (the peer's whole match): bots print the moves (``--bot``), or the person
    plays in the terminal UI; then the result, as the exit code. A game named on the command line
    is loaded first (``warm_now``), before the loop runs."""
    if isinstance(getattr(args, "game", None), str):
        warm_now(args.game)
    if args.bot is None:
        return in_terminal(args, peer, main, printer)
    settle_heap("start-up")  # (what the command loaded: no full pass walks it mid-match)
    try:
        trio.run(main)
    except KeyboardInterrupt:
        session = peer.view
        if session is None or session.outcome is not None or session.fault is not None:
            raise  # (nothing to carry on with: the command line says "interrupted")
        error(f"interrupted: the match is kept; carry on with: p2pgenius resume {peer.files.transcript}")
        return 130
    return finish(peer, printer)


def in_terminal(args: argparse.Namespace, peer: Peer, main: Any, printer: Printer) -> int:
    """Play ``peer``'s match in the full-screen terminal UI; afterwards print the result."""
    # Imported here: prompt_toolkit costs start-up time that bot and demo runs do not need.
    from p2pgenius.cli.recorded import ratings  # noqa: PLC0415
    from p2pgenius.ui.app import build  # noqa: PLC0415
    from p2pgenius.ui.bridge import run as run_ui  # noqa: PLC0415
    from p2pgenius.ui.table import TableScreen  # noqa: PLC0415

    check_terminal()
    table = TableScreen(
        ascii_only=ascii_only(args, sys.stdout),
        hints=args.hints,
        partner_level=args.partner,
        game=getattr(args, "game", None),
    )
    table.adapter.peer = peer
    table.state.ratings = ratings  # (the lobby shows what this machine's record knows)
    for text in printer.held:  # (said before the screen opened)
        table.adapter.line(text)
    printer.held.clear()
    peer.decide, peer.report, peer.say = table.adapter.decide, table.adapter.report, table.adapter.line
    peer.considers_proposals = True  # (a person hosts: it answers a player's proposal)
    peer.linger = True  # (a person says gg after the end, until the others leave)
    peer.confirm = table.adapter.confirm_lobby
    app = build(table)
    settle_heap("start-up")  # (the command's modules and the screen: no full pass walks them mid-match)
    run_ui(table, app, main)
    if peer.view is None and table.input.leaving:  # (the person's own choice: no error)
        printer.line("you left before the match began: nothing was played, and nothing is to resume")
        return 0
    if table.input.leaving and unfinished(peer):  # (paused on purpose: Ctrl-Q Ctrl-Q)
        return paused(peer, printer)
    return finish(peer, printer, by_name=True)


def unfinished(peer: Peer) -> bool:
    """Whether ``peer``'s match began and has neither a result nor a fault."""
    view = peer.view
    return view is not None and view.outcome is None and view.fault is None


def paused(peer: Peer, printer: Printer) -> int:
    """The person left a match on purpose before its end: how to carry on (exit 0: no error)."""
    from p2pgenius.cli.recorded import remember  # noqa: PLC0415  (sqlite: only now)

    path = peer.files.transcript
    remember(path)
    if bots_table(path).exists():  # (against bots on this machine: the whole table stops)
        printer.line(f"paused: the match is kept; carry on with: p2pgenius resume {path}")
    else:  # (the others play on: a pause is theirs to wait out, within the clocks)
        printer.line(
            "you left the match: it is kept, and your clock runs on for the others, who may claim "
            f"your time once it runs out; carry on with: p2pgenius resume {path}"
        )
    return 0


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


def one_line(run: Callable[[argparse.Namespace, TextIO], int]) -> Callable[[argparse.Namespace, TextIO], int]:
    """A command whose errors from inside trio come out as one line (the command line's
    contract: a peer that went away, a host that took too long, the output closed mid-match)."""

    def guarded(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
        try:
            try:
                return run(args, out)
            except BaseExceptionGroup as group:
                raise first_error(group) from None
        except DeclinedError as exc:  # (the person's own choice: a plain sentence, no error)
            out.write(f"{exc}\n")
            return 0
        except (PeerGoneError, trio.TooSlowError) as exc:
            raise P2PGeniusError(str(exc) or "the peer took too long") from None
        except BrokenPipeError:
            if args.command == "demo":
                raise  # nothing was at stake: quietly done
            raise P2PGeniusError(
                "the output closed mid-match; the transcript is kept: carry on with p2pgenius resume"
            ) from None

    return guarded
