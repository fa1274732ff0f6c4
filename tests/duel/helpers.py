"""Compact notation for duel scenarios.

A turn of one wizard is a two-letter string, left hand then right (``"S-"``: left snaps, right does
nothing), or a full action dict. ``cast("DSPSD")`` spells a sequence on the left hand, with both
hands clapping where it has a C.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.state import DuelState

Move = str | dict[str, Any]


def g(gestures: str, **extra: Any) -> dict[str, Any]:
    """A gestures action from "LR" plus optional targets/spells/monsters."""
    assert len(gestures) == 2, gestures
    return {"type": "gestures", "left": gestures[0], "right": gestures[1], **extra}


def cast(sequence: str, hand: str = "left") -> list[Move]:
    """Turns that make ``sequence`` with one hand (the other idle except for claps)."""
    turns: list[Move] = []
    for gesture in sequence:
        if gesture == "C":
            turns.append("CC")
        else:
            turns.append(gesture + "-" if hand == "left" else "-" + gesture)
    return turns


def idle(n: int) -> list[Move]:
    """n turns of doing nothing with either hand."""
    return ["--"] * n


def action(move: Move) -> Any:
    """The parsed action for a move."""
    return DUEL.parse_action(g(move) if isinstance(move, str) else move)


def play(
    p0: Sequence[Move],
    p1: Sequence[Move],
    *,
    setup: dict[str, Any] | None = None,
    state: DuelState | None = None,
) -> list[DuelState]:
    """Play both wizards' moves turn by turn (the shorter list padded with idle turns).

    Returns the state after each turn (index 0 = after turn 1). Stops early if the duel ends.
    """
    if state is None:
        state = DUEL.initial(setup or {}, {})
    turns = max(len(p0), len(p1))
    moves0 = list(p0) + idle(turns - len(p0))
    moves1 = list(p1) + idle(turns - len(p1))
    states = []
    for a0, a1 in zip(moves0, moves1, strict=True):
        state = DUEL.apply(state, 0, action(a0))
        state = DUEL.apply(state, 1, action(a1))
        states.append(state)
        if state.outcome is not None:
            break
    return states


def hps(state: DuelState) -> tuple[int, int]:
    """Both wizards' HP."""
    return state.wizards[0].hp, state.wizards[1].hp


def monsters(state: DuelState) -> list[tuple[str, str, int, int]]:
    """(name, kind, controller, hp) of every monster."""
    return [(m.name, m.kind, m.controller, m.hp) for m in state.monsters]


def event_types(state: DuelState) -> list[str]:
    """The event types of the last resolution."""
    return [str(event["type"]) for event in state.events]
