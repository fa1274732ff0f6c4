"""A process of its own where a peer's strong bots think, so that their thinking never holds the
event loop.

A bot thinking in a thread of the peer's process shares the interpreter with the event loop: the
loop gets it back only when the bot's thread lets go (every 5 ms at best, and on a busy machine
only once the loop's thread is given a core again), so a step that reads a message, writes the
transcript and sends an answer waits that long at each of its system calls (``bench/loop.py``
measured steps of 40 ms, and of 234 ms on a busier machine). A bot in a process of its own takes
nothing from the loop but a core.

:class:`Worker` is the peer's side: one process per :class:`~p2pgenius.bots.driver.BotDriver`,
started at its first thought (the command line's Python, with this package), fed the game, the
seat and the state it may see, and answering with the action's plain form. The process runs
:mod:`p2pgenius.bots.thinker`, which makes each seat's bot the first time that seat thinks, with
the seed the driver gives it, and is asked one thought at a time, in the order the driver asks:
the same bots see the same states in the same order as in the peer's own process, so a seeded
match replays move for move. It ends when its pipe closes: when the driver closes it, when the
trio run that started it ends (a system task holds it), or when the peer's process dies, even by
SIGKILL (the kernel closes the pipe): no process is left behind.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from typing import Any, Final

import trio

from p2pgenius.bots.thinker import HEADER
from p2pgenius.errors import P2PGeniusError

STOP_S: Final = 1.0
"""How long a closed worker may take to finish its thought before it is killed."""


class WorkerGoneError(P2PGeniusError):
    """The bot's process ended or could not start (its last words are in the message)."""


class Worker:
    """The peer's end of one worker process (see the module's doc)."""

    def __init__(self) -> None:
        self._process: trio.Process | None = None
        self._token: trio.lowlevel.TrioToken | None = None  # the run the process belongs to
        self._closed = trio.Event()
        self._lock = trio.Lock()  # one thought at a time, in the order asked
        self._pending = b""
        self.failure = ""  # why the process could not start

    async def think(self, game: str, level: str | None, seed: int, seat: int, state: Any) -> tuple[str, Any]:
        """The plain form of the action the seat's bot chooses in ``state`` (None: it lets an
        optional action pass), as ``("ok", action)``, or ``(NO_GAME, why)``. A thought once
        asked is waited for to its end, even if the caller is cancelled meanwhile: the bots'
        seeded randomness must see every thought, and the next answer must be the next one's."""
        async with self._lock:
            process = await self._started()
            assert process.stdin is not None and process.stdout is not None
            request = pickle.dumps((game, level, seed, seat, state), protocol=pickle.HIGHEST_PROTOCOL)
            with trio.CancelScope(shield=True):
                try:
                    await process.stdin.send_all(HEADER.pack(len(request)) + request)
                    answer = await self._receive(process.stdout)
                except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    raise WorkerGoneError(f"the bots' process is gone ({exc})") from None
        kind, body = answer
        if kind == "error":
            raise WorkerGoneError(f"a bot failed in its process: {body}")
        return kind, body

    async def _started(self) -> trio.Process:
        """The worker process of this trio run (started now if there is none yet)."""
        token = trio.lowlevel.current_trio_token()
        if self._process is None or self._token is not token:
            self._closed, self._pending, self._token = trio.Event(), b"", token
            started = trio.Event()
            trio.lowlevel.spawn_system_task(self._hold, started, name="bots' worker process")
            await started.wait()
        if self._process is None:
            raise WorkerGoneError(f"the bots' process did not start: {self.failure}")
        return self._process

    async def _hold(self, started: trio.Event) -> None:
        """Start the process and hold it until :meth:`aclose` or the end of the run; then close its
        pipe (it ends once its thought is over) and, after :data:`STOP_S`, kill it."""
        try:
            process = await trio.lowlevel.open_process(
                # -P: the directory the program was started in is not searched for modules (a
                # file there named like one the worker imports, an attrs.py, broke every bot).
                [sys.executable, "-P", "-m", "p2pgenius.bots.thinker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # (its errors come back as answers, never on the screen)
            )
        except OSError as exc:
            self.failure = exc.strerror or str(exc)
            started.set()
            return
        self._process = process
        started.set()
        try:
            await self._closed.wait()
        finally:
            with trio.CancelScope(shield=True):
                await stop(process)
            self._process = None

    async def _receive(self, stdout: trio.abc.ReceiveStream) -> tuple[str, Any]:
        """The next answer on the pipe."""
        while len(self._pending) < HEADER.size or len(self._pending) < HEADER.size + self._length():
            chunk = await stdout.receive_some()
            if not chunk:
                raise WorkerGoneError("the bots' process ended mid-thought")
            self._pending += chunk
        end = HEADER.size + self._length()
        body, self._pending = self._pending[HEADER.size : end], self._pending[end:]
        answer: tuple[str, Any] = pickle.loads(body)
        return answer

    def _length(self) -> int:
        (length,) = HEADER.unpack_from(self._pending)
        return int(length)

    async def aclose(self) -> None:
        """End the process now (it finishes a thought under way first, for up to STOP_S)."""
        process = self._process
        self._closed.set()
        if process is not None:
            with trio.CancelScope(shield=True):
                await process.wait()


async def stop(process: trio.Process) -> None:
    """Close the worker's pipe and wait for it to end; kill it if it takes over STOP_S."""
    if process.stdin is not None:
        await process.stdin.aclose()
    with trio.move_on_after(STOP_S):
        await process.wait()
    if process.returncode is None:
        process.kill()
        await process.wait()
