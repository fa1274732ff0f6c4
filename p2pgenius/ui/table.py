"""One player's table: the screen's state, what the person types, and the side the network peer
calls, held together as the one object the command line and the bridge pass around.

The parts, each of one job:

* :class:`~p2pgenius.ui.table_state.TableState`: what the screen holds, updated from the typed
  events of the session and of the network layer;
* :class:`~p2pgenius.ui.peer_adapter.PeerAdapter`: the peer's callbacks (``decide``, ``report``,
  ``say``, ``notify``, ``confirm``) and the person's calls into trio through its token;
* :class:`~p2pgenius.ui.table_text.TableText`: the words and lines the screen shows of them;
* :class:`~p2pgenius.ui.table_input.TableInput`: what the person types and presses.

:class:`TableScreen` builds them and lets its callers reach the attributes they use as its own (the
layout and the key bindings use the parts).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar, cast, overload

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.events import NetEvent
from p2pgenius.net.peer import Decide, Peer, Report
from p2pgenius.protocol.events import Event, Fault
from p2pgenius.protocol.session import SessionView
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import Question
from p2pgenius.ui.lines import Line
from p2pgenius.ui.peer_adapter import PeerAdapter
from p2pgenius.ui.table_input import TableInput
from p2pgenius.ui.table_state import TableState
from p2pgenius.ui.table_text import TableText

T = TypeVar("T")


class Part(Generic[T]):
    """An attribute of one of the table's parts, read and set as the table's own."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = ""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, table: None, owner: type[Any]) -> Part[T]: ...
    @overload
    def __get__(self, table: TableScreen, owner: type[Any]) -> T: ...
    def __get__(self, table: TableScreen | None, owner: type[Any]) -> Part[T] | T:
        if table is None:
            return self
        return cast(T, getattr(getattr(table, self.part), self.name))

    def __set__(self, table: TableScreen, value: T) -> None:
        setattr(getattr(table, self.part), self.name, value)


class TableScreen:
    """One player's table on the terminal: what the player sees and may do."""

    def __init__(
        self,
        *,
        ascii_only: bool = False,
        hints: bool = False,
        partner_level: str | None = None,
        game: str | None = None,
        partner_delay: float = 0.3,
    ) -> None:
        self.state = TableState(game=game, ascii_only=ascii_only, hints=hints)
        # Bots in this peer's other seats (a pause before each move lets the person follow it).
        self.adapter = PeerAdapter(self.state, BotDriver(partner_level, delay=partner_delay))
        self.text = TableText(self.state, self.adapter)
        self.input = TableInput(self.state, self.adapter, self.text)

    # The screen's state.
    log = Part[deque[str]]("state")
    chat_lines = Part[deque[str]]("state")
    asking = Part[dict[int, int]]("state")
    message = Part[str]("state")
    confirming = Part[tuple[str, int, moves.Parsed] | None]("state")
    connection = Part[str]("state")
    address = Part[str]("state")
    lobby = Part[Mapping[str, Any] | None]("state")
    clocks = Part[dict[int, tuple[str, float, bool]]]("state")
    memory = Part[dict[str, Any]]("state")
    result = Part[Mapping[str, Any] | None]("state")
    fault = Part[Fault | None]("state")
    finished = Part[bool]("state")
    invalidate = Part[Callable[[], None]]("state")

    # The peer's side.
    peer = Part[Peer | None]("adapter")
    token = Part[trio.lowlevel.TrioToken | None]("adapter")
    lobby_answered = Part[trio.Event | None]("adapter")
    decide = Part[Decide]("adapter")
    report = Part[Report]("adapter")
    line = Part[Callable[[str], None]]("adapter")
    net_event = Part[Callable[[NetEvent], None]]("adapter")
    confirm_lobby = Part[Callable[[Mapping[str, Any]], Awaitable[bool]]]("adapter")
    keep_time = Part[Callable[[], Awaitable[None]]]("adapter")

    # What the screen says.
    names = Part[Callable[[], dict[int, str]]]("text")
    view = Part[Callable[[], Mapping[str, Any] | None]]("text")
    board_lines = Part[Callable[..., list[Line]]]("text")
    waiting_lines = Part[Callable[[], list[Line]]]("text")
    clock_line = Part[Callable[..., Line]]("text")
    question = Part[Callable[[], Question | None]]("text")
    expected = Part[Callable[[], str]]("text")
    time_words = Part[Callable[[], str]]("text")
    completions = Part[Callable[[str], list[moves.Choice]]]("text")
    fault_text = Part[Callable[[], str]]("text")

    # What the person types.
    enter = Part[Callable[[str], None]]("input")
    help_open = Part[bool]("input")
    rules_open = Part[bool]("input")
    rules = Part[list[tuple[str, str]]]("input")
    leaving = Part[bool]("input")

    def _tell(self, session: SessionView, event: Event) -> None:
        """An event's words in the log and the chat (a test of harmless text calls it so)."""
        self.state.tell(session, event)
