"""Bot levels as players are told them: the games' table names each level and its rank, in the
bots' own order (the strongest, the default, first), and the command line says them."""

from __future__ import annotations

import pytest

from p2pgenius.bots.registry import described, level_of, level_words, levels
from p2pgenius.cli.main import main
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.catalog import GAMES, RANKS


@pytest.mark.parametrize("game", [entry.name for entry in GAMES])
def test_the_table_words_every_level_of_the_bots_in_their_order(game: str) -> None:
    told = described(game)
    assert tuple(level.name for level in told) == levels(game), "the table and the bots agree"
    assert all(level.rank in RANKS and level.what for level in told)
    assert told[0].rank == "strongest" and [level.rank for level in told].count("strongest") == 1
    assert told[-1].name == "random" and told[-1].rank == "beginner"
    ranks = [RANKS.index(level.rank) for level in told]
    assert ranks == sorted(ranks), "strongest first, beginner last"
    assert level_words(game, None) == f"{told[0].name} (strongest)"


@pytest.mark.parametrize("command", ["host", "join", "resume"])
def test_the_bot_option_says_what_each_level_is(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for entry in GAMES:
        told = ", ".join(str(level) for level in entry.described)
        assert f"{entry.name}: {told}" in text


def test_an_unknown_level_is_refused_with_every_level_in_words() -> None:
    wanted = r"no bot level 'x' for duel \(choose: \w+ \(strongest\), .*random \(beginner\)\)"
    with pytest.raises(LocalMisuseError, match=wanted):
        level_of("duel", "x")


@pytest.mark.real_default_level
@pytest.mark.parametrize("game", [entry.name for entry in GAMES])
def test_no_level_is_the_strongest(game: str) -> None:
    from p2pgenius.bots import make_bot

    assert make_bot(game, None, seed=1).level == described(game)[0].name
