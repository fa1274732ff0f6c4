"""A person's decisions asked in plain lines: the board as text, a question, a move typed (as on
the table's input line: the game's front end reads it and the engine checks it, and a mistake is
said in one line and asked again). What a correspondence visit asks its person with: one move a
visit, in any terminal, or from a script's standard input.

End of input (Ctrl-D, or a script with no more lines), or ``later``, puts the decision off: the
visit ends, sends what it has, and the move is asked again on the next visit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

import trio

from p2pgenius.games.registry import get_spec
from p2pgenius.net.correspondence import PostponedError
from p2pgenius.protocol.session import SessionView
from p2pgenius.ui.frontends import BoardRequest, frontend
from p2pgenius.ui.lines import plain
from p2pgenius.ui.moves import InputError, choices, parse

LATER = ("later", "quit", "q")
"""What puts a decision off for this visit."""
LIST = ("?", "moves")
"""What lists the legal moves (the screen's Tab)."""
KEYS = (
    ("(Tab lists them)", "(? lists them)"),
    ("press Tab for the legal moves", "type ? for the legal moves"),
    ("(F2: the whole rules page)", "(p2pgenius rules: the whole rules page)"),
    ("  (Up/Down: older/newer turns)", ""),
)
"""The screen's keys, as the board and the questions name them, and what does it here."""


def in_lines(text: str) -> str:
    """``text`` with the screen's keys put as they are here."""
    for key, here in KEYS:
        text = text.replace(key, here)
    return text


def seat_view(session: SessionView, seat: int) -> Mapping[str, Any] | None:
    """``seat``'s view of the state (the latest view claim while it is in the dark)."""
    engine, state = session.engine, session.state
    if engine is None or state is None:
        return None
    if session.in_dark and session.view_claim is not None:
        view = dict(session.view_claim)
    else:
        view = dict(engine.view(state, seat))
    stage, game = session.stage, session.game_name
    if stage is not None and game is not None and get_spec(game).sealed:
        # (who has chosen this turn, as the screen's board says it: the seat asked has not)
        view["submitted"] = [
            "chosen" if s in stage.chosen and s != seat else None for s in range(len(session.owner))
        ]
    return view


@dataclass
class LinePrompt:
    """Asks a person for each decision in plain lines on ``out``, reading with ``read`` (it is
    given the prompt; EOFError: put off). ``echo``: write what was read after its prompt (input
    from a script, which a terminal does not echo: each answer then ends its prompt's line)."""

    out: TextIO
    read: Callable[[str], str] = input
    ascii_only: bool = False
    width: int = 80
    echo: bool = False
    unasked: Callable[[], bool] = lambda: False
    """Discards what was typed before the prompt, saying whether there was any (a terminal's:
    a move typed while a ``--stay`` visit waited would answer a later question unseen)."""
    memory: Callable[[SessionView], Mapping[str, Any] | None] = lambda session: None
    """What the game's front end keeps of the match so far, as the screen's would (the duel's
    turn history marks each gesture that completed a spell from it)."""

    def say(self, text: str) -> None:
        self.out.write(in_lines(text) + "\n")
        self.out.flush()

    async def ask(self, prompt: str) -> str:
        """One line typed after ``prompt`` (PostponedError at the end of input, or ``later``)."""
        if self.unasked():
            self.say("(what was typed while nothing was asked is set aside: type it again at the question)")
        try:
            # (abandoned on Ctrl-C: the thread waits on the line in vain, and the visit stops at
            # once, saying how to carry on, where it waited for Enter first)
            text = await trio.to_thread.run_sync(self.read, prompt, abandon_on_cancel=True)
        except EOFError:
            if self.echo:
                self.say("")
            raise PostponedError("no move typed") from None
        if self.echo:
            self.say(text)
        if text.strip().lower() in LATER:
            raise PostponedError("put off")
        return text

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        """``seat``'s board and question, then moves read until one holds (and is confirmed, if
        the front end asks that)."""
        game, view = session.game_name, seat_view(session, seat)
        if game is None or view is None:
            raise PostponedError("nothing to decide from yet")
        names = {s: session.names[p] for s, p in enumerate(session.owner)}
        front = frontend(game)
        request = BoardRequest(
            game,
            view,
            names,
            ascii_only=self.ascii_only,
            hints=False,
            mine=session.my_seats,
            width=self.width,
            memory=self.memory(session),
        )
        self.say(plain(front.board(request)))
        question = front.question(view, seat, names)
        self.say(f"{question.text} ('later' to decide on your next visit)")
        while True:
            text = await self.ask(f"{question.prompt}> ")
            if text.strip().lower() in LIST or not text.strip():
                listed = choices(game, session.state, seat, "", hints=False)
                self.say("legal now: " + ", ".join(choice.text for choice in listed[:40]) if listed else "")
                continue
            try:
                parsed = parse(game, text, session.state, seat)
            except InputError as exc:
                self.say(str(exc))
                continue
            if not parsed.confirm or (await self.ask(f"{parsed.confirm} (y/n)> ")).strip().lower() in (
                "y",
                "yes",
            ):
                return parsed.action


def discard_unasked(fd: int) -> bool:
    """Discard what a terminal ``fd`` holds unread (typed before a question was asked); whether
    it held anything. A terminal that cannot tell (or no terminal): nothing discarded."""
    import select  # noqa: PLC0415  (a terminal's alone)
    import termios  # noqa: PLC0415

    try:
        waiting = bool(select.select([fd], [], [], 0)[0])
        if waiting:
            termios.tcflush(fd, termios.TCIFLUSH)
    except (OSError, ValueError, termios.error):
        return False
    return waiting
