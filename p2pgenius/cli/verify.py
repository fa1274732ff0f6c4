"""``p2pgenius verify TRANSCRIPT``: a third-party check of a match, with the public keys alone."""

from __future__ import annotations

import argparse
import json
from typing import Any, Final, TextIO

from p2pgenius.cli.export import read, record
from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.record import bundle
from p2pgenius.record.matches import FINISHED, RecordLine
from p2pgenius.record.verifying import verify
from p2pgenius.wording import printable

REFUSALS_SHOWN: Final = 12
"""The most refused records listed one a line; past it, the first :data:`FIRST_SHOWN` and how
many more (a file damaged at one record has every later one refused after it: hundreds of lines
that say the same, which ``--json`` still lists)."""
FIRST_SHOWN: Final = 8


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Verify and print; returns the exit code."""
    data = read(args.transcript, bundles=True)
    if bundle.is_bundle(data):
        return verify_bundle(args, bundle.read(data), out)
    report = verify(data)
    if args.json:
        out.write(
            json.dumps(
                {
                    "ok": report.ok,
                    "summary": report.summary,
                    "outcome": report.outcome,
                    "messages": report.messages,
                    "rejected": report.rejected,
                    "disputed_time": report.disputed_time,
                    "fault": None
                    if report.fault is None
                    else {
                        "kind": report.fault.kind,
                        "peer": report.fault.peer,
                        "stage": report.fault.stage,
                        "reason": report.fault.reason,
                    },
                }
            )
            + "\n"
        )
    else:
        out.write(printable(report.summary) + "\n")  # (peers name themselves)
        shown = report.rejected if len(report.rejected) <= REFUSALS_SHOWN else report.rejected[:FIRST_SHOWN]
        for line in shown:  # (a record's reason, and what peers sent: never raw)
            out.write(f"  refused: {printable(line)}\n")
        if len(shown) < len(report.rejected):
            more = len(report.rejected) - len(shown)
            out.write(f"  ... and {more} more refused (p2pgenius verify --json lists every one)\n")
        for line in report.disputed_time:
            out.write(f"  time disputed: {printable(line)}\n")
        if getattr(args, "text", False):
            out.write("\n" + record(report))
    return 0 if report.ok else 1


def verify_bundle(args: argparse.Namespace, entries: list[tuple[str, bytes]], out: TextIO) -> int:
    """Every transcript of a bundle verified, then the record they prove per player; 0 if every
    one verifies as a finished match."""
    if not entries:
        raise P2PGeniusError("the bundle holds no transcript: it proves nothing")
    matches, tallies = bundle.prove(entries)
    good = sum(1 for m in matches if m.proves)
    if args.json:
        out.write(json.dumps({"ok": good == len(matches), **bundle_json(matches, tallies)}) + "\n")
    else:
        bundle_text(out, matches, tallies, good)
    return 0 if good == len(matches) else 1


def bundle_json(matches: list[RecordLine], tallies: dict[bytes, bundle.Tally]) -> dict[str, Any]:
    """What a bundle proves, for scripts: each transcript, then each player's record."""
    return {
        "transcripts": [
            {
                "name": m.path,
                "game": m.game,
                "verified": m.verified,
                "proves": m.proves,
                "kind": m.kind,
                "winners": list(m.winners),
                "ending": m.reason,
                "problem": m.problem,
                "unchained": m.unchained,
                "players": [
                    {"name": p.name, "fingerprint": p.fingerprint, "seats": list(p.seats)} for p in m.players
                ],
            }
            for m in matches
        ],
        "record": [
            {
                "name": t.name,
                "fingerprint": fingerprint(t.key),
                "games": {
                    g: dict(zip(("won", "lost", "drawn"), n, strict=True)) for g, n in sorted(t.games.items())
                },
            }
            for t in tallies.values()
        ],
    }


def bundle_text(
    out: TextIO, matches: list[RecordLine], tallies: dict[bytes, bundle.Tally], good: int
) -> None:
    """What a bundle proves, for people."""
    count = f"{len(matches)} transcript" + ("" if len(matches) == 1 else "s")
    proven = f"{good} verifies as a proven result" if good == 1 else f"{good} verify as proven results"
    out.write(f"bundle of {count}: {proven}\n")
    counted: set[str] = set()
    for m in matches:
        players = ", ".join(f"{printable(p.name)} ({p.fingerprint})" for p in m.players)
        # (names are the players' own: the winner's fingerprint tells two Anns apart)
        sides = m.sides()  # (before the deal, a forfeit's others won, no seat held)
        won = " and ".join(
            f"{printable(p.name)} ({p.fingerprint})"
            for p in (sides[0] if sides is not None else m.players)
            if sides is not None or set(p.seats) & set(m.winners)
        )
        how = printable(m.reason) if m.kind == FINISHED else f"by a fault: {printable(m.reason)}"
        ended = (
            f"{won} won ({how})"
            if won
            else f"a draw ({how})"
            if m.kind == FINISHED
            else f"nobody won ({how})"
        )
        told = f"{m.game}: {ended}; {players}"
        told += f"; {m.unchained} msg record(s) that fail the envelope checks, ignored" if m.unchained else ""
        if m.proves and m.one_match in counted:
            told += "; the same match as one above: counted once"
        counted.add(m.one_match)
        said = told if m.proves else f"does not prove a result: {printable(m.problem or m.result())}"
        out.write(f"  {'ok ' if m.proves else 'NO '} {printable(m.path)}: {said}\n")
    out.write("what they prove, per player (results signed by every player; a forfeit or a cheat lost):\n")
    for tally in tallies.values():
        games = "; ".join(
            f"{g} {n[0]} won, {n[1]} lost, {n[2]} drawn" for g, n in sorted(tally.games.items())
        )
        out.write(f"  {printable(tally.name)} ({fingerprint(tally.key)}): {games}\n")
    out.write("(a bundle proves these matches, not that they are all of a player's matches)\n")
