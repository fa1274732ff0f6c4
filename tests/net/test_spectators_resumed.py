"""Spectators of a host that crashed and was resumed from its files: the resumed host takes
watchers as its lobby did (directly and through a relay), a match that admitted none still says
so, and a watcher whose connection drops (a relay restarted) calls again and watches on."""

from __future__ import annotations

import itertools
from functools import partial
from pathlib import Path

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.errors import PeerGoneError
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
                    table = partial(
                        host.host, listener, game="duel", options={"fast": True}, setup={"hp": [60, 60]}
                    )
                    process.start_soon(partial(table, peers=2, spectators=spectators))
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


async def test_a_spectator_calling_again_gives_up_in_time_saying_why(autojump_clock: object) -> None:
    # Nobody answers: it calls each second until ``often_until``, then every RETRY_S, tells each
    # failed call to its status (in place: no line of the log), and stops at ``until`` with how
    # long it waited.
    from p2pgenius.net.addresses import ConnectError
    from p2pgenius.net.reconnect import RETRY_S, call_again

    del autojump_clock
    calls: list[float] = []
    said: list[str] = []

    async def nobody() -> None:
        calls.append(trio.current_time())
        raise ConnectError("nothing is listening at 127.0.0.1:9 (connection refused): is the host running?")

    start = trio.current_time()
    with pytest.raises(PeerGoneError) as stopped:
        await call_again(nobody, said.append, often_until=start + 10, until=start + 100)
    refused = "nothing is listening at 127.0.0.1:9 (connection refused)"
    assert str(stopped.value) == f"the host could not be reached again for 100 s ({refused})"
    assert trio.current_time() - start == pytest.approx(100)
    gaps = [round(b - a) for a, b in itertools.pairwise(calls)]
    assert gaps[:10] == [1] * 10 and set(gaps[11:-1]) == {RETRY_S}, gaps
    assert said[0] == "nothing is listening at 127.0.0.1:9 (connection refused); trying again every 1 s"
    assert said[-1].endswith("trying again every 15 s") and len(said) == len(calls) - 1, said


def test_a_watcher_called_again_takes_only_what_is_new_and_only_the_match_it_watched() -> None:
    # A host called again sends `watching` and the match from its first message: the messages the
    # watcher holds are not taken twice, one before the new `watching` is ignored (SPEC 4b), and
    # a `watching` that lists other players ends the watching.
    from p2pgenius.canonical import encode
    from p2pgenius.net.spectators import Onlooker, RefusedError, Watched
    from p2pgenius.protocol.transcript import records

    rows = list(records((Path(__file__).parents[2] / "protocol/vectors/transcript-duel.p2pt").read_bytes()))
    keys, messages = rows[0][2]["peers"], [row[1] for row in rows[1:] if row[0] == "msg"]
    kept: list[bytes] = []
    watched = Watched(Onlooker(lambda session, event: None, kept.append))
    listing = encode(["watching", {"keys": keys}])
    assert watched.take(listing, keys[0], listed=False)
    for raw in messages[:5]:
        watched.take(encode(["m", raw]), keys[0], listed=True)
    assert kept == messages[:5]
    # Called again: a message before the list is ignored; the list is the same; all is sent anew.
    assert not watched.take(encode(["m", messages[5]]), keys[0], listed=False)
    assert watched.take(listing, keys[0], listed=False)
    for raw in messages[:8]:
        watched.take(encode(["m", raw]), keys[0], listed=True)
    assert kept == messages[:8]
    other = encode(["watching", {"keys": [keys[0], bytes(32)]}])
    with pytest.raises(RefusedError, match="another match than the one watched"):
        watched.take(other, keys[0], listed=False)
    assert watched.take(other, keys[0], listed=True)  # (a second list on one connection: ignored)
