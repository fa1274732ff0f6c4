"""A loser's last words over loopback TCP: the villain, at a duel turn, sends instead of its commit
a timeout claim and a forfeit of the honest seat (its heads naming only what it had read before,
as if the honest commit had not arrived), then nothing more. The honest host refuses the
forfeit, stays responsive, claims the silent villain and forfeits it: its screen says the villain
forfeited. Its transcript, read by anyone, holds the villain's forfeit beside the answer it never
named, and reads contested: with two peers and no clock both trust, nothing signed tells a
forfeit sent at once from one sent after the grace period (docs/security.md, "What a transcript
still cannot prove"; the end of the match says so to the winner)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from p2pgenius.canonical import decode
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import seal
from p2pgenius.protocol.session import Fault
from tests.hostile import scenarios
from tests.hostile.villain import Chain, Lie


class LastWords(Chain):
    """Passes every message until its ``nth`` commit; sends instead a claim and a forfeit of the
    honest seat (p0), chained to what it had sent, then goes silent."""

    def __init__(self, nth: int) -> None:
        super().__init__(Lie("commit", nth=nth))
        self.heads: list[bytes] = []
        self.gone = False

    def __call__(self, identity: Identity, raw: bytes) -> list[bytes]:
        _, match_id, author, seq, heads, body, _ = decode(raw)
        if self.gone:
            return []
        if body[0] != "commit" or self.seen < self.lie.nth:
            self.seen += body[0] == "commit"
            self.heads = [*heads[:author], hashlib.sha256(raw).digest(), *heads[author + 1 :]]
            return [raw]
        self.gone = True
        stage: Any = body[1]
        claim = seal(identity, match_id, author, seq, list(self.heads), ["timeout", stage, 0, 130_000])
        heads = [*self.heads[:author], hashlib.sha256(claim).digest(), *self.heads[author + 1 :]]
        forfeit = seal(identity, match_id, author, seq + 1, heads, ["forfeit", stage, 0, "no answer"])
        self.log.append(f"last words at stage {stage}")
        return [claim, forfeit]


async def test_a_losers_last_words_at_a_duel_turn_leave_the_winners_copy_contested(
    tmp_path: Path,
) -> None:
    run = scenarios.on_a_fake_clock(
        lambda tmp: scenarios._match(tmp, LastWords(2), "duel", 3, {"fast": True, "turn_seconds": 3})
    )
    result = await run(tmp_path)
    faults = [e for e in result.seen.events if isinstance(e, Fault)]
    assert faults and faults[0].kind == FaultKind.FORFEIT and faults[0].peer == 1, faults
    assert any("a forfeit of p0" in reason for reason in result.rejected()), result.rejected()
    report = result.report  # (the host's own transcript, verified as anyone would)
    assert report.fault is not None and report.fault.kind == FaultKind.CONTESTED, report.summary
