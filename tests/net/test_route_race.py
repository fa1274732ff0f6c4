"""A joiner's race between its host's direct address and the host's relay (issue 48), in virtual
time: every TCP handshake takes its path's round trip, every byte half of it, and the relay is a
real one (the tests' transit relay, started here) on in-memory connections.

A direct route that completes its handshake within its own round trip wins even when the relay is
nearer than the host and pairs first (the relay midway: the relay's path exactly as long as the
direct one), however a few milliseconds of jitter fall; a direct address that drops every packet
still falls back to the relay after the head start."""

from __future__ import annotations

from typing import Any, cast

import pytest
import trio
import trio.testing

from p2pgenius.net import transit
from p2pgenius.net.addresses import Opener
from p2pgenius.net.latency import delayed_pair
from tests.net.relays import HostileRelay

DIRECT, DEAD, RELAY = 7001, 7002, 7003


def paths(nursery: trio.Nursery, relay: HostileRelay, direct_rtt: float, relay_rtt: float) -> Opener:
    """An opener over in-memory paths: to :data:`DIRECT` a handshake of ``direct_rtt``, to
    :data:`RELAY` one of ``relay_rtt`` (the relay's end served by ``relay``), to :data:`DEAD` none
    ever (its packets dropped)."""

    async def opener(family: int, sockaddr: Any) -> trio.abc.Stream:
        port = sockaddr[1]
        if port == DEAD:
            await trio.sleep_forever()
        if port == DIRECT:
            await trio.sleep(direct_rtt)
            return delayed_pair(direct_rtt / 2)[0]
        assert port == RELAY
        await trio.sleep(relay_rtt)
        ours, theirs = delayed_pair(relay_rtt / 2)
        nursery.start_soon(relay._caller, cast("trio.SocketStream", theirs))
        return ours

    return opener


async def race(
    direct: int, direct_rtt: float, relay_rtt: float, host_to_relay_rtt: float
) -> tuple[transit.Route, float]:
    """The route a joiner takes with ``direct`` as its host's address, the host waiting at the relay
    (there before the joiner calls), and the seconds it took to take it."""
    relay = HostileRelay()
    token = transit.relay_token(bytes(32), bytes(16))
    async with trio.open_nursery() as nursery:
        host_paths = paths(nursery, relay, direct_rtt, host_to_relay_rtt)
        keeper = transit.RelayKeeper(("127.0.0.1", RELAY), token, lambda _: None, opener=host_paths)
        arrived: list[trio.abc.Stream] = []

        async def keep(stream: trio.abc.Stream) -> None:
            arrived.append(stream)

        nursery.start_soon(keeper.keep, keep)
        while not any(relay._waiting.values()):
            await trio.sleep(0.001)
        way = transit.Way(
            [("127.0.0.1", direct)],
            [("127.0.0.1", RELAY)],
            token,
            opener=paths(nursery, relay, direct_rtt, relay_rtt),
        )
        began = trio.current_time()
        stream, route = await way.reach()
        took = trio.current_time() - began
        await stream.aclose()
        nursery.cancel_scope.cancel()
    return route, took


@pytest.mark.parametrize("jitter", [0.0, 0.001, 0.003, 0.008])
@pytest.mark.parametrize("relay_rtt", [0.03, 0.04, 0.1])
async def test_a_working_direct_route_wins_though_the_relay_is_nearer_and_pairs_first(
    autojump_clock: trio.testing.MockClock, relay_rtt: float, jitter: float
) -> None:
    del autojump_clock
    # The relay midway: half the host's distance, the relay's path as long as the direct one. It
    # pairs after twice its round trip, when the direct handshake completes (before the margin,
    # the head start ended then: the relay won whenever the direct handshake came a moment late).
    route, took = await race(DIRECT, 2 * relay_rtt + jitter, relay_rtt, relay_rtt)
    assert route.relay is None and route.where == f"127.0.0.1:{DIRECT}", route
    assert took == pytest.approx(2 * relay_rtt + jitter)


@pytest.mark.parametrize("relay_rtt", [0.01, 0.04, 0.1])
async def test_a_dead_direct_route_still_falls_back_to_the_nearer_relay_after_the_head_start(
    autojump_clock: trio.testing.MockClock, relay_rtt: float
) -> None:
    del autojump_clock
    route, took = await race(DEAD, 2 * relay_rtt, relay_rtt, relay_rtt)
    assert route.relay == ("127.0.0.1", RELAY) and not route.direct_failed, route
    expected = max(
        transit.HEAD_START_FLOOR_S, 2 * relay_rtt + max(transit.HEAD_START_MARGIN_S, relay_rtt / 4)
    )
    assert transit.head_start(relay_rtt) == pytest.approx(expected)
    assert route.head_start_s == pytest.approx(expected)
    assert took == pytest.approx(expected)
