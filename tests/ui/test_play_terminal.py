"""``p2pgenius play`` as a person runs it, in a real terminal (tmux): asked which game, a duel
against a bot at 80x24, a pause on purpose (Ctrl-Q Ctrl-Q: exit 0 and how to carry on), then
``resume`` in a large window, where the bot comes back and the match is played to its end."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S
from tests.test_play_vs_bots import killed_mid_match
from tests.ui.test_terminal import BIN, pytestmark, screen, tmux, wait_for

__all__ = ["pytestmark"]


def _run_in_tmux(session: str, home: Path, command: str, size: tuple[int, int]) -> None:
    env = f"P2PGENIUS_HOME={home} TERM=xterm-256color"
    shell = f"{env} {command}; echo exit=$?; sleep 60"
    tmux("new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), shell)


def _gestures(session: str, typed: str, then: str) -> None:
    """Answer the duel's question with ``typed`` once it is asked, and wait for ``then``."""
    wait_for(session, r"(?m)^gestures>")
    tmux("send-keys", "-t", session, typed, "Enter")
    wait_for(session, then)


def _to_turn_two(session: str, home: Path) -> None:
    """``play`` asks for the game, a duel at 80x24 is chosen and its first turn played by hand.
    The random bot plays both hands P (a surrender) one turn in 49: if it ends the match on its
    first turn, the match is begun anew, in a home of its own (else the test would fail one run
    in 49)."""
    for _ in range(4):
        shutil.rmtree(home, ignore_errors=True)
        _run_in_tmux(session, home, f"{BIN} play --vs random --name ann", (80, 24))
        wait_for(session, r"Which game \(with a random bot\)\?")
        assert "1. duel" in screen(session) and "3. hornswoggle" in screen(session)
        tmux("send-keys", "-t", session, "chess", "Enter")  # not a game: asked again
        wait_for(session, r"'chess' is not one of them")
        tmux("send-keys", "-t", session, "1", "Enter")
        wait_for(session, r"Turn 1")
        shown = screen(session)
        assert "you against a bot (random) on this machine" in shown
        assert "random joined" in shown, shown
        _gestures(session, "P D", r"Turn 2|the match is over")
        if "Turn 2" in screen(session):
            return
        assert "random (p0) surrendered" in screen(session) or "random (p1) surrendered" in screen(session)
        tmux("kill-session", "-t", session)
    raise AssertionError("the random bot surrendered on the first turn of four matches in a row")


def test_play_asks_the_game_pauses_and_resumes_with_its_bot(tmp_path: Path) -> None:
    session = f"p2pplay-{os.getpid()}"
    home = tmp_path / "home"
    try:
        _to_turn_two(session, home)
        # The documented way to stop for the night: a pause, not an error.
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, r"Ctrl-Q again leaves")
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, r"exit=\d")
        shown = screen(session).replace("\n", "")  # (the path wraps at 80 columns)
        assert "exit=0" in shown and "error" not in shown, shown
        path = re.search(r"carry on with: p2pgenius resume (\S+?\.p2pt)", shown)
        assert path is not None, shown
        transcript = Path(path.group(1))
        assert transcript.parent == home / "matches"
        tmux("kill-session", "-t", session)

        # Carried on in a large window: the bot comes back by itself, and the match goes on.
        _run_in_tmux(session, home, f"{BIN} resume {transcript}", (160, 50))
        wait_for(session, r"the bots come back to the table")
        wait_for(session, r"Turn [2-9]")
        # Both hands P: a surrender, confirmed with one key.
        _gestures(session, "P P", r"surrender: you lose the duel: send it\? y or n")
        tmux("send-keys", "-t", session, "y")
        wait_for(session, r"match over")
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, r"exit=\d")
        shown = screen(session)
        # (the bot surrendering in the same turn, one in 49, makes it a draw)
        drawn = "Both wizards surrender" in shown or "a draw" in shown
        assert "exit=0" in shown and "random (p" in shown, shown
        assert drawn or "wins (surrender)" in shown, shown
    finally:
        tmux("kill-server")
    report = verify(transcript.read_bytes())
    assert report.ok and report.outcome is not None
    listed = subprocess.run(
        [str(BIN), "history"],
        env={**os.environ, "P2PGENIUS_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=True,
    ).stdout
    assert "1 match" in listed and ("draw" if drawn else "lost") + "  vs random" in listed, listed


def test_resume_asks_which_of_several_unfinished_matches(tmp_path: Path) -> None:
    # Two matches paused (here: killed mid-way), then `resume` with no path in a terminal: it
    # used to refuse ("2 unfinished matches; choose one", exit 2); a person is asked instead.
    home = tmp_path / "home"
    _, first = killed_mid_match(tmp_path, home)
    _, second = killed_mid_match(tmp_path, home)
    session = f"p2presume-{os.getpid()}"
    try:
        _run_in_tmux(session, home, f"{BIN} resume --bot random", (160, 50))
        wait_for(session, r"Which one\? 1 to 2 \(q: none\)")
        shown = screen(session)
        assert "2 unfinished matches:" in shown and first.name in shown and second.name in shown, shown
        tmux("send-keys", "-t", session, "3", "Enter")
        wait_for(session, r"'3' is not one of them")
        listed = next(line for line in shown.splitlines() if line.startswith("  2. "))
        chosen = second if second.name in listed else first
        tmux("send-keys", "-t", session, "2", "Enter")
        wait_for(session, r"exit=\d")
        shown = screen(session).replace("\n", "")  # (a long path wraps)
        assert "exit=0" in shown and f"resuming {chosen}" in shown and "result: " in shown, shown
    finally:
        tmux("kill-server")
    assert verify(chosen.read_bytes()).outcome is not None
    left = first if chosen == second else second
    assert verify(left.read_bytes()).outcome is None  # (the other one waits, untouched)


def test_leaving_a_match_with_a_person_says_the_clock_runs_on(tmp_path: Path) -> None:
    # Ctrl-Q Ctrl-Q mid-match with another player: no error (it was "error: the match did not
    # finish", exit 1), but no "pause" either: the other side's clocks run on.
    session = f"p2pleave-{os.getpid()}"
    guest = None
    try:
        _run_in_tmux(session, tmp_path / "host", f"{BIN} host duel --port 0 --name ann", (140, 45))
        port = wait_for(session, r"listening on 127\.0\.0\.1:(\d+)").group(1)
        guest = subprocess.Popen(
            [str(BIN), "join", f"127.0.0.1:{port}", "--bot", "random", "--name", "bob"],
            env={**os.environ, "P2PGENIUS_HOME": str(tmp_path / "guest")},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(session, r"Turn 1")
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, r"Ctrl-Q again leaves")
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, r"exit=\d")
        shown = screen(session).replace("\n", "")
        assert "exit=0" in shown and "error" not in shown, shown
        assert "you left the match: it is kept, and your clock runs on for the others" in shown, shown
        assert "carry on with: p2pgenius resume " in shown and "paused" not in shown, shown
    finally:
        tmux("kill-server")
        if guest is not None:
            guest.kill()
            guest.wait(timeout=HANG_S)
