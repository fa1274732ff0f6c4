"""A stranger cannot hold a table: a caller who never says it is ready is shown the door after a
while, callers from one address cannot crowd the lobby, and a friend with the invite's seat token
always finds its seat (a stranger not yet ready makes room). Each played against a real host over
loopback TCP, the squatter a real handshake that never says ready."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode
from p2pgenius.errors import PeerGoneError
from p2pgenius.net import lobby as lobby_module
from p2pgenius.net.connection import Connection
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity
from tests.patience import HANG_S

from .test_network import Silent, peer

TOKEN = bytes(range(16))


async def squat(port: int, name: str = "mallory", token: bytes | None = None) -> tuple[Connection, list[Any]]:
    """A caller that completes the handshake and then never says it is ready; the second value
    fills with what the host sends it."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    hello: dict[str, Any] = {"name": name} if token is None else {"name": name, "token": token}
    connection = Connection(stream, SecureChannel(initiator=True, identity=Identity.generate(), hello=hello))
    await connection.handshake()
    return connection, []


async def listen_to(connection: Connection, heard: list[Any]) -> None:
    """Keep what the host says to a squatter until it closes the connection."""
    try:
        while True:
            heard += [decode(payload) for payload in await connection.receive()]
    except PeerGoneError:
        heard.append("closed")


def host_of(tmp_path: Path, log: Silent, *, token: bytes | None = TOKEN) -> Peer:
    host = peer(tmp_path, "host", BotDriver("random", 1), log)
    host.token = token
    return host


async def test_a_friend_with_the_invite_takes_the_seat_a_stranger_holds_without_saying_ready(
    tmp_path: Path,
) -> None:
    log = Silent()
    host = host_of(tmp_path, log)
    friend = peer(tmp_path, "friend", BotDriver("random", 2), Silent())
    friend.token = TOKEN
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            squatter, heard = await squat(port)
            nursery.start_soon(listen_to, squatter, heard)
            while not any("mallory joined" in line for line in log.lines):
                await trio.sleep(0.01)
            await friend.join(await trio.open_tcp_stream("127.0.0.1", port))
    assert host.session is not None and host.session.outcome is not None
    assert host.session.names == ["host", "friend"]
    assert ["refused", "a player with the host's invite came for this seat"] in heard
    assert any("refused mallory: a player with the host's invite came for this seat" in x for x in log.lines)


async def test_a_wrong_token_is_no_token(tmp_path: Path) -> None:
    # Without the right token a second caller finds the table full: it never evicts anyone.
    log = Silent()
    host = host_of(tmp_path, log)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            first, heard = await squat(port, "first")
            nursery.start_soon(listen_to, first, heard)
            while not any("first joined" in line for line in log.lines):
                await trio.sleep(0.01)
            second, refused = await squat(port, "second", token=bytes(16))
            await listen_to(second, refused)
            assert refused == [["refused", "the table is full"], "closed"]
            assert heard == [] or heard[0][0] == "lobby"
            nursery.cancel_scope.cancel()


async def test_a_caller_that_never_says_it_is_ready_is_shown_the_door(
    tmp_path: Path, autojump_clock: Any
) -> None:
    log = Silent()
    host = host_of(tmp_path, log)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
        )
        squatter, heard = await squat(port)
        started = trio.current_time()
        await listen_to(squatter, heard)
        waited = trio.current_time() - started
        assert heard[-2:] == [["refused", "you did not say you are ready within 60 s"], "closed"]
        assert lobby_module.READY_S <= waited < lobby_module.READY_S + 5
        # The seat is free again: a player who says it is ready plays.
        guest = peer(tmp_path, "guest", BotDriver("random", 2, thread=False), Silent())
        await guest.join(await trio.open_tcp_stream("127.0.0.1", port))
        assert guest.session is not None and guest.session.outcome is not None
        nursery.cancel_scope.cancel()


async def test_callers_from_one_address_cannot_crowd_the_lobby(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (Loopback is this machine's own terminals and is not limited: pretend it is a neighbour's.)
    monkeypatch.setattr(lobby_module, "_local", lambda address: False)
    log = Silent()
    host = host_of(tmp_path, log)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="hornswoggle", options={}, setup={}, peers=4)
            )
            held = []  # (kept open: a connection dropped is a caller gone)
            for name in ("m1", "m2"):
                held.append(await squat(port, name))
                while not any(f"{name} joined" in line for line in log.lines):
                    await trio.sleep(0.01)
            third, heard = await squat(port, "m3")
            await listen_to(third, heard)
            assert heard == [
                ["refused", "2 callers from your address already wait in the lobby unready"],
                "closed",
            ]
            assert len(held) == 2
            # A friend with the token is not counted against the address.
            friend, said = await squat(port, "friend", token=TOKEN)
            nursery.start_soon(listen_to, friend, said)
            while not any("friend joined" in line for line in log.lines):
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()


async def test_the_limit_a_stranger_who_says_ready_at_once_takes_a_free_seat(tmp_path: Path) -> None:
    # The stated limit, at its real extent: the token makes room only by sending away a caller
    # that is not ready yet. A stranger who finds the address and says ready at once (as a bot
    # does) plays; the host sees its name and fingerprint in the lobby, and the friend who comes
    # later with the invite is told the match started without it. ``host --invite-only`` closes
    # this race (next test).
    log = Silent()
    host = host_of(tmp_path, log)
    stranger = peer(tmp_path, "stranger", BotDriver("random", 3), Silent())
    friend = peer(tmp_path, "friend", BotDriver("random", 2), Silent())
    friend.token = TOKEN
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            nursery.start_soon(stranger.join, await trio.open_tcp_stream("127.0.0.1", port))
            while host.session is None:
                await trio.sleep(0.01)
            with pytest.raises(PeerGoneError, match="started without you"):
                await friend.join(await trio.open_tcp_stream("127.0.0.1", port))
    assert host.session.names == ["host", "stranger"]
    assert any(line.startswith("stranger joined") for line in log.lines)


async def test_an_invite_only_table_turns_away_callers_without_the_token(tmp_path: Path) -> None:
    log = Silent()
    host = host_of(tmp_path, log)
    host.invite_only = True
    stranger = peer(tmp_path, "stranger", BotDriver("random", 3), Silent())
    friend = peer(tmp_path, "friend", BotDriver("random", 2), Silent())
    friend.token = TOKEN
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            with pytest.raises(PeerGoneError, match="seats only players with the host's invite"):
                await stranger.join(await trio.open_tcp_stream("127.0.0.1", port))
            await friend.join(await trio.open_tcp_stream("127.0.0.1", port))
    assert host.session is not None and host.session.names == ["host", "friend"]


async def test_a_person_who_never_answers_hears_why_the_host_turned_them_away(
    tmp_path: Path, autojump_clock: Any
) -> None:
    """A joiner whose person leaves the table's question unanswered is turned away after the
    lobby's wait, and hears the host's reason at once, while still asked (the question no longer
    waits for an answer before it reads the host)."""
    host = host_of(tmp_path, Silent())
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    guest = peer(tmp_path, "guest", BotDriver("random", 2, thread=False), Silent())

    async def never_answers(shown: Mapping[str, Any]) -> bool:
        await trio.sleep_forever()
        return True

    guest.confirm = never_answers
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
        )
        started = trio.current_time()
        with pytest.raises(PeerGoneError, match=r"^the host refused us: you did not say you are ready"):
            await guest.join(await trio.open_tcp_stream("127.0.0.1", port))
        assert trio.current_time() - started < lobby_module.READY_S + 5
        nursery.cancel_scope.cancel()
