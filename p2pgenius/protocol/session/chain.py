"""Every author's chain of signed messages: which number comes next from each, the hash the next
must name as its predecessor, every message accepted (the archive a reconnecting peer is sent
from), and proof of equivocation (two messages, one number)."""

from __future__ import annotations

from collections.abc import Sequence

from p2pgenius.protocol.messages import ZERO_HASH, Envelope, MessageError
from p2pgenius.protocol.session.faults import CheatError

Archived = tuple[int, int, bytes]
"""(author, its number, the envelope's bytes)."""


class Chain:
    """The chains of a match's authors, as this peer accepted their messages."""

    def __init__(self, authors: int) -> None:
        self.next_seq: list[int] = [0] * authors
        self.last_hash: list[bytes] = [ZERO_HASH] * authors
        self.seen: dict[tuple[int, int], bytes] = {}  # (author, seq) -> the envelope's hash
        self.archive: list[Archived] = []  # every accepted message, in the order accepted

    def accept(self, env: Envelope) -> None:
        """Take ``env`` into its author's chain; MessageError if it is not the next one (a replay,
        a gap), CheatError if it is a second, different message with a number already used."""
        key = (env.author, env.seq)
        if key in self.seen:
            if self.seen[key] == env.hash:
                raise MessageError(f"peer {env.author}'s message {env.seq} again (replayed)")
            raise CheatError(
                env.author,
                f"sent two different messages numbered {env.seq} (equivocation)",
                {"first": self.seen[key].hex(), "second": env.hash.hex()},
            )
        if env.seq != self.next_seq[env.author] or env.prev != self.last_hash[env.author]:
            raise MessageError(
                f"peer {env.author}'s message {env.seq} is out of its chain "
                f"(expected {self.next_seq[env.author]})"
            )
        self.seen[key] = env.hash
        self.archive.append((env.author, env.seq, env.raw))
        self.next_seq[env.author] += 1
        self.last_hash[env.author] = env.hash

    def missing_for(self, next_seq: Sequence[int]) -> list[bytes]:
        """Every message held that a peer reporting ``next_seq`` (per author) has not seen, in
        the order accepted: what to send it when it reconnects."""
        return [
            raw for author, seq, raw in self.archive if author < len(next_seq) and seq >= next_seq[author]
        ]
