"""Wide-area links on one machine: streams and a TCP proxy that hold every byte for a fixed delay
each way, to measure (``bench/wan.py``) and test (``tests/net/test_round_trips.py``) how many
round trips a match costs.

* :func:`delayed_pair` and :class:`MemoryListener`: in-memory streams with a delay, for tests
  under trio's autojump clock (exact and instant: only the delays take virtual time).
* :func:`delay_proxy`: a TCP proxy on loopback that forwards each chunk after the delay, for
  real processes (``p2pgenius join 127.0.0.1:PROXY_PORT`` reaches a host as if it were far away).

Order is kept: every chunk waits the same delay, so none overtakes another.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

import trio

CHUNK: Final = 65536


class _Pipe:
    """One direction: chunks with the time each may be delivered."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.send, self.receive = trio.open_memory_channel[tuple[float, bytes]](math.inf)


class DelayedStream(trio.abc.Stream):
    """One end of an in-memory connection whose bytes arrive ``delay_s`` after they are sent."""

    def __init__(self, out: _Pipe, into: _Pipe) -> None:
        self._out = out
        self._in = into
        self._pending = b""
        self.sent_at: list[float] = []  # when each chunk was sent (the first: the first byte)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint()
        if data:
            now = trio.current_time()
            self.sent_at.append(now)
            try:
                self._out.send.send_nowait((now + self._out.delay_s, bytes(data)))
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                raise trio.BrokenResourceError("the other end is closed") from None

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if not self._pending:
            try:
                at, data = await self._in.receive.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return b""
            await trio.sleep_until(at)
            self._pending = data
        size = len(self._pending) if max_bytes is None else max_bytes
        data, self._pending = self._pending[:size], self._pending[size:]
        return data

    async def aclose(self) -> None:
        self._out.send.close()
        self._in.receive.close()
        await trio.lowlevel.checkpoint()


def delayed_pair(delay_s: float) -> tuple[DelayedStream, DelayedStream]:
    """Two connected streams; each byte takes ``delay_s`` to cross, either way."""
    there, back = _Pipe(delay_s), _Pipe(delay_s)
    return DelayedStream(there, back), DelayedStream(back, there)


class MemoryListener(trio.abc.Listener[trio.abc.Stream]):
    """A host's door in memory: :meth:`connect` makes a delayed connection that :meth:`accept`
    hands to the host."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self._send, self._receive = trio.open_memory_channel[trio.abc.Stream](math.inf)

    def connect(self) -> DelayedStream:
        """The caller's end of a new connection."""
        caller, host = delayed_pair(self.delay_s)
        self._send.send_nowait(host)
        return caller

    async def accept(self) -> trio.abc.Stream:
        try:
            return await self._receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise trio.ClosedResourceError("the listener is closed") from None

    async def aclose(self) -> None:
        self._receive.close()
        await trio.lowlevel.checkpoint()


async def _forward(
    source: trio.abc.Stream,
    target: trio.abc.Stream,
    delay_s: float,
    after_read: Callable[[trio.abc.Stream], None] | None = None,
) -> None:
    """Copy ``source`` to ``target``, each chunk ``delay_s`` after it was read, in order;
    ``after_read(source)`` after each read."""
    send, receive = trio.open_memory_channel[tuple[float, bytes]](math.inf)

    async def read() -> None:
        async with send:
            try:
                while data := await source.receive_some(CHUNK):
                    if after_read is not None:
                        after_read(source)
                    send.send_nowait((trio.current_time() + delay_s, bytes(data)))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

    async def write() -> None:
        async with receive:
            try:
                async for at, data in receive:
                    await trio.sleep_until(at)
                    await target.send_all(data)
                if isinstance(target, trio.SocketStream):
                    await target.send_eof()  # the reader's end came: pass it on
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        nursery.start_soon(write)


async def delay_proxy(
    target_host: str,
    target_port: int,
    delay_s: float,
    *,
    after_read: Callable[[trio.abc.Stream], None] | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Listen on a free loopback port (given to ``task_status``) and forward every connection to
    ``target_host:target_port``, each way ``delay_s`` late. Runs until cancelled.

    The target's TCP peer is this proxy, not the caller: ``after_read`` is called with the
    target's stream after each read from it, to do there what the caller does with its own
    socket (``bench/wan.py --routes``: a peer's relayed socket acknowledges at once)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")

    async def serve(caller: trio.SocketStream) -> None:
        try:
            host = await trio.open_tcp_stream(target_host, target_port)
        except OSError:
            await caller.aclose()
            return
        async with caller, host, trio.open_nursery() as nursery:
            nursery.start_soon(_forward, caller, host, delay_s)
            nursery.start_soon(_forward, host, caller, delay_s, after_read)

    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(serve, listeners)
