"""Random duels that use the whole action format: targets (``nobody``, monsters, summons this
turn), named spells, monster orders, timeouts, surrenders and paralysis choices, from random
starting HP. After every action the engine's invariants hold; an ended duel takes no action; the
states and views match the documented schemas; and the match replays and exports, both from the
engine's own record and, for a few, from real transcripts of a match over the protocol.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import encode
from p2pgenius.cli.export import record
from p2pgenius.errors import IllegalActionError
from p2pgenius.games.base import state_hash
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import Gestures
from p2pgenius.games.duel.engine import target_choices
from p2pgenius.games.duel.resolve import plan
from p2pgenius.games.duel.spells import BY_NAME, HANDS
from p2pgenius.games.duel.state import MONSTER_HP, DuelState
from p2pgenius.inmemory import transcript
from p2pgenius.protocol.transcript import Report, Step, verify
from p2pgenius.ui.lines import plain
from p2pgenius.ui.replay import Replay
from tests.protocol.harness import play
from tests.protocol.test_games_doc import assert_valid, urn

from .test_properties import spell_minded

MAX_TURNS = 30


def full_format(rng: random.Random, state: DuelState, seat: int) -> dict[str, Any]:
    """A random action in the contract's whole format; often illegal in a detail on purpose."""
    roll = rng.random()
    if roll < 0.08:
        return {"type": "timeout"}
    if state.paralysis_choices:
        return rng.choice(DUEL.legal_actions(state, seat)).to_plain()
    if roll < 0.09:
        return {"type": "gestures", "left": "P", "right": "P"}  # a surrender
    action = spell_minded(rng, state, seat)
    names = list(target_choices(state))
    targets = {hand: rng.choice(names) for hand in HANDS if rng.random() < 0.4}
    if targets:
        action["targets"] = targets
    intent = plan(state.wizards[seat], Gestures(action["left"], action["right"]), strict=False)
    spells = {}
    for hand, options in intent.options:
        if options and rng.random() < 0.3:
            spells[hand] = rng.choice(options).spell
        elif rng.random() < 0.03:
            spells[hand] = rng.choice(sorted(BY_NAME))  # most likely does not complete: refused
    if spells:
        action["spells"] = spells
    ordered = [m.name for m in state.monsters if m.controller == seat or rng.random() < 0.1]
    ordered += [f"p{seat}.{hand}" for hand in HANDS if rng.random() < 0.2]
    orders = {name: rng.choice(names) for name in ordered if rng.random() < 0.5}
    if orders:
        action["monsters"] = orders
    return action


def apply_some(rng: random.Random, state: DuelState, seat: int) -> tuple[DuelState, dict[str, Any]]:
    """Apply the full-format action, or (refused: an IllegalActionError, nothing else, and the
    state untouched) the same with fewer details, down to the bare gestures, always legal."""
    wanted = full_format(rng, state, seat)
    tries = [wanted]
    if wanted["type"] == "gestures":
        bare = {"type": "gestures", "left": wanted["left"], "right": wanted["right"]}
        tries += [
            {k: v for k, v in wanted.items() if k != "monsters"},
            {**bare, **{k: v for k, v in wanted.items() if k == "spells"}},
            bare,
        ]
    for attempt in tries:
        before = encode(DUEL.full(state))
        try:
            return DUEL.apply(state, seat, DUEL.parse_action(attempt)), attempt
        except IllegalActionError as exc:
            reason = str(exc)
            assert reason, "a refusal says why"
            assert encode(DUEL.full(state)) == before
    raise AssertionError(f"even the bare gestures were refused: {tries[-1]}")


def check(state: DuelState) -> None:
    """The invariants of every state."""
    for wizard in state.wizards:
        assert wizard.hp <= wizard.max_hp
        assert len(wizard.left) == len(wizard.right) == state.turn - 1
    numbers = [m.number for m in state.monsters]
    assert numbers == sorted(set(numbers)) and all(n < state.next_monster for n in numbers)
    assert sum(m.kind == "fire_elemental" for m in state.monsters) <= 1
    for monster in state.monsters:
        assert 0 < monster.hp <= MONSTER_HP[monster.kind]
        assert monster.controller in (0, 1)
    if state.outcome is None:
        # The duel goes on only between two standing wizards: every monster's master lives.
        assert all(wizard.hp > 0 for wizard in state.wizards)
        assert DUEL.to_act(state)
    else:
        assert DUEL.to_act(state) == ()
        for seat in (0, 1):
            assert DUEL.legal_actions(state, seat) == ()
            for action in ({"type": "timeout"}, {"type": "gestures", "left": "-", "right": "-"}):
                with pytest.raises(IllegalActionError, match="over"):
                    DUEL.apply(state, seat, DUEL.parse_action(action))


def random_duel(rng: random.Random) -> tuple[DuelState, list[Step]]:
    """A whole random duel (or MAX_TURNS of it): the start and its stages as a transcript has them."""
    hp = [rng.choice([3, 8, 15]), rng.choice([3, 8, 15])]
    state = initial = DUEL.initial({"hp": hp}, {})
    steps: list[Step] = []
    actions: list[tuple[int, Any]] = []
    while state.outcome is None and state.turn <= MAX_TURNS:
        seat = rng.choice(DUEL.to_act(state))
        state, action = apply_some(rng, state, seat)
        actions.append((seat, action))
        check(state)
        if state.submitted == (None, None) and not state.chosen:  # the stage is complete
            steps.append(Step(len(steps), tuple(actions), DUEL.events(state), state))
            actions = []
    return initial, steps


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_random_full_format_duels_keep_every_invariant_and_replay_and_export(rng: random.Random) -> None:
    initial, steps = random_duel(rng)
    # The same actions give the same states, byte for byte.
    state = initial
    for step in steps:
        for seat, action in step.actions:
            state = DUEL.apply(state, seat, DUEL.parse_action(action))
        assert state_hash(DUEL, state) == state_hash(DUEL, step.state)
    # The record of it exports and replays (every board drawn).
    outcome = steps[-1].state.outcome if steps else None
    report = Report(
        ok=outcome is not None,
        summary="(made by the engine)",
        outcome=None if outcome is None else outcome.to_plain(),
        game="duel",
        meta={"peers": [bytes(32), bytes([1]) * 32], "me": 0},
        names=["ann", "bob"],
        owner=(0, 1),
        initial=initial,
        steps=steps,
    )
    text = record(report)
    assert text.count("\n") >= len(steps) + 3
    replay = Replay(report)
    for index in range(0, replay.count + 1, 3):
        replay.jump(index)
        assert "cannot be drawn" not in plain(replay.board_lines(80, 24))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_states_and_views_of_full_format_duels_match_the_documented_schemas(rng: random.Random) -> None:
    _, steps = random_duel(rng)
    for step in steps:
        assert_valid(urn("duel", "state"), DUEL.public(step.state), "a random duel's state")
        for seat in (0, 1):
            assert_valid(urn("duel", "view"), DUEL.view(step.state, seat), "a random duel's view")


class FullFormat:
    """A bot that plays the whole action format (a legal choice, as :func:`apply_some` makes it)."""

    level = "full-format"

    def __init__(self, seed: int, opening: tuple[str, ...] = ()) -> None:
        self.rng = random.Random(seed)
        self.opening = list(opening)

    def choose(self, state: DuelState, seat: int) -> Any:
        if self.opening and not state.paralysis_choices:
            pair = self.opening.pop(0)
            return {"type": "gestures", "left": pair[0], "right": pair[1]}
        if seat not in DUEL.to_act(state):  # (blind: the stale state of the last turn it saw)
            return {"type": "gestures", "left": "-", "right": "-"}
        # A blinded seat chooses from the last state it saw: its choice may prove illegal, and
        # is then made legal by every peer alike (SPEC.md, "Sight").
        return apply_some(self.rng, state, seat)[1]


@pytest.mark.parametrize("seed", range(6))
def test_full_format_duels_over_the_protocol_verify_replay_and_export_from_both_sides(seed: int) -> None:
    # p0 opens with Blindness (D-W-S-W-C) on every other seed: p1 then plays three turns blind.
    blinding = ("D-", "W-", "S-", "W-", "CC") if seed % 2 == 0 else ()
    table = play(
        "duel",
        bots=[FullFormat(seed * 2, blinding), FullFormat(seed * 2 + 1)],
        setup={"hp": [8, 8]},
        options={"fast": True},
        seed=seed,
        max_rounds=5000,
    )
    assert table.faults() == []
    for index in (0, 1):
        report = verify(transcript(table, index))
        assert report.ok or report.outcome is None, report.summary
        assert report.fault is None and not report.rejected, (report.summary, report.rejected)
        text = record(report)
        assert text.startswith('[Event "p2pgenius: The wizard duel"]')
        assert any(step.dark for step in report.steps) == bool(blinding) or report.steps[-1].stage < 6
        replay = Replay(report)
        for position in range(replay.count + 1):
            replay.jump(position)
            assert "cannot be drawn" not in plain(replay.board_lines(160, 50))
