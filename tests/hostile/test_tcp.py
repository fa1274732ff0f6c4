"""The hostile-peer suite over real TCP: a scripted malicious peer does every wrong thing of
scenarios.ATTACKS; each time the honest peer answers clearly, keeps a transcript that verifies to
the fault (or with the refused message recorded), and stays responsive."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pgenius.record.matches import from_report

from .scenarios import ATTACKS, Attack


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
async def test_the_honest_peer_holds(attack: Attack, tmp_path: Path) -> None:
    result = await attack.run(tmp_path)
    kind, _, words = attack.expect.partition(": ")
    report = result.report
    session = result.host.session
    assert session is not None
    if kind == "rejected":
        assert any(words in reason for reason in result.rejected()), result.rejected()
        assert any(words in reason for reason in report.rejected), report.rejected  # on the record
        assert session.finished and report.ok, report.summary  # and the match went on to its end
    elif kind == "rejected+forfeit":  # refused; the seat still owes its move, and forfeits
        assert any(words in reason for reason in result.rejected()), result.rejected()
        assert any(words in reason for reason in report.rejected), report.rejected
        fault = result.fault()
        assert fault is not None and fault.kind == "forfeit" and report.fault is not None
    elif kind.startswith("fault"):
        fault = result.fault()
        assert fault is not None, f"the honest peer did not notice: {result.rejected()} {result.seen.lines}"
        assert fault.kind == kind.split()[1] and words in fault.reason, (fault, result.seen.lines)
        # verify shows it too; a desync the honest peer saw live is, to verify's replay, which
        # knows the true state, the liar's proven cheat (the honest hash agrees with the replay)
        shown = "cheat" if fault.kind == "desync" else fault.kind
        assert report.fault is not None and report.fault.kind == shown, report.summary
        if shown in ("cheat", "forfeit"):  # the honest player's record: a win, counted
            line = from_report(str(result.host.files.transcript), report).owned([result.host.identity.public])
            assert line.counts and line.side() == "won", (line.kind, line.result())
    else:  # at the door: the caller got nowhere, and the honest player played a whole match
        if kind == "refused":
            assert any("refused" in line and words in line for line in result.seen.lines), result.seen.lines
        assert session.finished and report.ok, report.summary


async def test_a_forfeit_after_the_last_move_is_told_after_it_not_before_the_deal(tmp_path: Path) -> None:
    # No stage is open once the last is played: verify said such a fault came "before the deal".
    attack = next(a for a in ATTACKS if a.name.startswith("walking away at the very end"))
    report = (await attack.run(tmp_path)).report
    assert report.fault is not None and report.steps, report.summary
    assert f"forfeit after step {len(report.steps)}, the last, by " in report.summary, report.summary
    assert "before the deal" not in report.summary
