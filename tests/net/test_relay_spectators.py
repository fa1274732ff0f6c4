"""Spectators through the real transit relay: a host killed mid-match and resumed from its files
(the command's own code path) takes a new watcher that comes through its relay, and a watcher whose
relay restarts mid-match calls again (each call a status, not a line), says what happened, and
watches to the end."""

from __future__ import annotations

import argparse
import io
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
import trio

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import join_match, target_of
from p2pgenius.cli.main import build_parser
from p2pgenius.cli.play import Printer, held, make_peer, match_options
from p2pgenius.cli.resume import prepared
from p2pgenius.cli.watch import transcript_bytes, watched
from p2pgenius.errors import P2PGeniusError
from p2pgenius.net.files import Files
from p2pgenius.net.invite import Invite
from p2pgenius.net.match_loop import Decide
from p2pgenius.net.peer import Peer
from p2pgenius.net.spectators import Onlooker, Watched
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.transcript import Report, verify
from tests.net.relays import RelayProcess, twist_missing
from tests.net.test_faults import wait_for_stage
from tests.net.test_relay import unreachable
from tests.patience import HANG_S

pytestmark = pytest.mark.skipif(twist_missing() is not None, reason=str(twist_missing()))


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's config directory is its own, and no host asks the terminal's clipboard."""
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("p2pgenius.cli.host.to_clipboard", lambda text: False)


def paused_from(decide: Decide, stage: int, go: trio.Event) -> Decide:
    """``decide``, held from ``stage`` on until ``go`` is set (the match waits there)."""

    async def held_back(view: SessionView, seat: int) -> object:
        if view.stage is not None and view.stage.number >= stage:
            await go.wait()
        return await decide(view, seat)

    return held_back  # type: ignore[return-value]


class Watcher:
    """``p2pgenius watch`` as the command runs it (its ``watched``), printing into ``out``."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.received: list[bytes] = []
        self.watching = Watched(Onlooker(lambda session, event: None, self.received.append))
        self.session: SessionView | None = None
        self.away: list[str] = []  # the status while away, as it was updated

    async def run(self, invite: Invite) -> None:
        target = target_of(str(unreachable(invite)))  # (its relay is the only way in)
        follow = partial(
            self.watching.follow, identity=Identity.generate(), name="wendy", expect_key=invite.key
        )
        try:
            printer = Printer(self.out, moves=False)
            self.session = await watched(target, follow, self.watching, printer, self.away.append)
        except P2PGeniusError as exc:  # (what it said before, for whoever reads the failure)
            raise AssertionError(f"{exc}; the watcher said:\n{self.said()}") from exc

    def said(self) -> str:
        return self.out.getvalue()

    def verdict(self) -> Report:
        assert self.session is not None
        return verify(transcript_bytes(list(self.session.keys), self.received, {"role": "watch"}))


async def until(check: Callable[[], bool]) -> None:
    while not check():
        await trio.sleep(0.01)


def host_and_guest(relay: tuple[str, int]) -> tuple[argparse.Namespace, Peer, argparse.Namespace, Peer]:
    """A host of bots that admits spectators and waits at ``relay`` too, and a joiner of bots."""
    at = f"{relay[0]}:{relay[1]}"
    hargs = build_parser().parse_args(
        ["host", "duel", "--bot", "wizard", "--port", "0", "--spectators", "--relay", at]
    )
    jargs = build_parser().parse_args(["join", "unused:1", "--bot", "wizard"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
    for side in (host, guest):
        side.files.lock()  # (as the commands do first: the folder made, the files held)
    return hargs, host, jargs, guest


async def test_a_resumed_host_takes_a_new_watcher_through_its_relay(tmp_path: Path) -> None:
    relay = RelayProcess(tmp_path / "relay")
    await trio.to_thread.run_sync(relay.start)
    hargs, host, jargs, guest = host_and_guest(relay.where)
    host.decide = paused_from(host.decide, 3, trio.Event())  # (it never goes on: it is killed)
    watcher = Watcher()
    try:
        with trio.fail_after(HANG_S):
            async with trio.open_nursery() as nursery:
                async with trio.open_nursery() as hosting:
                    invite = await hosting.start(host_match, hargs, host, match_options(hargs))
                    nursery.start_soon(join_match, jargs, guest, target_of(str(invite)))
                    await wait_for_stage(host, 3)
                    hosting.cancel_scope.cancel()  # (as a process killed: it says nothing more)
                # Killed before it could finish its task: its files are closed and let go
                # (SIGKILL does that too), and the joiner calls again and again meanwhile.
                host.files.close()
                host.files.release()
                await trio.sleep(0)
                path = host.files.transcript
                rargs = build_parser().parse_args(["resume", str(path), "--bot", "wizard"])
                files = Files(path, path.with_suffix(".secrets"))
                out = io.StringIO()
                with held(files):
                    again, main = prepared(rargs, Printer(out, moves=True), path, files)
                    nursery.start_soon(main)
                    # (the joiner back first: a watcher calling at the relay meanwhile could be
                    # paired with the joiner, calling there too, and would have to call again)
                    await until(lambda: " is back" in out.getvalue())
                    await watcher.run(invite)
                    await until(lambda: guest.session is not None and guest.session.finished)
    finally:
        relay.stop()
    said = watcher.said()
    assert f"connected through relay {relay.where[0]}:{relay.where[1]}" in said, said
    assert again.session is not None and again.session.finished
    truth, seen = verify(again.files.transcript.read_bytes()), watcher.verdict()
    assert truth.ok and seen.ok and seen.outcome == truth.outcome, seen.summary


LOST, BACK = "the connection to relay", "watching again, from where it was cut"


async def test_a_watcher_rides_out_a_relay_restart(tmp_path: Path) -> None:
    relay = RelayProcess(tmp_path / "relay")
    await trio.to_thread.run_sync(relay.start)
    hargs, host, jargs, guest = host_and_guest(relay.where)
    go = trio.Event()
    host.decide = paused_from(host.decide, 3, go)
    watcher = Watcher()
    try:
        with trio.fail_after(HANG_S):
            async with trio.open_nursery() as nursery:
                invite = await nursery.start(host_match, hargs, host, match_options(hargs))
                nursery.start_soon(join_match, jargs, guest, target_of(str(invite)))
                # (it comes while the lobby fills: one whose handshake the table's start cuts
                # calls again, and is let in at the match's door)
                nursery.start_soon(watcher.run, invite)
                await wait_for_stage(host, 3)
                await until(lambda: watcher.watching.session is not None)  # (watching, not in the lobby)
                # (Counted: a watcher whose call the table's start cut has said both once already.)
                lost, back = (watcher.said().count(words) for words in (LOST, BACK))
                await trio.to_thread.run_sync(relay.stop)
                await until(lambda: watcher.said().count(LOST) > lost)
                await trio.to_thread.run_sync(relay.start)  # (the same port)
                await until(lambda: watcher.said().count(BACK) > back)
                go.set()
    finally:
        relay.stop()
    said = watcher.said()
    label = f"relay {relay.where[0]}:{relay.where[1]}"
    # What really happened, as far as a spectator can tell: the relay's connection closed.
    cut = (
        f"the connection to {label} closed (the relay restarted, or the host went away: a relay does "
        "not say which); reconnecting"
    )
    assert cut in said, said
    assert "the host closed" not in said
    # One line as the absence began, one as it ended; the calls between only in the status.
    after = said.split(cut, 1)[1].strip().splitlines()
    assert len(after) == 1, said
    assert after[0].startswith(f"connected through {label} (direct connection not possible): {BACK} (after ")
    assert re.search(r"away, \d+ attempts?\)$", after[0]), after[0]
    assert any(text.startswith("reconnecting (attempt 1, away") for text in watcher.away), watcher.away
    assert label in " ".join(watcher.away)  # (what became of the relay meanwhile: said in place)
    assert watcher.away[-1] == ""  # (back: the status no longer says it is away)
    assert host.session is not None and host.session.finished
    truth, seen = verify(host.files.transcript.read_bytes()), watcher.verdict()
    assert truth.ok and seen.ok and seen.outcome == truth.outcome, seen.summary
    # Every message once: what it held already was not taken twice when the host sent it again.
    assert len(watcher.received) == len(set(watcher.received)) == seen.messages
