"""A match's result is one typed value (``Outcome``: who won, how, of the game's closed set of
endings) that travels, is hashed and signed in the plain form it always had, and that each game's
spec words: for the record, an onlooker, the person at the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.games.base import Outcome
from p2pgenius.games.duel.state import DuelEnding
from p2pgenius.games.hornswoggle.state import HornEnding
from p2pgenius.games.registry import get_spec, names
from p2pgenius.protocol.transcript import verify

VECTORS = Path(__file__).parents[1] / "protocol" / "vectors"
HORN = {
    "winning_seats": [1, 3],
    "garnet_transfer": {"from": 2, "to": 1, "amount": 2},
    "winner": 3,
    "reason": "team_eliminated",
}
"""A Hornswoggle result, its fields in the order its engine writes them."""


@pytest.mark.parametrize("game", names())
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


NAMES = {0: "ann", 1: "bob"}
FOUR = {0: "ann", 1: "bob", 2: "cy", 3: "di"}
PAIRS = {0: "ann", 1: "bob", 2: "ann", 3: "bob"}
DUEL_WON = {"winner": 1, "reason": "power_word_kill"}
DRAW = {"winner": None, "reason": "draw"}
SQUARE = {"round_wins": [1, 2], "winner": 1, "reason": "round_wins"}
BRIEF: dict[str, Any] = {"brief": True}
WORDED: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    # (game, the plain form, to whom: names, mine, brief) -> the words
    ("duel", DUEL_WON, {}, "p1 wins (power word kill)"),
    ("duel", DUEL_WON, BRIEF, "p1 wins (power word kill)"),
    ("duel", DUEL_WON, {"names": NAMES}, "bob (p1) wins (power word kill)"),
    ("duel", DUEL_WON, {"names": NAMES, "mine": (1,)}, "you win (Power Word Kill killed ann (p0))"),
    ("duel", DUEL_WON, {"names": NAMES, "mine": (0,)}, "you lose (Power Word Kill killed you)"),
    ("duel", DUEL_WON, {"names": NAMES, "mine": ()}, "bob (p1) wins (power word kill)"),
    ("duel", DRAW, {}, "a draw (draw)"),
    ("duel", DRAW, {"names": NAMES}, "a draw (draw)"),
    (
        "duel",
        DRAW,
        {"names": NAMES, "mine": (0,)},
        "a draw (both surrendered, or both fell to Power Word Kill)",
    ),
    ("magic-square", SQUARE, {}, "p1 wins (round wins 2-1)"),  # (the winner's count first)
    ("magic-square", SQUARE, BRIEF, "p1 wins (round wins)"),
    ("magic-square", SQUARE, {"names": NAMES}, "bob (p1) wins, 2-1 in rounds"),
    ("magic-square", SQUARE, {"names": NAMES, "mine": (0,)}, "you lose, 1-2 in rounds"),
    ("hornswoggle", HORN, {}, "p1 and p3 win (team eliminated)"),
    ("hornswoggle", HORN, BRIEF, "p3 wins (team eliminated)"),
    ("hornswoggle", HORN, {"names": FOUR}, "bob (p1) and di (p3) win (team eliminated)"),
    ("hornswoggle", HORN, {"names": PAIRS}, "bob (p1/p3) wins (team eliminated)"),
    (
        "hornswoggle",
        HORN,
        {"names": FOUR, "mine": (1,)},
        "your team wins (ann (p0) and cy (p2) are out of cards)",
    ),
    (
        "hornswoggle",
        {**HORN, "reason": "audit_failed"},
        {"names": FOUR, "mine": (0, 2)},
        "your team loses (your team failed the end-of-match audit)",
    ),
]


@pytest.mark.parametrize(("game", "plain", "told", "words"), WORDED)
def test_each_game_words_its_results_for_the_record_an_onlooker_and_the_person_at_the_table(
    game: str, plain: dict[str, Any], told: dict[str, Any], words: str
) -> None:
    spec = get_spec(game)
    assert spec.outcome_words(spec.read_outcome(plain), **told) == words


def test_the_record_says_how_a_match_ended_in_the_games_words() -> None:
    square = get_spec("magic-square")
    assert square.ending_words(
        square.read_outcome({"round_wins": [2, 0], "winner": 0, "reason": "round_wins"})
    ) == ("round wins 2-0")
    duel = get_spec("duel")
    assert (
        duel.ending_words(duel.read_outcome({"winner": 0, "reason": "power_word_kill"})) == "power word kill"
    )
