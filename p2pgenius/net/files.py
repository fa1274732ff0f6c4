"""A peer's files: the transcript and the secrets of its match (and, optionally, a wire log).

Each is opened so that a symbolic link planted at its path is refused and nothing is written
through it, and the private ones are made with mode 0600 (:mod:`p2pgenius.local_files`)."""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass, field
from pathlib import Path

from p2pgenius.errors import LocalMisuseError
from p2pgenius.local_files import (
    PRIVATE,
    SHARED,
    UnsafeFileError,
    check,
    open_own,
    read_stage_note,
    replace,
    stage_note,
    write_all,
)
from p2pgenius.protocol.transcript import frame


class MatchInUseError(LocalMisuseError):
    """Another process holds this match's files (one match, one process)."""


@dataclass
class Files:
    """Where this peer's transcript and secrets go."""

    transcript: Path
    secrets: Path
    log: Path | None = None
    _open: dict[Path, int] = field(default_factory=dict, repr=False)
    _lock: int | None = field(default=None, repr=False)

    @property
    def lock_path(self) -> Path:
        """Beside the transcript (its name plus ``.lock``): held by the process playing the match."""
        return self.transcript.with_name(self.transcript.name + ".lock")

    @property
    def invite(self) -> Path:
        """Beside the transcript (``.invite`` for its suffix): a host's invite, seat token and all."""
        return self.transcript.with_suffix(".invite")

    def check(self) -> None:
        """Refuse, before anything is written, a symbolic link, something other than a regular
        file or another user's file at any of this match's paths (UnsafeFileError, naming it)."""
        log = [self.log] if self.log is not None else []
        check(self.transcript, self.secrets, self.lock_path, self.stage_note, self.invite, *log)

    def lock(self) -> None:
        """Hold this match's files for this process until it ends (the kernel lets go if it dies,
        even by SIGKILL): a second process on one seat would sign messages of its own beside ours,
        and the other peers would take the honest player for a cheat (equivocation). Raises
        MatchInUseError, naming the process, if another one holds them, and UnsafeFileError if
        any of their paths is a link or not this user's (:meth:`check`). A missing folder is
        made, private (mode 0700)."""
        if self._lock is not None:
            return
        folder = self.transcript.parent
        try:  # (private, made here: it will hold the secrets and the invite)
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise LocalMisuseError(f"cannot make the folder {folder}: {exc.strerror}") from None
        self.check()
        # (No O_EXCL: a lock left by a process that was killed is taken over, never a link.)
        descriptor = open_own(self.lock_path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(descriptor)
            os.close(descriptor)
            raise MatchInUseError(
                f"{self.transcript} is open in another p2pgenius process{holder}: one match, one "
                "process (a second one on the same seat would be taken for a cheat). Finish or stop "
                "that one first"
            ) from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode("ascii"), 0)
        self._lock = descriptor

    def live(self) -> bool:
        """Whether another process holds this match's files now."""
        if self._lock is not None or not self.lock_path.exists():
            return False
        try:
            descriptor = open_own(self.lock_path, os.O_RDWR)
        except (OSError, UnsafeFileError):
            return False
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(descriptor)  # (closing lets go of a lock we took only to look)
        return False

    def start(self, header: bytes) -> None:
        """Begin a match's files: the transcript holds only ``header``, the secrets file is empty.

        Empty, not merely there: a reused path must not hand an old match's coin or nonces to a
        restore of this one (and the old match's stage note goes). Taken only by the process
        that holds the match's lock (:meth:`lock`). Each is a new file renamed over any old one:
        nothing is truncated or written through a link planted at its path."""
        self.lock()
        replace(self.transcript, header, SHARED)
        replace(self.secrets, b"", PRIVATE)
        with contextlib.suppress(OSError):  # nor an old match's stage to its clocks
            self.stage_note.unlink()

    def append(self, path: Path, records: list[bytes]) -> None:
        """Append framed records and hand them to the kernel before anything is sent.

        Once ``write`` returns, a crash of this process (even SIGKILL) cannot lose them. They
        are not fsynced record by record: that costs milliseconds a step and only guards
        against the whole machine losing power mid-match. Each file stays open (in append
        mode) until :meth:`close`: opening it for every step cost more than the writing."""
        if not records:
            return
        mode = SHARED if path == self.transcript else PRIVATE
        write_all(self._descriptor(path, os.O_APPEND, mode), b"".join(frame(r) for r in records))

    def _descriptor(self, path: Path, flags: int, mode: int) -> int:
        """``path`` open for writing (``flags`` besides), opened once and kept until :meth:`close`;
        an existing file is reopened as it is (a resume appends to its match's files), but only
        if it is this user's regular file, never through a link (UnsafeFileError)."""
        descriptor = self._open.get(path)
        if descriptor is None:
            descriptor = self._open[path] = open_own(path, os.O_WRONLY | os.O_CREAT | flags, mode)
        return descriptor

    @property
    def stage_note(self) -> Path:
        """Beside the transcript (its name plus ``.stage``, so never the transcript itself): the
        stage under way and when it began here (wall clock), so that a resumed peer's own clocks
        count the time already spent, and a resumed peer or the record can tell from when it was
        late with what it owed (:mod:`p2pgenius.protocol.overdue`)."""
        return stage_note(self.transcript)

    def note_stage(self, number: int, began: float) -> None:
        """Stage ``number`` began here at ``began`` (seconds since the epoch). One fixed-width
        line written over the last in place, the file kept open (a stage costs one write).
        Best effort: a resume without the note starts the current decision's clock afresh (and a
        link planted at its path mid-match is not written through, only left unwritten)."""
        with contextlib.suppress(OSError, UnsafeFileError):
            descriptor = self._descriptor(self.stage_note, 0, PRIVATE)
            os.pwrite(descriptor, f"{number:>11} {began:>20.3f}\n".encode("ascii"), 0)

    def stage_began(self) -> tuple[int, float] | None:
        """The note of :meth:`note_stage`: (stage, when it began), or None if there is none or it
        is damaged (a crash mid-write, or an edit: not a finite time)."""
        return read_stage_note(self.transcript)

    def note(self, text: str) -> None:
        """A line for the wire log, if there is one."""
        if self.log is not None:
            descriptor = open_own(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE)
            try:
                write_all(descriptor, (text + "\n").encode("ascii"))
            finally:
                os.close(descriptor)

    def close(self) -> None:
        """Close the files (appending again reopens them); the match's lock stays held until
        :meth:`release` or the process ends."""
        for descriptor in self._open.values():
            os.close(descriptor)
        self._open.clear()

    def release(self) -> None:
        """Let another process have this match's files."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def _holder(descriptor: int) -> str:
    """`` (process N)`` from a lock file, or nothing if it does not say."""
    with contextlib.suppress(OSError, ValueError):
        pid = int(os.pread(descriptor, 32, 0).decode("ascii").strip())
        return f" (process {pid})"
    return ""
