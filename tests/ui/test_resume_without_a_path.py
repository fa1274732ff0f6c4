"""`p2pgenius resume` with no path finds the unfinished match among the account's transcripts, or
lists them when there are several, or says there is none; finished matches are never offered."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.cli.resume import nothing_to_resume
from p2pgenius.ui.table import TableScreen

from .harness import play, until

CTRL_Q = "\x11"


async def leave_at_once(table: TableScreen, send: Callable[[str], None]) -> None:
    await until(lambda: bool(table.state.asking))
    send(CTRL_Q)
    await until(lambda: table.input.leaving)
    send(CTRL_Q)


async def surrender(table: TableScreen, send: Callable[[str], None]) -> None:
    await until(lambda: bool(table.state.asking))
    send("P P\r")
    await until(lambda: table.state.confirming is not None)
    send("y\r")
    await until(lambda: table.state.finished)
    send(CTRL_Q)


def match(tmp: Path, name: str, drive: Callable[[TableScreen, Callable[[str], None]], object]) -> Path:
    """The transcript (and secrets) of one match, played against a bot."""
    where = tmp / name
    where.mkdir()
    play(where, "duel", {"fast": True}, drive)
    return where / "person.p2pt"


def keep(transcript: Path, matches: Path, name: str) -> Path:
    shutil.copy(transcript, matches / f"{name}.p2pt")
    shutil.copy(transcript.with_suffix(".secrets"), matches / f"{name}.secrets")
    return matches / f"{name}.p2pt"


def test_resume_without_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    matches = home / "matches"
    matches.mkdir(parents=True)
    monkeypatch.setenv("P2PGENIUS_HOME", str(home))
    over = match(tmp_path, "over", surrender)
    left = match(tmp_path, "left", leave_at_once)

    keep(over, matches, "finished")
    assert main(["resume", "--bot"]) == 2
    assert "no unfinished match" in capsys.readouterr().err

    first = keep(left, matches, "unfinished")
    # One unfinished match: it is the one taken up. (It was played by a test's own key, not
    # this account's, so the resume stops right after saying which match it took.)
    assert main(["resume", "--bot"]) != 0
    said = capsys.readouterr()
    assert said.out.splitlines()[0] == f"resuming {first} (duel)"
    assert "choose one" not in said.err and "no unfinished match" not in said.err

    second = keep(left, matches, "unfinished-too")
    assert main(["resume", "--bot"]) == 2
    err = capsys.readouterr().err
    assert "2 unfinished matches; choose one:" in err
    assert f"p2pgenius resume {first}" in err and f"p2pgenius resume {second}" in err
    assert "/finished.p2pt" not in err


def test_resume_says_plainly_that_the_only_unfinished_match_is_being_played(tmp_path: Path) -> None:
    live = tmp_path / "a-duel-join.p2pt"
    said = nothing_to_resume(tmp_path, [(live, "duel")])
    assert said.startswith("the only unfinished match is being played now, in another p2pgenius process")
    assert f"{live} (duel)" in said and "name one" not in said and "not being played" not in said
    two = nothing_to_resume(tmp_path, [(live, "duel"), (tmp_path / "b.p2pt", "hornswoggle")])
    assert two.startswith("every unfinished match is being played now")
    none = nothing_to_resume(tmp_path, [])
    assert none.startswith("no unfinished match among the newest transcripts")
    assert "name one" not in none and "name it: p2pgenius resume PATH" in none  # (there is none to name)
