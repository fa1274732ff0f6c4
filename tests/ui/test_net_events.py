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
    table.peer = fake  # type: ignore[assignment]
    assert fake.notify == table.net_event
    fake.notify(Listening("127.0.0.1:4000"))
    assert table.address == "127.0.0.1:4000"
    assert table.connection == "waiting for players"


def test_the_connection_status_follows_the_events() -> None:
    table = TableScreen()
    table.peer = FakePeer()  # type: ignore[assignment]
    table.net_event(LobbyShown({}))
    assert table.connection == "in the lobby"
    table.net_event(ConnectionLost(0))
    assert table.connection == "a peer's connection closed; waiting for it to come back"
    table.net_event(Reconnecting("h:1", "the connection broke\x1b[2J"))
    assert table.connection == "reconnecting: the connection broke?[2J"  # no control characters
    table.net_event(Reconnected())
    assert table.connection == "connected"
    table.net_event(ConnectionLost(1))
    table.net_event(PeerBack("bob"))
    assert table.connection == "connected"
    table.net_event(Refused("the peer closed the connection"))  # a stray caller: no change
    assert table.connection == "connected"


def test_a_clock_warning_for_the_persons_seat_shows_under_the_board() -> None:
    table = TableScreen()
    table.peer = FakePeer()  # type: ignore[assignment]
    table.line("p1: 3 minutes left on the round clock")  # words alone change nothing
    assert table.message == ""
    table.net_event(ClockWarning(0, 60_000))  # another seat's
    assert table.message == ""
    table.net_event(ClockWarning(1, 180_000))
    assert table.message == "clock: 3 minutes left on the round clock"
