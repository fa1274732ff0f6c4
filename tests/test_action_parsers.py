"""Every game's action parser is total: whatever msgpack value a peer sends, in any field of any
action of any game in the table (the tests' ``rps`` included), the answer is an action or an
IllegalActionError in one short, printable line; never another error. So are the spec's hooks
that the session asks about a peer's action before, or instead of, parsing it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import IllegalActionError, shown
from p2pgenius.games import catalog
from p2pgenius.games.registry import get_spec

from .any_action import LONG, hostile_actions, samples, trees
from .games.rps import ENTRY

GAMES = (*catalog.names(), ENTRY.name)
"""The table's games, and the test's own (in the table while this module runs)."""
LONGEST_MESSAGE = 200
"""Characters: a refusal says which field and what came, briefly."""


pytestmark = pytest.mark.usefixtures("rps_in_the_table")


def refusal(game: str, action: Plain) -> str | None:
    """Why ``game``'s parser refuses ``action`` (None: it parses), checking that a refusal is
    one clear line and that what parses has one stable normal form."""
    engine = get_spec(game).engine
    try:
        parsed = engine.parse_action(action)
    except IllegalActionError as exc:
        reason = str(exc)
        assert reason and "\n" not in reason and reason.isprintable(), reason
        assert len(reason) <= LONGEST_MESSAGE, reason
        return reason
    plain = parsed.to_plain()
    assert encode(engine.parse_action(plain).to_plain()) == encode(plain)
    return None


@pytest.mark.parametrize(
    ("game", "action", "said"),
    [
        # The crashes of the issue: a list is not hashable, so a table lookup raised TypeError.
        ("magic-square", {"type": []}, "unknown action type []"),
        ("hornswoggle", {"type": []}, "unknown action type []"),
        ("magic-square", {"type": {"a": 1}}, "unknown action type {'a': 1}"),
        ("hornswoggle", {"type": {}}, "unknown action type {}"),
        (
            "duel",
            {"type": "gestures", "left": "-", "right": "-", "spells": {"left": []}},
            "left hand: unknown spell []",
        ),
        (
            "duel",
            {"type": "gestures", "left": "-", "right": "-", "spells": {"right": {"x": [1]}}},
            "right hand: unknown spell {'x': [1]}",
        ),
        ("duel", {"type": ["gestures"]}, "unknown action type ['gestures'] for the duel"),
        # A boolean is no pile number, though True == 1.
        ("rps", {"type": "flip", "pile": True}, "flip names pile 0 or 1"),
        # A long value is quoted cut short.
        (
            "magic-square",
            {"type": "place", "cell": "9" * 5000},
            "cell must be a whole number 0..15, got '999",
        ),
        ("duel", {"type": "gestures", "left": "-", "right": "-", "x" * 5000: 1}, "unknown field 'xxx"),
    ],
)
def test_the_values_that_crashed_a_parser_are_refused_saying_what_came(
    game: str, action: Plain, said: str
) -> None:
    reason = refusal(game, action)
    assert reason is not None and said in reason


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=200, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_value_in_any_field_is_an_action_or_one_clear_refusal(game: str, data: st.DataObject) -> None:
    refusal(game, data.draw(hostile_actions(game), label="action"))


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data())
def test_the_hooks_asked_of_a_peers_action_answer_any_value(game: str, data: st.DataObject) -> None:
    spec = get_spec(game)
    action = data.draw(hostile_actions(game) | trees(), label="action")
    assert isinstance(spec.hidden(action), bool)
    assert isinstance(spec.unopened(action), bool)
    assert isinstance(spec.lays_on_pile(action), bool)
    pile = spec.flipped_pile(action)
    assert pile is None or type(pile) is int
    # An opening of a hidden card, judged against each real action it could have been laid as.
    for applied in samples(game):
        opens = spec.opens(applied, action)
        assert isinstance(opens, bool)
        assert not opens or refusal(game, action) is None
    if isinstance(action, dict):
        assert isinstance(spec.claim_shaped(action), bool)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(value=trees() | LONG)
def test_a_quoted_value_is_one_short_printable_line(value: Plain) -> None:
    quoted = shown(value)
    assert quoted.isprintable() and "\n" not in quoted
    assert 0 < len(quoted) <= 60
