"""A connection answers pings itself and times its own; the links relay and replace connections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2pgenius.canonical import decode, encode
from p2pgenius.net.connection import ROUND_TRIPS_KEPT, Connection, Item, Kind
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity


async def pair() -> tuple[Connection, Connection]:
    """Two connected peers over an in-memory stream, their handshake done."""
    left, right = trio.testing.memory_stream_pair()
    a = Connection(left, SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "a"}))
    b = Connection(right, SecureChannel(initiator=False, identity=Identity.generate(), hello={"name": "b"}))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(a.handshake)
        nursery.start_soon(b.handshake)
    return a, b


async def test_a_ping_is_answered_by_the_connection_and_its_round_trip_measured(autojump_clock: Any) -> None:
    del autojump_clock
    a, b = await pair()
    async with trio.open_nursery() as nursery:
        inbox_a, inbox_b = Inbox[Item](nursery), Inbox[Item](nursery)
        nursery.start_soon(a.messages, inbox_a)
        nursery.start_soon(b.messages, inbox_b)
        await a.ping()
        heard_b = await inbox_b.receive()  # b read a ping: it answered, and says it heard a
        assert heard_b == Item(Kind.HEARD, b, None)
        heard_a = await inbox_a.receive()  # a read the answer: one round trip
        assert heard_a.kind is Kind.HEARD and heard_a.connection is a and isinstance(heard_a.data, float)
        assert a.round_trips == [heard_a.data] and b.round_trips == []
        await b.send(encode(["m", b"a match message"]))
        item = await inbox_a.receive()
        payload, at = item.data
        assert (item.kind, item.connection, decode(payload)) == (Kind.MSG, a, ["m", b"a match message"])
        assert at == trio.current_time()
        nursery.cancel_scope.cancel()


async def test_a_pong_for_no_ping_of_ours_measures_nothing(autojump_clock: Any) -> None:
    del autojump_clock
    a, b = await pair()
    # A peer that answers pings it was never sent (to look faster, or slower) measures nothing;
    # one answered twice counts once.
    assert await a.item(encode(["pong", 7])) == Item(Kind.HEARD, a, None)
    a._pings[3] = trio.current_time()
    await trio.sleep(0.5)
    assert await a.item(encode(["pong", 3])) == Item(Kind.HEARD, a, 0.5)
    assert await a.item(encode(["pong", 3])) == Item(Kind.HEARD, a, None)
    assert a.round_trips == [0.5]
    # Only the latest round trips are kept, and pings never answered are forgotten.
    for _ in range(ROUND_TRIPS_KEPT * 3):
        await a.ping()
    assert len(a._pings) <= ROUND_TRIPS_KEPT + 1
    # Anything else, even an ill-formed ping, is the match loop's to judge.
    assert (await a.item(encode(["ping", "x"]))).kind is Kind.MSG
    assert (await a.item(b"\xff")).kind is Kind.MSG
    del b


async def test_links_relay_to_the_others_and_a_player_back_replaces_its_old_connection() -> None:
    (a, a_far), (b, b_far), (c, c_far) = [await pair() for _ in range(3)]
    links = Links()
    links.add(a, 1)
    links.add(b, 2)
    assert len(links) == 2 and links.index_of(b) == 2 and links.index_of(c) is None
    await links.relay(b"hello", b)
    assert await a_far.receive() == [b"hello"]
    links.add(c, 1)  # player 1 came back on a new connection
    assert list(links) == [b, c] and links.index_of(c) == 1 and links.index_of(a) is None
    assert not links.drop(a)  # (its old connection's end is no loss)
    await links.broadcast(b"all")
    assert await b_far.receive() == [b"all"] and await c_far.receive() == [b"all"]
    assert links.drop(b) and list(links) == [c]
    await links.aclose()


async def test_a_peer_closes_its_connections_and_files_however_its_block_ends(tmp_path: Path) -> None:
    from p2pgenius.bots.driver import BotDriver
    from p2pgenius.net.files import Files
    from p2pgenius.net.peer import Peer

    a, a_far = await pair()
    files = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")

    async def leaves() -> None:
        async with Peer(Identity.generate(), "ann", files, BotDriver().decide, print, print) as peer:
            peer.links.add(a)
            files.append(files.transcript, [b"a record"])
            assert files._open
            raise RuntimeError("the person left")

    with pytest.raises(RuntimeError, match="the person left"):
        await leaves()
    assert not files._open  # closed (and appending again would reopen them)
    with pytest.raises(trio.ClosedResourceError):
        await a.stream.send_all(b"more")
    assert await a_far.stream.receive_some(10) == b""  # the other side saw it close


async def test_a_connection_is_closed_as_dead_only_after_pings_of_ours_went_unanswered(
    autojump_clock: Any,
) -> None:
    # Silence alone is no sign of a dead route (a lobby, or a match that just began, pings
    # nobody): a connection is closed only once it brought no byte since three pings of ours.
    del autojump_clock
    a, b = await pair()
    links = Links()
    links.add(a)
    async with trio.open_nursery() as nursery:
        inbox_a = Inbox[Item](nursery)
        nursery.start_soon(a.messages, inbox_a)
        await trio.sleep(3600)  # an hour of silence, and no ping yet
        await links.ping(stalled_after=3)
        assert a.unanswered == 1  # (b reads nothing: nobody answers)
        await links.ping(stalled_after=3)
        await links.ping(stalled_after=3)
        assert a.unanswered == 3
        await b.send(encode(["m", b"late, but here"]))  # any byte at all counts as an answer
        assert (await inbox_a.receive()).kind is Kind.MSG
        assert a.unanswered == 0
        for _ in range(3):
            await links.ping(stalled_after=3)
        await links.ping(stalled_after=3)  # the fourth finds three unanswered: closed
        assert (await inbox_a.receive()).kind is Kind.GONE
        nursery.cancel_scope.cancel()
