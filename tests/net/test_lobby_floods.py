"""A caller cannot flood the host's lobby: what a caller sends waits in a bounded inbox (its
reader stops reading when the inbox is full, and TCP slows the caller down), a caller that keeps
talking before it says it is ready is shown the door, a ready player that keeps talking cannot
hold the start, and other callers still get in. Each played against a real host over loopback
TCP, the flooder a real handshake followed by messages sent as fast as it can."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import encode
from p2pgenius.errors import PeerGoneError
from p2pgenius.net import lobby as lobby_module
from p2pgenius.net.connection import Connection
from p2pgenius.net.events import NetEvent, OptionsProposed
from p2pgenius.net.inbox import INBOX_ITEMS
from p2pgenius.net.lobby import agreed_of
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session.setup import make_ready
from tests.patience import HANG_S

from .test_lobby_squatting import listen_to
from .test_network import Silent, peer

BURST = 2000
"""Messages a flooder puts into one write (each ~40 bytes: a write is some 80 KB)."""


async def flood(connection: Connection, payloads: list[bytes], bursts: int = 1000) -> int:
    """Send ``payloads`` over and over, ``BURST`` to a write, until the host closes the
    connection (or ``bursts`` writes went out); returns how many went out."""
    sent = 0
    try:
        for _ in range(bursts):
            for index in range(BURST):
                connection.channel.send(payloads[index % len(payloads)])
            await connection.send(payloads[0])
            sent += BURST + 1
    except PeerGoneError:
        pass
    return sent


async def caller(port: int, name: str) -> tuple[Connection, dict[str, Any]]:
    """A caller that completes the handshake; the second value is the table its hello showed."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    identity = Identity.generate()
    connection = Connection(stream, SecureChannel(initiator=True, identity=identity, hello={"name": name}))
    established = await connection.handshake()
    return connection, established.peer_hello["lobby"]


class Gauge:
    """The most items the host's lobby held waiting at once, looked at after every scheduling
    round while it runs."""

    def __init__(self, host: Peer) -> None:
        self.host = host
        self.most = 0

    async def watch(self) -> None:
        while True:
            lobby = self.host.lobby
            said = lobby._said if lobby is not None else None
            if said is not None:
                self.most = max(self.most, said.items.statistics().current_buffer_used)
            await trio.sleep(0)


def noted(host: Peer) -> list[NetEvent]:
    events: list[NetEvent] = []
    host.notify = events.append
    return events


async def test_an_unready_caller_flooding_proposals_is_shown_the_door_and_a_friend_plays(
    tmp_path: Path,
) -> None:
    log = Silent()
    host = peer(tmp_path, "host", BotDriver("random", 1), log)
    host.considers_proposals = True  # (a person hosts: a proposal is put to it)
    events = noted(host)
    friend = peer(tmp_path, "friend", BotDriver("random", 2), Silent())
    host.settle_at_once = friend.settle_at_once = True  # (turns without fast: no minute for bots)
    gauge = Gauge(host)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={}, setup={"hp": [3, 3]}, peers=2)
            )
            nursery.start_soon(gauge.watch)
            flooder, _ = await caller(port, "flooder")
            heard: list[Any] = []
            nursery.start_soon(listen_to, flooder, heard)
            sent = await flood(flooder, [encode(["propose", {"fast": True}])])
            while "closed" not in heard:
                await trio.sleep(0.01)
            await friend.join(await trio.open_tcp_stream("127.0.0.1", port))
            nursery.cancel_scope.cancel()
    assert sent > BURST  # (it did flood)
    assert gauge.most <= INBOX_ITEMS, f"{gauge.most} items held for one caller"
    reason = f"you sent more than {lobby_module.MAX_UNREADY_MESSAGES} messages without saying you are ready"
    assert ["refused", reason] in heard
    assert any(line == f"refused flooder: {reason}" for line in log.lines), log.lines
    # The person was asked once; the flooder's proposal went with it, so the table did not wait
    # for an answer about it.
    assert sum(isinstance(e, OptionsProposed) for e in events) == 1
    assert host.session is not None and host.session.names == ["host", "friend"]
    assert host.session.finished


async def test_a_ready_player_flooding_the_lobby_neither_fills_the_host_nor_holds_the_start(
    tmp_path: Path,
) -> None:
    # Three seats: a ready player floods whatever it likes (pings, junk, proposals), which a
    # ready player's host ignores; the third player still comes in, and the table starts.
    host = peer(tmp_path, "host", BotDriver("pirate", 1), Silent())
    friend = peer(tmp_path, "friend", BotDriver("pirate", 2), Silent())
    gauge = Gauge(host)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="hornswoggle", options={}, setup={}, peers=3)
            )
            nursery.start_soon(gauge.watch)
            flooder, table = await caller(port, "flooder")
            nursery.start_soon(listen_to, flooder, [])
            ready = make_ready(
                flooder.channel.identity, bytes(32), salt=table["salt"], agreed=agreed_of(table), claim=[]
            )
            await flooder.send(encode(["ready", ready]))
            junk = [encode(["ping", 1]), encode(["propose", {"fast": True}]), b"\xc1", encode(["ready", {}])]
            nursery.start_soon(flood, flooder, junk, 10_000)
            await trio.sleep(0.5)  # (the flood is under way)
            nursery.start_soon(friend.join, await trio.open_tcp_stream("127.0.0.1", port))
            while host.session is None:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert host.session.names == ["host", "flooder", "friend"]
    assert gauge.most <= INBOX_ITEMS, f"{gauge.most} items held for one caller"
