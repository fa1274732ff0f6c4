"""Where the record lives, and :func:`remember`: a match that just ended goes into it (``play``
calls it; ``history`` reads the record)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from p2pgenius.local_files import UnsafeFileError
from p2pgenius.net.keystore import account_identities, config_dir
from p2pgenius.record.index import Index
from p2pgenius.record.matches import RecordLine, judged
from p2pgenius.record.ratings import Rating, known

INDEX_NAME = "history.sqlite"


def index_path() -> Path:
    """Where the record's index lives: the config directory's ``history.sqlite``."""
    return config_dir() / INDEX_NAME


def matches_folder() -> Path:
    return config_dir() / "matches"


def remember(where: Path | str) -> RecordLine | None:
    """Put a match that just ended in the record, and return its line as the record reads it
    (None if it is kept elsewhere or the record could not take it: a failure here loses nothing,
    ``history`` reads the transcript itself later)."""
    path = Path(where)
    if path.parent.resolve() != matches_folder().resolve():
        return None  # (a transcript kept elsewhere, --transcript PATH: not in the record)
    failures = (OSError, sqlite3.Error, UnsafeFileError)
    with contextlib.suppress(*failures), Index(index_path(), matches_folder()) as index:
        return index.add(path)
    return None


def mine(lines: Sequence[RecordLine]) -> list[RecordLine]:
    """The lines as this account sees them: its own peer in each is the one whose key is one of
    the account's (never the header's ``me``, which is the writer's unsigned word), and each
    line of a match it holds several transcripts of judged from all of them together."""
    keys = [identity.public for identity in account_identities()]
    return judged(line.owned(keys) for line in lines)


def ratings(game: str, keys: list[bytes]) -> dict[bytes, Rating]:
    """The ratings in ``game`` of the players with ``keys`` as this machine's record knows them
    (the index as it stands: ``history`` brings it up to date); none if there is no record."""
    if not index_path().exists():
        return {}
    try:
        with Index(index_path(), matches_folder()) as index:
            return known(mine(index.matches()), game, keys)
    except (sqlite3.Error, UnsafeFileError):  # (history says what is wrong with the index)
        return {}
