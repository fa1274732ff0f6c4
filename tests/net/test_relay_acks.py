"""A relayed connection acknowledges what it reads at once (Linux's TCP_QUICKACK): the transit relay
writes without TCP_NODELAY, so its second small write waits for our acknowledgement of its first,
which Linux otherwise puts off by up to 40 ms in a ping-pong exchange such as a match
(docs/performance.md, "Wide-area link: through a relay")."""

from __future__ import annotations

import socket

import pytest
import trio
import trio.testing

from p2pgenius.net import transit

pytestmark = pytest.mark.skipif(not transit.QUICKACK, reason="TCP_QUICKACK is Linux's")

ROUNDS = 20


def delaying(stream: trio.SocketStream) -> bool:
    """Whether the system would put off acknowledging what ``stream`` reads next (Linux reports
    TCP_QUICKACK as 0 in its ping-pong mode)."""
    return stream.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK) == 0


async def test_a_relayed_stream_acknowledges_at_once_after_every_read() -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    ours = await trio.open_tcp_stream("127.0.0.1", port)
    relay_end = await listener.accept()
    relayed = transit.Relayed(ours, ("127.0.0.1", port))
    seen_delaying = 0
    with trio.fail_after(10):
        async with ours, relay_end, listener:
            for _ in range(ROUNDS):  # a match's exchange: each side answers what it read
                await relay_end.send_all(b"turn")
                assert await relayed.receive_some(4) == b"turn"
                assert not delaying(ours)  # (set again after this read)
                await relayed.send_all(b"move")  # (sending soon after a read: Linux delays again)
                assert await relay_end.receive_some(4) == b"move"
                seen_delaying += delaying(ours)
    # The check above means something only if Linux was delaying before the reads: it does as soon
    # as a socket sends within its acknowledgement timeout of a read (40 ms or more), so every round
    # but one on a machine stalled that long.
    assert seen_delaying >= ROUNDS // 2


async def test_bytes_the_relay_sent_with_its_ok_come_first_and_need_no_socket() -> None:
    left, right = trio.testing.memory_stream_pair()
    relayed = transit.Relayed(left, ("127.0.0.1", 4001), b"early")
    await right.send_all(b" late")
    assert await relayed.receive_some(3) == b"ear"
    assert await relayed.receive_some() == b"ly"
    assert await relayed.receive_some() == b" late"  # (a stream without a socket: nothing to set)
