"""A debt of a peer after the deal (its audit, its signed result) is a debt of its lowest seat, and
a claim or a forfeit names that seat and no other (issue 43, item 7a; protocol/SPEC.md, section 6,
"What is owed"): a peer holding two seats is claimed once, and a claim naming its other seat is
about nothing owed."""

from __future__ import annotations

import pytest

from p2pgenius.canonical import decode
from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.session.debts import Debt

from .harness import play


def dropping_ends(author: int, to: int, raw: bytes) -> list[bytes]:
    """Peer 1 never sends its signed result (it walked away at the end)."""
    del to
    return [] if author == 1 and decode(raw)[5][0] == "end" else [raw]


def test_a_peer_with_two_seats_owes_its_result_once_at_its_lowest_seat() -> None:
    table = play("hornswoggle", peers=2, seed=3, tamper=dropping_ends)
    host = table.sessions[0]
    assert host.outcome is not None and not host.finished
    owner = host.owner
    seats = [seat for seat, peer in enumerate(owner) if peer == 1]
    assert len(seats) == 2
    assert host.debts() == (Debt("end", min(seats), -1),)
    with pytest.raises(LocalMisuseError, match="owes nothing"):
        host.referee.claim_timeout(max(seats), 5_000)
    host.referee.claim_timeout(min(seats), 5_000)
    with pytest.raises(LocalMisuseError, match="owes nothing"):
        host.referee.forfeit(max(seats), "no answer")
    host.referee.forfeit(min(seats), "no answer")
    fault = host.fault
    assert fault is not None and (fault.kind, fault.peer, fault.stage) == ("forfeit", 1, -1)
