"""The ``wizard`` bot for the duel: builds the most valuable spells it can finish soonest.

It reads only what is public between turns (both wizards' counted gestures, HP, monsters), never
the opponent's pending submission. For each hand it weighs every spell the hand is part-way
through, or could start, by its value over the gestures still needed, and makes the next gesture of
the best one. Claps need both hands to agree, so it only claps when both hands want the same clap.
It does not race a Power Word Kill the opponent is also speaking (two clash and fizzle). When the
opponent is one gesture from a damaging spell, or its monsters are at our throat, and a
hand is free, it raises a Shield; it never shows P on both hands (that would surrender). As the
caster of a Paralysis it holds the opponent's hand whose forced repetition gains the opponent least
(so not one that would cast Paralysis back while the other would not), and of those the one
furthest into a spell.
"""

from __future__ import annotations

import random
from typing import Final

from p2pgenius.games.catalog import BotLevels
from p2pgenius.games.duel.actions import DuelAction, Gestures, Paralyze
from p2pgenius.games.duel.spells import BY_NAME, HANDS, SPELLS, completions, progress
from p2pgenius.games.duel.state import DuelState, Wizard

VALUE: Final = {
    "power_word_kill": 12.0,
    "fireball": 5.0,
    "summon_ogre": 4.0,
    "summon_goblin": 2.5,
    "blindness": 3.0,
    "paralysis": 1.0,
    "missile": 1.2,
    "fear": 1.5,
    "anti_spell": 1.5,
    "charm_monster": 0.0,
    "cure_light_wounds": 0.0,
    "counter_spell": 0.5,
    "shield": 0.0,
    "resist_heat": 0.0,
    "fire_storm": 0.0,
    "summon_fire_elemental": 0.0,
}
"""What a spell is worth to the caster, before the situation adjusts it (spells whose harm falls
on the caster too, such as Fire Storm, are worth nothing)."""
THREATS: Final = ("fireball", "missile", "power_word_kill", "summon_goblin", "summon_ogre")


class WizardBot:
    """A sensible default for either wizard."""

    level = "wizard"

    def __init__(self, *, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: DuelState, seat: int) -> DuelAction:
        """This wizard's submission (or paralysis choice) for the coming turn."""
        for target, chooser in state.paralysis_choices:
            if chooser == seat and target not in {t for t, _ in state.chosen}:
                return Paralyze(target, self._hand_to_hold(state.wizards[target]))
        me, them = state.wizards[seat], state.wizards[1 - seat]
        values = dict(VALUE)
        if any(
            name == "power_word_kill"
            for hand in HANDS
            for name, _ in progress(them.history(hand), them.barrier)
        ):
            # Two Power Words spoken together fizzle: race something else instead.
            values["power_word_kill"] = 1.0
        if me.hp <= me.max_hp - 3:
            values["cure_light_wounds"] = 1.5
        mine = sum(1 for m in state.monsters if m.controller == seat)
        for summon in ("summon_goblin", "summon_ogre"):
            values[summon] /= 1 + mine  # a shield stops a crowd as well as one: diversify
        if any(m.controller != seat and m.kind != "fire_elemental" for m in state.monsters):
            values["charm_monster"] = 3.0
        plans = {hand: self._best(me, hand, values) for hand in HANDS}
        left, right = plans["left"], plans["right"]
        if (left == "C") != (right == "C"):  # a clap needs both hands
            if left == "C":
                left = self._best(me, "left", values, no_clap=True)
            else:
                right = self._best(me, "right", values, no_clap=True)
        if self._threatened(state, seat) and "P" not in (left, right):
            weaker = min(HANDS, key=lambda h: self._score(me, h, values))
            left, right = ("P", right) if weaker == "left" else (left, "P")
        if left == right == "P":
            right = "W"  # never surrender by accident
        return Gestures(left, right)

    def _score(self, me: Wizard, hand: str, values: dict[str, float]) -> float:
        going = progress(me.history(hand), me.barrier)
        return max((values[name] / need for name, need in going), default=0.0)

    def _best(self, me: Wizard, hand: str, values: dict[str, float], *, no_clap: bool = False) -> str:
        options: list[tuple[float, str]] = []
        history = me.history(hand)
        for name, need in progress(history, me.barrier):
            for sequence in BY_NAME[name].sequences:
                done = len(sequence) - need
                if done <= 0 or tuple(history[len(history) - done :]) != tuple(sequence[:done]):
                    continue
                options.append((values[name] / need, sequence[done]))
        for spell in SPELLS:
            for sequence in spell.sequences:
                options.append((values[spell.name] / len(sequence) * 0.9, sequence[0]))
        # Noise keeps two wizards from mirroring each other forever.
        options = [(v * (1 + self.rng.random()), g) for v, g in options if not (no_clap and g == "C")]
        return max(options)[1]

    def _threatened(self, state: DuelState, seat: int) -> bool:
        them = state.wizards[1 - seat]
        near = any(
            name in THREATS and need == 1
            for hand in HANDS
            for name, need in progress(them.history(hand), them.barrier)
        )
        biting = sum(m.hp for m in state.monsters if m.controller != seat and m.kind != "fire_elemental")
        return near or biting >= 2

    def _hand_to_hold(self, wizard: Wizard) -> str:
        # A held hand repeats its last gesture, which may complete a spell for its owner (a
        # hand at "WW" held casts Paralysis back at us, and two wizards doing that to each other
        # lock the duel for hundreds of turns). Hold the hand whose repetition gains its owner
        # least, and of those the one furthest into a spell.
        def gain(hand: str) -> float:
            history = wizard.history(hand)
            if not history:
                return 0.0
            cast = completions((*history, history[-1]), wizard.barrier)
            return max((VALUE[c.spell] for c in cast), default=0.0)

        def furthest(hand: str) -> int:
            going = progress(wizard.history(hand), wizard.barrier)
            return -min((need for _, need in going), default=99)

        return min(HANDS, key=lambda hand: (gain(hand), -furthest(hand)))


BOTS: Final = BotLevels({"wizard": WizardBot})
"""The duel's bot levels (the first is its default)."""
