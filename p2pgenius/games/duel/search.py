"""One turn of look-ahead for the duel's ``archmage`` bot: a matrix game over both wizards' moves.

The bot decides from the state before the turn, as its seat may know it (:func:`believed`: never
the opponent's pending submission; while blinded, none of what the blindness hides, the opponent's
HP taken as full). Our candidate moves (:func:`candidates`) are every pair of useful gestures,
deduplicated by what the hands will count as after paralysis and fear, never a surrender. The
opponent's (:func:`replies`) are narrowed to what its hands have under way, as the UI's "next"
hints show them (``next_gestures``): each hand continues a spell, raises a Shield or stabs (or,
with nothing under way, starts one). Every pair is resolved by the engine's own
:func:`resolve_turn` and the position scored by :meth:`Judge.evaluate` (HP, the last few counting
extra; monsters; each hand's spells under way, weighed by what they are worth here and how soon
they finish; enchantments). The opponent is modelled as a soft best response to our moves taken
as even, with a share of its choices spread evenly (a quantal level-1 player; over its blunders
only until the two wizards go round a loop); our move maximises a blend of its expected score
against that model and its worst case, less the cost of a spell that would do nothing and of
playing a loop a second time, and near-equal moves are sampled with the bot's seeded generator,
the better more often (variety.py). The work is capped by counts (at most 27 moves a side, and 9
more stabs while the other side has a goblin or an ogre), never by the clock: at most 1,296 turn
resolutions a decision, usually a few hundred.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from p2pgenius.games.duel.actions import Gestures, Ref
from p2pgenius.games.duel.resolve import effective_gestures, made_gestures, resolve_turn
from p2pgenius.games.duel.spells import HANDS, STAB, next_gestures
from p2pgenius.games.duel.state import MONSTER_HP, DuelState, Monster, Wizard
from p2pgenius.games.duel.variety import repeating, sample, without_repeats

WIN: Final = 1000.0
"""The score of a won duel (a lost one is minus this; a draw is nothing)."""

BASE: Final = {
    "power_word_kill": 15.0,
    "fireball": 5.0,
    "summon_ogre": 4.5,
    "summon_goblin": 2.5,
    "blindness": 3.0,
    "paralysis": 2.0,
    "missile": 1.0,
    "fear": 1.5,
    "anti_spell": 1.0,
    "charm_monster": 0.0,
    "cure_light_wounds": 0.0,
    "counter_spell": 1.0,
    "shield": 0.0,
    "resist_heat": 0.0,
    "fire_storm": 0.0,
    "summon_fire_elemental": 0.0,
}
"""What finishing a spell is worth to its caster, in HP of the opponent, before the position adjusts
it (:func:`spell_values`)."""

HASTE: Final = 0.62
"""A spell ``n`` gestures from completion counts ``HASTE ** n`` of its worth."""
FIRST_HP: Final = 6
"""The last HP count extra (half again): a wizard near the end is in more danger than HP says."""
TEMPERATURE: Final = 1.2
"""How sharply the opponent model prefers its better moves (HP units)."""
SLIP: Final = 0.15
"""The share of the opponent's choices taken as even over its moves (no model is that sure)."""
CAUTION: Final = 0.3
"""The share of the worst case in the score of a move (the rest: its expectation)."""
PATIENCE: Final = 40
"""After this many turns each move's score gets a random bonus, ``IMPATIENCE`` HP wide per turn
beyond: two archmages at 5 HP or less otherwise guard against each other's Fireball with
Counter-spells and Anti-spells, and each other's Missile with Shields, for a hundred turns and
more (14 of 30 self-play duels once reached turn 300; the loops among them are also broken by
variety.py)."""
IMPATIENCE: Final = 0.1

BLUNDER: Final = 100.0
"""An opponent's move this much below its best is a blunder. The model's :data:`SLIP` share
reaches blunders too (a club player does make them), except once the two wizards are going round
a loop (variety.repeating): then the opponent has shown it does not. Two archmages otherwise
locked, a wizard at 1 HP and its ogre against one at 3 HP: each raised a Shield and stabbed at
the other's every turn, hoping for the Shield to drop (a tenth of a won duel, against the point
a stab takes off the ogre), for hundreds of turns."""
WASTE: Final = 1.0
"""The cost of completing a spell that does nothing (a Charm Monster that finds no monster, a
Cure Light Wounds at full HP that no damage meets, a Counter-spell that stops and blocks
nothing), in each pair of moves where it does nothing: it costs no HP, but a player who casts one
has wasted a turn's thought. A point of HP at most, so that a spell completed on the way to
something worth more is still completed."""
CROWD: Final = 0.6
"""Each further monster of a side counts this much of the one before it."""

Values = dict[str, float]


@lru_cache(maxsize=65_536)
def _going(tail: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    return tuple((name, len(rest)) for name, rest in next_gestures(tail, 0))


def going(wizard: Wizard, hand: str) -> tuple[tuple[str, int], ...]:
    """Spells ``hand`` is part-way through, with the gestures each still needs (cached)."""
    history = wizard.history(hand)
    return _going(history[max(wizard.barrier, len(history) - 7, 0) :])


def believed(state: DuelState, seat: int) -> DuelState:
    """The state as ``seat`` may know it before the turn: no submissions; while blinded, the
    opponent's gestures since the blindness began counted as nothing, its HP and status unknown
    (taken as full and none), and its monsters only those seen before, at full strength."""
    state = replace(state, submitted=(None, None))
    me = state.wizards[seat]
    if not me.blind_at(state.turn):
        return state
    other = state.wizards[1 - seat]
    seen = me.blind_from - 1

    def mask(history: tuple[str, ...]) -> tuple[str, ...]:
        return history[:seen] + ("-",) * (len(history) - min(seen, len(history)))

    guess = Wizard(
        hp=other.max_hp,
        max_hp=other.max_hp,
        left=mask(other.left),
        right=mask(other.right),
        barrier=min(other.barrier, seen),
    )
    monsters = tuple(
        m if m.controller == seat else Monster(m.number, m.kind, 1 - seat, MONSTER_HP[m.kind])
        for m in state.monsters
        if m.controller == seat or m.number < me.blind_mark
    )
    wizards = (me, guess) if seat == 0 else (guess, me)
    return replace(state, wizards=wizards, monsters=monsters)


def spell_values(state: DuelState, seat: int) -> Values:
    """What each spell is worth to ``seat`` in this position: attacks by what they do to the
    opponent (:func:`_offence`), defences by what the opponent's spells under way threaten."""
    me = state.wizards[seat]
    values = _offence(state, seat)
    theirs = _offence(state, 1 - seat)
    them = state.wizards[1 - seat]
    threat: Values = {}
    for hand in HANDS:
        for name, need in going(them, hand):
            if need <= 4:
                threat[name] = max(threat.get(name, 0.0), theirs[name] * HASTE**need)
    values["anti_spell"] = 1.0 + 0.8 * sum(threat.values())
    values["fear"] = 1.5 + 0.5 * threat.get("power_word_kill", 0.0)
    values["counter_spell"] = 1.0 + threat.get("fireball", 0.0) + 0.5 * threat.get("summon_ogre", 0.0)
    if not me.resist_heat:
        values["resist_heat"] = 2.0 + threat.get("fireball", 0.0)
    return values


def _offence(state: DuelState, seat: int) -> Values:
    """The spells' worth to ``seat`` by what they do: an attack that would knock the opponent out
    is worth as much as Power Word Kill."""
    me, them = state.wizards[seat], state.wizards[1 - seat]
    values = dict(BASE)
    if them.hp <= 5 and not them.resist_heat:
        values["fireball"] = BASE["power_word_kill"]
    if them.hp <= 1:
        values["missile"] = values["summon_goblin"] = 6.0
    if them.hp <= 2:
        values["summon_ogre"] = 6.0
    if me.hp <= me.max_hp - 2:
        values["cure_light_wounds"] = 1.0
    if any(m.controller != seat and m.kind != "fire_elemental" for m in state.monsters):
        values["charm_monster"] = 4.0
    storm = 5.0 * (not them.resist_heat) - 5.0 * (not me.resist_heat)
    values["fire_storm"] = max(0.0, storm)
    values["summon_fire_elemental"] = max(0.0, 0.6 * storm)
    mine = sum(1 for m in state.monsters if m.controller == seat and m.kind != "fire_elemental")
    for summon in ("summon_goblin", "summon_ogre"):
        values[summon] /= 1 + mine  # one Shield stops a crowd as well as one monster
    ours, theirs = _pwk_need(me), _pwk_need(them)
    if theirs <= ours < 9:
        values["power_word_kill"] = 3.0  # two Power Words spoken together fizzle: theirs is ahead
    return values


def _pwk_need(wizard: Wizard) -> int:
    """The fewest gestures either hand still needs for Power Word Kill (9: none under way)."""
    return min(
        (need for hand in HANDS for name, need in going(wizard, hand) if name == "power_word_kill"), default=9
    )


@dataclass(frozen=True, slots=True)
class Judge:
    """Scores positions for ``seat`` with both sides' spell values fixed at the root."""

    seat: int
    mine: Values
    theirs: Values
    healthy: bool = False  # at full HP before the turn: a Cure would heal nothing

    def evaluate(self, state: DuelState) -> float:
        """The position's worth to ``seat``: positive is good."""
        if state.outcome is not None:
            if state.outcome.winner is None:
                return 0.0
            return WIN if state.outcome.winner == self.seat else -WIN
        me, them = state.wizards[self.seat], state.wizards[1 - self.seat]
        score = _hp(me.hp) - _hp(them.hp)
        score += _spells(me, self.mine) - _spells(them, self.theirs)
        score += _status(them, 1 - self.seat, state) - _status(me, self.seat, state)
        return score + _monsters(state, self.seat) - WASTE * wasted(state, self.seat, healthy=self.healthy)


def wasted(state: DuelState, seat: int, *, healthy: bool) -> int:
    """How many spells ``seat`` completed in the turn that led to ``state`` that did nothing: a
    Charm Monster that found no monster, a Cure Light Wounds at full HP (``healthy``) that met no
    damage, a Counter-spell that stopped and blocked nothing (read from the turn's events)."""
    me = f"p{seat}"
    count = 0
    cast: list[str] = []
    hurt = guarded = False
    for event in state.events:
        kind = event["type"]
        if kind == "cast":
            if event["seat"] == seat:
                cast.append(str(event["spell"]))
            elif event["spell"] == "fire_storm":
                guarded = True
        elif kind == "miss" and event.get("spell") == "charm_monster" and event.get("seat") == seat:
            count += 1
        elif kind == "damage" and event.get("target") == me:
            hurt = True
        elif (kind == "blocked" and event.get("target") == me) or (
            kind == "fizzle" and event.get("by") == "counter_spell"
        ):
            guarded = True
    if not cast:
        return count
    count += "cure_light_wounds" in cast and healthy and not hurt
    count += "counter_spell" in cast and not (hurt or guarded)
    return count


def _hp(hp: int) -> float:
    return hp + 0.5 * min(hp, FIRST_HP)


def _spells(wizard: Wizard, values: Values) -> float:
    total = 0.0
    for hand in HANDS:
        if wizard.paralysed == hand:
            continue
        total += max((values[name] * HASTE**need for name, need in going(wizard, hand)), default=0.0)
    return total


def _status(wizard: Wizard, seat: int, state: DuelState) -> float:
    worth = 0.0
    if wizard.paralysed is not None or any(target == seat for target, _ in state.paralysis_choices):
        worth += 1.5
    if wizard.feared:
        worth += 1.0
    if wizard.blind_at(state.turn):
        worth += 1.0
    if wizard.resist_heat:
        worth -= 1.5
    return worth


def _monsters(state: DuelState, seat: int) -> float:
    """Each side's monsters, the strongest first, each worth less than the one before (a single
    Shield stops them all)."""
    me, them = state.wizards[seat], state.wizards[1 - seat]
    total = 0.0
    sides: dict[int, list[float]] = {0: [], 1: []}
    for monster in state.monsters:
        if monster.kind == "fire_elemental":  # it burns both wizards, its caster too
            total += 4.0 * ((not them.resist_heat) - (not me.resist_heat))
            continue
        worth = 2.5 if monster.kind == "goblin" else 2.0 + 1.5 * monster.hp
        if monster.paralysed_turn == state.turn:
            worth *= 0.6
        sides[monster.controller].append(worth)
    for side, worths in sides.items():
        crowd = sum(w * CROWD**i for i, w in enumerate(sorted(worths, reverse=True)))
        total += crowd if side == seat else -crowd
    return total


PAIRS: Final = tuple(
    (left, right)
    for left in ("D", "P", "S", "W", STAB)
    for right in ("D", "P", "S", "W", STAB)
    if not (left == right == STAB)
) + (("C", "C"), ("-", STAB), ("-", "W"))
"""The gesture pairs a side considers (a lone clap counts as nothing; ``-`` only where fear or
paralysis leaves a hand nothing better)."""


def replies(state: DuelState, seat: int) -> list[Gestures]:
    """The opponent's moves we weigh (:func:`candidates` narrowed): each hand continues a spell it
    has under way (the next gestures the opponent's screen hints at), raises a Shield or stabs;
    a hand with nothing under way may also start Missile, Fireball or a summon."""
    wizard = state.wizards[seat]
    useful: dict[str, set[str]] = {}
    for hand in HANDS:
        nexts = {rest[0] for _, rest in next_gestures(wizard.history(hand), wizard.barrier)}
        useful[hand] = nexts | {"P", STAB} | (set() if nexts - {"C"} else {"D", "S", "W"})
    return [
        move
        for move in candidates(state, seat)
        if all(move.gesture(hand) in useful[hand] for hand in HANDS if hand != wizard.paralysed)
    ]


def candidates(state: DuelState, seat: int) -> list[Gestures]:
    """The moves ``seat`` considers: one per distinct pair of counted gestures, never a surrender,
    each stab aimed at the opponent's weakest monster if one has 1 HP, else at the opponent; and,
    while the opponent has a goblin or ogre of more HP, each stab at that monster too. A
    paralysed hand is given the gesture it must repeat, and an afraid one no C, D or S."""
    wizard = state.wizards[seat]
    stab_at = _stab_target(state, seat)
    prey = None if stab_at is not None else _prey(state, seat)
    seen: set[tuple[str, str]] = set()
    moves: list[Gestures] = []
    for left, right in PAIRS:
        move = Gestures(left, right)
        counted = effective_gestures(wizard, move)
        if counted == ("P", "P") or counted in seen:
            continue
        seen.add(counted)
        if wizard.paralysed is not None or wizard.feared:
            made = made_gestures(wizard, move)  # what the hands will do: submit just that
            move = Gestures(made["left"], made["right"])
        stabbing = [hand for hand, g in zip(HANDS, counted, strict=True) if g == STAB]
        if stabbing and stab_at is not None:
            move = replace(move, targets=((stabbing[0], stab_at),))
        moves.append(move)
        if stabbing and prey is not None:
            moves.append(replace(move, targets=((stabbing[0], prey),)))
    return moves


def _stab_target(state: DuelState, seat: int) -> Ref | None:
    weak = [m for m in state.monsters if m.controller != seat and m.kind != "fire_elemental" and m.hp == 1]
    return Ref("monster", monster=weak[0].number) if weak else None


def _prey(state: DuelState, seat: int) -> Ref | None:
    """The opponent's weakest goblin or ogre (None: it has none)."""
    theirs = [m for m in state.monsters if m.controller != seat and m.kind != "fire_elemental"]
    weakest = min(theirs, key=lambda m: (m.hp, m.number), default=None)
    return None if weakest is None else Ref("monster", monster=weakest.number)


def matrix(state: DuelState, seat: int, mine: list[Gestures], theirs: list[Gestures]) -> list[list[float]]:
    """Scores for ``seat`` of every pair (our move, theirs), each turn resolved by the engine."""
    me = state.wizards[seat]
    judge = Judge(seat, spell_values(state, seat), spell_values(state, 1 - seat), me.hp >= me.max_hp)
    rows = []
    for ours in mine:
        row = []
        for other in theirs:
            pair = (ours, other) if seat == 0 else (other, ours)
            row.append(judge.evaluate(resolve_turn(state, pair)))
        rows.append(row)
    return rows


def opponent_model(scores: list[list[float]], *, hopeful: bool = True) -> list[float]:
    """The opponent's chances of each move: a soft best response to our moves taken as even,
    with a share spread evenly (:data:`SLIP`) over its moves, its blunders only if ``hopeful``
    (:data:`BLUNDER`)."""
    n = len(scores)
    theirs = [-sum(row[j] for row in scores) / n for j in range(len(scores[0]))]
    top = max(theirs)
    weights = [math.exp((v - top) / TEMPERATURE) for v in theirs]
    total = sum(weights)
    slips = [1.0 if hopeful or v >= top - BLUNDER else 0.0 for v in theirs]
    spread = sum(slips)
    return [(1 - SLIP) * w / total + SLIP * s / spread for w, s in zip(weights, slips, strict=True)]


def choose_move(state: DuelState, seat: int, rng: random.Random) -> Gestures:
    """The archmage's move for ``seat`` (see the module's doc)."""
    seen = believed(state, seat)
    mine = candidates(seen, seat)
    theirs = replies(seen, 1 - seat) or candidates(seen, 1 - seat)
    scores = matrix(seen, seat, mine, theirs)
    again = repeating(seen, seat)
    chances = opponent_model(scores, hopeful=not again)
    worth = [
        (1 - CAUTION) * sum(p * v for p, v in zip(chances, row, strict=True)) + CAUTION * min(row)
        for row in scores
    ]
    worth = without_repeats(seen, seat, mine, worth, again)
    late = state.turn - PATIENCE
    if late > 0:  # a long duel: take chances, or two careful wizards guard against each other for ever
        worth = [value + IMPATIENCE * late * rng.random() for value in worth]
    return sample(seen, seat, mine, worth, rng)
