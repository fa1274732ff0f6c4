"""The captain's fast simulator (issue 49) against the straightforward one in reference_sim.py:
the same tables after the same actions, the same random actions, the same playouts with the same
random numbers used, the same chances and bids to the last bit, and so the same decisions."""

from __future__ import annotations

import random
from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.search import (
    DONE,
    PLAIN_STYLE,
    CaptainBot,
    SimTable,
    Style,
    best_bid,
    bid_chances,
    playout,
    skull_chance,
    success,
    value,
    weighted_index,
)
from tests.hornswoggle.reference_sim import (
    ReferenceCaptain,
    RefTable,
    fast,
    reference_best_bid,
    reference_playout,
    reference_skull_chance,
    reference_success,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def deal(rng: random.Random) -> tuple[SimTable, RefTable]:
    """The same round on both tables: random hands (a pirate without cards is out), garnets,
    every pirate still in has laid its opening card, the first of them to act."""
    big = rng.random() < 0.1  # (a setup may deal more than the usual 4 and 2)
    counts = [(rng.randint(0, 9 if big else 4), rng.randint(0, 6 if big else 2)) for _ in range(4)]
    for seat in (0, 1):  # a team with no cards at all would have lost already
        if sum(counts[seat]) + sum(counts[seat + 2]) == 0:
            counts[seat] = (1, 1)
    quick, ref = SimTable(), RefTable()
    for seat, (doubloons, skulls) in enumerate(counts):
        opening = (
            [] if not doubloons + skulls else [1 if not doubloons or (skulls and rng.random() < 0.5) else 0]
        )
        hand = [doubloons - opening.count(0), skulls - opening.count(1)]
        quick.set_cards(seat, list(hand), list(opening))
        ref.hand[seat], ref.pile[seat] = list(hand), list(opening)
        garnets = rng.randint(0, 1)
        for table in (quick, ref):
            table.out[seat] = not doubloons + skulls
            table.garnets[seat] = garnets
    first = rng.randrange(4)
    quick.current = ref.current = first if not ref.out[first] else ref.next_in(first)
    return quick, ref


def same(quick: SimTable, ref: RefTable) -> None:
    """Both tables hold the same round, and the fast one's counters are right."""
    fields = ["hand", "pile", "shown", "out", "garnets", "passed", "phase", "current", "bid", "bidder"]
    fields += ["challenger", "insured", "flips", "success"]
    for name in fields:
        assert getattr(quick, name) == getattr(ref, name), name
    assert quick.size == ref.size
    assert quick.held == ref.held
    assert [quick.cards(s) for s in range(4)] == [ref.cards(s) for s in range(4)]


def played(rng: random.Random, steps: int) -> tuple[SimTable, RefTable]:
    """A dealt round after up to ``steps`` random legal actions on both tables, checked as it goes."""
    quick, ref = deal(rng)
    for _ in range(steps):
        if ref.phase == DONE:
            break
        seat = ref.current
        legal = ref.legal(seat)
        assert quick.legal(seat) == legal
        action = legal[rng.randrange(len(legal))]
        quick.play(seat, action)
        ref.play(seat, action)
        same(quick, ref)
    return quick, ref


def any_style(rng: random.Random) -> Style:
    """Skull factors as a memory might give them."""
    return Style(
        pile=[rng.uniform(0.2, 2.0) for _ in range(4)], bidder=[rng.uniform(0.1, 1.0) for _ in range(4)]
    )


@settings(max_examples=300)
@given(SEEDS)
def test_a_random_action_is_drawn_as_from_the_legal_list(seed: int) -> None:
    rng = random.Random(seed)
    quick, ref = played(rng, rng.randrange(10))
    if ref.phase == DONE:
        return
    draws = rng.getrandbits(32)
    mine, theirs = random.Random(draws), random.Random(draws)
    legal = ref.legal(ref.current)
    assert quick.random_action(quick.current, mine) == legal[theirs.randrange(len(legal))]
    assert mine.getstate() == theirs.getstate()


@settings(max_examples=300)
@given(SEEDS)
def test_a_playout_ends_as_the_reference_one_with_the_same_numbers_used(seed: int) -> None:
    rng = random.Random(seed)
    quick, ref = played(rng, rng.randrange(10))
    seat = rng.randrange(4)
    styles = [any_style(rng) if s == seat else PLAIN_STYLE for s in range(4)]
    noise = [rng.choice([0.0, 0.1, rng.random()]) for _ in range(4)]
    copy = quick.copy()
    draws = rng.getrandbits(32)
    mine, theirs = random.Random(draws), random.Random(draws)
    playout(quick, mine, styles, noise)
    reference_playout(ref, theirs, styles, noise)
    same(quick, ref)
    assert mine.getstate() == theirs.getstate()
    assert [value(quick, s) for s in range(4)] == [value(fast(ref), s) for s in range(4)]
    assert copy.size == sum(len(p) for p in copy.pile), "the copy kept its own counters"


@settings(max_examples=300)
@given(SEEDS)
def test_chances_and_bids_are_the_reference_ones_to_the_bit(seed: int) -> None:
    rng = random.Random(seed)
    quick, ref = played(rng, rng.randrange(12))
    style = rng.choice([PLAIN_STYLE, any_style(rng)])
    for seat in range(4):
        for owner in range(4):
            assert skull_chance(quick, seat, owner, style) == reference_skull_chance(ref, seat, owner, style)
        for low in range(1, ref.size + 2):
            expected = [reference_success(ref, seat, bid, style) for bid in range(low, ref.size + 2)]
            assert bid_chances(quick, seat, low, ref.size + 1, style) == expected
            assert [success(quick, seat, bid, style) for bid in range(low, ref.size + 2)] == expected
            assert best_bid(quick, seat, low, style) == reference_best_bid(ref, seat, low, style)


@given(st.lists(st.floats(min_value=1e-9, max_value=1e6), min_size=1, max_size=30), SEEDS)
def test_a_weighted_pick_is_what_random_choices_picks(weights: list[float], seed: int) -> None:
    cumulative = list(accumulate(weights))
    mine, theirs = random.Random(seed), random.Random(seed)
    for _ in range(20):
        assert weighted_index(mine, cumulative) == theirs.choices(range(len(weights)), weights)[0]
    assert mine.getstate() == theirs.getstate()


def decisions(bots: list[CaptainBot | None], seed: int) -> list[tuple[int, str, object]]:
    """Every captain decision of one match (a random bot where there is None), with the state of
    the captain's generator after it."""
    rng = random.Random(seed)
    state = HORNSWOGGLE.initial({"garnets": [1, 1, 0, 1]}, {})
    seen: list[tuple[int, str, object]] = []
    while seats := HORNSWOGGLE.to_act(state):
        seat = rng.choice(seats)
        bot = bots[seat]
        if bot is None:
            legal = HORNSWOGGLE.legal_actions(state, seat)
            action = legal[rng.randrange(len(legal))]
        else:
            action = bot.choose(state, seat)
            seen.append((seat, repr(action), bot.rng.getstate()))
        state = HORNSWOGGLE.apply(state, seat, action)
    return seen


def test_the_captain_decides_as_with_the_reference_machinery() -> None:
    # Few playouts keep this quick; every path (openings, bids, flips, insurance) still comes up.
    for seed, line_up in ((1, "CCCC"), (2, "CRCR"), (3, "RCRC")):
        fast_bots = [
            CaptainBot(seed=seed * 4 + s, playouts=24) if c == "C" else None for s, c in enumerate(line_up)
        ]
        ref_bots: list[CaptainBot | None] = [
            ReferenceCaptain(seed=seed * 4 + s, playouts=24) if c == "C" else None
            for s, c in enumerate(line_up)
        ]
        mine, theirs = decisions(fast_bots, seed), decisions(ref_bots, seed)
        assert len(mine) > 50
        assert mine == theirs
