"""The wizard bot: far stronger than random play, and two of them finish their duels."""

from __future__ import annotations

from p2pgenius.bots import make_bot
from p2pgenius.games.base import Outcome
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import Paralyze
from p2pgenius.games.duel.state import DuelState, Wizard

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


def test_the_wizard_is_the_default_duel_bot() -> None:
    assert make_bot("duel", None, seed=1).level == "wizard"


def test_a_paralysing_wizard_holds_the_hand_that_would_not_paralyse_it_back() -> None:
    # The opponent's right hand is at "WW": held, it would repeat W and cast Paralysis at us.
    # Holding it is how two wizards locked each other for hundreds of turns; hold the other.
    me = Wizard(hp=15, max_hp=15, left=("S", "W", "W", "W"), right=("P", "D", "-", "P"))
    them = Wizard(hp=15, max_hp=15, left=("D", "-", "W", "P"), right=("S", "D", "W", "W"))
    state = DuelState(turn=5, wizards=(me, them), paralysis_choices=((1, 0),))
    assert make_bot("duel", "wizard", seed=3).choose(state, 0) == Paralyze(1, "left")


def test_two_wizards_do_not_lock_each_other_in_long_duels() -> None:
    unfinished = [seed for seed in range(100) if duel(("wizard", "wizard"), seed, max_turns=100) is None]
    assert unfinished == []
