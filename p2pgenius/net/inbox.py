"""A loop's inbox that no peer can flood.

Each connection has one reader task, and the readers hand what they read to one loop (the
lobby's, the match's). With an unbounded channel between them, a peer that sent faster than the
loop could handle grew the host without limit (91 MB in 30 s from one caller flooding
``propose``). Here the channel is bounded: a reader that finds it full waits, reads nothing
meanwhile, and TCP's own flow control slows the sender down. Nothing a peer said is dropped, and
readers waiting for room are let in in the order they came, so a flooder takes its turn beside the
others and never before them.

What this machine puts in (a person's key press, a bot's decision, the host's answer to a
proposal) comes from code that must not wait: the screen calls in through trio's token, and the
loop itself must never wait for room in the inbox it empties. :meth:`Inbox.put` never blocks and
never fails; a task of the inbox's own moves those items on, in order, taking its turn for room
like a reader. Only this machine fills that path.
"""

from __future__ import annotations

import math
from typing import Final, Generic, TypeVar

import trio

INBOX_ITEMS: Final = 64
"""Items waiting for a loop at once, at most. Each is one message (64 KiB at most); each reader
waiting for room holds besides the rest of one read (``connection.READ_BYTES``)."""

T = TypeVar("T")


class Inbox(Generic[T]):
    """One loop's inbox: peers' readers ``await inbox.send(item)``; this machine's code calls
    :meth:`put`; the loop reads from :attr:`items`, the bounded channel's own end (``await
    inbox.items.receive()``, ``receive_nowait()``; ``statistics().current_buffer_used``: the items
    waiting). Its task runs in ``nursery`` until that is cancelled (as the loop's nursery is once
    the loop is done)."""

    def __init__(self, nursery: trio.Nursery, room: int = INBOX_ITEMS) -> None:
        self._send, self.items = trio.open_memory_channel[T](room)
        # Unbounded, and so never a reason to block or fail; only this machine's code puts here.
        self._own, own = trio.open_memory_channel[T](math.inf)
        nursery.start_soon(self._forward, own)

    async def send(self, item: T) -> None:
        """A peer's item: in at once if there is room (so what came in one read reaches the loop
        as one batch, with no scheduling round between), else once there is."""
        try:
            self._send.send_nowait(item)
        except trio.WouldBlock:
            await self._send.send(item)

    def put(self, item: T) -> None:
        """An item of this machine's own (never waits: the inbox's task passes it on)."""
        self._own.send_nowait(item)

    async def _forward(self, own: trio.MemoryReceiveChannel[T]) -> None:
        async for item in own:
            await self.send(item)
