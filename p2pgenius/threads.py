"""Work that would hold up an event loop, done in a worker thread.

A networked peer runs on trio's event loop (under the terminal UI too, through guest mode): a
step that takes tens of milliseconds there (a strong bot's thought, loading a game's tables,
replaying a whole match for the game's verdict at its end, syncing a file) delays every message,
ping and redraw. So does a full pass of the garbage collector over a big heap: :func:`settle_heap`.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import trio

T = TypeVar("T")


async def off_loop(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a worker thread, so that it does not hold up the event loop; inline
    under a test's mock clock, which would jump forward while the thread works (as if the work
    took no time and every deadline passed meanwhile)."""
    if mock_clock():
        return work(*args)
    return await trio.to_thread.run_sync(work, *args)


def mock_clock() -> bool:
    """Whether this loop runs on trio's mock clock. Only a test imports ``trio.testing`` (which
    imports pytest: 80 ms of every command's start-up), so a clock of it exists only then."""
    testing = sys.modules.get("trio.testing")
    return testing is not None and isinstance(trio.lowlevel.current_clock(), testing.MockClock)


_settled: set[str] = set()
"""What has been set aside so far in this process (see :func:`settle_heap`)."""


def settle_heap(what: str) -> None:
    """Once a process has loaded something it keeps for good (``what``: its modules and screen,
    ``"start-up"``, or one game's tables and modules, the game's name), set every object alive
    now aside from the garbage collector (``gc.freeze``): they live as long as the process, and
    a full collection that walks them all (tens of thousands, tens of milliseconds) would hold up
    the event loop mid-match. Once for each ``what``: a process that plays a second game (a host's
    next match, ``demo``) sets aside that game's tables too, and what a match makes stays
    collectable (a few times a process at most, so the little garbage that is alive at that
    moment, kept for good, stays bounded). docs/profiling.md, "Garbage collection", says why
    this and not the collector's thresholds; ``bench/loop.py`` measures the passes."""
    if what not in _settled:
        _settled.add(what)
        gc.freeze()
