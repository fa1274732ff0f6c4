"""The games' table: what it holds, what it loads when, and the games it refuses at the door."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from p2pgenius.errors import LocalMisuseError
from p2pgenius.games import catalog
from p2pgenius.games.spec import BlindnessRules, GameSpec, TimeOption
from tests.games.rps import ENGINE, SPEC, FaceDown, RpsCards, RpsSpec
from tests.patience import HANG_S


def test_the_table_names_every_game_and_loads_nothing_until_asked() -> None:
    code = (
        "import sys; from p2pgenius.games import catalog\n"
        "print(catalog.names())\n"
        "print(sorted(m for m in sys.modules if m.startswith('p2pgenius.games.') and m.count('.') > 2))\n"
        "catalog.find('duel').load_spec()\n"
        "print('p2pgenius.games.duel.engine' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=HANG_S
    )
    names, loaded, after = done.stdout.splitlines()
    assert names == "('duel', 'magic-square', 'hornswoggle')"
    assert loaded == "[]"  # (no engine, spec, bot or front end imported to name the games)
    assert after == "True"


def test_an_unknown_game_is_one_clear_error() -> None:
    with pytest.raises(LocalMisuseError, match="unknown game 'chess' \\(choose one of: duel, magic-square"):
        catalog.find("chess")


def entry(spec: object, name: str = "rps") -> catalog.Entry:
    return catalog.Entry(name, "test", "a test's game", spec=spec)  # type: ignore[arg-type]


class NoTimeout(FaceDown):
    def parse_action(self, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("type") == "timeout":
            from p2pgenius.errors import IllegalActionError

            raise IllegalActionError("no such action")
        return super().parse_action(data)


class NotBlindness:
    def blind(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        return False


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (object, "is not a GameSpec"),
        (lambda: RpsSpec(NoTimeout()), "refuses the timeout every engine takes"),
        (
            lambda: type("Half", (RpsSpec,), {"blindness": NotBlindness()})(ENGINE),
            "blindness must be a BlindnessRules",
        ),
        (lambda: type("Pileless", (RpsSpec,), {"cards": None})(ENGINE), "give it cards too"),
        (lambda: type("Clockless", (RpsSpec,), {"time_options": ()})(ENGINE), "at least one time option"),
        (lambda: type("Endless", (RpsSpec,), {"endings": None})(ENGINE), "names how its matches end"),
    ],
)
def test_a_spec_that_is_not_a_whole_game_is_refused_when_it_enters_the_table(make: Any, why: str) -> None:
    with pytest.raises(TypeError, match=why):
        catalog.add(entry(make()))
    assert "rps" not in catalog.names()


def test_an_engine_without_a_method_of_the_game_protocol_is_refused() -> None:
    class Partial:
        name = "rps"

        def parse_action(self, data: Any) -> Any:
            return data

    with pytest.raises(TypeError, match="lacks initial, seats, to_act"):
        catalog.add(entry(RpsSpec(Partial())))  # type: ignore[arg-type]


def test_a_whole_game_enters_and_leaves_and_a_name_is_taken_once() -> None:
    catalog.add(entry(SPEC))
    try:
        assert catalog.names()[-1] == "rps" and catalog.find("rps").load_spec() is SPEC
        with pytest.raises(LocalMisuseError, match="a name of its own"):
            catalog.add(entry(SPEC))
    finally:
        catalog.remove("rps")
    assert "rps" not in catalog.names()


def test_the_optional_parts_are_kinds_that_say_what_they_need() -> None:
    with pytest.raises(TypeError):
        BlindnessRules()  # type: ignore[abstract]
    assert isinstance(SPEC.cards, RpsCards) and SPEC.blindness is None and SPEC.round_clock is None
    plain = GameSpec(ENGINE)
    plain.time_options = (TimeOption("s", 1, "x"),)
    # Without the parts, the questions they answer have the plain game's answers.
    assert (
        not plain.hidden({"type": "place", "card": "rock"}) and plain.flipped_pile({"type": "flip"}) is None
    )
    assert plain.warnings == () and not plain.audited and not plain.blind(None, 0)
