"""One-line errors a new player met (issue 47's list): a file that is no transcript given to
resume, and a line opened in an empty record."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from p2pgenius.cli.join import pick
from p2pgenius.cli.main import main
from p2pgenius.cli.play import Printer


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


def test_the_challenge_says_its_price_before_it_is_sent() -> None:
    # A challenge that fails loses the round: the question before it says so.
    from p2pgenius.ui.frontends.magic_square import PLAIN_MOVES

    action, confirm = PLAIN_MOVES["challenge"]
    assert action == {"type": "challenge"}
    assert confirm.endswith("if the square can still be completed, you lose the round")


def test_a_magic_square_result_reads_winner_first() -> None:
    from p2pgenius.games.registry import get_spec

    spec = get_spec("magic-square")
    won_by_p1 = spec.read_outcome({"winner": 1, "reason": "round_wins", "round_wins": [1, 2]})
    assert spec.outcome_words(won_by_p1) == "p1 wins (round wins 2-1)"


def test_escape_closes_a_pane_without_a_wait_a_player_feels() -> None:
    # Esc took about a second to close the help: prompt_toolkit's default wait to tell Esc from
    # an escape sequence. The table's and the replay's screens wait a tenth of that.
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2pgenius.ui.app import build
    from p2pgenius.ui.table import TableScreen

    with create_pipe_input() as given:
        app = build(TableScreen(ascii_only=True), input=given, output=DummyOutput())
        assert app.ttimeoutlen is not None and app.ttimeoutlen <= 0.1


def test_joins_question_of_which_match_asks_again_at_a_digit_that_is_no_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "²" is a digit to str.isdigit, and int("²") raised ValueError: a traceback at a question.
    monkeypatch.setattr("sys.stdin", io.StringIO("²\n٣\n2\n"))
    out = io.StringIO()
    assert pick(3, Printer(out, moves=False)) == 2
    assert out.getvalue().count("a number from 1 to 3, please") == 2
