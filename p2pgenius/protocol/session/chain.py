"""Every author's chain of signed messages: which number comes next from each, the hashes the next
must name (its author's previous message, and no older message of any other peer than its
author named before), every message accepted (the archive a reconnecting peer is sent from), and
proof of equivocation (two messages, one number).

A message names, in its ``heads``, the newest message of every peer that its author held
(protocol/SPEC.md, section 5). A receiver takes it only if it holds every message so named: the
host relays each message in the order it accepted it, so an honest author never names what the
receiver has not been sent before. So whatever a peer signs binds the history of every other peer
as far as it had seen it, and a message that names a message the receiver does not hold (one that
another copy of the match must have instead) never joins the chain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from p2pgenius.canonical import decode
from p2pgenius.errors import EncodingError
from p2pgenius.protocol.messages import TAG, ZERO_HASH, Envelope, MessageError
from p2pgenius.protocol.session.faults import CheatError

Archived = tuple[int, int, bytes]
"""(author, its number, the envelope's bytes)."""


class Chain:
    """The chains of a match's authors, as this peer accepted their messages. ``binding``: the
    heads of other peers are checked (match messages version 3; version 2 had none)."""

    def __init__(self, authors: int, *, binding: bool = True) -> None:
        self.binding = binding
        self.next_seq: list[int] = [0] * authors
        self.last_hash: list[bytes] = [ZERO_HASH] * authors
        self.seen: dict[tuple[int, int], bytes] = {}  # (author, seq) -> the envelope's hash
        self.numbered: dict[bytes, tuple[int, int]] = {}  # the envelope's hash -> (author, seq)
        self.named: list[list[int]] = [[-1] * authors for _ in range(authors)]
        """named[author][peer]: the number of the newest message of ``peer`` that ``author``'s
        messages named so far (-1: none)."""
        self.archive: list[Archived] = []  # every accepted message, in the order accepted

    def heads(self) -> list[bytes]:
        """What a message written now names: the newest message held from each author."""
        return list(self.last_hash)

    def accept(self, env: Envelope) -> None:
        """Take ``env`` into its author's chain; MessageError if it is not the next one (a replay,
        a gap) or names a message of another peer not held here, or older than one its author
        named before; CheatError if it is a second, different message with a number already
        used."""
        author, seq, digest = env.author, env.seq, env.hash
        key = (author, seq)
        held = self.seen.get(key)
        if held is not None:
            if held == digest:
                raise MessageError(f"peer {author}'s message {seq} again (replayed)")
            raise CheatError(
                author,
                f"sent two different messages numbered {seq} (equivocation)",
                {"first": held.hex(), "second": digest.hex()},
            )
        if seq != self.next_seq[author] or env.heads[author] != self.last_hash[author]:
            raise MessageError(
                f"peer {author}'s message {seq} is out of its chain (expected {self.next_seq[author]})"
            )
        self._take(env, key, self._named(env) if self.binding else self.named[author])

    def accept_own(self, env: Envelope) -> None:
        """Take our own message ``env``, just sealed with our next number and :meth:`heads`: what
        :meth:`accept` checks holds by construction (a number not used, the next one, heads that
        are every author's newest message held), so each head names its author's newest number
        (issue 48: a peer checked every message it wrote as if another had sent it). A message of
        ours read back from disk is taken by :meth:`accept`, checked."""
        self._take(env, (env.author, env.seq), [seq - 1 for seq in self.next_seq])

    def _take(self, env: Envelope, key: tuple[int, int], named: list[int]) -> None:
        author, seq, digest = key[0], key[1], env.hash
        self.seen[key] = digest
        self.numbered[digest] = key
        self.named[author] = named
        self.archive.append((author, seq, env.raw))
        self.next_seq[author] = seq + 1
        self.last_hash[author] = digest

    def _named(self, env: Envelope) -> list[int]:
        """The numbers of the messages ``env`` names, one per peer (its author's: its own number
        less one); MessageError if one is not held here or goes back on what its author named."""
        named = list(self.named[env.author])
        for peer, head in enumerate(env.heads):
            if peer == env.author:
                named[peer] = env.seq - 1
                continue
            number = -1 if head == ZERO_HASH else self._number_of(peer, head)
            if number is None:
                raise MessageError(
                    f"peer {env.author}'s message {env.seq} names a message of peer {peer} that this "
                    "record does not hold (it was written on another history)"
                )
            if number < named[peer]:
                raise MessageError(
                    f"peer {env.author}'s message {env.seq} names peer {peer}'s message {number}, "
                    f"older than the {named[peer]} it named before"
                )
            named[peer] = number
        return named

    def _number_of(self, peer: int, head: bytes) -> int | None:
        found = self.numbered.get(head)
        return found[1] if found is not None and found[0] == peer else None


class SignedLog:
    """A chain read by a carrier (the network layer): what it holds and what another lacks, never
    the chain's own bookkeeping."""

    def __init__(self, chain: Chain) -> None:
        self._chain = chain

    @property
    def counts(self) -> tuple[int, ...]:
        """How many messages of each author this peer holds (what a ``sync`` says)."""
        return tuple(self._chain.next_seq)

    @property
    def taken(self) -> int:
        """How many messages this peer has taken into the match, its own included."""
        return len(self._chain.archive)

    def taken_since(self, index: int) -> list[bytes]:
        """The messages taken after the first ``index``, as their envelopes' bytes, in the order
        taken (what a spectator or a peer that came back is sent next)."""
        return [raw for _, _, raw in self._chain.archive[index:]]

    def missing_for(self, counts: Sequence[int]) -> list[bytes]:
        """Every message held that a peer holding ``counts`` (per author) lacks, in the order
        taken: what a ``sync`` asks to be sent."""
        archive = self._chain.archive
        return [raw for author, seq, raw in archive if author < len(counts) and seq >= counts[author]]

    def catch_up(self, messages: Iterable[bytes], refused: Mapping[bytes, str] | None = None) -> list[bytes]:
        """Of ``messages`` (a carrier's, in any order, repeated, some held already: a reader of
        letters that takes every letter again), those to take, in an order in which each can be
        taken: each author's next number, once every message its heads name is held or comes
        before it here (protocol/SPEC.md, section 4e, "Catching up"). A message held already is
        left out; one that differs from the message held under its number is kept, first (the
        proof of equivocation); one that cannot be placed (a gap no message fills, a head named
        that nobody sent, something that is no version-3 envelope) is kept, last, to be refused
        and recorded by the session as any bad message is, unless its SHA-256 is in ``refused``
        (with the reason: refused and recorded at an earlier reading: a reader that takes every
        letter again
        records it once, not at every reading)."""
        chain = self._chain
        authors = len(chain.next_seq)
        refused = refused or {}
        # (Refused for good: a forgery, another match's. Refused as out of its order, a message
        # may be placed later, and a second version of a number taken since is the proof of
        # equivocation, never left out.)
        for_good = {digest for digest, reason in refused.items() if not out_of_order(reason)}
        candidates: dict[tuple[int, int], list[tuple[bytes, list[bytes]]]] = {}
        first: list[bytes] = []
        odd: list[bytes] = []
        for raw in messages:
            parsed = _peek(raw, authors)
            if parsed is None:
                odd.append(raw)
                continue
            author, seq, heads = parsed
            held = chain.seen.get((author, seq))
            if held is not None:
                digest = hashlib.sha256(raw).digest()
                if held != digest and raw not in first and digest not in for_good:
                    first.append(raw)
                continue
            versions = candidates.setdefault((author, seq), [])
            if all(raw != other for other, _ in versions):
                versions.append((raw, heads))
        # Of two versions under one number, the first read that was not refused before is placed
        # (the other: case 2 at the next reading): one refused (forged, of another match) never
        # keeps the number from the message that belongs there.
        pending = {
            slot: next((v for v in versions if hashlib.sha256(v[0]).digest() not in refused), versions[0])
            for slot, versions in candidates.items()
        }
        order = self._in_order(pending)  # (what it places is taken out of ``pending``)
        stuck = [raw for _, (raw, _) in sorted(pending.items())]
        left = [raw for raw in stuck + odd if hashlib.sha256(raw).digest() not in refused]
        return first + order + left

    def _in_order(self, pending: dict[tuple[int, int], tuple[bytes, list[bytes]]]) -> list[bytes]:
        """The messages of ``pending`` (one per author and number) that can be placed, in an
        order the chains take: each author's next number once every head it names is held or
        placed before it. Those placed are taken out of ``pending``."""
        chain = self._chain
        order: list[bytes] = []
        holds = set(chain.numbered)
        nxt = list(chain.next_seq)
        progress = True
        while progress:
            progress = False
            for author in range(len(nxt)):
                while (author, nxt[author]) in pending:
                    raw, heads = pending[(author, nxt[author])]
                    if not all(h == ZERO_HASH or h in holds for p, h in enumerate(heads) if p != author):
                        break
                    del pending[(author, nxt[author])]
                    order.append(raw)
                    holds.add(hashlib.sha256(raw).digest())
                    nxt[author] += 1
                    progress = True
        return order


OUT_OF_ORDER: Final = ("is out of its chain", "that this record does not hold", "older than the")
"""What :meth:`Chain.accept` says of a message refused for its place, not for what it is."""


def out_of_order(reason: str) -> bool:
    """Whether a message was refused (``reason``) only for its place in its author's chain: one
    that may be taken later, once what comes before it is held."""
    return any(words in reason for words in OUT_OF_ORDER)


def _peek(raw: bytes, authors: int) -> tuple[int, int, list[bytes]] | None:
    """(author, number, heads) of a version-3 envelope, read without checking its signature (the
    session checks everything when it takes it); None if it is not one."""
    try:
        value = decode(raw)
    except EncodingError:
        return None
    if not (isinstance(value, list) and len(value) == 7 and value[0] == TAG):
        return None
    _, _, author, seq, heads, _, _ = value
    if not (type(author) is int and 0 <= author < authors and type(seq) is int and seq >= 0):
        return None
    if not (isinstance(heads, list) and len(heads) == authors and all(isinstance(h, bytes) for h in heads)):
        return None
    return author, seq, heads
