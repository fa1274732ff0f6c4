"""End to end in a real terminal: tmux runs `p2pgenius host duel` (the full-screen UI), a bot
joins from another process, and keystrokes sent with tmux play a whole duel; the screen is read
back with capture-pane."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
BIN = Path(sys.executable).parent / "p2pgenius"


SOCKET = f"p2pgenius-test-{os.getpid()}"  # a tmux server of our own, away from the user's


def tmux(*args: str) -> str:
    done = subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=HANG_S, check=False
    )
    return done.stdout


def screen(session: str) -> str:
    return tmux("capture-pane", "-p", "-S", "-200", "-t", session)  # with what scrolled away


def wait_for(session: str, pattern: str, seconds: float = HANG_S) -> re.Match[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, screen(session))
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"never saw {pattern!r}; the screen:\n{screen(session)}")


SURRENDER_AFTER = 8
"""Turns played by hand before the person surrenders (a duel of random gestures can run long)."""


def play_by_hand(session: str) -> int:
    """Answer every question of the duel's screen as a person would, until the match is over
    (surrendering after :data:`SURRENDER_AFTER` turns); returns the answers typed."""
    turns = 0
    give_up = time.monotonic() + HANG_S
    for gestures in itertools.cycle(["S D", "D S", "W W", "> S", "P W", "S W", "D D"]):
        now = screen(session)
        if "match over" in now or turns > 200 or time.monotonic() > give_up:
            break
        asked = re.search(r"^(gestures|paralyse)>", now, re.MULTILINE)
        if asked:
            before = (re.search(r"Turn (\d+)", now) or [""])[0], asked.group(1)
            typed = gestures if asked.group(1) == "gestures" else "paralyze p1 left"
            if asked.group(1) == "gestures" and turns >= SURRENDER_AFTER:
                # Both hands P: a surrender, confirmed with one key (the duel ends now).
                tmux("send-keys", "-t", session, "P P", "Enter")
                wait_for(session, r"surrender: you lose the duel: send it\? y or n")
                tmux("send-keys", "-t", session, "y")
                wait_for(session, r"match over")
                return turns + 1
            tmux("send-keys", "-t", session, typed, "Enter")
            turns += 1
            # wait until this question is answered (the next one is asked, or the match ends)
            deadline = time.monotonic() + HANG_S
            while time.monotonic() < deadline:
                again = screen(session)
                prompt = re.search(r"^(gestures|paralyse)>", again, re.MULTILINE)
                after = (re.search(r"Turn (\d+)", again) or [""])[0], prompt.group(1) if prompt else ""
                if "match over" in again or (prompt and after != before):
                    break
                time.sleep(0.05)
        else:
            time.sleep(0.05)
    return turns


def test_a_whole_duel_in_a_real_terminal(tmp_path: Path) -> None:
    session = f"p2pg-{os.getpid()}"
    transcript = tmp_path / "duel.p2pt"
    env = f"P2PGENIUS_HOME={tmp_path / 'host-home'} TERM=xterm-256color"
    command = f"{env} {BIN} host duel --port 0 --fast --seat 0 --name ann --transcript {transcript}"
    tmux("new-session", "-d", "-s", session, "-x", "140", "-y", "45", command)
    tmux("set-option", "-t", session, "remain-on-exit", "on")
    guest = None
    try:
        port = wait_for(session, r"listening on 127\.0\.0\.1:(\d+)").group(1)
        shown = screen(session)
        assert "check that they see your fingerprint" in shown
        assert "\np2pgenius://" in shown  # the invite, across the screen: alone on its row
        assert "│p2pgenius://" not in shown, "not in the board's box, beside the log"
        guest = subprocess.Popen(
            [str(BIN), "join", f"127.0.0.1:{port}", "--bot", "random", "--name", "bob"],
            env={**os.environ, "P2PGENIUS_HOME": str(tmp_path / "guest-home")},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        wait_for(session, r"Turn 1")
        turns = play_by_hand(session)
        final = wait_for(session, r"match over: (.+?)\. Ctrl-Q leaves").group(1)
        assert turns >= 1
        assert "casts" in screen(session) or "stab" in screen(session)
        tmux("send-keys", "-t", session, "C-q")
        result = wait_for(session, r"result: (.+)").group(1)
        # The screen said it to ann (p0); the command line says who won, by name.
        said = {"you win": "(p0) wins", "you lose": "(p1) wins", "a draw": "a draw"}
        assert said[final.split(" (")[0]] in result
        assert guest.wait(timeout=HANG_S) == 0
        assert verify(transcript.read_bytes()).ok
        # The terminal is left clean: the shell's output is plain lines again.
        assert "transcript: " in screen(session)
    finally:
        tmux("kill-server")
        if guest is not None and guest.poll() is None:
            guest.kill()


def test_leaving_the_waiting_screen_is_no_error(tmp_path: Path) -> None:
    # Ctrl-Q twice before anyone joined: the person's own choice, said in a plain sentence, exit 0
    # (it was "error: the match did not start", exit 1).
    session = f"p2pw-{os.getpid()}"
    env = f"P2PGENIUS_HOME={tmp_path / 'home'} TERM=xterm-256color"
    command = f"{env} {BIN} host duel --port 0 --name ann; echo exit=$?; sleep 30"
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    try:
        wait_for(session, r"listening on 127\.0\.0\.1:\d+|check that they see your fingerprint")
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, r"Ctrl-Q again leaves")
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, r"exit=\d")
        shown = screen(session)
        assert "you left before the match began" in shown and "exit=0" in shown, shown
        assert "error:" not in shown, shown
    finally:
        tmux("kill-server")
