"""A host's door: it takes callers one after another and never lets a crowd of them stop it.

Callers that have not yet shown a key (the handshake) are *pending*. There are at most
``MAX_PENDING`` of them in all and ``MAX_PER_ADDRESS`` from one address; a newcomer over either
limit pushes the oldest such caller out (an idle crowd cannot keep the door shut, and a real
player who just arrived gets in). Running out of file descriptors is waited out with a growing
pause instead of stopping the host, and each pending caller has the handshake's deadline.
"""

from __future__ import annotations

import errno
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final, NoReturn

import trio

MAX_PENDING: Final = 64
MAX_PER_ADDRESS: Final = 16
BACKOFF_S: Final = (0.05, 1.0)
"""The first and the longest pause after the system refused a new descriptor."""
OUT_OF_DESCRIPTORS: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})

Greet = Callable[[trio.abc.Stream, Callable[[], None]], Awaitable[None]]
"""A door's greeter: it shakes hands with a caller and calls the second argument once the caller
has shown its key (it is then no longer pending)."""


@dataclass
class Door:
    """The limits and the caller list of one listener."""

    listener: trio.abc.Listener[trio.abc.Stream]
    max_pending: int = MAX_PENDING
    max_per_address: int = MAX_PER_ADDRESS
    pending: list[tuple[str, trio.CancelScope]] = field(default_factory=list)
    pushed_out: int = 0
    waits: int = 0

    async def serve(self, nursery: trio.Nursery, greet: Greet) -> NoReturn:
        """Accept callers for ever, each greeted in its own task of ``nursery``."""
        pause = BACKOFF_S[0]
        while True:
            try:
                stream = await self.listener.accept()
            except OSError as exc:
                if exc.errno not in OUT_OF_DESCRIPTORS:
                    raise
                self.waits += 1
                await trio.sleep(pause)  # (pending callers time out and free descriptors)
                pause = min(pause * 2, BACKOFF_S[1])
                continue
            pause = BACKOFF_S[0]
            address = address_of(stream)
            self._make_room(address)
            nursery.start_soon(self._greet, stream, address, greet)

    def _make_room(self, address: str) -> None:
        same = [entry for entry in self.pending if entry[0] == address]
        if len(same) >= self.max_per_address:
            self._push_out(same[0])
        elif len(self.pending) >= self.max_pending:
            self._push_out(self.pending[0])

    def _push_out(self, entry: tuple[str, trio.CancelScope]) -> None:
        self.pending.remove(entry)
        entry[1].cancel()
        self.pushed_out += 1

    async def _greet(self, stream: trio.abc.Stream, address: str, greet: Greet) -> None:
        scope = trio.CancelScope()
        entry = (address, scope)
        self.pending.append(entry)

        def shown_key() -> None:
            if entry in self.pending:
                self.pending.remove(entry)

        with scope:
            try:
                await greet(stream, shown_key)
            finally:
                shown_key()
        if scope.cancelled_caught:
            await trio.aclose_forcefully(stream)


def address_of(stream: trio.abc.Stream) -> str:
    """The caller's address (host part only), or "?" for a stream with no socket."""
    socket = getattr(stream, "socket", None)
    try:
        return str(socket.getpeername()[0]) if socket is not None else "?"
    except OSError:
        return "?"
