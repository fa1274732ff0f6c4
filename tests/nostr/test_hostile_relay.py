"""Our NIP-01 client against a relay of our own that lies: garbage, forged events, events nobody
asked for, oversized frames, silence, and a connection cut. Each bad frame is dropped and counted;
the good ones around it still arrive; a wait ends on its timeout."""

from __future__ import annotations

import json
from typing import Final

import pytest
import trio
import trio_websocket

from p2pgenius.net import nostr_relay
from p2pgenius.net.nostr_relay import RelayError
from p2pgenius.protocol import nostr
from p2pgenius.protocol.nostr import Draft, SecretKey
from p2pgenius.protocol.nostr_frames import Closed, EndOfStored, Filter, Notice, Received
from tests.nostr.relays import hostile_relay
from tests.patience import HANG_S

KEY: Final = SecretKey((31).to_bytes(32, "big"))
PEER: Final = SecretKey((32).to_bytes(32, "big"))
WAIT_S: Final = HANG_S
"""The bound on a wait on loopback: only a hang reaches it (tests/patience.py); a timeout that is
the behaviour under test is given as its own, short, number."""
WANTED: Final = Filter(kinds=(1059,), tags={"p": (PEER.public.hex(),)})


def event(n: int, kind: int = 1059) -> nostr.Event:
    return nostr.sign_event(KEY, Draft(1000 + n, kind, (("p", PEER.public.hex()),), f"move {n}"), bytes(32))


async def a_subscription(connection: trio_websocket.WebSocketConnection) -> str:
    """The id of the client's first REQ."""
    request = json.loads(await connection.get_message())
    assert request[0] == "REQ"
    return str(request[1])


async def unanswered(connection: trio_websocket.WebSocketConnection) -> None:
    """Read all the client sends, answer nothing (a relay that reads nothing would also hold up
    the closing handshake: the client gives up on it after CLOSE_S, which the tests need not wait)."""
    while True:
        await connection.get_message()


async def test_garbage_forgeries_and_strays_are_dropped_and_counted_and_the_rest_arrives() -> None:
    async def script(connection: trio_websocket.WebSocketConnection) -> None:
        sub = await a_subscription(connection)
        forged = {**event(2).to_json(), "content": "move 3"}
        for frame in [
            "not json at all",
            '["EVENT"',
            '{"EVENT": 1}',
            '["AUTH","challenge"]',
            json.dumps(["EVENT", sub, forged]),  # forged: its id is not the hash of its fields
            json.dumps(["EVENT", sub, event(4, kind=1).to_json()]),  # signed, but not what the filter asks
            json.dumps(["EVENT", "someone-else", event(5).to_json()]),  # no subscription of ours
            json.dumps(["OK", event(6).id, True, ""]),  # we published nothing
            json.dumps(["NOTICE", "be nice"]),
            json.dumps(["NOTICE", "x" * (nostr_relay.MAX_FRAME_CHARS + 1)]),  # oversized: dropped
            json.dumps(["EVENT", sub, event(1).to_json()]),
            json.dumps(["EOSE", sub]),
            json.dumps(["CLOSED", sub, "error: shutting down idle subscription"]),
        ]:
            await connection.send_message(frame)
        await unanswered(connection)

    async with trio.open_nursery() as nursery:
        url = await hostile_relay(nursery, script)
        async with (
            nostr_relay.connect(url, timeout_s=WAIT_S) as relay,
            relay.subscribe([WANTED]) as subscription,
        ):
            with trio.fail_after(WAIT_S):
                got = [item async for item in subscription]
        assert got == [
            Received(subscription.id, event(1)),
            EndOfStored(subscription.id),
            Closed(subscription.id, "error: shutting down idle subscription"),
        ]
        assert dict(relay.dropped.counts) == {
            "not_json": 2,
            "shape": 1,
            "unknown": 1,
            "forged": 1,
            nostr_relay.UNMATCHED: 1,
            nostr_relay.UNASKED: 2,
            nostr_relay.OVERSIZED: 1,
        }
        assert list(relay.notices) == [Notice("be nice")]
        nursery.cancel_scope.cancel()


async def test_a_relay_that_never_answers_costs_a_timeout_and_one_line() -> None:
    async def script(connection: trio_websocket.WebSocketConnection) -> None:
        await unanswered(connection)

    async with trio.open_nursery() as nursery:
        url = await hostile_relay(nursery, script)
        async with nostr_relay.connect(url, timeout_s=WAIT_S) as relay:
            with pytest.raises(RelayError, match=r"no OK for event .* within 0.2 s"):
                await relay.publish(event(1), timeout_s=0.2)
            fetched = await relay.fetch([WANTED], timeout_s=0.2)
            assert fetched.events == () and not fetched.complete
        nursery.cancel_scope.cancel()


async def test_a_frame_past_the_hard_limit_ends_the_connection_with_one_line() -> None:
    async def script(connection: trio_websocket.WebSocketConnection) -> None:
        await a_subscription(connection)
        await connection.send_message("x" * (nostr_relay.HARD_FRAME_CHARS + 1))
        await unanswered(connection)

    async with trio.open_nursery() as nursery:
        url = await hostile_relay(nursery, script)
        async with (
            nostr_relay.connect(url, timeout_s=WAIT_S) as relay,
            relay.subscribe([WANTED]) as subscription,
        ):
            with trio.fail_after(WAIT_S), pytest.raises(RelayError, match=r"ended .*1009"):
                await subscription.__anext__()
            assert relay.dropped.counts[nostr_relay.OVERSIZED] == 1
            with pytest.raises(RelayError, match="connection is closed"):
                await relay.publish(event(1))
        nursery.cancel_scope.cancel()


async def test_a_relay_gone_while_we_wait_for_its_ok_is_one_line() -> None:
    async def script(connection: trio_websocket.WebSocketConnection) -> None:
        await connection.get_message()
        await connection.aclose(1011, "gone")

    async with trio.open_nursery() as nursery:
        url = await hostile_relay(nursery, script)
        async with nostr_relay.connect(url, timeout_s=WAIT_S) as relay:
            with trio.fail_after(WAIT_S), pytest.raises(RelayError, match=r"ended before an OK.*1011"):
                await relay.publish(event(1), timeout_s=WAIT_S)
        nursery.cancel_scope.cancel()


async def test_an_ok_refusal_is_typed_and_a_second_ok_is_a_stray() -> None:
    async def script(connection: trio_websocket.WebSocketConnection) -> None:
        sent = json.loads(await connection.get_message())
        for accepted in (False, True):
            await connection.send_message(json.dumps(["OK", sent[1]["id"], accepted, "blocked: not here"]))
        await unanswered(connection)

    async with trio.open_nursery() as nursery:
        url = await hostile_relay(nursery, script)
        async with nostr_relay.connect(url, timeout_s=WAIT_S) as relay:
            ok = await relay.publish(event(1), timeout_s=WAIT_S)
            assert not ok.accepted and ok.reason == "blocked"
            with trio.fail_after(WAIT_S):
                while relay.dropped.total == 0:
                    await trio.sleep(0.01)
            assert relay.dropped.counts[nostr_relay.UNASKED] == 1
        nursery.cancel_scope.cancel()
