"""The record's index: one SQLite file (the standard library's ``sqlite3``) beside the matches.

Each transcript in the matches folder is read once (:func:`p2pgenius.record.matches.read`: it is
verified) and its line kept with the file's size and modification time; :meth:`Index.refresh`
reads again only a file that changed or is new, and forgets the lines of files that are gone (it
never deletes a file). :meth:`Index.rebuild` forgets everything and reads every file again: the
index holds nothing the transcripts do not, so a lost or damaged index costs only that time. A file
in the folder that is neither a transcript nor one of a transcript's companions (its secrets, lock,
stage note, invite, log, a correspondence match's state) is listed as foreign; a transcript that
does not read as one, as damaged.

Many files to read (the first ``history``, a ``--rebuild``) are verified by worker processes, one
a core (:func:`~p2pgenius.record.verifying.cores`): each verifies whole transcripts exactly as
:func:`read` does here (a transcript's signatures checked first on its share of the cores), and
only this process writes the index, a batch of lines per transaction. A batch is committed with
the size and modification time each file had before it was read, so an index interrupted
part-way keeps the lines it has and the next refresh reads the rest (a file changed meanwhile
reads as changed).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import sqlite3
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.local_files import PRIVATE, open_own
from p2pgenius.record.matches import UNREADABLE, Player, RecordLine, read
from p2pgenius.record.verifying import cores, use_threads

SCHEMA: Final = 6
"""The index's layout; an index of another layout is rebuilt (4: what an unfinished match's own
peer owed, and from when it was late; 5: a file's ``stamp``, its times and inode each, where 4 kept
their sum; 6: each match's joiners' signed ``readies``)."""
COMPANIONS: Final = (".secrets", ".invite", ".lock", ".stage", ".log", ".tmp", ".mail", ".play")
"""Files that go beside a transcript (``X.p2pt.lock``, ``X.secrets``, a correspondence match's
``X.p2pt.mail``...): not listed."""
TRANSCRIPT: Final = ".p2pt"
FIELDS: Final = (
    "path",
    "size",
    "stamp",
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
    "readies",
    "chains",
    "late",
    "late_at",
)
BATCH: Final = 100
"""Lines written per transaction while reading many files (what an interruption can cost)."""
PARALLEL_FROM: Final = 24
"""Fewer files to read than this are read in this process (starting workers costs more)."""


class Index:
    """The index in ``database`` of the transcripts in ``folder``."""

    def __init__(self, database: Path, folder: Path) -> None:
        self.database = database
        self.folder = folder
        database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            self.db = self._open()
        except sqlite3.DatabaseError as exc:  # a damaged index: it holds nothing of its own; start again
            self._start_again(exc, opened=False)

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
            "CREATE TABLE IF NOT EXISTS matches (path TEXT PRIMARY KEY, size INTEGER, stamp TEXT,"
            " kind TEXT, verified INTEGER, game TEXT, date TEXT, role TEXT, me INTEGER, players TEXT,"
            " winners TEXT, reason TEXT, fault_peer INTEGER, fault_kind TEXT, steps INTEGER,"
            " problem TEXT, outcome TEXT, match_id TEXT, readies TEXT, chains BLOB, late TEXT,"
            " late_at REAL)"
        )
        db.execute("CREATE INDEX IF NOT EXISTS by_date ON matches (date)")
        db.execute(f"PRAGMA user_version = {SCHEMA}")
        db.commit()
        return db

    def _start_again(self, exc: sqlite3.DatabaseError, *, opened: bool = True) -> None:
        """An index found damaged (``exc``; one another process holds: said busy, kept): set
        aside, and a new one opened, empty (``opened``: this one closed first)."""
        busy(exc)
        if opened:
            self.db.close()
        self._set_aside()
        self.db = self._open()

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

    def refresh(
        self, progress: Callable[[int, int], None] | None = None, *, processes: int | None = None
    ) -> int:
        """Read every new or changed file (``progress(done, total)`` after each), forget the
        lines of files that are gone; returns how many files were read. ``processes``: how many
        verify at once (None: one a core when there are many files; 1: this
        process alone). An index found damaged on the way is set aside and read again from the
        transcripts."""
        try:
            return self._refresh(progress, processes)
        except sqlite3.DatabaseError as exc:
            self._start_again(exc)
            return self._refresh(progress, processes)

    def _refresh(self, progress: Callable[[int, int], None] | None, processes: int | None) -> int:
        known = {row[0]: (row[1], row[2]) for row in self.db.execute("SELECT path, size, stamp FROM matches")}
        present: dict[str, tuple[Path, int, str]] = {}
        for path in self.files():
            with contextlib.suppress(OSError):  # (gone since it was listed)
                present[_key(path)] = (path, *_version(path.stat()))
        gone = set(known) - set(present)
        with self.db:
            self.db.executemany("DELETE FROM matches WHERE path = ?", [(path,) for path in sorted(gone)])
        stale = [(key, *held) for key, held in present.items() if known.get(key) != held[1:]]
        count = processes if processes is not None else (cores() if len(stale) >= PARALLEL_FROM else 1)
        batch: list[tuple[Any, ...]] = []
        with contextlib.closing(_read_all([path for _, path, _, _ in stale], count)) as lines:
            for done, ((key, _, size, stamp), match) in enumerate(zip(stale, lines, strict=True), start=1):
                batch.append(_row(replace(match, path=key), size, stamp))
                if len(batch) >= BATCH:
                    self._keep(batch)
                    batch = []
                if progress is not None:
                    progress(done, len(stale))
        self._keep(batch)
        return len(stale)

    def rebuild(
        self, progress: Callable[[int, int], None] | None = None, *, processes: int | None = None
    ) -> int:
        """Forget every line and read every file again."""
        self.db.execute("DELETE FROM matches")
        self.db.commit()
        return self.refresh(progress, processes=processes)

    def add(self, path: Path) -> RecordLine:
        """Read one transcript now (a match that just ended) and keep its line."""
        size, stamp = _version(path.stat())
        match = replace(_read_one(path), path=_key(path))
        self._keep([_row(match, size, stamp)])
        return match

    def _keep(self, rows: list[tuple[Any, ...]]) -> None:
        """Write ``rows`` (:func:`_row`) in one transaction."""
        if rows:
            with self.db:
                self.db.executemany(
                    f"INSERT OR REPLACE INTO matches VALUES ({', '.join('?' * len(FIELDS))})", rows
                )

    # -- reading it --------------------------------------------------------------------------------

    def matches(self) -> list[RecordLine]:
        """Every line, newest first."""
        try:
            return self._matches()
        except sqlite3.DatabaseError as exc:  # (damaged since it was opened, or in a line its
            # check passed, text that is no UTF-8: set aside, and read again from the files)
            self._start_again(exc)
            self.refresh()
            return self._matches()

    def _matches(self) -> list[RecordLine]:
        rows = self.db.execute(f"SELECT {', '.join(FIELDS)} FROM matches ORDER BY date DESC, path DESC")
        return [_match(dict(zip(FIELDS, row, strict=True))) for row in rows]

    def __iter__(self) -> Iterator[RecordLine]:
        return iter(self.matches())


def _read_one(path: Path) -> RecordLine:
    """One file of the folder as a line (a transcript verified: :func:`read`)."""
    if path.suffix != TRANSCRIPT:
        return RecordLine(str(path), UNREADABLE, False, problem="foreign: not a p2pgenius transcript")
    return read(path)


def _read_all(paths: list[Path], processes: int) -> Generator[RecordLine, None, None]:
    """Each of ``paths`` as a line, in their order, verified by ``processes`` at once (should the
    workers die, this process reads the rest)."""
    if processes <= 1 or len(paths) <= 1:
        yield from map(_read_one, paths)
        return
    # (spawned, not forked: a fork copies whatever threads and locks the caller holds)
    context = multiprocessing.get_context("spawn")
    workers = min(processes, len(paths))
    try:
        pool = ProcessPoolExecutor(
            workers, mp_context=context, initializer=_worker_begins, initargs=(max(1, cores() // workers),)
        )
    except (OSError, ImportError, NotImplementedError):  # (no process pools here: no /dev/shm, say)
        yield from map(_read_one, paths)
        return
    done = 0
    try:
        for match in pool.map(_read_one, paths, chunksize=_chunk(len(paths), processes)):
            done += 1
            yield match
    except BrokenProcessPool:
        yield from map(_read_one, paths[done:])
    finally:  # (interrupted: the files not yet read are not waited for)
        pool.shutdown(wait=False, cancel_futures=True)


def _chunk(count: int, processes: int) -> int:
    """Files handed to a worker at a time: few, so that lines come steadily (progress, batches)."""
    return max(1, min(8, count // (processes * 8)))


def busy(exc: sqlite3.DatabaseError) -> None:
    """Raise, in words, an error that says the index is held by another process (locked past
    SQLite's wait): nothing is damaged, and setting it aside would read every transcript again."""
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
        raise P2PGeniusError(
            "the record's index is busy (another p2pgenius process is writing it): try again in a moment"
        ) from None


def _worker_begins(threads: int) -> None:
    """A worker leaves Ctrl-C to the process that started it (which stops them all), and checks
    its transcripts' signatures on ``threads`` threads (its share of the cores: the others are
    the other workers')."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    use_threads(threads)


def _row(match: RecordLine, size: int, stamp: str) -> tuple[Any, ...]:
    """A line as the index keeps it, with its file's version."""
    players = [[p.name, p.key.hex(), list(p.seats)] for p in match.players]
    return (
        match.path,
        size,
        stamp,
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
        match.readies,
        encode(list(match.chains)),
        match.late,
        match.late_at,
    )


def _key(path: Path) -> str:
    """A file's path as the index keeps it: text SQLite can hold (a name that is not UTF-8 is
    kept with its odd bytes shown as U+FFFD)."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _version(stat: os.stat_result) -> tuple[int, str]:
    """What tells a changed file: its size, and its modification and change times and inode,
    each (a copy that keeps the modification time still gets a new change time; their sum, kept
    before, let a file rewritten in place keep its old line by setting a modification time that
    made up for the new change time)."""
    return stat.st_size, f"{stat.st_mtime_ns}:{stat.st_ctime_ns}:{stat.st_ino}"


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
        readies=row["readies"] or "",
        chains=tuple(decode(row["chains"])) if row["chains"] else (),
        late=row["late"] or "",
        late_at=row["late_at"] or 0.0,
    )
