"""``p2pgenius export TRANSCRIPT``: the record of a match for people, PGN-like (docs/export.md).

:func:`record` turns what :func:`p2pgenius.protocol.transcript.verify` found into text: a header
of ``[Tag "value"]`` lines (the game, who held each seat with their full fingerprints, the options,
the result, the verdict), a blank line, one numbered line per stage in the game's own notation
(its spec's ``notation``), and the result. It reads nothing but the report, so the same transcript
always gives the same text.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from p2pgenius.cli.recorded import index_path, matches_folder, mine
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.local_files import TooLargeError, read_within
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import REFUSED, UNCONFIRMED, Report
from p2pgenius.record import bundle
from p2pgenius.record.index import Index
from p2pgenius.record.matches import RecordLine, once
from p2pgenius.record.verifying import verify
from p2pgenius.wording import printable


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Export one transcript to ``args.out`` (default: ``out``), or a bundle of them
    (``args.bundle``); returns the exit code."""
    if args.bundle:
        return write_bundle(args, out)
    if len(args.transcript) != 1:
        raise LocalMisuseError("export takes one TRANSCRIPT (several only with --bundle FILE)")
    text = record(verify(read(args.transcript[0])))
    if args.out is None:
        out.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise LocalMisuseError(f"cannot write {args.out}: {exc.strerror}") from None
    return 0


def write_bundle(args: argparse.Namespace, out: TextIO) -> int:
    """``export --bundle FILE``: the transcripts named, or every finished match of the record
    that verifies (``--game``: of that game), in one file."""
    if args.transcript:
        paths = list(args.transcript)
    else:
        with Index(index_path(), matches_folder()) as index:
            index.refresh()
            every = mine(index.matches())
        chosen = [m for m in once(every) if m.counts and (not args.game or m.game == args.game)]
        paths = [path for m in reversed(chosen) for path in _proving(m, every)]  # (oldest first)
    entries, total = [], 0
    for path in paths:
        entries.append((Path(path).name, read(path)))
        total += len(entries[-1][1])
        _fits(total)  # (before the next is read: the memory held stays bounded too)
    if not entries:
        raise LocalMisuseError("no finished match that verifies in your record: nothing to bundle")
    data = bundle.write(entries)
    _fits(len(data))
    try:
        Path(args.bundle).write_bytes(data)
    except OSError as exc:
        raise LocalMisuseError(f"cannot write {args.bundle}: {exc.strerror}") from None
    count = len(entries)
    out.write(
        f"{count} {'transcript' if count == 1 else 'transcripts'} in {args.bundle}; "
        f"check them with: p2pgenius verify {args.bundle}\n"
    )
    return 0


def _proving(line: RecordLine, every: Sequence[RecordLine]) -> list[str]:
    """The transcripts a bundle needs to prove what the record says of ``line``'s match: its own,
    or, where no copy proves it by itself (a result its copies prove only together, terms its host
    signed twice with one ready), every copy of the match and every set of terms of its ready."""
    if line.alone[0] != 0:
        return [line.path]
    return [m.path for m in every if m.one_match == line.one_match]


def _fits(size: int) -> None:
    """Refuse a bundle of ``size`` bytes if it would be larger than a reader takes."""
    if size > bundle.BUNDLE_LIMIT_BYTES:
        raise P2PGeniusError(
            f"the bundle would be more than {bundle.BUNDLE_LIMIT_BYTES} bytes "
            f"({bundle.BUNDLE_LIMIT_BYTES >> 20} MiB), more than a reader takes: bundle fewer "
            "matches (--game G, or name the transcripts)"
        )


def read(path: str, *, bundles: bool = False) -> bytes:
    """A transcript's bytes (``bundles``: or a bundle's), read within the limit of its kind: a
    file that cannot be read is the user's to fix (exit 2); one too large is refused (exit 1)
    by its size, before it is read whole."""
    try:
        return read_within(path, kind=bundle.limit_of if bundles else None)
    except OSError as exc:
        raise LocalMisuseError(f"cannot read {path}: {exc.strerror}") from None
    except TooLargeError as exc:
        raise P2PGeniusError(f"{path}: {exc}") from None


def record(report: Report) -> str:
    """The whole record: tags, a blank line, the moves, the result line (ends with a newline)."""
    result = result_words(report)
    lines = [_tag(name, value) for name, value in tags(report, result)]
    lines.append("")
    lines += moves(report)
    lines.append(f"Result: {result}")
    return "\n".join(printable(line) for line in lines) + "\n"


def tags(report: Report, result: str) -> list[tuple[str, str]]:
    """The header's tags, in their fixed order."""
    terms: Mapping[str, Any] = report.terms or {}
    game = report.game
    title = _title(game)
    found: list[tuple[str, str]] = [("Event", f"p2pgenius: {title or game or 'a match'}")]
    found.append(("Game", game or "?"))
    date = report.meta.get("date")
    if isinstance(date, str) and date:
        found.append(("Date", date))
    keys = terms.get("peers") or report.meta.get("peers") or []
    names = report.names or [f"peer {peer}" for peer in range(len(keys))]
    players = [f"{_name(names, peer)} (peer {peer}, {_fingerprint(keys, peer)})" for peer in range(len(keys))]
    if report.owner:
        found += [(f"P{seat}", players[peer]) for seat, peer in enumerate(report.owner)]
    else:  # before the deal: no seats yet, only the peers at the table
        found += [(f"Peer{peer}", player) for peer, player in enumerate(players)]
    if report.terms is not None:
        found.append(("Options", _settings(terms.get("options"))))
        found.append(("Setup", _settings(terms.get("setup"))))
    found.append(("Result", result))
    found.append(("Verified", report.summary))
    return found


def moves(report: Report) -> list[str]:
    """One numbered line per stage played: ``N. ...`` with N the stage number plus one. A stage
    played while a seat was kept in the dark ends with the game's mark of it (``{p1 in the
    dark}``, its spec's ``dark_mark``); one the transcript never opens (it stops before the
    withheld choices were opened) says so instead of the moves (``unopened_mark``)."""
    if not report.steps or report.game is None:
        return []
    spec = get_spec(report.game)
    opened = [step for step in report.steps if step.state is not None]
    lines = spec.notation(report.initial, opened) if opened else []
    lines += [f"{{{spec.unopened_mark()}}}" for step in report.steps[len(opened) :]]
    out = []
    for step, line in zip(report.steps, lines, strict=True):
        dark = " and ".join(f"p{seat}" for seat in step.dark)
        out.append(f"{step.stage + 1}. {line}" + (f" {{{spec.dark_mark(dark)}}}" if dark else ""))
    return out


def result_words(report: Report) -> str:
    """The result: the winner and why, or the fault and whose, or "unconfirmed: ..." (a result
    not every player signed), "refused" (terms the transcript's peer refused) or "incomplete"."""
    fault = report.fault
    if fault is not None:
        at = f" at step {fault.stage + 1}" if fault.stage >= 0 else ""
        if fault.peer is None:  # (contested: a forfeit and its answer crossed)
            return f"{fault.kind}{at}: no result"
        seats = [f"p{seat}" for seat, peer in enumerate(report.owner) if peer == fault.peer]
        held = f": {' and '.join(seats)}" if seats else ""
        return f"{fault.kind} by peer {fault.peer} ({_name(report.names, fault.peer)}{held}){at}"
    if report.standing == REFUSED:
        return "refused"
    if report.outcome is None or report.game is None:
        return "incomplete"
    spec = get_spec(report.game)
    said = spec.outcome_words(spec.read_outcome(report.outcome))  # "p0 wins (knocked out)"
    if report.standing == UNCONFIRMED:  # (its moves yield a result no other player signed)
        return f"unconfirmed: {said}"
    return said


def _tag(name: str, value: str) -> str:
    """``[Name "value"]``, with backslashes and double quotes escaped by a backslash."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def _title(game: str | None) -> str:
    """The game's title for people ("" for a game this program does not know)."""
    try:
        return get_spec(game).title if game is not None else ""
    except LocalMisuseError:
        return ""


def _name(names: Sequence[str], peer: int) -> str:
    return names[peer] if 0 <= peer < len(names) else f"peer {peer}"


def _fingerprint(keys: Sequence[Any], peer: int) -> str:
    key = keys[peer]
    return fingerprint(key) if isinstance(key, bytes) else "?"


def _settings(values: Any) -> str:
    """``key=value`` pairs in key order (a value other than text as compact JSON), or
    ``defaults``."""
    if not isinstance(values, Mapping) or not values:
        return "defaults"
    return " ".join(f"{key}={_value(values[key])}" for key in sorted(values))


def _value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=lambda b: b.hex())
