"""Fast turns proposed in the lobby: any player proposes, the host takes it up, and every player
agrees again (each signed its ready over the options it saw); the match plays what all agreed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import pytest
import trio
import trio.testing

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import encode
from p2pgenius.net.connection import Connection
from p2pgenius.net.events import NetEvent, OptionsChanged, OptionsProposed, ProposalsIgnored
from p2pgenius.net.lobby import Lobby, LocalPlayer, Member, Seating, proposal_of
from p2pgenius.net.peer import Peer
from p2pgenius.net.pins import Pins
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.channel_messages import parse
from p2pgenius.protocol.identity import Identity
from tests.patience import HANG_S

from .test_network import OneStream, Silent, peer


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
    with trio.fail_after(HANG_S):
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
        while guest.joining is None:
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
    assert proposal_of(parse(encode(["propose", {"fast": True}])), "duel") == {"fast": True}
    assert proposal_of(parse(encode(["propose", {"fast": True}])), "magic-square") is None  # not sealed
    assert proposal_of(parse(encode(["propose", {"turn_seconds": 5}])), "duel") is None
    assert proposal_of(parse(encode(["propose", {"fast": 1}])), "duel") is None
    assert proposal_of(parse(encode(["propose", {}])), "duel") is None
    assert proposal_of(parse(b"\xff"), "duel") is None


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
        with trio.fail_after(HANG_S):
            while not any(isinstance(e, OptionsProposed) for e in events):
                await trio.sleep(0.01)
        assert host.lobby is not None and host.lobby.options == {}
        assert sum(isinstance(e, OptionsProposed) for e in events) == 1
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("ignored", [{"turn_seconds": 5}, {}, {"fast": "yes"}])
async def test_a_proposal_of_nothing_to_propose_before_the_ready_is_ignored_not_refused(
    tmp_path: Path, ignored: dict[str, Any]
) -> None:
    # SPEC section 4a: a joiner may send `propose` before its `ready`, and a proposal of anything
    # else is ignored: the caller stays at the table, and what it proposes next is still heard.
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    events = noted(host)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host.host(listeners[0], game="duel", options={}, setup={}, peers=2))
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        identity = Identity.generate()
        caller = Connection(stream, SecureChannel(initiator=True, identity=identity, hello={"name": "eve"}))
        await caller.handshake()
        await caller.send(encode(["propose", ignored]))
        await caller.send(encode(["propose", {"fast": True}]))
        with trio.fail_after(HANG_S):
            while not any(isinstance(e, OptionsProposed) for e in events):
                await trio.sleep(0.01)
        assert host.lobby is not None and [m.name for m in host.lobby.members] == ["eve"]
        assert host.lobby.options == {}
        nursery.cancel_scope.cancel()


async def _bursts(guest: Peer, host: Peer, *, every_s: float, size: int) -> int:
    """Once the joiner's ready (with its proposal) has left, fast turns proposed again, ``size``
    at a time every ``every_s``, until the match starts (the attack: 576 proposals in 20 s kept
    a person's table from starting); returns how many it sent."""
    while guest.joining is None or not guest.joining.sent:
        await trio.sleep(0.001)
    connection, sent = guest.links.connections[0], 0
    while host.session is None:
        for _ in range(size):
            connection.channel.send(encode(["propose", {"fast": True}]))
        await connection.send(encode(["propose", {"fast": True}]))  # (the whole burst in one write)
        sent += size + 1
        await trio.sleep(every_s)
    return sent


@pytest.mark.parametrize("answer", ["keep", "take it up"])
async def test_a_ready_joiner_re_proposing_in_bursts_asks_the_person_once_and_the_table_starts(
    tmp_path: Path, autojump_clock: Any, answer: str
) -> None:
    del autojump_clock
    host = peer(tmp_path, "host", BotDriver("random", 1, thread=False), Silent())
    guest = peer(tmp_path, "guest", BotDriver("random", 2, thread=False), Silent())
    host.settle_at_once = guest.settle_at_once = True
    host.considers_proposals = True  # (a person hosts: the start waits for its answer)
    agrees = Agrees()

    async def joins_proposing_fast(lobby: Mapping[str, Any]) -> bool:
        if not agrees.shown:  # (it types `fast`: it joins, and proposes fast turns with its ready)
            assert guest.propose({"fast": True})
        return await agrees(lobby)

    guest.confirm = joins_proposing_fast  # (asked again once the options change)
    events = noted(host)
    answered_at: list[float] = []
    sent: list[int] = []

    async def the_person() -> None:  # reads the proposal, thinks a second, answers
        while not any(isinstance(e, OptionsProposed) for e in events):
            await trio.sleep(0.01)
        await trio.sleep(1)
        answered_at.append(trio.current_time())
        assert host.decline_proposal() if answer == "keep" else host.propose({"fast": True})

    async def the_joiner() -> None:
        sent.append(await _bursts(guest, host, every_s=0.1, size=30))

    host_end, guest_end = trio.testing.memory_stream_pair()
    with trio.fail_after(600):  # (fake seconds)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(guest.join, guest_end)
            nursery.start_soon(the_person)
            nursery.start_soon(the_joiner)
            await host.host(OneStream(host_end), game="duel", options={}, setup={}, peers=2)
    asked = [e for e in events if isinstance(e, OptionsProposed)]
    assert len(asked) == 1, f"the person was asked {len(asked)} times"
    assert sent and sent[0] > 31  # (the bursts came on after the first)
    told = [e for e in events if isinstance(e, ProposalsIgnored)]
    assert [e.text for e in told] == ["guest keeps proposing fast turns: ignored from now on"]
    assert answered_at and host.session is not None and host.session.terms is not None
    assert host.session.terms["options"] == ({} if answer == "keep" else {"fast": True})
    assert host.session.finished and guest.session is not None and guest.session.finished


def _lobby(tmp_path: Path, told: list[NetEvent], *names: str) -> tuple[Lobby, list[Member]]:
    """A person's lobby as the command line opens it (``fast`` off), with players ``names`` at
    the table, each ready (no connections: only the proposals are tried)."""

    def tell(event: NetEvent, *, quiet: bool = False) -> None:
        told.append(event)

    lobby = Lobby(
        LocalPlayer(Identity.generate(), "host", Pins(tmp_path), tell),
        {"game": "duel", "options": {"fast": False}, "setup": {}, "peers": len(names) + 1, "seats": []},
        Seating(considers=True),
    )
    members = [Member(cast(Connection, None), Identity.generate().public, name, claim=[]) for name in names]
    lobby.members += members
    return lobby, members


def test_each_option_value_is_put_to_the_person_once_and_never_again_once_declined(tmp_path: Path) -> None:
    told: list[NetEvent] = []
    lobby, (bob, eve, carol) = _lobby(tmp_path, told, "bob", "eve", "carol")
    fast = {"fast": True}
    lobby._consider(bob, fast)  # put to the person; the start waits for its answer
    lobby._consider(eve, fast)  # the person has it to answer already: not put again
    lobby._consider(bob, fast)  # bob keeps proposing: said once...
    lobby._consider(bob, fast)  # ...then nothing
    assert told == [OptionsProposed("bob", fast), ProposalsIgnored("bob", fast)]
    assert lobby.pending == fast and not lobby._complete()
    lobby._answered(None)  # the person keeps the options: the table may start
    assert lobby._complete()
    lobby._consider(carol, fast)  # declined: nobody puts it to the person again
    lobby._consider(carol, {"fast": False})  # what the table has already
    assert len(told) == 2 and lobby.pending is None and lobby.options == {"fast": False}


def test_a_proposal_nobody_at_the_table_stands_behind_no_longer_holds_the_start(tmp_path: Path) -> None:
    # Propose, leave, come back as another key, propose again: the start never came.
    told: list[NetEvent] = []
    lobby, (eve, bob) = _lobby(tmp_path, told, "eve", "bob")
    lobby._consider(eve, {"fast": True})
    assert lobby.pending == {"fast": True} and not lobby._complete()
    lobby._remove(eve)
    assert lobby.pending is None and lobby.members == [bob]
