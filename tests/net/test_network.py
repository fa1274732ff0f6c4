"""Whole matches between peers over real loopback TCP (port 0), with bots at every seat."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.demo import demo_match
from p2pgenius.cli.play import Printer
from p2pgenius.net.peer import Connection, Files, Peer, PeerGoneError
from p2pgenius.protocol import channel
from p2pgenius.protocol.channel import PROTOCOL_VERSION, SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Event, SessionView
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S


class Silent:
    """Collects what a peer would print."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.events: list[Event] = []

    def line(self, text: str) -> None:
        self.lines.append(text)

    def event(self, session: SessionView, event: Event) -> None:
        del session
        self.events.append(event)


def peer(tmp: Path, name: str, bots: BotDriver, log: Silent, *, grace: float = 60.0) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets", tmp / f"{name}.log")
    return Peer(
        Identity.generate(),
        name,
        files,
        bots.decide,
        log.event,
        log.line,
        grace_s=grace,
        pin_dir=tmp / "pins" / name,
    )


@pytest.mark.parametrize("game", ["duel", "magic-square", "hornswoggle"])
async def test_a_whole_match_over_tcp_and_both_transcripts_verify(game: str, tmp_path: Path) -> None:
    import io

    printer = Printer(io.StringIO(), moves=True)
    host, guest = await demo_match(game, tmp_path, printer, seed=3)
    for side in (host, guest):
        assert side.session is not None
        assert side.session.finished
        report = verify(side.files.transcript.read_bytes())
        assert report.ok, report.summary
    assert host.session is not None and guest.session is not None
    assert host.session.outcome == guest.session.outcome
    assert "verified" not in printer.out.getvalue()  # type: ignore[attr-defined]
    assert "result" not in printer.out.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("peers", [2, 4])
async def test_hornswoggle_over_two_and_four_peers(peers: int, tmp_path: Path) -> None:
    logs = [Silent() for _ in range(peers)]
    sides = [peer(tmp_path, f"p{i}", BotDriver("pirate", i), logs[i]) for i in range(peers)]
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: sides[0].host(listeners[0], game="hornswoggle", options={}, setup={}, peers=peers)
        )
        for side in sides[1:]:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            nursery.start_soon(side.join, stream)
    outcomes = [side.session.outcome for side in sides if side.session is not None]
    assert len(outcomes) == peers
    assert outcomes[0] is not None
    assert all(o == outcomes[0] for o in outcomes)
    for side in sides:
        assert verify(side.files.transcript.read_bytes()).ok


class OneStream(trio.abc.Listener[trio.abc.Stream]):
    """A listener that hands out one in-memory stream (so the autojump clock is safe to use)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream: trio.abc.Stream | None = stream

    async def accept(self) -> trio.abc.Stream:
        if self.stream is None:
            await trio.sleep_forever()
        stream, self.stream = self.stream, None
        assert stream is not None
        return stream

    async def aclose(self) -> None:
        self.stream = None


async def test_a_peer_whose_key_changed_is_refused(tmp_path: Path) -> None:
    pins = tmp_path / "pins" / "host"
    log = Silent()
    host = peer(tmp_path, "host", BotDriver("random", 1), log)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    # The host has met a "guest" before, with another key.
    from p2pgenius.net.keystore import trust

    trust("guest", Identity.generate().public, pins)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host.host(listeners[0], game="duel", options={}, setup={}, peers=2))
        impostor = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        with pytest.raises(Exception):  # noqa: B017, PT011 - the host hangs up on it
            await impostor.join(stream)
        with trio.fail_after(HANG_S):  # the host says why it hung up
            while not any("has changed" in line for line in log.lines):
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert any("has changed" in line for line in log.lines)
    assert not host.files.transcript.exists()


async def test_a_joiner_is_told_the_host_may_speak_another_version(monkeypatch: pytest.MonkeyPatch) -> None:
    # A host of another channel version reads the joiner's hello, refuses it and hangs up: it has
    # no way to say why in words the joiner can read, so the joiner must say it.
    joiner_end, host_end = trio.testing.memory_stream_pair()
    joiner = Connection(
        joiner_end, SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "ann"})
    )
    monkeypatch.setattr(channel, "PROTOCOL_VERSION", PROTOCOL_VERSION - 1)  # this process: the old host

    async def old_host() -> None:
        hosting = SecureChannel(initiator=False, identity=Identity.generate(), hello={"name": "old"})
        with pytest.raises(PeerGoneError, match=f"speaks channel version {PROTOCOL_VERSION} "):
            await Connection(host_end, hosting).handshake()
        await host_end.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(old_host)
        with pytest.raises(
            PeerGoneError, match=f"another version of p2pgenius .*speaks channel version {PROTOCOL_VERSION}"
        ):
            await joiner.handshake()


async def test_pinning_the_players_keys_holds_up_neither_the_terms_nor_the_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pinning writes and syncs a file (milliseconds a key): it runs in a worker thread beside the
    # match. Here it blocks until the seats are dealt on both sides, and the match gets there.
    import threading

    from p2pgenius.net.pins import Pins

    release = threading.Event()
    pinned: list[list[str]] = []

    def slow_admit(self: Pins, keys: list[bytes], names: list[str], *, own: bytes) -> None:
        release.wait(20)
        pinned.append(list(names))

    monkeypatch.setattr(Pins, "admit", slow_admit)
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="duel", options={"fast": True}, setup={}, peers=2)
            )
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            while not all(s.session is not None and s.session.owner for s in (host, guest)):
                await trio.sleep(0.01)
            assert pinned == []  # (the seats were dealt while the pins were still being written)
            release.set()
    assert sorted(map(tuple, pinned)) == [("host",), ("host", "guest")]
    assert host.session is not None and host.session.finished
