"""A person's decisions asked in plain lines: the board as text, a question, a move typed (as on
the table's input line: the game's front end reads it and the engine checks it, and a mistake is
said in one line and asked again). What a correspondence visit asks its person with: one move a
visit, in any terminal, or from a script's standard input.

End of input (Ctrl-D, or a script with no more lines), or ``later``, puts the decision off: the
visit ends, sends what it has, and the move is asked again on the next visit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TextIO

import trio

from p2pgenius.net.correspondence import Decide, PostponedError
from p2pgenius.protocol.session import SessionView
from p2pgenius.ui.frontends import BoardRequest, frontend
from p2pgenius.ui.lines import plain
from p2pgenius.ui.moves import InputError, parse

LATER = ("later", "quit", "q")
"""What puts a decision off for this visit."""


def seat_view(session: SessionView, seat: int) -> Mapping[str, Any] | None:
    """``seat``'s view of the state (the latest view claim while it is in the dark)."""
    engine, state = session.engine, session.state
    if engine is None or state is None:
        return None
    if session.in_dark and session.view_claim is not None:
        return dict(session.view_claim)
    return dict(engine.view(state, seat))


def line_decider(
    out: TextIO, read: Callable[[str], str] = input, *, ascii_only: bool = False, width: int = 80
) -> Decide:
    """A decider that shows ``seat``'s board on ``out`` and reads its move with ``read`` (it is
    given the prompt; EOFError: put off)."""

    async def decide(session: SessionView, seat: int) -> Mapping[str, Any] | None:
        game, view = session.game_name, seat_view(session, seat)
        if game is None or view is None:
            raise PostponedError("nothing to decide from yet")
        names = {s: session.names[p] for s, p in enumerate(session.owner)}
        front = frontend(game)
        board = front.board(
            BoardRequest(
                game, view, names, ascii_only=ascii_only, hints=False, mine=session.my_seats, width=width
            )
        )
        out.write(plain(board) + "\n")
        question = front.question(view, seat, names)
        out.write(f"{question.text} ('later' to decide on your next visit)\n")
        out.flush()
        while True:
            try:
                text = await trio.to_thread.run_sync(read, f"{question.prompt}> ")
            except EOFError:
                raise PostponedError("no move typed") from None
            if text.strip().lower() in LATER:
                raise PostponedError("put off")
            try:
                parsed = parse(game, text, session.state, seat)
            except InputError as exc:
                out.write(f"{exc}\n")
                out.flush()
                continue
            if parsed.confirm:
                try:
                    answer = await trio.to_thread.run_sync(read, f"{parsed.confirm} (y/n)> ")
                except EOFError:
                    raise PostponedError("no answer typed") from None
                if answer.strip().lower() not in ("y", "yes"):
                    continue
            return parsed.action

    return decide
