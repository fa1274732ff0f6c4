"""``p2pgenius history``: this account's matches, newest first, each backed by its transcript.

The record is read from the index (:mod:`p2pgenius.record.index`), brought up to date first (new
or changed transcripts are verified and kept; ``--rebuild`` reads every one again). Each line:
when, the game, the partners in a game of teams and the opponents (name and fingerprint), this
account's seats, the result for it, how the match ended, its length, and whether the transcript
verifies. Ratings per game come from verified results only (:mod:`p2pgenius.record.ratings`).
``--against`` gives the record against one opponent (a partner is none), ``--with`` the record
with one partner; ``--json`` one object for scripts; ``--open N`` replays line N.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from p2pgenius.cli.recorded import index_path, matches_folder, mine
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.catalog import find
from p2pgenius.net.files import Files
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.record.index import Index
from p2pgenius.record.matches import (
    FINISHED,
    STOPPED,
    UNCONFIRMED,
    UNFINISHED,
    UNREADABLE,
    Player,
    RecordLine,
    once,
)
from p2pgenius.record.ratings import Rating, rate
from p2pgenius.wording import printable


def opened(err: TextIO | None = None, *, rebuild: bool = False) -> Index:
    """The index, brought up to date (progress on ``err`` when many files are read)."""
    index = Index(index_path(), matches_folder())

    def progress(done: int, total: int) -> None:
        if err is None or total < 20:
            return
        if err.isatty() and (done % 20 == 0 or done == total):  # (a counter, rewritten in place)
            err.write(
                f"\rverifying transcripts for the record: {done}/{total}" + ("\n" if done == total else "")
            )
        elif done == total:
            err.write(f"verified {total} transcripts for the record\n")
        err.flush()

    (index.rebuild if rebuild else index.refresh)(progress)
    return index


def run(args: argparse.Namespace, out: TextIO) -> int:
    """List the record (or open one match); returns the exit code."""
    with opened(sys.stderr, rebuild=args.rebuild) as index:
        every = mine(index.matches())
    ratings = rate(every)
    partner = getattr(args, "partner", None)
    lines = chosen(every, args.game, args.against, partner)
    if args.open is not None:
        return _open(lines, args.open, out)
    if args.json:
        out.write(json.dumps(as_json(lines, ratings, args.against, every, partner)) + "\n")
        return 0
    if args.against:
        _tally(out, every, who(every, args.against), AGAINST, args.game)
    if partner:
        _tally(out, every, who(every, partner, WITH), WITH, args.game)
    _ratings(out, every, ratings, args.game)
    _lines(out, lines)
    return 0


AGAINST, WITH = "against", "with"
"""How a player was at the table with this account: an opponent, or a partner (a player on its
side in a game of teams, who wins and loses with it)."""


def among(match: RecordLine, how: str) -> tuple[Player, ...]:
    """The match's opponents (``how`` AGAINST) or partners (WITH)."""
    return match.partners if how == WITH else match.opponents


def chosen(
    every: Sequence[RecordLine], game: str | None, against: str | None, partner: str | None = None
) -> list[RecordLine]:
    """The lines of ``game`` (if given) played against ``against`` and with ``partner``
    (fingerprints, if given)."""
    if game:
        find(game)  # (an unknown game: a one-line error)
    wanted = [(who(every, typed, how), how) for typed, how in ((against, AGAINST), (partner, WITH)) if typed]
    return [
        m
        for m in every
        if (not game or m.game == game)
        and all(any(p.key == key for p in among(m, how)) for key, how in wanted)
    ]


def who(every: Sequence[RecordLine], typed: str, how: str = AGAINST) -> bytes:
    """The key of the one opponent (``how`` AGAINST) or partner (WITH) whose fingerprint starts
    with ``typed`` (dashes and case aside); LocalMisuseError if none or several."""
    wanted = typed.replace("-", "").replace(" ", "").upper()
    role = "opponent" if how == AGAINST else "partner"
    if len(wanted) < 4:
        raise LocalMisuseError(f"--{how} {typed!r}: give at least the first 4 characters of a fingerprint")

    def fits(players: Iterable[Player]) -> dict[bytes, str]:
        return {p.key: p.name for p in players if fingerprint(p.key).replace("-", "").startswith(wanted)}

    found = fits(p for m in every for p in among(m, how))
    if not found:
        other = AGAINST if how == WITH else WITH
        elsewhere = fits(p for m in every for p in among(m, other))
        hint = ""
        if elsewhere:
            told = ", ".join(f"{printable(name)} ({fingerprint(key)})" for key, name in elsewhere.items())
            hint = (
                f": {told} only ever played on {'your' if how == AGAINST else 'the other'} side (--{other})"
            )
        raise LocalMisuseError(f"no {role} in your record has a fingerprint starting {typed!r}{hint}")
    if len(found) > 1:
        told = ", ".join(f"{printable(name)} ({fingerprint(key)})" for key, name in found.items())
        raise LocalMisuseError(f"--{how} {typed!r} fits several {role}s: {told}; give more of it")
    return next(iter(found))


def players_words(match: RecordLine) -> str:
    """The others at the table: "vs bob (FP)"; in a game of teams, "with bob (FP) vs carol (FP),
    dave (FP)" (a partner wins and loses with this account: no opponent)."""

    def named(players: Sequence[Player]) -> str:
        return ", ".join(f"{printable(p.name)} ({p.fingerprint})" for p in players) or "-"

    partners = f"with {named(match.partners)} " if match.partners else ""
    return f"{partners}vs {named(match.opponents)}"


def seats_words(match: RecordLine) -> str:
    return "/".join(f"p{seat}" for seat in match.mine) or "-"


def length_words(match: RecordLine) -> str:
    return f"{match.steps} step{'' if match.steps == 1 else 's'}"  # (as export numbers them)


def verdict_words(match: RecordLine) -> str:
    if match.kind == UNREADABLE:
        return match.problem
    if match.kind == FINISHED:
        return "verifies" if match.verified else "does not verify"
    if match.kind == STOPPED:
        return "verifies the fault"
    if match.kind == UNCONFIRMED:
        return "verified, but its result is not signed by every player: not counted"
    return "verified so far"


def resume_hint(match: RecordLine) -> str:
    """For an unfinished match this account played: how to take it up, or why not."""
    if match.kind != UNFINISHED or match.me is None or match.role == "watch":
        return ""
    if match.forfeited_most_likely():  # (its ending says why: a resume would reach nobody)
        return ""
    path = Path(match.path)
    secrets = path.with_suffix(".secrets")
    if not secrets.exists():
        return "its secrets file is gone: it cannot be resumed"
    if Files(path, secrets).live():
        return "being played in another process"
    return f"p2pgenius resume {shlex.quote(str(path))}"


def _lines(out: TextIO, lines: Sequence[RecordLine]) -> None:
    if not lines:
        out.write(f"no matches in the record (transcripts are kept in {matches_folder()})\n")
        return
    out.write(f"{len(lines)} {'match' if len(lines) == 1 else 'matches'}, newest first:\n")
    first: dict[str, int] = {}
    for number, match in enumerate(lines, start=1):
        date = printable(match.date or "-")
        if match.kind == UNREADABLE:
            out.write(
                f"{number:>4}  {date:<23}  {printable(Path(match.path).name)}: {printable(match.problem)}\n"
            )
            continue
        head = f"{number:>4}  {date:<23}  {printable(match.game):<12}  {match.result()}"
        out.write(f"{head}  {players_words(match)}\n")
        detail = [
            f"seats {seats_words(match)}",
            printable(match.ending()),
            length_words(match),
            verdict_words(match),
        ]
        if match.one_match in first:  # (another peer's transcript of that match, or a copy)
            detail.append(f"the same match as line {first[match.one_match]}: counted once")
        elif match.one_match:
            first[match.one_match] = number
        hint = resume_hint(match)
        out.write(f"        {'; '.join(part for part in detail if part)}{f'; {hint}' if hint else ''}\n")
        out.write(f"        {printable(match.path)}\n")


def _ratings(
    out: TextIO, every: Sequence[RecordLine], ratings: dict[str, dict[bytes, Rating]], game: str | None
) -> None:
    mine = my_keys(every)
    told = []
    for name, table in sorted(ratings.items()):
        if game and name != game:
            continue
        own = [r for key, r in table.items() if key in mine]
        if own:
            best = max(own, key=lambda r: r.matches)
            told.append(f"{name} {best.shown} ±{best.margin} over {best.matches} {_matches(best.matches)}")
    if told:
        out.write("your ratings (from verified results on this machine): " + "; ".join(told) + "\n")


def my_keys(every: Sequence[RecordLine]) -> set[bytes]:
    """This account's keys, as its own transcripts name them."""
    return {m.players[m.me].key for m in every if m.me is not None and m.me < len(m.players)}


def record_against(every: Sequence[RecordLine], key: bytes, how: str = AGAINST) -> dict[str, list[int]]:
    """Per game, [won, lost, drawn] against the player with ``key`` (``how`` AGAINST: the
    matches it was an opponent in) or with it (WITH: those it was a partner in); verified results
    only."""
    out: dict[str, list[int]] = {}
    for match in once(every):
        if match.counts and any(p.key == key for p in among(match, how)):
            tally = out.setdefault(match.game, [0, 0, 0])
            tally[{"won": 0, "lost": 1}.get(match.side() or "", 2)] += 1
    return out


def _tally(out: TextIO, every: Sequence[RecordLine], key: bytes, how: str, game: str | None) -> None:
    name = next(p.name for m in every for p in among(m, how) if p.key == key)
    out.write(f"{how} {name} ({fingerprint(key)}), verified results:\n")
    tallies = record_against(every, key, how)
    for name_, (won, lost, drawn) in sorted(tallies.items()):
        if not game or name_ == game:
            out.write(f"  {name_}: {won} won, {lost} lost, {drawn} drawn\n")
    if not tallies:
        out.write("  no match whose result is proven (finished and signed by both, or a forfeit)\n")
    else:
        out.write("  (a match counts once every player signed its result; a forfeit or a cheat loses)\n")


def _matches(count: int) -> str:
    return "match" if count == 1 else "matches"


def as_json(
    lines: Sequence[RecordLine],
    ratings: dict[str, dict[bytes, Rating]],
    against: str | None,
    every: Sequence[RecordLine],
    partner: str | None = None,
) -> dict[str, Any]:
    """The record for scripts."""
    mine = my_keys(every)
    out: dict[str, Any] = {
        "matches": [
            {
                "path": m.path,
                "match": m.match_id,
                "date": m.date,
                "game": m.game,
                "kind": m.kind,
                "result": m.result(),
                "ending": m.ending(),
                "seats": list(m.mine),
                "role": m.role,
                "opponents": [
                    {"name": p.name, "fingerprint": p.fingerprint, "seats": list(p.seats)}
                    for p in m.opponents
                ],
                "partners": [
                    {"name": p.name, "fingerprint": p.fingerprint, "seats": list(p.seats)} for p in m.partners
                ],
                "length": m.steps,
                "verified": m.verified,
                "problem": m.problem,
                "resume": resume_hint(m),
            }
            for m in lines
        ],
        "ratings": {
            game: [
                {
                    "name": r.name,
                    "fingerprint": fingerprint(r.key),
                    "you": r.key in mine,
                    "rating": r.shown,
                    "margin": r.margin,
                    "matches": r.matches,
                }
                for r in sorted(table.values(), key=lambda r: -r.shown)
            ]
            for game, table in sorted(ratings.items())
        },
    }
    if against:
        out["against"] = record_against(every, who(every, against))
    if partner:
        out["with"] = record_against(every, who(every, partner, WITH), WITH)
    return out


def _open(lines: Sequence[RecordLine], number: int, out: TextIO) -> int:
    if not lines:
        raise LocalMisuseError(f"--open {number}: the record is empty (no match of this account to open yet)")
    if not 1 <= number <= len(lines):
        raise LocalMisuseError(
            f"--open {number}: the record lists {len(lines)} {_matches(len(lines))} (1 to {len(lines)})"
        )
    match = lines[number - 1]
    if match.kind == UNREADABLE:
        raise LocalMisuseError(f"{match.path} cannot be replayed: {match.problem}")
    from p2pgenius.cli import replay  # noqa: PLC0415  (prompt_toolkit only when a replay runs)

    return replay.run(argparse.Namespace(transcript=match.path, ascii=False), out)
