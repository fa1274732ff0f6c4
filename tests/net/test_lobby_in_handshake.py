"""The lobby inside the handshake (SPEC section 4a): the table in the host's hello, a signed ready
with a coin commitment right behind the joiner's last handshake message, the key of an invite
checked before the joiner shows who it is, and bots that think off the event loop."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, cast

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode, encode
from p2pgenius.net.connection import Connection, why
from p2pgenius.net.events import Refused
from p2pgenius.net.keystore import trust
from p2pgenius.net.peer import PeerGoneError
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity, IdentityError
from p2pgenius.protocol.session import Session
from tests.patience import HANG_S

from .test_network import Silent, peer


async def _hosting(tmp_path: Path, host_log: Silent) -> tuple[Any, int, Any]:
    host = peer(tmp_path, "host", BotDriver("random", 1), host_log)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    return host, listeners[0].socket.getsockname()[1], listeners[0]


async def _serve(host: Any, listener: Any) -> None:
    await host.host(listener, game="duel", options={"fast": True}, setup={}, peers=2)


class Holding(trio.abc.Listener[trio.abc.Stream]):
    """A listener that keeps a reference to every stream it hands out, as a relay keeper keeps
    its last pairing (a dropped stream is then not closed by the garbage collector)."""

    def __init__(self, listener: trio.abc.Listener[trio.abc.Stream]) -> None:
        self.listener = listener
        self.held: list[trio.abc.Stream] = []

    async def accept(self) -> trio.abc.Stream:
        stream = await self.listener.accept()
        self.held.append(stream)
        return stream

    async def aclose(self) -> None:
        await self.listener.aclose()


async def _everything(connection: Connection) -> list[Any]:
    """Every message until the other side closes."""
    said: list[Any] = []
    try:
        while True:
            said += [decode(p) for p in await connection.receive()]
    except PeerGoneError:
        return said


async def test_a_joiner_holding_an_invite_refuses_another_key_before_it_shows_who_it_is(
    tmp_path: Path,
) -> None:
    host_log = Silent()
    host, port, listener = await _hosting(tmp_path, host_log)
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    guest.expect_key = Identity.generate().public  # the invite names someone else
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_serve, host, listener)
        with trio.fail_after(HANG_S), pytest.raises(IdentityError, match="not the one the invite names"):
            await guest.join(await trio.open_tcp_stream("127.0.0.1", port))
        await trio.sleep(0.2)
        nursery.cancel_scope.cancel()
    # The host never learnt the joiner's key: the third handshake message never left.
    assert not any("guest" in line for line in host_log.lines), host_log.lines
    assert not any(guest.identity.fingerprint[:9] in line for line in host_log.lines)


async def test_a_joiner_with_the_invites_key_plays(tmp_path: Path) -> None:
    host, port, listener = await _hosting(tmp_path, Silent())
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    guest.expect_key = host.identity.public
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listener, game="duel", options={"fast": True}, setup={}, peers=2)
            )
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
    assert guest.session is not None and guest.session.finished
    assert guest.session.outcome == host.session.outcome


async def test_the_table_comes_in_the_hello_and_a_forged_ready_is_refused_with_a_reason(
    tmp_path: Path,
) -> None:
    host_log = Silent()
    host, port, listener = await _hosting(tmp_path, host_log)
    caller = Identity.generate()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_serve, host, listener)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        channel = SecureChannel(initiator=True, identity=caller, hello={"name": "forger"})
        connection = Connection(stream, channel)
        with trio.fail_after(HANG_S):
            established = await connection.handshake()
            table = established.peer_hello["lobby"]
            assert table["game"] == "duel" and table["options"] == {"fast": True}
            assert len(table["salt"]) == 32 and table["needed"] == 1
            # A ready whose signature is not the caller's (here: signed by someone else).
            other = Identity.generate()
            ready = {"seats": [], "coin": bytes(32), "signature": other.sign(b"anything")}
            await connection.send(encode(["ready", ready]))
            said = await _everything(connection)
        assert ["refused", "a ready message whose signature does not verify"] in said, said
        nursery.cancel_scope.cancel()
    assert any("refused forger" in line and "signature" in line for line in host_log.lines), host_log.lines


async def test_a_bot_thinks_off_the_event_loop() -> None:
    # A bot that cannot finish until another task on the loop runs: on the loop it would hang
    # (and give up after 5 s); in a worker thread the other task lets it finish at once.
    go = threading.Event()

    class Waiting:
        def choose(self, state: Any, seat: int) -> Any:
            return {"type": "gestures", "left": "D", "right": "-"} if go.wait(5) else None

    session = Session(keys=[Identity.generate().public] * 2, me=None)
    session.setup.terms = {"game": "duel"}
    session.awaiting = lambda: (0,)  # type: ignore[method-assign]
    driver = BotDriver(bots={0: Waiting()})  # type: ignore[dict-item]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_release, go)
        decision = await driver.decide(session.view, 0)
    assert decision == {"type": "gestures", "left": "D", "right": "-"}


async def _release(go: threading.Event) -> None:
    await trio.sleep(0)
    go.set()


async def test_a_joiner_refuses_a_table_where_a_known_name_has_another_key(tmp_path: Path) -> None:
    # B knows "alice" by her key; someone else takes the name "alice" at this table first.
    host_log = Silent()
    host, port, listener = await _hosting(tmp_path, host_log)
    impostor = peer(tmp_path, "alice", BotDriver("pirate", 3), Silent())
    bob = peer(tmp_path, "bob", BotDriver("pirate", 4), Silent())
    trust("alice", Identity.generate().public, bob.pin_dir)  # the real alice, met before
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host.host(listener, game="hornswoggle", options={}, setup={}, peers=3))
        nursery.start_soon(impostor.join, await trio.open_tcp_stream("127.0.0.1", port))
        with trio.fail_after(HANG_S):  # the impostor sits first
            while not any(line.startswith("alice joined") for line in host_log.lines):
                await trio.sleep(0.01)
        with trio.fail_after(HANG_S), pytest.raises(PeerGoneError, match="key of peer 'alice' has changed"):
            await bob.join(await trio.open_tcp_stream("127.0.0.1", port))
        nursery.cancel_scope.cancel()


def test_a_refusal_always_says_why() -> None:
    # A timeout's own text is empty: "refused a connection: " told the host's player nothing.
    assert Refused(why(trio.TooSlowError())).text == "refused a connection: it took too long"
    assert why(PeerGoneError("the peer closed the connection")) == "the peer closed the connection"


async def test_a_caller_still_in_its_handshake_when_the_table_fills_is_cut_not_left_hanging(
    tmp_path: Path,
) -> None:
    # A watcher (or any caller) whose handshake is under way when the last player says ready:
    # the lobby's door closes behind the table, and that caller is cut (it calls again; a watcher
    # then comes in through the match's door). Left open, nobody read or wrote it again: a watcher
    # through a relay waited there for ever (seen on a loaded machine).
    host, port, listener = await _hosting(tmp_path, Silent())
    going_on = trio.Event()
    decide = host.decide

    async def held(view: Any, seat: int) -> Any:
        await going_on.wait()  # (the match stays on while the cut is looked for)
        return await decide(view, seat)

    host.decide = held
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    listener = Holding(listener)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_serve, host, listener)
            half = await trio.open_tcp_stream("127.0.0.1", port)  # (its first message never comes)
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            while host.session is None:
                await trio.sleep(0.01)
            with trio.move_on_after(10) as waited:
                assert await half.receive_some() == b""  # (closed by the host)
            going_on.set()
            assert not waited.cancelled_caught, "a caller mid-handshake was left open"
            await half.aclose()


class Answered:
    """A caller's connection as the lobby sees it: what it was told, and whether it was closed."""

    def __init__(self) -> None:
        self.told: list[Any] = []
        self.closing = False

    def post(self, payload: bytes) -> None:
        self.told.append(decode(payload))

    def close_soon(self) -> None:
        self.closing = True


async def test_callers_that_came_as_the_table_started_are_turned_away_not_left_open(tmp_path: Path) -> None:
    # A caller whose handshake ended while the lobby was closing still put itself in the lobby's
    # inbox: nobody would take it from there, so the lobby turns it away as at a full table.
    from p2pgenius.net.inbox import Inbox
    from p2pgenius.net.lobby import Caller, LobbyItem, LobbyKind

    from .test_lobby_options import _lobby

    told: list[Any] = []
    lobby, (bob,) = _lobby(tmp_path, told, "bob")
    late, seated = Answered(), Answered()
    bob.connection = cast(Connection, seated)
    async with trio.open_nursery() as nursery:
        said = Inbox[LobbyItem](nursery)
        caller = Caller(Identity.generate().public, "eve", False, "127.0.0.1", None)
        await said.send(LobbyItem(LobbyKind.JOINED, cast(Connection, late), caller))
        await said.send(LobbyItem(LobbyKind.SAID, cast(Connection, seated), None))  # (a member's)
        lobby._turn_away_the_rest(said)
        nursery.cancel_scope.cancel()
    assert late.closing and late.told == [["refused", "the table is full"]], late.told
    assert not seated.closing and not seated.told
    assert [(e.reason, e.name) for e in told if isinstance(e, Refused)] == [("the table is full", "eve")]
