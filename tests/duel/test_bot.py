"""The wizard bot: far stronger than random play, and two of them finish their duels."""

from __future__ import annotations

from p2pgenius.bots import make_bot
from p2pgenius.games.base import Outcome
from p2pgenius.games.duel import DUEL

MAX_TURNS = 300


def duel(levels: tuple[str, str], seed: int) -> Outcome | None:
    bots = [make_bot("duel", level, seed=seed * 2 + i) for i, level in enumerate(levels)]
    state = DUEL.initial({}, {})
    while state.outcome is None and state.turn <= MAX_TURNS:
        for seat in DUEL.to_act(state):
            state = DUEL.apply(state, seat, bots[seat].choose(state, seat))
    return state.outcome


def test_the_wizard_beats_random_play_from_either_seat() -> None:
    wins = 0
    for seed in range(20):
        first, second = duel(("wizard", "random"), seed), duel(("random", "wizard"), seed)
        wins += (first is not None and first.winner == 0) + (second is not None and second.winner == 1)
    assert wins >= 36


def test_two_wizards_finish_their_duels() -> None:
    outcomes = [duel(("wizard", "wizard"), seed) for seed in range(20)]
    assert sum(o is not None for o in outcomes) >= 18


def test_the_wizard_is_the_default_duel_bot() -> None:
    assert make_bot("duel", None, seed=1).level == "wizard"
