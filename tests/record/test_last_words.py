"""A loser's last words: a timeout claim and a forfeit of the winner's seat, sent at once, with no
grace period waited and not naming the winner's answer, and then nothing. The winner's own peer
refuses the forfeit, claims the silent loser and forfeits it: it saw a forfeit by the loser.

What the winner's copy proves, read by anyone: nothing signed tells the loser's early forfeit from
one sent after the grace period (two peers, no clock both trust: Cleve), so the copy holds a
forfeit beside an answer its author never named, and reads contested, whether or not the loser
had made its own decision of that turn (a rule against the loser that had not was tried, and
given up: a loser gets round it by committing any move first). The winner is told so as the
match ends, not only the forfeit it saw (docs/security.md, "What a transcript still cannot
prove")."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.cli.export import result_words
from p2pgenius.cli.play import Printer, finish
from p2pgenius.net.peer import Files
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.session import Fault, Session, SessionView
from p2pgenius.protocol.transcript import frame, header, verify
from p2pgenius.record.verifying import verify_copies
from tests.protocol.test_clocks import Pair, ms_setup
from tests.record.conftest import account_of


@dataclass
class Ended:
    """What :func:`finish` reads of a peer whose match has ended."""

    view: SessionView
    files: Files


def last_words(pair: Pair, winner: Session, decision: Any, seat: int) -> tuple[bytes, bytes]:
    """The winner decides ``decision`` for ``seat`` (None: it has, already), which the loser
    never reads; the loser claims and forfeits that seat at once and stops; the winner refuses
    it, then claims and forfeits the loser's next decision. Both copies."""
    me = winner.me
    assert me is not None
    loser = pair.s[1 - me]
    if decision is not None:
        winner.submit(seat, decision, ms=1000)
        pair.records[me] += winner.flush().records  # (on its way: never read)
    loser.referee.claim_timeout(seat, 130_000)
    loser.referee.forfeit(seat, "no answer to a timeout claim")
    sent = loser.flush()
    pair.records[1 - me] += sent.records
    for raw in sent.messages:  # (its last words; then it walks away)
        winner.receive(raw)
    theirs = next(s for s in winner.owed() if s not in winner.my_seats)
    winner.referee.claim_timeout(theirs, 70_000)
    pair.records[me] += winner.flush().records
    winner.referee.forfeit(theirs, "no answer to a timeout claim")
    pair.records[me] += winner.flush().records
    assert any(
        isinstance(e, Fault) and e.kind == FaultKind.FORFEIT and e.peer == loser.me
        for e in winner.take_events()
    )
    own = header(winner.keys, me) + b"".join(frame(r) for r in pair.records[me])
    other = header(loser.keys, 1 - me) + b"".join(frame(r) for r in pair.records[1 - me])
    return own, other


@pytest.mark.parametrize("first", [False, True], ids=["instead-of-its-move", "after-its-move"])
def test_last_words_at_a_duel_turn_leave_the_winners_copy_contested(first: bool) -> None:
    pair = Pair("duel", {"fast": True})
    winner = pair.seat_peer(0)
    seat, me = winner.my_seats[0], winner.me or 0
    loser = pair.s[1 - me]
    if first:  # (the loser's own move in first: it owes no decision when it forfeits the winner)
        theirs = loser.my_seats[0]
        loser.submit(theirs, plain(BotDriver("random", 2).choose("duel", loser.state, theirs)), ms=1000)
        sent = loser.flush()
        pair.records[1 - me] += sent.records
        for raw in sent.messages:
            winner.receive(raw)
    decision = plain(BotDriver("random", 1).choose("duel", winner.state, seat))
    own, other = last_words(pair, winner, decision, seat)
    for report in (verify(own), verify_copies([own, other])):
        assert report.fault is not None and report.fault.kind == FaultKind.CONTESTED, report.summary
    alone = verify(other)  # (the loser's own copy: the winner's forfeit, its documented word)
    assert alone.fault is not None and alone.fault.peer == me, alone.summary


def test_the_winner_of_a_forfeit_the_record_reads_contested_is_told_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The Magic Square's first decision is the lead's alone (who places first: the loser, here).
    pair = Pair("magic-square", {"round_seconds": 60}, ms_setup())
    winner = pair.seat_peer(0)
    own, _ = last_words(pair, winner, {"type": "order", "first": 1}, 0)
    assert verify(own).fault.kind == FaultKind.CONTESTED  # type: ignore[union-attr]
    # (export's result says so in words: not "contested by no peer named")
    assert result_words(verify(own)) == "contested at step 1: no result"

    folder = account_of(tmp_path, monkeypatch, 0)
    path = folder / "20261207-120000-000000-magic-square-host.p2pt"
    path.write_bytes(own)
    ended = Ended(winner.view, Files(path, path.with_suffix(".secrets")))
    assert finish(ended, Printer(sys.stdout, moves=False)) == 1  # type: ignore[arg-type]
    said = capsys.readouterr()
    assert "the match stopped: " in said.err and "forfeit" in said.err
    assert (
        "on the record: stopped: a forfeit and its answer crossed, nobody can tell who was silent; "
        "this match counts for nobody"
    ) in said.out, said.out
