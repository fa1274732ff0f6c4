"""Issue 48's second round of cuts in the duel engine give what the engine gave before: a bare
submission (two gestures alone), which ``validate`` now lets through without working out its
plan, is one the plan never refuses, whatever the wizard; a tail of gestures completes the spells
it completed when every suffix was looked up (the digests of tests/duel/test_same_duels.py pin
the rest)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.errors import IllegalActionError
from p2pgenius.games.duel.actions import BARE, Gestures
from p2pgenius.games.duel.engine import validate
from p2pgenius.games.duel.resolve import _planned, plan
from p2pgenius.games.duel.spells import GESTURES, SPELLS, Completion, _tail_completions
from p2pgenius.games.duel.state import DuelState, Wizard
from tests.duel.test_state_hash import WIZARDS


@settings(max_examples=300, deadline=None, derandomize=True)
@given(wizard=WIZARDS, bare=st.sampled_from(sorted(BARE.values(), key=lambda g: (g.left, g.right))))
def test_a_bare_submission_is_never_refused(wizard: Wizard, bare: Gestures) -> None:
    _planned.cache_clear()
    intent, refusal = _planned(wizard, bare)
    assert refusal is None
    assert plan(wizard, bare, strict=True) == intent
    state = DuelState(turn=1, wizards=(wizard, wizard))
    for seat in (0, 1):
        for own_summons in (False, True):
            validate(state, seat, bare, own_summons=own_summons)  # (raises nothing)


def test_a_named_spell_is_still_checked() -> None:
    wizard = Wizard(15, 15)
    named = Gestures("P", "P", spells=(("left", "fireball"),))
    assert _planned(wizard, named)[1] is not None
    with pytest.raises(IllegalActionError, match="fireball does not complete"):
        validate(DuelState(turn=1, wizards=(wizard, wizard)), 0, named)


CAST_BY = {tuple(sequence): spell.name for spell in SPELLS for sequence in spell.sequences}
ORDER = {spell.name: index for index, spell in enumerate(SPELLS)}


def completions_before(tail: tuple[str, ...]) -> tuple[Completion, ...]:
    """A tail's completions as they were found before: each suffix looked up, every length."""
    found: dict[str, int] = {}
    for n in sorted({len(sequence) for sequence in CAST_BY}):
        name = CAST_BY.get(tail[len(tail) - n :]) if n <= len(tail) else None
        if name is not None:
            found[name] = max(found.get(name, 0), n)
    ordered = sorted(found.items(), key=lambda item: (-item[1], ORDER[item[0]]))
    return tuple(Completion(name, length) for name, length in ordered)


def test_every_short_tail_completes_as_before() -> None:
    tails = [tail for n in range(6) for tail in itertools.product(GESTURES, repeat=n)]
    completing = 0
    for tail in tails:
        found = _tail_completions.__wrapped__(tail)
        assert found == completions_before(tail), tail
        completing += bool(found)
    assert completing > 1000  # (most complete nothing; these meet every spell of five or fewer)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(tail=st.lists(st.sampled_from(GESTURES), min_size=6, max_size=8).map(tuple))
def test_any_long_tail_completes_as_before(tail: tuple[str, ...]) -> None:
    assert _tail_completions.__wrapped__(tail) == completions_before(tail)


def test_the_longest_spells_complete() -> None:
    for spell in SPELLS:
        for sequence in spell.sequences:
            found = _tail_completions.__wrapped__(("-", *sequence))
            assert Completion(spell.name, len(sequence)) in found
