"""The record's index: one SQLite file (the standard library's ``sqlite3``) beside the matches.

Each transcript in the matches folder is read once (:func:`p2pgenius.record.matches.read`: it is
verified) and its line kept with the file's size and modification time; :meth:`Index.refresh`
reads again only a file that changed or is new, and forgets the lines of files that are gone (it
never deletes a file). :meth:`Index.rebuild` forgets everything and reads every file again: the
index holds nothing the transcripts do not, so a lost or damaged index costs only that time. A file
in the folder that is neither a transcript nor one of a transcript's companions (its secrets, lock,
stage note, invite, log, a correspondence match's state) is listed as foreign; a transcript that
does not read as one, as damaged.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from p2pgenius.canonical import decode, encode
from p2pgenius.local_files import PRIVATE, open_own
from p2pgenius.record.matches import UNREADABLE, Player, RecordLine, read

SCHEMA: Final = 4
"""The index's layout; an index of another layout is rebuilt (4: what an unfinished match's own
peer owed, and from when it was late)."""
COMPANIONS: Final = (".secrets", ".invite", ".lock", ".stage", ".log", ".tmp", ".mail", ".play")
"""Files that go beside a transcript (``X.p2pt.lock``, ``X.secrets``, a correspondence match's
``X.p2pt.mail``...): not listed."""
TRANSCRIPT: Final = ".p2pt"
FIELDS: Final = (
    "path",
    "size",
    "mtime",
    "kind",
    "verified",
    "game",
    "date",
    "role",
    "me",
    "players",
    "winners",
    "reason",
    "fault_peer",
    "fault_kind",
    "steps",
    "problem",
    "outcome",
    "match_id",
    "chains",
    "late",
    "late_at",
)


class Index:
    """The index in ``database`` of the transcripts in ``folder``."""

    def __init__(self, database: Path, folder: Path) -> None:
        self.database = database
        self.folder = folder
        database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            self.db = self._open()
        except sqlite3.DatabaseError:  # a damaged index: it holds nothing of its own; start again
            self._set_aside()
            self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        # SQLite follows a symbolic link at the database's own path (its journal it does not):
        # the file is made here, private (the journal takes its mode), and a link refused.
        os.close(open_own(self.database, os.O_RDWR | os.O_CREAT, PRIVATE))
        db = sqlite3.connect(self.database)
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            db.close()
            raise sqlite3.DatabaseError("the index fails its check")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA:
            db.execute("DROP TABLE IF EXISTS matches")
        db.execute(
            "CREATE TABLE IF NOT EXISTS matches (path TEXT PRIMARY KEY, size INTEGER, mtime INTEGER,"
            " kind TEXT, verified INTEGER, game TEXT, date TEXT, role TEXT, me INTEGER, players TEXT,"
            " winners TEXT, reason TEXT, fault_peer INTEGER, fault_kind TEXT, steps INTEGER,"
            " problem TEXT, outcome TEXT, match_id TEXT, chains BLOB, late TEXT, late_at REAL)"
        )
        db.execute("CREATE INDEX IF NOT EXISTS by_date ON matches (date)")
        db.execute(f"PRAGMA user_version = {SCHEMA}")
        db.commit()
        return db

    def _set_aside(self) -> None:
        """Move a damaged index out of the way (kept, renamed: nothing is deleted)."""
        with contextlib.suppress(OSError):
            self.database.replace(self.database.with_name(self.database.name + ".damaged"))

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    # -- keeping it up to date ---------------------------------------------------------------------

    def files(self) -> list[Path]:
        """The files of the folder the record lists: transcripts, and anything foreign."""
        if not self.folder.is_dir():
            return []
        return sorted(
            path
            for path in self.folder.iterdir()
            if path.is_file() and not path.name.startswith(".") and not path.name.endswith(COMPANIONS)
        )

    def refresh(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Read every new or changed file (``progress(done, total)`` after each), forget the
        lines of files that are gone; returns how many files were read. An index found damaged
        on the way is set aside and read again from the transcripts."""
        try:
            return self._refresh(progress)
        except sqlite3.DatabaseError:
            self.db.close()
            self._set_aside()
            self.db = self._open()
            return self._refresh(progress)

    def _refresh(self, progress: Callable[[int, int], None] | None) -> int:
        known = {row[0]: (row[1], row[2]) for row in self.db.execute("SELECT path, size, mtime FROM matches")}
        present: dict[str, tuple[Path, int, int]] = {}
        for path in self.files():
            with contextlib.suppress(OSError):  # (gone since it was listed)
                present[_key(path)] = (path, *_version(path.stat()))
        stale = [(key, *held) for key, held in present.items() if known.get(key) != held[1:]]
        for done, (key, path, size, mtime) in enumerate(stale, start=1):
            self._keep(replace(self._read(path), path=key), size, mtime)
            if progress is not None:
                progress(done, len(stale))
        gone = set(known) - set(present)
        self.db.executemany("DELETE FROM matches WHERE path = ?", [(path,) for path in sorted(gone)])
        self.db.commit()
        return len(stale)

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Forget every line and read every file again."""
        self.db.execute("DELETE FROM matches")
        self.db.commit()
        return self.refresh(progress)

    def add(self, path: Path) -> RecordLine:
        """Read one transcript now (a match that just ended) and keep its line."""
        size, mtime = _version(path.stat())
        match = replace(self._read(path), path=_key(path))
        self._keep(match, size, mtime)
        self.db.commit()
        return match

    @staticmethod
    def _read(path: Path) -> RecordLine:
        if path.suffix != TRANSCRIPT:
            return RecordLine(str(path), UNREADABLE, False, problem="foreign: not a p2pgenius transcript")
        return read(path)

    def _keep(self, match: RecordLine, size: int, mtime: int) -> None:
        players = [[p.name, p.key.hex(), list(p.seats)] for p in match.players]
        row = (
            match.path,
            size,
            mtime,
            match.kind,
            int(match.verified),
            match.game,
            match.date,
            match.role,
            match.me,
            json.dumps(players),
            json.dumps(list(match.winners)),
            match.reason,
            match.fault_peer,
            match.fault_kind,
            match.steps,
            match.problem,
            json.dumps(dict(match.outcome), default=str),
            match.match_id,
            encode(list(match.chains)),
            match.late,
            match.late_at,
        )
        self.db.execute(f"INSERT OR REPLACE INTO matches VALUES ({', '.join('?' * len(FIELDS))})", row)

    # -- reading it --------------------------------------------------------------------------------

    def matches(self) -> list[RecordLine]:
        """Every line, newest first."""
        try:
            return self._matches()
        except sqlite3.DatabaseError:  # (damaged since it was opened: read again from the files)
            self.refresh()
            return self._matches()

    def _matches(self) -> list[RecordLine]:
        rows = self.db.execute(f"SELECT {', '.join(FIELDS)} FROM matches ORDER BY date DESC, path DESC")
        return [_match(dict(zip(FIELDS, row, strict=True))) for row in rows]

    def __iter__(self) -> Iterator[RecordLine]:
        return iter(self.matches())


def _key(path: Path) -> str:
    """A file's path as the index keeps it: text SQLite can hold (a name that is not UTF-8 is
    kept with its odd bytes shown as U+FFFD)."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _version(stat: os.stat_result) -> tuple[int, int]:
    """What tells a changed file: its size, and its modification and change times and inode
    (a copy that keeps the modification time still gets a new change time)."""
    return stat.st_size, stat.st_mtime_ns + stat.st_ctime_ns + stat.st_ino


def _match(row: dict[str, Any]) -> RecordLine:
    players = tuple(
        Player(name, bytes.fromhex(key), tuple(seats)) for name, key, seats in json.loads(row["players"])
    )
    return RecordLine(
        row["path"],
        row["kind"],
        bool(row["verified"]),
        game=row["game"],
        date=row["date"],
        role=row["role"],
        me=row["me"],
        players=players,
        winners=tuple(json.loads(row["winners"])),
        reason=row["reason"],
        fault_peer=row["fault_peer"],
        fault_kind=row["fault_kind"],
        steps=row["steps"],
        problem=row["problem"],
        outcome=json.loads(row["outcome"]),
        match_id=row["match_id"] or "",
        chains=tuple(decode(row["chains"])) if row["chains"] else (),
        late=row["late"] or "",
        late_at=row["late_at"] or 0.0,
    )
