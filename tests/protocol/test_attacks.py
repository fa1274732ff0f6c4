"""Every promise of protocol/SPEC.md attacked by a peer that breaks it: each attack is detected,
the honest side keeps its transcript, and the evidence is in it (and in `verify`)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

import msgpack
import pytest

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import MAX_MESSAGE_BYTES, seal
from p2pgenius.protocol.session import Fault, Rejected
from p2pgenius.protocol.transcript import verify

from .harness import MemoryTable, play, transcript

SEED = 7


def identity(peer: int, seed: int = SEED) -> Identity:
    """The harness's deterministic identity of ``peer`` for ``seed``."""
    return Identity.from_seed(bytes([seed % 256, peer]) * 16)


def reseal(
    raw: bytes, change: Callable[[list[Any]], list[Any]], prev: bytes | None = None, seed: int = SEED
) -> bytes:
    """The same message (same author and number) with its body changed, signed again by its
    author, and chained after ``prev`` if given: what a lying peer can produce."""
    _, match_id, author, seq, heads, body, _ = decode(raw)
    if prev is not None:
        heads[author] = prev
    return seal(identity(author, seed), match_id, author, seq, heads, change(list(body)))


class Liar:
    """A tamper function making ``peer`` alter its first message of ``kind``, keeping its hash
    chain whole (every later message re-chained and re-signed, as a real liar's would be).
    ``peer`` None: whichever peer first sends such a message.

    A real liar's program keeps what it sent in its own name: the liar's session is told the
    hash of each message as it went out (the others' messages name those), as if its own record
    held them."""

    def __init__(
        self, peer: int | None, kind: str, change: Callable[[list[Any]], list[Any]], seed: int = SEED
    ) -> None:
        self.who, self.kind, self.change, self.seed = peer, kind, change, seed
        self.rewritten: dict[bytes, bytes] = {}
        self.prev: bytes | None = None
        self.done = False
        self.table: MemoryTable | None = None

    def start(self, table: MemoryTable) -> None:
        self.table = table

    def __call__(self, author: int, to: int, raw: bytes) -> list[bytes]:
        del to
        if self.who is None and decode(raw)[5][0] == self.kind:
            self.who = author
        if author != self.who:
            return [raw]
        if raw not in self.rewritten:  # (the same message goes to every other peer)
            first = decode(raw)[5][0] == self.kind and not self.done
            self.done = self.done or first
            out = raw
            if first or self.prev is not None:
                out = reseal(raw, self.change if first else (lambda b: b), self.prev, self.seed)
                self.prev = hashlib.sha256(out).digest()
                self._sent(author, raw, out)
            self.rewritten[raw] = out
        return [self.rewritten[raw]]

    def _sent(self, author: int, raw: bytes, out: bytes) -> None:
        """The liar's own session learns what it really sent under that number."""
        assert self.table is not None
        chain = self.table.sessions[author].chain
        chain.numbered[hashlib.sha256(out).digest()] = (author, decode(raw)[3])


def liar(peer: int | None, kind: str, change: Callable[[list[Any]], list[Any]], seed: int = SEED) -> Liar:
    """See :class:`Liar`."""
    return Liar(peer, kind, change, seed)


def attacked(
    game: str,
    peer: int | None,
    kind: str,
    change: Callable[[list[Any]], list[Any]],
    seed: int = SEED,
    **kwargs: Any,
) -> MemoryTable:
    """Play with ``peer`` altering its first message of ``kind``."""
    lying = liar(peer, kind, change, seed)
    return play(game, seed=seed, tamper=lying, on_start=lying.start, **kwargs)


def honest_fault(table: MemoryTable, honest: int) -> Fault:
    faults = [e for e in table.events[honest] if isinstance(e, Fault)]
    assert faults, "the honest peer did not notice"
    return faults[0]


def test_a_lying_state_hash_stops_the_live_match_as_a_desync() -> None:
    # (Live, neither side can tell which hash is wrong; an observer's replay can, and convicts
    # the liar: tests/protocol/test_false_hash.py.)
    table = attacked("magic-square", 1, "hash", lambda b: [b[0], b[1], os.urandom(32)])
    fault = honest_fault(table, 0)
    assert (fault.kind, fault.peer) == ("desync", 1)
    assert any(decode(r)[0] == "fault" for r in table.transcripts[0])
    # Both sides' transcripts hold both states: the liar received ours.
    theirs = [decode(r) for r in table.transcripts[1] if decode(r)[0] == "desync_state"]
    assert theirs
    assert theirs[0][3] == fault.evidence["state"]
    report = verify(transcript(table, 0))
    assert not report.ok
    assert report.fault is not None
    assert (report.fault.kind, report.fault.peer) == ("cheat", 1)


def test_a_commitment_opened_to_something_else_is_proof_of_cheating() -> None:
    def other_gesture(body: list[Any]) -> list[Any]:
        action = dict(body[3])
        action["left"] = "P" if action["left"] != "P" else "W"
        return [body[0], body[1], body[2], action, body[4]]

    table = attacked("duel", 1, "reveal", other_gesture)
    fault = honest_fault(table, 0)
    assert (fault.kind, fault.peer) == ("cheat", 1)
    assert "commitment" in fault.reason
    report = verify(transcript(table, 0))
    assert report.fault is not None
    assert report.fault.peer == 1


def test_equivocation_two_messages_with_one_number_is_caught() -> None:
    def tamper(author: int, to: int, raw: bytes) -> list[bytes]:
        del to
        if author == 1 and decode(raw)[5][0] == "chat":
            return [raw, reseal(raw, lambda b: ["chat", "I never said that"])]
        return [raw]

    said: list[bool] = []

    def chatty(table: MemoryTable, peer: int, seat: int, action: Any) -> Any:
        if peer == 1 and not said:
            said.append(True)
            table.sessions[1].chat("good luck")
        return action

    table = play("magic-square", seed=SEED, tamper=tamper, before_submit=chatty)
    fault = honest_fault(table, 0)
    assert (fault.kind, fault.peer) == ("cheat", 1)
    assert "equivocation" in fault.reason


def test_replayed_forged_and_foreign_messages_are_refused_and_recorded() -> None:
    other_match = play("duel", seed=SEED, salt=b"another match".ljust(32, b"."))
    foreign = other_match.transcripts[1][3]
    sent: list[bytes] = []

    def tamper(author: int, to: int, raw: bytes) -> list[bytes]:
        del to
        if author != 1:
            return [raw]
        sent.append(raw)
        extra: list[bytes] = []
        if len(sent) == 6:
            extra.append(sent[2])  # a replay within the match
            forged = bytearray(raw)
            forged[-5] ^= 0xFF  # a signature that does not verify
            extra.append(bytes(forged))
            extra.append(decode(foreign)[1])  # a message from another match
            extra.append(msgpack.packb(decode(raw), use_bin_type=True) + b"\x00")  # trailing
            extra.append(b"\x00" * (MAX_MESSAGE_BYTES + 1))  # oversized
        return extra + [raw]

    table = play("duel", seed=SEED, tamper=tamper)
    rejected = [e.reason for e in table.events[0] if isinstance(e, Rejected)]
    assert len(rejected) == 5
    assert any("replayed" in r for r in rejected)
    assert any("forged" in r for r in rejected)
    assert any("another match" in r for r in rejected)
    assert any("canonical" in r for r in rejected)
    assert any("limit" in r for r in rejected)
    assert table.outcomes()[0] is not None  # the match went on and finished
    assert sum(decode(r)[0] == "rejected" for r in table.transcripts[0]) == 5
    assert verify(transcript(table, 0)).ok


def test_an_illegal_action_is_proof_of_cheating() -> None:
    def illegal(body: list[Any]) -> list[Any]:
        return [body[0], body[1], body[2], {"type": "place", "cell": 99}, body[4]]

    table = attacked("magic-square", 1, "act", illegal)
    fault = honest_fault(table, 0)
    assert fault.peer == 1


def test_a_false_blindness_claim_is_caught_when_the_gestures_are_opened() -> None:
    from .test_blindness import P0, P1, Script

    def lie(body: list[Any]) -> list[Any]:
        view = dict(body[3])
        wizards = [dict(w) for w in view["wizards"]]
        wizards[1]["hp"] = 99
        view["wizards"] = wizards
        return [body[0], body[1], body[2], view]

    # Which peer holds p0 depends on the coin flip; lie from whichever sends the claims.
    table = attacked("duel", None, "blind", lie, bots=[Script(P0), Script(P1)], max_rounds=60)
    sighted = table.sessions[0].owner[0]
    fault = honest_fault(table, 1 - sighted)
    assert (fault.kind, fault.peer) == ("cheat", sighted)
    assert "view claim" in fault.reason
    # The evidence shows what was claimed against what the blinded peer computed, field by field.
    evidence = fault.evidence
    assert evidence["stage"] == 5 and evidence["seat"] == 1
    claimed, expected = evidence["claimed"], evidence["expected"]
    assert isinstance(claimed, dict) and isinstance(expected, dict)
    assert claimed["wizards"][1]["hp"] == 99 != expected["wizards"][1]["hp"]
    assert {k: v for k, v in claimed.items() if k != "wizards"} == {
        k: v for k, v in expected.items() if k != "wizards"
    }
    records = [decode(r) for r in table.transcripts[1 - sighted]]
    claims = [r[1] for r in records if r[0] == "msg" and decode(r[1])[5][:2] == ["blind", 5]]
    assert [hashlib.sha256(raw).hexdigest() for raw in claims] == [evidence["message"]]  # the signed lie
    report = verify(transcript(table, 1 - sighted))
    assert report.fault is not None and report.fault.evidence == evidence  # verify finds the same


def test_refusing_to_open_loses_with_a_signed_forfeit_in_the_transcript() -> None:
    def tamper(author: int, to: int, raw: bytes) -> list[bytes]:
        del to
        return [] if author == 1 and decode(raw)[5][0] == "reveal" else [raw]

    table = play("duel", seed=SEED, tamper=tamper)
    honest = table.sessions[0]
    assert honest.stage is not None  # stuck waiting for the reveal
    silent_seat = next(s for s, p in enumerate(honest.owner) if p == 1)
    with pytest.raises(LocalMisuseError, match="claim"):  # a forfeit is never a bare assertion
        honest.referee.forfeit(silent_seat, "did not open its gestures in time")
    honest.referee.claim_timeout(silent_seat, 130_000)  # the claim comes first; it goes unanswered
    claim = honest.flush()
    table.transcripts[0] += claim.records
    honest.referee.forfeit(silent_seat, "did not open its gestures in time")
    out = honest.flush()
    assert any(decode(m)[5][0] == "forfeit" for m in out.messages)
    table.transcripts[0] += out.records
    fault = next(e for e in honest.take_events() if isinstance(e, Fault))
    assert (fault.kind, fault.peer) == ("forfeit", 1)
    report = verify(transcript(table, 0))
    assert report.fault is not None
    assert report.fault.kind == "forfeit"
    assert encode(["msg", out.messages[0]]) in table.transcripts[0]
