"""The network layer's typed events (p2pgenius.net.events): a peer hands each to ``notify`` and
says its text, so a screen never has to read the log to know the connection's state or a clock's
warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
import trio.testing

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.events import Listening, LobbyShown, NetEvent, PeerJoined, PeerReady, TableShown
from p2pgenius.protocol.events import ClockWarning, OutOfTime

from .test_clocks import SQUARE, Terms, Thinks, match
from .test_network import Silent, peer


class Heard(Silent):
    """Collects what a peer says and what it notifies."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list[NetEvent] = []

    def notify(self, event: NetEvent) -> None:
        self.told.append(event)


async def test_the_lobby_is_told_as_events_and_as_lines(tmp_path: Path, autojump_clock: Any) -> None:
    del autojump_clock
    host_log, guest_log = Heard(), Heard()
    host = peer(tmp_path, "host", BotDriver("random", 1), host_log)
    guest = peer(tmp_path, "guest", BotDriver("random", 2), guest_log)
    host.notify, guest.notify = host_log.notify, guest_log.notify
    host.address = "127.0.0.1:9"
    await match(host, guest, Terms("duel", {"fast": True}, {"hp": [5, 5]}))
    assert host_log.told[0] == Listening("127.0.0.1:9")
    assert "listening on 127.0.0.1:9" not in host_log.lines  # the caller that opened the door says it
    joined = [e for e in host_log.told if isinstance(e, PeerJoined)]
    assert [e.name for e in joined] == ["guest"] and joined[0].key == guest.identity.public
    assert PeerReady("guest") in host_log.told
    lobbies = [e for e in guest_log.told if isinstance(e, LobbyShown)]
    assert lobbies and lobbies[-1].lobby["start"] and lobbies[-1].lobby["game"] == "duel"
    # Every event that is not quiet is also a line, in the same words.
    for log in (host_log, guest_log):
        said = [e.text for e in log.told if not isinstance(e, Listening | TableShown)]  # (both quiet)
        assert said == [line for line in log.lines if line in said]
        assert all(text in log.lines for text in said)


async def test_round_clock_warnings_come_from_the_game_spec(tmp_path: Path, autojump_clock: Any) -> None:
    del autojump_clock
    host_log, guest_log = Heard(), Heard()
    host = peer(tmp_path, "host", BotDriver("heuristic", 1, thread=False), host_log)
    guest = peer(tmp_path, "guest", Thinks("heuristic", 2, 10**6), guest_log)  # never decides
    host.notify, guest.notify = host_log.notify, guest_log.notify
    await match(host, guest, Terms("magic-square", {"round_seconds": 200}, SQUARE))
    assert guest.session is not None and guest.session.outcome is not None
    mine = guest.session.my_seats
    warned = [e for e in guest_log.told if isinstance(e, ClockWarning) and e.seat in mine]
    # 200 s rounds: of the game's marks (9, 6, 3, 2 and 1 minutes left) the last three apply.
    assert [e.left_ms for e in warned][:3] == [180_000, 120_000, 60_000]
    assert all(e.kind == "round" for e in warned)
    assert f"p{warned[0].seat}: 3 minutes left on the round clock" in guest_log.lines
    assert any(isinstance(e, OutOfTime) and e.timeout_played for e in guest_log.told)
    # The other peer keeps the same clock and warns of it too.
    assert any(isinstance(e, ClockWarning) and e.seat in mine for e in host_log.told)


async def test_a_game_without_warnings_gets_none(tmp_path: Path, autojump_clock: Any) -> None:
    del autojump_clock
    host_log, guest_log = Heard(), Heard()
    host = peer(tmp_path, "host", BotDriver("random", 1), host_log)
    guest = peer(tmp_path, "guest", Thinks("random", 2, 50), guest_log)
    host.notify, guest.notify = host_log.notify, guest_log.notify
    await match(host, guest, Terms("duel", {"fast": True, "turn_seconds": 600}, {"hp": [3, 3]}))
    assert not [e for e in host_log.told + guest_log.told if isinstance(e, ClockWarning)]
    assert not [line for line in host_log.lines + guest_log.lines if "left on the" in line]
    assert trio.current_time() > 50


async def test_a_joiner_failing_to_reach_its_host_updates_its_status_and_logs_nothing(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # A try a second for the grace period: it printed the same line (with a first connection's
    # advice, "is the host running, and is that its port?") 120 times; then one every few tries
    # for a day. Each try now updates the status (attempt, how long away), and logs no line.
    del autojump_clock
    from p2pgenius.net.addresses import ConnectError
    from p2pgenius.net.events import Reconnecting
    from p2pgenius.net.reconnect import Reconnection

    log = Silent()
    guest = peer(tmp_path, "guest", BotDriver("random", 2), log, grace=100)
    guest.address = "127.0.0.1:9"
    told: list[NetEvent] = []
    guest.notify = told.append

    async def refused() -> trio.abc.Stream:
        raise ConnectError(
            "nothing is listening at 127.0.0.1:9 (connection refused): is the host running, and is "
            "that its port? The host shows its addresses and an invite when it starts"
        )

    from p2pgenius.net.inbox import Inbox
    from p2pgenius.net.links import Links
    from p2pgenius.net.reconnect import WayBack
    from p2pgenius.protocol.identity import Identity
    from p2pgenius.protocol.session import Session

    session = Session(keys=[Identity.generate().public, guest.identity.public], me=1, identity=guest.identity)
    async with trio.open_nursery() as nursery:
        way = WayBack(refused, guest.address, 100, lambda: None)
        back = Reconnection(
            session,
            Links(),
            Inbox[Any](nursery, room=1),
            nursery,
            identity=guest.identity,
            name=guest.name,
            pins=guest.pins,
            tell=guest.tell,
            came_back=guest._clocks.came_back,
            way_back=way,
        )
        with trio.move_on_after(400):  # (it tries for as long as the match is on: not forever here)
            await back.come_back(way)
        nursery.cancel_scope.cancel()  # (the inbox's own task)
    assert not log.lines  # (the status says it, in place)
    tries = [event for event in told if isinstance(event, Reconnecting)]
    assert [event.attempt for event in tries] == list(range(1, len(tries) + 1))
    assert 100 + (400 - 100) / 15 - 2 <= len(tries) <= 100 + (400 - 100) / 15 + 2
    assert tries[0].text == (
        "lost the connection to the host; reconnecting (attempt 1): nothing is listening at "
        "127.0.0.1:9 (connection refused); trying again every 1 s"
    )
    # Past the grace period it still tries, less often (a player away is not gone).
    assert tries[-1].text.endswith("trying again every 15 s"), tries[-1].text
    assert f"(attempt {tries[-1].attempt}, away 6m" in tries[-1].text
    assert not any("is the host running" in event.text for event in tries)


def test_a_default_name_is_not_said_twice_and_a_joiner_is_named_by_its_fingerprint() -> None:
    from p2pgenius.net.events import PeerJoined, lobby_text
    from p2pgenius.protocol.identity import Identity

    host, guest = Identity.generate(), Identity.generate()
    short = host.fingerprint[:9]  # the name a player gets without --name
    lobby = {
        "game": "duel",
        "options": {"fast": True},
        "names": [short, "bob"],
        "keys": [host.public, guest.public],
        "claims": [[], []],
        "ready": [True, False],
        "you": 1,
        "needed": 0,
        "start": False,
    }
    text = lobby_text(lobby)
    assert text.count(short) == 1 and f"bob {guest.fingerprint[:9]} (you, not ready)" in text
    assert PeerJoined("bob", guest.public).text == f"bob joined ({guest.fingerprint[:9]})"
    assert PeerJoined(short, host.public).text == f"{short} joined"
    # The options read as words, not as Python writes a dict's items.
    assert text.startswith("lobby: duel (fast): ")
    assert lobby_text(lobby | {"options": {"fast": False}}).startswith("lobby: duel (no fast): ")
    assert lobby_text(lobby | {"options": {}}).startswith("lobby: duel (default options): ")
