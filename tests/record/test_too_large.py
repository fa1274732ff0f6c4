"""What is read is bounded before it is checked: a file in ``matches/`` larger than a transcript may
be (a 2 GiB sparse file costs no disk) is listed by ``history`` as too large without being read,
the other matches as before; ``verify``, ``replay``, ``export`` and ``resume`` refuse it in one
line; a bundle is bounded too, and so is each transcript in it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.cli.main import main
from p2pgenius.local_files import TRANSCRIPT_LIMIT_BYTES, TooLargeError, read_within
from p2pgenius.record import bundle
from p2pgenius.record.matches import FINISHED, UNREADABLE

HUGE = 2 * 2**30
TOLD = f"too large: {HUGE} bytes; a transcript is at most {TRANSCRIPT_LIMIT_BYTES} bytes (64 MiB)"


def sparse(path: Path, size: int, head: bytes = b"") -> Path:
    """A file of ``size`` bytes that takes no room on disk (``head``, then a hole)."""
    with path.open("wb") as handle:
        handle.write(head)
        handle.truncate(size)
    return path


class Counted:
    """A file handle that counts what is read through it."""

    def __init__(self, handle: Any, size: int, reads: dict[int, int]) -> None:
        self.handle, self.size, self.reads = handle, size, reads

    def __enter__(self) -> Counted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def read(self, size: int = -1) -> bytes:
        data: bytes = self.handle.read(size)
        self.reads[self.size] = self.reads.get(self.size, 0) + len(data)
        return data


def count_reads(monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """Bytes read through :func:`read_within` (and any other reader that uses ``os.fdopen``),
    by the size of the file read."""
    reads: dict[int, int] = {}
    real = os.fdopen

    def fdopen(descriptor: int, *args: Any, **kwargs: Any) -> Counted:
        return Counted(real(descriptor, *args, **kwargs), os.fstat(descriptor).st_size, reads)

    monkeypatch.setattr(os, "fdopen", fdopen)
    return reads


def listed(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    assert main(["history", "--json"]) == 0
    return {Path(m["path"]).name: m for m in json.loads(capsys.readouterr().out)["matches"]}


def test_history_lists_a_huge_file_as_too_large_without_reading_it_and_the_others_as_before(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = listed(capsys)
    (home.parent / "history.sqlite").unlink()  # (read everything again, the huge file with it)
    huge = sparse(home / "20261201-170000-000000-duel-host.p2pt", HUGE)
    reads = count_reads(monkeypatch)
    after = listed(capsys)
    assert reads.get(HUGE, 0) == 0, "not one byte of it was read: its size told"
    assert after[huge.name]["kind"] == UNREADABLE and after[huge.name]["problem"] == TOLD
    assert {name: line for name, line in after.items() if name != huge.name} == before
    assert sum(1 for line in after.values() if line["kind"] == FINISHED) >= 5
    assert main(["history"]) == 0
    assert f"{huge.name}: {TOLD}" in capsys.readouterr().out


def test_a_file_that_grows_past_the_limit_is_read_no_further(tmp_path: Path) -> None:
    # The size said first cannot be trusted to last (a file that grows meanwhile, a pipe, a
    # device): at most one byte more than the limit is read.
    reader, writer = os.pipe()
    os.write(writer, b"x" * 5000)
    os.close(writer)
    with pytest.raises(TooLargeError, match="too large: more than 1000 bytes; a transcript is at most 1000"):
        read_within(f"/dev/fd/{reader}", 1000)
    assert len(os.read(reader, 10_000)) == 5000 - 1001, "the rest was left unread"
    os.close(reader)
    assert read_within(sparse(tmp_path / "small", 1000), 1000) == bytes(1000)


@pytest.mark.parametrize("command", ["verify", "replay", "export"])
def test_verify_replay_and_export_refuse_a_huge_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    huge = sparse(tmp_path / "huge.p2pt", HUGE)
    assert main([command, str(huge)]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {huge}: {TOLD}\n"


def test_a_bundle_may_be_larger_than_a_transcript_but_is_bounded_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What the file is comes from its first bytes: a bundle's limit for a bundle, a transcript's
    # for anything else (neither read whole to find it out).
    beyond = TRANSCRIPT_LIMIT_BYTES + 1
    assert main(["verify", str(sparse(tmp_path / "big.p2pt", beyond))]) == 1
    assert f"a transcript is at most {TRANSCRIPT_LIMIT_BYTES} bytes" in capsys.readouterr().err
    head = bundle.write([("a.p2pt", b"x")])
    assert main(["verify", str(sparse(tmp_path / "huge.bundle", HUGE, head))]) == 1
    err = capsys.readouterr().err
    assert f"too large: {HUGE} bytes; a bundle is at most {bundle.BUNDLE_LIMIT_BYTES} bytes (256 MiB)" in err


def test_a_transcript_too_large_inside_a_bundle_proves_nothing_and_is_not_verified(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    made = tmp_path / "record.bundle"
    assert main(["export", "--bundle", str(made)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(bundle, "TRANSCRIPT_LIMIT_BYTES", 1000)  # (each of them is larger)
    assert main(["verify", str(made)]) == 1
    out = capsys.readouterr().out
    count = int(out.split()[2])  # ("bundle of N transcripts: ...")
    assert f"bundle of {count} transcripts: 0 verify as proven results" in out and count >= 5
    assert out.count("does not prove a result: too large: ") == count


def test_a_bundle_too_large_to_read_is_not_written(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle, "BUNDLE_LIMIT_BYTES", 20_000)
    made = tmp_path / "record.bundle"
    assert main(["export", "--bundle", str(made)]) == 1
    assert "the bundle would be more than 20000 bytes" in capsys.readouterr().err
    assert not made.exists()


def test_resume_refuses_a_huge_transcript_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path / "home"))
    huge = sparse(tmp_path / "m.p2pt", HUGE)
    (tmp_path / "m.secrets").write_bytes(b"")
    assert main(["resume", str(huge), "--bot"]) == 1
    assert capsys.readouterr().err == f"error: cannot resume {huge}: {TOLD}\n"
