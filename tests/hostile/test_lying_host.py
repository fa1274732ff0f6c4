"""A hostile host over real TCP: it shows one thing in the lobby and signs another in the terms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from p2pgenius.protocol.session import MatchOver, Rejected, setup
from tests.patience import HANG_S

from .villain import Seen, honest


async def test_a_host_that_claims_a_seat_it_did_not_show_in_the_lobby_is_refused(tmp_path: Path) -> None:
    # The lobby says "seats by coin flip"; the terms the host signs give it p0. The joiner holds
    # the host to the lobby it agreed to and refuses the terms: the match never starts.
    seen_host, seen_guest = Seen(), Seen()
    host = honest(tmp_path, "host", seen_host)
    guest = honest(tmp_path, "guest", seen_guest)
    original = host._start_transcript

    async def lying_start(role: str) -> None:
        await original(role)
        session = host.session
        assert session is not None
        propose = session.setup.propose

        def claim_p0(game: str, **kw: Any) -> None:
            # (The joiner's signed ready names the host's claim too: a lying host must also skip
            # its own check that the readies hold.)
            kw["claims"] = [[0], []]
            checked = setup.check_coins
            setup.check_coins = lambda terms, keys: None
            try:
                propose(game, **kw)
            finally:
                setup.check_coins = checked

        session.setup.propose = claim_p0  # type: ignore[method-assign]

    host._start_transcript = lying_start  # type: ignore[method-assign]
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
        )
        nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
        with trio.fail_after(HANG_S):
            while not any(isinstance(e, Rejected) for e in seen_guest.events):
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    await listeners[0].aclose()
    refused = [e.reason for e in seen_guest.events if isinstance(e, Rejected)]
    assert any("claims" in reason and "differ from the lobby" in reason for reason in refused), refused
    assert guest.session is not None and not guest.session.owner  # no seat was ever dealt
    assert not any(isinstance(e, MatchOver) for e in seen_guest.events)


async def test_a_host_that_signs_terms_with_other_names_than_its_lobby_showed_is_refused(
    tmp_path: Path,
) -> None:
    # The lobby (and the host's hello) say "host"; the terms it signs call it "alice", a name the
    # joiner may have pinned to someone else. The joiner refuses the terms: the match never starts,
    # so no log, transcript or export ever shows "alice" with this key.
    seen_host, seen_guest = Seen(), Seen()
    host = honest(tmp_path, "host", seen_host)
    guest = honest(tmp_path, "guest", seen_guest)
    original = host._start_transcript

    async def lying_start(role: str) -> None:
        await original(role)
        assert host.session is not None
        host.session.names[0] = "alice"

    host._start_transcript = lying_start  # type: ignore[method-assign]
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
        )
        nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
        with trio.fail_after(HANG_S):
            while not any(isinstance(e, Rejected) for e in seen_guest.events):
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    await listeners[0].aclose()
    refused = [e.reason for e in seen_guest.events if isinstance(e, Rejected)]
    assert any(
        "the terms' names (['alice', 'guest']) differ from the lobby's (['host', 'guest'])" in r
        for r in refused
    ), refused
    assert guest.session is not None and guest.session.names == ["host", "guest"]
    assert not guest.session.owner
