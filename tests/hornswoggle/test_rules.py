"""Hornswoggle's rules and rulings, one behaviour per test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.hornswoggle.actions import Discard, Place
from p2pgenius.games.hornswoggle.audit import audit, audit_outcome
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState

from .helpers import D, S, act, opened, start


def test_the_death_match_opponent_picks_the_first_player() -> None:
    state = start()
    assert HORNSWOGGLE.to_act(state) == (1,)
    with pytest.raises(IllegalActionError, match="waiting for p1"):
        act(state, 0, "order", first=0)
    state = act(state, 1, "order", first=2)
    assert state.first == 2


def test_opening_cards_go_down_in_any_order_then_the_first_player_acts() -> None:
    state = act(start(), 1, "order", first=2)
    assert HORNSWOGGLE.to_act(state) == (0, 1, 2, 3)
    for seat in (3, 0, 2):
        state = act(state, seat, "place", card=D)
    assert HORNSWOGGLE.to_act(state) == (1,)
    state = act(state, 1, "place", card=S)
    assert (state.phase, HORNSWOGGLE.to_act(state)) == ("turns", (2,))
    assert [p.count for p in state.pirates] == [5, 5, 5, 5]


def test_a_seat_places_only_cards_it_holds() -> None:
    state = act(start(hands=[[4, 0], [4, 2], [4, 2], [4, 2]]), 1, "order", first=0)
    with pytest.raises(IllegalActionError, match="no skull"):
        act(state, 0, "place", card=S)


def test_turns_go_clockwise_add_or_bid() -> None:
    state = opened([D, D, D, D], first=3)
    assert HORNSWOGGLE.to_act(state) == (3,)
    state = act(state, 3, "place", card=D)
    assert HORNSWOGGLE.to_act(state) == (0,)
    state = act(state, 0, "bid", count=2)
    assert (state.phase, state.bid, state.bidder, HORNSWOGGLE.to_act(state)) == ("bidding", 2, 0, (1,))


def test_a_bid_is_between_one_and_the_cards_on_the_table() -> None:
    state = opened([D, D, D, D])
    with pytest.raises(IllegalActionError, match="at most the 4 cards"):
        act(state, 0, "bid", count=5)
    with pytest.raises(IllegalActionError):
        act(state, 0, "bid", count=0)


def test_a_seat_with_an_empty_hand_must_bid() -> None:
    state = opened([D, D, D, D], hands=[[1, 0], [4, 2], [4, 2], [4, 2]])
    assert {a.to_plain()["type"] for a in HORNSWOGGLE.legal_actions(state, 0)} == {"bid"}
    with pytest.raises(IllegalActionError, match="must bid"):
        act(state, 0, "place", card=D)


def test_bidding_all_the_cards_makes_the_challenger_at_once() -> None:
    state = act(opened([D, D, D, D]), 0, "bid", count=4)
    assert (state.phase, state.challenger) == ("flipping", 0)


def test_a_raise_must_be_higher_and_passed_seats_stay_out() -> None:
    state = act(opened([D, D, D, D]), 0, "bid", count=1)
    with pytest.raises(IllegalActionError, match="more than 1"):
        act(state, 1, "bid", count=1)
    state = act(state, 1, "pass")
    state = act(state, 2, "bid", count=2)
    state = act(state, 3, "pass")
    assert HORNSWOGGLE.to_act(state) == (0,)  # p1 passed: skipped from now on
    state = act(state, 0, "bid", count=3)
    assert HORNSWOGGLE.to_act(state) == (2,)
    state = act(state, 2, "pass")
    assert (state.phase, state.challenger, state.bid) == ("flipping", 0, 3)


def test_the_challenger_flips_its_own_pile_first_top_to_bottom() -> None:
    state = opened([D, D, D, D])
    state = act(state, 0, "place", card=S)  # p0's pile: doubloon, skull (top)
    state = act(state, 1, "bid", count=2)
    state = act(state, 2, "pass")
    state = act(state, 3, "pass")
    state = act(state, 0, "pass")
    assert state.challenger == 1
    with pytest.raises(IllegalActionError, match="own pile first"):
        act(state, 1, "flip", pile=0)
    state = act(state, 1, "flip", pile=1)
    assert state.flips == 1
    with pytest.raises(IllegalActionError, match="face-down"):
        act(state, 1, "flip", pile=1)  # its own pile is all turned now
    state = act(state, 1, "flip", pile=0)  # p0's top card: the skull
    assert (state.phase, state.owing) == ("discarding", (1,))


def test_success_makes_each_opponent_discard_and_cards_go_back() -> None:
    state = act(opened([D, D, D, D]), 0, "bid", count=4)
    for pile in (0, 1, 2, 3):
        state = act(state, 0, "flip", pile=pile)
    assert (state.phase, state.owing) == ("discarding", (1, 3))
    assert [len(p.pile) for p in state.pirates] == [0, 0, 0, 0]
    assert [p.count for p in state.pirates] == [6, 6, 6, 6]
    state = act(state, 3, "discard", card=S)
    state = act(state, 1, "discard", card=D)
    assert [p.count for p in state.pirates] == [6, 5, 6, 5]
    assert state.pirates[1].hand == (3, 2)
    assert (state.phase, state.round, state.first) == ("opening", 2, 1)


def test_failure_costs_the_challenger_a_card_unless_insured() -> None:
    def fail(garnets: list[int], insure: bool) -> HornState:
        state = act(opened([D, S, D, D], garnets=garnets), 0, "bid", count=4)
        if insure:
            state = act(state, 0, "insure")
        state = act(state, 0, "flip", pile=0)
        return act(state, 0, "flip", pile=1)

    uninsured = fail([0, 0, 0, 0], insure=False)
    assert uninsured.owing == (0,)
    insured = fail([1, 0, 0, 0], insure=True)
    assert (insured.phase, insured.round) == ("opening", 2)
    assert insured.pirates[0].garnets == 0


def test_insurance_needs_a_garnet_and_comes_before_the_first_flip() -> None:
    state = act(opened([D, D, D, D]), 0, "bid", count=4)
    with pytest.raises(IllegalActionError, match="Hacked Garnet"):
        act(state, 0, "insure")
    state = act(opened([D, D, D, D], garnets=[2, 0, 0, 0]), 0, "bid", count=4)
    state = act(state, 0, "flip", pile=0)
    with pytest.raises(IllegalActionError, match="before the first flip"):
        act(state, 0, "insure")


def test_a_seat_with_no_cards_is_out_and_skipped() -> None:
    hands = [[4, 2], [1, 0], [4, 2], [4, 2]]
    state = act(opened([D, D, D, D], hands=hands), 0, "bid", count=4)
    for pile in (0, 1, 2, 3):
        state = act(state, 0, "flip", pile=pile)
    state = act(state, 1, "discard", card=D)  # p1 had one card: now none
    state = act(state, 3, "discard", card=D)
    assert state.pirates[1].out
    assert HORNSWOGGLE.to_act(state) == (0, 2, 3)  # p1 skipped at the opening
    assert state.first == 2  # next clockwise from the challenger p0 that is still in


def test_a_team_with_both_seats_out_loses_and_garnets_are_recorded() -> None:
    hands = [[4, 2], [1, 0], [4, 2], [1, 0]]
    state = act(opened([D, D, D, D], hands=hands), 0, "bid", count=4)
    for pile in (0, 1, 2, 3):
        state = act(state, 0, "flip", pile=pile)
    state = act(state, 1, "discard", card=D)
    state = act(state, 3, "discard", card=D)
    assert HORNSWOGGLE.full(state)["outcome"] == {
        "winner": 0,
        "reason": "team_eliminated",
        "winning_seats": [0, 2],
        "garnet_transfer": {"from": 3, "to": 2, "amount": 2},
    }
    assert HORNSWOGGLE.to_act(state) == ()


def test_a_timeout_passes_when_it_can_else_plays_the_first_legal_action() -> None:
    state = act(opened([D, D, D, D]), 0, "bid", count=1)
    state = act(state, 1, "timeout")
    assert state.passed[1]
    state = act(start(), 1, "order", first=0)
    state = act(state, 0, "timeout")  # opening: the first legal card, a doubloon
    assert state.pirates[0].pile[0].card == D


def test_setup_is_checked() -> None:
    with pytest.raises(LocalMisuseError):
        start(opponent=2)
    with pytest.raises(LocalMisuseError):
        start(hands=[[0, 0]] * 4)


def test_an_honest_match_passes_the_audit_and_a_cheat_fails_it() -> None:
    log = [(1, HORNSWOGGLE.parse_action({"type": "order", "first": 0}))]
    log += [(seat, Place(D)) for seat in range(4)]
    honest = audit({}, {}, log)
    state = start()
    for seat, action in log:
        state = HORNSWOGGLE.apply(state, seat, action)
    assert honest.failure is None and len(honest.states) == len(log) and honest.states[-1] == state
    hands = {"hands": [[4, 2], [4, 2], [6, 0], [4, 2]]}
    cheat = log[:3] + [(2, Place(S))]
    cheated = audit(hands, {}, cheat)
    failure = cheated.failure
    assert failure is not None and cheated.states == ()  # (a replay that stopped shows no state)
    assert (failure.seat, failure.step) == (2, 4)
    outcome = audit_outcome(start(**hands), failure)
    assert (outcome.winner, outcome.reason) == (1, "audit_failed")


def test_a_discard_of_a_card_not_held_fails_the_audit() -> None:
    hands = [[4, 2], [1, 0], [4, 2], [4, 2]]
    log = [(1, HORNSWOGGLE.parse_action({"type": "order", "first": 0}))]
    log += [(seat, Place(D)) for seat in range(4)]
    log += [(0, HORNSWOGGLE.parse_action({"type": "bid", "count": 4}))]
    log += [(0, HORNSWOGGLE.parse_action({"type": "flip", "pile": p})) for p in range(4)]
    log += [(1, Discard(S))]
    failure = audit({"hands": hands}, {}, log).failure
    assert failure is not None
    assert failure.seat == 1


def test_the_worked_example_of_the_rules_page_plays_as_described() -> None:
    script = json.loads(
        (Path(__file__).parents[2] / "examples" / "hornswoggle-round.json").read_text(encoding="utf-8")
    )
    state = start()
    for entry in script["actions"]:
        state = HORNSWOGGLE.apply(state, entry["seat"], HORNSWOGGLE.parse_action(entry["action"]))
        if entry["action"]["type"] == "flip":
            assert state.challenger == 2
    assert (state.round, state.first, state.phase) == (2, 3, "opening")
    assert [p.count for p in state.pirates] == [6, 5, 6, 5]


def test_a_pirate_set_up_with_no_cards_is_out_from_the_start() -> None:
    state = start(hands=[[4, 2], [0, 0], [4, 2], [4, 2]])
    assert state.pirates[1].out
    with pytest.raises(IllegalActionError, match="cannot start"):
        act(state, 1, "order", first=1)
    state = act(state, 1, "order", first=0)
    assert HORNSWOGGLE.to_act(state) == (0, 2, 3)
    with pytest.raises(LocalMisuseError, match="each team"):
        start(hands=[[4, 2], [0, 0], [4, 2], [0, 0]])
