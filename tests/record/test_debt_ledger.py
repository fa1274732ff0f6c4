"""A verification's observer keeps its ledger of debts (when each fell due, which message paid
it) only from the first forfeit it reads, worked out then from the start (``Referee.ledger``,
issue 48): the verdict of every copy with a forfeit in it, alone and beside the honest copy, is
the one an observer keeping the ledger from the first message gives, and a copy without one keeps
none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from p2pgenius.canonical import decode
from p2pgenius.protocol import transcript as transcript_module
from p2pgenius.protocol.observer import observer_of, replay
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import Report, verify, verify_copies
from tests.protocol.test_forger import FORGE
from tests.record.test_copies import walkaway


def _keeping_from_the_start(header: Any, *, recording: bool = True, ledger: bool = True) -> Session:
    del ledger  # (kept from the start, whatever the caller asks)
    return Session(keys=list(header.peers), me=None, version=header.version, recording=recording)


def _verdict(report: Report) -> tuple[Any, ...]:
    fault = None if report.fault is None else (report.fault.kind, report.fault.peer, report.fault.reason)
    return (report.ok, report.summary, fault, report.outcome, report.disputed_time, report.rejected)


def _copies(game: str, peers: int) -> Iterator[tuple[bytes, bytes]]:
    """(the honest copy, a forger's) with a claim and a forfeit at points spread over the match."""
    table, copy, theirs = walkaway(game, peers)
    forger = FORGE.Forger(table.identities[1], theirs)
    count, last = len(forger.messages), forger.last_own()
    # Points spread over the match, and each after the forger's last message of its own.
    points = sorted({*range(0, count, max(1, count // 6)), *range(max(last, count - 4), count)})
    for forgery in forger.claims(at=points):
        yield copy, forger.write(forgery)


@pytest.mark.parametrize(("game", "peers"), [("duel", 2), ("hornswoggle", 4)])
def test_the_ledger_worked_out_at_the_first_forfeit_gives_every_verdict_kept_from_the_start(
    game: str, peers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = list(_copies(game, peers))
    assert len(pairs) >= 4
    lazy = [(_verdict(verify(forged)), _verdict(verify_copies([honest, forged]))) for honest, forged in pairs]
    monkeypatch.setattr(transcript_module, "observer_of", _keeping_from_the_start)
    kept = [(_verdict(verify(forged)), _verdict(verify_copies([honest, forged]))) for honest, forged in pairs]
    assert lazy == kept
    # (the copies do test the ledger: a forfeit in them is judged, with some refused or held)
    assert any("forfeit" in str(alone) for alone, _ in lazy)


def test_an_observer_keeps_no_ledger_until_a_forfeit_and_then_keeps_it() -> None:
    _, copy, _ = walkaway("duel", 2)
    read = transcript_module.read(copy)
    observer = observer_of(read.header, recording=False, ledger=False)
    forfeits = 0
    for step in replay(read, observer):
        forfeits += decode(step.record.raw)[5][0] == "forfeit"
        if not forfeits:
            assert observer.referee.ledger is None
    assert forfeits and observer.referee.ledger is not None and observer.referee.ledger.due_at
    # (a spectator's, or any observer but a verification's, keeps it from the first message)
    assert observer_of(read.header).referee.ledger is not None
