"""The duel at its edges: each case is the seed's or the ruling's own words, played turn by turn.

Found by playing the engine against an independent one on random duels that use the whole action
format; each test names the words it checks.
"""

from __future__ import annotations

from dataclasses import fields

from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import Gestures, Paralyze, Timeout
from p2pgenius.games.duel.engine import repeat_submission
from p2pgenius.games.duel.state import Wizard
from p2pgenius.games.duel.words import words

from .helpers import Move, action, cast, event_types, g, hps, idle, monsters, play

# -- "Targets that are about to be summoned are valid" (seed); ruling, step 6: "whichever seat or
# hand summons them: every monster of the turn is created first, then each summon's controller
# is settled; if that summon fails, the spell misses."


def test_a_summon_aimed_at_a_goblin_a_later_seat_summons_serves_that_goblins_controller() -> None:
    # p0's goblin is aimed at the goblin p1's left hand summons the same turn: "If cast on another
    # monster, the goblin is controlled by monster's controller."
    p0 = cast("WW") + [g("S-", targets={"left": "p1.left"})]
    state = play(p0, cast("WWS"))[-1]
    assert monsters(state) == [("m1", "goblin", 1, 1), ("m2", "goblin", 1, 1)]
    assert hps(state) == (13, 15)  # both serve p1 and attack p0 at once
    assert "miss" not in event_types(state)


def test_a_left_hand_summon_aimed_at_the_same_seats_right_hand_summon() -> None:
    # The right hand summons an ogre at p1; the left's goblin, aimed at that ogre, serves p1 too.
    p0: list[Move] = ["-P", "WW", "WW", g("SS", targets={"left": "p0.right", "right": "p1"})]
    state = play(p0, [])[-1]
    assert monsters(state) == [("m1", "goblin", 1, 1), ("m2", "ogre", 1, 2)]
    assert hps(state) == (12, 15)


def test_a_left_hand_summon_aimed_at_its_own_right_hand_summon_at_oneself() -> None:
    p0: list[Move] = ["-P", "WW", "WW", g("SS", targets={"left": "p0.right"})]
    state = play(p0, [])[-1]
    assert monsters(state) == [("m1", "goblin", 0, 1), ("m2", "ogre", 0, 2)]
    assert hps(state) == (15, 12)


def test_summons_aimed_at_each_other_in_a_circle_both_fail() -> None:
    # Neither names anyone to serve: "If the summon doesn't happen, the spell will miss."
    p0 = cast("WW") + [g("S-", targets={"left": "p1.left"})]
    p1 = cast("WW") + [g("S-", targets={"left": "p0.left"})]
    state = play(p0, p1)[-1]
    assert monsters(state) == []
    assert event_types(state).count("miss") == 2
    assert state.next_monster == 1  # a summon that never happens creates nothing, numbers included


def test_a_summon_aimed_at_a_hand_that_summons_nothing_misses() -> None:
    p0 = cast("WW") + [g("S-", targets={"left": "p1.right"})]
    state = play(p0, [])[-1]
    assert monsters(state) == []
    assert "miss" in event_types(state)


def test_a_summon_aimed_at_a_countered_summon_misses() -> None:
    # p1 counters its own goblin's subject (itself): that summon is stopped, and p0's goblin, aimed
    # at the goblin that never comes, misses with it.
    p0 = cast("WW") + [g("S-", targets={"left": "p1.left"})]
    p1: list[Move] = ["WD", "WP", g("SP", targets={"right": "p1"})]
    state = play(p0, p1)[-1]
    assert monsters(state) == []


# -- Paralysis: "If the subject of the spell is a monster, it simply does not attack in the turn
# following the one in which the spell was cast" (seed); ruling, step 9: "paralysed on two turns
# in a row, it misses both following attacks".


def test_a_monster_paralysed_on_two_turns_in_a_row_misses_both_following_attacks() -> None:
    p0: list[Move] = ["W-", "W-", g("W-", targets={"left": "p1.left"}), g("W-", targets={"left": "m1"})]
    p1 = cast("WWS")
    states = play(p0 + idle(3), p1 + idle(4))
    # The goblin attacks as it appears (turn 3), then not on turns 4 and 5, then again on turn 6.
    assert [hps(s)[0] for s in states] == [15, 15, 14, 14, 14, 13, 12]
    assert [s.monsters[0].paralysed_turn for s in states[2:5]] == [4, 5, 5]


# -- Step 1: "a paralysed hand repeats its previous gesture exactly (no C/S/W substitution): a
# one-handed C counts as nothing this turn, and the paralysed hand repeats C, which next turn
# counts as a clap if the other hand claps too".


def test_a_paralysed_hand_that_clapped_alone_claps_again_and_completes_a_two_handed_spell() -> None:
    # p1's right hand makes S-W-W; on the third turn its left claps alone (nothing). p0's
    # Paralysis holds that left hand, which claps again, and with the right clapping too, that is
    # a clap of both hands: S-W-W-C, a Fire Storm.
    p1: list[Move] = ["-S", "-W", "CW"]
    state = play(cast("WWW"), p1)[-1]
    assert state.wizards[1].left[-1] == "-"  # the lone clap counted as nothing...
    assert state.wizards[1].clapped_alone == "left"  # ...but the hand made it
    state = DUEL.apply(state, 0, Paralyze(1, "left"))
    state = play(["--"], ["DC"], state=state)[-1]  # the held left hand claps whatever p1 chose
    assert (state.wizards[1].left[-1], state.wizards[1].right[-1]) == ("C", "C")
    assert [e["spell"] for e in state.events if e["type"] == "cast"] == ["fire_storm"]
    assert hps(state) == (10, 10)


def test_a_paralysed_hand_repeating_a_lone_clap_alone_still_counts_as_nothing() -> None:
    state = play(cast("WWW"), ["--", "--", "C-"])[-1]
    state = DUEL.apply(state, 0, Paralyze(1, "left"))
    state = play(["--"], ["DS"], state=state)[-1]
    assert (state.wizards[1].left[-1], state.wizards[1].right[-1]) == ("-", "S")
    assert state.wizards[1].clapped_alone == "left"  # it clapped (alone) again
    rewrites = [e for e in state.events if e["type"] == "rewrite"]
    assert [(e["seat"], e["hand"], e["counted"], e["why"]) for e in rewrites] == [
        (1, "left", "-", "paralysed_clap")
    ]
    assert (
        words(rewrites[0])
        == "p1's left hand counts as - (paralysed: it claps again, alone, which is nothing)"
    )


def test_a_two_handed_clap_is_not_a_lone_clap() -> None:
    state = play(["CC"], ["C-"])[-1]
    assert state.wizards[0].clapped_alone is None
    assert state.wizards[1].clapped_alone == "left"


def test_a_clap_the_fear_prevented_is_not_repeated_by_a_paralysed_hand() -> None:
    # Afraid, p1 "cannot perform a C": its clap was never made, so the held hand repeats nothing.
    state = play(["WS", "WW", "WD"], ["--", "--", "--"])[-1]  # Paralysis and Fear at p1, turn 3
    state = DUEL.apply(state, 0, Paralyze(1, "left"))
    state = play(["--"], ["C-"], state=state)[-1]  # turn 4: the left hand (held) repeats -
    assert state.wizards[1].clapped_alone is None


# -- Ruling, step 13: "Surrender: it always ends the duel this turn. Both surrendered -> draw; one
# surrendered -> it loses, unless the opponent was knocked out this turn (at 0 HP or less in step
# 12, before any revival) by the surrenderer's side: then the surrenderer wins by knockout."


def test_a_surrender_ends_the_duel_even_when_both_wizards_are_knocked_out_and_revived() -> None:
    # p0's goblin knocks p1 out on the turn p0 surrenders; p1's Fireball knocks p0 out the same
    # turn. Both rise with 5 HP (step 12), and the surrender ends the duel (step 13): p0's side
    # knocked p1 out, so p0 wins by knockout.
    p0 = idle(2) + cast("WWS") + ["PP"]
    p1 = ["--"] + cast("DSPSD")
    state = play(p0, p1, setup={"hp": [5, 2]})[-1]
    assert state.turn == 7
    assert "revive" in event_types(state)
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == (0, "knocked_out")
    assert DUEL.to_act(state) == ()


def test_a_surrender_on_a_double_knockout_the_surrenderer_did_not_cause_loses() -> None:
    # p1's own Fire Storm knocks both out; p0, surrendering, knocked nobody out: p0 loses.
    state = play(idle(3) + ["PP"], cast("SWWC"), setup={"hp": [5, 5]})[-1]
    assert "revive" in event_types(state)
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == (1, "surrender")


def test_both_surrendering_on_a_double_knockout_is_a_draw() -> None:
    p0 = idle(2) + cast("WWS") + ["PP"]
    p1 = idle(5) + ["PP"]
    state = play(p0, p1, setup={"hp": [15, 2]})[-1]
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == (None, "draw")


def test_an_ended_duel_takes_no_action() -> None:
    state = play(["PP"], [])[-1]
    for seat in (0, 1):
        assert DUEL.legal_actions(state, seat) == ()


# -- Rulings the engine already followed, kept --------------------------------------------------


def test_charm_monsters_default_is_chosen_when_it_takes_effect_a_monster_summoned_this_turn_counts() -> None:
    # "Charm Monster with no target: the opponent's most recently created monster that is not an
    # elemental ... it is chosen when the charm takes effect (step 9), so a monster the opponent
    # summons this same turn counts."
    state = play(cast("PWWD"), ["--"] + cast("WWS"))[-1]
    assert monsters(state) == [("m1", "goblin", 0, 1)]
    assert hps(state) == (15, 14)  # charmed as it appeared, it attacked its new master's foe


def test_a_repeated_target_naming_a_monster_now_gone_falls_back_to_the_default() -> None:
    # p0 stabs p1's goblin m1 dead, then misses a turn: the repeat stabs p1, the default.
    state = play(["--", "--", "--", g(">-", targets={"left": "m1"})], cast("WWS"))[-1]
    assert monsters(state) == []
    assert repeat_submission(state, 0) == Gestures(">", "-")
    state = DUEL.apply(state, 0, Timeout())
    state = DUEL.apply(state, 1, action("--"))
    assert hps(state)[1] == 14


def test_a_repeat_keeps_the_parts_still_legal_an_order_for_a_summons_included() -> None:
    # Turn 3: p0's left completes a goblin (m1), ordered to attack nobody; its right stabs nobody.
    # On turn 4 p0 misses its submission: the left's S no longer summons, but an order for a
    # summons is never refused (it counts only if the hand summons), so the repeat keeps it, and
    # it names this turn's summons of the left hand, not m1; the stab is still aimed at nobody.
    p0 = cast("WW") + [g("S>", targets={"right": "nobody"}, monsters={"p0.left": "nobody"})]
    state = play(p0, [])[-1]
    assert hps(state) == (15, 15)
    assert repeat_submission(state, 0).to_plain() == {
        "type": "gestures",
        "left": "S",
        "right": ">",
        "targets": {"right": "nobody"},
        "monsters": {"p0.left": "nobody"},
    }
    state = DUEL.apply(state, 0, Timeout())
    state = DUEL.apply(state, 1, action("--"))
    assert hps(state) == (15, 14)  # the goblin m1 attacks p1 by default; the stab misses


def test_two_paralyses_on_one_wizard_the_first_caster_in_seat_order_picks_the_hand() -> None:
    p0 = cast("WWW")
    p1 = cast("WW") + [g("W-", targets={"left": "p1"})]
    state = play(p0, p1)[-1]
    assert state.paralysis_choices == ((1, 0),)
    assert DUEL.to_act(state) == (0,)


# -- the engine's own bookkeeping: resolving a turn builds each wizard afresh, field by field (no
# copy of the old one, for speed), so a field added to Wizard must be carried there too.


def test_a_resolved_turn_carries_every_field_a_wizard_has() -> None:
    carried = ["hp", "max_hp", "left", "right", "barrier", "paralysed", "feared", "blind_from"]
    carried += ["blind_until", "blind_mark", "resist_heat", "clapped_alone", "last"]
    assert [f.name for f in fields(Wizard)] == carried, "carry the new field in Turn.next_state"
    state = play(["P-", "-S"], ["W-"])[-1]
    assert state.wizards[0].left == ("P", "-") and state.wizards[0].right == ("-", "S")
    assert state.wizards[1].left == ("W", "-") and state.wizards[0].last == Gestures("-", "S")


def test_the_end_of_a_duel_is_told_in_the_rules_words_not_its_reason_names() -> None:
    who = {0: "ann (p0)", 1: "bob (p1)"}.__getitem__
    said = {
        reason: words({"type": "outcome", "winner": 1, "reason": reason}, who)
        for reason in ("knocked_out", "power_word_kill", "surrender")
    }
    assert said == {
        "knocked_out": "The duel is over: bob (p1) wins: ann (p0) was knocked out",
        "power_word_kill": "The duel is over: bob (p1) wins: Power Word Kill killed ann (p0)",
        "surrender": "The duel is over: bob (p1) wins: ann (p0) surrendered",
    }
    drawn = words({"type": "outcome", "winner": None, "reason": "draw"}, who)
    assert drawn == "The duel is over: a draw (both surrendered, or both fell to Power Word Kill)"
