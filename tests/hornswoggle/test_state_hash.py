"""Hornswoggle's state hash packs a public form built in canonical shape (issue 48): it must be,
byte for byte, the canonical encoding of the public form as it was, for every state seeded
matches reach (with full knowledge and from each team's machine) and for any state hypothesis
makes; and the public form, now the same fields put in their own order, must be as it was, to the
order of its keys (``sim`` prints it)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import Plain, digest, encode, normalise
from p2pgenius.errors import EncodingError, IllegalActionError
from p2pgenius.games.base import Outcome, replace, state_hash
from p2pgenius.games.hornswoggle.actions import CARDS
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import (
    HIDDEN,
    HornEnding,
    HornState,
    PileCard,
    Pirate,
    full,
    perspective,
    public,
    public_canonical,
    view,
)
from tests.hornswoggle.test_engine_identity import anything, setup_of


def public_before(state: HornState) -> dict[str, Plain]:
    """The public form as it was built before issue 48 gave it a canonical one (verbatim)."""
    return {
        "round": state.round,
        "phase": state.phase,
        "opponent": state.opponent,
        "first": state.first,
        "current": state.current,
        "hand_counts": [p.count for p in state.pirates],
        "piles": [
            [(HIDDEN if c.card is None or not c.flipped else c.card) for c in p.pile] for p in state.pirates
        ],
        "flipped": [[c.flipped for c in p.pile] for p in state.pirates],
        "discard_counts": [len(p.discarded) for p in state.pirates],
        "garnets": [p.garnets for p in state.pirates],
        "out": [p.out for p in state.pirates],
        "bid": state.bid,
        "bidder": state.bidder,
        "passed": list(state.passed),
        "challenger": state.challenger,
        "insured": state.insured,
        "doubloons_flipped": state.flips,
        "owing": list(state.owing),
        "outcome": None if state.outcome is None else state.outcome.to_plain(),
    }


def assert_same(state: HornState) -> None:
    """The canonical-shaped form is the normalised public form of before, keys in the same
    order; the state hash is the hash taken the old way; the public form, the full one and a
    seat's view are what they were, key for key (``repr`` shows their order and every type)."""
    before = public_before(state)
    shaped = public_canonical(state)
    assert repr(shaped) == repr(normalise(before))
    assert encode(shaped) == encode(before)
    assert state_hash(HORNSWOGGLE, state) == digest({"game": "hornswoggle", "state": before})
    assert repr(public(state)) == repr(before)
    assert list(full(state)) == list(before) + ["hands", "discards"]
    assert list(view(state, 1))[: len(before)] == list(before)


def seeded_states(seed: int) -> Iterator[HornState]:
    """Every state of one random match, legal actions mostly and any action now and then (a
    refused one skipped), with full knowledge and as each team's machine knows it."""
    rng = random.Random(seed)
    state = HORNSWOGGLE.initial(setup_of(rng), {})
    while True:
        yield from (state, perspective(state, (0, 2)), perspective(state, (1, 3)))
        if state.outcome is not None or not HORNSWOGGLE.to_act(state):
            return
        seat = rng.choice(HORNSWOGGLE.to_act(state))
        legal = HORNSWOGGLE.legal_actions(state, seat)
        action = rng.choice(legal) if legal and rng.random() < 0.9 else anything(rng)
        try:
            state = HORNSWOGGLE.apply(state, seat, action)
        except IllegalActionError:
            continue


def test_seeded_matches_hash_as_before() -> None:
    seen: set[str] = set()
    for seed in range(120):
        for state in seeded_states(seed):
            assert_same(state)
            seen |= {state.phase}
            seen |= {"flipped"} if any(c.flipped for p in state.pirates for c in p.pile) else set()
            seen |= {"unknown"} if any(c.card is None for p in state.pirates for c in p.pile) else set()
            seen |= {"owing"} if state.owing else set()
            seen |= {"out"} if any(p.out for p in state.pirates) else set()
    phases = {"order", "opening", "turns", "bidding", "flipping", "discarding", "over"}
    assert seen == phases | {"flipped", "unknown", "owing", "out"}  # (every part of the form met)


SEATS = st.integers(min_value=0, max_value=3)
SMALL = st.integers(min_value=-3, max_value=300)
CARD = st.none() | st.sampled_from(CARDS)
PIRATES = st.builds(
    Pirate,
    hand=st.none() | st.tuples(SMALL, SMALL),
    count=SMALL,
    pile=st.lists(st.builds(PileCard, CARD, st.booleans()), max_size=5).map(tuple),
    discarded=st.lists(CARD, max_size=4).map(tuple),
    garnets=SMALL,
    out=st.booleans(),
)
FLAGS = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans())


@st.composite
def outcomes(draw: st.DrawFn) -> Outcome:
    """An outcome as the engine words one: a team, its Death Match player, the garnets moved."""
    first = draw(SEATS)
    team = draw(st.sampled_from([(first % 2, first % 2 + 2), (first % 2 + 2, first % 2)]))
    transfer = {"from": draw(SEATS), "to": draw(SEATS), "amount": draw(SMALL)}
    return Outcome(
        first, draw(st.sampled_from(list(HornEnding))), team=team, details={"garnet_transfer": transfer}
    )


STATES = st.builds(
    HornState,
    opponent=SEATS,
    pirates=st.tuples(PIRATES, PIRATES, PIRATES, PIRATES),
    holds=FLAGS,
    phase=st.sampled_from(["order", "opening", "turns", "bidding", "flipping", "discarding", "over"]),
    round=SMALL,
    first=SEATS,
    current=SEATS,
    bid=SMALL,
    bidder=st.none() | SEATS,
    passed=FLAGS,
    challenger=st.none() | SEATS,
    insured=st.booleans(),
    flips=SMALL,
    owing=st.lists(SEATS, max_size=4).map(tuple),
    outcome=st.none() | outcomes(),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(state=STATES)
def test_any_state_hashes_as_before(state: HornState) -> None:
    assert_same(state)


@pytest.mark.parametrize("field", ["bid", "flips", "round"])
def test_a_number_out_of_range_is_refused_in_the_same_words(field: str) -> None:
    state = replace(HORNSWOGGLE.initial({}, {}), **{field: 2**64})
    with pytest.raises(EncodingError) as before:
        digest({"game": "hornswoggle", "state": public_before(state)})
    with pytest.raises(EncodingError) as now:
        state_hash(HORNSWOGGLE, state)
    assert str(now.value) == str(before.value)
