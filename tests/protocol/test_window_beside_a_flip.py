"""An optional action beside a flip (found by the fourth game of tests/test_every_game.py): the
flipped card's owner opens it once, for the flip itself; when the optional action crosses the flip
on the wire, every peer applies the optional action alone, as the SPEC says, and the flip is made
again at the next stage, where the card is opened again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from p2pgenius.games import catalog
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Rejected, Session, start_table
from tests.games.rps import ENTRY


@pytest.fixture(autouse=True)
def _rps() -> Iterator[None]:
    catalog.add(ENTRY)
    try:
        yield
    finally:
        catalog.remove(ENTRY.name)


def exchange(sessions: list[Session], rounds: int = 10) -> None:
    for _ in range(rounds):
        for i, session in enumerate(sessions):
            for raw in session.flush().messages:
                sessions[1 - i].receive(raw)


def at_the_first_flip() -> tuple[Session, Session]:
    """Both peers at the first flip stage, the cards laid; returns (leader's, other's)."""
    identities = [Identity.from_seed(bytes([3, i]) * 16) for i in range(2)]
    keys = [i.public for i in identities]
    sessions = [Session(keys=keys, me=i, identity=identities[i]) for i in range(2)]
    start_table(sessions, "rps", options={}, setup={})
    exchange(sessions)
    for session in sessions:
        for seat in session.awaiting():
            session.submit(seat, {"type": "place", "card": "rock" if seat == 0 else "scissors"})
    exchange(sessions)
    leader = next(s for s in sessions if 0 in s.my_seats)
    other = next(s for s in sessions if 1 in s.my_seats)
    assert leader.state.phase == "flip" and leader.awaiting() == (0,) and other.awaiting() == (1,)
    return leader, other


def test_a_double_that_crosses_the_flip_is_applied_alone_and_the_flip_made_again() -> None:
    leader, other = at_the_first_flip()
    leader.submit(0, {"type": "flip", "pile": 1})
    other.submit(1, {"type": "double"})  # before the flip reached it
    flip, double = leader.flush().messages, other.flush().messages
    for raw in double:
        leader.receive(raw)
    for raw in flip:
        other.receive(raw)
    exchange([leader, other])
    for session in (leader, other):
        assert session.fault is None
        assert session.state.stakes == 2 and session.state.current == 0  # the flip was dropped
        assert session.stage is not None and session.stage.waiting == (0,)
    # Made again, the flip is opened again by the pile's owner, and applied on both sides.
    leader.submit(0, {"type": "flip", "pile": 1})
    exchange([leader, other])
    for session in (leader, other):
        assert session.fault is None and session.state.piles[1][0].up
        assert session.state.piles[1][0].value == "scissors" and session.state.current == 1


def test_the_owner_opens_a_flipped_card_once_whatever_else_the_stage_gets() -> None:
    leader, other = at_the_first_flip()
    leader.submit(0, {"type": "flip", "pile": 1})
    for raw in leader.flush().messages:
        other.receive(raw)
    sent = other.flush().messages  # its opening (and its window, declined by itself)
    kinds = [_kind(raw) for raw in sent]
    assert kinds.count("reveal") == 1 and "decline" in kinds
    for raw in sent:
        leader.receive(raw)
    events = leader.take_events() + other.take_events()
    assert not [e for e in events if isinstance(e, Rejected)]
    assert leader.state.piles[1][0].up and leader.state.current == 1


def _kind(raw: bytes) -> str:
    from p2pgenius.canonical import decode

    return str(decode(raw)[5][0])
