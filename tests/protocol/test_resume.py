"""A peer that crashes mid-match is rebuilt from its transcript and secrets and carries on."""

from __future__ import annotations

import pytest

from p2pgenius.bots import make_bot
from p2pgenius.canonical import decode
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session, start_table
from p2pgenius.protocol.transcript import frame, header, verify


@pytest.mark.parametrize(
    ("game", "crash_after"), [("duel", 12), ("duel", 30), ("magic-square", 40), ("hornswoggle", 70)]
)
def test_a_crashed_peer_resumes_from_disk_and_the_match_finishes(game: str, crash_after: int) -> None:
    identities = [Identity.from_seed(bytes([9, i]) * 16) for i in range(2)]
    keys = [i.public for i in identities]
    sessions = [Session(keys=keys, me=i, identity=identities[i]) for i in range(2)]
    disk: list[list[bytes]] = [[header(keys, i)] for i in range(2)]
    secrets: list[list[bytes]] = [[], []]
    seats = 4 if game == "hornswoggle" else 2
    bots = [make_bot(game, "random", seed=s) for s in range(seats)]
    inbox: list[list[bytes]] = [[], []]

    def flush(i: int) -> None:
        out = sessions[i].flush()
        disk[i] += [frame(r) for r in out.records]
        secrets[i] += out.secrets
        inbox[1 - i] += out.messages
        sessions[i].take_events()

    def act(i: int) -> None:
        session = sessions[i]
        for seat in session.awaiting():
            action = bots[seat].choose(session.state, seat)
            if action is None:
                session.decline(seat)
            else:
                session.submit(seat, action.to_plain())
            for unsettled in session.unsettled():  # a duel's minute, at once
                session.finalize(unsettled)
            flush(i)

    start_table(sessions, game, options={}, setup={})
    flush(0)
    delivered = 0
    crashed = False
    for _ in range(100_000):
        if all(s.finished for s in sessions):
            break
        for i in (0, 1):
            while inbox[i]:
                sessions[i].receive(inbox[i].pop(0))
                flush(i)
                delivered += 1
            act(i)
        if not crashed and delivered >= crash_after:
            # Peer 1 dies: whatever was on its way to it is lost; its disk survives.
            crashed = True
            inbox[1].clear()
            records = [decode(r[4:]) for r in disk[1]]
            restored = Session.restore(
                identity=identities[1], transcript=records, secrets=[decode(s) for s in secrets[1]]
            )
            # The rebuilt session is where the old one was, to the message.
            assert restored.chain.next_seq[1] == sessions[1].chain.next_seq[1]
            assert restored.played.ending.my_hashes == sessions[1].played.ending.my_hashes
            sessions[1] = restored
            flush(1)
            # On reconnecting each side sends what the other has not seen.
            inbox[1] += sessions[0].chain.missing_for(restored.chain.next_seq)
            inbox[0] += restored.chain.missing_for(sessions[0].chain.next_seq)
    assert crashed
    assert all(s.finished for s in sessions)
    assert sessions[0].outcome == sessions[1].outcome
    for i in (0, 1):
        report = verify(b"".join(disk[i]))
        assert report.ok, report.summary
