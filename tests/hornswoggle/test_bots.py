"""The captain bot: it never reads a hidden card, takes a sure bid, is repeatable, plays legally."""

from __future__ import annotations

from dataclasses import replace

import pytest

from p2pgenius.bots import levels, make_bot
from p2pgenius.games.hornswoggle.actions import Bid, HornAction, Place
from p2pgenius.games.hornswoggle.bots import PirateBot
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.search import CaptainBot, Memory, observe
from p2pgenius.games.hornswoggle.state import HornState, PileCard
from tests.hornswoggle.helpers import D, S, act, opened
from tests.hornswoggle.test_play import play

SEEDS = range(3)


def swap_hidden(state: HornState, owner: int) -> HornState:
    """The same public state with the top of ``owner``'s pile swapped for a card of the other kind
    from its hand, which no other seat may see."""
    pirate = state.pirates[owner]
    assert pirate.hand is not None
    top = pirate.pile[-1].card
    other = S if top == D else D
    doubloons, skulls = pirate.hand
    assert (skulls if other == S else doubloons) > 0, "the test needs a card of the other kind in hand"
    hand = (doubloons + (top == D) - (other == D), skulls + (top == S) - (other == S))
    pirates = list(state.pirates)
    pirates[owner] = replace(pirate, pile=(*pirate.pile[:-1], PileCard(other)), hand=hand)
    return replace(state, pirates=(pirates[0], pirates[1], pirates[2], pirates[3]))


def bidding_state(cards: list[str]) -> HornState:
    """p0 adds a doubloon onto its opening card, p1 and p2 add, and p3 (an opponent) bids 1."""
    state = opened(cards)
    state = act(state, 0, "place", card=D)
    state = act(state, 1, "place", card=cards[1])
    state = act(state, 2, "place", card=cards[2])
    return act(state, 3, "bid", count=1)


def choice(state: HornState, seat: int, seed: int) -> HornAction:
    return CaptainBot(seed=seed).choose(state, seat)


def test_captain_is_the_default_and_pirate_stays() -> None:
    assert levels("hornswoggle")[:2] == ("captain", "pirate")


@pytest.mark.parametrize("owner", [1, 2, 3])
def test_others_hidden_cards_do_not_change_the_choice(owner: int) -> None:
    # The partner (p2) too: this machine may hold its seat, but its pile is still not assumed.
    states = [opened([D, D, S, D]), bidding_state([D, S, D, S]), bidding_state([D, D, S, D])]
    for state in states:
        other = swap_hidden(state, owner)
        assert other != state
        for seed in SEEDS:
            assert choice(state, 0, seed) == choice(other, 0, seed)


def test_a_partner_held_on_this_machine_is_not_assumed() -> None:
    # Its pile a sure doubloon or a sure skull: the captain bids (or not) the same.
    clean = bidding_state([D, D, D, D])
    trapped = swap_hidden(clean, 2)
    assert trapped.pirates[2].pile[-1].card == S
    assert clean.holds == trapped.holds == (True, True, True, True)
    for seed in SEEDS:
        assert choice(clean, 0, seed) == choice(trapped, 0, seed)


def test_it_takes_over_a_cheap_enemy_bid_it_is_sure_of() -> None:
    # p3 bid 1; p0's own pile is two doubloons: a bid of 2 is a sure success.
    for cards in ([D, D, D, D], [D, S, S, S], [D, S, D, S]):
        state = bidding_state(cards)
        assert state.phase == "bidding" and state.current == 0
        for seed in SEEDS:
            action = choice(state, 0, seed)
            assert isinstance(action, Bid) and action.count >= 2, (cards, seed, action)


def match(seed: int) -> list[tuple[int, HornAction]]:
    """A whole match, lighter captains (p0, p2) against pirates, every action checked legal."""
    bots: list[CaptainBot | PirateBot] = [
        CaptainBot(seed=seed, playouts=40) if s % 2 == 0 else PirateBot(seed=seed + s) for s in range(4)
    ]
    state = HORNSWOGGLE.initial({"garnets": [1, 1, 1, 1]}, {})
    played: list[tuple[int, HornAction]] = []
    while HORNSWOGGLE.to_act(state):
        seat = HORNSWOGGLE.to_act(state)[-1]
        action = bots[seat].choose(state, seat)
        assert action in HORNSWOGGLE.legal_actions(state, seat)
        state = HORNSWOGGLE.apply(state, seat, action)
        played.append((seat, action))
    assert HORNSWOGGLE.outcome(state) is not None
    return played


def test_the_same_seed_plays_the_same_match() -> None:
    assert match(11) == match(11)
    assert match(11) != match(12)


@pytest.mark.parametrize(
    ("levels_", "seed"),
    [(["captain", "random", "random", "random"], 2), (["pirate", "captain"] * 2, 3)],
)
def test_whole_matches_are_legal_from_each_seats_own_view(levels_: list[str], seed: int) -> None:
    final, _ = play(levels_, seed)[-1]  # every action is applied to the full engine: legal
    assert HORNSWOGGLE.outcome(final) is not None


def test_its_opening_card_is_a_card_it_holds() -> None:
    state = HORNSWOGGLE.initial({"hands": [[0, 2], [4, 2], [4, 0], [4, 2]]}, {})
    state = act(state, 1, "order", first=0)
    for seed in SEEDS:
        assert choice(state, 0, seed) == Place(S)
        assert choice(state, 2, seed) == Place(D)


def test_memory_is_per_match() -> None:
    bot = make_bot("hornswoggle", "captain", seed=3)
    assert isinstance(bot, CaptainBot)
    state = bidding_state([D, S, D, S])
    bot.choose(state, 0)
    memory = bot.memories[0]
    assert memory.counted[3] == 1  # it saw p3's bid
    late = replace(state, round=5)
    bot.choose(late, 0)
    assert bot.memories[0] is memory
    bot.choose(state, 0)  # round 1 again: a new match
    assert bot.memories[0] is not memory and bot.memories[0].round == 1


def test_what_a_pirate_showed_is_remembered() -> None:
    memory = Memory()
    state = bidding_state([D, S, D, S])
    # p0 bids 4 and becomes challenger; it flips its two doubloons, then p1's skull.
    state = act(state, 0, "bid", count=4)
    for seat in (1, 2, 3):
        state = act(state, seat, "pass")
    for pile in (0, 0):
        state = act(state, 0, "flip", pile=pile)
    observe(memory, state)
    assert memory.challenges[0] == 1 and memory.bluffs[0] == 0
    after = act(state, 0, "flip", pile=1)  # p1's top card: the skull it added
    observe(memory, after)
    assert memory.hits[1] == 1 and memory.floor(1, len(after.pirates[1].discarded)) == 1


def test_an_opponent_set_up_out_still_picks_a_first_player_who_is_in() -> None:
    state = HORNSWOGGLE.initial({"hands": [[4, 2], [0, 0], [4, 2], [4, 2]]}, {})
    action = choice(state, 1, 0)
    assert action in HORNSWOGGLE.legal_actions(state, 1)
