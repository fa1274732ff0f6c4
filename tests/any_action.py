"""Any value a peer may put in an action, as hypothesis strategies: what the tests proving every
game's action parser total draw from (tests/test_action_parsers.py through the engines and the
spec's hooks, tests/protocol/test_hostile_actions.py through real sessions and ``verify``).

A hostile action starts as a real one of its game: every type and field its engine plays (found
by random legal play, so a game added to the table is covered with no line changed) and the
nested fields random play never shows (:data:`NESTED`). Then one to three of its parts are
replaced by any msgpack tree (the whole action included), given a new field, or lost, at any
depth: a field, a map inside a field, an element of a list.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from hypothesis import strategies as st

from p2pgenius.canonical import Plain
from p2pgenius.games.registry import get_spec

Path = tuple[str | int, ...]
"""Where a part of a plain value is: map keys and list indices, from the root."""

NESTED: Final[Mapping[str, tuple[Plain, ...]]] = {
    "duel": (
        {
            "type": "gestures",
            "left": "S",
            "right": "D",
            "targets": {"left": "p1", "right": "m1"},
            "spells": {"left": "shield", "right": "missile"},
            "monsters": {"m1": "p0", "p1.left": "nobody"},
        },
    ),
    "hornswoggle": ({"type": "flip", "pile": 1, "card": "skull"}, {"type": "place", "card": None}),
    "rps": ({"type": "flip", "pile": 1, "card": "rock"}, {"type": "place", "card": None}),
}
"""Real actions with the nested fields that random legal play leaves out (a duel's targets,
spell choices and monster orders; a flip with the card its owner opened; an unseen card)."""

INT_RANGE: Final = (-(2**63), 2**64 - 1)
"""The integers msgpack can carry."""

LONG: Final = st.text(min_size=300, max_size=600) | st.binary(min_size=300, max_size=600)
"""Values too long to be quoted whole in one line of a message."""


@functools.cache
def samples(game: str) -> tuple[Plain, ...]:
    """One real action of ``game`` for each type and set of fields its engine played in a few
    random matches, then the timeout and :data:`NESTED` (the game must be in the table)."""
    engine = get_spec(game).engine
    rng = random.Random(f"any action {game}")
    found: dict[tuple[str, ...], Plain] = {}
    for _ in range(3):
        state = engine.initial({}, {})
        for _ in range(400):
            if engine.outcome(state) is not None:
                break
            seat = rng.choice(engine.to_act(state))
            action = rng.choice(list(engine.legal_actions(state, seat)))
            plain = action.to_plain()
            found.setdefault((str(plain["type"]), *sorted(plain)), plain)
            state = engine.apply(state, seat, action)
    return (*found.values(), {"type": "timeout"}, *NESTED.get(game, ()))


def parts(value: Plain, at: Path = ()) -> Iterator[Path]:
    """Every part of ``value``: itself, then each field, element and so on, depth first."""
    yield at
    if isinstance(value, dict):
        for key in value:
            yield from parts(value[key], (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from parts(item, (*at, index))


def leaves(value: Plain) -> Iterator[Plain]:
    """Every map key and every value that is not a map or a list, in ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    else:
        yield value


def changed(value: Plain, at: Path, change: Any) -> Plain:
    """``value`` with the part at ``at`` given to ``change`` (the part -> the new part), copied
    along the way (``value`` itself is left as it was)."""
    if not at:
        return change(value)
    head, rest = at[0], at[1:]
    if isinstance(value, dict):
        return {**value, str(head): changed(value[str(head)], rest, change)}
    assert isinstance(value, list) and isinstance(head, int)
    return [changed(item, rest, change) if index == head else item for index, item in enumerate(value)]


def trees(tokens: Sequence[Plain] = ()) -> st.SearchStrategy[Plain]:
    """Any msgpack-representable tree: None, booleans, integers of the whole msgpack range, text,
    bytes, lists and maps with text keys, nested; ``tokens`` (a game's own words and numbers)
    mixed in, so that a tree often gets past a parser's first check."""
    words = st.sampled_from(tokens) if tokens else st.nothing()
    leaf = (
        st.none()
        | st.booleans()
        | st.integers(*INT_RANGE)
        | st.text(max_size=12)
        | st.binary(max_size=12)
        | words
        | LONG
    )
    keys = st.text(max_size=10) | st.sampled_from([t for t in tokens if isinstance(t, str)] or [""])
    return st.recursive(
        leaf,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=12,
    )


@functools.cache
def tokens_of(game: str) -> tuple[Plain, ...]:
    """The words and numbers of ``game``'s real actions, and the integers at the edges."""
    found = {repr(leaf): leaf for sample in samples(game) for leaf in leaves(sample)}
    edges: tuple[Plain, ...] = (-1, 0, 1, 2, 3, 4, 15, 16, 17, *INT_RANGE)
    return (*found.values(), *edges)


@functools.cache
def fields_of(game: str) -> tuple[tuple[Plain, Path], ...]:
    """Every part of every real action of ``game`` but the actions themselves: (action, where)."""
    return tuple((sample, at) for sample in samples(game) for at in list(parts(sample))[1:])


@st.composite
def _mutation(draw: st.DrawFn, action: Plain, at: Path, game: str) -> Plain:
    """``action`` with its part at ``at`` replaced, given a new field (a map) or removed (a
    field). The new value is one of the game's own words or numbers half the time (an action
    that still parses, but is odd, goes deeper into the engine), any tree otherwise."""
    tokens = tokens_of(game)
    how = draw(st.sampled_from(["replace", "add", "remove"]))
    values = st.sampled_from(tokens) | trees(tokens)
    if how == "add":
        key = draw(st.sampled_from([t for t in tokens if isinstance(t, str)]) | st.text(max_size=10))
        new = draw(values)
        return changed(action, at, lambda part: {**part, key: new} if isinstance(part, dict) else new)
    if how == "remove" and at:
        *parent, last = at
        return changed(
            action,
            tuple(parent),
            lambda part: {k: v for k, v in part.items() if k != last} if isinstance(part, dict) else part,
        )
    new = draw(values)
    return changed(action, at, lambda part: new)


@st.composite
def hostile_actions(draw: st.DrawFn, game: str) -> Plain:
    """A real action of ``game`` with one to three of its parts changed (see the module). The
    first is drawn from every field of every real action alike (so an action of many fields,
    nested, is changed the most often); each further one anywhere in the action so far, the
    whole action one time in twenty."""
    action, at = draw(st.sampled_from(fields_of(game)))
    action = draw(_mutation(action, at, game))
    for _ in range(draw(st.integers(0, 2))):
        inner = list(parts(action))[1:]
        whole = not inner or draw(st.integers(0, 19)) == 0
        action = draw(_mutation(action, () if whole else draw(st.sampled_from(inner)), game))
    return action
