"""Relays for the tests: the real transit relay (``twist transitrelay``) on loopback, and a
hostile one of our own that speaks its protocol and then does to the bytes what a test asks
(garble, duplicate, hold back, cut, or pair callers with each other)."""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import trio

from tests.patience import HANG_S

TWIST = Path(sys.executable).with_name("twist")


def twist_missing() -> str | None:
    """Why the real relay cannot run here (None: it can)."""
    if not TWIST.exists() and shutil.which("twist") is None:
        return "the transit relay is not installed (pip install magic-wormhole-transit-relay)"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class RelayProcess:
    """The transit relay on loopback as a process a test may stop and start again on the same
    port (a relay restarted): ``start`` returns once it accepts connections."""

    folder: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def where(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)

    def start(self) -> None:
        command = [
            str(TWIST) if TWIST.exists() else "twist",
            "transitrelay",
            f"--port=tcp:{self.port}:interface=127.0.0.1",
        ]
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / "relay.log").open("a") as log:
            self.process = subprocess.Popen(command, cwd=self.folder, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + HANG_S
        while True:
            with contextlib.suppress(OSError), socket.create_connection(self.where, timeout=1):
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                log_text = (self.folder / "relay.log").read_text()[-2000:]
                raise RuntimeError(f"the relay did not start: {log_text}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@contextlib.contextmanager
def real_relay(folder: Path) -> Iterator[tuple[str, int]]:
    """The transit relay on loopback, for as long as the block runs: (host, port)."""
    relay = RelayProcess(folder)
    try:
        relay.start()
        yield relay.where
    finally:
        relay.stop()


REQUEST = re.compile(rb"please relay ([0-9a-f]{64}) for side ([0-9a-f]{16})\n")

Mangle = Callable[[bytes], bytes]


@dataclass
class HostileRelay:
    """A transit relay that pairs like the real one, except as its fields say:

    * ``joiners_first``: once a token has paired, pair the next two callers that are not the host
      with each other, as a relay may when two joiners call while the host's next waiting
      connection is on its way (the host is the first to call under a token, always as one side);
    * ``to_host``, ``to_joiner``: what each direction's bytes become (garbled, doubled...);
    * ``hold_s``: how long each chunk is held back;
    * ``cut_after``: close a pipe after this many bytes towards the joiner (once);
    * ``stall_after``: after this many bytes towards the joiner, pass no byte either way on that
      pipe again, its connections left open (once: a route gone silent)."""

    joiners_first: bool = False
    to_host: Mangle | None = None
    to_joiner: Mangle | None = None
    hold_s: float = 0.0
    cut_after: int | None = None
    stall_after: int | None = None
    port: int = 0
    paired: int = 0
    cuts: int = 0
    passed: int = 0  # bytes passed on, both ways, every pipe
    _waiting: dict[bytes, list[tuple[bytes, trio.SocketStream]]] = field(default_factory=dict)
    _host_side: dict[bytes, bytes] = field(default_factory=dict)  # the first side seen under a token
    _held_joiner: list[trio.SocketStream] = field(default_factory=list)
    _known: set[bytes] = field(default_factory=set)  # tokens paired once (a probe's never are twice)

    async def serve(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            await trio.serve_listeners(self._caller, listeners, handler_nursery=nursery)

    async def _caller(self, stream: trio.SocketStream) -> None:
        line = b""
        while b"\n" not in line:
            data = await stream.receive_some(200)
            if not data:
                return
            line += data
        match = REQUEST.fullmatch(line)
        if match is None:
            await stream.send_all(b"bad handshake\n")
            await stream.aclose()
            return
        token, side = match.groups()
        if token not in self._host_side:  # (the host calls first, and always as one side)
            self._host_side[token] = side
        is_host = self._host_side[token] == side
        waiting = self._waiting.setdefault(token, [])
        if self.joiners_first and not is_host and token in self._known:
            if self._held_joiner:
                other = self._held_joiner.pop()
                self.joiners_first = False
                await self._pipe(other, stream, to_a=None, to_b=None)
                return
            self._held_joiner.append(stream)
            await trio.sleep_forever()
        partner = next(((s, w) for s, w in waiting if s != side), None)
        if partner is None:
            waiting.append((side, stream))
            await trio.sleep_forever()
        waiting.remove(partner)
        self._known.add(token)
        host_stream = partner[1] if not is_host else stream
        joiner_stream = stream if not is_host else partner[1]
        await self._pipe(host_stream, joiner_stream, to_a=self.to_host, to_b=self.to_joiner)

    async def _flow(
        self,
        source: trio.SocketStream,
        sink: trio.SocketStream,
        mangle: Mangle | None,
        pipe: _Pipe,
        to_joiner: bool,
    ) -> None:
        """One direction of a pipe (``to_joiner``: the one whose bytes count, which may be cut or
        stalled); its end ends the other direction too."""
        try:
            while data := await source.receive_some(65536):
                if self.hold_s:
                    await trio.sleep(self.hold_s)
                if mangle is not None:
                    data = mangle(data)
                if to_joiner and (what := self._trouble(pipe.sent + len(data))):
                    self.cuts += 1
                    if what == "cut":
                        break
                    pipe.stalled = True
                if pipe.stalled:
                    continue
                await sink.send_all(data)
                self.passed += len(data)
                if to_joiner:
                    pipe.sent += len(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        pipe.cut.cancel()

    def _trouble(self, sent: int) -> str | None:
        """What is done once ``sent`` bytes went towards the joiner: "cut", "stall" (each once)."""
        if self.cut_after is not None and sent > self.cut_after:
            self.cut_after = None
            return "cut"
        if self.stall_after is not None and sent > self.stall_after:
            self.stall_after = None
            return "stall"
        return None

    async def _pipe(
        self, a: trio.SocketStream, b: trio.SocketStream, *, to_a: Mangle | None, to_b: Mangle | None
    ) -> None:
        self.paired += 1
        await a.send_all(b"ok\n")
        await b.send_all(b"ok\n")
        pipe = _Pipe()
        with pipe.cut:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._flow, b, a, to_a, pipe, False)
                nursery.start_soon(self._flow, a, b, to_b, pipe, True)
        for stream in (a, b):
            await trio.aclose_forcefully(stream)


@dataclass
class _Pipe:
    """The direction towards the joiner of one pipe: its bytes, and whether it is cut or stalled."""

    cut: trio.CancelScope = field(default_factory=trio.CancelScope)
    sent: int = 0
    stalled: bool = False
