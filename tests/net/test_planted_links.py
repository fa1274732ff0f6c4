"""Links and files planted where p2pgenius writes are refused, and nothing is written through them
(docs/security.md, "Local files"): beside a match's transcript (``host --transcript DIR/m.p2pt``
in a folder others can write to) and in the config directory. Each attack plants a symbolic link
to a file outside (the victim) and runs the real command; the victim stays as it was, the error is
one line naming the path, and the invite, which carries the seat token, is private (0600)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.inmemory import play, transcript
from p2pgenius.local_files import UnsafeFileError, open_own
from p2pgenius.net import keystore
from p2pgenius.net.files import Files
from tests.net.test_processes import listening_port, spawn
from tests.patience import HANG_S

OWN_WORDS = "the victim's own file: nobody may write it but its owner\n"


def victim(tmp_path: Path) -> Path:
    """A file outside the folders p2pgenius writes, that a planted link points at."""
    path = tmp_path / "victim"
    path.write_text(OWN_WORDS, encoding="utf-8")
    return path


def refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run the command; it must fail with exit 1 and one line of error, no traceback."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def refused_process(home: Path, argv: list[str]) -> str:
    """Run ``p2pgenius`` in a process of its own (a command that is not refused would go on to
    listen or connect: it times out instead of hanging the suite); as :func:`refused`."""
    done = subprocess.run(
        [sys.executable, "-m", "p2pgenius", *argv],
        env={**os.environ, "P2PGENIUS_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


@pytest.mark.parametrize(
    ("command", "planted"),
    [
        *[("host", name) for name in ["m.p2pt.lock", "m.invite", "m.p2pt", "m.secrets", "m.p2pt.stage"]],
        ("join", "m.p2pt.lock"),
        ("join", "m.secrets"),
        ("watch", "m.p2pt"),
    ],
)
@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "to-nothing-yet"])
def test_a_link_planted_beside_the_transcript_is_refused_before_anything_is_written(
    tmp_path: Path, command: str, planted: str, dangling: bool
) -> None:
    folder = tmp_path / "DIR"  # (a folder others can write to, as /tmp is)
    folder.mkdir()
    target = tmp_path / "not-there-yet" if dangling else victim(tmp_path)
    (folder / planted).symlink_to(target)
    argv = {
        "host": ["host", "duel", "--bot", "--port", "0"],
        "join": ["join", "127.0.0.1:9", "--bot"],  # (refused before it plays: nothing listens there)
        "watch": ["watch", "127.0.0.1:9", "--text"],
    }[command]
    err = refused_process(tmp_path / "home", [*argv, "--transcript", str(folder / "m.p2pt")])
    assert f"error: {folder / planted} is a symbolic link: p2pgenius does not follow one" in err
    if dangling:
        assert not target.exists(), "the link's target was not made"
    else:
        assert target.read_text(encoding="utf-8") == OWN_WORDS
    assert [p.name for p in folder.iterdir()] == [planted], "nothing else was made"


def invite_of(path: Path, other_than: str) -> str:
    """The invite file's text once a host has written one (other than ``other_than``)."""
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if text.startswith("p2pgenius join p2pgenius://") and text != other_than:
            return text
        time.sleep(0.02)
    raise AssertionError("the host never wrote its invite")


def test_the_invite_is_private_and_a_host_restarted_on_the_path_replaces_it(tmp_path: Path) -> None:
    # The first host is killed (its lock file stays behind, stale, and must be taken over); the
    # second, on the same transcript path, writes its own invite over the first. An invite an
    # older p2pgenius left readable by everyone is replaced by a private one.
    folder = tmp_path / "DIR"
    folder.mkdir()
    invite, lock = folder / "m.invite", folder / "m.p2pt.lock"
    invite.write_text("p2pgenius join p2pgenius://an-old-one\n", encoding="utf-8")
    invite.chmod(0o644)
    seen = invite.read_text(encoding="utf-8")
    for run in range(2):
        out = tmp_path / f"host-{run}.txt"
        argv = ["host", "duel", "--bot", "--port", "0", "--transcript", str(folder / "m.p2pt")]
        host = spawn(tmp_path / "home", out, *argv)
        try:
            listening_port(out)
            text = invite_of(invite, other_than=seen)
        finally:
            host.kill()  # (SIGKILL: nothing is cleaned up)
            host.wait()
        assert stat.S_IMODE(invite.stat().st_mode) == 0o600, "the seat token is for the invited alone"
        assert f"  {text.strip()}" in out.read_text(), "the file holds the invite the host showed"
        assert lock.exists(), "the killed host's lock file is left behind"
        seen = text
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == [], "no temporary file left"


@pytest.mark.parametrize("planted", ["m.p2pt", "m.secrets"])
def test_resume_refuses_match_files_that_are_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], planted: str
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path / "home"))
    folder = tmp_path / "DIR"
    folder.mkdir()
    data = transcript(play("duel", seed=3, setup={"hp": [3, 3]}), 0)
    (folder / "m.p2pt").write_bytes(data)
    (folder / "m.secrets").write_bytes(b"")
    outside = tmp_path / "victim"
    outside.write_bytes((folder / planted).read_bytes())
    (folder / planted).unlink()
    (folder / planted).symlink_to(outside)
    err = refused(capsys, ["resume", str(folder / "m.p2pt"), "--bot"])
    assert f"{folder / planted} is a symbolic link" in err
    assert outside.read_bytes() == (data if planted == "m.p2pt" else b"")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_resume_refuses_another_users_match_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path / "home"))
    (tmp_path / "m.p2pt").write_bytes(transcript(play("duel", seed=3, setup={"hp": [3, 3]}), 0))
    (tmp_path / "m.secrets").write_bytes(b"")
    os.chown(tmp_path / "m.secrets", 4242, 4242)
    err = refused(capsys, ["resume", str(tmp_path / "m.p2pt"), "--bot"])
    assert f"{tmp_path / 'm.secrets'} belongs to another user (uid 4242)" in err


def test_a_mistyped_resume_path_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path / "home"))
    assert main(["resume", str(tmp_path / "typo" / "m.p2pt"), "--bot"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert not (tmp_path / "typo").exists(), "no folder, no lock file made for a match that is not there"


def test_a_missing_folder_for_the_match_is_made_private(tmp_path: Path) -> None:
    files = Files(tmp_path / "new" / "m.p2pt", tmp_path / "new" / "m.secrets")
    files.lock()
    files.release()
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700


def test_a_stale_lock_is_taken_over(tmp_path: Path) -> None:
    files = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")
    files.lock_path.write_text("99999999\n", encoding="ascii")  # (a process that was killed)
    files.lock()
    assert files.lock_path.read_text(encoding="ascii") == f"{os.getpid()}\n"
    files.release()


def test_a_link_planted_while_the_match_is_on_is_not_written_through(tmp_path: Path) -> None:
    # Past the checks made before the match: each file is still opened refusing a link, and the
    # ones written whole are renamed into place (a rename replaces a link, never follows it).
    target = victim(tmp_path)
    files = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")
    files.lock()
    files.transcript.symlink_to(target)
    with pytest.raises(UnsafeFileError, match="is a symbolic link"):
        files.start(b"header")
    files.transcript.unlink()
    files.start(b"header")
    files.close()
    files.secrets.unlink()
    files.secrets.symlink_to(target)
    with pytest.raises(UnsafeFileError, match="is a symbolic link"):
        files.append(files.secrets, [b"a nonce"])
    files.stage_note.symlink_to(target)
    files.note_stage(3, 1234.5)  # (best effort: left unwritten)
    assert files.stage_began() is None
    files.release()
    assert target.read_text(encoding="utf-8") == OWN_WORDS
    assert stat.S_IMODE(os.stat(files.lock_path).st_mode) == 0o600


def test_a_hard_link_planted_at_a_file_written_in_place_is_refused(tmp_path: Path) -> None:
    # A hard link is a file of the victim's own (same owner, a regular file): its other name is
    # what gives it away. Taking the lock would have emptied the victim.
    target = victim(tmp_path)
    files = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")
    os.link(target, files.lock_path)
    with pytest.raises(UnsafeFileError, match="has other names"):
        files.lock()
    assert target.read_text(encoding="utf-8") == OWN_WORDS


def test_a_planted_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "m.p2pt.lock"
    os.mkfifo(fifo)
    for flags in (os.O_WRONLY, os.O_RDWR, os.O_RDONLY):
        with pytest.raises(UnsafeFileError, match="is not a regular file"):
            open_own(fifo, flags)
    with pytest.raises(UnsafeFileError, match="is not a regular file"):
        Files(tmp_path / "m.p2pt", tmp_path / "m.secrets").lock()


@pytest.mark.parametrize("planted", ["identity.key", ".lock", "known_peers", "history.sqlite"])
def test_a_link_planted_in_the_config_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], planted: str
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("P2PGENIUS_HOME", str(home))
    assert main(["id"]) == 0  # (the key made, and the pins' file by a pin)
    keystore.trust("ann", bytes(range(32)), home)
    capsys.readouterr()
    target = victim(tmp_path)
    target.chmod(0o600)  # (so that the key's own mode check cannot be what refuses it)
    (home / planted).unlink(missing_ok=True)
    (home / planted).symlink_to(target)
    if planted == "known_peers":  # (read and written when a match admits a new player)
        with pytest.raises(UnsafeFileError, match="is a symbolic link"):
            keystore.trust("bob", bytes(range(1, 33)), home)
    else:
        err = refused(capsys, ["history"] if planted == "history.sqlite" else ["id"])
        assert f"{home / planted} is a symbolic link" in err
    assert target.read_text(encoding="utf-8") == OWN_WORDS


def test_the_config_directorys_files_are_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("P2PGENIUS_HOME", str(home))
    assert main(["id"]) == 0 and main(["history"]) == 0
    keystore.trust("ann", bytes(range(32)), home)
    for name in ("identity.key", "known_peers", ".lock", "history.sqlite"):
        assert stat.S_IMODE((home / name).stat().st_mode) == 0o600, name
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
