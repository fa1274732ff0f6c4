"""Spectators over loopback TCP: one from the start and one that comes late both follow the match
to the verdict verify gives; a stalled one never slows the match; one that speaks is dropped; a
host that does not admit spectators says so; and a spectator never holds a hidden card before the
table does (checked on the bytes it receives)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode, encode
from p2pgenius.errors import PeerGoneError
from p2pgenius.net import connection as connection_module
from p2pgenius.net import spectators as spectators_module
from p2pgenius.net.connection import Connection
from p2pgenius.net.files import Files
from p2pgenius.net.peer import Peer
from p2pgenius.net.spectators import Onlooker, watch
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session, SessionView
from p2pgenius.protocol.transcript import frame, header, verify
from tests.patience import HANG_S


def player(tmp: Path, name: str, seed: int, lines: list[str]) -> Peer:
    return Peer(
        Identity.generate(),
        name,
        Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets"),
        BotDriver("random", seed).decide,
        lambda session, event: None,
        lines.append,
        pin_dir=tmp / "pins" / name,
        decide_early=True,  # (Hornswoggle's opening cards come before the pick: watched too)
    )


class Spectator:
    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.session: SessionView | None = None

    async def run(self, port: int) -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        self.session = await watch(
            stream, Identity.generate(), "wendy", Onlooker(lambda s, e: None, self.messages.append)
        )

    def verdict(self) -> Any:
        assert self.session is not None
        records = b"".join(frame(encode(["msg", raw])) for raw in self.messages)
        return verify(header(list(self.session.keys), None) + records)


async def watching(lines: list[str]) -> None:
    """Until the host has said it admitted a spectator: one waiting in the lobby before a joiner
    comes sees the match from its start, however long the admission took."""
    while not any("is watching" in line for line in lines):
        await trio.sleep(0.01)


async def _host(tmp: Path, game: str, *, allowed: bool = True) -> tuple[Peer, Any, int, list[str]]:
    lines: list[str] = []
    host = player(tmp, "host", 1, lines)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    return host, listeners[0], listeners[0].socket.getsockname()[1], lines


async def test_a_spectator_from_the_start_and_one_that_comes_late_reach_verifys_verdict(
    tmp_path: Path,
) -> None:
    host, listener, port, lines = await _host(tmp_path, "hornswoggle")
    guest = player(tmp_path, "guest", 2, [])
    early, late = Spectator(), Spectator()
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listener, game="hornswoggle", options={}, setup={}, peers=2, spectators=True
                )
            )
            nursery.start_soon(early.run, port)
            await watching(lines)  # in the lobby before the match starts
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            while host.session is None or len(host.session.chain.archive) < 40:
                await trio.sleep(0.01)
            nursery.start_soon(late.run, port)  # mid-match: it is sent the match so far
    truth = verify(host.files.transcript.read_bytes())
    assert truth.ok
    for spectator in (early, late):
        assert spectator.session is not None and spectator.session.finished
        assert spectator.session.outcome == host.session.outcome
        seen = spectator.verdict()
        assert seen.ok and seen.outcome == truth.outcome, seen.summary


async def test_a_spectator_never_holds_a_hidden_card_before_the_table_does(tmp_path: Path) -> None:
    host, listener, port, lines = await _host(tmp_path, "hornswoggle")
    guest = player(tmp_path, "guest", 2, [])
    spectator = Spectator()
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listener, game="hornswoggle", options={}, setup={}, peers=2, spectators=True
                )
            )
            nursery.start_soon(spectator.run, port)
            await watching(lines)
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
    bodies = [decode(raw)[5] for raw in spectator.messages]
    kinds = [body[0] for body in bodies]
    assert "commit" in kinds and "audit" in kinds
    for body in bodies:
        if body[0] == "act":  # a card laid or discarded only ever travels as a commitment
            assert "card" not in body[3] or body[3].get("type") not in ("place", "discard"), body
        if body[0] == "commit":
            assert isinstance(body[3], bytes) and len(body[3]) == 32
    # Every message it got is one the host accepted, in the same order: nothing more.
    assert host.session is not None
    assert spectator.messages == [raw for _, _, raw in host.session.chain.archive]


async def test_a_stalled_spectator_never_holds_up_the_match(tmp_path: Path) -> None:
    # It says hello and never reads a byte: the match is played to its end all the same, and the
    # host is done soon after (it waits a moment for a spectator's queue, never for ever).
    host, listener, port, _ = await _host(tmp_path, "duel")
    guest = player(tmp_path, "guest", 2, [])
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listener, game="duel", options={"fast": True}, setup={}, peers=2, spectators=True
                )
            )
            stalled = await trio.open_tcp_stream("127.0.0.1", port)
            hello = {"name": "slow", "role": "spectator"}
            channel = SecureChannel(initiator=True, identity=Identity.generate(), hello=hello)
            await Connection(stalled, channel).handshake()  # and then it never reads a byte
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
    assert host.session is not None and host.session.finished


class Stuck(trio.abc.Stream):
    """A connection whose other end never reads: every send waits for ever. It says nothing
    either; closing it wakes a read, as closing a socket does."""

    def __init__(self) -> None:
        self.closed = trio.Event()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.sleep_forever()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.sleep_forever()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await self.closed.wait()
        raise trio.ClosedResourceError

    async def aclose(self) -> None:
        self.closed.set()
        await trio.lowlevel.checkpoint()


@pytest.mark.parametrize(
    ("entries", "why"),
    [
        (30, "it read nothing of the last 2 KiB sent to it"),  # its queue is full at once
        (3, "it took nothing we sent for 10 s: it is not reading"),  # a write waits past the bound
    ],
)
async def test_a_spectator_that_falls_too_far_behind_is_dropped(
    entries: int, why: str, monkeypatch: pytest.MonkeyPatch, autojump_clock: Any
) -> None:
    monkeypatch.setattr(connection_module, "QUEUE_BYTES", 2048)
    ids = [Identity.generate(), Identity.generate()]
    session = Session(keys=[i.public for i in ids], me=0, identity=ids[0])
    session.chain.archive = [(0, n, bytes(100)) for n in range(entries)]
    lines: list[str] = []
    channel = SecureChannel(initiator=False, identity=ids[0], hello={})
    connection = Connection(Stuck(), channel)
    async with trio.open_nursery() as nursery:
        watchers = spectators_module.Spectators(nursery, lambda: session, lines.append, allowed=True)
        connection.channel._send = SimpleNamespace(encrypt=lambda ad, data: data)  # type: ignore[assignment]
        watchers.admit(connection, "slow")
        await trio.sleep(connection_module.SEND_S - 1)
        assert (watchers.watchers == []) is (entries == 30)  # (a write may wait that long)
        await trio.sleep(2)
        assert watchers.watchers == []
        nursery.cancel_scope.cancel()
    assert f"spectator slow dropped: {why}" in lines, lines


async def test_a_spectator_that_speaks_is_dropped(tmp_path: Path) -> None:
    host, listener, port, lines = await _host(tmp_path, "duel")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(
                listener, game="duel", options={"fast": True}, setup={}, peers=2, spectators=True
            )
        )
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        channel = SecureChannel(
            initiator=True, identity=Identity.generate(), hello={"name": "loud", "role": "spectator"}
        )
        connection = Connection(stream, channel)
        await connection.handshake()
        await connection.send(encode(["chat", "hello everyone"]))
        with trio.fail_after(HANG_S):
            while not any("loud dropped" in line for line in lines):
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()


async def test_a_host_that_does_not_admit_spectators_says_so(tmp_path: Path) -> None:
    host, listener, port, _ = await _host(tmp_path, "duel")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(listener, game="duel", options={"fast": True}, setup={}, peers=2)
        )
        with trio.fail_after(HANG_S), pytest.raises(PeerGoneError, match="does not admit spectators"):
            await Spectator().run(port)
        nursery.cancel_scope.cancel()


async def test_a_spectator_gets_a_blinded_wizards_withheld_gestures_no_sooner_than_that_wizard(
    tmp_path: Path,
) -> None:
    # The host's wizard (p0) blinds the joiner's (p1) for turns 6 to 8 (stages 5 to 7). The host
    # withholds its gestures of those turns from p1's machine until the blindness ends; the
    # spectator, checked on the messages it receives, gets them no sooner.
    from tests.protocol.test_blindness import P0, P1, Script

    lines: list[str] = []
    host = Peer(
        Identity.generate(),
        "host",
        Files(tmp_path / "host.p2pt", tmp_path / "host.secrets"),
        BotDriver(bots={0: Script(P0)}).decide,
        lambda session, event: None,
        lines.append,
        pin_dir=tmp_path / "pins" / "host",
    )
    guest = Peer(
        Identity.generate(),
        "guest",
        Files(tmp_path / "guest.p2pt", tmp_path / "guest.secrets"),
        BotDriver(bots={1: Script(P1)}).decide,
        lambda session, event: None,
        lines.append,
        pin_dir=tmp_path / "pins" / "guest",
    )
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    spectator = Spectator()

    def stage_of(raw: bytes) -> tuple[str, int]:
        body = decode(raw)[5]
        return body[0], body[1] if len(body) > 1 and type(body[1]) is int else -1

    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listeners[0],
                    game="duel",
                    options={"fast": True},
                    setup={},
                    peers=2,
                    seats=[0],
                    spectators=True,
                )
            )
            nursery.start_soon(spectator.run, port)
            await watching(lines)
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            while not any(stage_of(raw) == ("hash", 9) for raw in spectator.messages):
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    seen = [(stage_of(raw), decode(raw)[2]) for raw in spectator.messages]
    claims = [i for i, ((kind, stage), _) in enumerate(seen) if kind == "blind"]
    assert claims, "the blindness happened"
    withheld = [
        i
        for i, ((kind, stage), author) in enumerate(seen)
        if kind == "reveal" and 5 <= stage <= 7 and author == 0
    ]
    assert len(withheld) == 3
    assert min(withheld) > max(claims)  # p0's blind-turn gestures come after the last claim


@pytest.mark.parametrize(
    "body",
    [[1, 2], {"keys": [b"k" * 32], "names": []}, {"keys": [b"k" * 32, b"l" * 32], "names": 7}, "x"],
)
def test_a_malformed_list_of_players_from_the_host_is_a_clear_error(body: Any) -> None:
    with pytest.raises(PeerGoneError, match="malformed list of players"):
        spectators_module._take(encode(["watching", body]), None, Onlooker(lambda s, e: None))


async def test_a_host_admits_only_so_many_spectators(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spectators_module, "MAX_SPECTATORS", 1)
    host, listener, port, lines = await _host(tmp_path, "duel")
    first = Spectator()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(
                listener, game="duel", options={"fast": True}, setup={}, peers=2, spectators=True
            )
        )
        nursery.start_soon(first.run, port)
        await watching(lines)
        with trio.fail_after(HANG_S), pytest.raises(PeerGoneError, match="spectators already"):
            await Spectator().run(port)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("host_seat", [0, 1], ids=["host sighted", "host blinded"])
async def test_a_blinded_duel_verifies_replays_and_exports_from_every_point_of_view(
    tmp_path: Path, host_seat: int
) -> None:
    # p0 blinds p1 for turns 6 to 8, then stabs it to death. Every transcript kept (the sighted
    # peer's, the blinded peer's, a spectator's) verifies, replays (every board drawn) and exports,
    # with the blind turns marked; the blinded peer's replay shows what it was shown.
    from p2pgenius.cli.export import record
    from p2pgenius.ui.lines import plain
    from p2pgenius.ui.replay import Replay
    from tests.protocol.test_blindness import P0, P1, Script

    p0 = [*P0[:5], "--", "--", "--", ">-", ">-", ">-", ">-"]
    lines: list[str] = []

    def peer(name: str) -> Peer:
        return Peer(
            Identity.generate(),
            name,
            Files(tmp_path / f"{name}.p2pt", tmp_path / f"{name}.secrets"),
            BotDriver(bots={0: Script(p0), 1: Script(P1)}).decide,
            lambda session, event: None,
            lines.append,
            pin_dir=tmp_path / "pins" / name,
        )

    host, guest = peer("host"), peer("guest")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    spectator = Spectator()
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listeners[0],
                    game="duel",
                    options={"fast": True},
                    setup={"hp": [15, 3]},
                    peers=2,
                    seats=[host_seat],
                    spectators=True,
                )
            )
            nursery.start_soon(spectator.run, port)
            await watching(lines)
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
    assert host.session is not None and host.session.outcome is not None
    blinded = "host" if host_seat == 1 else "guest"
    reports = {
        "host": verify(host.files.transcript.read_bytes()),
        "guest": verify(guest.files.transcript.read_bytes()),
        "spectator": spectator.verdict(),
    }
    for who, report in reports.items():
        assert report.ok and report.outcome == {"winner": 0, "reason": "knocked_out"}, (who, report.summary)
        assert [step.stage for step in report.steps if step.dark] == [5, 6, 7], who
        assert (who == blinded) == any(step.seen is not None for step in report.steps), who
        replay = Replay(report)
        for index in range(replay.count + 1):
            replay.jump(index)
            for width, height in ((80, 24), (160, 50)):
                assert "cannot be drawn" not in plain(replay.board_lines(width, height)), (who, index)
        text = record(report)
        assert text.count("{p1 blind}") == 3, who
        assert text.endswith("Result: p0 wins (knocked out)\n"), who


def test_a_spectator_refuses_a_host_that_passes_on_another_hosts_match() -> None:
    # The invite's host proved its key in the handshake; the match it then shows must be its own
    # (p0's peer is the host): a relay of someone else's match, or one made up under other keys,
    # is refused.
    host, other, player = (Identity.generate().public for _ in range(3))
    listing = encode(["watching", {"keys": [other, player], "names": ["ann", "bob"]}])
    with pytest.raises(PeerGoneError, match="the host's match is not its own"):
        spectators_module._take(listing, None, Onlooker(lambda s, e: None), host_key=host)
    own = encode(["watching", {"keys": [host, player], "names": ["ann", "bob"]}])
    session = spectators_module._take(own, None, Onlooker(lambda s, e: None), host_key=host)
    assert session is not None and session.keys[0] == host
