"""Fault injection over real loopback TCP: a joiner whose connection is cut after its N-th write,
for every N in turn. Used by test_fault_injection.py and bench/faults.py."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.peer import Files, Peer, PeerGoneError
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S


class CutAfter(trio.abc.Stream):
    """A stream that the network cuts (closes) after ``writes`` writes."""

    def __init__(self, inner: trio.abc.Stream, writes: int) -> None:
        self.inner = inner
        self.left = writes
        self.cut = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.left <= 0:
            self.cut = True
            await self.inner.aclose()
            raise trio.BrokenResourceError("cut by the fault injector")
        self.left -= 1
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Outcome:
    """How one injected fault ended."""

    writes: int  # the cut came after this many writes of the joiner
    cut: bool  # whether the cut happened before the match ended
    before_match: bool  # the cut came before the match began (the player joins again)
    finished: bool  # both peers finished, with the same result
    verified: bool  # both transcripts verify


def pair(tmp: Path, seed: int) -> tuple[Peer, Peer]:
    def make(name: str, index: int) -> Peer:
        files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
        return Peer(
            Identity.from_seed(bytes([seed % 256, index]) * 16),
            name,
            files,
            BotDriver("random", seed + index).decide,
            lambda s, e: None,
            lambda t: None,
            grace_s=20,
            pin_dir=tmp / "pins" / name,
        )

    return make("host", 0), make("guest", 1)


async def cut_after(tmp: Path, writes: int, *, game: str = "duel", seed: int = 1) -> Outcome:
    """A match whose joiner's first connection is cut after ``writes`` writes."""
    host, guest = pair(tmp, seed)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    guest.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
    options = {"fast": True} if game == "duel" else {}
    setup = {"hp": [5, 5]} if game == "duel" else {}
    first = CutAfter(await trio.open_tcp_stream("127.0.0.1", port), writes)
    before = False
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game=game, options=options, setup=setup, peers=2)
            )
            try:
                await guest.join(first)
            except (PeerGoneError, trio.BrokenResourceError):
                # Cut before the match began: nothing to resume; the player simply joins again.
                before = True
                guest.connections.clear()
                guest.session = None
                await guest.join(await trio.open_tcp_stream("127.0.0.1", port))
            while host.session is None or not (host.session.finished or host.session.fault):
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    await listeners[0].aclose()
    finished = bool(
        host.session
        and guest.session
        and host.session.finished
        and guest.session.finished
        and host.session.outcome == guest.session.outcome
    )
    verified = all(verify(p.files.transcript.read_bytes()).ok for p in (host, guest))
    return Outcome(writes, first.cut, before, finished, verified)
