"""Faults over real loopback TCP: a cut connection is re-made, a killed peer is restarted from its
files, and the match finishes with every transcript verifying."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

from .test_network import Silent


def pair(tmp: Path, game: str) -> tuple[Peer, Peer, Silent, Silent]:
    logs = Silent(), Silent()
    peers = tuple(
        Peer(
            Identity.from_seed(bytes([5, i]) * 16),
            name,
            Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets"),
            BotDriver("random" if game == "duel" else None, i).decide,
            logs[i].event,
            logs[i].line,
            grace_s=20,
            pin_dir=tmp / "pins" / name,
        )
        for i, name in enumerate(("host", "guest"))
    )
    return peers[0], peers[1], logs[0], logs[1]


def restarted(old: Peer, seed: int, pins: Path) -> Peer:
    """A new process for a killed peer: the same identity and files, nothing else."""
    return Peer(
        old.identity,
        old.name,
        old.files,
        BotDriver("random", seed).decide,
        Silent().event,
        Silent().line,
        grace_s=20,
        pin_dir=pins,
    )


async def wait_for_stage(peer: Peer, stage: int) -> None:
    while peer.session is None or peer.session.stage is None or peer.session.stage.number < stage:
        if peer.session is not None and peer.session.finished:
            return
        await trio.sleep(0.001)


async def test_a_connection_cut_mid_match_is_made_again(tmp_path: Path) -> None:
    host, guest, _, guest_log = pair(tmp_path, "hornswoggle")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    guest.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="hornswoggle", options={}, setup={}, peers=2)
            )
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            await wait_for_stage(guest, 5)
            await guest.connections[0].stream.aclose()  # the network fails
    assert any("reconnected" in line for line in guest_log.lines)
    assert host.session is not None and guest.session is not None
    assert host.session.finished and guest.session.finished
    assert host.session.outcome == guest.session.outcome
    for side in (host, guest):
        assert verify(side.files.transcript.read_bytes()).ok


async def test_a_killed_peer_restarts_from_its_files_and_finishes(tmp_path: Path) -> None:
    host, guest, _, _ = pair(tmp_path, "duel")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    host.address = guest.address = f"127.0.0.1:{port}"
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listeners[0], game="duel", options={"fast": True}, setup={"hp": [60, 60]}, peers=2
                )
            )
            kill, dead = trio.Event(), trio.Event()
            nursery.start_soon(run_until_killed, guest, port, kill, dead)
            await wait_for_stage(guest, 3)
            kill.set()  # SIGKILL: nothing is flushed on the way out
            await dead.wait()
            assert guest.session is not None
            assert not guest.session.finished  # 60 HP each: the duel is far from over
            # A new process: the same identity and files, nothing else.
            again = restarted(guest, 7, tmp_path / "pins2")
            meta = again.resume(guest.files.transcript.read_bytes(), guest.files.secrets.read_bytes())
            assert meta["role"] == "join"
            again.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
            nursery.start_soon(again.play)
    assert host.session is not None and again.session is not None
    assert host.session.finished and again.session.finished
    assert host.session.outcome == again.session.outcome
    for side in (host, again):
        report = verify(side.files.transcript.read_bytes())
        assert report.ok, report.summary


async def run_until_killed(peer: Peer, port: int, kill: trio.Event, dead: trio.Event) -> None:
    """Run a joiner until ``kill`` is set, then stop it dead, as a killed process would."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with trio.open_nursery() as process:
        process.start_soon(peer.join, stream)
        await kill.wait()
        process.cancel_scope.cancel()
    await stream.aclose()
    dead.set()


async def test_a_killed_host_restarts_from_its_files_and_the_joiner_comes_back(
    tmp_path: Path,
) -> None:
    host, guest, _, guest_log = pair(tmp_path, "duel")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    host.address = guest.address = f"127.0.0.1:{port}"
    guest.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            kill, dead = trio.Event(), trio.Event()

            async def host_until_killed() -> None:
                async with trio.open_nursery() as process:
                    process.start_soon(
                        lambda: host.host(
                            listeners[0], game="duel", options={"fast": True}, setup={"hp": [60, 60]}, peers=2
                        )
                    )
                    await kill.wait()
                    process.cancel_scope.cancel()
                for connection in host.connections:
                    await connection.aclose()
                await listeners[0].aclose()
                dead.set()

            nursery.start_soon(host_until_killed)
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            await wait_for_stage(host, 3)
            kill.set()
            await dead.wait()
            assert host.session is not None
            assert not host.session.finished
            again = restarted(host, 8, tmp_path / "pins3")
            meta = again.resume(host.files.transcript.read_bytes(), host.files.secrets.read_bytes())
            assert meta["role"] == "host"
            again.listener = (await trio.open_tcp_listeners(port, host="127.0.0.1"))[0]
            nursery.start_soon(again.play)
    assert again.session is not None and guest.session is not None
    assert again.session.finished and guest.session.finished
    assert again.session.outcome == guest.session.outcome
    assert any("reconnected" in line for line in guest_log.lines)
    for side in (again, guest):
        report = verify(side.files.transcript.read_bytes())
        assert report.ok, report.summary
