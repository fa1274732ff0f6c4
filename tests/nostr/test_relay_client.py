"""Our NIP-01 client against a real relay (rust-nostr's, run by the test as its own process on
loopback): publish and the relay's OK, a refusal, stored events fetched by every kind of filter,
a live subscription, and connections that fail."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
import trio

from p2pgenius.net import nostr_relay
from p2pgenius.net.nostr_relay import RelayError
from p2pgenius.protocol import nostr
from p2pgenius.protocol.nostr import Draft, SecretKey
from p2pgenius.protocol.nostr_frames import EndOfStored, Filter, Received
from tests.net.relays import free_port
from tests.nostr.relays import local_relay, local_relay_missing
from tests.patience import HANG_S

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=local_relay_missing() or "")

ALICE: Final = SecretKey((21).to_bytes(32, "big"))
BOB: Final = SecretKey((22).to_bytes(32, "big"))
NOW: Final = 1_780_000_000
"""The time the events claim (no clock is read: a relay takes any time, this one does)."""
WAIT_S: Final = HANG_S
"""The bound on a wait on loopback: only a hang reaches it (tests/patience.py); a timeout that is
the behaviour under test is given as its own, short, number."""


def move(n: int, content: str = "move", kind: int = 1059) -> nostr.Event:
    tags = (("p", BOB.public.hex()), ("t", "p2pgenius"))
    return nostr.sign_event(ALICE, Draft(NOW + n, kind, tags, f"{content} {n}"), n.to_bytes(32, "big"))


@pytest.fixture(scope="module")
def relay_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with local_relay(tmp_path_factory.mktemp("nostr-relay")) as url:
        yield url


async def test_publish_is_acknowledged_and_a_duplicate_said_so(relay_url: str) -> None:
    async with nostr_relay.connect(relay_url, timeout_s=WAIT_S) as relay:
        first = await relay.publish(move(1), timeout_s=WAIT_S)
        assert first.accepted and first.event_id == move(1).id
        again = await relay.publish(move(1), timeout_s=WAIT_S)
        assert again.accepted and again.reason == "duplicate"
        assert relay.dropped.total == 0


async def test_an_event_the_relay_refuses_comes_back_as_a_typed_refusal(relay_url: str) -> None:
    forged = dataclasses.replace(move(2), sig=move(3).sig)  # (built by hand: sign_event never makes one)
    async with nostr_relay.connect(relay_url, timeout_s=WAIT_S) as relay:
        refused = await relay.publish(forged, timeout_s=WAIT_S)
    assert not refused.accepted and refused.reason == "invalid", refused


async def test_stored_events_are_fetched_by_each_kind_of_filter(relay_url: str) -> None:
    events = [move(n, "fetch") for n in range(10, 14)] + [move(14, "other kind", kind=1060)]
    async with nostr_relay.connect(relay_url, timeout_s=WAIT_S) as relay:
        for event in events:
            assert (await relay.publish(event, timeout_s=WAIT_S)).accepted
        for wanted, expected in [
            (Filter(ids=tuple(e.id for e in events)), events),
            (Filter(kinds=(1060,), authors=(ALICE.public.hex(),)), events[4:]),
            (
                Filter(kinds=(1059,), tags={"p": (BOB.public.hex(),)}, since=NOW + 11, until=NOW + 13),
                events[1:4],
            ),
            (Filter(tags={"t": ("p2pgenius",)}, since=NOW + 10, limit=2), events[3:5]),
            (Filter(authors=(BOB.public.hex(),)), []),
        ]:
            fetched = await relay.fetch([wanted], timeout_s=WAIT_S)
            assert fetched.complete and fetched.closed is None
            assert {e.id for e in fetched.events} == {e.id for e in expected}, wanted
        assert relay.dropped.total == 0


async def test_a_subscription_gets_the_stored_events_then_the_new_ones(relay_url: str) -> None:
    async with (
        nostr_relay.connect(relay_url, timeout_s=WAIT_S) as reader,
        nostr_relay.connect(relay_url, timeout_s=WAIT_S) as writer,
    ):
        assert (await writer.publish(move(20, "live"), timeout_s=WAIT_S)).accepted
        wanted = Filter(kinds=(1059,), authors=(ALICE.public.hex(),), since=NOW + 20)
        with trio.fail_after(WAIT_S):
            async with reader.subscribe([wanted]) as subscription:
                got = [await subscription.__anext__(), await subscription.__anext__()]
                assert got == [Received(subscription.id, move(20, "live")), EndOfStored(subscription.id)]
                assert (await writer.publish(move(21, "live"), timeout_s=WAIT_S)).accepted
                assert await subscription.__anext__() == Received(subscription.id, move(21, "live"))
            # Closed: what the relay stores now is no longer sent on this subscription.
            assert (await writer.publish(move(22, "live"), timeout_s=WAIT_S)).accepted
            fetched = await reader.fetch([wanted], timeout_s=WAIT_S)
        assert len(fetched.events) == 3
        assert reader.dropped.counts.get(nostr_relay.UNASKED, 0) == 0


async def test_connections_that_cannot_be_made_are_one_line_errors(tmp_path: Path) -> None:
    port = free_port()  # (nothing listens there)
    with pytest.raises(RelayError, match=f"relay 'ws://127.0.0.1:{port}': cannot connect"):
        async with nostr_relay.connect(f"ws://127.0.0.1:{port}", timeout_s=WAIT_S):
            pass
    with pytest.raises(RelayError, match="ws:// or wss:// URL"):
        async with nostr_relay.connect("http://127.0.0.1:1"):
            pass


async def test_the_blocks_own_error_comes_out_as_raised(relay_url: str) -> None:
    with pytest.raises(KeyError, match="mine"):
        async with nostr_relay.connect(relay_url, timeout_s=WAIT_S):
            raise KeyError("mine")
