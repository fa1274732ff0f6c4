"""Strong bots think in a process of their own (p2pgenius.bots.worker), never on the peer's
event loop nor in a thread beside it, with the same moves as in the peer's own process, and no
process is left behind however the peer ends."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import pytest
import trio

from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.bots.registry import RANDOM, levels
from p2pgenius.games.registry import get_game, get_spec

GAME = "magic-square"
LEVEL = [level for level in levels(GAME) if level != RANDOM][-1]  # (the quickest that thinks)

pytestmark = pytest.mark.bots_in_a_process  # (the process itself is what these test)


class Asked:
    """What a networked peer shows its decider: the game, the state, the seats it waits on."""

    def __init__(self, state: Any, seat: int) -> None:
        self.game_name, self.state, self.seat = GAME, state, seat

    def awaiting(self) -> Sequence[int]:
        return [self.seat]


def positions(count: int) -> list[Asked]:
    """The first ``count`` positions of a match of random moves, each with a seat to act."""
    engine, rng = get_game(GAME), random.Random(3)
    state = engine.initial({}, get_spec(GAME).demo_options)
    found: list[Asked] = []
    while len(found) < count and engine.outcome(state) is None:
        seat = (engine.waiting_on(state) or engine.to_act(state))[0]
        found.append(Asked(state, seat))
        legal = engine.legal_actions(state, seat)
        state = engine.apply(state, seat, legal[rng.randrange(len(legal))])
    return found


def test_a_bot_made_from_a_level_thinks_in_its_own_process_with_the_moves_it_would_make_here() -> None:
    asked = positions(6)
    here = BotDriver(LEVEL, 4)
    expected = [plain(here.choose(GAME, a.state, a.seat)) for a in asked]
    driver = BotDriver(LEVEL, 4)
    seen: dict[str, Any] = {}

    async def decide_all() -> list[Any]:
        moves = [await driver.decide(a, a.seat) for a in asked]  # type: ignore[arg-type]
        assert driver._worker is not None
        seen["process"] = driver._worker._process
        return moves

    assert trio.run(decide_all) == expected
    process = seen["process"]
    assert process is not None and process.pid != os.getpid()
    assert process.returncode is not None  # (the run's end closed it: nothing left behind)
    assert LEVEL not in {bot.level for bot in driver._made.values()}  # (none thought here)


def test_the_random_bot_and_bots_on_the_loop_start_no_process() -> None:
    asked = positions(2)

    async def decide(driver: BotDriver) -> None:
        for a in asked:
            await driver.decide(a, a.seat)  # type: ignore[arg-type]

    for driver in (BotDriver(RANDOM, 1), BotDriver(LEVEL, 1, thread=False)):
        trio.run(decide, driver)
        assert driver._worker is None


def test_the_bots_process_ends_when_the_peers_process_is_killed() -> None:
    code = (
        "import trio\n"
        "from tests.test_bot_worker import BotDriver, LEVEL, GAME, positions\n"
        "async def main():\n"
        "    driver = BotDriver(LEVEL, 2)\n"
        "    a = positions(1)[0]\n"
        "    await driver.decide(a, a.seat)\n"
        "    print(driver._worker._process.pid, flush=True)\n"
        "    await trio.sleep_forever()\n"
        "trio.run(main)\n"
    )
    peer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert peer.stdout is not None
    worker = int(peer.stdout.readline())
    assert alive(worker)
    peer.send_signal(signal.SIGKILL)  # (no clean-up of its own: the kernel closes its pipes)
    peer.wait()
    for _ in range(3000):  # (the worker sees its pipe close at once; a slow machine is let be slow)
        if not alive(worker):
            break
        time.sleep(0.01)
    assert not alive(worker)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (an ended child of a killed parent is reaped by init)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # (a zombie is not running)
        return stat.read().split(")")[-1].split()[0] != "Z"
