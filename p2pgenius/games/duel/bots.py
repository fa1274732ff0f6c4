"""The duel's bots: ``archmage`` (the default) and ``wizard``.

Both decide from what is public between turns (both wizards' counted gestures, HP, monsters), never
from the opponent's pending submission, and neither ever shows P with both hands as its hands will
count them (a paralysed hand repeating P included): that would surrender.

``wizard`` builds the most valuable spells it can finish soonest. For each hand it weighs every
spell the hand is part-way through, or could start, by its value over the gestures still needed,
and a stab beside them (worth less once the opponent has been raising Shields), then makes the best
(with seeded noise, so that two wizards do not mirror each other). A paralysed hand is left to
repeat; an afraid wizard plans no C, D or S. Claps need both hands to agree. It does not race a
Power Word Kill the opponent is also speaking (two clash and fizzle). It raises a Shield only when
one would block something it can see coming: monsters (elementals included) that will attack next
turn; for a single point only if a hand has nothing better to do. A stab goes at the weakest
opposing goblin or ogre, else at the opponent, and a hand stabs when the opponent is down to 1 HP.
As the caster of a Paralysis it holds the opponent's hand whose forced repetition gains the
opponent least (so not one that would cast Paralysis back while the other would not), and of those
the one furthest into a spell.

``archmage`` looks one turn ahead over both wizards' simultaneous choices (search.py): every
useful pair of gestures of its own against the opponent's plausible replies (each hand continuing
a spell under way, as the UI's "next" hints show, or shielding or stabbing), each pair resolved by
the engine itself and the position scored; it models the opponent as a soft best response, blends
the expected score with the worst case, and samples among near-best moves with its seeded
generator, never playing a loop a second time if it can help it nor making a spell that can do
nothing unless its gestures are clearly worth more (variety.py). While blinded it reads nothing
the blindness hides. It chooses a paralysed hand as ``wizard`` does.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final

from p2pgenius.games.catalog import BotLevels
from p2pgenius.games.duel.actions import DuelAction, Gestures, Paralyze, Ref
from p2pgenius.games.duel.resolve import effective_gestures, made_gestures
from p2pgenius.games.duel.search import believed, choose_move
from p2pgenius.games.duel.spells import BY_NAME, HANDS, SPELLS, STAB, completions, progress
from p2pgenius.games.duel.state import DuelState, Monster, Wizard

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


STAB_WORTH: Final = 0.6
"""A stab's worth beside the spells' values over the gestures they still need: a hand with nothing
better under way stabs (one knife: one hand a turn)."""
MONSTER_DAMAGE: Final = {"goblin": 1, "ogre": 2, "fire_elemental": 3}


class WizardBot:
    """A sensible default for either wizard."""

    level = "wizard"

    def __init__(self, *, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: DuelState, seat: int) -> DuelAction:
        """This wizard's submission (or paralysis choice) for the coming turn."""
        for target, chooser in state.paralysis_choices:
            if chooser == seat and target not in {t for t, _ in state.chosen}:
                return Paralyze(target, _hand_to_hold(state.wizards[target]))
        me = state.wizards[seat]
        values = self._values(state, seat)
        banned = {"C", "D", "S"} if me.feared else set()  # an afraid wizard's C, D, S count as nothing
        forced = made_gestures(me, Gestures("-", "-"))  # a paralysed hand repeats, whatever we say
        plans = {
            hand: forced[hand] if hand == me.paralysed else self._best(me, hand, values, banned)
            for hand in HANDS
        }
        free = [hand for hand in HANDS if hand != me.paralysed]
        if state.wizards[1 - seat].hp <= 1 and STAB not in plans.values():  # a stab would finish it
            plans[min(free, key=lambda h: self._score(me, h, values))] = STAB
        if "P" not in plans.values() and _blockable(state, seat) >= 2 - self._spare(me, free, values):
            spare = [hand for hand in free if plans[hand] != STAB] or free
            plans[min(spare, key=lambda h: self._score(me, h, values))] = "P"
        for hand in free:
            other = plans[_other(hand)]
            if (
                (plans[hand] == "C") != (other == "C")  # a clap needs both hands
                or plans[hand] == other == STAB  # one knife
                or effective_gestures(me, Gestures(plans["left"], plans["right"])) == ("P", "P")
            ):  # (P with both hands would surrender)
                clash = {"C"} | ({other} & {"P", STAB})
                plans[hand] = self._best(me, hand, values, banned | clash)
        return _with_stab_target(state, seat, Gestures(plans["left"], plans["right"]))

    def _values(self, state: DuelState, seat: int) -> dict[str, float]:
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
        values["stab"] = STAB_WORTH
        if _prey(state, seat) is None and them.last is not None and "P" in (them.left[-1:] + them.right[-1:]):
            values["stab"] = STAB_WORTH / 3  # it has been raising Shields: a stab would not get through
        return values

    def _spare(self, me: Wizard, free: list[str], values: dict[str, float]) -> int:
        """1 if a free hand has nothing better to do than a stab (then a Shield that would block
        a single point is worth raising), else 0."""
        return int(any(self._score(me, hand, values) < STAB_WORTH for hand in free) and len(free) == 2)

    def _score(self, me: Wizard, hand: str, values: dict[str, float]) -> float:
        going = progress(me.history(hand), me.barrier)
        return max((values[name] / need for name, need in going), default=0.0)

    def _best(self, me: Wizard, hand: str, values: dict[str, float], banned: set[str]) -> str:
        options: list[tuple[float, str]] = [(values["stab"], STAB)]
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
        options = [(v * (1 + self.rng.random()), g) for v, g in options if g not in banned]
        return max(options)[1] if options else "W"


def _other(hand: str) -> str:
    return "right" if hand == "left" else "left"


def _blockable(state: DuelState, seat: int) -> int:
    """The damage a Shield would block next turn, as far as ``seat`` can tell: the monsters that
    will attack (elementals hit everyone, their caster too). A spell the opponent is one gesture
    from may or may not come; raising Shields for those blocked nothing most of the time."""
    return sum(
        MONSTER_DAMAGE[m.kind]
        for m in state.monsters
        if (m.controller != seat or m.kind == "fire_elemental") and m.paralysed_turn != state.turn
    )


def _with_stab_target(state: DuelState, seat: int, move: Gestures) -> Gestures:
    """A stab goes at the weakest opposing goblin or ogre, if there is one (they attack every
    turn, and no Shield of the opponent's covers them), else at the opponent (the default)."""
    if STAB not in (move.left, move.right):
        return move
    weak = _prey(state, seat)
    if weak is None:
        return move
    hand = "left" if move.left == STAB else "right"
    return replace(move, targets=((hand, Ref("monster", monster=weak.number)),))


def _prey(state: DuelState, seat: int) -> Monster | None:
    """The opposing goblin or ogre a stab should go at (the weakest; None: none)."""
    theirs = [m for m in state.monsters if m.controller != seat and m.kind != "fire_elemental"]
    return min(theirs, key=lambda m: (m.hp, m.number), default=None)


def _hand_to_hold(wizard: Wizard) -> str:
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


class ArchmageBot:
    """The strongest level: one turn of look-ahead over both wizards' moves (search.py)."""

    level = "archmage"

    def __init__(self, *, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: DuelState, seat: int) -> DuelAction:
        """This wizard's submission (or paralysis choice) for the coming turn."""
        for target, chooser in state.paralysis_choices:
            if chooser == seat and target not in {t for t, _ in state.chosen}:
                # (while blinded, from the gestures it saw)
                return Paralyze(target, _hand_to_hold(believed(state, seat).wizards[target]))
        return choose_move(state, seat, self.rng)


BOTS: Final = BotLevels({"archmage": ArchmageBot, "wizard": WizardBot})
"""The duel's bot levels (the first is its default)."""
