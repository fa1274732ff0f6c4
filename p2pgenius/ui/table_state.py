"""The state of one player's screen, updated from typed events and kept apart from prompt_toolkit
and trio, so it can be tested headless.

The session's events (:mod:`p2pgenius.protocol.events`: ``SeatsDealt``, ``Applied``,
``ViewClaimed``, ``Fault``, ``MatchOver``, ...) and the network layer's
(:mod:`p2pgenius.net.events`: ``Listening``, ``LobbyShown``, ``ConnectionLost``,
``ClockWarning``, ...) change what :class:`TableState` holds: the log and the chat, the
connection, the lobby, the result or the fault, the front end's memory. Whoever holds the peer
(:class:`p2pgenius.ui.peer_adapter.PeerAdapter`) hands them in; the state reads the session only
through the read-only :class:`SessionView` it is given.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgenius import wording
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.base import Game
from p2pgenius.games.registry import get_spec
from p2pgenius.net.events import (
    ChatClosed,
    Listening,
    LobbyShown,
    NetEvent,
    OptionsChanged,
    OptionsProposed,
    PeerBack,
    PeerJoined,
    Reconnected,
    Reconnecting,
    TableShown,
)
from p2pgenius.protocol.events import (
    Applied,
    ClockWarning,
    ConnectionLost,
    DecisionRefused,
    Event,
    Fault,
    FaultKind,
    MatchOver,
    SeatsDealt,
    ViewClaimed,
)
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.observer import replay
from p2pgenius.protocol.session import Session, SessionView
from p2pgenius.protocol.transcript import read
from p2pgenius.record.ratings import Rating
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import frontend

LOG_LINES: Final = 400
LOG: Final = "log"
CHAT: Final = "chat"
"""The kinds of the lines of :attr:`TableState.feed`."""


def person_seat(session: SessionView) -> int | None:
    """The seat the person plays: the first of this peer's; bots fill the others."""
    return session.my_seats[0] if session.my_seats else None


def seat_names(session: SessionView | None) -> dict[int, str]:
    """Each seat's player's name (none before the seats are dealt)."""
    if session is None or not session.owner:
        return {}
    return {seat: session.names[peer] for seat, peer in enumerate(session.owner)}


def stopped_words(session: SessionView, fault: Fault) -> str:
    """A stopped match on the status bar: why, and whose doing ("bob forfeited")."""
    who = None
    if fault.peer is not None and 0 <= fault.peer < len(session.names):
        who = "you" if fault.peer == session.me else wording.printable(str(session.names[fault.peer]))
    if fault.kind is FaultKind.FORFEIT and who is not None:
        return f"the match is over: {who} forfeited"
    return f"the match stopped ({fault.kind}{f' by {who}' if who else ''})"


class TableState:
    """What one player's screen holds, and how each event changes it."""

    def __init__(self, *, game: str | None = None, ascii_only: bool = False, hints: bool = False) -> None:
        self.game_name = game  # known before the terms when hosting
        self.ascii_only = ascii_only
        self.hints = hints
        # Before the match: where a host listens, its invite, the lobby a joiner is shown.
        self.address = ""
        self.invite = ""
        self.saved = ""  # the file the invite is saved in
        self.local_only = False  # the host listens on loopback: only this machine can join
        self.vouched = ""  # a joiner: why the host's key is known good already ("" if it is not)
        self.connection = "connecting"
        self.cut_off = False  # someone of the match is away: a move made now goes once they are back
        self._away: dict[str, tuple[str, str]] = {}  # a host: who is away, said how and since when
        self.lobby: Mapping[str, Any] | None = None
        self.table: Mapping[str, Any] | None = None  # a host: its table as its joiners see it
        self.proposal: OptionsProposed | None = None  # a host: a player's proposal waiting for it
        self.lobby_said = ""  # what was said under the input about the lobby (gone once the match begins)
        self.ratings: Callable[[str, list[bytes]], dict[bytes, Rating]] | None = None  # this machine's record
        self.rated: dict[bytes, Rating] = {}  # the lobby's players' ratings, as this machine knows them
        # The match.
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.chat_lines: deque[str] = deque(maxlen=LOG_LINES)
        self.feed: deque[tuple[str, str]] = deque(maxlen=LOG_LINES)  # the log and the chat, in order
        self.asking: dict[int, int] = {}  # the person's seats asked to decide -> stage
        self.last_asked: dict[int, int] = {}  # the person's seats -> the latest stage asked about
        self.chosen: dict[int, str] = {}  # what the person chose this stage (a sealed choice may change)
        self.settled: set[int] = set()  # the person's seats whose choice it let stand (``done``)
        self._seen_dark: dict[int, list[Mapping[str, Any]]] = {}  # stage -> events told in the dark
        self.confirming: tuple[str, int, moves.Parsed] | None = None  # a move waiting for y/n
        self._message = ""  # one line of feedback under the input
        self.echoes_sent = False  # the line shows what the person just sent (see ``echo_sent``)
        self.fault: Fault | None = None
        self.result: Mapping[str, Any] | None = None
        self.finished = False
        self.chat_closed = False  # after the end, everyone else has left: chat reaches nobody
        self.claimed_view: Mapping[str, Any] | None = None  # the latest view claim, in the dark
        self.clocks: dict[int, tuple[str, float, bool]] = {}
        self.memory: dict[str, Any] = {}  # what the game's front end keeps (a round's reckoning)
        self.history_back = 0  # turns the board's history is scrolled back from its newest (Up)
        self._shown: tuple[Any, ...] = ()  # the engine events of the last step, as shown
        self._shown_at: int | None = None  # the turn (the front end's replay number) they told
        self._quiet: list[str] = []  # lines of the network layer shown elsewhere than the log
        self.invalidate: Callable[[], None] = lambda: None  # the screen's redraw, once there is one
        self.now: Callable[[], str] = lambda: time.strftime("%H:%M")  # the time of day, as shown

    @property
    def message(self) -> str:
        """One line of feedback under the input."""
        return self._message

    @message.setter
    def message(self, text: str) -> None:
        self._message, self.echoes_sent = text, False

    def echo_sent(self, text: str) -> None:
        """Show ``text``, the echo of a choice the person just sent: unlike any other line, it
        goes once the person is asked again (the choice is then behind them)."""
        self._message, self.echoes_sent = text, True

    # -- what the state says, given the session --------------------------------------------------

    def game(self, session: SessionView | None) -> str | None:
        """The game's name: from the terms, or before them the host's choice or the lobby's."""
        if session is None or session.terms is None:
            return self.game_name or (str(self.lobby["game"]) if self.lobby else None)
        return str(session.terms["game"])

    def seat_view(self, session: SessionView | None) -> Mapping[str, Any] | None:
        """The person's seat's view of the state (the latest view claim while in the dark)."""
        if session is None or session.engine is None or session.state is None:
            return None
        seat = person_seat(session)
        if seat is None:
            return None
        engine = session.engine
        if session.in_dark:  # the latest view claim (also right after a resume)
            claim = self.claimed_view or session.view_claim
            view = dict(claim) if claim is not None else dict(engine.view(session.state, seat))
        else:
            view = dict(engine.view(session.state, seat))
        if len(session.my_seats) > 1:  # the other seats this machine holds (their cards show)
            view["partners"] = {s: engine.view(session.state, s) for s in session.my_seats if s != seat}
        game = self.game(session)
        if game is not None and get_spec(game).sealed and session.stage is not None:
            stage = session.stage  # who has chosen this stage (and what the person chose)
            mine = self.my_choice(session, seat)
            view["submitted"] = [
                (mine if s == seat and mine else ("chosen" if s in stage.chosen and s != seat else None))
                for s in range(len(session.owner))
            ]
        return view

    def my_choice(self, session: SessionView, seat: int) -> str | None:
        """What the person chose for ``seat`` at this stage, in words: as the session holds it
        (its sealed commitment: right after a resume too), else as just typed (on its way)."""
        committed = session.committed(seat)
        game = self.game(session)
        if isinstance(committed, Mapping) and game is not None:
            with contextlib.suppress(LookupError, TypeError, ValueError):
                return frontend(game).describe(committed)
        return self.chosen.get(seat)

    def outcome_text(self, session: SessionView | None) -> str:
        """The result, told to the person: "you win (...)", "your team loses (...)"."""
        game = self.game(session)
        if self.result is None or game is None:
            return ""
        mine = session.my_seats if session is not None else ()
        spec = get_spec(game)
        return spec.outcome_words(spec.read_outcome(self.result), seat_names(session), mine=mine)

    # -- the session's events --------------------------------------------------------------------

    def on_session_event(self, session: SessionView, event: Event) -> None:
        """A session event: what it changes on the screen, and its words in the log (chat beside
        it)."""
        if isinstance(event, SeatsDealt):
            self.connection = "connected"
            self.proposal = None
            if self.message and self.message == self.lobby_said:  # (the lobby's words, not the match's)
                self.message = ""
        elif isinstance(event, Applied):
            self.chosen.clear()
            self.settled.clear()
            if not session.in_dark:
                self.claimed_view = None
            self._applied(session, event)
            return
        elif isinstance(event, ViewClaimed):
            first = self.claimed_view is None  # (into the dark: said once, not every turn)
            self.claimed_view = event.view
            self.chosen.clear()
            self.settled.clear()
            self._claimed(session, event)
            game = self.game(session)
            if first and game is not None:
                self._log(frontend(game).dark_words())
            return
        elif isinstance(event, Fault):
            self.fault = event
            self.finished = True
            self.connection = stopped_words(session, event)  # (nobody is waited for any more)
        elif isinstance(event, MatchOver):
            self.result = event.outcome
            self.finished = True
            self.asking.clear()
            self.message = ""
            self.connection = f"the match is over: {self.outcome_text(session)}"
            self._log(self.connection)
            return
        self.tell(session, event)

    def tell(self, session: SessionView, event: Event) -> None:
        """An event's words: chat beside the log, the rest in it."""
        for told in wording.tell(session, event):
            if told.kind == wording.CHAT:
                text = wording.printable(told.text)
                self.chat_lines.append(text)
                self.feed.append((CHAT, text))
            else:
                self._log(told.text)

    def _claimed(self, session: SessionView, event: ViewClaimed) -> None:
        """A player in the dark is told what of the stage affected it (the view claim's events:
        what hit its wizard, say), in the log like any step's."""
        game = self.game(session)
        events = [item for item in event.view.get("events", ()) if isinstance(item, Mapping)]
        self._seen_dark[event.stage] = events
        if game is None or not events:
            return
        with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
            frontend(game).remember(self.memory, events, event.view, ())  # (told now: never again)
            for text in frontend(game).log_lines(events, event.view, seat_names(session)):
                self._log(text)

    def _new_events(
        self, events: tuple[Mapping[str, Any], ...], number: int | None
    ) -> tuple[Mapping[str, Any], ...]:
        """What of a step's ``events`` was not told yet: a step that re-reports the events of the
        step before (a choice asked for after a turn resolved, as a duel's Paralysis) adds only
        what is new. Re-reported: the very same event objects, or equal ones told under the same
        turn (``number``, the front end's replay number; after a resume the step before was read
        back from the transcript, as other objects). Equal ones of another turn are new: a turn
        may well say what the turn before said."""
        shown, at = self._shown, self._shown_at
        self._shown, self._shown_at = events, number
        if not shown or len(events) < len(shown):
            return events
        head = events[: len(shown)]
        if all(a is b for a, b in zip(head, shown, strict=True)) or (
            number is not None and number == at and head == shown
        ):
            return events[len(shown) :]
        return events

    def _applied(self, session: SessionView, event: Applied) -> None:
        """A step's engine events in the log, each once (see :meth:`_new_events`)."""
        events = tuple(item for item in event.events if isinstance(item, Mapping))
        told = self._seen_dark.pop(event.stage, None)
        game = self.game(session)
        view = self.seat_view(session)
        if game is None:
            self._shown, self._shown_at = events, None
            return
        front = frontend(game)
        step_view = self._step_view(session, event, view)  # (a stage played in the dark: its own)
        number = None
        with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
            number = front.replay_number(event.stage, step_view) if step_view is not None else None
        fresh = self._new_events(events, number)
        if told is not None:  # a stage played in the dark, seen whole now: what was not told then
            fresh = tuple(item for item in fresh if item not in told)
        with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
            front.remember(self.memory, fresh, step_view, event.actions)
        for text in front.log_lines(fresh, step_view, seat_names(session)):
            self._log(text)

    def _step_view(
        self, session: SessionView, event: Applied, view: Mapping[str, Any] | None
    ) -> Mapping[str, Any] | None:
        """The person's view as the step left it: a stage played in the dark and replayed once
        the seat saw again is told under its own number, not the one the match is at now."""
        seat = person_seat(session)
        if view is None or event.state is None or session.engine is None or seat is None or session.in_dark:
            return view
        return {**view, **session.engine.view(event.state, seat)}

    def _log(self, text: str) -> None:
        text = wording.printable(text)
        self.log.append(text)
        self.feed.append((LOG, text))

    def chat_sent(self, me: str, text: str) -> None:
        """The person's own chat line, as sent."""
        self.chat_lines.append(f"{me} (you): {text}")
        self.feed.append((CHAT, f"{me} (you): {wording.printable(text)}"))

    # -- the network layer's words and events ----------------------------------------------------

    def on_line(self, text: str) -> None:
        """A line for the log (what the network layer says, too)."""
        if text in self._quiet:
            self._quiet.remove(text)  # shown elsewhere: the board, or under the input
        else:
            self._log(text)

    def _rate(self, lobby: Mapping[str, Any]) -> dict[bytes, Rating]:
        """The ratings this machine's record gives the players of ``lobby`` (none: no record)."""
        keys = [key for key in lobby.get("keys") or [] if isinstance(key, bytes)]
        game = lobby.get("game")
        if self.ratings is None or not isinstance(game, str) or not keys:
            return {}
        try:
            return self.ratings(game, keys)
        except (OSError, ValueError, LookupError):  # (the record is only shown: never in the way)
            return {}

    def on_net_event(self, event: NetEvent, *, person: int | None) -> None:
        """What the network layer tells the screen as data (its words come to :meth:`on_line`):
        the connection status, a host's address, the clock warnings and refused choices of the
        ``person``'s seat (under the input, not in the log), the lobby (on the board)."""
        self._track_proposal(event)
        if isinstance(event, Listening | LobbyShown | TableShown):
            self._table_event(event)
        elif isinstance(event, PeerJoined):
            self._quiet.append(event.text)
            bot = f", a bot: {event.bot}" if event.bot is not None else ""
            rated = self._rate({"game": self.game_name, "keys": [event.key]}).get(event.key)
            known = f"; rated {rated.shown} over {rated.matches} on this machine" if rated is not None else ""
            self._log(f"{event.name} joined{bot}; fingerprint {fingerprint(event.key)}{known}")
        elif isinstance(event, ConnectionLost | Reconnecting | Reconnected | PeerBack):
            self._connection_event(event)
        elif isinstance(event, ChatClosed):
            self.chat_closed = True
        elif isinstance(event, ClockWarning):
            if event.seat == person:
                self.message = f"clock: {event.words}"  # under the input, not only the log
        elif isinstance(event, DecisionRefused) and event.seat == person:
            self.message = f"refused: {wording.printable(event.reason)}; choose again"
            self._quiet.append(event.text)
        del self._quiet[:-20]  # (a line told quietly never comes)

    def _table_event(self, event: Listening | LobbyShown | TableShown) -> None:
        """The table before the match: a host's door open (where, its invite), a joiner shown the
        host's lobby, a host's table as its joiners see it."""
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
            self.rated = self._rate(event.lobby)
            with contextlib.suppress(LookupError, TypeError, ValueError):
                self._quiet.append(event.text)
        else:
            self.table = event.lobby

    def _connection_event(self, event: ConnectionLost | Reconnecting | Reconnected | PeerBack) -> None:
        """Someone away, or back: the status says so in place (a joiner's every try updates it; a
        host's says since when; the log has the line when the absence began and the one when it
        ended). Once the match is over the status keeps its result: nobody is waited for then."""
        if self.finished:
            return
        away = self._away  # (a host: the players away, each since when; several at a table of 4)
        if isinstance(event, ConnectionLost) and not event.to_host:  # (a host: nothing updates it)
            away[event.name or "a player"] = (wording.printable(event.text), self.now())
            self.connection = away_words(away)
        elif isinstance(event, PeerBack):
            away.pop(event.name if event.name in away else "a player", None)
            self.connection = away_words(away)
        elif isinstance(event, Reconnected):  # (a joiner: its host is back)
            away.clear()
            self.connection = "connected"
        else:  # (a joiner: lost its host, or tries again)
            self.connection = wording.printable(event.text)
        self.cut_off = bool(away) or isinstance(event, ConnectionLost | Reconnecting)

    def _track_proposal(self, event: NetEvent) -> None:
        """A host: a player's proposal waits for its answer, until the options change."""
        if isinstance(event, OptionsProposed | OptionsChanged):
            self.proposal = event if isinstance(event, OptionsProposed) else None

    def say_of_lobby(self, text: str) -> None:
        """Words under the input about the lobby: they go once the match begins."""
        self.message = self.lobby_said = text

    # -- after a resume: what happened before ----------------------------------------------------

    def catch_up(self, session: SessionView, transcript: bytes) -> None:
        """The log and chat of a match so far, from its transcript (read as an observer would:
        what this machine received, nothing more); the players' names came back with the terms."""
        observer = Session(keys=list(session.keys), me=None, names=list(session.names))
        seat = person_seat(session)
        names = seat_names(session)
        game = None
        try:
            for step in replay(read(transcript), observer):
                for event in step.events:
                    if isinstance(event, Applied) and observer.match is not None and seat is not None:
                        game = game or frontend(str(observer.terms["game"]) if observer.terms else "")
                        view = self._past_view(session, observer.match.game, observer.state, seat)
                        events = tuple(item for item in event.events if isinstance(item, Mapping))
                        fresh = self._new_events(events, game.replay_number(event.stage, view))
                        with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
                            game.remember(self.memory, fresh, view, event.actions)
                        for text in game.log_lines(fresh, view, names):
                            self._log(text)
                    elif not isinstance(event, MatchOver | Fault):
                        self.tell(observer.view, event)
        except (P2PGeniusError, LookupError, TypeError, ValueError) as exc:
            self._log(f"(the history stops here: {exc})")
        self._log("-- resumed: the match goes on from here --")

    @staticmethod
    def _past_view(session: SessionView, engine: Game[Any, Any], state: Any, seat: int) -> Mapping[str, Any]:
        """The person's seat's view of a state the catch-up replays, with the other seats this
        machine holds (as :meth:`seat_view` has them: the log says "your partner (p2, bot)" of
        them before the resume as after it)."""
        view = dict(engine.view(state, seat))
        if len(session.my_seats) > 1:
            view["partners"] = {s: engine.view(state, s) for s in session.my_seats if s != seat}
        return view


def away_words(away: Mapping[str, tuple[str, str]]) -> str:
    """A host's status while players are away: one, as its event said it, since when; several,
    each by name, since when ("connected" when nobody is)."""
    if not away:
        return "connected"
    if len(away) == 1:
        ((said, since),) = away.values()
        return f"{said} (since {since})"
    return "waiting for " + ", ".join(f"{name} (away since {since})" for name, (_, since) in away.items())
