"""The command line as players run it: real processes on loopback, one killed with SIGKILL and
restarted with `p2pgenius resume`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pgenius.protocol.transcript import records, verify
from tests.patience import HANG_S


def spawn(home: Path, output: Path, *args: str) -> subprocess.Popen[str]:
    """Start p2pgenius with its output going to a file (a pipe nobody reads would block it)."""
    env = {**os.environ, "P2PGENIUS_HOME": str(home)}
    with output.open("w") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", *args],
            env=env,
            text=True,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def spawn_bot_host(home: Path, output: Path, transcript: Path) -> subprocess.Popen[str]:
    """``p2pgenius host duel`` with a bot, any free port, and a long grace period."""
    args = ["host", "duel", "--port", "0", "--bot", "--grace", "60", "--transcript", str(transcript)]
    return spawn(home, output, *args)


def listening_port(output: Path) -> int:
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        if match := re.search(r"listening on .*:(\d+)", output.read_text()):
            return int(match[1])
        time.sleep(0.01)
    raise AssertionError("the host never said where it listens")


def wait_for_words(output: Path, words: str) -> None:
    """Until a process's ``output`` has ``words`` in it (a hang fails after ``HANG_S``)."""
    deadline = time.monotonic() + HANG_S
    while words not in output.read_text():
        assert time.monotonic() < deadline, output.read_text()
        time.sleep(0.01)


def messages_in(path: Path) -> int:
    try:
        return sum(1 for r in records(path.read_bytes()) if r[0] == "msg")
    except Exception:
        return 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_host_and_join_with_bots_survive_a_sigkill_and_resume(tmp_path: Path) -> None:
    host_file, join_file = tmp_path / "host.p2pt", tmp_path / "join.p2pt"
    host_out, join_out, resume_out = (tmp_path / f"{n}.txt" for n in ("host", "join", "resume"))
    host = spawn_bot_host(tmp_path / "h", host_out, host_file)
    try:
        port = listening_port(host_out)
        joiner = spawn(
            tmp_path / "j",
            join_out,
            "join",
            f"127.0.0.1:{port}",
            "--bot",
            "--grace",
            "60",
            "--transcript",
            str(join_file),
        )
        deadline = time.monotonic() + HANG_S
        while messages_in(join_file) < 12 and joiner.poll() is None:
            assert time.monotonic() < deadline, (host_out.read_text(), join_out.read_text())
            time.sleep(0.005)
        assert joiner.poll() is None, "the duel ended before the crash point"
        if joiner.poll() is None:
            joiner.send_signal(signal.SIGKILL)
            joiner.wait()
            resumed = spawn(tmp_path / "j", resume_out, "resume", str(join_file), "--bot", "--grace", "60")
            assert resumed.wait(timeout=HANG_S) == 0, resume_out.read_text()
            assert "reconnected to the host" in resume_out.read_text()
        assert host.wait(timeout=HANG_S) == 0, host_out.read_text()
        assert "result:" in host_out.read_text()
    finally:
        host.kill()
    for path in (host_file, join_file):
        report = verify(path.read_bytes())
        assert report.ok, report.summary


def ipv6_loopback() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_a_match_over_ipv6(tmp_path: Path) -> None:
    host_out, join_out = tmp_path / "host.txt", tmp_path / "join.txt"
    host = spawn(
        tmp_path / "h",
        host_out,
        "host",
        "magic-square",
        "--bind",
        "::1",
        "--port",
        "0",
        "--bot",
        "heuristic",
        "--transcript",
        str(tmp_path / "h.p2pt"),
    )
    try:
        port = listening_port(host_out)
        assert "listening on [::1]:" in host_out.read_text()
        joiner = spawn(
            tmp_path / "j",
            join_out,
            "join",
            f"[::1]:{port}",
            "--bot",
            "random",
            "--transcript",
            str(tmp_path / "j.p2pt"),
        )
        assert joiner.wait(timeout=HANG_S) == 0, join_out.read_text()
        assert host.wait(timeout=HANG_S) == 0, host_out.read_text()
    finally:
        host.kill()
    assert verify((tmp_path / "j.p2pt").read_bytes()).ok


def test_a_spectator_watches_two_bot_processes_to_the_end_and_its_verdict_is_verifys(
    tmp_path: Path,
) -> None:
    # Three processes: a host that admits spectators, a spectator (text mode) and a joiner.
    host_file, watch_file = tmp_path / "host.p2pt", tmp_path / "watch.p2pt"
    outs = {name: tmp_path / f"{name}.txt" for name in ("host", "watch", "join")}
    host = spawn(
        tmp_path / "h",
        outs["host"],
        "host",
        "hornswoggle",
        "--port",
        "0",
        "--bot",
        "--spectators",
        "--transcript",
        str(host_file),
    )
    port = listening_port(outs["host"])
    spectator = spawn(
        tmp_path / "w", outs["watch"], "watch", f"127.0.0.1:{port}", "--text", "--transcript", str(watch_file)
    )
    wait_for_words(outs["host"], "is watching")  # in the lobby before the match starts
    joiner = spawn(tmp_path / "g", outs["join"], "join", f"127.0.0.1:{port}", "--bot")
    try:
        assert spectator.wait(HANG_S) == 0, outs["watch"].read_text()
        assert host.wait(HANG_S) == 0 and joiner.wait(HANG_S) == 0
    finally:
        for process in (host, spectator, joiner):
            process.kill()
    said = outs["watch"].read_text()
    assert "lobby" not in said and "seats by fair coin flip" in said  # it saw the deal and the moves
    truth, seen = verify(host_file.read_bytes()), verify(watch_file.read_bytes())
    assert truth.ok and seen.ok and seen.outcome == truth.outcome
    assert f"verified: {seen.summary}" in said
    assert "is watching" in outs["host"].read_text()


def test_a_match_still_played_by_one_process_cannot_be_taken_over_by_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A duel between two bot processes (each waits 30 s a move: it stays under way). In another terminal,
    # resume, by path or with no path, and a second host on the same transcript are refused, so
    # no second process ever signs for the seat (the host would have recorded an equivocation).
    from p2pgenius.cli.main import main
    from p2pgenius.net.files import Files

    home = tmp_path / "home"
    monkeypatch.setenv("P2PGENIUS_HOME", str(home))
    host_file, join_file = home / "matches" / "host.p2pt", home / "matches" / "join.p2pt"
    host_out, join_out = tmp_path / "host.txt", tmp_path / "join.txt"
    args = ["host", "duel", "--port", "0", "--bot", "random", "--pace", "30", "--transcript", str(host_file)]
    host = spawn(home, host_out, *args)
    try:
        port = listening_port(host_out)
        joiner = spawn(
            home,
            join_out,
            "join",
            f"127.0.0.1:{port}",
            "--bot",
            "random",
            "--pace",
            "30",
            "--transcript",
            str(join_file),
        )
        try:
            deadline = time.monotonic() + HANG_S
            while messages_in(join_file) < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert main(["resume", str(join_file), "--bot"]) == 2
            err = capsys.readouterr().err
            assert f"{join_file} is open in another p2pgenius process (process {joiner.pid})" in err, err
            assert main(["resume", "--bot"]) == 2
            err = capsys.readouterr().err
            assert (
                "every unfinished match is being played now, each in another p2pgenius process" in err
                and f"{join_file} (duel)" in err
                and "not being played now" not in err
            )
            assert main(["host", "duel", "--bot", "--port", "0", "--transcript", str(host_file)]) == 2
            assert (
                f"{host_file} is open in another p2pgenius process (process {host.pid})"
                in capsys.readouterr().err
            )
            assert joiner.poll() is None and host.poll() is None  # neither was disturbed
        finally:
            joiner.kill()
            joiner.wait()
    finally:
        host.kill()
        host.wait()
    # Once its process is gone, the match is no longer live: it is the one resume offers.
    assert Files(join_file, join_file.with_suffix(".secrets")).live() is False


def test_the_lock_is_per_file_a_copy_of_a_match_is_not_locked(tmp_path: Path) -> None:
    # The limit (docs/security.md), at its extent: one process a transcript file on this machine.
    # A copy of the files under another name (or on another machine, with the key copied too) is
    # another file: resuming it beside the original would put two processes on one seat.
    import shutil

    from p2pgenius.net.files import Files, MatchInUseError

    original = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")
    original.start(b"header")
    again = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")
    assert again.live()
    with pytest.raises(MatchInUseError, match="is open in another p2pgenius process"):
        again.lock()
    shutil.copy(tmp_path / "m.p2pt", tmp_path / "copy.p2pt")
    copy = Files(tmp_path / "copy.p2pt", tmp_path / "copy.secrets")
    assert not copy.live()
    copy.lock()  # (taken: nothing ties the copy to the original)
    original.release()
    assert not again.live()
    copy.release()
