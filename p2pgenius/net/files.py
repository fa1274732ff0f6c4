"""A peer's files: the transcript and the secrets of its match (and, optionally, a wire log)."""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from p2pgenius.errors import LocalMisuseError
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

    def lock(self) -> None:
        """Hold this match's files for this process until it ends (the kernel lets go if it dies,
        even by SIGKILL): a second process on one seat would sign messages of its own beside ours,
        and the other peers would take the honest player for a cheat (equivocation). Raises
        MatchInUseError, naming the process, if another one holds them."""
        if self._lock is not None:
            return
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
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
            descriptor = os.open(self.lock_path, os.O_RDWR)
        except OSError:
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
        that holds the match's lock (:meth:`lock`)."""
        self.lock()
        self.transcript.write_bytes(header)
        descriptor = os.open(self.secrets, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(descriptor)
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
        descriptor = self._open.get(path)
        if descriptor is None:
            descriptor = self._open[path] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        data = b"".join(frame(r) for r in records)
        while data:
            data = data[os.write(descriptor, data) :]

    @property
    def stage_note(self) -> Path:
        """Beside the transcript (its name plus ``.stage``, so never the transcript itself): the
        stage under way and when it began here (wall clock), so that a resumed peer's own clocks
        count the time already spent (nothing else reads it)."""
        return self.transcript.with_name(self.transcript.name + ".stage")

    def note_stage(self, number: int, began: float) -> None:
        """Stage ``number`` began here at ``began`` (seconds since the epoch). One fixed-width
        line written over the last in place, the file kept open (a stage costs one write).
        Best effort: a resume without the note starts the current decision's clock afresh."""
        with contextlib.suppress(OSError):
            descriptor = self._open.get(self.stage_note)
            if descriptor is None:
                descriptor = self._open[self.stage_note] = os.open(
                    self.stage_note, os.O_WRONLY | os.O_CREAT, 0o600
                )
            os.pwrite(descriptor, f"{number:>11} {began:>20.3f}\n".encode("ascii"), 0)

    def stage_began(self) -> tuple[int, float] | None:
        """The note of :meth:`note_stage`: (stage, when it began), or None if there is none or it
        is damaged (a crash mid-write, or an edit: not a finite time)."""
        try:
            number, began = self.stage_note.read_text(encoding="ascii").split()
            stage, when = int(number), float(began)
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        # ("nan", "inf" or a time before the epoch are no note a peer of ours wrote.)
        return (stage, when) if stage >= 0 and math.isfinite(when) and when >= 0 else None

    def note(self, text: str) -> None:
        """A line for the wire log, if there is one."""
        if self.log is not None:
            with self.log.open("a", encoding="ascii") as handle:
                handle.write(text + "\n")

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
