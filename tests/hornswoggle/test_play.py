"""Whole Hornswoggle matches: invariants, hidden information, and the pirate bot."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.bots import make_bot
from p2pgenius.games.base import state_hash
from p2pgenius.games.hornswoggle.actions import Discard, Flip, HornAction, Place, Timeout
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HIDDEN, HornState, perspective

MAX_ACTIONS = 5000


def as_seen_by_others(state: HornState, seat: int, action: HornAction) -> HornAction:
    """What another seat's engine receives: hidden cards stay commitments; a flip carries the
    card its owner opened."""
    if isinstance(action, Timeout):
        action = HORNSWOGGLE.timeout_action(state, seat)
    if isinstance(action, Place):
        return Place(None)
    if isinstance(action, Discard):
        return Discard(None)
    if isinstance(action, Flip):
        pile = state.pirates[action.pile].pile
        top = max(i for i, c in enumerate(pile) if not c.flipped)
        return Flip(action.pile, pile[top].card)
    return action


def play(levels: list[str], seed: int) -> list[tuple[HornState, list[HornState]]]:
    """Play a match on the full engine and on one engine per seat that sees only its own cards.
    Returns the full state and the four seat states after every action."""
    rng = random.Random(seed)
    bots = [make_bot("hornswoggle", level, seed=seed * 4 + s) for s, level in enumerate(levels)]
    state = HORNSWOGGLE.initial({"garnets": [1, 0, 1, 0]}, {})
    seen = [perspective(state, [s]) for s in range(4)]
    history = [(state, seen)]
    for _ in range(MAX_ACTIONS):
        seats = HORNSWOGGLE.to_act(state)
        if not seats:
            break
        seat = rng.choice(seats)
        action = bots[seat].choose(seen[seat], seat)
        if rng.random() < 0.02:
            action = Timeout()
        others = as_seen_by_others(state, seat, action)
        state = HORNSWOGGLE.apply(state, seat, action)
        own = others if isinstance(others, Flip) else action  # a flip carries the opened card
        seen = [HORNSWOGGLE.apply(v, seat, own if s == seat else others) for s, v in enumerate(seen)]
        history.append((state, seen))
    return history


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([["random"] * 4, ["pirate", "random"] * 2, ["pirate"] * 4]))
def test_every_match_ends_with_cards_conserved_and_secrets_kept(seed: int, levels: list[str]) -> None:
    history = play(levels, seed)
    final, _ = history[-1]
    assert HORNSWOGGLE.outcome(final) is not None
    for state, seen in history:
        for pirate in state.pirates:
            assert pirate.count + len(pirate.pile) + len(pirate.discarded) == 6
        # Every seat's engine agrees on the public state, to the byte.
        assert {state_hash(HORNSWOGGLE, v) for v in seen} == {state_hash(HORNSWOGGLE, state)}
        for seat, view_state in enumerate(seen):
            view = HORNSWOGGLE.view(view_state, seat)
            for other in range(4):
                if other == seat:
                    continue
                flipped = state.pirates[other].pile
                shown = view["piles"][other]
                assert all(card == HIDDEN for card, c in zip(shown, flipped, strict=True) if not c.flipped)
            # What a seat knows of another's hand it can only have inferred (an emptied hand that
            # took back flipped cards), and it must then be right.
            for other, pirate in enumerate(view_state.pirates):
                assert pirate.hand is None or pirate.hand == state.pirates[other].hand


def test_the_pirate_team_beats_random_play() -> None:
    wins = 0
    matches = 40
    for seed in range(matches):
        final, _ = play(["pirate", "random", "pirate", "random"], seed)[-1]
        outcome = HORNSWOGGLE.outcome(final)
        assert outcome is not None
        wins += outcome.winner == 0
    assert wins >= matches * 0.7
