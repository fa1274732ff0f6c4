"""The duel's state hash packs a public form built in canonical shape (issue 48): it must be, byte
for byte, the canonical encoding of the public form, under the rules of today and of version 3,
for every state seeded duels reach and for any state hypothesis makes; and an engine of any game
that gives such a form words it wherever it words its public one (Hornswoggle's and the Magic
Square's forms have their own tests, beside theirs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import digest, encode, normalise
from p2pgenius.errors import IllegalActionError
from p2pgenius.games.base import Outcome, state_hash
from p2pgenius.games.catalog import names
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import Gestures
from p2pgenius.games.duel.engine import DUEL_RULES_3, Duel
from p2pgenius.games.duel.state import DuelEnding, DuelState, Monster, Wizard, public_canonical
from p2pgenius.games.hornswoggle.engine import Hornswoggle
from p2pgenius.games.magic_square.engine import MagicSquare
from p2pgenius.games.registry import get_game
from tests.duel.test_same_duels import Player

ENGINES = (DUEL, DUEL_RULES_3)


def old_hash(game: Any, state: DuelState) -> bytes:
    """The state hash as it was taken before: the public form, normalised and encoded."""
    return digest({"game": game.name, "state": game.public(state)})


def assert_same(state: DuelState) -> None:
    """The canonical-shaped form is the normalised public form, keys in the same order, and
    both engines' hashes of it are the hashes taken the old way."""
    shaped = public_canonical(state)
    assert encode(shaped) == encode(DUEL.public(state))
    assert repr(normalise(shaped)) == repr(shaped)  # (already sorted: normalise changes nothing)
    for game in ENGINES:
        assert state_hash(game, state) == old_hash(game, state)


def seeded_states(seed: int) -> Iterator[DuelState]:
    """Every state of one duel between two seeded players (any refused choice made bare)."""
    players = [Player(seed * 2 + seat) for seat in (0, 1)]
    state = DUEL.initial({}, {})
    while state.outcome is None and state.turn <= 60:
        for seat in DUEL.to_act(state):
            bare, plain = players[seat].choose(state, seat)
            try:
                state = DUEL.apply(state, seat, DUEL.parse_action(plain))
            except IllegalActionError:
                state = DUEL.apply(state, seat, bare)
            yield state


def test_seeded_duels_hash_as_before() -> None:
    seen: set[str] = set()
    for seed in range(150):
        for state in seeded_states(seed):
            assert_same(state)
            seen |= {"monsters"} if state.monsters else set()
            seen |= {"choices"} if state.paralysis_choices else set()
            seen |= {"chosen"} if state.chosen else set()
            seen |= {"blind"} if any(w.blind_at(state.turn) for w in state.wizards) else set()
            seen |= {"outcome"} if state.outcome is not None else set()
    assert seen == {"monsters", "choices", "chosen", "blind", "outcome"}  # (every part of the form met)


HANDS = st.sampled_from(["left", "right"])
HISTORY = st.lists(st.sampled_from(list("CDPSW>-")), max_size=12).map(tuple)
SMALL = st.integers(min_value=-3, max_value=300)

WIZARDS = st.builds(
    Wizard,
    hp=SMALL,
    max_hp=SMALL,
    left=HISTORY,
    right=HISTORY,
    barrier=SMALL,
    paralysed=st.none() | HANDS,
    feared=st.booleans(),
    blind_from=SMALL,
    blind_until=SMALL,
    blind_mark=SMALL,
    resist_heat=st.booleans(),
    clapped_alone=st.none() | HANDS,
    last=st.none() | st.just(Gestures("-", "-")),
)
MONSTERS = st.builds(
    Monster,
    number=st.integers(min_value=1, max_value=10**6),
    kind=st.sampled_from(["goblin", "ogre", "fire_elemental"]),
    controller=st.integers(min_value=0, max_value=1),
    hp=SMALL,
    resist_heat=st.booleans(),
    paralysed_turn=SMALL,
)
SEATS = st.integers(min_value=0, max_value=1)
OUTCOMES = st.none() | st.builds(Outcome, st.none() | SEATS, st.sampled_from(list(DuelEnding)))
STATES = st.builds(
    DuelState,
    turn=st.integers(min_value=1, max_value=300),
    wizards=st.tuples(WIZARDS, WIZARDS),
    monsters=st.lists(MONSTERS, max_size=4).map(tuple),
    next_monster=SMALL,
    paralysis_choices=st.lists(st.tuples(SEATS, SEATS), max_size=2).map(tuple),
    chosen=st.lists(st.tuples(SEATS, HANDS), max_size=2).map(tuple),
    outcome=OUTCOMES,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(state=STATES)
def test_any_state_hashes_as_before(state: DuelState) -> None:
    assert_same(state)


def engine_classes(cls: type[object]) -> Iterator[type[object]]:
    """``cls`` and every class made from it, however deep."""
    yield cls
    for subclass in cls.__subclasses__():
        yield from engine_classes(subclass)


def test_an_engine_that_words_its_public_form_words_its_canonical_one() -> None:
    # (a subclass that changed public alone would hash its parent's form)
    games = [get_game(name) for name in names()]
    shaped = [type(game) for game in games if hasattr(game, "public_canonical")]
    assert {Duel, Hornswoggle, MagicSquare} <= set(shaped)
    for cls in (each for root in shaped for each in engine_classes(root)):
        assert ("public" in vars(cls)) == ("public_canonical" in vars(cls)), cls
