"""Issue 48's second round of cuts in the duel engine give what the engine gave before: a bare
submission (two gestures alone), which ``validate`` now lets through without working out its
plan, is one the plan never refuses, whatever the wizard (the digests of
tests/duel/test_same_duels.py pin the rest)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.errors import IllegalActionError
from p2pgenius.games.duel.actions import BARE, Gestures
from p2pgenius.games.duel.engine import validate
from p2pgenius.games.duel.resolve import _planned, plan
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
