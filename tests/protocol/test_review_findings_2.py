"""Holes found by a review of every message kind (docs/security.md), each closed and tried here."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable
from typing import Any

import pytest

from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.protocol.bodies import NONCE_LEN, Act, Commit
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import commitment
from p2pgenius.protocol.session import Fault, Rejected, Session, start_table

from .harness import play
from .test_blindness import Script
from .test_clocks import Pair, ms_setup
from .test_forfeits import forged


def _flip(session: Session, seat: int) -> dict[str, Any]:
    assert session.played.match.game is not None
    legal = session.played.match.game.legal_actions(session.state, seat)
    flip: dict[str, Any] = next(a for a in legal if type(a).__name__ == "Flip").to_plain()
    return flip


def _time_out(session: Session, seat: int) -> dict[str, Any]:
    del session, seat
    return {"type": "timeout"}


PLAYS: dict[str, Callable[[Session, int], dict[str, Any]]] = {
    "order": lambda session, seat: {"type": "order", "first": 0},
    "opening": lambda session, seat: {"type": "place", "card": "doubloon"},
    "turns": lambda session, seat: {"type": "bid", "count": session.state.table},
    "bidding": lambda session, seat: {"type": "pass"},
    "flipping": _flip,
}
"""What a seat plays in each phase of hornswoggle, below (anything else: a timeout)."""


def _commit_to(session: Session, number: int, seat: int, card: dict[str, Any]) -> bytes:
    """``seat`` commits to ``card`` at stage ``number`` while its session keeps a doubloon as
    what it will open; the commitment's nonce."""
    nonce = secrets.token_bytes(NONCE_LEN)
    session.courier.secrets[(number, seat)] = ({"type": "place", "card": "doubloon"}, nonce)
    session.courier.send(Commit(number, seat, commitment(session.match_id, number, seat, nonce, card), 0))
    return nonce


def _pump(peers: list[Session], observer: Session) -> None:
    """Every message each peer has to send, to the other and to the observer, until none has."""
    moved = True
    while moved:
        moved = False
        for i in (0, 1):
            for raw in peers[i].flush().messages:
                peers[1 - i].receive(raw)
                observer.receive(raw)
                moved = True


def test_a_hidden_card_opened_to_something_else_convicts_its_owner_not_the_flipper() -> None:
    # A hostile commits to a "ruby" as its opening card; an honest challenger flips its pile.
    ids = [Identity.from_seed(bytes([9, i]) * 16) for i in range(2)]
    keys = [i.public for i in ids]
    peers = [Session(keys=keys, me=i, identity=ids[i]) for i in range(2)]
    observer = Session(keys=keys, me=None)

    def pump() -> None:
        _pump(peers, observer)

    start_table(peers, "hornswoggle", options={}, setup={})
    pump()
    owner = peers[0].owner
    hostile = owner[1]
    ruby = {"type": "place", "card": "ruby"}
    swapped: list[tuple[Session, tuple[int, int], bytes]] = []
    for _ in range(60):
        stage = peers[0].stage
        if stage is None or any(p.fault for p in peers):
            break
        for seat in stage.waiting:
            session = peers[owner[seat]]
            if seat not in session.awaiting():
                continue
            phase = session.state.phase
            if owner[seat] == hostile and phase == "opening":
                swapped.append((session, (stage.number, seat), _commit_to(session, stage.number, seat, ruby)))
            else:
                session.submit(seat, PLAYS.get(phase, _time_out)(session, seat))
            pump()
            for hostile_session, ref, nonce in swapped:  # it opens what it really committed to
                if hostile_session.stage is None or hostile_session.stage.number > ref[0]:
                    hostile_session.courier.secrets[ref] = (ruby, nonce)
    honest = peers[1 - hostile]
    assert honest.fault is not None and (honest.fault.kind, honest.fault.peer) == ("cheat", hostile)
    assert "not one" in honest.fault.reason
    assert observer.fault is not None and observer.fault.peer == hostile  # verify says the same


def test_a_dispute_cannot_claim_more_time_than_the_clock_had() -> None:
    pair = Pair("magic-square", {"round_seconds": 60}, ms_setup())
    mover = pair.seat_peer(0)
    other = pair.s[1 - mover.me]  # type: ignore[operator]
    other.referee.claim_timeout(0, 61_000)
    pair.pump()
    with pytest.raises(LocalMisuseError, match="its clock had"):
        mover.referee.dispute(0, 2**62)  # a stall for ever, if it were believed
    events = other.receive(forged(mover, ["dispute", 0, 0, 2**62]))
    assert any(isinstance(e, Rejected) and "its clock had" in e.reason for e in events)
    assert (0, 0) in other.time.claims  # the claim still stands


def test_both_wizards_blinding_each_other_at_once_play_on() -> None:
    # Each peer withheld its gestures from the other's blind machine, so neither could apply the
    # turn and the duel stuck; with everyone blind the choices are exchanged as usual.
    both = ["D-", "W-", "S-", "W-", "CC", "--", "--", "--", "--", "--"]
    table = play("duel", bots=[Script(both), Script(both)], max_rounds=200)
    assert table.faults() == []
    assert all(session.state.turn > 9 for session in table.sessions)
    assert table.sessions[0].played.ending.my_hashes == {
        n: h
        for n, h in table.sessions[1].played.ending.my_hashes.items()
        if n in table.sessions[0].played.ending.my_hashes
    }


def test_a_chat_line_over_the_limit_is_refused_on_receipt() -> None:
    pair = Pair("magic-square", {"round_seconds": 60}, ms_setup())
    events = pair.s[0].receive(forged(pair.s[1], ["chat", "x" * 501]))
    assert any(isinstance(e, Rejected) and "500" in e.reason for e in events)
    assert not any(isinstance(e, Fault) for e in events)


def test_blindness_that_becomes_mutual_part_way_does_not_stall_the_duel() -> None:
    # One wizard is blinded a turn before the other: the first peer is behind on claims when
    # the second goes blind too, and stopped sending claims; what it kept back is now released.
    first = ["D-", "W-", "S-", "W-", "CC"] + ["--"] * 8
    second = ["--", "D-", "W-", "S-", "W-", "CC"] + ["--"] * 8
    table = play("duel", bots=[Script(first), Script(second)], max_rounds=300)
    assert table.faults() == []
    assert all(session.state.turn > 12 for session in table.sessions)
    assert all(not session.played.sight.unseen.withheld for session in table.sessions)


def test_a_claim_answered_by_a_decision_while_a_reveal_is_still_owed_is_claimed_anew() -> None:
    # The claim was answered (a commitment), the seat still owes its reveal: the forfeit deadline
    # must not fire on the answered claim (it raised and stopped the peer's match loop).
    import trio
    import trio.testing

    from p2pgenius.protocol.clocks import Clocks

    pair = Pair("duel", {"fast": True})
    a, b = pair.s
    seat_a, seat_b = a.my_seats[0], b.my_seats[0]
    a.referee.claim_timeout(seat_b, 70_000)
    pair.pump()
    b.submit(seat_b, {"type": "timeout"}, ms=0)  # it answers with a commitment; its reveal waits
    pair.pump()
    a.submit(seat_a, {"type": "timeout"}, ms=0)  # every choice now stands, here: b's reveal is due
    a.flush()  # (b never gets ours: it never reveals)
    assert seat_b in a.owed() and (a.stage.number if a.stage else -1, seat_b) not in a.time.claims
    seen: list[str] = []

    async def main() -> None:
        clocks = Clocks(trio.current_time)
        clocks.start(a)
        clocks.follow(a.stage.number if a.stage else -1)
        clocks.claimed[seat_b] = trio.current_time()
        clocks.deadlines(a, 120.0)  # (the loop looks at every turn: b's reveal fell due now)
        clock.jump(500)
        for _ in range(3):
            deadlines = clocks.deadlines(a, 120.0)
            seen.extend(d.what for d in deadlines if d.when <= trio.current_time())
            clocks.act(a, deadlines, 120.0, lambda event: None)
            a.flush()

    clock = trio.testing.MockClock()
    trio.run(main, clock=clock)
    assert seen and seen[0] != "forfeit"  # the answered claim is dropped, not forfeited...
    assert a.time.claims  # ...and a new claim is made about what is still owed


def test_a_bare_timeout_instead_of_a_committed_card_is_refused_and_the_match_goes_on() -> None:
    # A Hornswoggle seat's timeout is played by its own peer as a committed card. A hostile peer
    # that sends a bare "timeout" act where a card is due would lay a card nobody committed to: the
    # first flip to meet it used to crash the flipper's session. It is refused on receipt.
    ids = [Identity.from_seed(bytes([19, i]) * 16) for i in range(2)]
    keys = [i.public for i in ids]
    peers = [Session(keys=keys, me=i, identity=ids[i]) for i in range(2)]
    start_table(peers, "hornswoggle", options={}, setup={})
    for _ in range(4):
        for i in (0, 1):
            for raw in peers[i].flush().messages:
                peers[1 - i].receive(raw)
    honest = peers[0]
    assert honest.owner, "seats dealt"
    hostile = peers[1]
    while honest.state.phase != "opening":  # someone picks who starts
        stage = honest.stage
        assert stage is not None
        seat = stage.waiting[0]
        peers[honest.owner[seat]].submit(seat, {"type": "order", "first": 0})
        for i in (0, 1):
            for raw in peers[i].flush().messages:
                peers[1 - i].receive(raw)
    stage = honest.stage
    assert stage is not None
    seat = next(s for s in stage.waiting if honest.owner[s] == 1)
    with contextlib.suppress(P2PGeniusError):  # (its own session refuses it too; it is sent anyway)
        hostile.courier.send(Act(stage.number, seat, {"type": "timeout"}, 0))
    events = [e for raw in hostile.flush().messages for e in honest.receive(raw)]
    assert any(isinstance(e, Rejected) and "played by its own peer" in e.reason for e in events), events
    assert honest.fault is None and honest.stage is not None and seat in honest.stage.waiting
