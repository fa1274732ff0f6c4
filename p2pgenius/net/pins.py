"""The one place a peer checks who is who: the keys it pinned, by name (trust on first use).

A caller's name is checked against the pins when its hello is read (a known name offered with
another key is refused: someone may be impersonating that player); a key is pinned only once a
match admitted it, never for merely knocking. The file itself is
:mod:`p2pgenius.net.keystore`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from p2pgenius.errors import LocalMisuseError, P2PGeniusError, PeerGoneError
from p2pgenius.net.keystore import check_known, check_name, load_pins, trust
from p2pgenius.protocol.channel import Established
from p2pgenius.protocol.identity import IdentityError


@dataclass(frozen=True)
class Pins:
    """The pinned keys in ``directory`` (None: the account's configuration directory)."""

    directory: Path | None = None

    def name_of(self, peer: Established) -> str:
        """The name in ``peer``'s hello, checked: printable, and not a pinned name offered with
        another key (IdentityError). Nothing is written (see :meth:`admit`)."""
        name = peer.peer_hello.get("name")
        try:
            check_known(check_name(name), peer.peer_key, self.directory)
        except LocalMisuseError as exc:
            raise PeerGoneError(f"the peer's name is refused: {exc}") from None
        assert isinstance(name, str)
        return name

    def check(self, name: str, key: bytes) -> None:
        """Another player at the table, as the host's lobby lists it: a pinned name with another
        key is refused (PeerGoneError)."""
        try:
            check_known(name, key, self.directory)
        except IdentityError as exc:
            raise PeerGoneError(f"another player at the table is refused: {exc}") from None

    def admit(self, keys: Sequence[bytes], names: Sequence[str], *, own: bytes) -> None:
        """Pin the keys of a match's players (not ``own``), now that the match admitted them.
        It writes and syncs a file: off the event loop (``threads.off_loop``)."""
        for key, name in zip(keys, names, strict=True):
            if key != own:
                trust(name, key, self.directory)

    def known(self) -> dict[bytes, str]:
        """Every pinned key and its name (none if the file cannot be read)."""
        try:
            return load_pins(self.directory)
        except (P2PGeniusError, OSError):
            return {}
