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

from p2pgenius.bots import levels
from p2pgenius.cli.versus import bots_folder
from p2pgenius.local_files import bots_table
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
    assert bots_table(transcript).stat().st_mode & 0o077 == 0  # (the bots' keys: private)
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


def killed_mid_match(tmp_path: Path, home: Path | None = None) -> tuple[Path, Path]:
    """A match against a bot (a bot in the person's seat too) killed with SIGKILL a few turns in:
    its home (``home``, else a new one) and transcript. Random bots may surrender at any turn,
    so a match that ended before the kill is played again."""
    for attempt in range(5):
        where = home or tmp_path / f"home-{attempt}"
        matches = where / "matches"
        before = set(matches.glob("*.p2pt")) if matches.is_dir() else set()
        started = subprocess.Popen(
            [str(BIN), "play", "duel", "--bot", "random", "--vs", "random", "--pace", "0.3"],
            env={**os.environ, "P2PGENIUS_HOME": str(where)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + HANG_S
            new: list[Path] = []
            while time.monotonic() < deadline and started.poll() is None:  # (a few turns in)
                new = sorted(set(matches.glob("*.p2pt")) - before) if matches.is_dir() else []
                if new and new[0].stat().st_size > 4000:
                    break
                time.sleep(0.02)
            started.send_signal(signal.SIGKILL)
        finally:
            started.kill()
            started.wait(timeout=HANG_S)
        new = sorted(set(matches.glob("*.p2pt")) - before)
        assert len(new) == 1, new
        if verify(new[0].read_bytes()).outcome is None:  # (killed before the end)
            return where, new[0]
    raise AssertionError("every match ended before it could be killed")


def test_a_match_against_bots_killed_mid_way_is_resumed_with_its_bots(tmp_path: Path) -> None:
    home, transcript = killed_mid_match(tmp_path)
    done = run(home, "resume", "--bot", "random")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the bots come back to the table" in done.stdout and "result: " in done.stdout
    after = verify(transcript.read_bytes())
    assert after.ok and after.outcome is not None
    # Resumed again, once it is over: said at once, with its result, and nothing is played or
    # written (no bots brought back, no door opened).
    before = transcript.read_bytes()
    again = run(home, "resume", str(transcript), "--bot", "random")
    assert again.returncode == 0 and not again.stderr, again.stdout + again.stderr
    said = again.stdout.splitlines()
    assert said[0] == f"this match is over; there is nothing to carry on: {transcript}", said
    assert said[1].startswith("result: ") and "come back" not in again.stdout, said
    assert transcript.read_bytes() == before


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["play", "duel", "--vs", "perfect", "--bot"], "no bot level 'perfect' for duel"),
        (["play", "duel", "--peers", "4", "--bot"], "duel is played by exactly 2 peers"),
        (["play", "hornswoggle", "--peers", "4", "--seat", "0", "--seat", "1", "--bot"], "--seat 0 1"),
        (["play", "magic-square", "--fast", "--bot"], "--fast is a duel option"),
        (["play", "duel", "--partner", "random", "--bot"], "--partner sets a bot partner's level: duel is"),
        (["host", "magic-square", "--partner", "random", "--bot"], "magic-square is played without teams"),
        (["play", "hornswoggle", "--partner", "godlike", "--bot"], "no bot level 'godlike' for hornswoggle"),
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
    matches = tmp_path / "home" / "matches"  # (nothing is left behind: no table, no bots)
    assert not matches.exists() or [p.name for p in matches.iterdir() if not p.name.endswith(".lock")] == []


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


def test_a_paused_match_against_bots_is_never_judged_late(tmp_path: Path) -> None:
    # Stopped mid-match, then looked at long after its turn's clock would have run out: the
    # whole table stopped, so games and history offer the resume, not "most likely forfeited".
    home, transcript = killed_mid_match(tmp_path)
    long_ago = time.time() - 3 * 86400  # (the stage began, and the files were written, days ago)
    note = transcript.with_name(transcript.name + ".stage")
    stage = note.read_text().split()[0]
    note.write_text(f"{stage} {long_ago:.3f}\n")
    os.utime(transcript, (long_ago, long_ago))
    shown = run(home, "games").stdout + run(home, "history").stdout
    assert "forfeited" not in shown and "late" not in shown, shown
    assert f"p2pgenius resume {transcript}" in shown, shown
    # The same files without the bots' table (a match with people) are judged late, as before.
    bots_table(transcript).rename(tmp_path / "aside")
    (home / "history.sqlite").unlink(missing_ok=True)
    assert "most likely forfeited by you" in run(home, "history").stdout


def test_a_level_only_one_game_has_chooses_that_game(tmp_path: Path) -> None:
    done = run(tmp_path / "home", "play", "--vs", "random", "--bot", "random", stdin="")
    assert done.returncode == 2 and "play needs a game when no one can be asked" in done.stderr
    level = levels("duel")[0]  # (the duel's strongest: no other game has it)
    assert all(level not in levels(other) for other in ("magic-square", "hornswoggle"))
    done = run(tmp_path / "home", "play", "--vs", level, "--bot", "random", stdin="")
    assert done.returncode == 0, done.stderr
    assert only_transcript(tmp_path / "home").name.endswith("-duel-play.p2pt")
    done = run(tmp_path / "other", "play", "--vs", "godlike", stdin="")
    assert done.returncode == 2 and "no bot level 'godlike'" in done.stderr


def test_no_terminal_leaves_no_file(tmp_path: Path) -> None:
    done = run(tmp_path / "home", "play", "duel", stdin="")
    assert done.returncode == 2 and "the terminal UI needs a terminal" in done.stderr
    matches = tmp_path / "home" / "matches"
    assert not matches.exists() or list(matches.iterdir()) == []


def test_only_the_bots_sit_at_a_table_against_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The person's table listens on 127.0.0.1, where any process of this machine (another user's
    # too) can call: one that comes before the bot is turned away (the bots alone hold the token).
    import trio

    from p2pgenius.bots.driver import BotDriver
    from p2pgenius.cli import versus
    from p2pgenius.cli.main import main
    from p2pgenius.net.peer import Files, Peer
    from p2pgenius.protocol.identity import Identity

    bot_joins, turned_away = versus._bot_joins, []

    async def stranger_first(peer: Peer, port: int) -> None:
        stranger = Peer(
            Identity.generate(),
            "mallory",
            Files(tmp_path / "m.p2pt", tmp_path / "m.secrets"),
            BotDriver("random", 1).decide,
            lambda *_: None,
            lambda *_: None,
            pin_dir=tmp_path / "mallory-pins",
        )
        try:
            with trio.fail_after(HANG_S):
                await stranger.join(await trio.open_tcp_stream("127.0.0.1", port))
        except Exception as exc:
            turned_away.append(exc)
        await bot_joins(peer, port)

    monkeypatch.setattr(versus, "_bot_joins", stranger_first)
    assert main(["play", "duel", "--bot", "random", "--vs", "random"]) == 0
    assert len(turned_away) == 1, turned_away
    transcript = only_transcript(Path(os.environ["P2PGENIUS_HOME"]))
    report = verify(transcript.read_bytes())
    assert report.ok and "mallory" not in report.names and "random" in report.names, report.names


def test_a_transcript_path_that_had_a_table_of_bots_is_refused_and_kept(tmp_path: Path) -> None:
    home, path = tmp_path / "home", tmp_path / "mine.p2pt"
    assert (
        run(home, "play", "duel", "--bot", "random", "--vs", "random", "--transcript", str(path)).returncode
        == 0
    )
    kept = bots_table(path).read_bytes()
    again = run(home, "play", "magic-square", "--bot", "random", "--transcript", str(path))
    assert again.returncode == 2 and "already has a table of bots beside it" in again.stderr, again.stderr
    assert bots_table(path).read_bytes() == kept and verify(path.read_bytes()).ok
    # A folder of the player's own that happens to have the name is neither used nor removed.
    other = tmp_path / "other.p2pt"
    bots_folder(other).mkdir()
    (bots_folder(other) / "precious.txt").write_text("mine")
    refused = run(home, "play", "duel", "--bot", "random", "--transcript", str(other))
    assert refused.returncode == 2 and (bots_folder(other) / "precious.txt").read_text() == "mine"


def test_the_game_question_takes_only_plain_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from p2pgenius.cli import versus

    monkeypatch.setattr(versus, "interactive", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO("²\n٣\nhorn\n"))
    out = io.StringIO()
    assert versus.ask_game(out, None) == "hornswoggle"  # (a name's start is enough)
    assert "'²' is not one of them" in out.getvalue() and "'٣' is not one of them" in out.getvalue()
