"""Three or four peers: a forfeit one peer signs about another's seat cannot be checked by a third
(it cannot see the author's clock). A bystander holds it until its own grace period passes with
the seat still silent; an answer voids it; an observer reading a transcript lets it stand only if
nothing after it answered (docs/security.md)."""

from __future__ import annotations

from p2pgenius.canonical import encode
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Fault, Session, start_table
from p2pgenius.protocol.transcript import frame, header, verify


class Table:
    def __init__(self) -> None:
        ids = [Identity.from_seed(bytes([57, i]) * 16) for i in range(3)]
        self.keys = [i.public for i in ids]
        self.peers = [Session(keys=self.keys, me=i, identity=ids[i]) for i in range(3)]
        self.seen: list[list[bytes]] = [[], [], []]  # what each peer received, in order
        start_table(self.peers, "hornswoggle", options={}, setup={})
        self.pump()

    def pump(self) -> None:
        moved = True
        while moved:
            moved = False
            for i, session in enumerate(self.peers):
                for raw in session.flush().messages:
                    self.seen[i].append(raw)  # (its own, in the order it made them)
                    for other in range(3):
                        if other != i:
                            self.peers[other].receive(raw)
                            self.seen[other].append(raw)
                    moved = True

    def waited_on(self) -> tuple[int, int]:
        """(a seat the stage waits on, the peer holding it)."""
        stage = self.peers[0].stage
        assert stage is not None and stage.waiting
        seat = stage.waiting[0]
        return seat, self.peers[0].owner[seat]

    def transcript(self, index: int) -> bytes:
        records = [header(self.keys, index)]
        records += [frame(encode(["msg", raw])) for raw in self.seen[index]]
        return b"".join(records)


def test_a_forfeit_of_a_third_peers_seat_waits_for_the_bystanders_own_check() -> None:
    table = Table()
    seat, accused = table.waited_on()
    hostile, bystander = [p for p in range(3) if p != accused]
    villain = table.peers[hostile]
    villain.referee.claim_timeout(seat, 999_000)
    villain.referee.forfeit(seat, "no answer")  # back to back: no grace period ran anywhere but its own
    table.pump()
    watcher = table.peers[bystander]
    assert watcher.fault is None, watcher.fault
    assert watcher.stage is not None
    assert watcher.referee.forfeits_pending() == [(watcher.stage.number, seat)]
    # The accused is there and answers (its own peer refused the forfeit): the forfeit is void.
    honest = table.peers[accused]
    assert honest.fault is None and honest.played.match.game is not None
    legal = honest.played.match.game.legal_actions(honest.state, seat)
    honest.submit(seat, legal[0].to_plain())
    table.pump()
    assert watcher.referee.forfeits_pending() == []
    assert not watcher.referee.confirm_forfeit(0, seat)
    assert watcher.fault is None and honest.fault is None
    # An observer of the bystander's transcript judges it the same way: the answer voided it.
    report = verify(table.transcript(bystander))
    assert report.fault is None or report.fault.kind != "forfeit", report.summary


def test_a_forfeit_stands_for_a_bystander_once_its_own_check_finds_the_seat_still_silent() -> None:
    table = Table()
    seat, accused = table.waited_on()
    hostile, bystander = [p for p in range(3) if p != accused]
    table.peers[hostile].referee.claim_timeout(seat, 999_000)
    table.peers[hostile].referee.forfeit(seat, "no answer")
    table.pump()
    watcher = table.peers[bystander]
    assert watcher.stage is not None
    stage = watcher.stage.number
    assert watcher.referee.confirm_forfeit(stage, seat)  # (the net layer calls it after its grace period)
    assert isinstance(watcher.fault, Fault) and watcher.fault.kind == "forfeit"
    assert watcher.fault.peer == accused
    # And an observer of that transcript, where nothing answered, lets the forfeit stand.
    report = verify(table.transcript(bystander))
    assert report.fault is not None and report.fault.kind == "forfeit", report.summary


def test_a_claim_that_names_a_move_the_reader_has_not_got_waits_for_it() -> None:
    # A claim is signed on the history its author had: it names the move that closed the stage
    # before. A reader that has not got that move refuses it (it could be a claim made on
    # another history); the host relays in the order it accepted, so an honest claim never comes
    # first. Given the move, the same claim counts.
    table = Table()
    seat, mover = table.waited_on()
    peers = table.peers
    mover_session = peers[mover]
    assert mover_session.played.match.game is not None
    mover_session.submit(
        seat, mover_session.played.match.game.legal_actions(mover_session.state, seat)[0].to_plain()
    )
    held = mover_session.flush().messages
    ahead = next(p for p in range(3) if p != mover)  # gets the move at once
    behind = next(p for p in range(3) if p not in (mover, ahead))  # gets it late
    for raw in held:
        peers[ahead].receive(raw)
    stage = peers[ahead].stage
    assert stage is not None and stage.number == 1
    target = next((s for s in stage.waiting if peers[ahead].owner[s] != ahead), None)
    assert target is not None, "the next stage waits on a seat the claimant does not hold"
    peers[ahead].referee.claim_timeout(target, 999_000)
    claim = peers[ahead].flush().messages
    late = peers[behind]
    refused = [e for raw in claim for e in late.receive(raw)]
    assert any("does not hold" in getattr(e, "reason", "") for e in refused), refused
    assert ahead not in late.time.claims.get((1, target), set())
    for raw in held + claim:
        late.receive(raw)
    assert late.stage is not None and late.stage.number == 1
    assert ahead in late.time.claims.get((1, target), set())  # counted, once its history is in
