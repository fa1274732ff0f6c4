"""Many matches at once in one process leak nothing: file descriptors and trio tasks come back to
where they were (bench/load.py runs 200 at once, with a second process joining)."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from tests.patience import HANG_S


def peer(tmp: Path, name: str, seed: int) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    return Peer(
        Identity.generate(),
        name,
        files,
        BotDriver("random", seed).decide,
        lambda s, e: None,
        lambda t: None,
        grace_s=60,
        pin_dir=tmp / "pins" / name,
    )


def tasks() -> int:
    def count(task: trio.lowlevel.Task) -> int:
        return 1 + sum(count(child) for nursery in task.child_nurseries for child in nursery.child_tasks)

    root = trio.lowlevel.current_root_task()
    return 0 if root is None else count(root)


async def test_forty_matches_at_once_and_nothing_leaks(tmp_path: Path) -> None:
    fds_before, tasks_before = len(os.listdir("/proc/self/fd")), tasks()
    hosts = [peer(tmp_path, f"host{i}", i) for i in range(40)]
    guests = [peer(tmp_path, f"guest{i}", 100 + i) for i in range(40)]
    listeners = [(await trio.open_tcp_listeners(0, host="127.0.0.1"))[0] for _ in hosts]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            for host, guest, listener in zip(hosts, guests, listeners, strict=True):
                port = listener.socket.getsockname()[1]
                nursery.start_soon(
                    partial(host.host, listener, game="duel", options={"fast": True}, setup={}, peers=2)
                )
                nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
    for listener in listeners:
        await listener.aclose()
    assert all(h.session is not None and h.session.finished for h in hosts)
    for guest, host in zip(guests, hosts, strict=True):
        assert guest.session is not None and host.session is not None
        assert guest.session.outcome == host.session.outcome
    with trio.move_on_after(HANG_S):  # (what closes after the matches may take a moment: a busy
        while len(os.listdir("/proc/self/fd")) > fds_before or tasks() != tasks_before:  # machine's, longer)
            await trio.sleep(0.01)
    assert len(os.listdir("/proc/self/fd")) <= fds_before
    assert tasks() == tasks_before
