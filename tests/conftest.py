"""Test-wide settings.

A bot asked for with no level (``--bot`` alone, a harness's default) plays the game's club level
in the suite, not its strongest: the strongest search for tens of milliseconds a decision, and the
hundreds of matches the suite plays to test the network, the screens and the files only need a
sound bot that finishes. The strongest levels are tested on their own (tests/duel/test_bots.py,
tests/hornswoggle/test_bots.py, tests/magic_square/test_table.py), measured by bench/bots.py, and
played by ``p2pgenius demo``; a test that asks for a level by name gets that level, and one
marked ``real_default_level`` gets the game's real default.

Hypothesis runs with no per-example deadline: the suite shares two cores with whatever else the
machine does, and a slow example is not a wrong one (speed is measured in bench/, not asserted).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from p2pgenius.bots import registry
from p2pgenius.games import catalog

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_default_level: bots asked for no level play the game's default")


@pytest.fixture(autouse=True)
def club_bots_by_default(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("real_default_level") is not None:
        return
    real = registry.level_of

    def level_of(game: str, level: str | None) -> str:
        if level:
            return real(game, level)
        told = registry.described(game)
        club = [known.name for known in told if known.rank == "club"]
        return real(game, club[0] if club else None)

    monkeypatch.setattr(registry, "level_of", level_of)


@pytest.fixture(scope="module")
def rps_in_the_table() -> Iterator[None]:
    """The test-only game ``rps`` (tests/games/rps.py) in the games' table while a module runs:
    ``pytestmark = pytest.mark.usefixtures("rps_in_the_table")``."""
    from tests.games.rps import ENTRY

    catalog.add(ENTRY)
    try:
        yield
    finally:
        catalog.remove(ENTRY.name)
