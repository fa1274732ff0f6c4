"""A peer that comes back after the others forfeited it (issue 43, 5), on trio's autojump clock and
in-memory streams: a joiner that left before its first move, forfeited by a host that then
exited; a host that left, forfeited by its joiner; a Hornswoggle joiner of four. Each one's resume
tries to reach the others for the match's longest time limit plus the grace period, then says in
one line that the match was most likely forfeited by it, what it owed and since when, having
written nothing; its record says the same and counts nothing. A late peer whose host is still
there plays on as ever."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio
import trio.testing

import p2pgenius.net.match_loop as loop_module
import p2pgenius.net.overdue as overdue_module
from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.play import first_error
from p2pgenius.net.overdue import ForfeitedMostLikelyError, utc
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.transcript import verify
from p2pgenius.record.matches import UNFINISHED, read
from tests.patience import HANG_S

from .test_clocks import Thinks
from .test_network import Silent, peer

WALL = 1_700_000_000.0
"""The wall clock's time at trio's fake zero: the stage note and the overdue check read it."""
FOREVER = 10**6


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wall clock moves with trio's fake one (the note of when a stage began, and the resumed
    peer's judgement of what is late, both read it)."""
    fake = SimpleNamespace(time=lambda: WALL + trio.current_time())
    monkeypatch.setattr(loop_module, "time", fake)
    monkeypatch.setattr(overdue_module, "time", fake)


class Door(trio.abc.Listener[trio.abc.Stream]):
    """A host's door that hands out the in-memory streams given to it (``put``), as they come."""

    def __init__(self, *streams: trio.abc.Stream) -> None:
        self.send, self.receive = trio.open_memory_channel[trio.abc.Stream](8)
        for stream in streams:
            self.put(stream)

    def put(self, stream: trio.abc.Stream) -> None:
        self.send.send_nowait(stream)

    async def accept(self) -> trio.abc.Stream:
        return await self.receive.receive()

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


async def nowhere() -> trio.abc.Stream:
    """A joiner's way back to a host that is gone (its process ended: nothing listens)."""
    raise OSError("nothing is listening at 127.0.0.1:7780 (connection refused)")


async def until(check: Callable[[], bool]) -> None:
    while not check():
        await trio.sleep(0.5)


async def killed_when(run: Callable[[], Any], stream: trio.abc.Stream, check: Callable[[], bool]) -> None:
    """Run a peer (``run``) until ``check`` holds, then stop it dead, as a killed process: its
    connection (``stream``) closes, nothing more is written."""
    async with trio.open_nursery() as process:
        process.start_soon(run)
        await until(check)
        process.cancel_scope.cancel()
    await stream.aclose()


def hosting(
    host: Peer, door: Door, game: str, options: dict[str, Any], **more: Any
) -> Callable[[], Awaitable[None]]:
    """``host`` holding the match at ``door`` (``more``: its setup, its number of peers)."""
    table = {"setup": {}, "peers": 2, **more}
    return partial(host.host, door, game=game, options=options, setup=table["setup"], peers=table["peers"])


def asked(side: Peer) -> Callable[[], bool]:
    """Whether ``side``'s player is being asked for a decision (it owes one now)."""
    return lambda: side.session is not None and bool(side.session.awaiting())


def again(old: Peer, tmp: Path, log: Silent | None = None) -> Peer:
    """A new process for a killed peer: its identity and files, read back."""
    back = peer(tmp, f"{old.name}-again", BotDriver("random", 9, thread=False), log or Silent(), grace=20)
    back.identity, back.files = old.identity, old.files
    back.resume(old.files.transcript.read_bytes(), old.files.secrets.read_bytes())
    return back


async def gives_up(back: Peer) -> tuple[str, float]:
    """Play the resumed peer until it gives up: (its one line, how long it took)."""
    start = trio.current_time()
    written = back.files.transcript.read_bytes()
    with pytest.raises(BaseExceptionGroup) as raised, trio.fail_after(FOREVER):  # (fake seconds)
        await back.play()
    error = first_error(raised.value)
    assert isinstance(error, ForfeitedMostLikelyError), repr(error)
    assert back.files.transcript.read_bytes() == written  # nothing played, claimed or written
    return str(error), trio.current_time() - start


def judged(path: Path) -> tuple[str, str]:
    """The record's line for a transcript, now: its result and its ending."""
    line = read(path)
    assert line.kind == UNFINISHED and not line.counts
    now = WALL + trio.current_time()
    return line.result(now), line.ending(now)


async def test_a_joiner_forfeited_while_away_is_told_within_the_bound(
    tmp_path: Path, wall: None, autojump_clock: Any
) -> None:
    # turn_seconds=20 and --grace 20, as the issue has it: the joiner leaves before its first
    # move; the host claims it once its clock ran out, forfeits it 20 s later and exits.
    del wall, autojump_clock
    host = peer(tmp_path, "host", BotDriver("random", 1, thread=False), Silent(), grace=20)
    guest = peer(tmp_path, "guest", Thinks(None, 2, FOREVER), Silent(), grace=20)
    host_end, guest_end = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hosting(host, Door(host_end), "duel", {"turn_seconds": 20, "fast": False}))
        await killed_when(partial(guest.join, guest_end), guest_end, asked(guest))
    report = verify(host.files.transcript.read_bytes())
    assert report.fault is not None and report.fault.kind == "forfeit" and report.fault.peer == 1
    assert guest.session is not None and guest.session.stage is not None
    began = guest.files.stage_began()
    assert began is not None and began[0] == 0

    back = again(guest, tmp_path)
    back.reconnect = nowhere
    said, took = await gives_up(back)
    assert took == pytest.approx(40)  # the match's longest time limit (20 s) plus the grace (20 s)
    seat = guest.session.my_seats[0]
    assert said == (
        f"the match was most likely forfeited by you: p{seat} (yours) is late with a decision (act or "
        f"commit), or its timeout, at step 1, since {utc(began[1] + 20)} (its clock ran out then), and "
        f"host (p{1 - seat}), not reached for 40 s, most likely claimed it and stopped the match (only "
        "their transcript can prove it; your record does not count this match)"
    )
    result, ending = judged(guest.files.transcript)
    assert result == "most likely forfeited by you", result
    assert ending.startswith(f"p{seat} (yours) is late with a decision"), ending


async def test_a_host_forfeited_while_away_is_told_when_no_joiner_comes_back(
    tmp_path: Path, wall: None, autojump_clock: Any
) -> None:
    del wall, autojump_clock
    host = peer(tmp_path, "host", Thinks(None, 1, FOREVER), Silent(), grace=20)
    guest = peer(tmp_path, "guest", BotDriver("random", 2, thread=False), Silent(), grace=20)
    guest.reconnect = nowhere
    host_end, guest_end = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(guest.join, guest_end)
        match = hosting(host, Door(host_end), "duel", {"turn_seconds": 30, "fast": True})
        await killed_when(match, host_end, asked(host))
    assert guest.session is not None and guest.session.fault is not None  # it forfeited the host

    back = again(host, tmp_path)
    back.listener = Door()  # its door open again: nobody comes
    said, took = await gives_up(back)
    assert took == pytest.approx(50)  # 30 s (the turn) plus 20 s (the grace)
    assert said.startswith("the match was most likely forfeited by you: p") and "guest (p" in said, said
    assert judged(host.files.transcript)[0] == "most likely forfeited by you"


async def test_a_hornswoggle_joiner_of_four_forfeited_while_away_is_told(
    tmp_path: Path, wall: None, autojump_clock: Any
) -> None:
    # The host claims the seat of the joiner that left and forfeits it; the two other joiners
    # hold that forfeit for their own grace period, then stop too. Nobody is left to answer.
    del wall, autojump_clock
    host = peer(tmp_path, "host", BotDriver(None, 1, thread=False), Silent(), grace=20)
    gone = peer(tmp_path, "gone", Thinks(None, 2, FOREVER), Silent(), grace=20)
    others = [peer(tmp_path, f"j{n}", BotDriver(None, n, thread=False), Silent(), grace=20) for n in (3, 4)]
    pairs = [trio.testing.memory_stream_pair() for _ in range(3)]
    for other in others:
        other.reconnect = nowhere
    async with trio.open_nursery() as nursery:
        door = Door(*(h for h, _ in pairs))
        nursery.start_soon(hosting(host, door, "hornswoggle", {"decision_seconds": 30}, peers=4))
        for other, (_, end) in zip(others, pairs[1:], strict=True):
            nursery.start_soon(other.join, end)
        await killed_when(partial(gone.join, pairs[0][1]), pairs[0][1], asked(gone))
    for side in (host, *others):
        assert side.session is not None and side.session.fault is not None, side.name
        assert side.session.fault.peer == gone.session.me  # type: ignore[union-attr]

    back = again(gone, tmp_path)
    back.reconnect = nowhere
    said, took = await gives_up(back)
    assert took == pytest.approx(50)
    assert "host (p" in said and "j3 (p" in said and "j4 (p" in said, said
    assert judged(gone.files.transcript)[0] == "most likely forfeited by you"


async def test_a_late_joiner_whose_host_is_still_there_plays_on(
    tmp_path: Path, wall: None, autojump_clock: Any
) -> None:
    # The host's grace is long: its claim stands unanswered when the joiner comes back, late. The
    # joiner reaches it, its own clock times it out (answering the claim), and the duel goes on.
    del wall, autojump_clock
    host_log = Silent()
    host = peer(tmp_path, "host", BotDriver("random", 1, thread=False), host_log, grace=600)
    guest = peer(tmp_path, "guest", Thinks(None, 2, FOREVER), Silent(), grace=20)
    first_host, first_guest = trio.testing.memory_stream_pair()
    second_host, second_guest = trio.testing.memory_stream_pair()
    door = Door(first_host)
    async with trio.open_nursery() as nursery:
        options = {"turn_seconds": 20, "fast": True}
        nursery.start_soon(hosting(host, door, "duel", options, setup={"hp": [3, 3]}))
        await killed_when(partial(guest.join, first_guest), first_guest, asked(guest))
        await until(lambda: any("claimed, signed" in line for line in host_log.lines))
        back_log = Silent()
        back = again(guest, tmp_path, back_log)
        door.put(second_host)

        async def way_back() -> trio.abc.Stream:
            return second_guest

        back.reconnect = way_back
        await back.play()
    assert back.session is not None and back.session.finished
    assert any("most likely claimed it while you were away" in line for line in back_log.lines)
    assert any("reconnected to the host" in line for line in back_log.lines)
    assert host.session is not None and host.session.outcome == back.session.outcome
    for side in (host, back):
        assert verify(side.files.transcript.read_bytes()).ok


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_the_commands_say_a_joiner_forfeited_while_away_most_likely_forfeited(tmp_path: Path) -> None:
    # Real processes: a joiner killed before its first move (its turn clock: 5 s), a host that
    # forfeits it (grace 2 s) and exits; the joiner's `resume` ends, with one line and exit
    # status 1, once the bound has passed (5 s plus 2 s); `history` says the same, counts nothing
    # and offers no resume; the host's says it won by the forfeit.
    from tests.net.test_processes import listening_port, spawn, wait_for_words

    homes = {name: tmp_path / name for name in ("host", "join")}
    files = {name: home / "matches" / f"{name}.p2pt" for name, home in homes.items()}
    outs = {name: tmp_path / f"{name}.txt" for name in ("host", "join", "resume")}
    times = ["--grace", "2"]
    host = spawn(homes["host"], outs["host"], "host", "duel", "--port", "0", "--bot", "--name", "Hana",
                 "--option", "turn_seconds=5", *times, "--transcript", str(files["host"]))  # fmt: skip
    try:
        port = listening_port(outs["host"])
        joiner = spawn(homes["join"], outs["join"], "join", f"127.0.0.1:{port}", "--bot", "--pace", "600",
                       "--name", "Carl", *times, "--transcript", str(files["join"]))  # fmt: skip
        # Killed once both have the seats: the joiner prints them when it has read the host's
        # coin share, before its own is surely on the wire (killed then, it forfeits the deal).
        for name in ("join", "host"):
            wait_for_words(outs[name], "seats by fair coin flip")
        joiner.send_signal(signal.SIGKILL)
        joiner.wait()
        assert host.wait(timeout=HANG_S) == 1, outs["host"].read_text()
    finally:
        host.kill()
    assert "forfeits: no answer to a timeout claim" in outs["host"].read_text(), outs["host"].read_text()
    before = files["join"].read_bytes()

    env = {**os.environ, "P2PGENIUS_HOME": str(homes["join"])}
    command = [sys.executable, "-m", "p2pgenius"]
    resumed = subprocess.run(
        [*command, "resume", str(files["join"]), "--bot", *times],
        env=env, capture_output=True, text=True, timeout=HANG_S, check=False,
    )  # fmt: skip
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert resumed.stderr.count("\n") == 1, resumed.stderr
    assert resumed.stderr.startswith("error: the match was most likely forfeited by you: p"), resumed.stderr
    assert "is late with a decision (act or commit), or its timeout, at step 1, since " in resumed.stderr
    assert "Hana (p" in resumed.stderr and "not reached for 7 s" in resumed.stderr
    assert "most likely claimed it while you were away" in resumed.stdout
    assert files["join"].read_bytes() == before  # (nothing played, claimed or written)

    listed = subprocess.run(
        [*command, "history", "--json"], env=env, capture_output=True, text=True, timeout=HANG_S, check=True
    )
    (line,) = json.loads(listed.stdout)["matches"]
    assert line["result"] == "most likely forfeited by you" and line["resume"] == "", line
    assert line["ending"].startswith("p") and "is late with a decision" in line["ending"], line
    assert json.loads(listed.stdout)["ratings"] == {}  # (counted for nobody)
    shown = subprocess.run(
        [*command, "history"], env=env, capture_output=True, text=True, timeout=HANG_S, check=True
    ).stdout
    assert "most likely forfeited by you" in shown and "p2pgenius resume" not in shown, shown
    hosts = subprocess.run(
        [*command, "history", "--json"],
        env={**env, "P2PGENIUS_HOME": str(homes["host"])},
        capture_output=True, text=True, timeout=HANG_S, check=True,
    )  # fmt: skip
    assert json.loads(hosts.stdout)["matches"][0]["result"] == "won: Carl forfeited"
