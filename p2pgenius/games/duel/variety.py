"""How the duel's ``archmage`` picks among the moves its search scored (search.py), so that two of
them do not mirror each other, play a loop again, or cast a spell that can do nothing.

* **Variety.** Two archmages that always made the one best-looking move mirrored each other move
  for move (both charming the other's goblin, both raising an Anti-spell, and again). Moves near
  the best are sampled with the bot's seeded generator, the better more often, and more freely in
  a mirrored position (:data:`VARIETY`, :data:`MIRROR_VARIETY`).
* **No loop played twice.** The bot reads the turns so far from both wizards' gesture histories
  (nothing it may not see: while it is blind the opponent's are the masked ones it believes). A
  move that would play a cycle of :data:`SHORTEST_CYCLE` or more turns a second time, should the
  opponent repeat its part too, costs :data:`REPEAT` for each turn of the loop.
* **No spell for nothing.** A move that completes a spell that cannot do anything this turn (Cure
  Light Wounds at full HP, Charm Monster with no monster of the opponent's to take and none it
  can summon this turn, Resist Heat on a wizard who already resists) is made only when no other
  move comes within four times the variety of it: when its gestures are clearly worth more than the
  other moves (the search has already scored the nil spell's cost, search.WASTE), the spell is
  their by-product.
"""

from __future__ import annotations

import math
import random
from typing import Final

from p2pgenius.games.duel.actions import Gestures
from p2pgenius.games.duel.resolve import effective_gestures, plan
from p2pgenius.games.duel.spells import HANDS, next_gestures
from p2pgenius.games.duel.state import DuelState

VARIETY: Final = 0.04
"""A move ``x`` HP below the best is drawn ``exp(-x / VARIETY)`` times as often as the best, and
none more than ``4 * VARIETY`` below it (the search's scores are fine: drawn among moves up to 1
HP apart, the archmage won 73% of 60 duels against the wizard that it won 83% of, 90% with this)."""
MIRROR_VARIETY: Final = 0.25
"""The same once two wizards mirror each other (:func:`mirrored`): their searches see near the
same board and, near-deterministic, made the same move, turn after turn, a duel long. A move
drawn more freely breaks the mirror."""
MIRROR_TURNS: Final = 3
REPEAT: Final = 2.0
"""What playing a loop a second time costs a move, in HP per turn of the loop: the longer two
wizards have gone round, the surer it is that the move's hopes are not coming true."""
SHORTEST_CYCLE: Final = 3
"""The shortest loop that counts (one or two turns played again are often simply right: a Shield
against an ogre that attacks every turn)."""


def played(state: DuelState) -> list[tuple[str, str]]:
    """Each turn so far as both wizards' gestures, each wizard's two in a fixed order (a loop
    played with the hands swapped is the same loop to anyone watching). Histories are read from
    their ends (a position set up for analysis may give hands histories of different lengths)."""
    hands = [wizard.history(hand) for wizard in state.wizards for hand in HANDS]
    n = min(len(history) for history in hands)

    def pair(first: tuple[str, ...], second: tuple[str, ...], i: int) -> str:
        return "".join(sorted(first[i - n] + second[i - n]))

    return [(pair(hands[0], hands[1], i), pair(hands[2], hands[3], i)) for i in range(n)]


def repeating(state: DuelState, seat: int) -> dict[str, int]:
    """The gestures of ``seat`` (in :func:`played`'s order) that would play a cycle of
    :data:`SHORTEST_CYCLE` or more turns a second time, should the opponent repeat too, each with
    the longest such cycle (a loop of one turn played ``k`` times is a cycle of up to ``k / 2``)."""
    turns = played(state)
    n = len(turns)
    found: dict[str, int] = {}
    for length in range(SHORTEST_CYCLE, (n + 1) // 2 + 1):
        if turns[n - 2 * length + 1 : n - length] == turns[n - length + 1 :]:
            found[turns[n - length][seat]] = length
    return found


def without_repeats(
    state: DuelState, seat: int, moves: list[Gestures], worth: list[float], again: dict[str, int]
) -> list[float]:
    """``worth`` less :data:`REPEAT` for each turn of the loop that each move would play again
    (``again``: :func:`repeating`)."""
    if not again:
        return worth
    wizard = state.wizards[seat]
    return [
        value - REPEAT * again.get("".join(sorted(effective_gestures(wizard, move))), 0)
        for move, value in zip(moves, worth, strict=True)
    ]


def pointless(state: DuelState, seat: int, move: Gestures) -> bool:
    """Whether ``move`` completes a spell that cannot do anything this turn."""
    me, them = state.wizards[seat], state.wizards[1 - seat]
    cast = {completion.spell for _, completion in plan(me, move, strict=False).spells}
    if not cast:
        return False
    if "cure_light_wounds" in cast and me.hp >= me.max_hp:
        return True
    if "resist_heat" in cast and me.resist_heat:
        return True
    if "charm_monster" not in cast:
        return False
    prey = any(m.controller != seat and m.kind != "fire_elemental" for m in state.monsters)
    summoning = any(
        name in ("summon_goblin", "summon_ogre") and len(rest) == 1
        for hand in HANDS
        for name, rest in next_gestures(them.history(hand), them.barrier)
    )
    return not (prey or summoning)


def mirrored(state: DuelState) -> bool:
    """Whether the two wizards have made the same gestures (a hand's for the other's at most) on
    each of the last :data:`MIRROR_TURNS` turns: then their searches see near the same board and,
    near-deterministic, make the same move again. (Before that, no: the opening looks the same to
    every pair of wizards, and drawn freely there the archmage raised Shields for nothing.)"""
    turns = played(state)[-MIRROR_TURNS:]
    return len(turns) == MIRROR_TURNS and all(mine == theirs for mine, theirs in turns)


def sample(
    state: DuelState, seat: int, moves: list[Gestures], worth: list[float], rng: random.Random
) -> Gestures:
    """One of the moves near the best, drawn with the weights :data:`VARIETY` (in a mirrored
    position :data:`MIRROR_VARIETY`) gives them; a :func:`pointless` move only if no other move
    comes near it."""
    best = max(worth)
    spread = MIRROR_VARIETY if mirrored(state) else VARIETY
    near = [
        (move, math.exp((value - best) / spread))
        for move, value in zip(moves, worth, strict=True)
        if value >= best - 4 * spread
    ]
    sound = [(move, weight) for move, weight in near if not pointless(state, seat, move)]
    if not sound:
        return moves[worth.index(best)]
    near = sound
    draw = rng.random() * sum(weight for _, weight in near)
    for move, weight in near:
        draw -= weight
        if draw < 0:
            return move
    return near[-1][0]
