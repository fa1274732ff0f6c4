"""A peer that crashes mid-match is rebuilt from its transcript and secrets and carries on."""

from __future__ import annotations

import pytest

from p2pgenius.bots import make_bot
from p2pgenius.canonical import decode
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import open_envelope, seal
from p2pgenius.protocol.session import Session, start_table
from p2pgenius.protocol.session.ending import EndJudge
from p2pgenius.protocol.transcript import frame, header, verify


class TwoPeers:
    """Two peers' sessions passing messages by hand, each with its disk (transcript and secrets)
    and random bots for its seats."""

    def __init__(self, game: str) -> None:
        self.identities = [Identity.from_seed(bytes([9, i]) * 16) for i in range(2)]
        keys = [i.public for i in self.identities]
        self.sessions = [Session(keys=keys, me=i, identity=self.identities[i]) for i in range(2)]
        self.disk: list[list[bytes]] = [[header(keys, i)] for i in range(2)]
        self.secrets: list[list[bytes]] = [[], []]
        seats = 4 if game == "hornswoggle" else 2
        self.bots = [make_bot(game, "random", seed=s) for s in range(seats)]
        self.inbox: list[list[bytes]] = [[], []]

    def flush(self, i: int) -> None:
        out = self.sessions[i].flush()
        self.disk[i] += [frame(r) for r in out.records]
        self.secrets[i] += out.secrets
        self.inbox[1 - i] += out.messages
        self.sessions[i].take_events()

    def deliver(self, i: int) -> int:
        """Peer ``i`` takes what came for it; how many messages that was."""
        count = 0
        while self.inbox[i]:
            self.sessions[i].receive(self.inbox[i].pop(0))
            self.flush(i)
            count += 1
        return count

    def act(self, i: int) -> None:
        session = self.sessions[i]
        for seat in session.awaiting():
            action = self.bots[seat].choose(session.state, seat)
            if action is None:
                session.decline(seat)
            else:
                session.submit(seat, action.to_plain())
            for unsettled in session.unsettled():  # a duel's minute, at once
                session.choices.finalize(unsettled)
            self.flush(i)

    def crash_and_restore(self) -> None:
        """Peer 1 dies: whatever was on its way to it is lost; its disk survives, and it is
        rebuilt from it."""
        sessions = self.sessions
        self.inbox[1].clear()
        records = [decode(r[4:]) for r in self.disk[1]]
        restored = Session.restore(
            identity=self.identities[1], transcript=records, secrets=[decode(s) for s in self.secrets[1]]
        )
        # The rebuilt session is where the old one was, to the message.
        assert restored.chain.next_seq[1] == sessions[1].chain.next_seq[1]
        assert restored.played.ending.my_hashes == sessions[1].played.ending.my_hashes
        sessions[1] = restored
        self.flush(1)
        # On reconnecting each side sends what the other has not seen.
        self.inbox[1] += sessions[0].signed_log.missing_for(restored.signed_log.counts)
        self.inbox[0] += restored.signed_log.missing_for(sessions[0].signed_log.counts)


@pytest.mark.parametrize(
    ("game", "crash_after"), [("duel", 12), ("duel", 30), ("magic-square", 40), ("hornswoggle", 70)]
)
def test_a_crashed_peer_resumes_from_disk_and_the_match_finishes(game: str, crash_after: int) -> None:
    peers = TwoPeers(game)
    sessions, disk = peers.sessions, peers.disk
    start_table(sessions, game, options={}, setup={})
    peers.flush(0)
    delivered = 0
    crashed = False
    for _ in range(100_000):
        if all(s.finished for s in sessions):
            break
        for i in (0, 1):
            delivered += peers.deliver(i)
            peers.act(i)
        if not crashed and delivered >= crash_after:
            crashed = True
            peers.crash_and_restore()
    assert crashed
    assert all(s.finished for s in sessions)
    assert sessions[0].outcome == sessions[1].outcome
    for i in (0, 1):
        report = verify(b"".join(disk[i]))
        assert report.ok, report.summary


def test_a_restored_peer_compares_each_stage_s_hashes_whatever_its_recorded_hash_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review of issue 48's cut (a hash sealed here is compared as it is taken, not again): a
    restore takes our next hash from the transcript, which a damaged disk may have name another
    stage, so the stage the restore has just played has its hashes compared all the same (a
    peer's false hash held for it is a desync, as when the hash was sealed live)."""
    peers = TwoPeers("duel")
    sessions = peers.sessions
    start_table(sessions, "duel", options={"fast": True}, setup={})
    peers.flush(0)
    while sessions[1].play is None or len(sessions[1].played.ending.my_hashes) < 3:
        for i in (0, 1):
            peers.deliver(i)
            peers.act(i)
    # Our disk up to our last hash, which is re-signed (by our own key) to name a later stage.
    records = [decode(r[4:]) for r in peers.disk[1]]
    last = max(i for i, r in enumerate(records) if r[0] == "msg" and _hash_of(r[1], author=1))
    env = open_envelope(records[last][1], [i.public for i in peers.identities])
    number, digest = env.body[1], env.body[2]
    doctored = seal(peers.identities[1], env.match_id, 1, env.seq, env.heads, ["hash", number + 5, digest])
    records = [*records[:last], ["msg", doctored]]
    compared: list[int] = []
    compare = EndJudge.compare_hashes

    def noted(judge: EndJudge, stage: int) -> None:
        compared.append(stage)
        compare(judge, stage)

    monkeypatch.setattr(EndJudge, "compare_hashes", noted)
    Session.restore(
        identity=peers.identities[1], transcript=records, secrets=[decode(s) for s in peers.secrets[1]]
    )
    assert number in compared


def _hash_of(raw: bytes, *, author: int) -> bool:
    value = decode(raw)
    return bool(value[2] == author and value[5][0] == "hash")


def test_what_a_seat_committed_to_is_shown_as_a_copy_its_opening_unchanged() -> None:
    """Review of issue 48's cut (a peer's own opening is not hashed again to check it): what a
    caller (the screen) is shown of a commitment is a copy, so changing it in place changes
    neither the opening sent nor the match."""
    peers = TwoPeers("duel")
    sessions = peers.sessions
    start_table(sessions, "duel", options={"fast": True}, setup={})
    peers.flush(0)
    changed = 0
    for _ in range(10_000):
        if all(s.finished for s in sessions):
            break
        for i in (0, 1):
            peers.deliver(i)
            peers.act(i)
            for seat in sessions[i].played.match.mine if sessions[i].play is not None else ():
                shown = sessions[i].committed(seat)
                if isinstance(shown, dict):
                    shown.clear()
                    changed += 1
    assert changed and all(s.finished for s in sessions)
    for disk in peers.disk:
        report = verify(b"".join(disk))
        assert report.ok and report.fault is None, report.summary
