"""Every game in the table, through every feature: the same suite for each.

For each game (the three real ones and ``rps``, a fourth that exists only here, tests/games/rps.py,
with a public turn, an optional action and a hidden choice): random legal play through ``sim``; a
whole match of bots through the real command line (``host``, ``join``, ``watch``) with two peers
and with the most the game allows; a spectator watching it live; every transcript (each peer's
and the spectator's) verified, replayed step by step and exported; a joiner killed mid-match that
resumes from its files; every seat's view of every step drawn by the game's front end; and its
golden playthrough unchanged (tests/playthroughs/, written by ``python -m tests.playthroughs``).
A game added to the table is added here without a line changed.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import socket
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.bots import levels
from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.main import main
from p2pgenius.games import catalog
from p2pgenius.games.registry import get_spec
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.transcript import verify
from p2pgenius.ui.frontends import BoardRequest, frontend
from p2pgenius.ui.render import plain
from p2pgenius.ui.replay import Replay
from tests.patience import HANG_S

from .games.rps import ENTRY
from .playthroughs import playthrough, stored

GAMES = (*catalog.names(), ENTRY.name)
"""The table's games, and the test's own (in the table while this module runs)."""


pytestmark = pytest.mark.usefixtures("rps_in_the_table")


def most_peers(game: str) -> int:
    entry = ENTRY if game == ENTRY.name else catalog.find(game)
    return max(entry.load_spec().groups_by_peers)


# -- the engine, through sim --------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_random_legal_play_through_sim_is_the_engines_own(game: str, tmp_path: Path) -> None:
    engine = get_spec(game).engine
    rng = random.Random(11)
    state = engine.initial({}, {})
    actions = []
    for _ in range(1500):
        if engine.outcome(state) is not None:
            break
        seat = rng.choice(engine.to_act(state))
        action = rng.choice(list(engine.legal_actions(state, seat)))
        actions.append({"seat": seat, "action": action.to_plain()})
        state = engine.apply(state, seat, action)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"game": game, "actions": actions}), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["sim", str(script)]) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == len(actions) + 1 and len(actions) > 10
    outcome = engine.outcome(state)
    assert lines[-1] == {
        "outcome": None if outcome is None else outcome.to_plain(),
        "state": engine.full(state),
    }


@pytest.mark.parametrize("game", GAMES)
def test_the_golden_playthrough_is_unchanged(game: str) -> None:
    # A change in what an engine does shows here first; if it is meant, bump the game's
    # rules_version and write the files again: python -m tests.playthroughs
    assert playthrough(game) == stored(game), f"{game}: the playthrough changed"


# -- a whole match through the command line ------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int, within: float = HANG_S) -> None:
    """Wait until something listens at ``port`` (without connecting to it: a caller that
    knocks and leaves would be a line in the host's output)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                return  # (taken: the host has bound it)
        time.sleep(0.02)
    raise AssertionError(f"nothing listens at {port}")


class Command(threading.Thread):
    """``p2pgenius ARGS`` run in a thread of this process, as a person would run it."""

    def __init__(self, *args: str) -> None:
        super().__init__(daemon=True)
        self.args = list(args)
        self.code: int | None = None

    def run(self) -> None:
        self.code = main(self.args)


@pytest.mark.parametrize(
    ("game", "peers"),
    sorted({(game, peers) for game in GAMES for peers in (2, most_peers(game))}),
)
def test_bots_play_a_whole_match_through_the_command_line_and_a_spectator_watches(
    game: str, peers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path / "home"))
    port = free_port()
    files = [tmp_path / f"peer{i}.p2pt" for i in range(peers)]
    watched = tmp_path / "watch.p2pt"
    strong = levels(game)[0]  # the game's own bot hosts; the others play at random
    host = Command("host", game, "--peers", str(peers), "--port", str(port), "--bot", strong)
    host.args += ["--spectators", "--name", "host", "--transcript", str(files[0])]
    host.start()
    listening(port)
    address = f"127.0.0.1:{port}"
    watcher = Command("watch", address, "--text", "--name", "wendy", "--transcript", str(watched))
    watcher.start()
    time.sleep(0.2)  # (in the lobby before the match: it sees it all, live)
    joiners = [
        Command("join", address, "--bot", "random", "--name", f"j{i}", "--transcript", str(files[i]))
        for i in range(1, peers)
    ]
    for joiner in joiners:
        joiner.start()
        time.sleep(0.05)
    for command in (host, *joiners, watcher):
        command.join(HANG_S)
        assert not command.is_alive(), f"{command.args[:2]} did not finish"
        assert command.code == 0, command.args
    reports = [verify(path.read_bytes()) for path in (*files, watched)]
    for report in reports:
        assert report.ok, report.summary
        assert report.game == game and report.outcome == reports[0].outcome
    for path in (*files, watched):
        _exported_and_replayed(game, path)


def _exported_and_replayed(game: str, path: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["export", str(path)]) == 0
    record = out.getvalue()
    assert f'[Game "{get_spec(game).title}"]' in record or game in record
    replay = Replay(verify(path.read_bytes()), ascii_only=True)
    shown = []
    while True:
        shown.append(plain(replay.board_lines(80, 24)))
        if replay.index >= replay.count:
            break
        replay.forward()
    assert len(shown) == replay.count + 1 > 1


# -- a joiner killed mid-match, back from its files ------------------------------------------------


class Stalls(BotDriver):
    """A random bot that stops deciding after ``moves`` decisions (its process then hangs until
    it is killed: the match cannot end before)."""

    def __init__(self, seed: int, moves: int) -> None:
        super().__init__("random", seed)
        self.moves = moves

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        self.moves -= 1
        if self.moves < 0:
            await trio.sleep_forever()
        return await super().decide(session, seat)


def _peer(tmp: Path, name: str, bots: BotDriver, *, like: Peer | None = None) -> Peer:
    """A peer (``like``: a new process of that killed one: its identity and files, nothing else)."""
    return Peer(
        like.identity if like else Identity.generate(),
        name,
        like.files if like else Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets"),
        bots.decide,
        lambda view, event: None,
        lambda line: None,
        grace_s=30,
        pin_dir=tmp / "pins" / name,
        decide_early=True,
    )


async def _until(check: Callable[[], bool]) -> None:
    while not check():
        await trio.sleep(0.005)


@pytest.mark.parametrize("game", GAMES)
async def test_a_joiner_killed_mid_match_resumes_from_its_files(game: str, tmp_path: Path) -> None:
    stalls = Stalls(2, moves=3)
    host, guest = _peer(tmp_path, "host", BotDriver("random", 1)), _peer(tmp_path, "guest", stalls)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    host.address = guest.address = f"127.0.0.1:{port}"
    options = dict(get_spec(game).demo_options)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                partial(host.host, listeners[0], game=game, options=options, setup={}, peers=2)
            )
            async with trio.open_nursery() as process:  # the joiner's process
                process.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", port))
                await _until(lambda: stalls.moves < 0)  # (three decisions made, the fourth hangs)
                process.cancel_scope.cancel()  # killed: nothing flushed on the way out
            assert guest.session is not None and not guest.session.finished
            again = _peer(tmp_path, "guest", BotDriver("random", 3), like=guest)
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


# -- every view, drawn --------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_seats_view_of_every_step_is_drawn_by_the_front_end(game: str) -> None:
    engine, front = get_spec(game).engine, frontend(game)
    rng = random.Random(5)
    state = engine.initial({}, {})
    names = {seat: f"player {seat}" for seat in range(engine.seats(state))}
    drawn = 0
    for _ in range(300):
        for seat in range(engine.seats(state)):
            view = engine.view(state, seat)
            request = BoardRequest(game, view, names, ascii_only=True, hints=True, mine=(seat,), height=24)
            lines = front.board(request)
            assert lines and all(isinstance(line, list) for line in lines)
            if seat in engine.to_act(state):  # what the person may type is offered
                assert front.choices(state, seat, "", hints=True), (game, seat)
            drawn += 1
        if engine.outcome(state) is not None:
            break
        seat = rng.choice(engine.to_act(state))
        state = engine.apply(state, seat, rng.choice(list(engine.legal_actions(state, seat))))
    assert drawn > 20
