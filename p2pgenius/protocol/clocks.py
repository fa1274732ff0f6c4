"""Which clock a decision runs on, and its budget (protocol/SPEC.md, "Time").

Pure functions of the terms and the game state: every peer computes the same clocks. The time a
decision took is what its author declares in the decision message (its own measure); the session
charges exactly that, so the clocks shown on every machine are a function of the transcript.
Nothing here reads a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from p2pgenius.games.duel.engine import TURN_SECONDS
from p2pgenius.games.hornswoggle.engine import DECISION_SECONDS
from p2pgenius.games.magic_square.engine import (
    CHALLENGE_SECONDS,
    ROUND_SECONDS,
    WARNINGS_S,
)

MS_WARNINGS: Final = WARNINGS_S
"""Seconds left on a Magic Square round clock at which its player is warned."""


@dataclass(frozen=True, slots=True)
class Period:
    """One clock: ``kind`` ("turn", "round", "challenge" or "decision"), ``key`` (which round,
    turn or stage it belongs to; time spent under one key adds up) and its whole budget."""

    kind: str
    key: int
    budget_ms: int


def period(
    game: str, options: Mapping[str, Any], state: Any, stage: int, seat: int, round_key: int
) -> Period:
    """The clock ``seat``'s decision at ``stage`` runs on. ``state`` may be None (a blinded duel
    peer does not know it; duel clocks do not need it). ``round_key``: the stage at which the
    current Magic Square round began (0 for the first round, so the first round's colouring, from
    the choice of who colours first, and its placements are charged to one clock)."""
    if game == "duel":
        return Period("turn", stage, 1000 * int(options.get("turn_seconds", TURN_SECONDS)))
    if game == "hornswoggle":
        return Period("decision", stage, 1000 * int(options.get("decision_seconds", DECISION_SECONDS)))
    if state.phase == "challenge" and seat == state.actor:
        return Period("challenge", stage, 1000 * int(options.get("challenge_seconds", CHALLENGE_SECONDS)))
    # Everything else, round 1's colouring included (it is a portion of the first round), runs on
    # the player's round clock.
    return Period("round", round_key, 1000 * int(options.get("round_seconds", ROUND_SECONDS)))
