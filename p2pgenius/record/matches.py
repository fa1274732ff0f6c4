"""One transcript as a line of the record: :func:`read` verifies it and says what it proves.

A transcript's header names its peers' keys and which of them wrote it (``me``; none for a
spectator's); :func:`~p2pgenius.protocol.transcript.verify` replays every message with those keys
alone. A line is then one of: a finished match that verifies, its result signed by every peer (its
result counts); a match stopped by a fault the transcript proves (a forfeit or a cheat counts, the
side at fault losing; states that diverged prove nobody lost); a match whose messages yield a
result that not every peer signed (unconfirmed: no result); a match that stops short (unfinished:
no evidence either way, ``resume`` may take it up); or a file that is no transcript this program
reads (damaged or foreign: listed, never counted, never deleted).

Several transcripts of one match (the other peer's, a spectator's, a copy) are judged together,
whole (:func:`judged`, :func:`whole`: every signed message they hold, merged by hash, verified as
one transcript), and count once (:func:`once`): never by a count, a date or an order one copy's
writer controls; two that hold different messages under one author's number prove that author
signed two histories.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from p2pgenius.canonical import encode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.catalog import names
from p2pgenius.games.registry import get_spec
from p2pgenius.local_files import TooLargeError, bots_table, read_stage_note, read_within
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.messages import VERSION
from p2pgenius.protocol.overdue import Times, missed
from p2pgenius.protocol.transcript import UNCONFIRMED as UNSIGNED
from p2pgenius.protocol.transcript import Report
from p2pgenius.record.verifying import verify, verify_copies

FINISHED, STOPPED, UNCONFIRMED, UNFINISHED, UNREADABLE = (
    "finished",
    "stopped",
    "unconfirmed",
    "unfinished",
    "unreadable",
)
"""What a line of the record is: a match with a result every peer signed, one stopped by a proven
fault, one whose result not every peer signed, one that stops short, a file that is no transcript
this program reads."""
LOSING_FAULTS: Final = (FaultKind.FORFEIT, FaultKind.CHEAT)
"""Faults that lose the match for the side of the peer at fault (states that diverge do not:
nobody can tell which engine was wrong)."""
PREFIX: Final = 8
"""Bytes of each message's hash a line keeps, to tell two copies of one match apart (a chain of
hashes: two histories that agree on a message agree on all before it)."""
NAMED: Final = re.compile(r"^(\d{8})-(\d{6})")
DATED: Final = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$")
"""The header's date as a peer writes it (the header is not signed: anything else is not shown)."""
"""A transcript's file name starts with when it began (``20261201-185148-...``)."""


@dataclass(frozen=True)
class Player:
    """A peer of the match: its name, key, and the seats it held."""

    name: str
    key: bytes
    seats: tuple[int, ...]

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


@dataclass(frozen=True)
class RecordLine:
    """One line of the record: one transcript, read (see the module's doc)."""

    path: str
    kind: str  # FINISHED, STOPPED, UNFINISHED or UNREADABLE
    verified: bool  # every signature, commitment, action and state hash checked, and the match over
    game: str = ""
    date: str = ""  # "2026-12-01 18:51:48 UTC", from the header (else the file name)
    role: str = ""  # "host", "join", "watch" (a spectator's), or "" when unknown
    me: int | None = None  # the peer that wrote it (None: a spectator's, or unknown)
    players: tuple[Player, ...] = ()
    winners: tuple[int, ...] = ()  # the winning seats (none: a draw, or no result)
    reason: str = ""  # how it ended: "surrender", "round wins 2-0", "cheat by p1: ..."
    fault_peer: int | None = None  # the peer a fault names
    fault_kind: str = ""  # "cheat", "desync", "forfeit", "contested"
    steps: int = 0  # stages played
    problem: str = ""  # why a file is unreadable
    outcome: Mapping[str, Any] = field(default_factory=dict)
    match_id: str = ""  # the signed terms' hash: one match, whichever peer's transcript this is
    readies: str = ""
    """The joiners' signed ``ready`` in its terms, hex, sorted, joined by commas: each a joiner's
    consent to one match at its host's table (an honest host puts one in one set of terms)."""
    table: str = ""
    """Set by :func:`signed_twice` alone: the name of the one match that several sets of terms
    made from one ``ready`` are ("": this line's terms are the only ones of their readies)."""
    chains: tuple[bytes, ...] = ()
    """Per peer, the first PREFIX bytes of the hash of each of its messages the transcript holds
    (its signed history, as this copy has it)."""
    alone: tuple[int, int, int] = (-1, 0, 0)
    """When its line carries the verdict of several copies of its match (:func:`judged`): whether
    this transcript by itself proves the same (1) or not (0), then what it proves by itself
    (:func:`rank`); (-1, 0, 0) otherwise."""
    unchained: int = 0
    """How many of its ``msg`` records no author's chain holds (a failed signature, say): they
    prove nothing and change nothing, so the line counts as if they were not there, and says so."""
    late: str = ""
    """An unfinished match's: what its own peer owed where the transcript stops, and since when
    ("p1 (yours) is late with a decision ..., since ... (its clock ran out then)"); "" if nothing."""
    late_at: float = 0.0
    """From when that debt was late (seconds since the epoch): from then on the others most likely
    claimed it and, unanswered, forfeited this peer (:meth:`forfeited_most_likely`)."""
    selves: tuple[int, ...] = ()
    """The peers whose keys are the account's (:meth:`owned`): two or more on opposite sides, and
    the account played itself (:attr:`against_self`), a match that counts for nobody."""

    def forfeited_most_likely(self, now: float | None = None) -> bool:
        """Whether the match stops short with its own peer late with what it owed (by ``now``;
        None: the wall clock): most likely forfeited by it, which only the others' transcripts
        prove (it counts for nobody)."""
        when = time.time() if now is None else now
        return self.kind == UNFINISHED and bool(self.late) and self.late_at <= when

    def ending(self, now: float | None = None) -> str:
        """How it ended, in words (``reason``), or what it owed, for a match most likely forfeited."""
        if self.forfeited_most_likely(now):
            return f"{self.late}; not counted: only the others' transcripts can prove the forfeit"
        return self.reason

    @property
    def signed(self) -> int:
        """How many signed messages this copy holds that passed every check of their chains."""
        return sum(len(chain) // PREFIX for chain in self.chains)

    @property
    def proves(self) -> bool:
        """Whether what is signed proves a result: a finished match every peer signed, or one
        stopped by a forfeit or a cheat the transcript proves (its side loses)."""
        if self.kind == FINISHED:
            return self.verified
        return self.kind == STOPPED and self.fault_kind in LOSING_FAULTS and self.fault_peer is not None

    @property
    def dealt(self) -> bool:
        """Whether the seats were dealt (a forfeit at the coin flip comes before)."""
        return any(player.seats for player in self.players)

    def side(self) -> str | None:
        """The result for the transcript's own peer: "won", "lost", "draw", or None (it played
        no part, or the transcript proves no result)."""
        if not self.proves or self.me is None or self.against_self:
            return None
        if not self.dealt:  # (walked away at the coin flip: it alone loses)
            return "lost" if self.me == self.fault_peer else "won"
        if not self.mine:
            return None
        if not self.winners:
            return "draw"
        return "won" if set(self.mine) & set(self.winners) else "lost"

    def sides(self) -> tuple[list[Player], list[Player]] | None:
        """(the winners, the others) among the players, for ratings; None for a draw or a match
        that proves no result."""
        if not self.proves or (self.dealt and not self.winners):
            return None
        if not self.dealt:
            lost = [p for index, p in enumerate(self.players) if index == self.fault_peer]
            return [p for index, p in enumerate(self.players) if index != self.fault_peer], lost
        won = [p for p in self.players if set(p.seats) & set(self.winners)]
        return won, [p for p in self.players if p.seats and not set(p.seats) & set(self.winners)]

    @property
    def one_match(self) -> str:
        """What names its match in the record, where each counts once: its terms' hash, or the
        one name of every set of terms its host made of one ``ready`` ("" before the terms)."""
        return self.table or self.match_id

    @property
    def mine(self) -> tuple[int, ...]:
        """The seats the transcript's own peer held."""
        if self.me is None or self.me >= len(self.players):
            return ()
        return self.players[self.me].seats

    @property
    def partners(self) -> tuple[Player, ...]:
        """The other peers on the own peer's side, in a game of teams (Hornswoggle's partners, by
        the game's sides): they win and lose with it. None in a spectator's transcript."""
        return tuple(player for index, player in enumerate(self.players) if self._partner(index))

    @property
    def opponents(self) -> tuple[Player, ...]:
        """The other peers but its partners (every peer, in a spectator's transcript)."""
        return tuple(
            player
            for index, player in enumerate(self.players)
            if index != self.me and not self._partner(index)
        )

    def _partner(self, index: int) -> bool:
        """Whether the peer at ``index`` is another one whose seats are all on the side the own
        peer's seats are all on (the game's sides say which seats win and lose together)."""
        mine = set(self.mine)
        if index == self.me or not mine or self.game not in names() or index >= len(self.players):
            return False
        theirs = set(self.players[index].seats)
        return any(mine | theirs <= set(side) for side in get_spec(self.game).sides) and bool(theirs)

    @property
    def against_self(self) -> bool:
        """Whether the account played itself: two of its keys on opposite sides (a host in one
        terminal, a join in another), or before the deal. Two of them partners, against others,
        are one side of a match like any other."""
        return any(index != self.me and not self._partner(index) for index in self.selves)

    @property
    def counts(self) -> bool:
        """Whether its result counts: one this account played, against another, whose transcript
        proves a result (:attr:`proves`)."""
        return self.side() is not None

    def owned(self, keys: Iterable[bytes]) -> RecordLine:
        """This line as the account holding ``keys`` sees it: its peer is the player whose key is
        one of them (the header's ``me`` is the writer's word, unsigned), or none; the first, where
        several are (the account played itself)."""
        account = set(keys)
        selves = tuple(index for index, player in enumerate(self.players) if player.key in account)
        return replace(self, me=selves[0] if selves else None, selves=selves)

    def result(self, now: float | None = None) -> str:
        """The result for the transcript's own peer: "won", "lost", "draw", "won: p1 forfeited",
        "lost: you cheated", "stopped: the peers' states diverged", "unconfirmed: p1 did not
        sign the result", "unfinished", "most likely forfeited by you" (unfinished, its peer late
        with what it owed by ``now``), "watched: alice won", "against yourself: alice won" (two
        of the account's keys played), "unreadable" (players by name)."""
        if self.forfeited_most_likely(now):
            return "most likely forfeited by you"
        if self.kind in (UNREADABLE, UNFINISHED):
            return self.kind
        if self.kind == UNCONFIRMED:
            return f"unconfirmed: {self.reason}"
        side = self.side()
        if self.kind == STOPPED:
            if not self.proves:
                return f"stopped: {self._fault_words()}"
            return f"{side or self._onlooker()}: {self._fault_words()}"
        if side is None:
            won = " and ".join(p.name for p in self.players if set(p.seats) & set(self.winners))
            return f"{self._onlooker()}: {won} won" if self.winners else f"{self._onlooker()}: a draw"
        return side

    def _onlooker(self) -> str:
        if self.role == "watch":
            return "watched"
        return "against yourself" if self.against_self else "not yours"

    def _fault_words(self) -> str:
        who = "a peer"
        if self.fault_peer is not None and self.fault_peer < len(self.players):
            who = "you" if self.fault_peer == self.me else self.players[self.fault_peer].name
        verb = {"cheat": "cheated", "forfeit": "forfeited", "desync": "diverged"}.get(self.fault_kind)
        if self.fault_kind == FaultKind.DESYNC:
            return "the peers' states diverged"
        if self.fault_kind == FaultKind.CONTESTED and self.reason == UNJUDGED:
            return "its copies say different things and cannot be judged together"
        if self.fault_kind == FaultKind.CONTESTED:
            return "a forfeit and its answer crossed, nobody can tell who was silent"
        return f"{who} {verb or self.fault_kind}"


def read(path: Path) -> RecordLine:
    """``path`` verified and read as a line of the record (never raises for what the file holds)."""
    try:
        data = read_within(path)  # (one too large is told by its size, never read whole)
    except TooLargeError as exc:
        return RecordLine(str(path), UNREADABLE, False, date=_named_date(path), problem=str(exc))
    except OSError as exc:
        return RecordLine(
            str(path), UNREADABLE, False, date=_named_date(path), problem=f"cannot read it: {exc}"
        )
    try:
        report = verify(data)
    except (P2PGeniusError, ValueError, TypeError, LookupError) as exc:
        return RecordLine(
            str(path), UNREADABLE, False, date=_named_date(path), problem=str(exc) or type(exc).__name__
        )
    match = from_report(str(path), report, fallback_date=_named_date(path))
    return _late(match, report, path)


def _late(match: RecordLine, report: Report, path: Path) -> RecordLine:
    """An unfinished match of its own peer's, with what that peer owed where it stops and since
    when, from the transcript and what this machine kept beside it (the stage note, and when the
    transcript was last written): from then on, most likely forfeited."""
    if match.kind != UNFINISHED or match.me is None or bots_table(path).exists():
        return match  # (against bots on this machine: the whole table stopped, nobody's clock ran)
    try:
        times = Times(read_stage_note(path), path.stat().st_mtime)
    except OSError:
        return match
    late = missed(report.owed, match.me, times, report.longest_s, math.inf)
    if late is None:
        return match
    since = datetime.datetime.fromtimestamp(late.since, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    words = f"{late.owed.words()}, since {since} ({late.how()})"
    return replace(match, late=words, late_at=late.late_at)


def from_report(path: str, report: Report, fallback_date: str = "") -> RecordLine:
    """A transcript's verified report as a line of the record."""
    meta = report.meta
    keys = [key for key in meta.get("peers", []) if isinstance(key, bytes)]
    names = list(report.names) + [""] * (len(keys) - len(report.names))
    players = tuple(
        Player(
            str(names[index]) or fingerprint(key)[:9],
            key,
            tuple(seat for seat, peer in enumerate(report.owner) if peer == index),
        )
        for index, key in enumerate(keys)
    )
    me = meta.get("me")
    role = str(meta.get("role") or "")
    date = meta.get("date")
    base: dict[str, Any] = {
        "game": report.game or "",
        "date": date if isinstance(date, str) and DATED.match(date) else fallback_date,
        "match_id": _match_id(report.terms),
        "readies": _readies(report.terms),
        "role": role,
        "me": me if type(me) is int and 0 <= me < len(keys) and role != "watch" else None,
        "players": players,
        "steps": len(report.steps),
        "chains": tuple(b"".join(digest[:PREFIX] for digest in chain) for chain in report.chains),
        "unchained": len(report.unchained),
    }
    return _line(path, report, players, base)


def _line(path: str, report: Report, players: tuple[Player, ...], base: dict[str, Any]) -> RecordLine:
    """What the report proves, as a line (``base``: what every line of it shares)."""
    if report.fault is not None:
        fault = report.fault
        return RecordLine(
            path,
            STOPPED,
            False,
            winners=report.winners,
            reason=f"{fault.kind}: {fault.reason}",
            fault_peer=fault.peer,
            fault_kind=fault.kind,
            **base,
        )
    if report.standing == UNSIGNED:
        unsigned = " and ".join(players[peer].name for peer in report.unsigned if peer < len(players))
        why = (
            f"an older transcript (match version {report.version}), which binds no peer to the result"
            if report.version != VERSION
            else f"{unsigned} did not sign the result"
        )
        return RecordLine(path, UNCONFIRMED, False, reason=why, outcome=dict(report.outcome or {}), **base)
    if report.outcome is None:
        refused = report.refused_terms
        reason = (
            f"its peer refused the terms ({refused})"
            if refused is not None
            else "the transcript stops before the end: no evidence either way, not counted"
        )
        return RecordLine(path, UNFINISHED, False, reason=reason, **base)
    outcome = dict(report.outcome)
    spec = get_spec(str(report.game))  # (its engine replayed the match: the game is known here)
    return RecordLine(
        path,
        FINISHED,
        report.ok,
        winners=report.winners,
        reason=spec.ending_words(spec.read_outcome(outcome)),
        outcome=outcome,
        **base,
    )


def _match_id(terms: Mapping[str, Any] | None) -> str:
    """One match's name, the same in every peer's and spectator's transcript of it: the hash of
    its signed terms (which carry the table's random salt); "" before the terms."""
    if terms is None:
        return ""
    try:
        return hashlib.sha256(encode(dict(terms))).hexdigest()
    except P2PGeniusError:
        return ""


def _readies(terms: Mapping[str, Any] | None) -> str:
    """The joiners' signed readies of ``terms`` (the host's entry is empty), hex, sorted, joined
    by commas ("" before the terms)."""
    readies = terms.get("readies") if terms is not None else None
    if not isinstance(readies, list):
        return ""
    return ",".join(sorted(ready.hex() for ready in readies if isinstance(ready, bytes) and ready))


def _named_date(path: Path) -> str:
    """When a transcript began, from its file name ("" if the name does not say)."""
    found = NAMED.match(path.name)
    if found is None:
        return ""
    day, clock = found.groups()
    return f"{day[:4]}-{day[4:6]}-{day[6:]} {clock[:2]}:{clock[2:4]}:{clock[4:]}"


def opponents_named(match: RecordLine) -> Sequence[str]:
    """The other players as "name (FINGERPRINT)"."""
    return [f"{player.name} ({player.fingerprint})" for player in match.opponents]


Reader = Callable[[RecordLine], bytes]
"""The bytes of the transcript a line was read from (a file's, a bundle entry's)."""


def read_copy(match: RecordLine) -> bytes:
    """The transcript file a line of the index was read from."""
    return read_within(Path(match.path))


def judged(matches: Iterable[RecordLine], read: Reader = read_copy) -> list[RecordLine]:
    """``matches``, every line of a match that has several (another peer's transcript, a
    spectator's, a copy) carrying the verdict of all of them together (:func:`whole`), each still
    naming its own file and writer."""
    lines = list(matches)
    groups: dict[str, list[RecordLine]] = {}
    for match in lines:
        if match.match_id:
            groups.setdefault(match.match_id, []).append(match)
    wholes = {key: whole(copies, read) for key, copies in groups.items() if _differ(copies)}
    lines = [_as(match, wholes[match.match_id]) if match.match_id in wholes else match for match in lines]
    return signed_twice(lines)


def signed_twice(lines: Sequence[RecordLine]) -> list[RecordLine]:
    """``lines``, those whose terms carry a joiner's ``ready`` that other terms carry too (its
    host signed two matches with one consent) each carrying the proof: a cheat by the host, and
    one name for them all (``table``: they count once). An honest host puts a ready in one set of
    terms and never signs another (it keeps them before they leave: a restart signs no other);
    a host that did could make "matches" its joiner never saw out of one ready, each forfeited
    at the coin flip (a ready does not sign the players' names)."""
    first: dict[str, str] = {}  # a ready -> the first match id seen with it
    joined: dict[str, str] = {}  # a match id -> one signed with a ready of its (a forest)

    def root(match_id: str) -> str:
        while match_id in joined:
            match_id = joined[match_id]
        return match_id

    for match in lines:
        for ready in filter(None, match.readies.split(",")) if match.match_id else ():
            one, other = root(first.setdefault(ready, match.match_id)), root(match.match_id)
            if one != other:
                joined[max(one, other)] = min(one, other)
    named = {match_id: root(match_id) for match_id in {*joined, *joined.values()}}
    return [_two_terms(match, named[match.match_id]) if match.match_id in named else match for match in lines]


def _two_terms(match: RecordLine, table: str) -> RecordLine:
    """The line of a match whose host signed other terms with one of its readies: its cheat (its
    side loses, if the seats were dealt; before the deal, it alone), named ``table`` with them."""
    return cheat_by(
        match,
        0,
        "cheat: the host signed two different sets of terms with one player's ready (its consent "
        "to one match)",
        table=table,
        alone=(0, *rank(match)),  # (proven by the terms together, never by one transcript alone)
    )


def _differ(copies: Sequence[RecordLine]) -> bool:
    """Whether copies of one match hold different signed messages or say different things of
    them (then they are judged together; copies alike in both prove alike)."""
    first = copies[0]
    return any(copy.chains != first.chains or _verdict(copy) != _verdict(first) for copy in copies[1:])


def _as(copy: RecordLine, verdict: RecordLine) -> RecordLine:
    """``copy`` with ``verdict``'s judgement of its match (and its chains: the union's)."""
    return replace(
        copy,
        kind=verdict.kind,
        verified=verdict.verified,
        winners=verdict.winners,
        reason=verdict.reason,
        fault_peer=verdict.fault_peer,
        fault_kind=verdict.fault_kind,
        steps=verdict.steps,
        outcome=verdict.outcome,
        chains=verdict.chains,
        alone=(int(_verdict(copy) == _verdict(verdict)), *rank(copy)) if copy.alone[0] < 0 else copy.alone,
    )


def _verdict(match: RecordLine) -> tuple[str, tuple[int, ...], int | None, str]:
    """What a line proves, whoever wrote it: its kind, the winning seats, the fault's peer and kind."""
    return match.kind, match.winners, match.fault_peer, match.fault_kind


def once(matches: Iterable[RecordLine], read: Reader = read_copy) -> list[RecordLine]:
    """``matches`` with each match once (lines with no terms are all kept), in the order of its
    first line, judged from all its copies together (:func:`judged`): the line of a copy a
    player of the match wrote, where there is one."""
    groups: dict[str, list[RecordLine]] = {}
    out: list[RecordLine | str] = []
    for match in judged(matches, read):
        key = match.one_match  # (terms signed with one ready are one match, and a cheat)
        if not key:
            out.append(match)
        elif key in groups:
            groups[key].append(match)
        else:
            groups[key] = [match]
            out.append(key)
    return [entry if isinstance(entry, RecordLine) else _written(groups[entry]) for entry in out]


def _written(copies: list[RecordLine]) -> RecordLine:
    """Of copies judged alike, one that proves by itself what they prove together (what a bundle
    of it shows), one a player of the match wrote (a spectator's otherwise), of those the one that
    proves most by itself, then the first."""
    return max(
        copies,
        key=lambda copy: (
            copy.alone[0] != 0,
            copy.me is not None and copy.role != "watch",
            copy.alone[1:] if copy.alone[0] >= 0 else rank(copy),
        ),
    )


def whole(copies: Sequence[RecordLine], read: Reader = read_copy) -> RecordLine:
    """What several copies of one match prove together: every signed message they hold, merged
    by hash and verified as one transcript (SPEC section 7, "Several copies of one match"), never
    the copy with more messages (a count the copy's writer controls: a loser pads its own).
    Copies that hold the same signed messages and say the same of them prove alike: the one that
    proves most stands for them. Two different messages under one author's number prove that author signed two
    histories (a cheat), found where the second would have come."""
    best = max(copies, key=lambda copy: (*rank(copy), copy.me is not None))
    if not _differ(copies):
        return best
    try:
        report = verify_copies([read(copy) for copy in copies], bytes.fromhex(best.match_id))
    except (P2PGeniusError, OSError, ValueError, TypeError, LookupError):
        # (a copy that cannot be read again now, or copies of no one match: as far as the
        # chains tell, two histories of one author, else the copy that proves most)
        for other in copies:
            split_at = split(best, other)
            if split_at is not None:
                return _equivocation(best, *split_at)
        return best if _alike(copies) else _unjudged(best)
    together = from_report(best.path, report, fallback_date=best.date)
    if together.match_id != best.match_id or (together.dealt and together.players != best.players):
        return best  # (what the union holds is not this match as its copies deal it: no verdict of it)
    return together


UNJUDGED: Final = "contested: its copies say different things and cannot be judged together (no result)"
"""The reason of copies that cannot be judged together (:func:`_unjudged`)."""


def _alike(copies: Sequence[RecordLine]) -> bool:
    """Whether every copy, read alone, says the same of the match (the same result, or the same
    fault of the same peer)."""
    return len({(c.proves, c.winners, c.fault_kind, c.fault_peer) for c in copies}) == 1


def _unjudged(match: RecordLine) -> RecordLine:
    """The line of copies that say different things and cannot be judged together (copies of no
    one match, as their signed terms tell): no result, never the copy with more messages."""
    return replace(
        match,
        kind=STOPPED,
        verified=False,
        winners=(),
        fault_peer=None,
        fault_kind=FaultKind.CONTESTED,
        reason=UNJUDGED,
    )


def rank(match: RecordLine) -> tuple[int, int]:
    """How much a copy of a match proves: a result every peer signed, then a forfeit or a cheat
    proven, then a result not signed by all or a desync, then nothing; among equals, the one
    holding more signed messages."""
    if match.kind == FINISHED and match.verified:
        proof = 3
    elif match.proves:
        proof = 2
    elif match.kind in (UNCONFIRMED, STOPPED):
        proof = 1
    else:
        proof = 0
    return proof, match.signed


def split(one: RecordLine, other: RecordLine) -> tuple[int, int] | None:
    """(author, number) of the first message two copies of a match hold differently (None: one's
    every author's history is a prefix of the other's, as honest copies are)."""
    for author, (mine, theirs) in enumerate(zip(one.chains, other.chains, strict=False)):
        common = min(len(mine), len(theirs))
        for start in range(0, common, PREFIX):
            if mine[start : start + PREFIX] != theirs[start : start + PREFIX]:
                return author, start // PREFIX
    return None


def _equivocation(match: RecordLine, author: int, number: int) -> RecordLine:
    """The line two disagreeing copies make: ``author`` signed two messages numbered ``number``,
    proof of cheating (its side loses, if the seats were dealt)."""
    return cheat_by(
        match,
        author,
        f"cheat: two copies of this match hold two different messages numbered {number} from peer "
        f"{author}, each signed by it (two histories of one match)",
    )


def cheat_by(match: RecordLine, author: int, reason: str, **more: Any) -> RecordLine:
    """``match`` stopped by ``author``'s cheat, which its signed messages prove (``reason``): its
    side loses if the seats were dealt, else it alone (``more``: other fields of the line)."""
    seats = match.players[author].seats if author < len(match.players) else ()
    winners = get_spec(match.game).winners_without(seats) if seats and match.game in names() else ()
    return replace(
        match,
        kind=STOPPED,
        verified=False,
        winners=winners,
        fault_peer=author,
        fault_kind=FaultKind.CHEAT,
        reason=reason,
        **more,
    )
