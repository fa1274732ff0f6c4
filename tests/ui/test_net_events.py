"""The status line and the clock warning under the board come from the network layer's typed
events, not from the words of the log."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from p2pgenius.net.events import Listening, LobbyShown, PeerBack, Reconnected, Reconnecting, Refused
from p2pgenius.protocol.events import ClockWarning, ConnectionLost, Fault, FaultKind
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
    table.adapter.net_event(ConnectionLost(0, "ann", to_host=True))  # (a joiner's own side)
    assert table.state.connection == "lost the connection to the host; reconnecting"
    table.adapter.net_event(Reconnecting("h:1", "the connection broke\x1b[2J", 7, 75.0))
    assert table.state.connection == (  # (in place, at each try; no control characters)
        "lost the connection to the host; reconnecting (attempt 7, away 1m15s): the connection broke?[2J"
    )
    table.adapter.net_event(Reconnected(80.0, 8))
    assert table.state.connection == "connected"
    table.state.now = lambda: "21:07"
    table.adapter.net_event(ConnectionLost(1, "bob"))  # (a host's side: who is away, by name)
    assert table.state.connection == "bob's connection closed; waiting for bob to come back (since 21:07)"
    table.adapter.net_event(PeerBack("bob", 12.0))
    assert table.state.connection == "connected"
    table.adapter.net_event(Refused("the peer closed the connection"))  # a stray caller: no change
    assert table.state.connection == "connected"


def test_a_host_waiting_for_several_players_names_each_until_the_last_is_back() -> None:
    # A table of four: bob went, then carol; bob's return said "connected" while carol was away.
    table = TableScreen()
    table.adapter.peer = FakePeer()  # type: ignore[assignment]
    table.state.now = lambda: "21:07"
    table.adapter.net_event(ConnectionLost(1, "bob"))
    table.state.now = lambda: "21:09"
    table.adapter.net_event(ConnectionLost(2, "carol"))
    assert table.state.connection == "waiting for bob (away since 21:07), carol (away since 21:09)"
    table.adapter.net_event(PeerBack("bob", 60.0))
    assert table.state.connection == "carol's connection closed; waiting for carol to come back (since 21:09)"
    table.adapter.net_event(PeerBack("carol", 30.0))
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


def test_once_a_forfeit_ends_the_match_the_status_says_the_result_not_waiting() -> None:
    # The host kept saying "waiting for it to come back" after the forfeit had ended the match.
    table = TableScreen()
    fake = FakePeer()
    fake.view = SimpleNamespace(
        my_seats=(0,), terms=None, owner=(0, 1), keys=[b"a", b"b"], me=0, names=["ann", "bob"]
    )
    table.adapter.peer = fake  # type: ignore[assignment]
    table.state.now = lambda: "21:07"
    table.adapter.net_event(ConnectionLost(1, "bob"))
    assert table.state.connection == "bob's connection closed; waiting for bob to come back (since 21:07)"
    table.state.on_session_event(fake.view, Fault(FaultKind.FORFEIT, 1, 4, "bob stopped answering", {}))
    assert table.state.connection == "the match is over: bob forfeited"
    # Whatever the network says after the end (a late try, a player leaving), the result stays.
    table.adapter.net_event(ConnectionLost(1, "bob"))
    table.adapter.net_event(PeerBack("bob"))
    assert table.state.connection == "the match is over: bob forfeited"
    assert "the match is over: bob forfeited" in " ".join(text for _, text in table.text.status_lines(160)[0])
