"""The duel's bots: ``archmage`` (the default) and ``wizard`` are far stronger than random play,
never surrender by accident, put idle hands to use, and two of them finish their duels."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from p2pgenius.bots import levels, make_bot
from p2pgenius.games.base import Outcome
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import Gestures, Paralyze
from p2pgenius.games.duel.resolve import effective_gestures, plan
from p2pgenius.games.duel.spells import STAB
from p2pgenius.games.duel.state import DuelState, Monster, Wizard
from p2pgenius.games.duel.variety import played, pointless, sample

LEVELS = ("archmage", "wizard")

MAX_TURNS = 300


def duel(levels: tuple[str, str], seed: int, max_turns: int = MAX_TURNS) -> Outcome | None:
    bots = [make_bot("duel", level, seed=seed * 2 + i) for i, level in enumerate(levels)]
    state = DUEL.initial({}, {})
    while state.outcome is None and state.turn <= max_turns:
        for seat in DUEL.to_act(state):
            state = DUEL.apply(state, seat, bots[seat].choose(state, seat))
    return state.outcome


def test_the_wizard_beats_random_play_in_95_of_100_duels_from_either_seat_and_finishes_all() -> None:
    for seat in (0, 1):
        levels = ("wizard", "random") if seat == 0 else ("random", "wizard")
        outcomes = [duel(levels, seed) for seed in range(100)]
        assert all(outcome is not None for outcome in outcomes)
        assert sum(outcome is not None and outcome.winner == seat for outcome in outcomes) >= 95


def test_two_wizards_finish_their_duels() -> None:
    outcomes = [duel(("wizard", "wizard"), seed) for seed in range(20)]
    assert sum(o is not None for o in outcomes) >= 18


@pytest.mark.real_default_level
def test_the_archmage_is_the_default_duel_bot_and_the_wizard_the_next_level() -> None:
    assert levels("duel") == ("archmage", "wizard", "random")
    assert make_bot("duel", None, seed=1).level == "archmage"


@pytest.mark.parametrize("level", LEVELS)
def test_a_paralysing_wizard_holds_the_hand_that_would_not_paralyse_it_back(level: str) -> None:
    # The opponent's right hand is at "WW": held, it would repeat W and cast Paralysis at us.
    # Holding it is how two wizards locked each other for hundreds of turns; hold the other.
    me = Wizard(hp=15, max_hp=15, left=("S", "W", "W", "W"), right=("P", "D", "-", "P"))
    them = Wizard(hp=15, max_hp=15, left=("D", "-", "W", "P"), right=("S", "D", "W", "W"))
    state = DuelState(turn=5, wizards=(me, them), paralysis_choices=((1, 0),))
    assert make_bot("duel", level, seed=3).choose(state, 0) == Paralyze(1, "left")


def test_two_wizards_do_not_lock_each_other_in_long_duels() -> None:
    unfinished = [seed for seed in range(100) if duel(("wizard", "wizard"), seed, max_turns=100) is None]
    assert unfinished == []


def wizard(*, hp: int = 15, left: str = "", right: str = "", **status: Any) -> Wizard:
    return replace(Wizard(hp=hp, max_hp=15, left=tuple(left), right=tuple(right)), **status)


def counted(state: DuelState, seat: int, action: object) -> tuple[str, str]:
    assert isinstance(action, Gestures)
    DUEL.apply(state, seat, action)  # legal, or this raises
    return effective_gestures(state.wizards[seat], action)


@pytest.mark.parametrize("level", LEVELS)
def test_a_paralysed_hand_repeating_p_never_makes_a_surrender(level: str) -> None:
    # The left hand is held at P; an ogre and a goblin are at our throat and the opponent is one
    # gesture from a Missile: a Shield is wanted, but the held hand already makes one, and a
    # P with the right hand too would surrender.
    for paralysed, feared in (("left", False), ("left", True), ("right", False)):
        me = wizard(
            hp=6, left="SWP" if paralysed == "left" else "DSD", right="DSP" if paralysed == "right" else "WWP"
        )
        me = replace(me, paralysed=paralysed, feared=feared)
        them = wizard(left="DS", right="PWW")
        monsters = (Monster(1, "ogre", 1, 2), Monster(2, "goblin", 1, 1))
        state = DuelState(turn=4, wizards=(me, them), monsters=monsters, next_monster=3)
        for seed in range(40 if level == "wizard" else 8):
            made = counted(state, 0, make_bot("duel", level, seed=seed).choose(state, 0))
            assert made != ("P", "P"), (paralysed, feared, seed)


@pytest.mark.parametrize("level", LEVELS)
def test_an_idle_hand_stabs_a_wizard_one_point_from_defeat(level: str) -> None:
    # Nothing under way on either side; the opponent has 1 HP left: a stab may end it now.
    state = DuelState(turn=3, wizards=(wizard(left="->", right="--"), wizard(hp=1, left="--", right="--")))
    for seed in range(10):
        assert STAB in counted(state, 0, make_bot("duel", level, seed=seed).choose(state, 0))


@pytest.mark.parametrize("level", LEVELS)
def test_no_hand_is_left_doing_nothing(level: str) -> None:
    for seed in range(5):
        bots = [make_bot("duel", level, seed=seed), make_bot("duel", "random", seed=seed)]
        state = DUEL.initial({}, {})
        while state.outcome is None and state.turn <= 12:
            for seat in DUEL.to_act(state):
                state = DUEL.apply(state, seat, bots[seat].choose(state, seat))
        assert "-" not in state.wizards[0].left + state.wizards[0].right


def test_the_archmage_speaks_the_last_word_of_power_word_kill() -> None:
    me = wizard(left="PWPWSSS", right="DSPS")
    them = wizard(left="SDSDSDS", right="WWPWW")
    state = DuelState(turn=8, wizards=(me, them))
    for seed in range(5):
        move = make_bot("duel", "archmage", seed=seed).choose(state, 0)
        assert isinstance(move, Gestures) and move.left == "D"


def test_the_archmage_breaks_a_power_word_kill_with_an_anti_spell_in_time() -> None:
    # The opponent needs S then D to kill us; our right hand has S-P: P now completes Anti-spell,
    # and next turn none of the opponent's gestures so far count. Our left hand is at P too, so
    # the move must not be P with both hands.
    me = wizard(left="WSDP", right="DSP")
    them = wizard(left="PWPWSS", right="DDWD")
    state = DuelState(turn=7, wizards=(wizard(left="DWSP", right="WSP"), them))
    state = replace(state, wizards=(replace(me, left=("W", "D", "W", "P"), right=("W", "S", "P")), them))
    for seed in range(5):
        move = make_bot("duel", "archmage", seed=seed).choose(state, 0)
        assert isinstance(move, Gestures) and move.right == "P" and move.left != "P"


def test_the_archmage_reads_nothing_it_may_not_see() -> None:
    # Its choice is the same whatever the opponent has already submitted this turn, and, while
    # it is blind, whatever the opponent's hands did during the blindness.
    me = wizard(hp=9, left="SDWSP", right="DDSWW", blind_from=5, blind_until=7)
    seen = wizard(hp=12, left="PWPW", right="WWSS")
    states = [
        DuelState(turn=6, wizards=(me, replace(seen, left=(*seen.left, late), right=(*seen.right, other))))
        for late, other in (("S", "D"), ("P", "W"), ("-", ">"))
    ]
    states.append(replace(states[0], submitted=(None, Gestures("S", "D"))))
    states.append(replace(states[1], wizards=(states[1].wizards[0], replace(states[1].wizards[1], hp=2))))
    choices = {repr(make_bot("duel", "archmage", seed=11).choose(state, 0)) for state in states}
    assert len(choices) == 1


def test_a_blind_archmage_holds_a_hand_by_what_it_saw() -> None:
    # Blind since turn 3, it saw the opponent's hands make "SD" and "WW"; what they did since
    # (seen, "SDP" and "WWD" would make holding the right hand best) must not change its choice.
    me = wizard(left="SWW", right="DPP", blind_from=3, blind_until=5)
    choices = set()
    for late in ("W", "P", "D"):
        for other in ("S", "D"):
            them = wizard(left="SD" + late, right="WW" + other)
            state = DuelState(turn=4, wizards=(me, them), paralysis_choices=((1, 0),))
            choices.add(make_bot("duel", "archmage", seed=3).choose(state, 0))
    assert choices == {Paralyze(1, "left")}


@pytest.mark.parametrize("level", LEVELS)
def test_a_seed_decides_every_move(level: str) -> None:
    def moves(seed: int) -> list[object]:
        bots = [make_bot("duel", level, seed=seed), make_bot("duel", level, seed=seed + 1)]
        state, played = DUEL.initial({}, {}), []
        while state.outcome is None and state.turn <= 6:
            for seat in DUEL.to_act(state):
                action = bots[seat].choose(state, seat)
                played.append(action)
                state = DUEL.apply(state, seat, action)
        return played

    assert moves(5) == moves(5)
    assert moves(5) != moves(6)


def test_the_archmage_plays_legal_moves_through_whole_duels_and_wins_them() -> None:
    for seed in range(3):
        for seat in (0, 1):
            match = ("archmage", "random") if seat == 0 else ("random", "archmage")
            outcome = duel(match, seed)  # DUEL.apply refuses an illegal action
            assert outcome is not None and outcome.winner == seat
    outcome = duel(("archmage", "wizard"), 1)
    assert outcome is not None


def test_an_archmage_going_round_a_lock_stops_stabbing_at_a_shield_that_never_drops() -> None:
    # Two archmages locked for hundreds of turns here: p1 at 1 HP with its ogre, p0 at 3 HP, each
    # raising a Shield and stabbing at the other's every turn in the hope that it drops. Six
    # turns of it on the board: the loop shows the Shield does not drop, so p0 stabs elsewhere
    # (the ogre) or gets on with a spell.
    me = wizard(hp=3, left="SDPPPPPP", right="WS>>>>>>")
    them = wizard(hp=1, left="DSPPPPPP", right="PW>>>>>>")
    state = DuelState(turn=9, wizards=(me, them), monsters=(Monster(1, "ogre", 1, 2),), next_monster=2)
    for seed in range(8):
        move = make_bot("duel", "archmage", seed=seed).choose(state, 0)
        assert isinstance(move, Gestures)
        if STAB in counted(state, 0, move):
            assert move.targets and all(ref.kind == "monster" for _, ref in move.targets), (seed, move)


def test_two_archmages_from_the_lock_finish_the_duel() -> None:
    me = wizard(hp=3, left="SDPPPPPP", right="WS>>>>>>")
    them = wizard(hp=1, left="DSPPPPPP", right="PW>>>>>>")
    state = DuelState(turn=9, wizards=(me, them), monsters=(Monster(1, "ogre", 1, 2),), next_monster=2)
    for seed in range(2):
        bots = [make_bot("duel", "archmage", seed=seed * 2 + i) for i in (0, 1)]
        played = state
        while played.outcome is None and played.turn <= 120:
            for seat in DUEL.to_act(played):
                played = DUEL.apply(played, seat, bots[seat].choose(played, seat))
        assert played.outcome is not None, seed


def spells_cast(state: DuelState, seat: int, action: object) -> set[str]:
    assert isinstance(action, Gestures)
    return {completion.spell for _, completion in plan(state.wizards[seat], action, strict=False).spells}


def test_the_archmage_does_not_cure_itself_at_full_hp() -> None:
    # W on the left completes Cure Light Wounds (S-P-W) at 15 HP of 15, and the opponent has no
    # spell one gesture from hurting us: it would heal nothing. The old archmage made it with
    # every seed (W also begins two spells).
    state = DuelState(
        turn=5, wizards=(wizard(left="WWSP", right="PWWS"), wizard(hp=12, left="DWPD", right="SDDP"))
    )
    for seed in range(10):
        assert "cure_light_wounds" not in spells_cast(
            state, 0, make_bot("duel", "archmage", seed=seed).choose(state, 0)
        )


def test_the_archmage_charms_no_monster_that_is_not_there() -> None:
    # D on the left completes Charm Monster (P-W-W-D); the opponent has no monster and no hand
    # one gesture from summoning one, at 5 HP D would also begin a Fireball.
    for left, right in (("DPWW", "SDSP"), ("SPWW", "PSPW"), ("DPWW", "DSPS")):
        state = DuelState(
            turn=5, wizards=(wizard(hp=12, left=left, right=right), wizard(hp=5, left="DSDD", right="SPSS"))
        )
        for seed in range(10):
            move = make_bot("duel", "archmage", seed=seed).choose(state, 0)
            assert "charm_monster" not in spells_cast(state, 0, move), (left, right, seed)


def test_a_spell_that_can_do_nothing_is_not_drawn_for_variety() -> None:
    # Two moves near-equal: the better by a hair completes Cure Light Wounds at full HP. Drawn
    # among near-equal moves, it would be made about half the time; it must never be.
    state = DuelState(
        turn=5, wizards=(wizard(left="WWSP", right="PWWS"), wizard(hp=12, left="DSPS", right="PWWS"))
    )
    cure, other = Gestures("W", "P"), Gestures("D", "P")
    assert pointless(state, 0, cure) and not pointless(state, 0, other)
    rng = random.Random(1)
    assert {sample(state, 0, [cure, other], [1.01, 1.0], rng) for _ in range(40)} == {other}
    # Alone near the best, it is made: its gestures are then worth more than anything else.
    assert sample(state, 0, [cure, other], [3.0, 1.0], rng) == cure


def repeats_a_cycle(turns: list[tuple[str, str]], shortest: int = 3) -> bool:
    n = len(turns)
    return any(
        turns[start : start + length] == turns[start + length : start + 2 * length]
        for length in range(shortest, n // 2 + 1)
        for start in range(n - 2 * length + 1)
    )


def test_two_archmages_play_no_loop_twice() -> None:
    # The demo's duels (the host's seed 1 and the guest's 2 make these bots, seeded 10 + seat and
    # 20 + seat, as the coin gives the host seat 0 or seat 1): two archmages played a five-turn
    # loop four times over in the first (a Shield; two waves; a goblin; a charm of the other's
    # goblin; an Anti-spell and a stab), mirror images of each other.
    assert repeats_a_cycle([("P", "P"), ("WW", "WW"), ("SW", "SW")] * 2)  # (the check itself)
    for seeds in ((10, 21), (20, 11)):
        bots = [make_bot("duel", "archmage", seed=seed) for seed in seeds]
        state = DUEL.initial({}, {"fast": True})
        while state.outcome is None and state.turn <= MAX_TURNS:
            for seat in DUEL.to_act(state):
                state = DUEL.apply(state, seat, bots[seat].choose(state, seat))
        assert state.outcome is not None
        assert not repeats_a_cycle(played(state)), seeds
