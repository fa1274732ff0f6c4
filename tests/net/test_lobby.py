"""The lobby before a match: who is there, the options, seat claims and readiness."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.events import NetEvent, TableShown
from p2pgenius.net.peer import Peer, PeerGoneError
from tests.patience import HANG_S

from .test_network import Silent, peer


async def test_a_joiners_seat_claim_is_granted_and_everyone_sees_the_lobby(tmp_path: Path) -> None:
    host_log, guest_log = Silent(), Silent()
    host = peer(tmp_path, "host", BotDriver("random", 1), host_log)
    told: list[NetEvent] = []
    host.notify = told.append
    guest = peer(tmp_path, "guest", BotDriver("random", 2), guest_log)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            nursery.start_soon(lambda: guest.join(stream, seats=[0]))
    assert guest.session is not None and guest.session.my_seats == (0,)
    assert host.session is not None and host.session.my_seats == (1,)
    assert host.session.outcome == guest.session.outcome
    lobby = [line for line in guest_log.lines if line.startswith("lobby: duel (fast): ")]
    assert lobby and "starting" in lobby[-1] and "seats p0" in lobby[-1]
    assert any("guest is ready" in line for line in host_log.lines)
    # The host's board is shown the full table as the match starts (quietly).
    opened, full = [event.lobby for event in told if isinstance(event, TableShown)]
    assert opened["names"] == ["host"] and opened["needed"] == 1 and opened["start"] is False
    assert full["start"] is True and full["names"] == ["host", "guest"] and full["needed"] == 0


async def test_a_claim_on_a_taken_seat_and_a_full_table_are_refused_clearly(tmp_path: Path) -> None:
    host_log = Silent()
    host = peer(tmp_path, "host", BotDriver("pirate", 1), host_log)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    greedy = peer(tmp_path, "greedy", BotDriver("pirate", 2), Silent())
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listeners[0], game="hornswoggle", options={}, setup={}, peers=3, seats=[0, 2]
                )
            )
            with pytest.raises(PeerGoneError, match="both claim seat p0"):
                await greedy.join(await trio.open_tcp_stream("127.0.0.1", port), seats=[2])
            players = [peer(tmp_path, f"p{i}", BotDriver("pirate", i), Silent()) for i in (1, 3)]
            for player in players:
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                nursery.start_soon(player.join, stream)
            while host.session is None:
                await trio.sleep(0.01)
            late = peer(tmp_path, "late", BotDriver("pirate", 4), Silent())
            with pytest.raises(PeerGoneError, match="started without you"):
                await late.join(await trio.open_tcp_stream("127.0.0.1", port))
    assert any("refused greedy" in line for line in host_log.lines)
    assert host.session.my_seats == (0, 2)
    assert all(p.session is not None and p.session.outcome == host.session.outcome for p in players)


async def test_a_reused_transcript_path_starts_with_empty_secrets(tmp_path: Path) -> None:
    # An old match's coin share and nonces must not survive into a new match's secrets file
    # (a restore after a crash would reuse an already revealed coin share).
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    host.files.secrets.write_bytes(b"old match's secrets")
    from p2pgenius.protocol.session import Session

    host.session = Session(keys=[host.identity.public, bytes(32)], me=0, identity=host.identity)
    await host._start_transcript("host")
    assert host.files.secrets.read_bytes() == b""
    assert host.files.transcript.read_bytes()  # (a fresh header)


def test_a_lobby_that_names_the_host_or_us_otherwise_than_the_hellos_is_refused() -> None:
    # The names at a table are the ones each player gave in its own hello.
    from p2pgenius.net.lobby import Joining, LocalPlayer
    from p2pgenius.net.pins import Pins
    from p2pgenius.protocol.channel import Established
    from p2pgenius.protocol.identity import Identity

    host, me = Identity.generate(), Identity.generate()

    def table(host_name: str) -> dict[str, object]:
        return {
            "game": "duel",
            "options": {},
            "setup": {},
            "names": [host_name],
            "keys": [host.public],
            "claims": [[]],
            "ready": [True],
            "needed": 1,
            "start": False,
            "salt": bytes(32),
            "spectators": False,
        }

    def greet(hello_name: str, lobby_name: str) -> None:
        joining = Joining(
            LocalPlayer(me, "me", Pins(None), lambda event, quiet=False: None),
            [],
            confirm=None,
            check_host=lambda h: None,
        )
        hello = {"name": hello_name, "lobby": table(lobby_name)}
        joining.greeted(_NoChannel(), Established(host.public, hello, b""))  # type: ignore[arg-type]

    greet("alice", "alice")  # (agrees: fine)
    with pytest.raises(
        PeerGoneError, match="the host's lobby calls it 'alice', but its hello said 'mallory'"
    ):
        greet("mallory", "alice")


class _NoChannel:
    class channel:  # noqa: N801  (stands in for a connection's channel)
        @staticmethod
        def send(payload: bytes) -> None:
            del payload


async def test_a_joiner_that_says_ready_at_once_is_sent_the_start_lobby_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It was sent the lobby three times in a row (joined, ready, start): its screen flickered.
    from p2pgenius.canonical import decode
    from p2pgenius.net.connection import Connection

    sent: list[str] = []
    original = Connection.post  # (everything a connection sends is queued through it)

    def spy(self: Connection, payload: bytes) -> None:
        value = decode(payload)
        if isinstance(value, list) and value and value[0] == "lobby":
            sent.append("start" if value[1]["start"] else "lobby")
        original(self, payload)

    monkeypatch.setattr(Connection, "post", spy)
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            await guest.join(await trio.open_tcp_stream("127.0.0.1", port))
    assert sent == ["start"]


async def join_a_host_that_leaves(
    host: Peer, guest: Peer, game: str, peers: int, leaves: Callable[[], Awaitable[None]]
) -> str:
    """``guest`` joins ``host``'s table of ``peers`` for ``game``; the host leaves its lobby once
    ``leaves`` returns. The words the guest's join ended with (it must end: it has no match)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            hosting = trio.CancelScope()

            async def hold_the_lobby() -> None:
                with hosting:
                    await host.host(listeners[0], game=game, options={}, setup={}, peers=peers)

            async def leave() -> None:
                await leaves()
                hosting.cancel()

            nursery.start_soon(hold_the_lobby)
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            nursery.start_soon(leave)
            with pytest.raises(PeerGoneError) as ended:
                await guest.join(stream)
    assert guest.session is None
    return str(ended.value)


async def test_a_joiner_whose_host_leaves_the_lobby_is_told_nothing_was_played(tmp_path: Path) -> None:
    """A host that leaves its lobby (its person quits before the table is full) ends the
    joiner's wait with words that say the match never began, not a bare broken connection. And
    while it waited, the host's own screen was told its table as the joiner saw it (quietly:
    the joins and readies have lines of their own)."""
    host_log = Silent()
    host = peer(tmp_path, "host", BotDriver("pirate", 1), host_log)
    told: list[NetEvent] = []
    host.notify = told.append
    guest = peer(tmp_path, "guest", BotDriver("pirate", 2), Silent())

    async def once_it_is_ready() -> None:
        while host.lobby is None or not any(m.claim is not None for m in host.lobby.members):
            await trio.sleep(0.01)

    said = await join_a_host_that_leaves(host, guest, "hornswoggle", 3, once_it_is_ready)
    assert said.endswith("(the match had not begun: nothing was played)"), said
    tables = [event.lobby for event in told if isinstance(event, TableShown)]
    assert tables[0]["names"] == ["host"] and tables[0]["needed"] == 2  # (shown as the door opens)
    assert tables[-1]["names"] == ["host", "guest"] and tables[-1]["you"] == 0
    assert tables[-1]["needed"] == 1 and tables[-1]["ready"] == [True, True]
    assert not any(line.startswith("lobby: ") for line in host_log.lines)


async def test_a_host_that_leaves_while_the_joiner_is_asked_ends_the_question_at_once(tmp_path: Path) -> None:
    """A person still reading the table when the host leaves is told at once, not when they
    answer (a newcomer's try: "join this match?" stayed on the screen long after the host had
    gone, and only a y brought the error)."""
    host = peer(tmp_path, "host", BotDriver("pirate", 1), Silent())
    guest = peer(tmp_path, "guest", BotDriver("pirate", 2), Silent())
    asked = trio.Event()

    async def never_answers(shown: Mapping[str, Any]) -> bool:
        asked.set()
        await trio.sleep_forever()
        return True

    guest.confirm = never_answers
    said = await join_a_host_that_leaves(host, guest, "magic-square", 2, asked.wait)
    assert said.startswith("the host closed the connection (the match had not begun"), said
