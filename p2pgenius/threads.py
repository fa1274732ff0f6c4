"""Work that would hold up an event loop, done in a worker thread.

A networked peer runs on trio's event loop (under the terminal UI too, through guest mode): a
step that takes tens of milliseconds there (a strong bot's thought, loading a game's tables,
replaying a match for its audit, syncing a file) delays every message, ping and redraw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import trio
import trio.testing

T = TypeVar("T")


async def off_loop(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a worker thread, so that it does not hold up the event loop; inline
    under a test's mock clock, which would jump ahead while the thread works (as if the work
    took no time and every deadline passed meanwhile)."""
    if isinstance(trio.lowlevel.current_clock(), trio.testing.MockClock):
        return work(*args)
    return await trio.to_thread.run_sync(work, *args)
