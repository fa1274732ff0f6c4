"""Every spell of the duel cast from the rule text's own gestures, each in a short scenario with HP,
monsters and outcome checked; the spell table checked against the rule text and the rules page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p2pgenius.errors import IllegalActionError
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import Paralyze
from p2pgenius.games.duel.spells import BY_NAME, SPELLS, completions, progress
from p2pgenius.games.duel.state import DuelState

from .helpers import action, cast, event_types, g, hps, idle, monsters, play

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT.parent / "shared" / "seeds" / "004_3cda7d258540c617.txt"
"""The game's original rule text, kept beside the project (not shipped with it)."""


def engine_table() -> set[tuple[str, str]]:
    """(title, gestures as "A-B-C") for every sequence of every spell in the engine."""
    return {(spell.title, "-".join(seq)) for spell in SPELLS for seq in spell.sequences}


def test_the_spell_table_has_sixteen_spells_with_unique_names_and_sequences() -> None:
    assert len(SPELLS) == 16
    assert len({spell.name for spell in SPELLS}) == 16
    sequences = [seq for spell in SPELLS for seq in spell.sequences]
    assert len(sequences) == len(set(sequences)) == 17


@pytest.mark.skipif(not SEED.exists(), reason="the original rule text is not beside this checkout")
def test_the_engine_casts_exactly_the_rule_texts_spell_table() -> None:
    text = SEED.read_text(encoding="utf-8")
    table = text.split("Table of all spells", 1)[1]
    rows = re.findall(r"^([A-Z][A-Za-z -]+?) \| ([CDPSW](?:-[CDPSW])*)\s*$", table, re.M)
    seed = {("Summon Fire Elemental" if name == "Summon Elemental" else name, seq) for name, seq in rows}
    assert len(rows) == 17
    assert seed == engine_table()


def test_the_rules_page_shows_exactly_the_engines_spell_table() -> None:
    page = (ROOT / "docs" / "rules" / "duel.md").read_text(encoding="utf-8")
    section = page.split("### The sixteen spells", 1)[1].split("\n\n", 2)[1]
    shown = set()
    for line in section.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        for seq in re.findall(r"`([CDPSW](?:-[CDPSW])*)`", cells[1]):
            shown.add((cells[0], seq))
    assert shown == engine_table()


# -- each spell, from the rule text's gestures --------------------------------------------------


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
    states = play(cast("PWPWSSSD"), [])
    outcome = states[-1].outcome
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "power_word_kill")
    assert len(states) == 8


def test_shield_blocks_a_missile() -> None:
    states = play(cast("SD"), ["--", "P-"])
    assert hps(states[-1]) == (15, 15)


@pytest.mark.parametrize("counter", ["DPP", "DDS"])
def test_counter_spell_stops_a_fireball(counter: str) -> None:
    states = play(cast("DSPSD"), idle(2) + cast(counter))
    assert hps(states[-1]) == (15, 15)
    assert "fizzle" in event_types(states[-1])


def test_cure_light_wounds_heals_one() -> None:
    states = play(idle(2) + cast("SPW"), cast("SD"))
    assert hps(states[1]) == (14, 15)
    assert hps(states[-1]) == (15, 15)


def test_cure_light_wounds_cannot_raise_hp_above_the_start() -> None:
    states = play(cast("SPW"), [])
    assert hps(states[-1]) == (15, 15)


def test_summon_goblin_attacks_on_the_turn_it_appears() -> None:
    states = play(cast("WWS"), [])
    assert monsters(states[-1]) == [("m1", "goblin", 0, 1)]
    assert hps(states[-1]) == (15, 14)


def test_summon_ogre_is_cast_rather_than_the_goblin_it_ends_with() -> None:
    states = play(cast("PWWS"), [])
    assert monsters(states[-1]) == [("m1", "ogre", 0, 2)]
    assert hps(states[-1]) == (15, 13)


def test_the_goblin_that_ends_an_ogre_is_cast_on_request() -> None:
    states = play(cast("PWW") + [g("S-", spells={"left": "summon_goblin"})], [])
    assert monsters(states[-1]) == [("m1", "goblin", 0, 1)]


def test_summon_fire_elemental_hits_every_wizard() -> None:
    states = play(cast("CPSWW"), [])
    assert monsters(states[-1]) == [("m1", "fire_elemental", 0, 3)]
    assert hps(states[-1]) == (12, 12)


def test_goblin_keeps_attacking_each_turn() -> None:
    states = play(cast("WWS") + idle(2), [])
    assert [hps(s)[1] for s in states] == [15, 15, 14, 13, 12]


def test_charm_monster_takes_the_opponents_goblin_and_turns_it_at_once() -> None:
    # p1's goblin appears on turn 3 and bites p0 on turns 3 and 4; p0 charms it on turn 5.
    states = play(["--"] + cast("PWWD"), cast("WWS") + idle(2))
    assert hps(states[3]) == (13, 15)
    assert monsters(states[4]) == [("m1", "goblin", 0, 1)]
    assert hps(states[4]) == (13, 14)


def test_paralysis_lets_the_caster_choose_a_hand_which_then_repeats() -> None:
    state = play(cast("WWW"), ["--", "--", "WS"])[-1]
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
    # S-P-P lands on turn 3: p1's D-S-P no longer counts, so its S-D on turns 4-5 is only a Missile.
    states = play(cast("SPP") + idle(2), cast("DSPSD"))
    assert states[2].wizards[1].barrier == 3
    assert hps(states[-1]) == (14, 15)


def test_resist_heat_makes_a_wizard_immune_to_fireball() -> None:
    states = play(cast("CWWP") + ["--"], cast("DSPSD"))
    assert states[-1].wizards[0].resist_heat
    assert hps(states[-1]) == (15, 15)


def test_blindness_lasts_three_turns() -> None:
    states = play(cast("DWSWC") + idle(3), [])
    blind = [s.wizards[1].blind_at(s.turn) for s in states]
    assert blind == [False, False, False, False, True, True, True, False]


def test_stab_does_one_damage_and_a_shield_blocks_it() -> None:
    assert hps(play([">-"], [])[-1]) == (15, 14)
    assert hps(play([">-"], ["P-"])[-1]) == (15, 15)


def test_a_stab_may_hit_a_monster() -> None:
    states = play(idle(3) + [g("->", targets={"right": "m1"})], cast("WWS"))
    assert monsters(states[-1]) == []


# -- sequences that share gestures --------------------------------------------------------------


def cast_spells(state: DuelState) -> list[str]:
    """The spells cast in the last resolution, in event order."""
    return [str(e["spell"]) for e in state.events if e["type"] == "cast"]


def test_counter_spell_and_anti_spell_both_end_in_p_p_and_each_p_before_casts_shield() -> None:
    # p0's left makes D-P-P, p1's right S-P-P: turn 2's P's are Shields, turn 3's complete the
    # longer spells. (One wizard cannot make both at once: P on both hands surrenders.)
    states = play(cast("DPP"), cast("SPP", hand="right"))
    assert cast_spells(states[1]) == ["shield", "shield"]
    assert cast_spells(states[2]) == ["counter_spell", "anti_spell"]
    # p0's Counter-spell (on itself) stops the Anti-spell aimed at it.
    assert "fizzle" in event_types(states[2])
    assert states[2].wizards[0].barrier == 0


def test_p_then_p_without_a_longer_spell_is_two_shields() -> None:
    states = play(["P-", "P-"], [])
    assert [cast_spells(s) for s in states] == [["shield"], ["shield"]]


def test_paralysis_chains_w_w_w_w_casts_it_twice() -> None:
    state = play(cast("WWW"), [])[-1]
    assert cast_spells(state) == ["paralysis"]
    state = DUEL.apply(state, 0, Paralyze(1, "left"))
    state = play(["W-"], [], state=state)[-1]
    assert cast_spells(state) == ["paralysis"]
    assert state.wizards[1].paralysed == "left"  # forced onto the hand already held


def test_a_paralysed_w_hand_repeating_w_casts_paralysis_back() -> None:
    # p1's right hand waves on turns 2 and 3; p0 paralyses it on turn 3, so on turn 4 it waves
    # again: W-W-W, a Paralysis at p0. p0 chains its own W-W-W-W at p1 the same turn.
    state = play(cast("WWW"), ["--", "-W", "-W"])[-1]
    state = DUEL.apply(state, 0, Paralyze(1, "right"))
    state = play(["W-"], ["D-"], state=state)[-1]
    assert state.wizards[1].right == ("-", "W", "W", "W")
    assert sorted(cast_spells(state)) == ["paralysis", "paralysis"]
    assert state.paralysis_choices == ((0, 1),)  # p1 picks p0's hand; p1's stays held
    state = DUEL.apply(state, 1, Paralyze(0, "left"))
    assert (state.wizards[0].paralysed, state.wizards[1].paralysed) == ("left", "right")


def test_charm_and_ogre_share_p_w_w() -> None:
    history = ("P", "W", "W")
    assert dict(progress(history, 0))["charm_monster"] == 1
    assert dict(progress(history, 0))["summon_ogre"] == 1
    assert [c.spell for c in completions((*history, "D"), 0)] == ["charm_monster"]
    assert [c.spell for c in completions((*history, "S"), 0)] == ["summon_ogre", "summon_goblin"]


def test_power_word_kill_ends_in_a_missile_which_may_be_cast_instead() -> None:
    assert [c.spell for c in completions(tuple("PWPWSSSD"), 0)] == ["power_word_kill", "missile"]
    states = play(cast("PWPWSSS") + [g("D-", spells={"left": "missile"})], [])
    assert states[-1].outcome is None
    assert hps(states[-1]) == (15, 14)


def test_fireball_chains() -> None:
    # D-S-P-S-D-S-P-S-D: the fifth gesture ends one Fireball and starts the next.
    states = play(cast("DSPSDSPSD"), [], setup={"hp": [15, 20]})
    assert [hps(s)[1] for s in states] == [20, 20, 20, 20, 15, 15, 15, 15, 10]


# -- fire elementals and fire -------------------------------------------------------------------


def test_a_fireball_cannot_harm_a_fire_elemental() -> None:
    # p0's elemental appears on turn 5; on turn 6 p1's Fireball is aimed at it.
    p1 = ["--"] + cast("DSPS") + [g("D-", targets={"left": "m1"})]
    states = play(cast("CPSWW") + ["--"], p1)
    assert monsters(states[-1]) == [("m1", "fire_elemental", 0, 3)]
    assert hps(states[-1]) == (9, 9)
    assert any(e["type"] == "blocked" and e["source"] == "fireball" for e in states[-1].events)


# -- deliberate misses ---------------------------------------------------------------------------


def test_a_spell_aimed_at_nobody_is_cast_and_misses() -> None:
    states = play(cast("S") + [g("D-", targets={"left": "nobody"})], [])
    assert hps(states[-1]) == (15, 15)
    assert cast_spells(states[-1]) == ["missile"]
    assert "miss" in event_types(states[-1])


def test_a_summon_aimed_at_nobody_summons_nothing() -> None:
    states = play(cast("WW") + [g("S-", targets={"left": "nobody"})], [])
    assert monsters(states[-1]) == []
    assert hps(states[-1]) == (15, 15)


def test_summon_fire_elemental_cannot_be_aimed_at_nobody() -> None:
    state = play(cast("CPSW"), [])[-1]
    with pytest.raises(IllegalActionError, match="must target a wizard"):
        DUEL.apply(state, 0, action(g("W-", targets={"left": "nobody"})))


def test_a_stab_and_a_monster_may_be_aimed_at_nobody() -> None:
    states = play(cast("WWS") + [g(">-", targets={"left": "nobody"}, monsters={"m1": "nobody"})], [])
    assert hps(states[-1]) == (15, 14)  # the goblin bit on turn 3 only
    assert monsters(states[-1]) == [("m1", "goblin", 0, 1)]


def test_a_counter_spell_at_nobody_shields_no_one() -> None:
    # p0's Counter-spell at nobody on turn 3 does not protect p0 from p1's Fear that turn.
    states = play(cast("DP") + [g("P-", targets={"left": "nobody"})], cast("SWD"))
    assert cast_spells(states[2]) == ["counter_spell", "fear"]
    assert states[2].wizards[0].feared


def test_nobody_is_named_as_such_and_is_no_monster() -> None:
    assert action(g("S-", targets={"left": "nobody"})).to_plain()["targets"] == {"left": "nobody"}
    with pytest.raises(IllegalActionError, match="not a monster"):
        action(g("--", monsters={"nobody": "p1"}))
    assert BY_NAME["summon_fire_elemental"].default_target == "self"
