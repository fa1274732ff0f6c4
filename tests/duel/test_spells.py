"""Every spell of the duel, each in a short scenario with HP, monsters and outcome checked."""

from __future__ import annotations

import pytest

from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import Paralyze
from p2pgenius.games.duel.spells import SPELLS

from .helpers import cast, g, hps, idle, monsters, play


def test_the_spell_table_has_sixteen_spells_with_unique_names() -> None:
    assert len(SPELLS) == 16
    assert len({spell.name for spell in SPELLS}) == 16


@pytest.mark.parametrize(
    ("sequence", "expected_hp"),
    [("SD", (15, 14)), ("DSPSD", (15, 10)), ("SWWC", (10, 10))],
    ids=["missile", "fireball", "fire_storm_burns_everyone_caster_included"],
)
def test_damage_spells(sequence: str, expected_hp: tuple[int, int]) -> None:
    states = play(cast(sequence), [])
    assert hps(states[-1]) == expected_hp
    assert states[-1].outcome is None


def test_power_word_kill_kills_outright() -> None:
    states = play(cast("PWPSSSD"), [])
    outcome = states[-1].outcome
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "power_word_kill")
    assert len(states) == 7


def test_shield_blocks_a_missile() -> None:
    states = play(cast("SD"), ["--", "P-"])
    assert hps(states[-1]) == (15, 15)


@pytest.mark.parametrize("counter", ["WPP", "WWS"])
def test_counter_spell_stops_a_fireball(counter: str) -> None:
    states = play(cast("DSPSD"), idle(2) + cast(counter))
    assert hps(states[-1]) == (15, 15)


def test_cure_light_wounds_heals_one() -> None:
    states = play(idle(2) + cast("DPW"), cast("SD"))
    assert hps(states[1]) == (14, 15)
    assert hps(states[-1]) == (15, 15)


def test_cure_light_wounds_cannot_raise_hp_above_the_start() -> None:
    states = play(cast("DPW"), [])
    assert hps(states[-1]) == (15, 15)


def test_summon_goblin_attacks_on_the_turn_it_appears() -> None:
    states = play(cast("SPW"), [])
    assert monsters(states[-1]) == [("m1", "goblin", 0, 1)]
    assert hps(states[-1]) == (15, 14)


def test_summon_ogre_is_cast_rather_than_the_goblin_it_ends_with() -> None:
    states = play(cast("PSPW"), [])
    assert monsters(states[-1]) == [("m1", "ogre", 0, 2)]
    assert hps(states[-1]) == (15, 13)


def test_summon_fire_elemental_hits_every_wizard() -> None:
    states = play(cast("CPSWW"), [])
    assert monsters(states[-1]) == [("m1", "fire_elemental", 0, 3)]
    assert hps(states[-1]) == (12, 12)


def test_goblin_keeps_attacking_each_turn() -> None:
    states = play(cast("SPW") + idle(2), [])
    assert [hps(s)[1] for s in states] == [15, 15, 14, 13, 12]


def test_charm_monster_takes_the_opponents_goblin_and_turns_it_at_once() -> None:
    # p1's goblin appears on turn 3; p0 charms it on turn 5 (its D on turn 4 also casts a Missile).
    states = play(["--", "P-", "S-", "D-", "D-"], cast("SPW") + idle(2))
    assert hps(states[3]) == (13, 14)
    assert monsters(states[4]) == [("m1", "goblin", 0, 1)]
    assert hps(states[4]) == (13, 13)


def test_paralysis_lets_the_caster_choose_a_hand_which_then_repeats() -> None:
    state = play(cast("DDD"), ["--", "--", "WS"])[-1]
    assert DUEL.to_act(state) == (0,)
    assert state.paralysis_choices == ((1, 0),)
    state = DUEL.apply(state, 0, Paralyze(1, "right"))
    assert state.wizards[1].paralysed == "right"
    state = play(["--"], ["DD"], state=state)[-1]
    assert state.wizards[1].left[-1] == "D"
    assert state.wizards[1].right[-1] == "S"


def test_fear_turns_c_d_and_s_into_nothing_next_turn() -> None:
    state = play(cast("SWD") + ["--"], ["--", "--", "--", "DS"])[-1]
    assert state.wizards[1].left[-1] == "-"
    assert state.wizards[1].right[-1] == "-"


def test_fear_leaves_p_and_w_alone() -> None:
    state = play(cast("SWD") + ["--"], ["--", "--", "--", "PW"])[-1]
    assert (state.wizards[1].left[-1], state.wizards[1].right[-1]) == ("P", "W")


def test_anti_spell_wipes_out_a_fireball_in_progress() -> None:
    without = play(["--"] * 5, cast("DSPSD"))[-1]
    assert hps(without) == (10, 15)
    states = play(cast("SPDP") + ["--"], cast("DSPSD"))
    assert hps(states[-1]) == (15, 15)


def test_resist_heat_makes_a_wizard_immune_to_fireball() -> None:
    states = play(cast("CWWP") + ["--"], cast("DSPSD"))
    assert states[-1].wizards[0].resist_heat
    assert hps(states[-1]) == (15, 15)


def test_blindness_lasts_three_turns() -> None:
    states = play(cast("DWSSD") + idle(3), [])
    blind = [s.wizards[1].blind_at(s.turn) for s in states]
    assert blind == [False, False, False, False, True, True, True, False]


def test_stab_does_one_damage_and_a_shield_blocks_it() -> None:
    assert hps(play([">-"], [])[-1]) == (15, 14)
    assert hps(play([">-"], ["P-"])[-1]) == (15, 15)


def test_a_stab_may_hit_a_monster() -> None:
    states = play(idle(3) + [g("->", targets={"right": "m1"})], cast("SPW"))
    assert monsters(states[-1]) == []
