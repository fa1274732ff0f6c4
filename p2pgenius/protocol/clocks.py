"""Which clock a decision runs on, and its budget (protocol/SPEC.md, "Time").

Pure functions of the terms and the game state: every peer computes the same clocks. The time a
decision took is what its author declares in the decision message (its own measure); the session
charges exactly that, so the clocks shown on every machine are a function of the transcript.
Nothing here reads a clock. Each game's spec says which clock its decisions run on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pgenius.games.registry import get_spec
from p2pgenius.games.spec import Period

__all__ = ["Period", "period"]


def period(
    game: str, options: Mapping[str, Any], state: Any, stage: int, seat: int, round_key: int
) -> Period:
    """The clock ``seat``'s decision at ``stage`` runs on. ``state`` may be None (a blinded duel
    peer does not know it; duel clocks do not need it). ``round_key``: the stage at which the
    current round began (0 for the first round, so a first round's colouring and its placements
    are charged to one clock)."""
    return get_spec(game).period(options, state, stage, seat, round_key)
