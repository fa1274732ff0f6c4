"""Golden playthroughs: one seeded match of random legal play per game, written out step by step
(the seat, the action, the engine's events in words, a digest of the public state), so that any
change in what an engine does shows as a change in a file that people can read. OpenSpiel keeps
its games honest the same way.

``python -m tests.playthroughs`` writes them again (every game in the table, and the tests' own);
tests/test_every_game.py checks that they are unchanged.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Final

from p2pgenius.canonical import digest
from p2pgenius.games.registry import get_spec

HERE: Final = Path(__file__).parent
SEED: Final = 2026
MAX_STEPS: Final = 400


def playthrough(game: str) -> str:
    """The playthrough of ``game`` (it must be in the games' table)."""
    spec = get_spec(game)
    engine = spec.engine
    rng = random.Random(f"{SEED} {game}")
    state = engine.initial({}, {})
    lines = [f"game: {game} (rules version {spec.rules_version})", f"seed: {SEED}"]
    for step in range(1, MAX_STEPS + 1):
        if engine.outcome(state) is not None:
            break
        seat = rng.choice(engine.to_act(state))
        action = rng.choice(list(engine.legal_actions(state, seat)))
        before = engine.events(state)
        state = engine.apply(state, seat, action)
        plain = json.dumps(action.to_plain(), sort_keys=True, separators=(",", ":"))
        lines.append(f"{step}. p{seat} {plain}")
        if engine.events(state) is not before:
            lines += [f"   {spec.words(event)}" for event in engine.events(state)]
        lines.append(f"   public {digest(engine.public(state)).hex()[:16]}")
    outcome = engine.outcome(state)
    ending = "none yet" if outcome is None else json.dumps(outcome.to_plain(), sort_keys=True)
    return "\n".join([*lines, f"outcome: {ending}", ""])


def path_of(game: str) -> Path:
    return HERE / f"{game}.txt"


def stored(game: str) -> str:
    """The playthrough of ``game`` as written (empty if it never was)."""
    path = path_of(game)
    return path.read_text(encoding="utf-8") if path.exists() else ""
