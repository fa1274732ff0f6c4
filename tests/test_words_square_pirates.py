"""The Magic Square's and Hornswoggle's events in words: a seat that acts on itself is said so
("flips its own card", "chooses to colour first"), counts agree with their nouns, a challenger is
told what it must still do, and a round decided by the scores says who won it and by how much."""

from __future__ import annotations

from typing import Any

import pytest

from p2pgenius.games.hornswoggle.words import words as horn_words
from p2pgenius.games.magic_square.words import words as square_words
from p2pgenius.ui.lines import namer

NAMES = namer({0: "Alice", 1: "Dora", 2: "Alice", 3: "Dora"})


@pytest.mark.parametrize(
    ("event", "said"),
    [
        # The flipper's own pile: not "Alice (p0) flips Alice (p0)'s card".
        (
            {"type": "flip", "seat": 0, "pile": 0, "card": "doubloon"},
            "Alice (p0) flips its own card: a doubloon",
        ),
        (
            {"type": "flip", "seat": 0, "pile": 1, "card": "skull"},
            "Alice (p0) flips Dora (p1)'s card: a skull",
        ),
        # The challenger has not succeeded yet: it must flip that many.
        (
            {"type": "challenger", "seat": 1, "count": 4},
            "Dora (p1) is the challenger: it must flip 4 doubloons without meeting a skull",
        ),
        (
            {"type": "challenger", "seat": 1, "count": 1},
            "Dora (p1) is the challenger: it must flip 1 doubloon without meeting a skull",
        ),
        (
            {"type": "bid", "seat": 2, "count": 1, "first": True},
            "Alice (p2) starts the challenge with a bid of 1",
        ),
        (
            {"type": "settled", "seat": 3, "success": True, "count": 1, "owing": [0], "insured": False},
            "Dora (p3) flips 1 doubloon: success! each opponent discards a card",
        ),
        # The Death Match Opponent picking itself.
        ({"type": "order", "seat": 1, "first": 1}, "Dora (p1) (Death Match Opponent) picks itself to start"),
        (
            {"type": "order", "seat": 1, "first": 0},
            "Dora (p1) (Death Match Opponent) picks Alice (p0) to start",
        ),
    ],
)
def test_hornswoggle_says_what_happened_in_plain_words(event: dict[str, Any], said: str) -> None:
    assert horn_words(event, NAMES) == said


@pytest.mark.parametrize(
    ("event", "said"),
    [
        (
            {"type": "colour_order", "seat": 1, "first": 1},
            "Dora (p1) (Death Match Opponent) chooses to colour first",
        ),
        (
            {"type": "colour_order", "seat": 1, "first": 0},
            "Dora (p1) (Death Match Opponent) lets Alice (p0) colour first",
        ),
        ({"type": "lead", "seat": 0, "first": 0}, "Alice (p0) (Lead Player) chooses to place first"),
        ({"type": "lead", "seat": 0, "first": 1}, "Alice (p0) (Lead Player) has Dora (p1) place first"),
    ],
)
def test_the_magic_square_says_a_chooser_that_picks_itself_chooses(event: dict[str, Any], said: str) -> None:
    assert square_words(event, NAMES) == said


def test_a_round_won_on_score_says_who_won_it_and_puts_the_winners_score_first() -> None:
    event = {
        "type": "round_end",
        "how": "scores",
        "winner": 1,
        "reason": "score",
        "scores": [55, 81],
        "grid": [1] * 16,
        "round": 3,
    }
    said = square_words(event, NAMES)
    assert (
        said
        == "all 16 placed and the square is magic: Dora (p1) wins round 3 on score, 81 to Alice (p0)'s 55"
    )
    tie = square_words({**event, "winner": None, "reason": "tie_replay", "scores": [68, 68]}, NAMES)
    assert tie == "all 16 placed and the square is magic, but the scores tie 68-68: the round is void"
