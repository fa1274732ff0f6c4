"""Property tests over random legal play of the duel."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgenius.errors import IllegalActionError
from p2pgenius.games.base import state_hash
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.engine import target_choices
from p2pgenius.games.duel.spells import BY_NAME, GESTURES, HANDS, SPELLS, completions, progress
from p2pgenius.games.duel.state import DuelState

MAX_TURNS = 40


def spell_minded(rng: random.Random, state: DuelState, seat: int) -> dict[str, Any]:
    """Gestures that mostly carry on a spell in progress or start one, so that long spells, claps
    and their interactions actually happen in random play; P/P (surrender) only now and then."""
    wizard = state.wizards[seat]
    hands = {}
    for hand in HANDS:
        history = wizard.history(hand)
        going = sorted(
            seq[len(seq) - need]
            for name, need in progress(history, wizard.barrier)
            for seq in BY_NAME[name].sequences
            if len(seq) > need
        )
        starts = sorted(spell.sequences[0][0] for spell in SPELLS)
        kind = rng.randint(0, 9)
        pool = going if going and kind < 8 else starts if kind < 9 else list(GESTURES)
        hands[hand] = rng.choice(pool)
    if "C" in hands.values():
        hands = {"left": "C", "right": "C"}
    if hands == {"left": "P", "right": "P"} and rng.randint(0, 19) > 0:
        hands["right"] = "-"
    return {"type": "gestures", **hands}


def random_action(rng: random.Random, state: DuelState, seat: int) -> dict[str, Any]:
    """A random action for ``seat``: any legal one, sometimes with extra targets and orders."""
    legal = DUEL.legal_actions(state, seat)
    choice = rng.choice(legal).to_plain()
    if choice["type"] == "gestures" and rng.randint(0, 9) < 8:
        choice = spell_minded(rng, state, seat)
    if choice["type"] != "gestures" or rng.random() < 0.5:
        return choice
    names = list(target_choices(state))
    targets = {hand: rng.choice(names) for hand in HANDS if rng.random() < 0.4}
    if targets:
        choice["targets"] = targets
    mine = [m.name for m in state.monsters if m.controller == seat and m.kind != "fire_elemental"]
    if mine and rng.random() < 0.5:
        choice["monsters"] = {rng.choice(mine): rng.choice(names)}
    return choice


def random_match(rng: random.Random) -> list[tuple[int, dict[str, Any]]]:
    """Play a random match of legal actions; returns the script of accepted (seat, action)."""
    state = DUEL.initial({}, {})
    script: list[tuple[int, dict[str, Any]]] = []
    while state.outcome is None and state.turn <= MAX_TURNS:
        seats = DUEL.to_act(state)
        assert seats, "a duel that is not over always has someone to act"
        seat = rng.choice(seats)
        plain = random_action(rng, state, seat)
        try:
            state = DUEL.apply(state, seat, DUEL.parse_action(plain))
        except IllegalActionError:
            # A random target may be illegal for the spell it lands on; the bare gestures never are.
            plain = {"type": "gestures", "left": plain["left"], "right": plain["right"]}
            state = DUEL.apply(state, seat, DUEL.parse_action(plain))
        script.append((seat, plain))
    return script


def replay(script: list[tuple[int, dict[str, Any]]]) -> list[DuelState]:
    """Every state along a script."""
    state = DUEL.initial({}, {})
    states = [state]
    for seat, plain in script:
        state = DUEL.apply(state, seat, DUEL.parse_action(plain))
        states.append(state)
    return states


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_random_play_is_deterministic_to_the_byte(rng: random.Random) -> None:
    script = random_match(rng)
    first = [state_hash(DUEL, s) for s in replay(script)]
    second = [state_hash(DUEL, s) for s in replay(script)]
    assert first == second
    # Actions survive their plain round trip unchanged.
    for _, plain in script:
        assert (
            DUEL.parse_action(plain).to_plain()
            == DUEL.parse_action(DUEL.parse_action(plain).to_plain()).to_plain()
        )


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_hp_never_exceeds_the_maximum(rng: random.Random) -> None:
    for state in replay(random_match(rng)):
        for wizard in state.wizards:
            assert wizard.hp <= wizard.max_hp
        for monster in state.monsters:
            assert 0 < monster.hp <= {"goblin": 1, "ogre": 2, "fire_elemental": 3}[monster.kind]


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_a_blinded_view_never_holds_the_opponents_blind_turn_gestures(rng: random.Random) -> None:
    for state in replay(random_match(rng)):
        for seat in (0, 1):
            me = state.wizards[seat]
            if not me.blind_at(state.turn):
                continue
            seen = DUEL.view(state, seat)["wizards"][1 - seat]
            for hand in HANDS:
                hidden = seen[hand][me.blind_from - 1 :]
                assert set(hidden) <= {"?"}, (hand, seen[hand])
            assert seen["hp"] is None


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_a_match_ends_or_goes_on_legally(rng: random.Random) -> None:
    state = replay(random_match(rng))[-1]
    if state.outcome is None:
        seats = DUEL.to_act(state)
        assert seats
        assert all(DUEL.legal_actions(state, seat) for seat in seats)
    else:
        assert DUEL.to_act(state) == ()
        assert state.outcome.reason in {"knocked_out", "power_word_kill", "surrender", "draw"}


def test_every_gesture_pair_is_legal_on_the_first_turn() -> None:
    state = DUEL.initial({}, {})
    assert len(DUEL.legal_actions(state, 0)) == len(GESTURES) ** 2


def _completions_by_definition(history: tuple[str, ...], barrier: int) -> list[tuple[str, int]]:
    """The spells completed at the end of ``history``, found the slow, obvious way."""
    found: dict[str, int] = {}
    for spell in SPELLS:
        for sequence in spell.sequences:
            start = len(history) - len(sequence)
            if start >= max(barrier, 0) and "".join(history[start:]) == sequence:
                found[spell.name] = max(found.get(spell.name, 0), len(sequence))
    order = [spell.name for spell in SPELLS]
    return sorted(found.items(), key=lambda item: (-item[1], order.index(item[0])))


_SEQUENCES = [sequence for spell in SPELLS for sequence in spell.sequences]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([g for g in GESTURES if g != ">"]), max_size=8),
    st.sampled_from(["", *_SEQUENCES]),
    st.integers(min_value=0, max_value=16),
)
def test_remembered_completions_match_the_definition(gestures: list[str], ending: str, barrier: int) -> None:
    # completions() remembers answers by the history's last few gestures; the answer must be the
    # one a full scan of the history gives, wherever the anti-spell barrier falls. Histories often
    # end in a whole spell, the longest ones included, so that the tail's length is tested.
    history = (*gestures, *ending)
    got = [(c.spell, c.length) for c in completions(history, barrier)]
    assert got == _completions_by_definition(history, barrier)
