"""The one bridge between the two event loops: trio runs as a guest on prompt_toolkit's asyncio loop.

``trio.lowlevel.start_guest_run`` lets trio schedule its work as callbacks on the asyncio loop, so
the network layer and the terminal share one thread and never need locks: the UI reads the session
directly, and hands decisions back through trio's token (``run_sync_soon``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import outcome
import trio
from prompt_toolkit.application import Application

from p2pgenius.ui.table import TableScreen


def run(table: TableScreen, app: Application[None], trio_main: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``app`` and, as trio's guest, ``trio_main`` (the match) until the person leaves.

    When the match ends the screen stays, showing the result, until the person presses Ctrl-Q;
    if the person leaves first, the match is cancelled (its transcript and secrets are already
    on disk, so ``p2pgenius resume`` carries on). Returns ``trio_main``'s value or raises its
    error."""
    return asyncio.run(_main(table, app, trio_main))


async def _main(table: TableScreen, app: Application[None], trio_main: Callable[[], Awaitable[Any]]) -> Any:
    loop = asyncio.get_running_loop()
    finished = asyncio.Event()
    result: list[outcome.Outcome[Any]] = []
    scopes: list[trio.CancelScope] = []

    async def guest() -> Any:
        table.adapter.token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            scopes.append(scope)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(table.adapter.keep_time)
                value = await trio_main()
                nursery.cancel_scope.cancel()
                return value
        return None

    def done(trio_outcome: outcome.Outcome[Any]) -> None:
        result.append(trio_outcome)
        finished.set()
        table.state.finished = True
        table.state.invalidate()

    async def close_when_done() -> None:
        await finished.wait()
        if isinstance(result[0], outcome.Error) or (table.state.result is None and table.state.fault is None):
            while not app.is_running:  # (trio may finish before the screen is up)
                await asyncio.sleep(0.01)
            app.exit()  # nothing to look at: say why on the terminal once it is restored

    trio.lowlevel.start_guest_run(
        guest,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=done,
        host_uses_signal_set_wakeup_fd=True,
    )
    closer = asyncio.ensure_future(close_when_done())
    try:
        await app.run_async()
    finally:
        closer.cancel()
        if not finished.is_set():
            if table.adapter.token is not None and scopes:
                # (trio may be done already, its done callback still on its way)
                with contextlib.suppress(trio.RunFinishedError):
                    table.adapter.token.run_sync_soon(scopes[0].cancel)
            await finished.wait()
    return result[0].unwrap()
