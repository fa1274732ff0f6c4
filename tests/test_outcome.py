"""A match's result is one typed value (``Outcome``: who won, how, of the game's closed set of
endings) that travels, is hashed and signed in the plain form it always had."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.games.base import Outcome
from p2pgenius.games.duel.state import DuelEnding
from p2pgenius.games.hornswoggle.state import HornEnding
from p2pgenius.games.registry import get_spec
from p2pgenius.protocol.transcript import verify

VECTORS = Path(__file__).parents[1] / "protocol" / "vectors"
HORN = {
    "winning_seats": [1, 3],
    "garnet_transfer": {"from": 2, "to": 1, "amount": 2},
    "winner": 3,
    "reason": "team_eliminated",
}
"""A Hornswoggle result, its fields in the order its engine writes them."""


@pytest.mark.parametrize("game", ["duel", "magic-square", "hornswoggle"])
def test_an_outcome_read_from_a_transcript_gives_back_the_very_bytes_it_was_read_from(game: str) -> None:
    report = verify((VECTORS / f"transcript-{game}.p2pt").read_bytes())
    assert report.ok and report.outcome is not None
    outcome = get_spec(game).read_outcome(report.outcome)
    assert encode(outcome.to_plain()) == encode(report.outcome)
    assert list(outcome.to_plain()) == list(report.outcome)  # (and in order: JSON shows it so)
    assert outcome.winners == report.winners


def test_a_team_wins_as_every_seat_of_it_and_is_named_by_the_seat_its_rules_name() -> None:
    outcome = get_spec("hornswoggle").read_outcome(HORN)
    assert outcome == Outcome(
        3, HornEnding.TEAM_ELIMINATED, team=(1, 3), details={"garnet_transfer": HORN["garnet_transfer"]}
    )
    assert outcome.winners == (1, 3) and outcome.reason == "team_eliminated"
    assert list(outcome.to_plain()) == list(HORN) and outcome.to_plain() == HORN
    assert Outcome(None, DuelEnding.DRAW).winners == () and Outcome(1, DuelEnding.DRAW).winners == (1,)


@pytest.mark.parametrize(
    ("plain", "why"),
    [
        ({"winner": 0, "reason": "round_wins"}, "'round_wins' is not how a match of this game ends"),
        ({"winner": 0}, "None is not how"),
        ({"winner": True, "reason": "surrender"}, "a seat or null, not True"),
        ({"reason": "surrender"}, "a seat or null"),
        ({"winner": 0, "reason": "surrender", "winning_seats": []}, "a list of seats"),
        ({"winner": 0, "reason": "surrender", "winning_seats": [1, 3]}, "not of the winning team"),
    ],
)
def test_what_is_no_outcome_of_the_game_is_refused(plain: dict[str, Any], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        get_spec("duel").read_outcome(plain)


def test_an_outcome_is_made_of_its_games_endings_and_its_own_fields_only() -> None:
    with pytest.raises(TypeError, match="one of its game's endings"):
        Outcome(0, "surrender")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot hold 'winner'"):
        Outcome(0, DuelEnding.SURRENDER, details={"winner": 1})
