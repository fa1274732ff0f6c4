"""One-line errors a new player met (issue 47's list): a file that is no transcript given to
resume, and a line opened in an empty record."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pgenius.cli.main import main


def test_resume_of_a_file_that_is_no_transcript_says_so_and_makes_nothing_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["resume", str(passwd), "--bot"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f"error: {passwd} is not a match's transcript: name the .p2pt file a match wrote "
        "(p2pgenius games lists them)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # (no .lock, no .secrets made)


def test_opening_a_line_of_an_empty_record_says_the_record_is_empty(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["history", "--open", "99"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == "error: --open 99: the record is empty (no match of this account to open yet)"
