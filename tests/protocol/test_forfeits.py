"""A forfeit is never a bare assertion (protocol/SPEC.md, section 6, "Time"): it needs its
author's timeout claim, standing (neither disputed nor answered), and the accused seat's own peer
never takes it. Each rule from both sides, and from a third party's transcript check."""

from __future__ import annotations

import hashlib

import pytest

from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.messages import seal
from p2pgenius.protocol.session import ClaimDisputed, Fault, Rejected, Session, start_table
from p2pgenius.protocol.transcript import verify

from .test_clocks import Pair, ms_setup


def forged(session: Session, body: list[object]) -> bytes:
    """A message ``session``'s peer signs and chains itself, bypassing its own session's rules
    (what a hostile peer's program would do)."""
    assert session.me is not None and session.identity is not None
    raw = seal(
        session.identity,
        session.match_id,
        session.me,
        session.chain.next_seq[session.me],
        session.chain.heads(),
        body,
    )
    # Its own chain moves on (a body its receivers refuse as malformed included).
    session.chain.next_seq[session.me] += 1
    session.chain.last_hash[session.me] = hashlib.sha256(raw).digest()
    return raw


def stuck_pair() -> tuple[Pair, Session, Session]:
    """A Magic Square match whose p0 owes its first decision; returns (pair, p0's, p1's)."""
    pair = Pair("magic-square", {"round_seconds": 60}, ms_setup())
    mover = pair.seat_peer(0)
    return pair, mover, pair.s[1 - mover.me]  # type: ignore[operator]


def faults(pair: Pair, session: Session) -> list[Fault]:
    return [e for e in pair.events[session.me] if isinstance(e, Fault)]  # type: ignore[index]


def rejected(pair: Pair, session: Session) -> list[str]:
    return [e.reason for e in pair.events[session.me] if isinstance(e, Rejected)]  # type: ignore[index]


def test_a_forfeit_with_no_claim_is_refused_by_the_accused_and_the_match_goes_on() -> None:
    pair, mover, other = stuck_pair()
    pair.events[mover.me] += mover.receive(forged(other, ["forfeit", 0, 0, "no answer for 120 seconds"]))  # type: ignore[index]
    assert faults(pair, mover) == []
    assert any("here and answering" in r for r in rejected(pair, mover))
    mover.submit(0, {"type": "order", "first": 0}, ms=1_000)  # and it plays on
    pair.pump()
    assert mover.stage is not None and mover.stage.number == 1


def test_our_own_forfeit_needs_our_standing_claim_first() -> None:
    _, _, other = stuck_pair()
    with pytest.raises(LocalMisuseError, match="claim"):
        other.referee.forfeit(0, "no answer")
    other.referee.claim_timeout(0, 61_000)
    other.referee.forfeit(0, "no answer to a timeout claim")
    assert [f.kind for f in other.take_events() if isinstance(f, Fault)] == ["forfeit"]


def test_a_third_party_refuses_a_forfeit_without_a_claim() -> None:
    pair, mover, other = stuck_pair()
    mover.receive(forged(other, ["forfeit", 0, 0, "no answer"]))
    pair.pump()
    observer_verdict = verify(_transcript_of(mover))
    assert any("here and answering" in r for r in observer_verdict.rejected) or any(
        "no timeout claim" in r for r in observer_verdict.rejected
    )
    assert observer_verdict.fault is None


def test_a_claim_answered_by_a_dispute_no_longer_stands() -> None:
    pair, mover, other = stuck_pair()
    other.referee.claim_timeout(0, 61_000)
    pair.pump()
    mover.referee.dispute(0, 30_000)  # by its clock half a minute is left
    pair.pump()
    assert any(isinstance(e, ClaimDisputed) and e.left_ms == 30_000 for e in pair.events[other.me])  # type: ignore[index]
    with pytest.raises(LocalMisuseError, match="claim"):
        other.referee.forfeit(0, "no answer")
    # A forged forfeit after the dispute is refused by everyone.
    pair.events[mover.me] += mover.receive(forged(other, ["forfeit", 0, 0, "no answer"]))  # type: ignore[index]
    assert faults(pair, mover) == []


def test_a_seat_disputes_once_per_stage_and_only_a_decision_on_its_clock() -> None:
    pair, mover, other = stuck_pair()
    with pytest.raises(LocalMisuseError, match="no timeout claim"):
        mover.referee.dispute(0, 1_000)
    other.referee.claim_timeout(0, 61_000)
    pair.pump()
    mover.referee.dispute(0, 30_000)
    pair.pump()
    other.referee.claim_timeout(0, 92_000)
    pair.pump()
    with pytest.raises(LocalMisuseError, match="already disputed"):
        mover.referee.dispute(0, 1_000)
    # A second dispute forged anyway is refused, and the claim still stands: the forfeit holds.
    pair.events[other.me] += other.receive(forged(mover, ["dispute", 0, 0, 60_000]))  # type: ignore[index]
    assert any("already disputed" in r for r in rejected(pair, other))
    other.referee.forfeit(0, "no answer to a timeout claim")
    assert [f.kind for f in other.take_events() if isinstance(f, Fault)] == ["forfeit"]


def test_a_decision_answers_a_claim() -> None:
    pair, mover, other = stuck_pair()
    other.referee.claim_timeout(0, 61_000)
    pair.pump()
    mover.submit(0, {"type": "order", "first": 0}, ms=59_000)
    pair.pump()
    assert (0, 0) not in other.time.claims


def _transcript_of(session: Session) -> bytes:
    from p2pgenius.canonical import encode
    from p2pgenius.protocol.transcript import frame, header

    records = [header(session.keys, session.me)]
    records += [frame(encode(["msg", raw])) for _, _, raw in session.chain.archive]
    return b"".join(records)


def test_walking_away_from_the_coin_flip_after_seeing_the_others_share_forfeits() -> None:
    # The last to open its coin share knows the deal first; if it could leave and start again it
    # could pick its seat. It cannot: an unopened share is claimed, then forfeited, on the record.
    from p2pgenius.canonical import decode
    from p2pgenius.protocol.identity import Identity

    ids = [Identity.from_seed(bytes([91, i]) * 16) for i in range(2)]
    keys = [i.public for i in ids]
    s = [Session(keys=keys, me=i, identity=ids[i]) for i in range(2)]
    start_table(s, "duel", options={"fast": True}, setup={})
    for _ in range(6):  # deliver all but peer 1's coin share
        for i in (0, 1):
            for raw in s[i].flush().messages:
                if i == 1 and decode(raw)[5][0] == "coin_reveal":
                    continue
                s[1 - i].receive(raw)
    assert s[0].setup.unrevealed() == (1,) and not s[0].owner
    with pytest.raises(LocalMisuseError, match="claim"):
        s[0].referee.forfeit(1, "no answer")
    s[0].referee.claim_walkaway(1, 121_000)
    s[0].referee.forfeit(1, "no answer to a timeout claim")
    fault = next(e for e in s[0].take_events() if isinstance(e, Fault))
    assert (fault.kind, fault.peer, fault.stage) == ("forfeit", 1, -2)
    # The walker's own peer, reading it, refuses it: it is there.
    events = [e for raw in s[0].flush().messages for e in s[1].receive(raw)]
    assert any(isinstance(e, Rejected) and "here and answering" in e.reason for e in events)
