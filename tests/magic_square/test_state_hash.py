"""The Magic Square's state hash packs a public form built in canonical shape (issue 48): it must
be, byte for byte, the canonical encoding of the public form as it was, for every state seeded
matches reach and for any state hypothesis makes; and the public form (the full one: nothing is
hidden), now the same fields put in their own order, must be as it was, to the order of its keys
(``sim`` prints it)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import Plain, digest, encode, normalise
from p2pgenius.errors import EncodingError
from p2pgenius.games.base import Outcome, replace, state_hash
from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.state import PHASES, SquareEnding, SquareState, full, public_canonical


def full_before(state: SquareState) -> dict[str, Plain]:
    """The plain form as it was built before issue 48 gave it a canonical one (verbatim)."""
    return {
        "round": state.round,
        "turn": len(state.cells) + 1,
        "colours": list(state.colours),
        "grid": list(state.grid),
        "scores": list(state.scores),
        "round_wins": list(state.round_wins),
        "phase": state.phase,
        "opponent": state.opponent,
        "first_lead": state.first_lead,
        "lead": state.lead if state.phase in ("lead", "place") else None,
        "to_move": state.actor,
        "placers": list(state.placers),
        "challenge_window": state.window,
        "challenger": state.challenger,
        "swaps_left": state.swaps_left,
        "last_round": state.last_round,
        "outcome": None if state.outcome is None else state.outcome.to_plain(),
    }


def assert_same(state: SquareState) -> None:
    """The canonical-shaped form is the normalised plain form of before, keys in the same order;
    the state hash is the hash taken the old way; the plain form, the public one and a seat's view
    are what they were, key for key (``repr`` shows their order and every type), the last round
    the state's own (as it was)."""
    before = full_before(state)
    shaped = public_canonical(state)
    assert repr(shaped) == repr(normalise(before))
    assert encode(shaped) == encode(before)
    assert state_hash(MAGIC_SQUARE, state) == digest({"game": "magic-square", "state": before})
    for plain in (full(state), MAGIC_SQUARE.public(state)):
        assert repr(plain) == repr(before)
        assert plain["last_round"] is state.last_round
    assert repr(MAGIC_SQUARE.view(state, 1)) == repr({**before, "seat": 1, "events": list(state.events)})


def seeded_states(seed: int) -> Iterator[SquareState]:
    """Every state of one match of random legal actions (a challenge taken now and then)."""
    rng = random.Random(seed)
    state = MAGIC_SQUARE.initial({"opponent": rng.randrange(2)}, {})
    yield state
    while state.outcome is None and MAGIC_SQUARE.to_act(state):
        seat = rng.choice(MAGIC_SQUARE.to_act(state))
        state = MAGIC_SQUARE.apply(state, seat, rng.choice(MAGIC_SQUARE.legal_actions(state, seat)))
        yield state


def test_seeded_matches_hash_as_before() -> None:
    seen: set[str] = set()
    for seed in range(150):
        for state in seeded_states(seed):
            assert_same(state)
            seen |= {state.phase}
            seen |= {"last_round"} if state.last_round is not None else set()
    assert seen == {*PHASES, "last_round"}  # (every part of the form met)


SEATS = st.integers(min_value=0, max_value=1)
SMALL = st.integers(min_value=-3, max_value=300)
PLAIN = st.recursive(
    st.none() | st.booleans() | SMALL | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
LAST_ROUNDS = st.fixed_dictionaries(
    {
        "winner": st.none() | SEATS,
        "reason": st.sampled_from(["magic", "challenge_upheld", "timeout"]),
        "scores": st.lists(SMALL, min_size=2, max_size=2),
        "grid": st.lists(SMALL, min_size=16, max_size=16),
        "round": SMALL,
    }
) | st.dictionaries(st.text(max_size=6), PLAIN, max_size=5)
OUTCOMES = st.builds(
    Outcome,
    SEATS,
    st.just(SquareEnding.ROUND_WINS),
    details=st.fixed_dictionaries({"round_wins": st.lists(SMALL, min_size=2, max_size=2)}),
)
STATES = st.builds(
    SquareState,
    opponent=SEATS,
    phase=st.sampled_from(PHASES),
    colours=st.lists(st.none() | SEATS, min_size=16, max_size=16).map(tuple),
    round=SMALL,
    round_wins=st.tuples(SMALL, SMALL),
    first_lead=SEATS,
    colourer=SEATS,
    cells=st.permutations(range(16)).flatmap(
        lambda cells: st.integers(0, 16).map(lambda k: tuple(cells[:k]))
    ),
    placers=st.lists(SEATS, max_size=16).map(tuple),
    first_placer=SEATS,
    window=st.none() | SEATS,
    challenger=st.none() | SEATS,
    swaps_left=SMALL,
    last_round=st.none() | LAST_ROUNDS,
    outcome=st.none() | OUTCOMES,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(state=STATES)
def test_any_state_hashes_as_before(state: SquareState) -> None:
    assert_same(state)


@pytest.mark.parametrize("field", ["round", "swaps_left", "first_lead"])
def test_a_number_out_of_range_is_refused_in_the_same_words(field: str) -> None:
    state = replace(MAGIC_SQUARE.initial({}, {}), **{field: -(2**63) - 1})
    with pytest.raises(EncodingError) as before:
        digest({"game": "magic-square", "state": full_before(state)})
    with pytest.raises(EncodingError) as now:
        state_hash(MAGIC_SQUARE, state)
    assert str(now.value) == str(before.value)
