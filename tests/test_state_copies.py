"""The engines' copies of their states (``games.base.replace``) are ``dataclasses.replace``'s:
every field copied, the changed ones changed, for every dataclass the games define; a name that
is no field is refused as ``dataclasses.replace`` refuses it. What ``games.base.maker`` builds is
what the class's ``__init__`` builds."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any

import pytest

import p2pgenius.games
from p2pgenius.games.base import Outcome, _copier, maker, replace
from p2pgenius.games.duel.state import DuelState, Monster, Wizard
from p2pgenius.games.hornswoggle.state import HornState, PileCard, Pirate
from p2pgenius.games.magic_square.state import SquareEnding, SquareState


def the_games_dataclasses() -> list[type]:
    """Every dataclass a module of p2pgenius.games defines."""
    found: dict[str, type] = {}
    for module in pkgutil.walk_packages(p2pgenius.games.__path__, "p2pgenius.games."):
        for value in vars(importlib.import_module(module.name)).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.name
                and dataclasses.is_dataclass(value)
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


def filled(cls: type) -> Any:
    """An instance of ``cls`` whose every field holds an object of its own (no ``__init__`` run)."""
    state: Any = object.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(state, f.name, object())
    return state


CLASSES = [cls for cls in the_games_dataclasses() if _copier(cls) is not None]


def test_the_states_take_the_fast_copy() -> None:
    assert {DuelState, HornState, Pirate, PileCard, SquareState} <= set(CLASSES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__qualname__)
def test_every_field_is_copied_and_each_change_made(cls: type) -> None:
    state = filled(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    copy = replace(state)
    assert copy is not state and type(copy) is cls
    assert all(getattr(copy, name) is getattr(state, name) for name in names)
    for changed in names:
        new = object()
        copy = replace(state, **{changed: new})
        expected = dataclasses.replace(state, **{changed: new})
        for name in names:
            assert getattr(copy, name) is getattr(expected, name), (changed, name)
        assert getattr(copy, changed) is new


def test_a_name_that_is_no_field_is_refused_as_dataclasses_refuses_it() -> None:
    state = SquareState(opponent=0, phase="colouring", colours=(None,) * 16)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        replace(state, nope=1)
    with pytest.raises(TypeError):
        dataclasses.replace(state, nope=1)  # type: ignore[call-arg]


def test_a_real_state_copies_equal() -> None:
    state = SquareState(opponent=0, phase="colouring", colours=(None,) * 16)
    assert replace(state, window=1, events=({"type": "x"},)) == dataclasses.replace(
        state, window=1, events=({"type": "x"},)
    )


def test_a_class_with_post_init_goes_through_its_init() -> None:
    outcome = Outcome(0, SquareEnding.ROUND_WINS, details={"round_wins": [2, 0]})
    assert _copier(Outcome) is None
    assert replace(outcome, winner=1) == dataclasses.replace(outcome, winner=1)


MADE = [cls for cls in the_games_dataclasses() if maker(cls) is not cls]


def test_the_duels_states_take_the_fast_build() -> None:
    assert {DuelState, Wizard, Monster} <= set(MADE)
    assert maker(Outcome) is Outcome  # (a __post_init__ checks it: its __init__ builds it)


@pytest.mark.parametrize("cls", MADE, ids=lambda cls: cls.__qualname__)
def test_a_build_is_the_inits_by_name_in_order_and_with_defaults(cls: type) -> None:
    fields = dataclasses.fields(cls)
    values = {f.name: object() for f in fields}
    build = maker(cls)
    for made, expected in (
        (build(**values), cls(**values)),
        (build(*values.values()), cls(*values.values())),
    ):
        assert type(made) is cls
        assert all(getattr(made, f.name) is getattr(expected, f.name) is values[f.name] for f in fields)
    required = {f.name: values[f.name] for f in fields if f.default is dataclasses.MISSING}
    made, expected = build(**required), cls(**required)
    assert all(getattr(made, f.name) is getattr(expected, f.name) for f in fields)
    with pytest.raises(TypeError):
        build(**values, nope=1)
    if required:
        with pytest.raises(TypeError):
            build()


@dataclasses.dataclass(frozen=True, slots=True)
class _KeywordOnly:
    first: int
    second: int = dataclasses.field(default=0, kw_only=True)


@dataclasses.dataclass(frozen=True, slots=True)
class _WithInitVar:
    first: int
    extra: dataclasses.InitVar[int]


@dataclasses.dataclass(frozen=True, slots=True)
class _Plain:
    first: int


class _OwnInit(_Plain):
    __slots__ = ()

    def __init__(self, first: int) -> None:
        super().__init__(first * 2)


@dataclasses.dataclass(frozen=True, slots=True)
class _NamedLikeTheCode:
    maker_new: int
    new: int


@pytest.mark.parametrize("cls", [_KeywordOnly, _WithInitVar, _OwnInit, _NamedLikeTheCode])
def test_a_class_the_build_cannot_copy_exactly_is_built_by_its_init(cls: type) -> None:
    """Review of issue 48's fast build: keyword-only fields, an ``InitVar``, an ``__init__`` of
    the class's own, or a field named as the made code's own names are left to ``__init__``."""
    assert maker(cls) is cls


def test_a_field_named_as_a_local_of_the_build_is_set_as_given() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Named:
        new: int
        make: int
        cls: int
        build: int

    made = maker(Named)
    assert made is not Named
    assert made(1, 2, 3, 4) == Named(1, 2, 3, 4)
    assert made(new=5, make=6, cls=7, build=8) == Named(5, 6, 7, 8)
