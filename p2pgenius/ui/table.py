"""The state of one player's screen, kept apart from prompt_toolkit so it can be tested headless.

Both sides call in on one thread: the trio network layer (in guest mode on the asyncio loop) reports
events and asks for decisions; the prompt_toolkit application reads the text to show and hands over
what the player typed. Calls the other way go through ``run_sync_soon`` of trio's token, so a key
press never runs trio code outside trio.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from p2pgenius import wording
from p2pgenius.bots.driver import BotDriver
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.net.events import (
    ClockWarning,
    ConnectionLost,
    Listening,
    LobbyShown,
    NetEvent,
    PeerBack,
    Reconnected,
    Reconnecting,
)
from p2pgenius.net.peer import Peer, lobby_text
from p2pgenius.protocol.events import Applied, BlindClaim, Event, Fault, MatchOver, SeatsDealt
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.session import Session
from p2pgenius.rules_pages import rules_text
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import frontend
from p2pgenius.ui.render import Glyphs, Line, board, clocks_line, seat_name

LOG_LINES = 400


class Table:
    """What one player sees and may do."""

    def __init__(
        self,
        *,
        ascii_only: bool = False,
        hints: bool = False,
        partner_level: str | None = None,
        game: str | None = None,
        partner_delay: float = 0.3,
    ) -> None:
        self.game_name = game  # known before the terms when hosting
        self.address = ""  # where a host listens
        self.ascii_only = ascii_only
        self.hints = hints
        self._peer: Peer | None = None  # see the property: it takes the peer's typed events
        self.token: trio.lowlevel.TrioToken | None = None
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.chat_lines: deque[str] = deque(maxlen=LOG_LINES)
        self.asking: dict[int, int] = {}  # the person's seats asked to decide -> stage
        self.chosen: dict[int, str] = {}  # what the person chose this stage (a sealed choice may change)
        self.message = ""  # one line of feedback under the board
        self.confirming: tuple[str, int, moves.Parsed] | None = None
        self.fault: Fault | None = None
        self.result: Mapping[str, Any] | None = None
        self.blind_view: Mapping[str, Any] | None = None
        self.connection = "connecting"
        self.lobby: Mapping[str, Any] | None = None
        self.clocks: dict[int, tuple[str, float, bool]] = {}
        self.help_open = False
        self.rules_open = False
        self.rules = ""
        self.leaving = False  # Ctrl-Q pressed once: a second one leaves
        self.lobby_answered: trio.Event | None = None  # a joiner's question about the lobby
        self.answer: bool | None = None
        self.finished = False
        # Bots in this peer's other seats (a pause before each move lets the person follow it).
        self.partners = BotDriver(partner_level, delay=partner_delay)
        self.invalidate: Callable[[], None] = lambda: None

    # -- the trio side -------------------------------------------------------------------------

    @property
    def peer(self) -> Peer | None:
        return self._peer

    @peer.setter
    def peer(self, peer: Peer | None) -> None:
        """The peer this screen shows; its network events (status, clock warnings) come to
        :meth:`net_event`."""
        self._peer = peer
        if peer is not None:
            peer.notify = self.net_event

    @property
    def session(self) -> Session | None:
        return self.peer.session if self.peer is not None else None

    def person_seat(self, session: Session) -> int | None:
        """The seat the person plays: the first of this peer's; bots fill the others."""
        return session.my_seats[0] if session.my_seats else None

    async def decide(self, session: Session, seat: int) -> Mapping[str, Any] | None:
        """A decision for a local seat: the person's (typed), or a bot partner's."""
        if seat != self.person_seat(session):
            return await self.partners.decide(session, seat)
        number = session.stage.number if session.stage is not None else -1
        self.asking[seat] = number
        if self.message.startswith("sent: "):
            self.message = ""
        self.invalidate()
        try:
            await trio.sleep_forever()  # the decision arrives through Peer.offer
        finally:
            if self.asking.get(seat) == number:
                del self.asking[seat]
            self.invalidate()
        raise AssertionError("unreachable")

    def report(self, session: Session, event: Event) -> None:
        """A session event: what it changes on the screen, and its words in the log (chat beside
        it)."""
        if isinstance(event, SeatsDealt):
            self.connection = "connected"
        elif isinstance(event, Applied):
            self.chosen.clear()
            if not session.behind:
                self.blind_view = None
        elif isinstance(event, BlindClaim):
            self.blind_view = event.view
        elif isinstance(event, Fault):
            self.fault = event
            self.finished = True
        elif isinstance(event, MatchOver):
            self.result = event.outcome
            self.finished = True
        for told in wording.tell(session, event):
            if told.kind == wording.CHAT:
                self.chat_lines.append(wording.printable(told.text))
            else:
                self.line(told.text)
        self.invalidate()

    def line(self, text: str) -> None:
        """A line for the log (what the network layer says, too)."""
        self.log.append(wording.printable(text))
        self.invalidate()

    def net_event(self, event: NetEvent) -> None:
        """What the network layer tells the screen as data (its words come to :meth:`line`):
        the connection status, a host's address, and the person's clock warnings."""
        if isinstance(event, Listening):
            self.address = event.address
            self.connection = "waiting for players"
        elif isinstance(event, LobbyShown):
            self.connection = "in the lobby"
        elif isinstance(event, ConnectionLost | Reconnecting):
            self.connection = wording.printable(event.text)
        elif isinstance(event, Reconnected | PeerBack):
            self.connection = "connected"
        elif isinstance(event, ClockWarning):
            session = self.session
            if session is not None and event.seat == self.person_seat(session):
                self.message = f"clock: {event.words}"  # under the board, not only the log
        self.invalidate()

    async def confirm_lobby(self, lobby: Mapping[str, Any]) -> bool:
        """A joiner sees the table and the options first, and says whether it plays."""
        self.lobby = lobby
        self.answer = None
        self.message = "join this match, with these options? (y/n)"
        self.invalidate()
        answered = self.lobby_answered = trio.Event()
        await answered.wait()
        self.lobby_answered = None
        self.message = "" if self.answer else "you declined"
        return bool(self.answer)

    async def keep_time(self) -> None:
        """Refresh the clocks a few times a second (trio's clock is read only inside trio)."""
        while True:
            if self.peer is not None:
                self.clocks = self.peer.clock_readings()
                self.invalidate()
            await trio.sleep(0.25)

    # -- the person's side ---------------------------------------------------------------------

    def game(self) -> str | None:
        session = self.session
        if session is None or session.terms is None:
            return self.game_name or (str(self.lobby["game"]) if self.lobby else None)
        return str(session.terms["game"])

    def enter(self, text: str) -> None:
        """What the person typed and sent with Enter."""
        text = text.strip()
        self.message = ""
        if self.lobby_answered is not None and self.token is not None:
            self.answer = text.lower() in ("y", "yes")
            self.token.run_sync_soon(self.lobby_answered.set)
            return
        if self.confirming is not None:
            _, seat, parsed = self.confirming
            self.confirming = None
            if text.lower() in ("y", "yes"):
                self._send(seat, parsed)
            else:
                self.message = "not sent"
            self.invalidate()
            return
        if not text:
            return
        lowered = text.lower()
        if lowered in ("help", "?"):
            self.help_open = not self.help_open
        elif lowered == "rules":
            self.show_rules()
        elif lowered == "hint":
            self.hints = not self.hints
            self.message = f"hints {'on' if self.hints else 'off'}"
        elif lowered.startswith("say ") or text.startswith("'"):
            words = text[4:] if lowered.startswith("say ") else text[1:]
            self._chat(words.strip())
        else:
            try:
                self._move(text)
            except P2PGeniusError as exc:  # (moves.parse says InputError; anything else, too)
                self.message = str(exc)
            except (LookupError, TypeError, ValueError) as exc:
                self.message = f"not understood: {exc}"
        self.invalidate()

    def show_rules(self) -> None:
        """Open the rules page of this game over the board (Esc closes it)."""
        game = self.game()
        if game is None:
            self.message = "the rules show once the game is known"
            return
        try:
            self.rules = rules_text(game)
        except P2PGeniusError as exc:
            self.message = str(exc)
            return
        self.help_open = False
        self.rules_open = True

    def _chat(self, text: str) -> None:
        if not text or len(text) > 500:
            self.message = "a chat line has 1 to 500 characters"
            return
        if self.peer is None or self.token is None or self.session is None or self.session.terms is None:
            self.message = "chat opens when the match starts"
            return
        try:
            self.token.run_sync_soon(self.peer.chat, text)
        except trio.RunFinishedError:  # the match is over and the connections are closed
            self.message = "the match is over: nobody is listening any more"
            return
        self.chat_lines.append(f"{self.session.names[self.session.me or 0]} (you): {text}")

    def _move(self, text: str) -> None:
        session = self.session
        game = self.game()
        if session is None or game is None:
            self.message = "the match has not started yet"
            return
        seat = self.person_seat(session)
        changing = seat is not None and seat in session.unsettled()
        if seat is None or (seat not in self.asking and not changing):
            self.message = "not your move now (say TEXT chats)"
            return
        state = None if session.behind else session.state
        try:
            parsed = moves.parse(game, text, state, seat)
        except moves.InputError as exc:
            self.message = str(exc)
            return
        if parsed.confirm:
            self.confirming = (parsed.confirm, seat, parsed)
            self.message = f"{parsed.confirm}. Send it? (y/n)"
            return
        self._send(seat, parsed)

    def _send(self, seat: int, parsed: moves.Parsed) -> None:
        if self.peer is None or self.token is None:
            return
        self.token.run_sync_soon(self.peer.offer, seat, parsed.action)
        game = self.game()
        shown = "pass" if parsed.action is None or game is None else frontend(game).describe(parsed.action)
        self.chosen[seat] = shown
        self.asking.pop(seat, None)
        self.message = f"sent: {shown}"
        session = self.session
        if session is not None and session.terms is not None and not session.fast:
            self.message += " (you may change it until the time is up)"

    # -- what to show --------------------------------------------------------------------------

    def names(self) -> dict[int, str]:
        session = self.session
        if session is None or not session.owner:
            return {}
        return {seat: session.names[peer] for seat, peer in enumerate(session.owner)}

    def view(self) -> Mapping[str, Any] | None:
        """The person's seat's view of the state (the blindness claim while blind)."""
        session = self.session
        if session is None or session.game is None or session.state is None:
            return None
        seat = self.person_seat(session)
        if seat is None:
            return None
        if session.behind:  # blind: the latest claim (also right after a resume)
            claim = self.blind_view or session.behind[-1].claim
            view = dict(claim) if claim is not None else dict(session.game.view(session.state, seat))
        else:
            view = dict(session.game.view(session.state, seat))
        if len(session.my_seats) > 1:  # the other seats this machine holds (their cards show)
            view["partners"] = {s: session.game.view(session.state, s) for s in session.my_seats if s != seat}
        game = self.game()
        if game is not None and get_spec(game).sealed and session.stage is not None:
            stage = session.stage  # who has chosen this stage (and what the person chose)
            mine = self.chosen.get(seat)
            view["submitted"] = [
                (mine if s == seat and mine else ("chosen" if s in stage.commits and s != seat else None))
                for s in range(len(session.owner))
            ]
        return view

    def board_lines(self) -> list[Line]:
        game, view = self.game(), self.view()
        session = self.session
        if game is None or view is None or session is None:
            return self.waiting_lines()
        try:
            return board(
                game, view, self.names(), ascii_only=self.ascii_only, hints=self.hints, mine=session.my_seats
            )
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            # Only a peer's claim can be malformed (it is checked in full when the blindness ends).
            return [[("class:effect", f" the board cannot be drawn from what the peer sent ({exc!r})")]]

    def waiting_lines(self) -> list[Line]:
        if self.lobby is not None:
            return [[("class:title", " Lobby")], [("", " " + lobby_text(self.lobby))]]
        lines: list[Line] = [[("class:title", " Waiting for the other players")], []]
        if self.address and self.peer is not None:
            lines += [
                [("", " Tell them to run:")],
                [("class:strong", f"   p2pgenius join {self.address}")],
                [],
                [("", " and to check that the fingerprint they see for you is")],
                [("class:strong", f"   {self.peer.identity.fingerprint}")],
                [],
                [("class:dim", " (only the host needs a port the others can reach: see --bind)")],
            ]
        else:
            lines.append([("class:dim", " " + self.connection)])
        return lines

    def status_line(self) -> Line:
        session = self.session
        game = self.game() or "p2pgenius"
        parts: Line = [("class:status.title", f" p2pgenius {game} ")]
        if session is not None and session.owner:
            seat = self.person_seat(session)
            if seat is not None:
                parts.append(("class:status", f" you: {seat_name(self.names(), seat)} "))
            others = [
                f"{session.names[p]} {fingerprint(session.keys[p])}"
                for p in range(len(session.keys))
                if p != session.me
            ]
            parts.append(("class:status", " vs " + ", ".join(others) + " "))
        state = "class:status.good" if self.connection == "connected" else "class:status.warn"
        parts.append((state, f" {self.connection} "))
        parts.append(("class:status", " F1 help "))
        return parts

    def clock_line(self) -> Line:
        return clocks_line(self.clocks, self.names(), Glyphs.pick(self.ascii_only))

    def prompt(self) -> str:
        """What the input line is waiting for."""
        if self.confirming is not None or self.lobby_answered is not None:
            return "confirm (y/n)> "
        session = self.session
        if session is None or self.finished:
            return "chat> " if session is not None and session.terms is not None else "> "
        seat = self.person_seat(session)
        if seat is not None and seat in self.asking:
            return f"p{seat} move> "
        if seat is not None and seat in session.unsettled():
            return f"p{seat} change> "
        return "chat> "

    def expected(self) -> str:
        """One line: what the match waits for, in words."""
        session = self.session
        if session is None or session.terms is None:
            return ""
        if self.finished:
            if self.result is not None:
                return f"match over: {wording.outcome_words(self.result)}. Press Ctrl-Q to leave."
            return "the match stopped. Press Ctrl-Q to leave."
        seat = self.person_seat(session)
        if seat is not None and seat in self.asking:
            return f"your move (p{seat}): Tab lists the legal ones"
        if seat is not None and seat in session.unsettled():
            return "chosen; you may change it until the time is up"
        waiting = [s for s in session.owed() if s not in session.my_seats]
        if waiting:
            return "waiting for " + ", ".join(seat_name(self.names(), s) for s in waiting)
        return ""

    def completions(self, typed: str) -> list[moves.Choice]:
        session = self.session
        game = self.game()
        if session is None or game is None:
            return []
        seat = self.person_seat(session)
        if seat is None or (seat not in self.asking and seat not in session.unsettled()):
            return []
        if session.behind:  # blind: this machine does not know the state
            return moves.blind_choices(game, typed, seat)
        return moves.choices(game, session.state, seat, typed, hints=self.hints)

    def fault_text(self) -> str:
        """The whole story of a stopped match, for the fault screen."""
        fault = self.fault
        if fault is None:
            return ""
        session = self.session
        who = "a peer" if fault.peer is None or session is None else session.names[fault.peer]
        kinds = {
            "cheat": f"{who} broke the rules, and the signed messages prove it.",
            "desync": f"{who}'s game state differs from ours: one of the two programs is wrong or altered.",
            "forfeit": f"{who} stopped answering and forfeits.",
        }
        path = self.peer.files.transcript if self.peer is not None else Path("?")
        return (
            f"THE MATCH STOPPED ({fault.kind}, at stage {fault.stage})\n\n"
            f"{kinds.get(fault.kind, '')}\n{fault.reason}\n\n"
            f"The evidence is in the transcript:\n  {path}\n"
            f"Anyone can check it:\n  p2pgenius verify {path}\n\n"
            "Press Ctrl-Q to leave."
        )
