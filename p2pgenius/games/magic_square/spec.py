"""The Magic Square as peers play it: public moves, a challenge window, round clocks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from p2pgenius.games.magic_square.engine import (
    CHALLENGE_SECONDS,
    MAGIC_SQUARE,
    ROUND_SECONDS,
    WARNINGS_S,
)
from p2pgenius.games.magic_square.notation import moves
from p2pgenius.games.magic_square.squares import index
from p2pgenius.games.magic_square.state import SquareEnding, SquareState
from p2pgenius.games.magic_square.words import ending, tally, words
from p2pgenius.games.spec import GameSpec, Period, RoundClock, TimeOption


class SquareRounds(RoundClock):
    """Each player's thinking time runs over a whole round."""

    warnings = WARNINGS_S

    def new_round(self, before: SquareState, after: SquareState) -> bool:
        """A round ended (or was voided) in between."""
        return after.last_round is not before.last_round


class MagicSquareSpec(GameSpec):
    """Two players; every move is public; after a placement the opponent may challenge."""

    name = "magic-square"
    title = "The Magic Square"
    rules_version = 2
    optional_types = ("challenge",)
    time_options = (
        TimeOption(
            "round_seconds", ROUND_SECONDS, "each player's thinking time per round", by_mail=16 * 86400
        ),
        TimeOption("challenge_seconds", CHALLENGE_SECONDS, "a challenged player's completion"),
    )
    endings = SquareEnding
    round_clock = SquareRounds()

    def period(
        self, options: Mapping[str, Any], state: SquareState, stage: int, seat: int, round_key: int
    ) -> Period:
        """A challenged player's completion has its own clock; everything else, round 1's
        colouring included, runs on the player's round clock."""
        if state.phase == "challenge" and seat == state.actor:
            seconds = options.get("challenge_seconds", CHALLENGE_SECONDS)
            return Period("challenge", stage, 1000 * int(seconds))
        return Period("round", round_key, 1000 * int(options.get("round_seconds", ROUND_SECONDS)))

    warm = staticmethod(index)  # the index of every magic square (about 40 ms to build)
    words = staticmethod(words)
    ending_words = staticmethod(ending)
    tally_words = staticmethod(tally)
    notation = staticmethod(moves)


MAGIC_SQUARE_SPEC: Final = MagicSquareSpec(MAGIC_SQUARE)
