"""The bots' worker process (``python -m p2pgenius.bots.thinker``): it answers the thoughts its
peer asks on standard input, one at a time, on standard output (the peer's side, which starts it
and asks: :mod:`p2pgenius.bots.worker`).

It imports no trio and no networking: a process that only thinks starts in about a third of the
time the peer's modules would take it (a demo starts six at once), and a bot's first move comes
that much sooner. Each seat's bot is made the first time that seat thinks, with the seed the peer
gives it.
"""

from __future__ import annotations

import pickle
import signal
import struct
import sys
from typing import Any, BinaryIO, Final

from p2pgenius.bots.registry import Bot, make_bot, plain

HEADER: Final = struct.Struct("!I")
"""Each message on the pipe: its length, then its pickle (both ends are this program's own)."""
NO_GAME: Final = "no game"
"""The answer of a worker that does not know the game (one added to this process's table only,
as tests do): its bots think in a thread instead."""


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """The process's side: answer every thought asked on ``requests`` until it closes."""
    from p2pgenius.games.catalog import PLUGINS, install_plugins, names  # noqa: PLC0415  (the child only)
    from p2pgenius.installed import may_name  # noqa: PLC0415  (the child only)

    if may_name(PLUGINS):
        install_plugins()
    bots: dict[int, Bot] = {}
    while (request := _read(requests)) is not None:
        game, level, seed, seat, state = pickle.loads(request)
        answer: tuple[str, Any]
        if game not in names():
            answer = (NO_GAME, f"{game} is not in this process's table of games")
        else:
            try:
                if seat not in bots:
                    bots[seat] = make_bot(game, level, seed=seed)
                answer = ("ok", plain(bots[seat].choose(state, seat)))
            except Exception as exc:  # (said to the peer, which stops the match with it)
                answer = ("error", f"{type(exc).__name__}: {exc}")
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        answers.write(HEADER.pack(len(data)) + data)
        answers.flush()


def _read(stream: BinaryIO) -> bytes | None:
    """One message, or None at the end of the pipe."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (length,) = HEADER.unpack(header)
    body = stream.read(length)
    return body if len(body) == length else None


def main() -> None:
    """``python -m p2pgenius.bots.thinker``: serve the peer on standard input and output. Ctrl-C
    in the terminal reaches every process of the command: the peer stops this one, in order."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
