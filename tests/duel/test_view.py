"""What each wizard may see: unrevealed submissions and blindness."""

from __future__ import annotations

from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.state import DuelState

from .helpers import action, cast, g, idle, play


def blinded_p1() -> list[DuelState]:
    """p0 blinds p1 on turn 5; p0 keeps gesturing; returns the states after each turn."""
    return play(cast("DWSWC") + ["PW", "S-", "WD", "P-"], idle(5) + ["D-", "D-", "D-", "D-"])


def test_the_opponents_submission_shows_only_as_chosen() -> None:
    state = DUEL.apply(DUEL.initial({}, {}), 0, action(g("S-", targets={"left": "p1"})))
    assert DUEL.view(state, 1)["submitted"] == ["chosen", None]
    assert DUEL.view(state, 0)["submitted"][0] == {
        "type": "gestures",
        "left": "S",
        "right": "-",
        "targets": {"left": "p1"},
    }


def test_a_blinded_wizard_sees_none_of_the_opponents_gestures_of_its_blind_turns() -> None:
    states = blinded_p1()
    during = DUEL.view(states[6], 1)  # after turn 7: p1 blind during turns 6, 7 and 8
    opponent = during["wizards"][0]
    assert opponent["left"] == "DWSWC??"
    assert opponent["right"] == "----C??"
    assert opponent["hp"] is None
    # p0 sees everything, and p1 sees its own hands.
    assert DUEL.view(states[6], 0)["wizards"][0]["left"] == "DWSWCPS"
    assert during["wizards"][1]["left"] == "-----DD"


def test_a_blinded_wizard_is_told_only_what_concerns_it() -> None:
    states = blinded_p1()
    seen = DUEL.view(states[5], 1)["events"]  # turn 6: p0 casts a Shield on itself
    assert all(event.get("spell") != "shield" for event in seen)
    assert any(event.get("spell") == "shield" for event in DUEL.view(states[5], 0)["events"])


def test_everything_is_revealed_when_the_blindness_ends() -> None:
    states = blinded_p1()
    after = DUEL.view(states[7], 1)  # after turn 8, the last blind turn
    assert after["wizards"][0]["left"] == "DWSWCPSW"
    assert after["wizards"][0]["hp"] == 15


def test_the_turn_that_casts_blindness_is_still_seen() -> None:
    states = blinded_p1()
    events = DUEL.view(states[4], 1)["events"]  # after turn 5: p1 already blind for turn 6
    assert any(event["type"] == "enchant" for event in events)
    assert DUEL.view(states[4], 1)["wizards"][0]["left"] == "DWSWC"
