"""A player cannot flood the host during a match: what a connection brings waits in a bounded
inbox (its reader stops reading while the inbox is full, so TCP slows the flooder down), and the
match goes on to its end; nor can it pile up connections by coming back again and again. Played
over loopback TCP by real peers (bots), one whose connection also sends pings and stray pongs as
fast as it can, one that comes back on new connections."""

from __future__ import annotations

import contextlib
from pathlib import Path

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import encode
from p2pgenius.errors import PeerGoneError
from p2pgenius.net import inbox as inbox_module
from p2pgenius.net.connection import Connection
from p2pgenius.net.peer import Peer
from p2pgenius.net.reconnect import sync
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

from .villain import Seen, honest

BURST = 2000
"""Messages the flooder puts into one write."""
BURSTS = 10
"""Writes it floods with: 20,000 messages, against an inbox of 64 (its own moves, in the same
stream, wait behind its flood: more would only slow its own match down)."""


async def flood(flooder: Peer, host: Peer) -> int:
    """Once the match is under way, pings and pongs nobody asked for, ``BURST`` to a write,
    ``BURSTS`` writes (or until the host's match is over); returns how many went out."""
    while flooder.session is None or not flooder.links.connections:
        await trio.sleep(0.01)
    connection, sent = flooder.links.connections[0], 0
    try:
        for _ in range(BURSTS):
            if host.session is not None and host.session.finished:
                break
            for number in range(BURST):
                connection.channel.send(encode(["pong", number]))  # (answers to no ping of the host's)
            await connection.send(encode(["ping", sent]))  # (the host answers each ping)
            sent += BURST + 1
            await trio.sleep(0.02)
    except PeerGoneError:
        pass
    return sent


async def gauge(host: Peer, most: list[int]) -> None:
    """The most items the host's match inbox held at once, looked at every scheduling round."""
    while True:
        if host.loop is not None:
            most[0] = max(most[0], host.loop.inbox.items.statistics().current_buffer_used)
        await trio.sleep(0)


async def test_a_player_flooding_pings_during_the_match_fills_no_inbox_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    seen = Seen()
    host = honest(tmp_path, "host", seen)
    flooder = honest(tmp_path, "flooder", Seen())
    flooder.decide = BotDriver("random", 2).decide
    host.settle_at_once = flooder.settle_at_once = True
    flooder.linger = True  # (it reads on after its end, until the host, behind the flood, ends too)
    most, sent = [0], []
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listeners[0], game="duel", options={"fast": True}, setup={"hp": [3, 3]}, peers=2
                )
            )
            nursery.start_soon(gauge, host, most)

            async def flooding() -> None:
                sent.append(await flood(flooder, host))

            nursery.start_soon(flooding)
            await flooder.join(await trio.open_tcp_stream("127.0.0.1", port))
            while not sent:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert sent[0] > BURST, sent  # (it did flood: a burst is 30 times the inbox)
    assert most[0] <= inbox_module.INBOX_ITEMS, f"{most[0]} items held for one player"
    assert host.session is not None and host.session.finished
    assert flooder.session is not None and flooder.session.outcome == host.session.outcome
    assert verify(host.files.transcript.read_bytes()).ok


async def closed(connection: Connection) -> None:
    """Read ``connection`` until the other end closes it."""
    with contextlib.suppress(PeerGoneError):
        while True:
            await connection.receive()


async def test_a_player_coming_back_again_and_again_holds_one_connection_at_the_host(
    tmp_path: Path,
) -> None:
    # Each time a player comes back, the host puts the new connection in the old one's place. The
    # old one used to stay open, its reader reading on: one more connection for every return.
    seen = Seen()
    host = honest(tmp_path, "host", seen)
    guest = honest(tmp_path, "guest", Seen())

    async def thinks_for_ever(session: SessionView, seat: int) -> None:
        await trio.sleep_forever()

    guest.decide = thinks_for_ever  # (the match waits at its first stage, with time to spare)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            while guest.session is None or guest.session.stage is None or not guest.links.connections:
                await trio.sleep(0.01)
            previous: Connection | None = None  # (the guest's own, first: its reader notices)
            for time in range(1, 4):
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                channel = SecureChannel(initiator=True, identity=guest.identity, hello={"name": "guest"})
                again = Connection(stream, channel)
                await again.handshake()
                await sync(guest.session, again, speak_first=True)
                while sum(line == "guest is back" for line in seen.lines) < time:
                    await trio.sleep(0.01)
                with trio.fail_after(HANG_S):  # the host closed the connection it came back in place of
                    if previous is None:
                        while guest.links.connections:
                            await trio.sleep(0.01)
                    else:
                        await closed(previous)
                previous = again
            assert host.links.connections == [host.links.via[1]]
            nursery.cancel_scope.cancel()
