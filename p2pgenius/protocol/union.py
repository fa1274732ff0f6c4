"""Several copies of one match, judged whole (protocol/SPEC.md, section 7, "Several copies of one
match").

Every peer's transcript of a match holds some of every author's signed chain, and so do a
spectator's and any copy: honest copies differ only in how far each chain goes. What counts is
what the authors signed, all of it: :func:`union` gathers every envelope the copies hold (``msg``
and ``rejected`` records alike) whose signature holds, lays each author's messages out in its
chain, and orders the whole in one canonical order that follows what each message names (its
``heads``). Another message an author signed under a number its chain already has goes after the
whole, as a ``rejected`` record, where the replay finds it: proof that its author signed two
histories, its cheat unless a fault stopped the match before. The union is then verified as any
transcript is (``transcript.judge``). So no count, date, order or file name that one peer controls
decides the verdict: a claim that anything in the union answers does not stand, whichever copy left
the answer out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p2pgenius.canonical import encode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.messages import VERSION, ZERO_HASH, Envelope, MessageError, match_id, open_envelope
from p2pgenius.protocol.records import Header, MsgRecord, Record, RejectedRecord, Transcript


class NotOneMatchError(P2PGeniusError):
    """Transcripts that are not copies of one match (other peers, another version or match)."""


@dataclass(frozen=True)
class Gathered:
    """Every signed message the copies hold, by author and number: each author's chain (one
    message a number, in order, each naming the one before) and the other messages it signed
    under a number of its chain (proof of equivocation)."""

    chains: tuple[tuple[Envelope, ...], ...]
    twins: tuple[tuple[Envelope, Envelope], ...]
    """(the chain's message, another one its author signed with the same number), by author and
    number."""


def union(copies: Sequence[Transcript], terms: bytes | None = None) -> Transcript:
    """One transcript holding every signed message of ``copies`` (transcripts of one match, match
    messages version 3), in the canonical order (:func:`causal`). The match is the one whose signed
    ``terms`` hash to ``terms`` (``H(encode(terms))``, the record's name for a match; None: the
    one terms the copies hold), whatever the copies hold first; NotOneMatchError if there is no
    such match in them (or, with ``terms`` None, several)."""
    if not copies:
        raise NotOneMatchError("no transcript to merge")
    first = copies[0].header
    peers, version = first.peers, first.version
    if any(copy.header.peers != peers or copy.header.version != version for copy in copies):
        raise NotOneMatchError("transcripts of other players or of another version: not one match")
    if version != VERSION:
        raise NotOneMatchError(f"transcripts of match version {version}: only version {VERSION}'s merge")
    signed = _envelopes(copies, peers)
    match_id = _match_of(signed, terms)
    gathered = gather([env for env in signed if env.match_id == match_id], len(peers))
    records: list[Record] = [MsgRecord(env.raw) for env in causal(gathered.chains)]
    records += [RejectedRecord(twin.raw, "another message under its number") for _, twin in gathered.twins]
    return Transcript(Header(version, peers, None, {"peers": list(peers), "me": None}), tuple(records))


def _envelopes(copies: Sequence[Transcript], peers: Sequence[bytes]) -> list[Envelope]:
    """Every envelope of ``copies`` whose signature holds (each distinct envelope once, checked
    once), in no order that matters."""
    seen: set[bytes] = set()
    out: list[Envelope] = []
    for copy in copies:
        for record in copy.records:
            if not isinstance(record, MsgRecord | RejectedRecord) or record.raw in seen:
                continue
            seen.add(record.raw)
            try:
                out.append(open_envelope(record.raw, peers))
            except MessageError:
                continue  # (nobody's signature: it proves nothing, SPEC section 7)
    return out


def _is_its_own(env: Envelope) -> bool:
    """Whether a host's ``terms`` message is signed under the match id its terms make (a peer
    refuses any other, SPEC section 5: one re-signed under a made-up id is no match's terms)."""
    try:
        return isinstance(env.body[1], dict) and env.match_id == match_id(env.body[1])
    except (TypeError, ValueError):
        return False


def _match_of(envelopes: Sequence[Envelope], terms: bytes | None) -> bytes:
    """The match id of the match the copies are of: that of the host's signed ``terms`` (peer
    0's message number 0) whose map hashes to ``terms``, or the one such message there is."""
    found = {
        env.match_id
        for env in envelopes
        if env.author == 0
        and env.seq == 0
        and env.kind == "terms"
        and (terms is None or hashlib.sha256(encode(env.body[1])).digest() == terms)
        and _is_its_own(env)
    }
    if len(found) != 1:
        said = "no" if not found else "more than one"
        raise NotOneMatchError(f"the copies hold {said} host's terms of the match: not copies of one match")
    return found.pop()


def gather(envelopes: Iterable[Envelope], authors: int) -> Gathered:
    """Each author's chain from ``envelopes``: from number 0, the message that names the one
    before; of several, the one another author's message names, directly or through a later one
    (the history the others went on from), else the one of the smallest hash (an order nobody
    chooses); the others under a number of the chain are its twins. A message that fits no chain
    (a gap before it) is left out: no replay would take it."""
    every = list(envelopes)
    named = _built_on(every)
    by_author: dict[int, dict[int, list[Envelope]]] = {}
    for env in every:
        by_author.setdefault(env.author, {}).setdefault(env.seq, []).append(env)
    chains: list[tuple[Envelope, ...]] = []
    twins: list[tuple[Envelope, Envelope]] = []
    for author in range(authors):
        numbered = by_author.get(author, {})
        chain: list[Envelope] = []
        tip = ZERO_HASH
        while len(chain) in numbered:
            candidates = sorted(numbered[len(chain)], key=lambda env: (env.hash not in named, env.hash))
            fitting = [env for env in candidates if env.prev == tip]
            if not fitting:
                break
            kept = fitting[0]
            twins += [(kept, other) for other in candidates if other is not kept]
            chain.append(kept)
            tip = kept.hash
        chains.append(tuple(chain))
    return Gathered(tuple(chains), tuple(twins))


def _built_on(envelopes: Sequence[Envelope]) -> set[bytes]:
    """The hashes of the messages another author's message names, directly or through the
    chain before it (a message names its author's previous one)."""
    by_hash = {env.hash: env for env in envelopes}
    built_on: set[bytes] = set()
    for env in envelopes:
        for peer, head in enumerate(env.heads):
            while peer != env.author and head in by_hash and head not in built_on:
                built_on.add(head)
                head = by_hash[head].prev
    return built_on


def causal(chains: Sequence[Sequence[Envelope]]) -> list[Envelope]:
    """The messages of ``chains`` in the canonical order: each after every message it names (its
    author's previous one and each other peer's head), and of the messages that may come next,
    the one of the lowest author first. A message that names one no chain holds never comes, nor
    anything after it in its chain."""
    placed = {ZERO_HASH}
    at = [0] * len(chains)
    out: list[Envelope] = []
    while True:
        for author, chain in enumerate(chains):
            if at[author] < len(chain) and all(head in placed for head in chain[at[author]].heads):
                env = chain[at[author]]
                out.append(env)
                placed.add(env.hash)
                at[author] += 1
                break
        else:
            return out
