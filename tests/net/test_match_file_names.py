"""A match's files say what it is and whose: a joiner's and a spectator's transcripts carry the game
the host's lobby and terms name (``...-duel-join.p2pt``, ``...-hornswoggle-watch.p2pt``), as a
host's does, unless ``--transcript`` names them; the lock held on a joiner's files goes with them."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import join_match, rename, target_of, with_game
from p2pgenius.cli.main import build_parser
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.net.files import Files
from p2pgenius.protocol.transcript import verify
from tests.net.test_processes import wait_for_words
from tests.patience import HANG_S


def test_the_game_goes_before_whose_the_file_is() -> None:
    matches = Path("/home/ann/.config/p2pgenius/matches")
    assert with_game(matches / "20261201-175557-964910-join.p2pt", "duel") == (
        matches / "20261201-175557-964910-duel-join.p2pt"
    )
    assert with_game(matches / "20261201-175557-964910-watch.p2pt", "magic-square").name == (
        "20261201-175557-964910-magic-square-watch.p2pt"
    )


def test_a_held_lock_goes_with_the_files_it_holds(tmp_path: Path) -> None:
    files = Files(tmp_path / "1-join.p2pt", tmp_path / "1-join.secrets")
    files.lock()
    rename(files, tmp_path / "1-duel-join.p2pt")
    assert files.secrets == tmp_path / "1-duel-join.secrets"
    assert not (tmp_path / "1-join.p2pt.lock").exists() and files.lock_path.exists()
    assert Files(files.transcript, files.secrets).live(), "another process sees the match held"
    files.release()
    assert not Files(files.transcript, files.secrets).live()


async def test_a_joiners_transcript_carries_the_game_of_the_hosts_lobby(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            made = await nursery.start(host_match, hargs, host, match_options(hargs))
            jargs = build_parser().parse_args(["join", str(made), "--bot", "random"])
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            first = guest.files.transcript
            assert first.name.endswith("-join.p2pt") and "duel" not in first.name
            guest.files.lock()  # (as the command holds it before it connects)
            await join_match(jargs, guest, target_of(str(made)))
    transcript = guest.files.transcript
    assert transcript == first.with_name(first.name.replace("-join.p2pt", "-duel-join.p2pt"))
    assert guest.files.secrets == transcript.with_suffix(".secrets") and guest.files.secrets.exists()
    assert verify(transcript.read_bytes()).ok
    assert not first.exists() and not first.with_name(first.name + ".lock").exists(), "nothing left behind"
    stamp = first.name.removesuffix("-join.p2pt")
    beside = [path.name for path in transcript.parent.iterdir() if path.name.startswith(stamp)]
    assert beside and all(name.startswith(f"{stamp}-duel-join.") for name in beside), beside


async def test_a_transcript_path_given_is_kept_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "magic-square", "--bot", "random", "--port", "0"])
    host = make_peer(hargs, "magic-square-host", 1, Printer(io.StringIO(), moves=True))
    mine = tmp_path / "mine.p2pt"
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            made = await nursery.start(host_match, hargs, host, match_options(hargs))
            argv = ["join", str(made), "--bot", "random", "--transcript", str(mine)]
            jargs = build_parser().parse_args(argv)
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            await join_match(jargs, guest, target_of(str(made)))
    assert guest.files.transcript == mine and verify(mine.read_bytes()).ok


def spawn(home: Path, output: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "P2PGENIUS_HOME": str(home)}
    with output.open("w") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", *args],
            env=env,
            text=True,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def test_the_commands_name_a_joiners_and_a_spectators_files_by_the_game(tmp_path: Path) -> None:
    # Real processes, as players run them: a host admitting spectators, one watching (text), one joining.
    outs = {name: tmp_path / f"{name}.txt" for name in ("host", "watch", "join")}
    host = spawn(tmp_path / "h", outs["host"], "host", "hornswoggle", "--port", "0", "--bot", "--spectators")
    try:
        wait_for_words(outs["host"], "p2pgenius join p2pgenius://")
        invite = outs["host"].read_text().split("p2pgenius join ")[1].split()[0]
        spectator = spawn(tmp_path / "w", outs["watch"], "watch", invite, "--text")
        wait_for_words(outs["host"], "is watching")  # (in the lobby before the match starts)
        joiner = spawn(tmp_path / "g", outs["join"], "join", invite, "--bot")
        assert spectator.wait(HANG_S) == 0, outs["watch"].read_text()
        assert joiner.wait(HANG_S) == 0, outs["join"].read_text()
        assert host.wait(HANG_S) == 0
    finally:
        for process in (host, spectator, joiner):
            process.kill()
    for home, whose in (("g", "join"), ("w", "watch"), ("h", "host")):
        made = [path.name for path in (tmp_path / home / "matches").glob("*.p2pt")]
        assert len(made) == 1 and made[0].endswith(f"-hornswoggle-{whose}.p2pt"), made
        assert made[0] in outs[whose].read_text(), "the path said at the end is the file's"
        assert verify((tmp_path / home / "matches" / made[0]).read_bytes()).ok
