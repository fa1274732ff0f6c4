"""The state of one player's screen, kept apart from prompt_toolkit so it can be tested headless.

Both sides call in on one thread: the trio network layer (in guest mode on the asyncio loop) reports
events and asks for decisions; the prompt_toolkit application reads the text to show and hands over
what the player typed. Calls the other way go through ``run_sync_soon`` of trio's token, so a key
press never runs trio code outside trio (and once the match is over and trio has finished, a key
press says so instead of failing).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import trio

from p2pgenius import wording
from p2pgenius.bots.driver import BotDriver
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.net.events import (
    ClockWarning,
    ConnectionLost,
    DecisionRefused,
    Listening,
    LobbyShown,
    NetEvent,
    PeerBack,
    PeerJoined,
    Reconnected,
    Reconnecting,
)
from p2pgenius.net.keystore import load_pins
from p2pgenius.net.lobby import INVITED_READY_S, READY_S
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.events import Applied, BlindClaim, Event, Fault, MatchOver, SeatsDealt
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.session import Session, SessionView
from p2pgenius.protocol.transcript import records as read_records
from p2pgenius.rules_pages import rules_page
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import Question, frontend
from p2pgenius.ui.lines import Line, plural, width_of, wrap_all
from p2pgenius.ui.render import BoardRequest, Glyphs, board, clocks_line, seat_name

LOG_LINES: Final = 400
LOG: Final = "log"
CHAT: Final = "chat"
"""The kinds of the lines of :attr:`Table.feed`."""


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
        self.invite = ""  # a host's invite, to show joiners
        self.saved = ""  # the file the invite is saved in
        self.local_only = False  # the host listens on loopback: only this machine can join
        self.vouched = ""  # a joiner: why the host's key is known good already ("" if it is not)
        self.ascii_only = ascii_only
        self.hints = hints
        self._peer: Peer | None = None  # see the property: it takes the peer's typed events
        self.token: trio.lowlevel.TrioToken | None = None
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.chat_lines: deque[str] = deque(maxlen=LOG_LINES)
        self.feed: deque[tuple[str, str]] = deque(maxlen=LOG_LINES)  # the log and the chat, in order
        self.asking: dict[int, int] = {}  # the person's seats asked to decide -> stage
        self.chosen: dict[int, str] = {}  # what the person chose this stage (a sealed choice may change)
        self.message = ""  # one line of feedback under the input
        self.confirming: tuple[str, int, moves.Parsed] | None = None
        self.fault: Fault | None = None
        self.result: Mapping[str, Any] | None = None
        self.blind_view: Mapping[str, Any] | None = None
        self.connection = "connecting"
        self.lobby: Mapping[str, Any] | None = None
        self.clocks: dict[int, tuple[str, float, bool]] = {}
        self.help_open = False
        self.rules_open = False
        self.rules: list[tuple[str, str]] = []
        self.rules_scroll = 0
        self.follow = True  # the log shows its newest lines (PageUp stops that, End resumes it)
        self.log_top = 0  # the first line shown while not following
        self.leaving = False  # Ctrl-Q pressed once: a second one leaves
        self.lobby_answered: trio.Event | None = None  # a joiner's question about the lobby
        self.answer: bool | None = None
        self.finished = False
        self.memory: dict[str, Any] = {}  # what the game's front end keeps (a round's reckoning)
        self._shown: tuple[Any, ...] = ()  # the engine events of the last step, as shown
        self._quiet: list[str] = []  # lines of the network layer shown elsewhere than the log
        self._adopted: SessionView | None = None  # the session whose history the log holds
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
    def session(self) -> SessionView | None:
        session = self.peer.view if self.peer is not None else None
        if session is not None and session != self._adopted:
            self._adopt(session)
        return session

    def person_seat(self, session: SessionView) -> int | None:
        """The seat the person plays: the first of this peer's; bots fill the others."""
        return session.my_seats[0] if session.my_seats else None

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
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

    def report(self, session: SessionView, event: Event) -> None:
        """A session event: what it changes on the screen, and its words in the log (chat beside
        it)."""
        if session != self._adopted:
            self._adopt(session)
        if isinstance(event, SeatsDealt):
            self.connection = "connected"
        elif isinstance(event, Applied):
            self.chosen.clear()
            if not session.blind:
                self.blind_view = None
            self._applied(session, event)
            self.invalidate()
            return
        elif isinstance(event, BlindClaim):
            self.blind_view = event.view
        elif isinstance(event, Fault):
            self.fault = event
            self.finished = True
        elif isinstance(event, MatchOver):
            self.result = event.outcome
            self.finished = True
            self.asking.clear()
            self.message = ""
            self._log(f"the match is over: {self.outcome_text()}")
            self.invalidate()
            return
        self._tell(session, event)
        self.invalidate()

    def _tell(self, session: SessionView, event: Event) -> None:
        for told in wording.tell(session, event):
            if told.kind == wording.CHAT:
                text = wording.printable(told.text)
                self.chat_lines.append(text)
                self.feed.append((CHAT, text))
            else:
                self._log(told.text)

    def _applied(self, session: SessionView, event: Applied) -> None:
        """A step's engine events in the log, each once: a step that re-reports the events of
        the step before (a choice asked for after a turn resolved) adds only what is new. The
        very same event objects, not equal ones: a turn may well say what the turn before said."""
        events = tuple(item for item in event.events if isinstance(item, Mapping))
        fresh = events
        again = self._shown and len(events) >= len(self._shown)
        if again and all(a is b for a, b in zip(events, self._shown, strict=False)):
            fresh = events[len(self._shown) :]
        self._shown = events
        game = self.game()
        view = self.view()
        if game is None:
            return
        front = frontend(game)
        with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
            front.remember(self.memory, fresh, view)
        for text in front.log_lines(fresh, view, self.names()):
            self._log(text)

    def _log(self, text: str) -> None:
        text = wording.printable(text)
        self.log.append(text)
        self.feed.append((LOG, text))

    def line(self, text: str) -> None:
        """A line for the log (what the network layer says, too)."""
        if text in self._quiet:
            self._quiet.remove(text)  # shown elsewhere: the board, or under the input
        else:
            self._log(text)
        self.invalidate()

    def net_event(self, event: NetEvent) -> None:
        """What the network layer tells the screen as data (its words come to :meth:`line`):
        the connection status, a host's address, the person's clock warnings and refused
        choices (under the input, not in the log), the lobby (on the board)."""
        session = self.session
        person = self.person_seat(session) if session is not None else None
        if isinstance(event, Listening):
            self.address = event.address
            self.invite, self.saved = event.invite, event.saved
            self.local_only = event.local_only
            self.connection = "waiting for players"
        elif isinstance(event, LobbyShown):
            self.connection = "in the lobby"
            if self.lobby is None:
                self._log(
                    "the host's lobby: who is there, their fingerprints and the options are on the board"
                )
            self.lobby = event.lobby
            self.vouched = self._vouched(event.lobby)  # (once: the pins are on disk)
            with contextlib.suppress(LookupError, TypeError, ValueError):
                self._quiet.append(event.text)
        elif isinstance(event, PeerJoined):
            self._quiet.append(event.text)
            self._log(f"{event.name} joined; fingerprint {fingerprint(event.key)}")
        elif isinstance(event, ConnectionLost | Reconnecting):
            self.connection = wording.printable(event.text)
        elif isinstance(event, Reconnected | PeerBack):
            self.connection = "connected"
        elif isinstance(event, ClockWarning):
            if event.seat == person:
                self.message = f"clock: {event.words}"  # under the input, not only the log
        elif isinstance(event, DecisionRefused) and event.seat == person:
            self.message = f"refused: {wording.printable(event.reason)}; choose again"
            self._quiet.append(event.text)
        del self._quiet[:-20]  # (a line told quietly never comes)
        self.invalidate()

    async def confirm_lobby(self, lobby: Mapping[str, Any]) -> bool:
        """A joiner sees the table and the options first, and says whether it plays."""
        self.lobby = lobby
        self.answer = None
        self.message = ""
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

    def _to_trio(self, function: Callable[..., Any], *args: Any) -> bool:
        """Run ``function`` in trio soon; False if trio has finished (the match is over and its
        connections are closed)."""
        if self.token is None:
            return False
        try:
            self.token.run_sync_soon(function, *args)
        except trio.RunFinishedError:
            return False
        return True

    # -- after a resume: who is who, and what happened before --------------------------------

    def _adopt(self, session: SessionView) -> None:
        """The first sight of ``session``. A session rebuilt from its files (``p2pgenius resume``)
        already holds stages: the log and the chat come back from the transcript (the players'
        names came back with the terms)."""
        self._adopted = session
        peer = self.peer
        if peer is None or session.terms is None or not session.played:
            return
        try:
            transcript = peer.files.transcript.read_bytes()
        except (OSError, AttributeError):
            return
        self._replay(session, transcript)

    def _replay(self, session: SessionView, transcript: bytes) -> None:
        """The log and chat of a match so far, from its transcript (read as an observer would:
        what this machine received, nothing more)."""
        observer = Session(keys=list(session.keys), me=None, names=list(session.names))
        seat = self.person_seat(session)
        game = None
        try:
            for record in read_records(transcript):
                if record[0] != "msg" or not isinstance(record[1], bytes):
                    continue
                for event in observer.receive(record[1]):
                    if isinstance(event, Applied) and observer.game is not None and seat is not None:
                        game = game or frontend(str(observer.terms["game"]) if observer.terms else "")
                        view = observer.game.view(observer.state, seat)
                        events = [item for item in event.events if isinstance(item, Mapping)]
                        with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
                            game.remember(self.memory, events, view)
                        for text in game.log_lines(events, view, self.names()):
                            self._log(text)
                        self._shown = tuple(events)
                    elif not isinstance(event, MatchOver | Fault):
                        self._tell(observer.view, event)
        except (P2PGeniusError, LookupError, TypeError, ValueError) as exc:
            self._log(f"(the history stops here: {exc})")
        self._log("-- resumed: the match goes on from here --")

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
        if self.lobby_answered is not None:
            self.answer = text.lower() in ("y", "yes")
            if not self._to_trio(self.lobby_answered.set):
                self.message = "the host has gone"
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
        elif lowered.startswith("say ") or text.startswith("'") or lowered == "say":
            words = text[3:] if lowered.startswith("say") else text[1:]
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
            self.rules = rules_page(game, ascii_only=self.ascii_only)
        except P2PGeniusError as exc:
            self.message = str(exc)
            return
        self.help_open = False
        self.rules_open = True
        self.rules_scroll = 0

    def _chat(self, text: str) -> None:
        if not text or len(text) > 500:
            self.message = "a chat line has 1 to 500 characters (say TEXT)"
            return
        session = self.session
        if self.peer is None or session is None or session.terms is None:
            self.message = "chat opens when the match starts"
            return
        if self.finished or session.finished or session.fault is not None:
            self.message = "the match is over: the chat has closed"
            return
        if not self._to_trio(self.peer.chat, text):
            self.message = "the match is over: the chat has closed"
            return
        me = session.names[session.me or 0]
        self.chat_lines.append(f"{me} (you): {text}")
        self.feed.append((CHAT, f"{me} (you): {wording.printable(text)}"))

    def _move(self, text: str) -> None:
        session = self.session
        game = self.game()
        if session is None or game is None or session.terms is None:
            self.message = "the match has not started yet"
            return
        if self.finished:
            self.message = "the match is over (say TEXT no longer reaches anyone; Ctrl-Q leaves)"
            return
        seat = self.person_seat(session)
        changing = seat is not None and seat in session.unsettled()
        if seat is None or (seat not in self.asking and not changing):
            self.message = "not your move now: " + (self.expected() or "wait") + " (say TEXT chats)"
            return
        state = None if session.blind else session.state
        try:
            parsed = moves.parse(game, text, state, seat)
        except moves.InputError as exc:
            self.message = str(exc)  # (seats stay seats: a refusal may say what to type, "flip p0")
            return
        if parsed.confirm:
            self.confirming = (parsed.confirm, seat, parsed)
            self.message = f"{parsed.confirm}. Send it? (y/n)"
            return
        self._send(seat, parsed)

    def _send(self, seat: int, parsed: moves.Parsed) -> None:
        if self.peer is None or not self._to_trio(self.peer.offer, seat, parsed.action):
            self.message = "the match is over: nothing was sent"
            return
        game = self.game()
        shown = "pass" if parsed.action is None or game is None else frontend(game).describe(parsed.action)
        self.chosen[seat] = shown
        self.asking.pop(seat, None)
        self.message = f"sent: {shown}"
        if self._changeable():
            self.message += f"; you may change it until {self.time_words()}"

    def _changeable(self) -> bool:
        session = self.session
        return session is not None and session.terms is not None and not session.fast

    def time_words(self) -> str:
        """When this match's main time limit runs out, in words: "the turn's time is up (20 s a
        turn)"."""
        game = self.game()
        session = self.session
        if game is None or session is None or session.terms is None or not get_spec(game).time_options:
            return "the time is up"
        option = get_spec(game).time_options[0]
        seconds = int(session.terms.get("options", {}).get(option.name, option.seconds))
        kind = option.name.removesuffix("_seconds")
        return f"the {kind}'s time is up ({duration(seconds)} a {kind})"

    # -- what to show --------------------------------------------------------------------------

    def names(self) -> dict[int, str]:
        session = self.session
        if session is None or not session.owner:
            return {}
        return {seat: session.names[peer] for seat, peer in enumerate(session.owner)}

    def view(self) -> Mapping[str, Any] | None:
        """The person's seat's view of the state (the blindness claim while blind)."""
        session = self.session
        if session is None or session.engine is None or session.state is None:
            return None
        seat = self.person_seat(session)
        if seat is None:
            return None
        engine = session.engine
        if session.blind:  # blind: the latest claim (also right after a resume)
            claim = self.blind_view or session.blind_claim
            view = dict(claim) if claim is not None else dict(engine.view(session.state, seat))
        else:
            view = dict(engine.view(session.state, seat))
        if len(session.my_seats) > 1:  # the other seats this machine holds (their cards show)
            view["partners"] = {s: engine.view(session.state, s) for s in session.my_seats if s != seat}
        game = self.game()
        if game is not None and get_spec(game).sealed and session.stage is not None:
            stage = session.stage  # who has chosen this stage (and what the person chose)
            mine = self.chosen.get(seat)
            view["submitted"] = [
                (mine if s == seat and mine else ("chosen" if s in stage.chosen and s != seat else None))
                for s in range(len(session.owner))
            ]
        return view

    def board_lines(self, width: int = 80, height: int = 40) -> list[Line]:
        """The board for ``width`` columns and about ``height`` rows (the lobby, or the wait for
        players, before the match)."""
        game, view = self.game(), self.view()
        session = self.session
        if game is None or view is None or session is None:
            return wrap_all(self.waiting_lines(), width)
        try:
            lines = board(
                BoardRequest(
                    game,
                    view,
                    self.names(),
                    ascii_only=self.ascii_only,
                    hints=self.hints,
                    mine=session.my_seats,
                    width=width,
                    height=height,
                    memory=self.memory,
                )
            )
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            # Only a peer's claim can be malformed (it is checked in full when the blindness ends).
            lines = [[("class:effect", f" the board cannot be drawn from what the peer sent ({exc!r})")]]
        return wrap_all(lines, width)

    def _vouched(self, lobby: Mapping[str, Any]) -> str:
        """Why the host's key in ``lobby`` can be trusted already, in words, or "": the invite
        named it (the joiner checked it before its handshake ended), or the player was met before
        under this name with this key."""
        keys, names = list(lobby.get("keys", [])), list(lobby.get("names", []))
        if not keys or self.peer is None:
            return ""
        invited = getattr(self.peer, "expect_from", "") == "the invite"
        if invited and getattr(self.peer, "expect_key", None) == keys[0]:
            return "it is the key your invite names (if the invite came from the host, this is the host)"
        pins: dict[bytes, str] = {}
        with contextlib.suppress(P2PGeniusError, OSError):
            pins = load_pins(getattr(self.peer, "pin_dir", None))
        if names and pins.get(keys[0]) == names[0]:
            return f"it is the key {wording.printable(str(names[0]))} had when you last played"
        return ""

    def waiting_lines(self) -> list[Line]:
        if self.lobby is not None:
            return lobby_lines(self.lobby, self.vouched)
        lines: list[Line] = [[("class:title", " Waiting for the other players")], []]
        if self.invite and self.peer is not None:
            lines += [
                [("", " Whoever joins runs p2pgenius join with this invite (your addresses and key):")],
                [("class:strong", self.invite)],
            ]
            if self.saved:
                lines.append([("class:dim", f" (it is also in {self.saved}, to copy whole)")])
            lines += [
                [("", " They join with it. By phone or in person, check that they see your fingerprint")],
                [("class:strong", f"   {self.peer.identity.fingerprint}")],
            ]
            if self.local_only:
                lines.append([("class:dim", LOCAL_ONLY)])
        elif self.address and self.peer is not None:
            lines += [
                [("", " Tell them to run:")],
                [("class:strong", f"   p2pgenius join {self.address}")],
                [("", " and to check that the fingerprint they see for you is")],
                [("class:strong", f"   {self.peer.identity.fingerprint}")],
            ]
            if self.local_only:
                lines.append([("class:dim", LOCAL_ONLY)])
        else:
            lines.append([("class:dim", " " + self.connection)])
        return lines

    def status_lines(self, width: int = 80) -> list[Line]:
        """The status bar: the game, you, the others with their fingerprints, the connection; on
        two lines when one is too narrow for them."""
        session = self.session
        game = self.game()
        title = get_spec(game).title if game is not None else ""
        first: Line = [("class:status.title", f" p2pgenius {game or ''} ".replace("  ", " "))]
        others: Line = []
        if session is not None and session.owner:
            seat = self.person_seat(session)
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
        good = self.connection == "connected"
        tail: Line = [
            ("class:status.good" if good else "class:status.warn", f" {self.connection} "),
            ("class:status", " F1 help "),
        ]
        one = first + others + tail
        if width_of(one) <= width:
            return [one]
        short = [("class:status.title", f" {game} " if game else " p2pgenius "), *first[1:]]
        if width_of(short + others + tail) <= width:
            return [short + others + tail]
        return [first + tail, others] if others else [first + tail]

    def clock_line(self, width: int = 200) -> Line:
        """Every seat's clock, fitted to ``width``; stopped once the match is over."""
        if self.finished:  # nothing runs once the match is over
            return [("class:label", " clocks "), ("class:dim", " stopped: the match is over")]
        return clocks_line(self.clocks, self.names(), Glyphs.pick(self.ascii_only), width)

    def prompt(self) -> str:
        """What the input line is waiting for."""
        if self.confirming is not None or self.lobby_answered is not None:
            return "y/n> "
        session = self.session
        if session is None or self.finished:
            return "chat> " if session is not None and session.terms is not None else "> "
        seat = self.person_seat(session)
        if seat is not None and seat in self.asking:
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
        seat = self.person_seat(session) if session is not None else None
        if session is None or game is None or view is None or seat is None or seat not in self.asking:
            return None
        try:
            return frontend(game).question(view, seat, self.names())
        except (LookupError, TypeError, ValueError, AttributeError):
            return Question("move", "your move: Tab lists the legal ones")

    def outcome_text(self) -> str:
        """The result, told to the person: "you win (...)", "your team loses (...)"."""
        if self.result is None:
            return ""
        session = self.session
        mine = session.my_seats if session is not None else ()
        return wording.outcome_for(self.result, mine, self.names())

    def expected(self) -> str:
        """What is being decided now, in words (what the match waits for when it is not you)."""
        if self.lobby_answered is not None:
            invited = self.peer is not None and self.peer.token is not None
            minutes = round((INVITED_READY_S if invited else READY_S) / 60)
            within = "a minute" if minutes == 1 else f"{minutes} minutes"
            return f"join this match, with these players and options? y or n (within {within})"
        if self.confirming is not None:
            return f"{self.confirming[0]}: send it? y or n"
        session = self.session
        if session is None or session.terms is None:
            return ""
        if self.finished:
            if self.result is not None:
                return f"match over: {self.outcome_text()}. Ctrl-Q leaves."
            return "the match stopped. Ctrl-Q leaves."
        seat = self.person_seat(session)
        question = self.question()
        if question is not None:
            return question.text
        if seat is not None and seat in session.unsettled():
            chosen = self.chosen.get(seat)
            did = f"you chose {chosen}" if chosen else "chosen"
            return f"{did}; you may change it until {self.time_words()}"
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
        if session.blind:  # blind: this machine does not know the state
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

    def feed_lines(self, *, chat: bool | None = None) -> list[Line]:
        """The log (``chat`` False), the chat (True), or both in order (None), as lines."""
        out: list[Line] = []
        for kind, text in self.feed:
            if chat is None or chat == (kind == CHAT):
                out.append([("class:chat" if kind == CHAT else "", text)])
        return out


LOCAL_ONLY: Final = " (other machines can join only with --lan, or --upnp across a router)"
"""Under a host's invite when it listens on loopback alone."""


def duration(seconds: int) -> str:
    """60 s, 12 min, 1 min 30 s."""
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def lobby_lines(lobby: Mapping[str, Any], vouched: str = "") -> list[Line]:
    """A joiner's view of the host's lobby: the game, every player with their whole fingerprint,
    their seats and readiness, the time limits and options in words, and what to check
    (``vouched``: why the host's key is known good already, when it is)."""
    game = str(lobby.get("game"))
    try:
        spec = get_spec(game)
        title, time_options = spec.title or game, spec.time_options
    except P2PGeniusError:
        title, time_options = game, ()
    names, keys = list(lobby.get("names", [])), list(lobby.get("keys", []))
    you = lobby.get("you")
    lines: list[Line] = [[("class:title", f" Lobby: {title}, hosted by {names[0] if names else '?'}")], []]
    labels = []
    for index, name in enumerate(names):
        tags = [t for t in ("host" if index == 0 else "", "you" if index == you else "") if t]
        labels.append(wording.printable(str(name)) + (f" ({', '.join(tags)})" if tags else ""))
    column = max((width_of(label) for label in labels), default=0)
    for index, key in enumerate(keys[: len(labels)]):
        claims = list(lobby.get("claims", []))
        claim = claims[index] if index < len(claims) else []
        ready = list(lobby.get("ready", []))
        line: Line = [
            ("class:strong", "   " + labels[index] + " " * (column - width_of(labels[index]))),
            ("", f"  {fingerprint(key)}"),
        ]
        if claim:
            line.append(("class:dim", "  seat " + " ".join(f"p{s}" for s in claim)))
        if index < len(ready) and not ready[index]:
            line.append(("class:effect", "  not ready"))
        lines.append(line)
    if vouched:
        lines.append([("class:dim", f" The host's fingerprint: {vouched}.")])
    else:
        lines += [
            [("class:dim", " Check the host's fingerprint with them (by phone, or a chat you trust)")],
            [("class:dim", " before you answer y: the same name with another fingerprint is someone else.")],
        ]
    lines += [[], [("class:title", " Options")]]
    options = dict(lobby.get("options", {}))
    for option in time_options:
        seconds = int(options.pop(option.name, option.seconds))
        lines.append([("", f"   {option.what}: {duration(seconds)}")])
    if "fast" in options:
        fast = options.pop("fast")
        lines.append(
            [
                (
                    "",
                    "   fast: a turn resolves as soon as everyone has chosen"
                    if fast
                    else "   not fast: each turn lasts its whole time, and a choice may change until then",
                )
            ]
        )
    for key, value in sorted(options.items()):
        lines.append([("", f"   {key}: {value}")])
    if lobby.get("setup"):
        lines.append([("", "   setup: " + ", ".join(f"{k}={v}" for k, v in sorted(lobby["setup"].items())))])
    if lobby.get("spectators"):
        lines.append([("", "   spectators: others may watch this match live (they see what the table sees)")])
    needed = int(lobby.get("needed", 0) or 0)
    lines.append([])
    if lobby.get("start"):
        lines.append([("class:strong", " Starting.")])
    elif needed:
        lines.append([("class:dim", f" Waiting for {plural(needed, 'more player')}.")])
    return lines
