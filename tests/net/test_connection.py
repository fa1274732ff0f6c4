"""A connection answers pings itself and times its own, and never waits for a peer that does not
read; the links relay and replace connections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import PeerGoneError
from p2pgenius.net import connection as connection_module
from p2pgenius.net.connection import ROUND_TRIPS_KEPT, Connection, Item, Kind
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.links import Links
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.channel_messages import MatchMessage
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
        for connection, inbox in ((a, inbox_a), (b, inbox_b)):
            connection.start(nursery)
            nursery.start_soon(connection.messages, inbox)
        a.ping()
        heard_b = await inbox_b.items.receive()  # b read a ping: it answered, and says it heard a
        assert heard_b == Item(Kind.HEARD, b, None)
        heard_a = await inbox_a.items.receive()  # a read the answer: one round trip
        assert heard_a.kind is Kind.HEARD and heard_a.connection is a and isinstance(heard_a.data, float)
        assert a.round_trips == [heard_a.data] and b.round_trips == []
        await b.send(encode(["m", b"a match message"]))
        item = await inbox_a.items.receive()
        payload, at, message = item.data
        assert (item.kind, item.connection, decode(payload)) == (Kind.MSG, a, ["m", b"a match message"])
        assert message == MatchMessage(b"a match message")  # (parsed once, where it was read)
        assert at == trio.current_time()
        nursery.cancel_scope.cancel()


async def test_a_pong_for_no_ping_of_ours_measures_nothing(autojump_clock: Any) -> None:
    del autojump_clock
    a, b = await pair()
    # A peer that answers pings it was never sent (to look faster, or slower) measures nothing;
    # one answered twice counts once.
    assert a.item(encode(["pong", 7])) == Item(Kind.HEARD, a, None)
    a._pings[3] = trio.current_time()
    await trio.sleep(0.5)
    assert a.item(encode(["pong", 3])) == Item(Kind.HEARD, a, 0.5)
    assert a.item(encode(["pong", 3])) == Item(Kind.HEARD, a, None)
    assert a.round_trips == [0.5]
    # Only the latest round trips are kept, and pings never answered are forgotten.
    for _ in range(ROUND_TRIPS_KEPT * 3):
        a.ping()
    assert len(a._pings) <= ROUND_TRIPS_KEPT + 1
    # Anything else, even an ill-formed ping, is the match loop's to judge.
    assert a.item(encode(["ping", "x"])).kind is Kind.MSG
    assert a.item(b"\xff").kind is Kind.MSG
    del b


async def test_links_relay_to_the_others_and_a_player_back_replaces_its_old_connection() -> None:
    (a, a_far), (b, b_far), (c, c_far) = [await pair() for _ in range(3)]
    links = Links()
    links.add(a, 1)
    links.add(b, 2)
    assert len(links) == 2 and links.index_of(b) == 2 and links.index_of(c) is None
    async with trio.open_nursery() as nursery:
        for connection in (a, b, c):
            connection.start(nursery)
        links.relay(b"hello", b)
        assert await a_far.receive() == [b"hello"]
        links.add(c, 1)  # player 1 came back on a new connection
        assert list(links) == [b, c] and links.index_of(c) == 1 and links.index_of(a) is None
        assert not links.drop(a)  # (its old connection's end is no loss)
        links.broadcast(b"all")
        assert await b_far.receive() == [b"all"] and await c_far.receive() == [b"all"]
        assert links.drop(b) and list(links) == [c]
        await links.aclose()
        nursery.cancel_scope.cancel()  # (the writers of a and b, no longer the links')


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
    # nobody): a connection is closed only once its other side answered none of three pings of
    # ours. Bytes it sends do not count: a peer that sends but does not read is as good as gone.
    del autojump_clock
    a, b = await pair()
    links = Links()
    links.add(a)
    async with trio.open_nursery() as nursery:
        inbox_a = Inbox[Item](nursery)
        a.start(nursery)
        nursery.start_soon(a.messages, inbox_a)
        await trio.sleep(3600)  # an hour of silence, and no ping yet
        links.ping(stalled_after=3)
        assert a.unanswered == 1  # (b reads nothing: nobody answers)
        links.ping(stalled_after=3)
        links.ping(stalled_after=3)
        assert a.unanswered == 3
        await b.send(encode(["m", b"late, but here"]))  # its bytes come, but it read none of ours
        assert (await inbox_a.items.receive()).kind is Kind.MSG
        assert a.unanswered == 3
        inbox_b = Inbox[Item](nursery)
        b.start(nursery)
        nursery.start_soon(b.messages, inbox_b)  # b reads now: it answers the three pings
        for _ in range(3):
            assert (await inbox_a.items.receive()).kind is Kind.HEARD
        assert a.unanswered == 0
        for _ in range(3):
            links.ping(stalled_after=3)
        assert a.unanswered in (1, 2, 3)  # (b answers as it reads)
        a.unanswered = 3  # three went unanswered (as if b stopped reading): the fourth closes it
        links.ping(stalled_after=3)
        assert a.dropped == "it answered none of our last 3 pings"
        while (item := await inbox_a.items.receive()).kind is not Kind.GONE:
            assert item.kind is Kind.HEARD
        nursery.cancel_scope.cancel()


async def lockstep_pair() -> tuple[Connection, Connection]:
    """Two connected peers whose every write waits until the other side reads it (as TCP's does
    once the buffers between them are full), their handshake done."""
    left, right = trio.testing.lockstep_stream_pair()
    a = Connection(left, SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "a"}))
    b = Connection(right, SecureChannel(initiator=False, identity=Identity.generate(), hello={"name": "b"}))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(a.handshake)
        nursery.start_soon(b.handshake)
    return a, b


async def test_a_peer_that_does_not_read_holds_up_neither_the_reader_nor_the_sender(
    autojump_clock: Any,
) -> None:
    # b sends pings and reads nothing. a's reader answered each ping by waiting for its write, and
    # a's sender waited behind it (one lock): whoever sent to b waited for ever. Now the pongs and
    # every message are queued, and a write that waits past the bound gives the connection up.
    del autojump_clock
    a, b = await lockstep_pair()
    async with trio.open_nursery() as nursery:
        inbox = Inbox[Item](nursery)
        a.start(nursery)
        nursery.start_soon(a.messages, inbox)
        for number in range(50):
            b.channel.send(encode(["ping", number]))
        nursery.start_soon(b.flush)  # (its write waits for a to read it all)
        for _ in range(50):  # a reads every ping, each answered (queued), none waited for
            assert (await inbox.items.receive()).kind is Kind.HEARD
        assert trio.current_time() == 0
        a.post(encode(["m", b"to a peer that reads nothing"]))  # never waits either
        await a.handed_over()  # nor does the loop, letting it leave: a write is under way
        a.ping()
        await a.handed_over()
        assert trio.current_time() == 0 and a.dropped is None
        assert (await inbox.items.receive()).kind is Kind.GONE  # the writer waited for the bound: dropped
        assert trio.current_time() == pytest.approx(connection_module.SEND_S)
        assert a.dropped == "it took nothing we sent for 10 s: it is not reading"
        with pytest.raises(PeerGoneError):
            a.post(encode(["m", b"more"]))
        nursery.cancel_scope.cancel()


async def test_a_queue_that_fills_gives_the_connection_up_at_once(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: Any
) -> None:
    # What waits for a peer that does not read is bounded: the post that would pass the bound
    # drops the connection (nothing is lost: a peer that comes back is sent what it lacks).
    del autojump_clock
    monkeypatch.setattr(connection_module, "QUEUE_BYTES", 4096)
    a, b = await lockstep_pair()
    async with trio.open_nursery() as nursery:
        inbox = Inbox[Item](nursery)
        a.start(nursery)
        nursery.start_soon(a.messages, inbox)
        a.post(b"x" * 1000)
        await trio.testing.wait_all_tasks_blocked()  # (the writer took it, and waits for b to read)
        for _ in range(4):
            a.post(b"x" * 1000)  # 4000 bytes wait
        with pytest.raises(PeerGoneError, match="it read nothing of the last 4 KiB sent to it"):
            a.post(b"x" * 100)
        assert (await inbox.items.receive()).kind is Kind.GONE  # closed by its writer, at once
        assert trio.current_time() == 0
        nursery.cancel_scope.cancel()
    del b


async def everything(connection: Connection) -> tuple[list[Any], str]:
    """Every message ``connection`` reads until it ends, and why it ended."""
    said: list[Any] = []
    try:
        while True:
            said += [decode(payload) for payload in await connection.receive()]
    except PeerGoneError as exc:
        return said, str(exc)


async def test_last_words_posted_while_a_write_is_under_way_are_written_before_the_close() -> None:
    # A refusal posted, and the connection closed after it, while the writer was still writing
    # what came before (the lobby's table, say): the writer left without writing the refusal,
    # and the caller saw the door close with no reason (seen on a busy machine).
    a, b = await lockstep_pair()
    async with trio.open_nursery() as nursery:
        a.start(nursery)
        a.post(encode(["lobby", "the table"]))
        await trio.testing.wait_all_tasks_blocked()  # (the writer took it, and waits for b to read)
        a.post(encode(["refused", "the reason"]))
        a.close_soon()
        said, ended = await everything(b)
        assert said == [["lobby", "the table"], ["refused", "the reason"]]
        assert ended == "the peer closed the connection"
        nursery.cancel_scope.cancel()
