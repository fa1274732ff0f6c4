"""Work kept off the event loop, and the heap set aside from the garbage collector."""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import trio

from p2pgenius.cli import play
from p2pgenius.games.registry import get_spec
from p2pgenius.net import party
from tests.patience import HANG_S


def test_the_heap_is_settled_once_for_each_thing_loaded_and_only_what_was_loaded_is_set_aside() -> None:
    # In a fresh process: the garbage collector's full passes then skip everything loaded so far.
    code = (
        "import gc, p2pgenius.threads as t, p2pgenius.games.registry\n"
        "assert gc.get_freeze_count() == 0\n"
        "t.settle_heap('duel'); frozen = gc.get_freeze_count(); assert frozen > 10_000, frozen\n"
        "later = [[i] for i in range(50_000)]\n"
        "t.settle_heap('duel'); assert gc.get_freeze_count() == frozen  # once each\n"
        "t.settle_heap('hornswoggle'); assert gc.get_freeze_count() > frozen + 50_000  # the next\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr
    assert gc.isenabled()  # (this process's collector was left alone)


def test_a_command_that_plays_sets_its_start_up_aside_before_the_match_begins(tmp_path: Path) -> None:
    # What the command imported is frozen before the event loop starts, not only once the game
    # is warm (a joiner's warm-up comes after its handshake): no full pass walks it meanwhile.
    code = (
        "import gc, sys, trio\n"
        "seen = []\n"
        "run = trio.run\n"
        "def counted(*args, **kwargs):\n"
        "    seen.append(gc.get_freeze_count())\n"
        "    return run(*args, **kwargs)\n"
        "trio.run = counted\n"
        "from p2pgenius.cli.main import main\n"
        "code = main(['play', 'duel', '--bot', 'random', '--vs', 'random'])\n"
        "assert code == 0, code\n"
        "assert seen and seen[0] > 10_000, seen\n"
        "print('ok')\n"
    )
    env = {**os.environ, "P2PGENIUS_HOME": str(tmp_path / "home"), "P2PGENIUS_NO_CLIPBOARD": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S, check=False, env=env
    )
    assert done.stdout.strip().endswith("ok"), (done.stdout[-2000:], done.stderr[-2000:])


def test_a_command_that_plays_does_not_load_the_test_tools() -> None:
    # trio.testing imports pytest: once 80 ms of every host's and joiner's start-up, before it
    # could connect.
    code = (
        "import sys, p2pgenius.cli.host, p2pgenius.cli.join, p2pgenius.net.peer\n"
        "print(sorted(m for m in ('trio.testing', 'pytest') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


async def test_work_off_the_loop_runs_in_a_worker_thread_on_a_real_clock() -> None:
    import threading

    from p2pgenius.threads import off_loop

    assert await off_loop(threading.get_ident) != threading.get_ident()


def test_work_off_the_loop_runs_inline_on_the_mock_clock() -> None:
    # Under trio's autojump clock a thread's work would seem to take no time while every
    # deadline passed: the work is done on the loop instead.
    import threading

    import trio
    import trio.testing

    from p2pgenius.threads import off_loop

    async def where() -> int:
        return await off_loop(threading.get_ident)

    assert trio.run(where, clock=trio.testing.MockClock(autojump_threshold=0)) == threading.get_ident()


def test_a_game_loaded_before_the_loop_is_not_loaded_again_in_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker thread loading a game holds the interpreter from the loop's steps meanwhile (a
    # Magic Square handshake took 50 ms in one step): a host loads its game before its loop.
    monkeypatch.setattr(party, "_WARM", set())
    loaded: list[int] = []
    spec = get_spec("magic-square")
    monkeypatch.setattr(type(spec), "warm", lambda self: loaded.append(threading.get_ident()))
    party.warm_now("magic-square")
    assert loaded == [threading.get_ident()], "loaded here, once"

    async def no_thread(*args: object) -> None:
        raise AssertionError("a thread hop for a game already loaded")

    monkeypatch.setattr(party, "off_loop", no_thread)
    trio.run(party.warm, "magic-square")
    assert loaded == [threading.get_ident()]


def test_the_command_line_loads_the_game_it_names_before_its_loop_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    order: list[str] = []
    monkeypatch.setattr(play, "warm_now", lambda game: order.append(f"loaded {game}"))
    monkeypatch.setattr(play, "finish", lambda peer, printer: 0)

    async def match() -> None:
        order.append("the loop runs")

    args = argparse.Namespace(bot="random", game="magic-square")
    assert play.played(args, None, match, None) == 0  # type: ignore[arg-type]
    assert order == ["loaded magic-square", "the loop runs"]
