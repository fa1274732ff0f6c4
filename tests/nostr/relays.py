"""Relays for the Nostr tests: a real one (rust-nostr's ``LocalRelay``, tests/nostr/local_relay.py)
as its own process on loopback, and a hostile one of our own on trio-websocket that sends what a
test scripts."""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Final

import trio
import trio_websocket

from tests.net.relays import free_port
from tests.patience import HANG_S

SCRIPT: Final = Path(__file__).with_name("local_relay.py")


def local_relay_missing() -> str | None:
    """Why the real relay cannot run here (None: it can)."""
    if importlib.util.find_spec("nostr_sdk") is None:
        return "the test relay is not installed (nostr-sdk, in the test extra: pip install -e '.[test]')"
    return None


def _start(folder: Path, port: int) -> subprocess.Popen[bytes] | None:
    """The relay on ``port``, once it accepts connections (None: it died, the port was taken)."""
    with (folder / f"relay-{port}.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, str(SCRIPT), str(port)], stdin=subprocess.PIPE, stdout=log, stderr=log
        )
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return process
        if process.poll() is not None:
            return None
        time.sleep(0.02)
    _stop(process)
    raise RuntimeError(f"the relay did not start in {HANG_S:g} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Closing its standard input stops it; a kill if it does not."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def local_relay(folder: Path) -> Iterator[str]:
    """rust-nostr's relay on loopback for as long as the block runs: its ``ws://`` URL. A free
    port is picked and tried again if another process took it meanwhile."""
    for _ in range(5):
        port = free_port()
        process = _start(folder, port)
        if process is not None:
            break
    else:
        logs = "\n".join(path.read_text(errors="replace")[-500:] for path in folder.glob("relay-*.log"))
        raise RuntimeError(f"the relay did not start: {logs}")
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        _stop(process)


Script = Callable[[trio_websocket.WebSocketConnection], Awaitable[None]]
"""What a hostile relay does with one connection."""


async def hostile_relay(nursery: trio.Nursery, script: Script, tls: ssl.SSLContext | None = None) -> str:
    """A relay of our own on loopback that runs ``script`` on each connection: its URL (``wss://``
    with ``tls``, a server's context). It stops with ``nursery``."""

    async def handler(request: trio_websocket.WebSocketRequest) -> None:
        connection = await request.accept()
        with contextlib.suppress(trio_websocket.ConnectionClosed):
            await script(connection)

    server = await nursery.start(trio_websocket.serve_websocket, handler, "127.0.0.1", 0, tls)
    return f"{'wss' if tls else 'ws'}://127.0.0.1:{server.port}"
