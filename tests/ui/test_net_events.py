"""The status line and the clock warning under the board come from the network layer's typed
events, not from the words of the log."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from p2pgenius.net.events import Listening, LobbyShown, PeerBack, Reconnected, Reconnecting, Refused
from p2pgenius.protocol.events import ClockWarning, ConnectionLost
from p2pgenius.ui.table import TableScreen


class FakePeer:
    def __init__(self) -> None:
        self.view: Any = SimpleNamespace(my_seats=(1,), terms=None, owner=(), keys=[], me=0)
        self.notify: Any = None


def test_setting_the_peer_routes_its_events_to_the_table() -> None:
    table = TableScreen()
    fake = FakePeer()
    table.adapter.peer = fake  # type: ignore[assignment]
    assert fake.notify == table.adapter.net_event
    fake.notify(Listening("127.0.0.1:4000"))
    assert table.state.address == "127.0.0.1:4000"
    assert table.state.connection == "waiting for players"


def test_the_connection_status_follows_the_events() -> None:
    table = TableScreen()
    table.adapter.peer = FakePeer()  # type: ignore[assignment]
    table.adapter.net_event(LobbyShown({}))
    assert table.state.connection == "in the lobby"
    table.adapter.net_event(ConnectionLost(0))
    assert table.state.connection == "a peer's connection closed; waiting for it to come back"
    table.adapter.net_event(Reconnecting("h:1", "the connection broke\x1b[2J"))
    assert table.state.connection == "reconnecting: the connection broke?[2J"  # no control characters
    table.adapter.net_event(Reconnected())
    assert table.state.connection == "connected"
    table.adapter.net_event(ConnectionLost(1))
    table.adapter.net_event(PeerBack("bob"))
    assert table.state.connection == "connected"
    table.adapter.net_event(Refused("the peer closed the connection"))  # a stray caller: no change
    assert table.state.connection == "connected"


def test_a_clock_warning_for_the_persons_seat_shows_under_the_board() -> None:
    table = TableScreen()
    table.adapter.peer = FakePeer()  # type: ignore[assignment]
    table.adapter.line("p1: 3 minutes left on the round clock")  # words alone change nothing
    assert table.state.message == ""
    table.adapter.net_event(ClockWarning(0, 60_000))  # another seat's
    assert table.state.message == ""
    table.adapter.net_event(ClockWarning(1, 180_000))
    assert table.state.message == "clock: 3 minutes left on the round clock"
