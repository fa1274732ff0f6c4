"""Fast turns proposed in the lobby: any player proposes, the host takes it up, and every player
agrees again (each signed its ready over the options it saw); the match plays what all agreed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import encode
from p2pgenius.net.connection import Connection
from p2pgenius.net.events import NetEvent, OptionsChanged, OptionsProposed
from p2pgenius.net.lobby import proposal_of
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity

from .test_network import Silent, peer


class Agrees:
    """A joiner's player who says yes to every table it is shown, and notes each."""

    def __init__(self) -> None:
        self.shown: list[Mapping[str, Any]] = []
        self.hold: trio.Event | None = None

    async def __call__(self, lobby: Mapping[str, Any]) -> bool:
        self.shown.append(lobby)
        if self.hold is not None:
            await self.hold.wait()
        await trio.sleep(0)
        return True


def noted(host: Peer) -> list[NetEvent]:
    events: list[NetEvent] = []
    host.notify = events.append
    return events


async def play(host: Peer, guest: Peer, during: Any) -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={}, setup={"hp": [3, 3]}, peers=2)
            )
            nursery.start_soon(during)
            await guest.join(await trio.open_tcp_stream("127.0.0.1", port))


async def test_a_joiners_proposal_taken_up_by_the_host_is_agreed_again_and_played(tmp_path: Path) -> None:
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    host.settle_at_once = guest.settle_at_once = True
    host.considers_proposals = True  # (a person hosts)
    agrees = Agrees()
    guest.confirm = agrees
    events = noted(host)

    async def propose_then_take_it_up() -> None:
        while guest._joining is None:
            await trio.sleep(0.001)
        assert guest.propose({"fast": True})  # it goes with the ready
        while not any(isinstance(e, OptionsProposed) for e in events):
            await trio.sleep(0.001)
        proposal = next(e for e in events if isinstance(e, OptionsProposed))
        assert proposal.name == "guest" and dict(proposal.options) == {"fast": True}
        assert host.propose(dict(proposal.options))  # the host takes it up

    await play(host, guest, propose_then_take_it_up)
    assert any(isinstance(e, OptionsChanged) for e in events)
    assert len(agrees.shown) == 2 and agrees.shown[-1]["options"] == {"fast": True}
    for side in (host, guest):
        assert side.session is not None and side.session.terms is not None
        assert side.session.terms["options"] == {"fast": True} and side.session.finished


async def test_the_host_changes_the_options_and_the_joiner_is_asked_again(tmp_path: Path) -> None:
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    host.settle_at_once = guest.settle_at_once = True
    agrees = Agrees()
    guest.confirm = agrees

    hold = agrees.hold = trio.Event()  # the joiner's player reads the table a while

    async def while_the_joiner_reads() -> None:
        while not agrees.shown:
            await trio.sleep(0.001)
        assert host.propose({"fast": True})
        await trio.sleep(0.05)
        hold.set()

    await play(host, guest, while_the_joiner_reads)
    assert [lobby["options"] for lobby in agrees.shown] == [{}, {"fast": True}]
    assert guest.session is not None and guest.session.terms is not None
    assert guest.session.terms["options"] == {"fast": True}


def test_only_a_sealed_games_fast_turns_may_be_proposed() -> None:
    assert proposal_of(encode(["propose", {"fast": True}]), "duel") == {"fast": True}
    assert proposal_of(encode(["propose", {"fast": True}]), "magic-square") is None  # not sealed
    assert proposal_of(encode(["propose", {"turn_seconds": 5}]), "duel") is None
    assert proposal_of(encode(["propose", {"fast": 1}]), "duel") is None
    assert proposal_of(encode(["propose", {}]), "duel") is None
    assert proposal_of(b"\xff", "duel") is None


async def test_a_stranger_in_the_lobby_cannot_change_the_options_by_proposing(tmp_path: Path) -> None:
    # A proposal is only that: the host is told; nothing changes until it takes it up.
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    events = noted(host)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    identity = Identity.generate()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host.host(listeners[0], game="duel", options={}, setup={}, peers=2))
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        caller = Connection(stream, SecureChannel(initiator=True, identity=identity, hello={"name": "eve"}))
        await caller.handshake()
        await caller.send(encode(["propose", {"fast": True}]))
        await caller.send(encode(["propose", {"turn_seconds": 1}]))  # not something to propose
        with trio.fail_after(10):
            while not any(isinstance(e, OptionsProposed) for e in events):
                await trio.sleep(0.01)
        assert host._lobby is not None and host._lobby.options == {}
        assert sum(isinstance(e, OptionsProposed) for e in events) == 1
        nursery.cancel_scope.cancel()
