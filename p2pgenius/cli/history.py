"""``p2pgenius history``: this account's matches, newest first, each backed by its transcript.

The record is read from the index (:mod:`p2pgenius.record.index`), brought up to date first (new
or changed transcripts are verified and kept; ``--rebuild`` reads every one again). Each line:
when, the game, the opponents (name and fingerprint), this account's seats, the result for it,
how the match ended, its length, and whether the transcript verifies. Ratings per game come from
verified results only (:mod:`p2pgenius.record.ratings`). ``--against`` gives the record against
one player; ``--json`` one object for scripts; ``--open N`` replays line N.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from p2pgenius.cli.recorded import index_path, matches_folder, mine
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.catalog import find
from p2pgenius.net.files import Files
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.record.index import Index
from p2pgenius.record.matches import FINISHED, STOPPED, UNCONFIRMED, UNFINISHED, UNREADABLE, RecordLine, once
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
    lines = chosen(every, args.game, args.against)
    if args.open is not None:
        return _open(lines, args.open, out)
    if args.json:
        out.write(json.dumps(as_json(lines, ratings, args.against, every)) + "\n")
        return 0
    if args.against:
        _against(out, every, args.against, args.game)
    _ratings(out, every, ratings, args.game)
    _lines(out, lines)
    return 0


def chosen(every: Sequence[RecordLine], game: str | None, against: str | None) -> list[RecordLine]:
    """The lines of ``game`` (if given) played against ``against`` (a fingerprint, if given)."""
    if game:
        find(game)  # (an unknown game: a one-line error)
    key = who(every, against) if against else None
    return [
        m
        for m in every
        if (not game or m.game == game) and (key is None or any(p.key == key for p in m.opponents))
    ]


def who(every: Sequence[RecordLine], typed: str) -> bytes:
    """The key of the one opponent whose fingerprint starts with ``typed`` (dashes and case
    aside); LocalMisuseError if none or several."""
    wanted = typed.replace("-", "").replace(" ", "").upper()
    if len(wanted) < 4:
        raise LocalMisuseError(f"--against {typed!r}: give at least the first 4 characters of a fingerprint")
    keys = {p.key: p.name for m in every for p in m.opponents}
    found = [key for key in keys if fingerprint(key).replace("-", "").startswith(wanted)]
    if not found:
        raise LocalMisuseError(f"no opponent in your record has a fingerprint starting {typed!r}")
    if len(found) > 1:
        told = ", ".join(f"{keys[k]} ({fingerprint(k)})" for k in found)
        raise LocalMisuseError(f"--against {typed!r} fits several opponents: {told}; give more of it")
    return found[0]


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
        others = ", ".join(f"{printable(p.name)} ({p.fingerprint})" for p in match.opponents) or "-"
        head = f"{number:>4}  {date:<23}  {printable(match.game):<12}  {match.result()}"
        out.write(f"{head}  vs {others}\n")
        detail = [
            f"seats {seats_words(match)}",
            printable(match.ending()),
            length_words(match),
            verdict_words(match),
        ]
        if match.match_id in first:  # (another peer's transcript of that match, or a copy)
            detail.append(f"the same match as line {first[match.match_id]}: counted once")
        elif match.match_id:
            first[match.match_id] = number
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


def record_against(every: Sequence[RecordLine], key: bytes) -> dict[str, list[int]]:
    """Per game, [won, lost, drawn] against the player with ``key`` (verified results only)."""
    out: dict[str, list[int]] = {}
    for match in once(every):
        if match.counts and any(p.key == key for p in match.opponents):
            tally = out.setdefault(match.game, [0, 0, 0])
            tally[{"won": 0, "lost": 1}.get(match.side() or "", 2)] += 1
    return out


def _against(out: TextIO, every: Sequence[RecordLine], typed: str, game: str | None) -> None:
    key = who(every, typed)
    name = next(p.name for m in every for p in m.opponents if p.key == key)
    out.write(f"against {name} ({fingerprint(key)}), verified results:\n")
    tallies = record_against(every, key)
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
