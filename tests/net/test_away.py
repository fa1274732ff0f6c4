"""While someone is away (issue 47): each side says so from where it stands, the log has one line
when the absence began and one when it ended however many tries it took (each try updates the
status in place), and once a forfeit has ended the match the status says the result. Real peers
over loopback TCP, on trio's autojump clock."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.events import NetEvent, Reconnecting
from p2pgenius.net.match_loop import Decide
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.session import SessionView
from p2pgenius.ui.table_state import TableState

from .test_faults import wait_for_stage
from .test_network import Silent, peer

AWAY_S = 1800.0  # the guest cut off for half an hour: at one try a second, then every 15 s, some 130 tries


class Watched(Silent):
    """What a peer says (its log), its status events, and a screen's state fed from both."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list[NetEvent] = []
        self.state = TableState()

    def notify(self, event: NetEvent) -> None:
        self.told.append(event)
        self.state.on_net_event(event, person=None)

    def event(self, session: SessionView, event: Any) -> None:
        super().event(session, event)
        self.state.on_session_event(session, event)


class Door:
    """The joiner's way back to the host: shut (every call refused) until opened."""

    def __init__(self, port: int) -> None:
        self.port, self.open, self.calls = port, False, 0

    async def call(self) -> trio.abc.Stream:
        self.calls += 1
        if not self.open:
            raise OSError("connection refused")
        return await trio.open_tcp_stream("127.0.0.1", self.port)


def players(tmp_path: Path) -> tuple[Peer, Watched, Peer, Watched]:
    host_log, guest_log = Watched(), Watched()
    host = peer(tmp_path, "host", BotDriver("random", 1), host_log, grace=20)
    guest = peer(tmp_path, "guest", BotDriver("random", 2), guest_log, grace=20)
    for side, log in ((host, host_log), (guest, guest_log)):
        side.notify, side.report = log.notify, log.event
    return host, host_log, guest, guest_log


def held(decide: Decide, go: trio.Event) -> Decide:
    """``decide``, held from stage 3 on until ``go`` is set (the match waits there)."""

    async def held_back(view: SessionView, seat: int) -> Any:
        if view.stage is not None and view.stage.number >= 3:
            await go.wait()
        return await decide(view, seat)

    return held_back


async def start(nursery: trio.Nursery, host: Peer, guest: Peer, turn_s: int) -> Door:
    """The match under way, both players holding their decisions at stage 3 until the guest's
    connection is cut (the cut is the caller's: then the match goes on)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    door = Door(listeners[0].socket.getsockname()[1])
    guest.reconnect = door.call
    go = trio.Event()
    host.decide, guest.decide = held(host.decide, go), held(guest.decide, go)
    options = {"fast": True, "turn_seconds": turn_s}
    nursery.start_soon(
        partial(host.host, listeners[0], game="duel", options=options, setup={"hp": [60, 60]}, peers=2)
    )
    nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", door.port))
    await wait_for_stage(guest, 3)
    assert guest.session is not None and not guest.session.finished
    await guest.connections[0].stream.aclose()  # the network fails
    go.set()
    return door


def about(line: str) -> bool:
    return any(word in line for word in ("connection", "reconnect", "back", "away"))


async def test_a_long_absence_is_one_line_when_it_began_and_one_when_it_ended(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    host, host_log, guest, guest_log = players(tmp_path)
    async with trio.open_nursery() as nursery:
        door = await start(nursery, host, guest, turn_s=3 * 3600)  # (nobody runs out meanwhile)
        began = trio.current_time()
        await trio.sleep(AWAY_S)
        door.open = True
        while host.session is None or not host.session.finished:
            await trio.sleep(1)
        while guest.session is None or not guest.session.finished:
            await trio.sleep(1)
    assert door.calls > 100, (guest_log.lines, host_log.lines)  # (many tries...)
    # ... and in the log, from the joiner's side: one line as it began, one as it ended.
    said = [line for line in guest_log.lines if about(line)]
    assert said[0] == "lost the connection to the host; reconnecting", said
    assert said[1].startswith("reconnected to the host after 30m"), said
    assert said[1].endswith(f"away ({door.calls} attempts)"), said
    assert len(said) == 2, said
    # Each try updated the status in place (how many, since when), said in no line.
    tries = [event for event in guest_log.told if isinstance(event, Reconnecting) and event.reason]
    assert [event.attempt for event in tries] == list(range(1, door.calls))
    assert tries[-1].away_s >= AWAY_S - 15 and "away 2" in tries[-1].text
    assert not any(event.text in guest_log.lines for event in tries)
    # The host says who is away, by name, and for how long once it is back.
    said = [line for line in host_log.lines if about(line)]
    assert said[0] == "guest's connection closed; waiting for guest to come back", said
    assert said[1].startswith("guest is back after 30m"), said
    assert len(said) == 2, said
    assert trio.current_time() - began >= AWAY_S
    for log in (host_log, guest_log):  # (and the screens say the result at the end)
        assert log.state.connection.startswith("the match is over: "), log.state.connection


async def test_after_a_forfeit_the_hosts_status_is_the_result_not_waiting(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    host, host_log, guest, guest_log = players(tmp_path)
    async with trio.open_nursery() as nursery:
        await start(nursery, host, guest, turn_s=30)  # (the door stays shut: the guest never returns)
        while host.session is None or host.session.fault is None:
            await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert host.session.fault.kind is FaultKind.FORFEIT
    assert "guest's connection closed; waiting for guest to come back" in host_log.lines
    assert host_log.state.connection == "the match is over: guest forfeited"
    # (Cut off, the guest saw the host fall silent as long: on its side too, the match is over.)
    assert "lost the connection to the host; reconnecting" in guest_log.lines
    assert guest_log.state.connection.startswith("the match is over: "), guest_log.state.connection
