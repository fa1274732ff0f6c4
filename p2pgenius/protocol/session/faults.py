"""Why a session stops: the errors its parts raise to say so."""

from __future__ import annotations

from collections.abc import Mapping

from p2pgenius.canonical import Plain
from p2pgenius.errors import P2PGeniusError


class SessionError(P2PGeniusError):
    """The session cannot go on (the peer cheated, desynchronised, or forfeited)."""


class CheatError(P2PGeniusError):
    """Proof that a peer broke the rules (internal: becomes a Fault event)."""

    def __init__(self, peer: int | None, reason: str, evidence: Mapping[str, Plain]) -> None:
        super().__init__(reason)
        self.peer = peer
        self.reason = reason
        self.evidence = evidence
