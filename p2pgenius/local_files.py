"""The files p2pgenius keeps on this machine: never written through a link planted at their paths,
and read within a bound.

A match's files lie in a folder the user chose (``--transcript DIR/m.p2pt``), perhaps one that
others can write to, such as ``/tmp``. Whoever can write there can plant a symbolic link at a name
p2pgenius is about to write (``m.p2pt.lock`` pointing at ``~/.bashrc``) to have it truncate or
overwrite the file the link names, or put a file of their own, readable by them, at ``m.invite``
to read the seat token written into it. So every file p2pgenius writes beside a match or in its
configuration directory is opened with ``O_NOFOLLOW`` and, before a byte goes into it, checked to
be a regular file of this user's (:func:`open_own`); a file written whole is made anew under a
temporary name (``O_CREAT | O_EXCL``: never an existing file, never through a link) and renamed
over the old one (:func:`replace`), and a rename replaces a link, it never follows one. Only the
last part of a path is checked: a folder that is a symbolic link (a configuration directory kept
elsewhere) is the user's own choice, and whoever can replace a folder of the user's owns its
contents anyway.

Reading is bounded (:func:`read_within`): a file's size is looked at before it is read, and at
most one byte more than its limit is ever read, so a 2 GiB file among the matches is refused at
the cost of a ``stat``, and one that grows meanwhile (or a pipe) at the cost of the limit.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Final

from p2pgenius.errors import P2PGeniusError

PRIVATE: Final = 0o600
"""The mode of everything secret or private: the secrets, the invite (its seat token), the
identity key and pins, locks, stage notes, logs, the record's index."""
SHARED: Final = 0o666
"""The mode asked for a file meant for sharing (a transcript): what the user's umask leaves of it."""

TRANSCRIPT_LIMIT_BYTES: Final = 64 * 2**20
"""The largest transcript p2pgenius reads. The protocol bounds a record (2^20 bytes, protocol/SPEC.md
section 7) and a message (60,000 bytes) but not how many a match has; the longest matches measured
are far below this: a 4-peer Hornswoggle between captains, 205 stages and 1,121 messages, is
225,711 bytes; a 73-turn duel between archmages 117,033 (about 1.6 kB a turn). 64 MiB is some 300
times the longest, a duel of about 40,000 turns, and still costs a reader only that much memory."""
WRITING: Final = os.O_WRONLY | os.O_RDWR
"""The flags that open a file for writing (in place: then its other names matter)."""
CHUNK_BYTES: Final = 2**20
"""How much :func:`read_within` reads at a time."""
PEEK_BYTES: Final = 64
"""How much of a file :func:`read_within` shows its ``kind`` to choose the limit."""


class UnsafeFileError(P2PGeniusError):
    """A path p2pgenius is to write is not a file it may use (a symbolic link, something other than
    a regular file, another user's file); nothing was written through it."""


class TooLargeError(P2PGeniusError):
    """A file larger than a file of its kind may be, refused before it was read whole."""

    def __init__(self, size: int | None, limit: int, what: str) -> None:
        told = f"{size} bytes" if size is not None else f"more than {limit} bytes"
        super().__init__(f"too large: {told}; a {what} is at most {limit} bytes ({limit / 2**20:g} MiB)")
        self.size, self.limit = size, limit


def refusal(path: Path) -> str | None:
    """Why p2pgenius would not use ``path`` for one of its files (a symbolic link, not a regular
    file, another user's file), in words; None if it may (this user's regular file, or nothing
    there yet)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    return _wrong(path, info, in_place=False)


def _wrong(path: Path, info: os.stat_result, *, in_place: bool) -> str | None:
    """What is wrong with the file ``info`` describes, to be written ``in_place`` (then one with
    other names is refused too: a rename replaces only its own name)."""
    if stat.S_ISLNK(info.st_mode):
        return (
            f"{path} is a symbolic link: p2pgenius does not follow one where it keeps its files "
            "(someone may have planted it to aim a write elsewhere); remove it, or choose another path"
        )
    if not stat.S_ISREG(info.st_mode):
        return (
            f"{path} is not a regular file: p2pgenius keeps its files only in regular files; remove "
            "it, or choose another path"
        )
    if info.st_uid != os.geteuid():
        return (
            f"{path} belongs to another user (uid {info.st_uid}): p2pgenius uses only your own "
            "files; remove it, or choose another path"
        )
    if in_place and info.st_nlink != 1:  # (a hard link planted to a file of yours elsewhere)
        return (
            f"{path} has other names (hard links): writing it would change a file elsewhere; "
            "copy it instead, or choose another path"
        )
    return None


def check(*paths: Path) -> None:
    """Refuse (UnsafeFileError) the first of ``paths`` p2pgenius may not use (:func:`refusal`)."""
    for path in paths:
        if (why := refusal(path)) is not None:
            raise UnsafeFileError(why)


def open_own(path: Path, flags: int, mode: int = PRIVATE) -> int:
    """``path`` opened with ``flags`` (``os.O_*``), never through a symbolic link, and only if it is
    a regular file of this user's (``mode`` if ``flags`` create it), for writing only if it has
    no other name; returns the descriptor. Raises UnsafeFileError (nothing opened) or OSError."""
    try:
        # (O_NONBLOCK keeps a planted FIFO from hanging the open; it is cleared below.)
        descriptor = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, mode)
    except OSError:
        if (why := refusal(path)) is not None:  # (ELOOP for a link, ENXIO for a FIFO...)
            raise UnsafeFileError(why) from None
        raise
    try:
        if (why := _wrong(path, os.fstat(descriptor), in_place=(flags & WRITING) != 0)) is not None:
            raise UnsafeFileError(why)
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def write_all(descriptor: int, data: bytes) -> None:
    """Hand every byte of ``data`` to the kernel (``write`` may take fewer than it is given)."""
    while data:
        data = data[os.write(descriptor, data) :]


def replace(path: Path, data: bytes, mode: int = PRIVATE, *, sync: bool = False) -> None:
    """Make ``path`` hold ``data``, whole or not at all: a new file under a temporary name beside
    it (``.NAME.RANDOM.tmp``, made with ``O_CREAT | O_EXCL``), synced if ``sync``, then renamed
    over ``path``. A symbolic link or another user's file at ``path`` is refused first
    (UnsafeFileError), so that a planted one is told rather than silently replaced."""
    check(path)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        try:
            write_all(descriptor, data)
            if sync:
                os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_within(
    path: Path | str,
    limit: int = TRANSCRIPT_LIMIT_BYTES,
    what: str = "transcript",
    *,
    kind: Callable[[bytes], tuple[int, str]] | None = None,
) -> bytes:
    """``path``'s bytes if there are at most ``limit`` of them, else TooLargeError: told by the
    file's size before anything is read, and by reading at most ``limit + 1`` bytes (a file that
    grows meanwhile, a pipe). ``kind``: given the file's first :data:`PEEK_BYTES`, the limit and
    the name of the kind of file they begin (a bundle may be larger than a transcript). Raises
    OSError as ``open`` does. A symbolic link is followed: reading through one harms nothing."""
    # (O_NONBLOCK: a FIFO with no writer reads as empty instead of hanging the open.)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb", buffering=0) as handle:  # (unbuffered: no byte read in advance)
        os.set_blocking(descriptor, True)
        info = os.fstat(descriptor)
        first = _read_up_to(handle, PEEK_BYTES) if kind is not None else b""
        if kind is not None:
            limit, what = kind(first)
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise TooLargeError(info.st_size, limit, what)
        chunks, total = [first], len(first)
        while total <= limit and (chunk := _read_up_to(handle, min(CHUNK_BYTES, limit + 1 - total))):
            chunks.append(chunk)
            total += len(chunk)
    if total > limit:
        raise TooLargeError(None, limit, what)
    return b"".join(chunks)


def _read_up_to(handle: BinaryIO, size: int) -> bytes:
    """``size`` bytes from ``handle``, fewer only at its end (a pipe's ``read`` may give fewer)."""
    data = b""
    while len(data) < size and (more := handle.read(size - len(data))):
        data += more
    return data


def stage_note(transcript: Path) -> Path:
    """Beside a transcript (its name plus ``.stage``, so never the transcript itself): the note of
    the stage under way and when it began on this machine (``net/files.py`` writes it)."""
    return transcript.with_name(transcript.name + ".stage")


def bots_table(transcript: Path) -> Path:
    """Beside a transcript of a match against bots on this machine (``p2pgenius play``): its bots'
    names, levels and keys (``X.p2pt.play``). Such a match stops whole, its bots with it, so
    nothing of it is late while it is stopped."""
    return transcript.with_name(transcript.name + ".play")


def read_stage_note(transcript: Path) -> tuple[int, float] | None:
    """The note beside ``transcript``: (stage, when it began, in seconds since the epoch), or None
    if there is none or it is damaged (a crash mid-write, or an edit: not a finite time)."""
    try:
        descriptor = open_own(stage_note(transcript), os.O_RDONLY)
        try:
            text = os.read(descriptor, 64)  # (the note is 33 bytes; more is no note of ours)
        finally:
            os.close(descriptor)
        number, began = text.decode("ascii").split()
        stage, when = int(number), float(began)
    except (OSError, UnsafeFileError, ValueError, UnicodeDecodeError):
        return None
    # ("nan", "inf" or a time before the epoch are no note a peer of ours wrote.)
    return (stage, when) if stage >= 0 and math.isfinite(when) and when >= 0 else None
