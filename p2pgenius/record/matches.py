"""One transcript as a line of the record: :func:`read` verifies it and says what it proves.

A transcript's header names its peers' keys and which of them wrote it (``me``; none for a
spectator's); :func:`~p2pgenius.protocol.transcript.verify` replays every message with those keys
alone. A line is then one of: a finished match that verifies (its result counts), a match stopped
by a fault the transcript proves (a cheat, a forfeit, states that diverged), a match that stops
short (unfinished: ``resume`` may take it up), or a file that is no transcript this program reads
(damaged or foreign: listed, never counted, never deleted).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from p2pgenius.canonical import encode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.local_files import TooLargeError, read_within
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import Report, verify

FINISHED, STOPPED, UNFINISHED, UNREADABLE = "finished", "stopped", "unfinished", "unreadable"
"""What a line of the record is: a match with a result, one stopped by a proven fault, one that
stops short, a file that is no transcript this program reads."""
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
class Match:
    """One transcript, read (see the module's doc)."""

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
    fault_kind: str = ""  # "cheat", "desync", "forfeit"
    steps: int = 0  # stages played
    problem: str = ""  # why a file is unreadable
    outcome: Mapping[str, Any] = field(default_factory=dict)
    match_id: str = ""  # the signed terms' hash: one match, whichever peer's transcript this is

    @property
    def mine(self) -> tuple[int, ...]:
        """The seats the transcript's own peer held."""
        if self.me is None or self.me >= len(self.players):
            return ()
        return self.players[self.me].seats

    @property
    def opponents(self) -> tuple[Player, ...]:
        """The other peers (every peer, in a spectator's transcript)."""
        return tuple(player for index, player in enumerate(self.players) if index != self.me)

    @property
    def counts(self) -> bool:
        """Whether its result counts: a finished match that verifies, one this account played."""
        return self.kind == FINISHED and self.verified and bool(self.mine)

    def owned(self, keys: Iterable[bytes]) -> Match:
        """This line as the account holding ``keys`` sees it: its peer is the player whose key is
        one of them (the header's ``me`` is the writer's word, unsigned), or none."""
        account = set(keys)
        me = next((index for index, player in enumerate(self.players) if player.key in account), None)
        return replace(self, me=me)

    def result(self) -> str:
        """The result for the transcript's own peer: "won", "lost", "draw", "stopped: p1
        cheated", "unfinished", "watched: p0 won", "unreadable"."""
        if self.kind == UNREADABLE:
            return "unreadable"
        if self.kind == UNFINISHED:
            return "unfinished"
        if self.kind == STOPPED:
            return f"stopped: {self._fault_words()}"
        if not self.mine:
            said = "watched" if self.role == "watch" else "not yours"
            won = " and ".join(f"p{seat}" for seat in self.winners)
            return f"{said}: {won} won" if self.winners else f"{said}: a draw"
        if not self.winners:
            return "draw"
        return "won" if set(self.mine) & set(self.winners) else "lost"

    def _fault_words(self) -> str:
        who = "a peer"
        if self.fault_peer is not None and self.fault_peer < len(self.players):
            seats = self.players[self.fault_peer].seats
            who = "you" if self.fault_peer == self.me else ("/".join(f"p{s}" for s in seats) or "a peer")
        verb = {"cheat": "cheated", "forfeit": "forfeited", "desync": "diverged"}.get(self.fault_kind)
        if self.fault_kind == "desync":
            return "the peers' states diverged"
        return f"{who} {verb or self.fault_kind}"


def read(path: Path) -> Match:
    """``path`` verified and read as a line of the record (never raises for what the file holds)."""
    try:
        data = read_within(path)  # (one too large is told by its size, never read whole)
    except TooLargeError as exc:
        return Match(str(path), UNREADABLE, False, date=_named_date(path), problem=str(exc))
    except OSError as exc:
        return Match(str(path), UNREADABLE, False, date=_named_date(path), problem=f"cannot read it: {exc}")
    try:
        report = verify(data)
    except (P2PGeniusError, ValueError, TypeError, LookupError) as exc:
        return Match(
            str(path), UNREADABLE, False, date=_named_date(path), problem=str(exc) or type(exc).__name__
        )
    return from_report(str(path), report, fallback_date=_named_date(path))


def from_report(path: str, report: Report, fallback_date: str = "") -> Match:
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
        "role": role,
        "me": me if type(me) is int and 0 <= me < len(keys) and role != "watch" else None,
        "players": players,
        "steps": len(report.steps),
    }
    if report.fault is not None:
        fault = report.fault
        return Match(
            path,
            STOPPED,
            False,
            reason=f"{fault.kind}: {fault.reason}",
            fault_peer=fault.peer,
            fault_kind=fault.kind,
            **base,
        )
    if report.outcome is None:
        return Match(path, UNFINISHED, False, reason="the transcript stops before the end", **base)
    outcome = dict(report.outcome)
    return Match(
        path,
        FINISHED,
        report.ok,
        winners=winning_seats(outcome),
        reason=ending(outcome),
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


def winning_seats(outcome: Mapping[str, Any]) -> tuple[int, ...]:
    """The seats an outcome names as winning (a team's every seat; none for a draw)."""
    team = outcome.get("winning_seats")
    if isinstance(team, list) and all(type(seat) is int for seat in team):
        return tuple(sorted(team))
    winner = outcome.get("winner")
    return (winner,) if type(winner) is int else ()


def ending(outcome: Mapping[str, Any]) -> str:
    """How a match ended, in words: "surrender", "round wins 2-0"."""
    reason = str(outcome.get("reason", "")).replace("_", " ")
    rounds = outcome.get("round_wins")
    if isinstance(rounds, list) and rounds and all(type(n) is int for n in rounds):
        reason += " " + "-".join(str(n) for n in rounds)
    return reason


def _named_date(path: Path) -> str:
    """When a transcript began, from its file name ("" if the name does not say)."""
    found = NAMED.match(path.name)
    if found is None:
        return ""
    day, clock = found.groups()
    return f"{day[:4]}-{day[4:6]}-{day[6:]} {clock[:2]}:{clock[2:4]}:{clock[4:]}"


def opponents_named(match: Match) -> Sequence[str]:
    """The other players as "name (FINGERPRINT)"."""
    return [f"{player.name} ({player.fingerprint})" for player in match.opponents]


def once(matches: Iterable[Match]) -> list[Match]:
    """``matches`` with each match once: a second transcript of the same match (the other
    peer's, a spectator's, a copy) is left out, the first kept (lines with no terms are kept)."""
    seen: set[str] = set()
    out = []
    for match in matches:
        if match.match_id and match.match_id in seen:
            continue
        seen.add(match.match_id)
        out.append(match)
    return out
