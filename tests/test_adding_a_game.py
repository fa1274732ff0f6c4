"""docs/architecture.md, "Adding a game", stays true: its list of the files a game is, read out of
the page, is every game's (each file it names exists for every game of the table, and every part an
entry names lives in them), and the plugin game's list and entry point, as the page writes them,
install the test-only game rps (tests/games/), which is those files and no other."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.games import catalog
from p2pgenius.games.spec import Finding
from p2pgenius.ui.frontends import FRONT_ENDS
from tests.games.rps import ENTRY, SPEC
from tests.test_plugins import installed

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
BUILT_IN = tuple(catalog.GAMES)
"""The table's own games (the test-only rps is a plugin here, below)."""


def listed(marker: str) -> list[list[str]]:
    """The page's list between ``<!-- MARKER: files -->`` and ``<!-- MARKER: end -->``: for each
    item, the paths it names before its first colon."""
    body = PAGE.partition(f"<!-- {marker}: files -->\n")[2].partition(f"<!-- {marker}: end -->")[0]
    items = re.split(r"^\d+\. ", body, flags=re.MULTILINE)[1:]
    assert items, f"docs/architecture.md has no list marked {marker!r}"
    return [re.findall(r"`([^`]+)`", item.partition(": ")[0]) for item in items]


def package_of(entry: catalog.Entry) -> str:
    assert isinstance(entry.spec, str)
    return entry.spec.split(":")[0].split(".")[2]


def filled(path: str, entry: catalog.Entry) -> str:
    return path.replace("<name>", entry.name).replace("<package>", package_of(entry))


def module_file(where: str) -> str:
    """The file of a ``"module:attribute"`` path, from the repository's root."""
    spec = importlib.util.find_spec(where.partition(":")[0])
    assert spec is not None and spec.origin is not None, where
    return str(Path(spec.origin).relative_to(ROOT))


def test_the_page_lists_the_files_of_a_game_and_of_a_plugin_game() -> None:
    files = listed("adding a game")
    assert ["p2pgenius/games/<package>/"] in files and ["p2pgenius/games/catalog.py"] in files
    assert all(paths for paths in files), "each item names its files before its colon"
    assert [paths[0].rpartition(".")[2] for paths in listed("adding a plugin game")] == ["py", "md", "toml"]


@pytest.mark.parametrize("entry", BUILT_IN, ids=[entry.name for entry in BUILT_IN])
def test_every_file_the_list_names_is_there_for_every_game(entry: catalog.Entry) -> None:
    assert package_of(entry) == entry.name.replace("-", "_"), "its package is its name"
    for paths in listed("adding a game"):
        for path in paths:
            at = ROOT / filled(path, entry)
            assert at.is_dir() if path.endswith("/") else at.is_file(), f"{entry.name}: no {at}"


@pytest.mark.parametrize("entry", BUILT_IN, ids=[entry.name for entry in BUILT_IN])
def test_every_part_an_entry_names_lives_in_the_listed_files(entry: catalog.Entry) -> None:
    paths = [filled(path, entry) for item in listed("adding a game") for path in item]
    assert entry.frontend is None, "the games' table names nothing of the UI: the UI lists its front ends"
    parts = [where for where in (entry.spec, entry.bots, FRONT_ENDS.get(entry.name)) if where is not None]
    assert all(isinstance(where, str) for where in parts), "a built-in game names its parts by path"
    for where in parts:
        assert isinstance(where, str)
        found = module_file(where)
        assert any(found == path or (path.endswith("/") and found.startswith(path)) for path in paths), (
            f"{entry.name}: {where} is in {found}, a file the list does not name"
        )
    assert f"docs/rules/{entry.rules_file}" in paths


def test_the_test_only_game_is_the_files_of_a_plugin_game_and_nothing_else() -> None:
    module = "tests/games/rps"
    files = [path.replace("<module>", module) for item in listed("adding a plugin game") for path in item]
    code, rules, _ = files
    assert ENTRY.rules == str(ROOT / rules)
    spec, bots = ENTRY.load_spec(), ENTRY.load_bots()
    assert bots is not None
    parts: list[Any] = [type(spec), type(spec.engine), *bots.levels.values()]
    for part in parts:
        assert str(Path(inspect.getfile(part)).relative_to(ROOT)) == code, part
    besides = sorted(path.name for path in (ROOT / module).parent.iterdir() if path.suffix in (".py", ".md"))
    assert besides == sorted(["__init__.py", Path(code).name, Path(rules).name])


def test_the_entry_point_as_the_page_writes_it_installs_the_game(tmp_path: Path) -> None:
    block = (
        PAGE.partition("<!-- adding a plugin game: end -->")[2].partition("```toml\n")[2].partition("```")[0]
    )
    table = block.replace("<name>", ENTRY.name).replace("<package>.<module>", "tests.games.rps")
    points = tomllib.loads(table)["project"]["entry-points"][catalog.PLUGINS]
    assert points == {"rps": "tests.games.rps:ENTRY"}
    env = installed(tmp_path / "site", "\n".join(f"{name} = {where}" for name, where in points.items()))
    shown = subprocess.run(
        [sys.executable, "-m", "p2pgenius", "rules", "rps"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0 and shown.stdout == Path(ENTRY.rules).read_text(encoding="utf-8")
    assert shown.stderr == ""


def test_a_game_whose_audit_gives_the_outcome_alone_still_ends_its_matches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A game written before its audit gave a Finding (issue 48) returns the outcome, or None:
    # taken as a finding without states, as before, not an error at every match's end.
    assert SPEC.cards is not None
    monkeypatch.setattr(type(SPEC.cards), "audit", lambda *args: None)
    found = SPEC.audit({}, {}, [], None)
    assert isinstance(found, Finding) and found.outcome is None and found.states == ()
