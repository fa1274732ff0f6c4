"""A state hash that the replay of the signed messages contradicts is its author's lie (issue 43,
item 3): a loser that signs a false hash of the last stage cannot turn its lost match into
"states that diverged", which proves nobody lost. A live peer cannot tell which of two hashes is
wrong and stops with a desync; an observer (``verify``, a spectator, the record) replays every
signed message with the engine the terms name, so when another peer's hash agrees with its own,
the one that differs is a lie signed by its author."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from p2pgenius.canonical import decode, encode, normalise
from p2pgenius.games.base import Outcome
from p2pgenius.games.duel.engine import Duel
from p2pgenius.games.duel.state import DuelEnding
from p2pgenius.protocol.messages import open_envelope, seal
from p2pgenius.protocol.session import Fault, Session
from p2pgenius.protocol.transcript import frame, header, verify
from p2pgenius.record.matches import from_report

from .harness import MemoryTable, play, transcript
from .test_attacks import Liar, attacked, honest_fault
from .test_blindness import P0, P1, Script, sighted_until


def false(body: list[Any]) -> list[Any]:
    """A hash message's body with a false digest."""
    return [body[0], body[1], bytes(32)]


def test_a_lying_state_hash_is_the_liars_proven_cheat_in_the_honest_copy() -> None:
    table = attacked("magic-square", 1, "hash", false)
    assert (honest_fault(table, 0).kind, honest_fault(table, 0).peer) == ("desync", 1)  # live: no referee
    report = verify(transcript(table, 0))
    assert report.fault is not None
    assert (report.fault.kind, report.fault.peer) == ("cheat", 1), report.summary
    assert "false state hash" in report.fault.reason
    lie = next(raw for raw in _messages(table, 0) if _is(raw, "hash", author=1))
    assert report.fault.evidence == {"message": hashlib.sha256(lie).hexdigest()}
    assert report.winners and all(table.sessions[0].owner[seat] == 0 for seat in report.winners)


def _messages(table: MemoryTable, copy: int) -> list[bytes]:
    return [decode(record)[1] for record in table.transcripts[copy] if decode(record)[0] == "msg"]


def _is(raw: bytes, kind: str, *, author: int) -> bool:
    value = decode(raw)
    return bool(value[2] == author and value[5][0] == kind and value[5][2] == bytes(32))


class LastHash:
    """A loser that signs a false hash of the last stage (the match's result known to it), and
    goes on as a liar would: every later message of its chained after the lie."""

    def __init__(self, loser: int, seed: int) -> None:
        self.loser = loser
        self.liar = Liar(loser, "hash", false, seed)
        self.started = False
        self.table: MemoryTable | None = None

    def start(self, table: MemoryTable) -> None:
        self.table = table
        self.liar.start(table)

    def __call__(self, author: int, to: int, raw: bytes) -> list[bytes]:
        assert self.table is not None
        if author == self.loser and not self.started:
            last = decode(raw)[5][0] == "hash" and self.table.sessions[author].outcome is not None
            if not last:
                return [raw]
            self.started = True
        return self.liar(author, to, raw)


def finished(seed: int) -> tuple[int, int]:
    """(winner, loser) of the honest duel of ``seed`` (random bots, deterministic)."""
    table = play("duel", seed=seed, deterministic=True, options={"fast": True})
    report = verify(transcript(table, 0))
    assert report.ok and report.winners, report.summary
    winner = table.sessions[0].owner[report.winners[0]]
    return winner, 1 - winner


def test_a_loser_that_signs_a_false_hash_of_the_last_stage_still_loses_in_the_winners_record() -> None:
    seed = next(s for s in range(1, 40) if _decided(s))
    winner, loser = finished(seed)
    lying = LastHash(loser, seed)
    table = play(
        "duel", seed=seed, deterministic=True, options={"fast": True}, tamper=lying, on_start=lying.start
    )
    assert lying.started, "the loser never signed its last hash: the test would prove nothing"
    report = verify(transcript(table, winner))
    assert report.fault is not None and (report.fault.kind, report.fault.peer) == ("cheat", loser)
    assert "after step" in report.summary  # (the result was known: no stage was open)
    line = from_report("copy.p2pt", report).owned([table.identities[winner].public])
    assert line.proves and line.side() == "won"
    assert line.result().startswith("won: ") and "cheated" in line.result()
    against = from_report("copy.p2pt", report).owned([table.identities[loser].public])
    assert against.side() == "lost"


def _decided(seed: int) -> bool:
    table = play("duel", seed=seed, deterministic=True, options={"fast": True})
    return bool(verify(transcript(table, 0)).winners)


def test_a_hash_no_peer_agrees_with_stays_a_desync_that_proves_nobody_lost() -> None:
    # A copy with the honest peer's hash of that stage cut out: nothing agrees with the replay
    # there, so nothing shows which program was wrong (the replay's own engine may be).
    table = attacked("magic-square", 1, "hash", false)
    messages = _messages(table, 0)
    lie = next(index for index, raw in enumerate(messages) if _is(raw, "hash", author=1))
    stage = decode(messages[lie])[5][1]
    kept = [raw for raw in messages[: lie + 1] if _hash_of(raw) != (0, stage)]
    observer = Session(keys=[i.public for i in table.identities], me=None)
    for raw in kept:
        observer.receive(raw)
    # Stopped at once (nothing after is judged against a state that may be the observer's own
    # mistake), and still a desync at the end of the record: no hash came that agrees.
    assert observer.fault is not None and observer.fault.kind == "desync"
    observer.settle()
    fault = observer.fault
    assert isinstance(fault, Fault) and (fault.kind, fault.peer, fault.stage) == ("desync", 1, stage)


def _hash_of(raw: bytes) -> tuple[int, int] | None:
    value = decode(raw)
    return (value[2], value[5][1]) if value[5][0] == "hash" else None


def test_a_false_hash_is_convicted_whichever_hash_the_record_holds_first() -> None:
    # The liar's hash before the honest one (as a copy that puts the host's messages first may
    # hold them): the match stops there as a desync, then the honest hash, later in the record,
    # agrees with the replay and proves the other a lie.
    table = attacked("magic-square", 1, "hash", false)
    messages = _messages(table, 0)
    lie = next(index for index, raw in enumerate(messages) if _is(raw, "hash", author=1))
    stage = decode(messages[lie])[5][1]
    honest = next(index for index, raw in enumerate(messages) if _hash_of(raw) == (0, stage))
    assert honest < lie
    observer = Session(keys=[i.public for i in table.identities], me=None)
    for raw in messages[:honest] + [messages[lie], messages[honest]]:
        observer.receive(raw)
    assert observer.fault is not None and observer.fault.kind == "desync"  # (no hash agreed yet)
    observer.settle()  # the end of the record: the honest hash after the stop agrees with the replay
    fault = observer.fault
    assert isinstance(fault, Fault) and (fault.kind, fault.peer) == ("cheat", 1)


def test_a_blinded_losers_false_hash_of_a_stage_whose_hash_was_kept_from_it_is_its_cheat() -> None:
    # While blind, the loser signs a false hash of a blind stage whose hash the sighted peer is
    # still keeping from it. The sighted peer stops live on the desync, and what it kept goes out
    # then, signed and recorded: its transcript holds its own hash of that stage, which agrees
    # with the replay, so verify convicts the liar (it said "incomplete" before).
    table = play("duel", bots=[Script(P0), Script(P1)], max_rounds=60)
    sighted, blinded = table.sessions[0].owner[0], table.sessions[0].owner[1]
    keys = [identity.public for identity in table.identities]

    def its_sixth_claim(record: list[Any]) -> bool:
        return bool(record[0] == "msg" and decode(record[1])[5][:2] == ["blind", 6])

    session, kept = sighted_until(table, its_sixth_claim, keep=True)
    envelopes = [open_envelope(record[1], keys) for record in kept if record[0] == "msg"]
    last = [env for env in envelopes if env.author == blinded][-1]
    seen = [env for env in envelopes[: envelopes.index(last)] if env.author == sighted][-1]
    heads = [b""] * 2
    heads[blinded], heads[sighted] = last.hash, seen.hash
    lie = seal(table.identities[blinded], last.match_id, blinded, last.seq + 1, heads, ["hash", 5, bytes(32)])
    session.receive(lie)
    assert session.fault is not None and session.fault.kind == "desync"  # (live: no referee)
    flushed = session.flush()
    data = (
        header(keys, sighted)
        + b"".join(frame(encode(r)) for r in kept)
        + b"".join(frame(r) for r in flushed.records)
    )
    report = verify(data)
    assert report.fault is not None and (report.fault.kind, report.fault.peer) == ("cheat", blinded), (
        report.summary
    )


def test_a_verifier_whose_engine_differs_from_every_peers_finds_a_desync_and_convicts_nobody(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A verifier whose engine disagrees with both peers from some turn on (a bug, a platform
    # difference): no peer's hash agrees with its replay, so it stops there (a desync: nobody
    # lost), and judges nothing after against its own mistaken state (an end it would have
    # called a lie, say).
    table = play("duel", seed=5, deterministic=True, options={"fast": True})
    data = transcript(table, 0)
    assert verify(data).ok
    real_public, real_outcome = Duel.public, Duel.outcome

    def public(self: Duel, state: Any) -> Any:
        return {**real_public(state), "skew": 1} if state.turn >= 2 else real_public(state)

    def outcome(self: Duel, state: Any) -> Any:
        return Outcome(1, DuelEnding.KNOCKED_OUT) if state.turn >= 4 else real_outcome(self, state)

    def public_canonical(self: Duel, state: Any) -> Any:
        return normalise(public(self, state))  # (the form the state hash packs: skewed alike)

    monkeypatch.setattr(Duel, "public", public)
    monkeypatch.setattr(Duel, "public_canonical", public_canonical)
    monkeypatch.setattr(Duel, "outcome", outcome)
    report = verify(data)
    assert report.fault is not None and report.fault.kind == "desync", report.summary
    assert not report.winners
