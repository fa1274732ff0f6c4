"""A bundle: chosen transcripts in one file, to prove a record to someone else.

A bundle is the canonical msgpack (protocol/SPEC.md, section 3) of ``["p2pgenius bundle", 1,
[[NAME, TRANSCRIPT], ...]]``: each transcript's file name and its bytes, unchanged. Nothing in it
is trusted: :func:`prove` verifies every transcript with the keys it lists alone, exactly as
``verify`` does one, and sums what they prove per player (a player is a key; a name is only
what that player called itself).

What a bundle proves, and what it cannot (docs/security.md, "What a bundle proves"): each
transcript that verifies as finished holds the result signed by every player's key, and every
message of the history that yields it; one stopped by a forfeit or a cheat holds the evidence (a
forfeit: its claimant's signed claim, unanswered in that copy; a cheat: the cheater's own signed
message). A third party needs nothing but the file. It cannot prove that the bundle is a player's
whole record (matches may be left out), who stands behind a key (check fingerprints with the
person), that a player did not play against itself with two keys, that a forfeit's claimant did
not leave its opponent's answers out of its copy (only the opponent's own copy shows them), or
when a match was played (the date is the writer's clock).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.local_files import TRANSCRIPT_LIMIT_BYTES, TooLargeError, read_within
from p2pgenius.record.matches import UNREADABLE, RecordLine, from_report, judged, once
from p2pgenius.record.verifying import verify

MAGIC: Final = "p2pgenius bundle"
VERSION: Final = 1
BUNDLE_LIMIT_BYTES: Final = 256 * 2**20
"""The largest bundle p2pgenius writes or reads (each transcript in it within its own limit,
:data:`~p2pgenius.local_files.TRANSCRIPT_LIMIT_BYTES`): room for over a thousand of the longest
matches measured (225 kB each, a 4-peer Hornswoggle), at a bounded cost in memory to its reader."""


class BundleError(P2PGeniusError):
    """A file that is no bundle this program reads."""


def write(transcripts: Iterable[tuple[str, bytes]]) -> bytes:
    """A bundle of ``transcripts`` (each its file name and bytes)."""
    return encode([MAGIC, VERSION, [[name, data] for name, data in transcripts]])


def is_bundle(data: bytes) -> bool:
    """Whether ``data`` looks like a bundle (it may still fail to read)."""
    return data[:1] == b"\x93" and MAGIC.encode("ascii") in data[:24]


def limit_of(head: bytes) -> tuple[int, str]:
    """How large a file may be and what it is, from its first bytes: a bundle, or a transcript
    (for :func:`~p2pgenius.local_files.read_within`)."""
    return (BUNDLE_LIMIT_BYTES, "bundle") if is_bundle(head) else (TRANSCRIPT_LIMIT_BYTES, "transcript")


def read(data: bytes) -> list[tuple[str, bytes]]:
    """A bundle's transcripts; :class:`BundleError` if it is not a bundle this version reads."""
    try:
        value = decode(data)
    except EncodingError as exc:
        raise BundleError(f"not a p2pgenius bundle: {exc}") from None
    if not (isinstance(value, list) and len(value) == 3 and value[0] == MAGIC):
        raise BundleError("not a p2pgenius bundle")
    if value[1] != VERSION:
        raise BundleError(f"a bundle of version {value[1]!r}; this program reads version {VERSION}")
    entries = value[2]
    if not isinstance(entries, list) or not all(
        isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and isinstance(e[1], bytes)
        for e in entries
    ):
        raise BundleError("the bundle's list of transcripts is malformed")
    return [(str(name), bytes(data)) for name, data in entries]


@dataclass
class Tally:
    """One player's proven record: per game, matches won, lost and drawn."""

    name: str
    key: bytes
    games: dict[str, list[int]] = field(default_factory=dict)


def prove(entries: Sequence[tuple[str, bytes]]) -> tuple[list[RecordLine], dict[bytes, Tally]]:
    """Every transcript of a bundle verified (the transcripts of one match judged together), and
    what the ones that verify prove per player."""
    matches = []
    held: dict[int, bytes] = {}  # id of a line -> its transcript's bytes
    for name, data in entries:
        try:
            if len(data) > TRANSCRIPT_LIMIT_BYTES:  # (listed as unreadable, as history lists one)
                raise TooLargeError(len(data), TRANSCRIPT_LIMIT_BYTES, "transcript")
            matches.append(from_report(name, verify(data)))
            held[id(matches[-1])] = data
        except (P2PGeniusError, ValueError, TypeError, LookupError) as exc:
            matches.append(RecordLine(name, UNREADABLE, False, problem=str(exc) or type(exc).__name__))
    # (several transcripts of one match: each judged with the others, and counted once)
    matches = judged(matches, lambda line: held[id(line)])
    tallies: dict[bytes, Tally] = {}
    for match in once(matches):  # (judged already: copies alike, nothing read again)
        sides = match.sides()
        if not match.proves or (sides is None and not match.dealt):
            continue
        won, lost = sides if sides is not None else ([p for p in match.players if p.seats], [])
        for player in match.players:
            if player not in won and player not in lost:
                continue
            tally = tallies.setdefault(player.key, Tally(player.name, player.key))
            counts = tally.games.setdefault(match.game, [0, 0, 0])
            counts[2 if sides is None else (0 if player in won else 1)] += 1
    return matches, tallies


def named(paths: Iterable[Path]) -> list[tuple[str, bytes]]:
    """Transcript files as a bundle's entries (their names and bytes; TooLargeError for one
    larger than a transcript may be)."""
    return [(path.name, read_within(path)) for path in paths]
