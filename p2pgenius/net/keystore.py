"""This player's identity key and the pinned keys of known peers, on disk.

Files live in the user's config directory (``$P2PGENIUS_HOME``, else ``$XDG_CONFIG_HOME/p2pgenius``,
else ``~/.config/p2pgenius``): ``identity.key`` (the 32-byte Ed25519 seed, hex, mode 0600, in a
directory of mode 0700) and ``known_peers`` (one ``name fingerprint public-key-hex`` line per peer,
like SSH's known_hosts). Files are written to a temporary name and renamed, so a crash never leaves
half a key.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.identity import Identity, check_pin, fingerprint

IDENTITY_FILE: Final = "identity.key"
KNOWN_PEERS_FILE: Final = "known_peers"


def config_dir() -> Path:
    """Where p2pgenius keeps keys and pins."""
    if home := os.environ.get("P2PGENIUS_HOME"):
        return Path(home)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "p2pgenius"


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def load_identity(directory: Path | None = None) -> tuple[Identity, bool]:
    """This player's identity, created on first use; returns (identity, created)."""
    path = (directory or config_dir()) / IDENTITY_FILE
    if path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise LocalMisuseError(f"{path} can be read by others (mode {mode:o}); run: chmod 600 {path}")
        try:
            return Identity.from_seed(bytes.fromhex(path.read_text(encoding="ascii").strip())), False
        except ValueError:
            raise LocalMisuseError(f"{path} is damaged: it should hold 64 hex digits") from None
    identity = Identity.generate()
    _write_private(path, identity.seed.hex() + "\n")
    return identity, True


def load_pins(directory: Path | None = None) -> dict[str, bytes]:
    """The pinned keys of known peers, by name."""
    path = (directory or config_dir()) / KNOWN_PEERS_FILE
    pins: dict[str, bytes] = {}
    if not path.exists():
        return pins
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        try:
            pins[parts[0]] = bytes.fromhex(parts[2])
        except (IndexError, ValueError):
            raise LocalMisuseError(f"{path} line {number} is damaged") from None
    return pins


def trust(name: str, public: bytes, directory: Path | None = None) -> bool:
    """Trust on first use: pin ``name``'s key if it is new (returns True), accept it if it is the
    pinned one (False), refuse a changed key (IdentityError)."""
    if not name or any(c.isspace() for c in name):
        raise LocalMisuseError("a peer name has no spaces")
    pins = load_pins(directory)
    if not check_pin(pins, name, public):
        return False
    pins[name] = public
    lines = [f"{n} {fingerprint(k)} {k.hex()}" for n, k in sorted(pins.items())]
    _write_private((directory or config_dir()) / KNOWN_PEERS_FILE, "\n".join(lines) + "\n")
    return True
