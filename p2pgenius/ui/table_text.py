"""What the match screen says: the status bar, the board, the clocks, the question being asked
and the prompt, the completions, the log and the chat, the story of a stopped match. Read from
the screen's :class:`TableState` and the peer's read-only session, as styled lines and words;
nothing here changes either."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from p2pgenius.durations import words
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.net.lobby import INVITED_READY_S, READY_S
from p2pgenius.protocol.bodies import SETUP
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.session import SessionView
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import Question, frontend
from p2pgenius.ui.lines import Line, width_of, wrap_all
from p2pgenius.ui.lobby import invite_lines, waiting_lines
from p2pgenius.ui.peer_adapter import PeerAdapter
from p2pgenius.ui.render import BoardRequest, Glyphs, clock_text, clocks_line, seat_name
from p2pgenius.ui.table_state import CHAT, TableState, person_seat, seat_names


class TableText:
    """The words and lines of one player's screen."""

    def __init__(self, state: TableState, adapter: PeerAdapter) -> None:
        self.state = state
        self.adapter = adapter

    @property
    def session(self) -> SessionView | None:
        return self.adapter.session

    def game(self) -> str | None:
        return self.state.game(self.session)

    def names(self) -> dict[int, str]:
        return seat_names(self.session)

    def view(self) -> Mapping[str, Any] | None:
        """The person's seat's view of the state (the latest view claim while in the dark)."""
        return self.state.seat_view(self.session)

    def outcome_text(self) -> str:
        return self.state.outcome_text(self.session)

    # -- the board and the bars around it --------------------------------------------------------

    def board_lines(self, width: int = 80, height: int = 40, *, invite_apart: bool = False) -> list[Line]:
        """The board for ``width`` columns and about ``height`` rows (the lobby, or the wait for
        players, before the match; ``invite_apart``: its invite is across the screen)."""
        game, view = self.game(), self.view()
        session = self.session
        if game is None or view is None or session is None:
            return wrap_all(self.waiting_lines(width, invite_apart=invite_apart), width)
        try:
            lines = frontend(game).board(self._request(game, view, session, width, height))
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            # Only a peer's claim can be malformed (it is checked in full once its seat sees again).
            lines = [[("class:effect", f" the board cannot be drawn from what the peer sent ({exc!r})")]]
        return wrap_all(lines, width)

    def _request(
        self, game: str, view: Mapping[str, Any], session: SessionView, width: int, height: int
    ) -> BoardRequest:
        state = self.state
        return BoardRequest(
            game,
            view,
            self.names(),
            ascii_only=state.ascii_only,
            hints=state.hints,
            mine=session.my_seats,
            width=width,
            height=height,
            memory=state.memory,
            scroll=state.history_back,
        )

    def scroll_limit(self, width: int, height: int) -> int:
        """How far back the board's history (the duel's turns) can scroll at this size."""
        game, view, session = self.game(), self.view(), self.session
        if game is None or view is None or session is None:
            return 0
        try:
            return frontend(game).scroll_limit(self._request(game, view, session, width, height))
        except (LookupError, TypeError, ValueError, AttributeError):
            return 0

    def waiting_lines(self, width: int = 80, *, invite_apart: bool = False) -> list[Line]:
        """The board before the match: the lobby, or the wait for players."""
        peer = self.adapter.peer
        if self.state.lobby is not None or peer is None:
            return waiting_lines(self.state, None, width)
        return waiting_lines(self.state, peer.identity.fingerprint, width, invite_apart=invite_apart)

    def invite_banner(self, width: int) -> list[Line]:
        """A host's invite across a wide screen while it waits for players, on rows with nothing
        beside them (a row selection copies the invite alone); none once the match begins."""
        waiting = self.game() is None or self.view() is None or self.session is None
        if not waiting or not self.state.invite or self.state.lobby is not None or self.adapter.peer is None:
            return []
        return invite_lines(self.state, width)

    def status_lines(self, width: int = 80) -> list[Line]:
        """The status bar: the game, you, the others with their fingerprints, the connection; on
        two lines when one is too narrow for them."""
        session = self.session
        game = self.game()
        title = get_spec(game).title if game is not None else ""
        first: Line = [("class:status.title", f" p2pgenius {game or ''} ".replace("  ", " "))]
        others: Line = []
        if session is not None and session.owner:
            seat = person_seat(session)
            if seat is not None:
                first.append(("class:status", f" you: {seat_name(self.names(), seat)} "))
            for p in range(len(session.keys)):
                if p == session.me:
                    continue
                seats = "/".join(f"p{s}" for s, owner in enumerate(session.owner) if owner == p)
                others.append(
                    ("class:status", f" {session.names[p]} ({seats}) {fingerprint(session.keys[p])} ")
                )
        elif title:
            first.append(("class:status", f" {title} "))
        good = self.state.connection == "connected"
        tail: Line = [
            ("class:status.good" if good else "class:status.warn", f" {self.state.connection} "),
            ("class:status", " F1 help "),
        ]
        one = first + others + tail
        if width_of(one) <= width:
            return [one]
        short = [("class:status.title", f" {game} " if game else " p2pgenius "), *first[1:]]
        if width_of(short + others + tail) <= width:
            return [short + others + tail]
        if self.state.finished and width_of(first + tail) > width:
            # (the result's words are on the board, the turn line and the log: here, that it is over)
            tail[0] = ("class:status.warn", " the match is over ")
        return [first + tail, others] if others else [first + tail]

    def clock_line(self, width: int = 200) -> Line:
        """Every seat's clock, fitted to ``width``, and what happens when, in words where they
        fit ("Uma has chosen and waits; you have 9:12"); stopped once the match is over."""
        if self.state.finished:  # nothing runs once the match is over
            return [("class:label", " clocks "), ("class:dim", " stopped: the match is over")]
        names = self.names()
        mine = self.session.my_seats if self.session is not None else ()
        for seat in mine[1:]:  # a bot this machine plays beside the person: not the person's name
            names[seat] = f"{names.get(mine[0], 'your')}'s bot"
        line = clocks_line(self.state.clocks, names, Glyphs.pick(self.state.ascii_only), width)
        words = self.clock_words()
        if words and width_of(line) + len(words) + 3 <= width:
            line = [*line, ("class:dim", f" - {words}")]
        return line

    def clock_words(self) -> str:
        """Whose clock runs and who waits, in words: "Uma has chosen and waits; you have 9:12",
        "you have chosen; Uma has 6d 23:59" ("" when nothing runs)."""
        session, readings = self.session, self.state.clocks
        stage = session.stage if session is not None else None
        if session is None or stage is None or not any(on for _, _, on in readings.values()):
            return ""
        names, mine = self.names(), set(session.my_seats)
        chosen, thinking = [], []  # (who has chosen first: the others' clocks are what runs)
        for seat, (_, left, on) in sorted(readings.items()):
            who = "you" if seat in mine else seat_name(names, seat)
            has = "have" if seat in mine else "has"
            if seat in stage.chosen and seat in stage.waiting:
                stands = f" (it stands in {clock_text(left)})" if on and seat not in stage.settled else ""
                chosen.append(f"{who} {has} chosen" + ("" if seat in mine else " and waits") + stands)
            elif on:
                thinking.append(f"{who} {has} {clock_text(left)}")
        said = chosen + thinking
        return "; ".join(said)

    def feed_lines(self, *, chat: bool | None = None) -> list[Line]:
        """The log (``chat`` False), the chat (True), or both in order (None), as lines."""
        out: list[Line] = []
        for kind, text in self.state.feed:
            if chat is None or chat == (kind == CHAT):
                out.append([("class:chat" if kind == CHAT else "", text)])
        return out

    # -- what is being decided -------------------------------------------------------------------

    def prompt(self) -> str:
        """What the input line is waiting for."""
        if self.state.confirming is not None or self.adapter.lobby_answered is not None:
            return "y/n> "
        session = self.session
        if session is None or self.state.finished:
            if self.state.chat_closed:
                return "done> "  # (chat reaches nobody: only Ctrl-Q is left to do)
            return "chat> " if session is not None and session.terms is not None else "> "
        seat = person_seat(session)
        if seat is not None and seat in self.state.asking:
            question = self.question()
            return f"{question.prompt}> " if question is not None else "move> "
        if seat is not None and seat in session.unsettled():
            return "change> "
        return "chat> "

    def question(self) -> Question | None:
        """What the person is being asked now (None when nothing is)."""
        session = self.session
        game = self.game()
        view = self.view()
        seat = person_seat(session) if session is not None else None
        if session is None or game is None or view is None or seat is None or seat not in self.state.asking:
            return None
        try:
            return frontend(game).question(view, seat, self.names())
        except (LookupError, TypeError, ValueError, AttributeError):
            return Question("move", "your move: Tab lists the legal ones")

    def expected(self) -> str:
        """What is being decided now, in words (what the match waits for when it is not you)."""
        state = self.state
        if self.adapter.lobby_answered is not None:
            peer = self.adapter.peer
            invited = peer is not None and peer.token is not None
            minutes = round((INVITED_READY_S if invited else READY_S) / 60)
            within = "a minute" if minutes == 1 else f"{minutes} minutes"
            lobby = self.state.lobby or {}
            fast = (
                "; fast: join, and propose fast turns"
                if not lobby.get("options", {}).get("fast") and self._sealed(lobby.get("game"))
                else ""
            )
            return f"join this match, with these players and options? y or n{fast} (within {within})"
        if state.confirming is not None:
            return f"{state.confirming[0]}: send it? y or n (the key alone)"
        session = self.session
        if session is None or session.terms is None:
            return ""
        if state.finished:
            if state.result is not None:
                return f"match over: {self.outcome_text()}. Ctrl-Q leaves."
            return "the match stopped. Ctrl-Q leaves."
        seat = person_seat(session)
        question = self.question()
        if question is not None:
            return question.text
        if seat is not None and seat in session.unsettled():
            return self._unsettled(seat)
        waiting = [s for s in session.owed() if s not in session.my_seats]
        said = [self._idle(seat)] if seat is not None else []
        if waiting:
            said.append("waiting for " + ", ".join(seat_name(self.names(), s) for s in waiting))
        return "; ".join(text for text in said if text)

    def _idle(self, seat: int) -> str:
        """The game's words for a person asked nothing (a pirate that is out)."""
        game, view = self.game(), self.view()
        if game is None or view is None:
            return ""
        try:
            return frontend(game).idle(view, seat, self.names())
        except (LookupError, TypeError, ValueError, AttributeError):
            return ""

    @staticmethod
    def _sealed(game: object) -> bool:
        """Whether ``game`` (a lobby's) has sealed turns, which may be fast."""
        try:
            return get_spec(str(game)).sealed
        except P2PGeniusError:
            return False

    def _unsettled(self, seat: int) -> str:
        """The person chose and may still change it: what it chose, and how to end the wait."""
        session = self.session
        assert session is not None
        chosen = self.state.my_choice(session, seat)
        did = f"you chose {chosen}" if chosen else "you have chosen"
        if seat in self.state.settled:
            return f"{did}; it stands: the turn resolves once every choice does"
        stage = session.stage
        others = [s for s in (stage.waiting if stage else ()) if s not in session.my_seats]
        standing = [s for s in others if stage is not None and s in stage.settled]
        if standing and len(standing) == len(others):
            who = " and ".join(seat_name(self.names(), s) for s in standing)
            ready = f"{who} is done: `done` resolves the turn now"
        else:
            ready = "`done` when you are sure (the turn resolves once both are)"
        return f"{did}; {ready}, or change it until {self.time_words()}"

    def time_words(self) -> str:
        """When this match's main time limit runs out, in words: "the turn's time is up (20s a
        turn)"."""
        game = self.game()
        session = self.session
        if game is None or session is None or session.terms is None or not get_spec(game).time_options:
            return "the time is up"
        option = get_spec(game).time_options[0]
        seconds = int(session.terms.get("options", {}).get(option.name, option.seconds))
        kind = option.name.removesuffix("_seconds")
        if seconds <= 0:  # (terms no engine takes: the match stops on them)
            return f"the {kind}'s time is up"
        return f"the {kind}'s time is up ({words(seconds)} a {kind})"

    def completions(self, typed: str) -> list[moves.Choice]:
        """The legal moves for what is typed so far (none while the person is not asked)."""
        session = self.session
        game = self.game()
        if session is None or game is None:
            return []
        seat = person_seat(session)
        if seat is None or (seat not in self.state.asking and seat not in session.unsettled()):
            return []
        if session.in_dark:  # this machine does not know the state
            return moves.dark_choices(game, typed, seat)
        return moves.choices(game, session.state, seat, typed, hints=self.state.hints)

    def when(self, stage: int) -> str:
        """A stage in the words the rules pages use: "at turn 4" (the duel), "in round 2, at step
        12" (a game played in rounds), "at the coin flip", "after the game's end"."""
        game, session = self.game(), self.session
        if stage == SETUP:
            return "at the coin flip, before the seats were dealt"
        if stage < 0 or game is None or session is None or session.state is None:
            return "after the game's end"
        front = frontend(game)
        try:
            view = front.spectator_view(session.state)
            if front.replay_unit == "stage":
                return _in_round(view, f"at step {stage + 1}")
            number = front.replay_number(stage, view)
        except (LookupError, TypeError, ValueError, AttributeError):
            return f"at step {stage + 1}"
        # (The number is that of a step played, read after it: a stage still open is the next.)
        playing = session.stage is not None and session.stage.number == stage
        return f"at {front.replay_unit} {number + 1 if playing else number}"

    def fault_text(self) -> str:
        """The whole story of a stopped match, for the fault screen."""
        fault = self.state.fault
        if fault is None:
            return ""
        session = self.session
        who = "a peer" if fault.peer is None or session is None else session.names[fault.peer]
        kinds = {
            FaultKind.CHEAT: f"{who} broke the rules, and the signed messages prove it.",
            FaultKind.DESYNC: (
                f"{who}'s game state differs from ours: one of the two programs is wrong or altered."
            ),
            FaultKind.FORFEIT: f"{who} stopped answering and forfeits.",
            FaultKind.CONTESTED: "A forfeit and its answer crossed: nobody can tell who was silent.",
        }
        peer = self.adapter.peer
        path = peer.files.transcript if peer is not None else Path("?")
        return (
            f"THE MATCH STOPPED ({fault.kind}, {self.when(fault.stage)})\n\n"
            f"{kinds.get(fault.kind, '')}\n{fault.reason}\n\n"
            f"The evidence is in the transcript:\n  {path}\n"
            f"Anyone can check it:\n  p2pgenius verify {path}\n\n"
            "Press Ctrl-Q to leave."
        )


def _in_round(view: Mapping[str, Any], step: str) -> str:
    """``step`` with the round it is in, where the game's view says one (the rules pages of a game
    played in rounds count them): "in round 2, at step 12"."""
    number = view.get("round")
    return f"in round {number}, {step}" if type(number) is int and number > 0 else step
