"""Spectators of a host that crashed and was resumed from its files: the resumed host takes
watchers as its lobby did (directly and through a relay), a match that admitted none still says
so, and a watcher whose connection drops (a relay restarted) calls again and watches on."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.connection import PeerGoneError
from p2pgenius.net.files import Files
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import read_header, verify
from tests.net.test_faults import wait_for_stage
from tests.net.test_spectators import Spectator
from tests.patience import HANG_S


def player(tmp: Path, name: str, seed: int, lines: list[str]) -> Peer:
    return Peer(
        Identity.from_seed(bytes([9, seed]) * 16),
        name,
        Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets"),
        BotDriver("random", seed).decide,
        lambda session, event: None,
        lines.append,
        grace_s=20,
        pin_dir=tmp / "pins" / name,
    )


def restarted(old: Peer, tmp: Path, lines: list[str]) -> Peer:
    """A new process for a killed host: the same identity and files, nothing else."""
    again = Peer(
        old.identity,
        old.name,
        old.files,
        BotDriver("random", 8).decide,
        lambda session, event: None,
        lines.append,
        grace_s=20,
        pin_dir=tmp / "pins" / "again",
    )
    meta = again.resume(old.files.transcript.read_bytes(), old.files.secrets.read_bytes())
    assert meta["role"] == "host"
    return again


async def host_killed_and_resumed(
    tmp: Path, *, spectators: bool, after: object
) -> tuple[Peer, Peer, list[str]]:
    """A duel whose host (admitting spectators or not) is killed at stage 3 and resumed from its
    files on the same port; ``after(port)`` runs once the resumed host listens. Returns the
    resumed host, the joiner and what the resumed host said."""
    host, guest = player(tmp, "host", 1, []), player(tmp, "guest", 2, [])
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    host.address = guest.address = f"127.0.0.1:{port}"
    guest.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
    lines: list[str] = []
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            kill, dead = trio.Event(), trio.Event()

            async def host_until_killed() -> None:
                async with trio.open_nursery() as process:
                    table = {"options": {"fast": True}, "setup": {"hp": [60, 60]}, "peers": 2}
                    process.start_soon(
                        partial(host.host, listener, game="duel", spectators=spectators, **table)
                    )
                    await kill.wait()
                    process.cancel_scope.cancel()
                for connection in host.connections:
                    await connection.aclose()
                await listener.aclose()
                dead.set()

            nursery.start_soon(host_until_killed)
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
            await wait_for_stage(host, 3)
            kill.set()
            await dead.wait()
            again = restarted(host, tmp, lines)
            again.listener = (await trio.open_tcp_listeners(port, host="127.0.0.1"))[0]
            nursery.start_soon(again.play)
            await after(port)  # type: ignore[operator]
    return again, guest, lines


async def test_a_resumed_host_takes_a_new_watcher_who_watches_to_the_end(tmp_path: Path) -> None:
    watcher = Spectator()
    again, guest, lines = await host_killed_and_resumed(tmp_path, spectators=True, after=watcher.run)
    assert read_header(again.files.transcript.read_bytes()).meta.get("spectators") is True
    assert again.session is not None and guest.session is not None
    assert again.session.finished and again.session.outcome == guest.session.outcome
    assert any("wendy is watching" in line for line in lines), lines
    # It came after the restart, was sent the match from its first message, and checked it all.
    assert watcher.session is not None and watcher.session.finished
    seen, truth = watcher.verdict(), verify(again.files.transcript.read_bytes())
    assert truth.ok and seen.ok and seen.outcome == truth.outcome, seen.summary


async def test_a_resumed_host_of_a_match_without_spectators_says_so(tmp_path: Path) -> None:
    refused: list[str] = []

    async def knock(port: int) -> None:
        with pytest.raises(PeerGoneError) as turned_away:
            await Spectator().run(port)
        refused.append(str(turned_away.value))

    again, _, _ = await host_killed_and_resumed(tmp_path, spectators=False, after=knock)
    assert refused == ["the host refused us: this match does not admit spectators"]
    assert "spectators" not in read_header(again.files.transcript.read_bytes()).meta
