"""``p2pgenius games``: every match of this account, live or by correspondence, in one list.

Two sources are joined here, which is why this lives in the command line and not in the record
(the record may not import the network layer): the record's lines (the transcripts in the matches
folder, verified, :mod:`p2pgenius.record.matches`) and, for a match by correspondence, its state
file beside the transcript (:mod:`p2pgenius.net.mail_state`: whose move, the deadline, when this
side last looked, how many relays took its last letters). A match by correspondence still in its
lobby has a state file and no transcript yet; it is listed all the same.

:func:`listed` builds the list from those two alone (no files, no clock: ``now`` is given), the
matches that need the player first (unfinished, by correspondence), then the finished ones, newest
first in each; :func:`text_line` and :func:`as_json` say one entry for people and for scripts.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TextIO

import trio

from p2pgenius.cli.history import opened, resume_hint
from p2pgenius.cli.recorded import matches_folder, mine
from p2pgenius.durations import UNITS, words
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.catalog import names
from p2pgenius.games.registry import get_spec
from p2pgenius.net.correspondence import Carrier, peek
from p2pgenius.net.invite import MailInvite
from p2pgenius.net.invite import parse as parse_invite
from p2pgenius.net.keystore import account_identities
from p2pgenius.net.mail_state import LOBBY, OVER, PLAYING, SUFFIX, MailState, load
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.mailbox import Mailbox
from p2pgenius.record.matches import NAMED, UNFINISHED, UNREADABLE, RecordLine
from p2pgenius.wording import printable

LIVE, CORRESPONDENCE = "live", "correspondence"
"""How a match is played: over a connection both sides hold, or by letters left on relays."""
MODE_WORDS: Final = {LIVE: "live", CORRESPONDENCE: "by correspondence"}
SHOWN_FINISHED: Final = 20
"""The finished matches the text lists (the newest); ``history`` lists them all."""
LATEST: Final = 95_617_584_000
"""The latest moment a state file may name (the year 5000: any later is a damaged file)."""
WEEK: Final = 7 * 86400
DAYS: Final = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
"""A deadline's day and month in words of their own (not the locale's: the same on every machine)."""


@dataclass(frozen=True)
class Mail:
    """A correspondence match's state file as found beside ``transcript`` (which may not exist
    yet): the state, or why it cannot be read (``problem``, one line)."""

    transcript: str
    state: MailState | None
    problem: str = ""
    waiting: str | None = None  # what waits on the relays (read by :func:`peeked`; None: nothing)


@dataclass(frozen=True)
class Seated:
    """A player of a listed match: name, fingerprint, seats, and how it stands to this account
    (``you``; ``partner``: on this account's side; ``side``: the index of its side among the
    game's, None before the seats are dealt)."""

    name: str
    fingerprint: str
    seats: tuple[int, ...]
    you: bool
    side: int | None
    partner: bool


@dataclass(frozen=True)
class Listing:
    """One match of the list (see :func:`listed`)."""

    game: str
    mode: str  # LIVE or CORRESPONDENCE
    status: str  # the record's kind (FINISHED, UNFINISHED, ...), or the state's LOBBY
    transcript: str
    date: str  # when it began, "2026-12-01 18:51:48 UTC" ("" if nothing says)
    players: tuple[Seated, ...] = ()
    role: str = ""  # "host", "join" ("" if unknown)
    result: str | None = None  # the result for this account, once the match is over
    ending: str = ""  # how it ended, or what a match most likely forfeited owed
    resume: str = ""  # an unfinished live match: how to take it up, or why it cannot be
    your_move: bool | None = None  # by correspondence, while it is played
    to_move: tuple[str, ...] = ()
    deadline: float | None = None
    looked: float | None = None  # when this side last visited its relays
    relays: tuple[int, int] | None = None  # relays that took this side's last letters, of how many
    waiting: str | None = None  # what waits on the relays (:func:`waiting_on_relays`)
    problem: str = ""  # why its state file cannot be read

    @property
    def open(self) -> bool:
        """Whether the match needs the player still: unfinished, or by correspondence and not
        over (or its state unreadable)."""
        return self.result is None


def listed(
    lines: Iterable[RecordLine],
    mails: Iterable[Mail],
    *,
    now: float,
    hint: Callable[[RecordLine], str] = lambda line: "",
) -> list[Listing]:
    """Every match of this account from the record's ``lines`` (as :func:`~p2pgenius.cli.recorded.mine`
    gives them: each naming this account's own peer) and the correspondence states ``mails``, each
    match once: those that need the player first, then the finished, newest first in each.

    A line is this account's when one of its players is the account's, or a correspondence state
    lies beside it; a lobby's state with no transcript is a match of its own. Several copies of
    one match (a spectator's, the other peer's) make one entry, of the copy the state lies beside,
    else one the account wrote. ``hint`` says how to take up an unfinished live match
    (``history``'s :func:`~p2pgenius.cli.history.resume_hint`)."""
    by_path = {mail.transcript: mail for mail in mails}
    every = list(lines)
    chosen: dict[str, RecordLine] = {}
    for line in every:
        if line.kind == UNREADABLE and line.path not in by_path:
            continue  # (no match: a damaged or foreign file, which history lists)
        if line.me is None and line.path not in by_path:
            continue  # (a match others played)
        key = line.one_match or line.path
        held = chosen.get(key)
        if held is None or _preferred(line, held, by_path):
            chosen[key] = line
    entries = [_entry(line, by_path.get(line.path), now, hint) for line in chosen.values()]
    taken = {line.path for line in every}  # (a state beside another copy of a match listed: that match)
    entries += [_lobby(mail) for mail in by_path.values() if mail.transcript not in taken]
    entries.sort(key=lambda entry: (entry.date, entry.transcript), reverse=True)
    return [entry for entry in entries if entry.open] + [entry for entry in entries if not entry.open]


def _preferred(line: RecordLine, held: RecordLine, mails: dict[str, Mail]) -> bool:
    """Whether ``line`` stands for its match rather than ``held``, another copy of it."""

    def rank(copy: RecordLine) -> tuple[bool, bool]:
        return copy.path in mails, copy.me is not None and copy.role != "watch"

    return rank(line) > rank(held)


def _entry(line: RecordLine, mail: Mail | None, now: float, hint: Callable[[RecordLine], str]) -> Listing:
    """A match the record holds (and, if by correspondence, its state)."""
    base = Listing(
        game=line.game,
        mode=LIVE if mail is None else CORRESPONDENCE,
        status=line.kind,
        transcript=line.path,
        date=line.date,
        players=seated(line),
        role=line.role,
    )
    over = line.kind not in (UNFINISHED, UNREADABLE)
    if mail is None:
        if over:
            return replace(base, result=line.result(now), ending=line.ending(now))
        told = hint(line) if line.kind == UNFINISHED else ""
        return replace(base, ending=line.ending(now), resume=told)
    if mail.state is None:
        return replace(base, problem=mail.problem)
    if line.kind == UNREADABLE:
        return replace(base, role=mail.state.role, problem=f"its transcript cannot be read: {line.problem}")
    state = mail.state
    followed = _followed(replace(base, role=state.role or line.role), mail)
    if over and not (state.phase == PLAYING and line.fault_kind == FaultKind.CONTESTED):
        # (A copy an observer reads as contested, while this side plays on: a forfeit of it that
        # it refused, whose author never saw its answer. The match is not over for it.)
        return replace(followed, result=line.result(now), ending=line.ending(now))
    if state.phase == OVER:
        return replace(followed, result=state.result or "over")
    if state.phase == PLAYING:
        return _moves(followed, state)
    return followed


def _lobby(mail: Mail) -> Listing:
    """A match by correspondence with no transcript yet: its lobby as this side left it (or a
    state file beside a transcript that is gone)."""
    state = mail.state
    base = Listing(
        game=state.game if state is not None else "",
        mode=CORRESPONDENCE,
        status=LOBBY,
        transcript=mail.transcript,
        date=_started(mail, state),
        role=state.role if state is not None else "",
    )
    if state is None:
        return replace(base, status=UNREADABLE, problem=mail.problem)
    followed = _followed(base, mail)
    if state.phase != LOBBY:
        gone = f"its transcript {mail.transcript} is gone (the state says the match is {state.phase})"
        return replace(followed, status=UNREADABLE, problem=gone)
    return followed


def _started(mail: Mail, state: MailState | None) -> str:
    """When a match with no transcript began: as its transcript's name says, else when this side
    last looked."""
    found = NAMED.match(Path(mail.transcript).name)
    if found is not None:
        day, clock = found.groups()
        return f"{day[:4]}-{day[4:6]}-{day[6:]} {clock[:2]}:{clock[2:4]}:{clock[4:]}"  # (as the record's)
    if state is not None and state.visited > 0:
        return datetime.datetime.fromtimestamp(state.visited, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return ""


def _followed(entry: Listing, mail: Mail) -> Listing:
    """``entry`` with what the state says of the relays: when this side looked, how many took its
    last letters, what waits on them."""
    state = mail.state
    assert state is not None
    taken, of = state.sent
    return replace(
        entry,
        looked=state.visited if state.visited > 0 else None,
        relays=(taken, of),
        waiting=mail.waiting,
    )


def _moves(entry: Listing, state: MailState) -> Listing:
    """A match by correspondence being played: whose move, until when."""
    return replace(
        entry, your_move=state.next.mine, to_move=tuple(state.next.who), deadline=state.next.deadline
    )


def seated(line: RecordLine) -> tuple[Seated, ...]:
    """The players of ``line``, each told apart as this account, its partner (a player on its
    side, in a game of teams) or an opponent, by the game's sides."""
    sides = get_spec(line.game).sides if line.game in names() else ()

    def side_of(seats: tuple[int, ...]) -> int | None:
        return next((index for index, side in enumerate(sides) if seats and seats[0] in side), None)

    own = side_of(line.mine)
    return tuple(
        Seated(
            name=player.name,
            fingerprint=player.fingerprint,
            seats=player.seats,
            you=index == line.me,
            side=side_of(player.seats),
            partner=index != line.me and own is not None and side_of(player.seats) == own,
        )
        for index, player in enumerate(line.players)
    )


# -- saying it ----------------------------------------------------------------------------------


def ago(seconds: float) -> str:
    """A length of time, in its two largest units: "3h", "1d23h", "2h5m", "45s"
    (:mod:`p2pgenius.durations`): 47 hours are not "1d"."""
    whole = int(seconds)
    sizes = [size for _, size in UNITS]
    for index, size in enumerate(sizes):
        if whole >= size:
            finer = sizes[index + 1] if index + 1 < len(sizes) else size
            return words(whole - whole % finer)
    return "0s"


def when(at: float, now: float, zone: datetime.tzinfo | None = None) -> str:
    """A moment as a person reads it, in local time (``zone``; None: this machine's): "Tue 18:00"
    within a week of ``now``, else its date, "24 Dec 18:00" (with the year if not this one's)."""
    moment = datetime.datetime.fromtimestamp(at, zone)
    clock = f"{moment.hour:02d}:{moment.minute:02d}"
    if abs(at - now) < WEEK:
        return f"{DAYS[moment.weekday()]} {clock}"
    year = "" if moment.year == datetime.datetime.fromtimestamp(now, zone).year else f" {moment.year}"
    return f"{moment.day} {MONTHS[moment.month - 1]}{year} {clock}"


def deadline_words(entry: Listing, now: float, zone: datetime.tzinfo | None = None) -> str:
    """The deadline of the move awaited, in words: "deadline Tue 18:00 (in 5h)", "deadline passed
    Tue 18:00 (3h ago)"; "" when none runs."""
    if entry.deadline is None:
        return ""
    moment = when(entry.deadline, now, zone)
    if entry.deadline >= now:
        return f"deadline {moment} (in {ago(entry.deadline - now)})"
    return f"deadline passed {moment} ({ago(now - entry.deadline)} ago)"


def players_words(entry: Listing) -> str:
    """The players in words: this account, its partners, then the others ("you and Cid (FP) vs
    Ann (FP), Bob (FP)"); only the others, in a match none of the account's keys plays."""

    def named(player: Seated) -> str:
        return f"{printable(player.name)} ({player.fingerprint})"

    partners = [named(p) for p in entry.players if p.partner]
    others = [named(p) for p in entry.players if not p.you and not p.partner]
    if not any(p.you for p in entry.players):
        return ", ".join(others) or "-"
    told = "you" + (f" and {', '.join(partners)}" if partners else "")
    return told + (f" vs {', '.join(others)}" if others else "")


def state_words(entry: Listing, now: float, zone: datetime.tzinfo | None = None) -> str:
    """Where the match stands, for the player (see the module's doc)."""
    if entry.problem:
        return printable(entry.problem)
    if entry.result is not None:
        ending = printable(entry.ending)
        return printable(entry.result) + (f" ({ending})" if ending and ending not in entry.result else "")
    if entry.mode == LIVE:
        return _unfinished_words(entry)
    if entry.status == LOBBY:
        said = ["waiting for players (you host)" if entry.role == "host" else "waiting for the host to start"]
    else:
        said = [", ".join(part for part in (_whose(entry), deadline_words(entry, now, zone)) if part)]
    if entry.looked is not None:
        said.append(f"looked {ago(max(now - entry.looked, 0))} ago")
    if entry.relays is not None and entry.relays[1] > 0:
        said.append(f"sent to {entry.relays[0]} of {entry.relays[1]} relays")
    if entry.waiting is not None:
        said.append(printable(entry.waiting))
    said.append(f"`p2pgenius resume {printable(entry.transcript)}`")  # (how to take the next turn)
    return "; ".join(part for part in said if part)


def _unfinished_words(entry: Listing) -> str:
    if entry.resume.startswith("p2pgenius resume "):
        return f"unfinished: `{printable(entry.resume)}` takes it up"
    if entry.resume:
        return f"unfinished: {printable(entry.resume)}"
    return f"unfinished: {printable(entry.ending)}" if entry.ending else "unfinished"


def _whose(entry: Listing) -> str:
    """Whose move it is: "your move", "Ann's move", "your move (and Ann's)"."""
    others = [printable(name) for name in entry.to_move if not (entry.your_move and _is_own(entry, name))]
    theirs = " and ".join(others)
    if entry.your_move:
        return "your move" + (f" (and {theirs}'s)" if theirs else "")
    return f"{theirs}'s move" if theirs else "waiting for the other players"


def _is_own(entry: Listing, name: str) -> bool:
    return any(p.you and p.name == name for p in entry.players)


def text_line(entry: Listing, now: float, zone: datetime.tzinfo | None = None) -> str:
    """One match in one line: its game, how it is played, its players, where it stands (a lobby:
    who it waits for; a state that cannot be read: why)."""
    head = f"{printable(entry.game) or '?':<12}  {MODE_WORDS[entry.mode]:<17}  "
    if entry.status == LOBBY or (entry.problem and not entry.players):
        return head + state_words(entry, now, zone)
    return f"{head}{players_words(entry)}: {state_words(entry, now, zone)}"


def as_json(entry: Listing, now: float, zone: datetime.tzinfo | None = None) -> dict[str, Any]:
    """One match for scripts (a line of JSON Lines)."""
    return {
        "game": entry.game,
        "players": [
            {
                "name": p.name,
                "fingerprint": p.fingerprint,
                "seats": list(p.seats),
                "you": p.you,
                "partner": p.partner,
                "side": p.side,
            }
            for p in entry.players
        ],
        "mode": entry.mode,
        "status": entry.status,
        "transcript": entry.transcript,
        "date": entry.date,
        "role": entry.role,
        "your_move": entry.your_move,
        "to_move": list(entry.to_move),
        "deadline": entry.deadline,
        "deadline_text": deadline_words(entry, now, zone) or None,
        "result": entry.result,
        "ending": entry.ending,
        "resume": entry.resume or None,
        "looked": entry.looked,
        "relays": None if entry.relays is None else {"sent": entry.relays[0], "of": entry.relays[1]},
        "waiting": entry.waiting,
        "error": entry.problem or None,
    }


# -- the command ------------------------------------------------------------------------------


PEEK_S: Final = 8.0
"""How long ``games`` waits for one relay of a correspondence match (they are read at once)."""


async def peeked(mails: list[Mail], err: TextIO) -> list[Mail]:
    """``mails`` with what waits on the relays of each match that is not over, read from all of
    them at once (nothing written, nothing sent; a match that cannot be read says why)."""
    open_ones = [i for i, m in enumerate(mails) if m.state is not None and m.state.phase != OVER]
    if not open_ones:
        return mails
    if err.isatty():  # (a moment's wait said; the list follows on standard output)
        count = f"{len(open_ones)} match{'es' if len(open_ones) > 1 else ''}"
        err.write(f"reading the relays of {count} by correspondence (--offline does not)\n")
        err.flush()
    out = list(mails)
    identities = account_identities()

    async def one(index: int) -> None:
        mail = mails[index]
        state = mail.state
        assert state is not None
        try:
            invite = parse_invite(state.invite)
            if not isinstance(invite, MailInvite) or state.identity >= len(identities):
                return
            carrier = Carrier(
                identities[state.identity], Mailbox(invite.mailbox), state.relays, wait_s=PEEK_S
            )
            waiting = await peek(carrier, Path(mail.transcript), state)
        except (P2PGeniusError, OSError) as exc:
            waiting = f"the relays could not be read ({' '.join(str(exc).split())})"
        out[index] = replace(mail, waiting=waiting)

    async with trio.open_nursery() as nursery:
        for index in open_ones:
            nursery.start_soon(one, index)
    return out


def found_mail(folder: Path) -> list[Mail]:
    """The correspondence states in ``folder`` (``X.p2pt.mail``), each read or told unreadable."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        if not path.name.endswith(SUFFIX) or path.name.startswith("."):
            continue
        transcript = path.with_name(path.name.removesuffix(SUFFIX))
        try:
            state = load(transcript)
        except (P2PGeniusError, AttributeError) as exc:  # (AttributeError: JSON that is no object)
            told = " ".join(str(exc).split()) if isinstance(exc, P2PGeniusError) else ""
            found.append(Mail(str(transcript), None, told or f"{path} is not a correspondence match's state"))
            continue
        if state is not None:
            problem = unsound(state)
            found.append(Mail(str(transcript), None if problem else state, problem and f"{path} {problem}"))
    return found


def unsound(state: MailState) -> str:
    """What of ``state`` this command cannot show (a field of the wrong kind: the state file is
    JSON, whose numbers may be anything, Infinity among them), or ""."""
    checks = {
        "game": isinstance(state.game, str),
        "sent": isinstance(state.sent, list)
        and len(state.sent) == 2
        and all(type(n) is int and n >= 0 for n in state.sent),
        "visited": _moment(state.visited),
        "result": isinstance(state.result, str),
        "next.who": isinstance(state.next.who, list) and all(isinstance(n, str) for n in state.next.who),
        "next.mine": isinstance(state.next.mine, bool),
        "next.deadline": state.next.deadline is None or _moment(state.next.deadline),
    }
    wrong = [name for name, ok in checks.items() if not ok]
    return f"is damaged: {', '.join(wrong)} of the wrong kind" if wrong else ""


def _moment(value: object) -> bool:
    """Whether ``value`` is a moment this command can show: seconds since the epoch, from 0 (none
    yet) to the year 5000."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return 0 <= value <= LATEST  # (NaN is not)


def write_text(out: TextIO, entries: Sequence[Listing], now: float, unreadable: int = 0) -> None:
    """The list for people: the matches that need the player, then the newest finished ones."""
    waiting = [entry for entry in entries if entry.open]
    done = [entry for entry in entries if not entry.open]
    if not entries:
        out.write(
            "no matches yet: `p2pgenius play` against the computer, `p2pgenius host GAME` starts "
            "one with friends, `p2pgenius join INVITE` joins a friend's\n"
        )
    if waiting:
        out.write(f"in play ({len(waiting)}), newest first:\n")
        out.writelines(f"  {text_line(entry, now)}\n" for entry in waiting)
    if done:
        shown = done[:SHOWN_FINISHED]
        out.write(f"finished ({len(done)}), newest first:\n")
        out.writelines(f"  {text_line(entry, now)}\n" for entry in shown)
        if len(done) > len(shown):
            more = len(done) - len(shown)
            out.write(f"  and {more} more finished: `p2pgenius history` lists them all\n")
    if unreadable:
        files = "file" if unreadable == 1 else "files"
        out.write(f"{unreadable} {files} in matches/ read as no transcript: `p2pgenius history` says why\n")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """List the matches (``--json``: one object a line); returns the exit code."""
    now = time.time()
    with opened(sys.stderr) as index:
        every = mine(index.matches())
    mails = found_mail(matches_folder())
    if not args.offline:
        mails = trio.run(peeked, mails, sys.stderr)
    entries = listed(every, mails, now=now, hint=resume_hint)
    if args.json:
        out.writelines(json.dumps(as_json(entry, now)) + "\n" for entry in entries)
        return 0
    beside = {mail.transcript for mail in mails}
    write_text(out, entries, now, sum(m.kind == UNREADABLE and m.path not in beside for m in every))
    return 0
