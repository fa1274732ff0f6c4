"""This player's identity key and the pinned keys of known peers, on disk.

Files live in the user's config directory (``$P2PGENIUS_HOME``, else ``$XDG_CONFIG_HOME/p2pgenius``,
else ``~/.config/p2pgenius``): ``identity.key`` (the 32-byte Ed25519 seed, hex, mode 0600, in a
directory of mode 0700) and ``known_peers`` (UTF-8, one ``fingerprint public-key-hex name`` line per
key, like SSH's known_hosts: pins are keyed by key, and the name is the one the key was admitted
under). Files are written to a unique temporary name and renamed, under a lock, so a crash never
leaves half a file and two processes of one account (host and join in two terminals) never write
over each other.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from p2pgenius.errors import LocalMisuseError
from p2pgenius.local_files import PRIVATE, open_own, replace
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.messages import NAME_LIMIT

IDENTITY_FILE: Final = "identity.key"
KNOWN_PEERS_FILE: Final = "known_peers"
LOCK_FILE: Final = ".lock"


def check_name(name: object) -> str:
    """A player name: any printable Unicode, 1 to NAME_LIMIT characters, no space at either end;
    raises LocalMisuseError saying what is wrong."""
    if not isinstance(name, str) or not name or name != name.strip():
        raise LocalMisuseError("a player name has 1 to 32 characters and no space at either end")
    if len(name) > NAME_LIMIT:
        raise LocalMisuseError(f"a player name has at most {NAME_LIMIT} characters")
    if not name.isprintable():
        raise LocalMisuseError("a player name has only printable characters")
    return name


def config_dir() -> Path:
    """Where p2pgenius keeps keys and pins."""
    if home := os.environ.get("P2PGENIUS_HOME"):
        return Path(home)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "p2pgenius"


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold the config directory's lock (other p2pgenius processes of this account wait)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = open_own(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # (closing releases the lock)


def _write_private(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a new private file, synced, then renamed over it (a
    link planted at ``path`` is refused, never written through)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    replace(path, text.encode("utf-8"), PRIVATE, sync=True)


def _read_private(path: Path, *, secret: bool = False) -> str | None:
    """``path``'s text (None if there is no such file), read only if it is this user's regular
    file and not a link (UnsafeFileError); a ``secret`` one only if nobody else may read it."""
    try:
        descriptor = open_own(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        mode = stat.S_IMODE(os.fstat(descriptor).st_mode)
        if secret and mode & 0o077:
            raise LocalMisuseError(f"{path} can be read by others (mode {mode:o}); run: chmod 600 {path}")
        return handle.read().decode("utf-8")


def load_identity(directory: Path | None = None) -> tuple[Identity, bool]:
    """This player's identity, created on first use; returns (identity, created)."""
    folder = directory or config_dir()
    path = folder / IDENTITY_FILE
    with locked(folder):  # two first uses at once make one key, not two
        try:
            text = _read_private(path, secret=True)
            if text is not None:
                return Identity.from_seed(bytes.fromhex(text.strip())), False
        except ValueError:  # (UnicodeDecodeError included)
            raise LocalMisuseError(f"{path} is damaged: it should hold 64 hex digits") from None
        identity = Identity.generate()
        _write_private(path, identity.seed.hex() + "\n")
        return identity, True


SEATS_PER_ACCOUNT: Final = 16
"""How many p2pgenius processes of one account can play at once (each with its own key)."""
_HELD: list[int] = []  # descriptors of the in-use locks this process holds, for its lifetime


def account_identities(directory: Path | None = None) -> list[Identity]:
    """This account's identities: its own key, then one derived from it for each further
    p2pgenius process that plays at the same time (host in one terminal, join in another)."""
    main, _ = load_identity(directory)
    derived = [
        Identity.from_seed(hashlib.sha256(b"p2pgenius/1 another process" + main.seed + bytes([n])).digest())
        for n in range(1, SEATS_PER_ACCOUNT)
    ]
    return [main, *derived]


def claim_identity(directory: Path | None = None) -> tuple[Identity, bool, int]:
    """The identity this process plays as, held until it exits: the account's own key unless
    another p2pgenius process of the account holds it, then the next free derived one. Returns
    (identity, created: the account's key was made just now, which one: 0 is the account's own).
    Two processes of one account can so play each other, each with its own key and files."""
    folder = directory or config_dir()
    _, created = load_identity(folder)
    for number, identity in enumerate(account_identities(folder)):
        descriptor = open_own(folder / f".in-use-{number}", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue
        _HELD.append(descriptor)
        return identity, created, number
    raise LocalMisuseError(f"{SEATS_PER_ACCOUNT} p2pgenius processes of this account are already playing")


def load_pins(directory: Path | None = None) -> dict[bytes, str]:
    """The pinned keys of known peers, each with the name it was admitted under. (Files of the
    older ``name fingerprint key`` form are read too.)"""
    path = (directory or config_dir()) / KNOWN_PEERS_FILE
    pins: dict[bytes, str] = {}
    text = _read_private(path)
    if text is None:
        return pins
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split(maxsplit=2)
        if not parts or parts[0].startswith("#"):
            continue
        try:
            if len(parts) == 3 and _is_fingerprint(parts[0]):
                pins[bytes.fromhex(parts[1])] = parts[2]
            else:
                old = line.split()
                pins[bytes.fromhex(old[2])] = old[0]
        except (IndexError, ValueError):
            raise LocalMisuseError(f"{path} line {number} is damaged") from None
    return pins


def _is_fingerprint(word: str) -> bool:
    """Groups of four base32 letters and digits (A-Z, 2-7) joined by dashes."""
    return re.fullmatch(r"[A-Z2-7]{4}(?:-[A-Z2-7]{4})+", word) is not None


def check_known(name: str, public: bytes, directory: Path | None = None) -> bool:
    """Whether ``public`` is a key met before. Refuses (IdentityError) a new key offered under a
    name that a pinned key was admitted under: someone may be impersonating that player. Nothing
    is written: a key is pinned only once it is admitted to a match (:func:`trust`)."""
    check_name(name)
    pins = load_pins(directory)
    for pinned, pinned_name in sorted(pins.items()):
        # (Also a key met before under another name: a known player may not borrow the name
        # of another known player.)
        if pinned_name == name and pinned != public:
            raise IdentityError(
                f"the key of peer {name!r} has changed: pinned {fingerprint(pinned)}, offered "
                f"{fingerprint(public)}. Someone may be impersonating {name!r}; if the peer really "
                "has a new key, remove it from known_peers and connect again"
            )
    return public in pins


def trust(name: str, public: bytes, directory: Path | None = None) -> bool:
    """Pin ``public`` under ``name`` once it was admitted to a match (trust on first use);
    returns True if it was new. Refuses a changed key as :func:`check_known` does."""
    folder = directory or config_dir()
    with locked(folder):
        if check_known(name, public, folder):
            return False
        pins = load_pins(folder)
        pins[public] = name
        lines = [f"{fingerprint(k)} {k.hex()} {n}" for k, n in sorted(pins.items())]
        _write_private(folder / KNOWN_PEERS_FILE, "\n".join(lines) + "\n")
        return True
