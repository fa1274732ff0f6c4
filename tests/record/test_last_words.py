"""A loser's last words: a timeout claim and a forfeit of the winner's seat, sent at once, with no
grace period waited and not naming the winner's answer, and then nothing. The winner's own peer
refuses the forfeit, claims the silent loser and forfeits it: it saw a forfeit by the loser. Its
copy, read by anyone, holds the loser's forfeit and the answer it crossed, and reads contested
(two peers, no trusted clock: nobody can tell that the forfeit came early). The winner is told
so as the match ends, not only the forfeit it saw (docs/security.md, "What a transcript still
cannot prove")."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.cli.play import Printer, finish
from p2pgenius.net.peer import Files
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.session import Fault, SessionView
from p2pgenius.protocol.transcript import frame, header, verify
from tests.protocol.test_clocks import Pair
from tests.record.conftest import account_of


@dataclass
class Ended:
    """What :func:`finish` reads of a peer whose match has ended."""

    view: SessionView
    files: Files


def test_the_winner_of_a_forfeit_the_record_reads_contested_is_told_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = Pair("duel", {"fast": True})
    winner = pair.seat_peer(0)
    me = winner.me
    assert me is not None
    loser = pair.s[1 - me]
    seat, theirs = winner.my_seats[0], loser.my_seats[0]
    winner.submit(seat, plain(BotDriver("random", 1).choose("duel", winner.state, seat)), ms=1000)
    pair.records[me] += winner.flush().records  # (its commit, on its way: never read)
    loser.referee.claim_timeout(seat, 130_000)
    loser.referee.forfeit(seat, "no answer to a timeout claim")
    for raw in loser.flush().messages:  # (its last words; then it walks away)
        winner.receive(raw)
    winner.referee.claim_timeout(theirs, 70_000)
    pair.records[me] += winner.flush().records
    winner.referee.forfeit(theirs, "no answer to a timeout claim")
    pair.records[me] += winner.flush().records
    events = winner.take_events()
    assert any(isinstance(e, Fault) and e.kind == FaultKind.FORFEIT and e.peer == loser.me for e in events)
    copy = header(winner.keys, me) + b"".join(frame(r) for r in pair.records[me])
    assert verify(copy).fault.kind == FaultKind.CONTESTED  # type: ignore[union-attr]

    folder = account_of(tmp_path, monkeypatch, 0)
    path = folder / "20261207-120000-000000-duel-host.p2pt"
    path.write_bytes(copy)
    ended = Ended(winner.view, Files(path, path.with_suffix(".secrets")))
    assert finish(ended, Printer(sys.stdout, moves=False)) == 1  # type: ignore[arg-type]
    said = capsys.readouterr()
    assert "the match stopped: " in said.err and "forfeit" in said.err
    assert (
        "on the record: stopped: a forfeit and its answer crossed, nobody can tell who was silent; "
        "this match counts for nobody"
    ) in said.out, said.out
