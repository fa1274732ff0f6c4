"""The files p2pgenius keeps on this machine: never written through a link planted at their paths.

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
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import Final

from p2pgenius.errors import P2PGeniusError

PRIVATE: Final = 0o600
"""The mode of everything secret or private: the secrets, the invite (its seat token), the
identity key and pins, locks, stage notes, logs, the record's index."""
SHARED: Final = 0o666
"""The mode asked for a file meant for sharing (a transcript): what the user's umask leaves of it."""

WRITING: Final = os.O_WRONLY | os.O_RDWR
"""The flags that open a file for writing (in place: then its other names matter)."""


class UnsafeFileError(P2PGeniusError):
    """A path p2pgenius is to write is not a file it may use (a symbolic link, something other than
    a regular file, another user's file); nothing was written through it."""


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
