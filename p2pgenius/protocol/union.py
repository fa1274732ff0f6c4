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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.messages import VERSION, ZERO_HASH, Envelope, MessageError, open_envelope
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


def union(copies: Sequence[Transcript]) -> Transcript:
    """One transcript holding every signed message of ``copies`` (transcripts of one match, match
    messages version 3), in the canonical order (:func:`causal`); NotOneMatchError if they are not
    copies of one match."""
    if not copies:
        raise NotOneMatchError("no transcript to merge")
    first = copies[0].header
    peers, version = first.peers, first.version
    if any(copy.header.peers != peers or copy.header.version != version for copy in copies):
        raise NotOneMatchError("transcripts of other players or of another version: not one match")
    if version != VERSION:
        raise NotOneMatchError(f"transcripts of match version {version}: only version {VERSION}'s merge")
    gathered = gather(_envelopes(copies, peers), len(peers))
    records: list[Record] = [MsgRecord(env.raw) for env in causal(gathered.chains)]
    records += [RejectedRecord(twin.raw, "another message under its number") for _, twin in gathered.twins]
    return Transcript(Header(version, peers, None, {"peers": list(peers), "me": None}), tuple(records))


def _envelopes(copies: Sequence[Transcript], peers: Sequence[bytes]) -> list[Envelope]:
    """Every envelope of ``copies`` whose signature holds, of the match the first copy's first
    message names (each distinct envelope once, checked once)."""
    seen: set[bytes] = set()
    out: list[Envelope] = []
    match_id: bytes | None = None
    for copy in copies:
        for record in copy.records:
            if not isinstance(record, MsgRecord | RejectedRecord) or record.raw in seen:
                continue
            seen.add(record.raw)
            try:
                env = open_envelope(record.raw, peers)
            except MessageError:
                continue  # (nobody's signature: it proves nothing, SPEC section 7)
            if match_id is None:
                match_id = env.match_id
            if env.match_id == match_id:
                out.append(env)
    return out


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
