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

import os
from collections.abc import Iterator
from typing import Final

import pytest
from hypothesis import settings

from p2pgenius.bots import registry
from p2pgenius.games import catalog

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


SLOW: Final = (
    "tests/hostile/",
    "tests/ui/",
    "tests/net/",
    "tests/test_bench.py",
    "tests/test_every_game.py",
    "tests/test_plugins.py",
    "tests/test_quality.py",
    "tests/test_adding_a_game.py",
    "tests/test_action_parsers.py",
    "tests/test_fuzz.py",
    "tests/duel/test_bots.py",
    "tests/duel/test_properties.py",
    "tests/hornswoggle/test_bots.py",
    "tests/magic_square/test_table.py::test_two_perfect_bots_finish_their_match",
    "tests/protocol/test_forger.py::test_no_rewrite_and_no_cut_by_one_peer_verifies_as_another_result[",
    "tests/record/test_copies.py::test_no_copy_the_forger_writes_changes_the_honest_players_result[hornswoggle",
    "tests/record/test_copies.py::test_a_late_answer_in_the_losers_own_copy_never_makes_the_winner_lose[hornswoggle",
)
"""What the check before a commit leaves out (``pytest -m "not slow"``, docs/testing.md): every test
whose node id starts with one of these, but for what FAST keeps."""
FAST: Final = (
    "tests/net/test_network.py",
    "tests/protocol/test_forger.py::test_no_rewrite_and_no_cut_by_one_peer_verifies_as_another_result[duel-2]",
)
"""What the check before a commit keeps of SLOW: one whole networked match of each game over TCP,
and the forger's every rewrite and cut of a duel."""


WORKERS_PER_CORE: Final = 2
"""How many test processes ``-n auto`` starts per core: many tests wait (on loopback, on another
process, on a screen being drawn) rather than compute, so two per core keep every core busy (on
two idle cores the suite takes about 4.7 minutes this way, 6 with one per core)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: :data:`WORKERS_PER_CORE` per core this process may run on."""
    del config
    return WORKERS_PER_CORE * max(len(os.sched_getaffinity(0)), 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests of SLOW (less FAST) are marked ``slow``."""
    for item in items:
        if item.nodeid.startswith(SLOW) and not item.nodeid.startswith(FAST):
            item.add_marker(pytest.mark.slow)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_default_level: bots asked for no level play the game's default")
    config.addinivalue_line("markers", "bots_in_a_process: networked bots think in their own process")
    config.addinivalue_line("markers", "slow: left out of the check before a commit (-m 'not slow')")


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


@pytest.fixture(autouse=True)
def bots_think_in_a_thread(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """A bot of a networked peer in this process thinks in a worker thread, not in a process of its
    own (bots/worker.py): the process keeps the event loop free of a strong bot's thinking on a
    player's machine, which the club bots of the suite do not need, and it cost each of hundreds of
    networked tests a Python start-up and a round trip a decision (a quarter of tests/net's time).
    The process is tested on its own (tests/test_bot_worker.py, marked ``bots_in_a_process``), and
    every test that runs the real ``p2pgenius`` command runs it as players do."""
    if request.node.get_closest_marker("bots_in_a_process") is not None:
        return
    from p2pgenius.bots.driver import BotDriver

    monkeypatch.setattr(BotDriver, "_apart_from_loop", lambda self, game, seat: False)


@pytest.fixture(autouse=True)
def a_home_of_its_own(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every test's keys and pins live in a directory of its own (``P2PGENIUS_HOME``), never in the
    user's config directory: a test that forgot its ``pin_dir`` pinned its throwaway keys there,
    and the next run met "the key of peer 'host' has changed". A test that sets the variable
    itself still does (its monkeypatch comes after this one)."""
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path_factory.mktemp("home")))
