"""`p2pgenius rules GAME` prints the rule book of docs/rules/."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.games.catalog import names

DOCS = Path(__file__).parents[1] / "docs" / "rules"


@pytest.mark.parametrize("game", names())
def test_rules_prints_the_rule_book(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", game]) == 0
    assert capsys.readouterr().out == (DOCS / f"{game}.md").read_text(encoding="utf-8")


def test_an_unknown_game_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["rules", "chess"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
