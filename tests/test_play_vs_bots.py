"""``p2pgenius play``: a person (here a bot in the person's seat, ``--bot``) against bots in every
other seat, over the real protocol on loopback, each command in its own process as a player runs
it: the transcript in the account's matches/, verified, in ``history``; the account's pins left
alone; a crash resumed with the bots; usage errors in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pgenius.cli.versus import bots_folder, table_path
from p2pgenius.protocol.transcript import read_header, verify
from tests.patience import HANG_S

BIN = Path(sys.executable).parent / "p2pgenius"


def run(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN), *argv],
        env={**os.environ, "P2PGENIUS_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=HANG_S,
        input=stdin,
        check=False,
    )


def only_transcript(home: Path) -> Path:
    found = sorted((home / "matches").glob("*.p2pt"))
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("game", "extra", "seats"),
    [
        ("duel", (), 1),
        ("magic-square", (), 1),
        ("hornswoggle", (), 2),  # two peers: a team each, the person's partner a bot of its own
        ("hornswoggle", ("--peers", "4", "--seat", "2"), 1),
    ],
)
def test_a_match_against_bots_lands_in_the_record(
    tmp_path: Path, game: str, extra: tuple[str, ...], seats: int
) -> None:
    home = tmp_path / "home"
    done = run(home, "play", game, "--bot", "random", "--vs", "random", *extra)
    assert done.returncode == 0, done.stderr
    assert "result: " in done.stdout and not done.stderr
    transcript = only_transcript(home)
    report = verify(transcript.read_bytes())
    assert report.ok and report.outcome is not None, report.summary
    head = read_header(transcript.read_bytes())
    peers = 4 if "4" in extra else 2
    assert len(head.peers) == peers
    # Every bot kept a transcript of its own, beside, out of the record's way.
    for chair in range(1, peers):
        assert verify((bots_folder(transcript) / f"{chair}.p2pt").read_bytes()).ok
    assert table_path(transcript).stat().st_mode & 0o077 == 0  # (the bots' keys: private)
    listed = run(home, "history", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["matches"]
    assert len(rows) == 1 and rows[0]["game"] == game and rows[0]["kind"] == "finished", rows
    assert len(rows[0]["seats"]) == seats, rows  # the person's seats, as the record has them
    if "--seat" in extra:
        assert rows[0]["seats"] == [2]
    # The bots' names and keys are this table's: the account's pinned friends are untouched.
    assert not (home / "known_peers").exists()


def test_the_same_bot_is_the_same_opponent_from_match_to_match(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for _ in range(2):
        assert run(home, "play", "duel", "--bot", "random", "--vs", "random").returncode == 0
    shown = run(home, "history").stdout
    opponents = {line.split(" vs ", 1)[1].strip() for line in shown.splitlines() if " vs " in line}
    assert len(opponents) == 1 and "random (" in next(iter(opponents)), shown


def test_a_match_against_bots_killed_mid_way_is_resumed_with_its_bots(tmp_path: Path) -> None:
    home = tmp_path / "home"
    started = subprocess.Popen(
        [str(BIN), "play", "duel", "--bot", "random", "--vs", "random", "--pace", "0.2"],
        env={**os.environ, "P2PGENIUS_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + HANG_S
        transcript = None
        while time.monotonic() < deadline:  # (until a few turns are in the transcript)
            found = sorted((home / "matches").glob("*.p2pt")) if (home / "matches").is_dir() else []
            if found and found[0].stat().st_size > 6000:
                transcript = found[0]
                break
            time.sleep(0.05)
        assert transcript is not None
        started.send_signal(signal.SIGKILL)
    finally:
        started.kill()
        started.wait(timeout=HANG_S)
    before = verify(transcript.read_bytes())
    assert before.outcome is None  # (killed before the end)
    done = run(home, "resume", "--bot", "random")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the bots come back to the table" in done.stdout and "result: " in done.stdout
    after = verify(transcript.read_bytes())
    assert after.ok and after.outcome is not None


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["play", "duel", "--vs", "perfect", "--bot"], "no bot level 'perfect' for duel"),
        (["play", "duel", "--peers", "4", "--bot"], "duel is played by exactly 2 peers"),
        (["play", "hornswoggle", "--peers", "4", "--seat", "0", "--seat", "1", "--bot"], "--seat 0 1"),
        (["play", "magic-square", "--fast", "--bot"], "--fast is a duel option"),
        (
            ["play"],
            "play needs a game when no one can be asked: p2pgenius play duel|magic-square|hornswoggle",
        ),
        (["play", "duel"], "the terminal UI needs a terminal"),
    ],
)
def test_play_refuses_in_one_line(tmp_path: Path, argv: list[str], said: str) -> None:
    done = run(tmp_path / "home", *argv, stdin="")
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "home" / "matches").exists() or not list(
        (tmp_path / "home" / "matches").glob("*.p2pt")
    )


def test_a_table_left_before_its_match_began_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2pgenius.cli import versus
    from p2pgenius.cli.main import main
    from p2pgenius.errors import P2PGeniusError

    async def no_match(*_: object) -> None:
        raise P2PGeniusError("the bots never came")

    monkeypatch.setattr(versus, "play_match", no_match)
    assert main(["play", "duel", "--bot", "random"]) == 1
    matches = Path(os.environ["P2PGENIUS_HOME"]) / "matches"
    assert matches.is_dir()  # (the table was laid: its files were made, then taken away)
    assert [p.name for p in matches.iterdir() if not p.name.endswith(".lock")] == []
