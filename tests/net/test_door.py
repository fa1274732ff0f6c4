"""A host's door holds against a crowd: out of descriptors, it waits instead of stopping; idle
callers who never show a key are pushed out by newcomers over the limits."""

from __future__ import annotations

import errno
from collections.abc import Callable

import trio
import trio.testing

from p2pgenius.net.door import Door
from tests.patience import HANG_S


class FakeListener(trio.abc.Listener[trio.abc.Stream]):
    """Refuses ``failures`` accepts with EMFILE, then hands out memory streams."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.handed: list[trio.abc.Stream] = []
        self.others: list[trio.abc.Stream] = []

    async def accept(self) -> trio.abc.Stream:
        await trio.sleep(0.01)
        if self.failures:
            self.failures -= 1
            raise OSError(errno.EMFILE, "Too many open files")
        ours, theirs = trio.testing.memory_stream_pair()
        self.handed.append(ours)
        self.others.append(theirs)
        return ours

    async def aclose(self) -> None:
        pass


async def test_running_out_of_descriptors_is_waited_out() -> None:
    listener = FakeListener(failures=5)
    greeted: list[trio.abc.Stream] = []

    async def greet(stream: trio.abc.Stream, shown_key: Callable[[], None]) -> None:
        shown_key()
        greeted.append(stream)

    door = Door(listener)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(door.serve, nursery, greet)
        with trio.fail_after(HANG_S):
            while len(greeted) < 3:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    assert door.waits == 5
    assert greeted[:3] == listener.handed[:3]


async def test_idle_callers_are_pushed_out_by_newcomers() -> None:
    listener = FakeListener(failures=0)
    admitted: list[int] = []

    async def greet(stream: trio.abc.Stream, shown_key: Callable[[], None]) -> None:
        number = listener.handed.index(stream)
        if number < 10:
            await trio.sleep_forever()  # an idle caller: never shows a key
        shown_key()
        admitted.append(number)
        await trio.sleep_forever()  # a player stays

    door = Door(listener, max_pending=4, max_per_address=100)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(door.serve, nursery, greet)
        with trio.fail_after(HANG_S):
            while len(admitted) < 3:
                await trio.sleep(0.05)
        assert len(door.pending) <= 4
        assert door.pushed_out >= 6  # the idle crowd made room; the players got in and stay
        nursery.cancel_scope.cancel()
    assert admitted[:3] == [10, 11, 12]
