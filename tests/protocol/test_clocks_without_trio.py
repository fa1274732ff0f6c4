"""The clocks' rules run on any clock their caller passes (protocol/clocks.py does no I/O): here a
number the test moves by hand, with two sessions whose messages are delivered by hand, and no
event loop at all. When a seat is late, who claims it, and how the accused's own clock answers
are decided from the inputs alone."""

from __future__ import annotations

from typing import Any

from p2pgenius.protocol.clocks import LAG_FLOOR_S, Clocks, Deadline, Due
from p2pgenius.protocol.events import TimeoutClaimed

from .test_clocks import Pair

GRACE_S = 60.0


class Hand:
    """A clock that moves only when the test says (seconds)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def started(pair: Pair, hand: Hand) -> list[Clocks]:
    clocks = []
    for session in pair.s:
        mine = Clocks(hand)
        mine.start(session)
        assert session.stage is not None
        mine.follow(session.stage.number)
        clocks.append(mine)
    return clocks


def test_a_seat_silent_past_its_clock_is_claimed_at_its_clock_and_the_lag_and_times_itself_out() -> None:
    pair, hand = Pair("duel", {"fast": True, "turn_seconds": 60}, {"hp": [5, 5]}), Hand()
    clocks = started(pair, hand)
    first, second = pair.s
    (mine,), (theirs,) = first.my_seats, second.my_seats
    hand.t += 10
    first.submit(mine, {"type": "gestures", "left": "-", "right": "-"}, ms=10_000)
    pair.pump()
    # The first peer's next deadline: the other seat, claimed once its minute and the lag
    # allowance have passed on this clock; nothing of its own seat (it has decided).
    due = sorted(clocks[0].deadlines(first, GRACE_S))
    assert due[0] == Deadline(1000.0 + 60 + LAG_FLOOR_S, Due.CLAIM, theirs, 0)
    assert not any(d.what is Due.EXPIRE for d in due)
    told: list[Any] = []
    assert not clocks[0].act(first, due, GRACE_S, told.append)  # (not yet: nothing has passed)
    hand.t = due[0].when
    assert clocks[0].act(first, clocks[0].deadlines(first, GRACE_S), GRACE_S, told.append)
    assert [type(e).__name__ for e in told] == ["TimeoutClaimSent"] and told[0].seat == theirs
    pair.pump()
    # The accused reads the claim; its own clock agrees (its minute is up): it plays the rules'
    # timeout, and the turn resolves on both sides alike.
    claims = [e for e in pair.events[1] if isinstance(e, TimeoutClaimed)]
    assert [(c.seat, c.author) for c in claims] == [(theirs, 0)]
    stage_before = second.stage.number if second.stage is not None else -1
    clocks[1].answer_claim(second, claims[0], told.append)
    pair.pump()
    assert first.stage is not None and second.stage is not None
    assert first.stage.number == second.stage.number > stage_before
    assert first.log == second.log
    assert [action for _, seat, action in second.log if seat == theirs] == [{"type": "timeout"}]


def test_an_accused_whose_own_clock_has_time_left_disputes_the_claim() -> None:
    pair, hand = Pair("duel", {"fast": True, "turn_seconds": 60}, {"hp": [5, 5]}), Hand()
    clocks = started(pair, hand)
    first, second = pair.s
    (theirs,) = second.my_seats
    # A claim made early (its peer's clock ran fast, or it lies): by the accused's clock, which
    # this test sets, 20 s of its minute have passed.
    hand.t += 20
    first.referee.claim_timeout(theirs, 61_000)
    pair.pump()
    claim = next(e for e in pair.events[1] if isinstance(e, TimeoutClaimed))
    told: list[Any] = []
    clocks[1].answer_claim(second, claim, told.append)
    pair.pump()
    assert [type(e).__name__ for e in told] == ["TimeoutDisputed"]
    assert told[0].left_ms == 40_000 and told[0].here_ms == 20_000
    # The claimant heeds it: no new claim before the 40 s the accused says it has.
    for event in pair.events[0]:
        clocks[0].answer_claim(first, event, told.append)
    due = [d for d in clocks[0].deadlines(first, GRACE_S) if d.what is Due.CLAIM]
    assert due and all(d.when >= hand.t + 40 for d in due)
