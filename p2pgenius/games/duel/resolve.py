"""Resolving one duel turn, step by step as numbered in docs/rules/duel.md ("A turn, step by step").

All effects of a turn are simultaneous: spells are gathered, then each step reads what the earlier
steps decided, damage and heals go to one ledger per being, and deaths are decided at the end.
Every step writes events that say what happened and why; each event also says which seats would
still be told of it while blinded (``blind_sees``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from p2pgenius.canonical import Plain
from p2pgenius.games.base import Outcome, maker, replace
from p2pgenius.games.duel.actions import Gestures, Ref
from p2pgenius.games.duel.spells import (
    BY_NAME,
    CLAP,
    HANDS,
    NOTHING,
    STAB,
    SUMMONS,
    Completion,
    completions,
)
from p2pgenius.games.duel.state import (
    BLIND_TURNS,
    MONSTER_HP,
    REVIVE_HP,
    DuelEnding,
    DuelState,
    Monster,
    Wizard,
)

FIRE_DAMAGE: Final = 5
MISSILE_DAMAGE: Final = 1
STAB_DAMAGE: Final = 1
CURE_HEAL: Final = 1

Being = tuple[str, int]  # ("w", seat) or ("m", monster number)
WIZARDS: Final = (Ref("wizard", seat=0), Ref("wizard", seat=1))
"""Each seat's wizard as a target, made once (the default of most spells, stabs and monsters)."""
_NEW_WIZARD: Final = maker(Wizard)
_NEW_STATE: Final = maker(DuelState)
"""The next turn's wizards and state are built by these: ``Wizard`` and ``DuelState`` as their
``__init__`` builds them, twice as fast (``games.base.maker``)."""


def made_gestures(wizard: Wizard, submitted: Gestures) -> dict[str, str]:
    """Step 1 up to the clap rule: the gestures the hands make this turn. A paralysed hand repeats
    the gesture it made last turn exactly (a C it clapped alone included: that C counted as
    nothing, but the hand made it); fear makes C, D and S nothing; a second stab is nothing."""
    hands = {"left": submitted.left, "right": submitted.right}
    if wizard.paralysed is not None:
        history = wizard.history(wizard.paralysed)
        made = CLAP if wizard.clapped_alone == wizard.paralysed else (history[-1] if history else NOTHING)
        hands[wizard.paralysed] = made
    if wizard.feared:
        hands = {hand: NOTHING if g in ("C", "D", "S") else g for hand, g in hands.items()}
    if hands["left"] == STAB and hands["right"] == STAB:
        hands["right"] = NOTHING
    return hands


def lone_clap(made: dict[str, str]) -> str | None:
    """The hand that claps while the other does not (its clap counts as nothing), if any."""
    left, right = made["left"] == CLAP, made["right"] == CLAP
    if left == right:
        return None
    return "left" if left else "right"


def effective_gestures(wizard: Wizard, submitted: Gestures) -> tuple[str, str]:
    """Step 1: what the wizard's hands count as this turn, after last turn's effects."""
    hands, _ = _counted(wizard, submitted)
    return hands["left"], hands["right"]


def _counted(wizard: Wizard, submitted: Gestures) -> tuple[dict[str, str], str | None]:
    """Step 1, each hand's counted gesture, and the hand that clapped alone (counted as nothing)."""
    hands = made_gestures(wizard, submitted)
    alone = lone_clap(hands)
    if alone is not None:
        hands[alone] = NOTHING
    return hands, alone


@dataclass(frozen=True, slots=True)
class Plan:
    """What one wizard's hands do this turn: counted gestures and the spell (if any) per hand."""

    left: str
    right: str
    spells: tuple[tuple[str, Completion], ...]  # (hand, spell) for the hands that cast
    options: tuple[tuple[str, tuple[Completion, ...]], ...]  # every completion, per hand
    lone: str | None = None  # the hand that clapped alone (counted as nothing), if any

    def gesture(self, hand: str) -> str:
        """The counted gesture of ``hand``."""
        return self.left if hand == "left" else self.right

    def spell(self, hand: str) -> str | None:
        """The spell ``hand`` casts, if any."""
        for cast_hand, completion in self.spells:
            if cast_hand == hand:
                return completion.spell
        return None

    def casts(self, name: str) -> bool:
        """Whether either hand casts spell ``name``."""
        return any(completion.spell == name for _, completion in self.spells)


_NEW_PLAN: Final = maker(Plan)
"""A plan is built by this: ``Plan`` as its ``__init__`` builds it, twice as fast."""


def plan(wizard: Wizard, submitted: Gestures, *, strict: bool) -> Plan:
    """Steps 1 and 3 for one wizard: counted gestures, then the spell each hand casts.

    Longest spell by default; a named spell is cast instead if it completes on that hand. With
    ``strict`` a named spell that does not complete raises ValueError (the caller words the error);
    otherwise (a repeated submission after a timeout) the name is ignored.
    """
    intent, refusal = _planned(wizard, submitted)
    if strict and refusal is not None:
        raise ValueError(refusal)
    return intent


@lru_cache(maxsize=4096)
def _planned(wizard: Wizard, submitted: Gestures) -> tuple[Plan, str | None]:
    """The plan, and why ``strict`` refuses it (None: it does not). Both values are immutable
    functions of the two immutable arguments, remembered: each submission is planned when it is
    checked, when it is applied and when the turn resolves, on every peer."""
    counted, alone = _counted(wizard, submitted)
    left, right = counted["left"], counted["right"]
    options = {  # (each hand's history, this turn's gesture last)
        "left": completions((*wizard.left, left), wizard.barrier),
        "right": completions((*wizard.right, right), wizard.barrier),
    }
    refusal = None
    for hand in HANDS if submitted.spells else ():  # (a spell named: few submissions name one)
        name = submitted.spell(hand)
        pool = options["left"] + options["right"] if left == right == CLAP else options[hand]
        if refusal is None and name is not None and all(c.spell != name for c in pool):
            possible = ", ".join(sorted({c.spell for c in pool})) or "nothing"
            refusal = f"{hand} hand: {name} does not complete this turn (completes: {possible})"
    chosen: list[tuple[str, Completion]] = []
    if left == right == CLAP:
        # One clap completing two-handed spells on both hands casts one spell only.
        pooled = [(hand, c) for hand in HANDS for c in options[hand]]
        wanted = [(h, c) for h, c in pooled if c.spell in (submitted.spell(h) for h in HANDS)]
        pick = wanted[:1] or sorted(pooled, key=lambda hc: -hc[1].length)[:1]
        chosen.extend(pick)
    else:
        for hand in HANDS:
            found = options[hand]
            if not found:
                continue
            wanted_spell = submitted.spell(hand) if submitted.spells else None
            named = [c for c in found if c.spell == wanted_spell] if wanted_spell is not None else []
            chosen.append((hand, (named or found)[0]))
    return _NEW_PLAN(left, right, tuple(chosen), tuple(options.items()), alone), refusal


@dataclass(slots=True)
class Cast:
    """A spell cast this turn and what became of it."""

    caster: int
    hand: str
    spell: str
    target: Ref | None  # None: Fire Storm, or a Charm Monster left to its default
    fizzled: bool = False


def default_target(spell: str, caster: int) -> Ref | None:
    """The rulings' default subject of ``spell`` cast by ``caster``."""
    side = BY_NAME[spell].default_target
    if side == "self":
        return WIZARDS[caster]
    if side == "opponent" and spell != "charm_monster":
        return WIZARDS[1 - caster]
    return None


class Turn:
    """The working data of one turn's resolution. Use :func:`resolve_turn`."""

    def __init__(self, state: DuelState, submissions: tuple[Gestures, Gestures]) -> None:
        self.state = state
        self.t = state.turn
        self.subs = submissions
        self.events: list[dict[str, Plain]] = []
        wizards = state.wizards  # (each plan as plan(strict=False) gives it: a call less each)
        self.plans = (_planned(wizards[0], submissions[0])[0], _planned(wizards[1], submissions[1])[0])
        # The hand of each wizard that clapped alone (counted as nothing; a paralysed hand repeats it).
        self.lone = (self.plans[0].lone, self.plans[1].lone)
        self.monsters: dict[int, Monster] = {m.number: m for m in state.monsters}
        self.next_monster = state.next_monster
        self.summoned: dict[tuple[int, str], int] = {}  # (seat, hand) -> monster number
        self.created: dict[int, tuple[int, str]] = {}
        self.damage: dict[Being, int] = {}
        self.heal: dict[Being, int] = {}
        self.killed: set[Being] = set()  # by Power Word Kill
        # What each wizard's magic (spells and the monsters they summoned) hit: the surrender rule.
        self.spell_hits: dict[int, set[Being]] = {0: set(), 1: set()}
        self.shielded: set[Being] = set()
        self.countered: set[Being] = set()
        self.resistant: set[Being] = {("w", s) for s, w in enumerate(state.wizards) if w.resist_heat}
        self.resistant |= {("m", m.number) for m in state.monsters if m.resist_heat}
        self.removed: set[int] = set()
        self.controller: dict[int, int] = {}
        self.paralysis: dict[int, int] = {}  # target wizard -> first caster
        self.feared: set[int] = set()
        self.blinded: set[int] = set()
        self.anti_spell: set[int] = set()
        self.new_resist: set[Being] = set()

    # -- helpers ---------------------------------------------------------------------------

    def say(self, event: str, sees: Iterable[int], /, **data: Plain) -> None:
        """Record an event (data: words.py says it in words); ``sees`` are the seats told of it
        even while blinded."""
        self.events.append({"type": event, "blind_sees": sorted(set(sees)), **data})

    def named(self, being: Being | None) -> dict[str, Plain]:
        """An event's ``target`` (and, for a monster, ``target_kind``)."""
        if being is None:
            return {"target": None}
        if being[0] == "w":
            return {"target": f"p{being[1]}"}
        monster = self.monsters[being[1]]
        return {"target": monster.name, "target_kind": monster.kind}

    def being(self, ref: Ref | None) -> Being | None:
        """The being a target names now, or None if there is none (dead, or a failed summon)."""
        if ref is None or ref.kind == "nobody":
            return None
        if ref.kind == "wizard":
            return ("w", ref.seat)
        if ref.kind == "monster":
            alive = ref.monster in self.monsters and ref.monster not in self.removed
            return ("m", ref.monster) if alive else None
        number = self.summoned.get((ref.seat, ref.hand))
        return None if number is None or number in self.removed else ("m", number)

    def owner(self, being: Being | None) -> set[int]:
        """The seat a being belongs to (for who is told of things while blinded)."""
        if being is None:
            return set()
        if being[0] == "w":
            return {being[1]}
        monster = self.monsters.get(being[1])
        return set() if monster is None else {self.controller.get(being[1], monster.controller)}

    def ref_owner(self, ref: Ref | None) -> set[int]:
        """Like :meth:`owner` for a target that may name a summon still to come."""
        if ref is not None and ref.kind == "summoning" and (ref.seat, ref.hand) not in self.summoned:
            return {ref.seat}
        return self.owner(self.being(ref))

    def hurt(self, source: int | None, being: Being | None, amount: int, by_spell: bool) -> None:
        """Add damage to the ledger; ``source`` is the seat to credit for the surrender rule."""
        if being is None:
            return
        self.damage[being] = self.damage.get(being, 0) + amount
        if by_spell and source is not None:
            self.spell_hits[source].add(being)

    # -- the steps ---------------------------------------------------------------------------

    def gather(self) -> list[Cast]:
        """Steps 1-3: record counted gestures, note surrenders, list the spells cast."""
        casts: list[Cast] = []
        for seat, (p, sub) in enumerate(zip(self.plans, self.subs, strict=True)):
            wizard = self.state.wizards[seat]
            for hand, counted, given in (("left", p.left, sub.left), ("right", p.right, sub.right)):
                if counted != given:
                    self.say(
                        "rewrite",
                        [seat],
                        why=self.rewrite_reason(wizard, sub, hand, counted),
                        seat=seat,
                        hand=hand,
                        submitted=given,
                        counted=counted,
                    )
            for hand, completion in p.spells:
                explicit = sub.target(hand)
                if explicit is None and p.left == p.right == CLAP:
                    explicit = sub.target("right" if hand == "left" else "left")
                target = explicit if explicit is not None else default_target(completion.spell, seat)
                if completion.spell == "fire_storm":
                    target = None
                casts.append(Cast(seat, hand, completion.spell, target))
        return casts

    def rewrite_reason(self, wizard: Wizard, sub: Gestures, hand: str, counted: str) -> str:
        """Why step 1 changed a hand's gesture (words.REWRITES says each in words)."""
        if wizard.paralysed == hand:
            if counted == NOTHING and wizard.clapped_alone == hand:
                return "paralysed_clap"
            return "paralysed"
        if wizard.feared and sub.gesture(hand) in ("C", "D", "S"):
            return "afraid"
        if sub.gesture(hand) == STAB and counted == NOTHING and hand == "right":
            return "one_knife"
        return "lone_clap"

    def announce(self, casts: list[Cast]) -> None:
        """Say which spells were cast, with targets. A spell cast at ``nobody`` misses on purpose:
        it is cast (its gestures are spent) and does nothing more."""
        for cast in casts:
            sees = {cast.caster} | self.ref_owner(cast.target)
            if cast.spell == "fire_storm":
                sees = {0, 1}
            self.say(
                "cast",
                sees,
                seat=cast.caster,
                hand=cast.hand,
                spell=cast.spell,
                target=None if cast.target is None else str(cast.target),
            )
            if cast.target is not None and cast.target.kind == "nobody":
                cast.fizzled = True
                self.say("miss", [cast.caster], seat=cast.caster, spell=cast.spell, why="nobody")

    def counter(self, casts: list[Cast]) -> set[Ref]:
        """Step 4: counter-spells shield their subject and stop every other spell at it but PWK."""
        subjects = {
            c.target for c in casts if c.spell == "counter_spell" and not c.fizzled and c.target is not None
        }
        for cast in casts:
            if cast.spell in ("counter_spell", "power_word_kill", "fire_storm"):
                continue
            if cast.target is not None and cast.target in subjects:
                cast.fizzled = True
                self.say(
                    "fizzle",
                    self.ref_owner(cast.target),
                    seat=cast.caster,
                    hand=cast.hand,
                    spell=cast.spell,
                    by="counter_spell",
                    target=str(cast.target),
                )
        return subjects

    def pwk_clash(self, casts: list[Cast]) -> None:
        """Step 5: if both wizards complete Power Word Kill, every one of them fizzles."""
        pwk = [c for c in casts if c.spell == "power_word_kill"]
        if {c.caster for c in pwk} == {0, 1}:
            for cast in pwk:
                cast.fizzled = True
            self.say("fizzle", [0, 1], spell="power_word_kill", by="power_word_kill")

    def summon(self, casts: list[Cast]) -> None:
        """Step 6: create the monsters, in seat order then left before right. Who each serves is
        settled over the whole turn first, so that a summon may be aimed at a monster another
        hand (of either seat, before or after it) summons this very turn."""
        order = {"left": 0, "right": 1}
        summons = sorted(
            (c for c in casts if c.spell in SUMMONS and not c.fizzled),
            key=lambda c: (c.caster, order[c.hand]),
        )
        by_hand = {(c.caster, c.hand): c for c in summons}
        controllers: dict[tuple[int, str], int | None] = {}
        for cast in summons:
            self.summon_controller(cast, by_hand, controllers, frozenset())
        for cast in summons:
            controller = controllers[(cast.caster, cast.hand)]
            if controller is None:
                cast.fizzled = True
                self.say("miss", [cast.caster], seat=cast.caster, spell=cast.spell, why="no_master")
                continue
            kind = cast.spell.removeprefix("summon_")
            existing = [
                m
                for m in self.monsters.values()
                if m.kind == "fire_elemental" and m.number not in self.removed
            ]
            if kind == "fire_elemental" and existing:
                elemental = existing[0]
                self.monsters[elemental.number] = replace(elemental, hp=MONSTER_HP[kind])
                self.summoned[(cast.caster, cast.hand)] = elemental.number
                self.say("merge", [0, 1], monster=elemental.name)
                continue
            number = self.next_monster
            self.next_monster += 1
            self.monsters[number] = Monster(number, kind, controller, MONSTER_HP[kind])
            self.summoned[(cast.caster, cast.hand)] = number
            self.created[number] = (cast.caster, cast.hand)
            sees = [0, 1] if kind == "fire_elemental" else [cast.caster, controller]
            self.say(
                "summon",
                sees,
                monster=f"m{number}",
                kind=kind,
                controller=controller,
            )

    def summon_controller(
        self,
        cast: Cast,
        by_hand: dict[tuple[int, str], Cast],
        settled: dict[tuple[int, str], int | None],
        following: frozenset[tuple[int, str]],
    ) -> int | None:
        """Who a summon serves: its subject wizard, or a monster subject's controller; a monster
        summoned this turn serves whoever its own summon serves (followed to its end: a summon
        that fails, is aimed at an elemental or goes round in a circle serves no one)."""
        key = (cast.caster, cast.hand)
        if key in settled:
            return settled[key]
        target = cast.target
        controller: int | None = None
        if target is None or target.kind == "nobody":
            controller = None
        elif target.kind == "wizard":
            controller = target.seat
        elif cast.spell == "summon_fire_elemental":
            controller = None
        elif target.kind == "summoning":
            aimed = (target.seat, target.hand)
            other = by_hand.get(aimed)
            circle = aimed == key or aimed in following
            if other is not None and other.spell != "summon_fire_elemental" and not circle:
                controller = self.summon_controller(other, by_hand, settled, following | {key})
        else:
            being = self.being(target)
            monster = None if being is None else self.monsters[being[1]]
            if monster is not None and monster.kind != "fire_elemental":
                controller = monster.controller
        settled[key] = controller
        return controller

    def remove_instantly(self, casts: list[Cast]) -> None:
        """Step 7: Blindness on a monster and Resist Heat on a fire elemental destroy it at once."""
        for cast in casts:
            if cast.fizzled or cast.spell not in ("blindness", "resist_heat"):
                continue
            being = self.being(cast.target)
            if being is None or being[0] != "m":
                continue
            monster = self.monsters[being[1]]
            if cast.spell == "resist_heat" and monster.kind != "fire_elemental":
                continue
            self.removed.add(monster.number)
            self.say(
                "destroyed",
                {cast.caster, monster.controller},
                monster=monster.name,
                kind=monster.kind,
                spell=cast.spell,
                seat=cast.caster,
            )

    def protect(self, casts: list[Cast], counter_subjects: set[Ref]) -> None:
        """Step 8: shields (including every counter-spell's), and Resist Heat."""
        for ref in counter_subjects:
            being = self.being(ref)
            if being is not None:
                self.countered.add(being)
                self.shielded.add(being)
        for cast in casts:
            if cast.fizzled:
                continue
            being = self.being(cast.target)
            if cast.spell == "shield" and being is not None:
                self.shielded.add(being)
            elif cast.spell == "resist_heat" and being is not None:
                self.resistant.add(being)
                self.new_resist.add(being)

    def enchant(self, casts: list[Cast]) -> None:
        """Step 9: charm, paralysis, fear, anti-spell, blindness."""
        self.charm(casts)
        for cast in casts:
            being = None if cast.fizzled else self.being(cast.target)
            if being is not None:
                self.bewitch(cast, being)

    def charm(self, casts: list[Cast]) -> None:
        """Step 9's charms: a monster charmed by one wizard alone changes hands."""
        charms: dict[int, set[int]] = {}
        for cast in casts:
            if cast.fizzled or cast.spell != "charm_monster":
                continue
            being = self.being(cast.target) if cast.target is not None else self.charm_default(cast)
            if being is None or being[0] != "m" or self.monsters[being[1]].kind == "fire_elemental":
                self.say("miss", [cast.caster], seat=cast.caster, spell="charm_monster", why="no_monster")
                continue
            charms.setdefault(being[1], set()).add(cast.caster)
        for number, casters in sorted(charms.items()):
            monster = self.monsters[number]
            if len(casters) > 1:
                self.say("fizzle", [0, 1], monster=monster.name, spell="charm_monster", by="charm_monster")
                continue
            (caster,) = casters
            self.controller[number] = caster
            self.say(
                "charm",
                {caster, monster.controller},
                monster=monster.name,
                controller=caster,
            )

    def bewitch(self, cast: Cast, being: Being) -> None:
        """Step 9's other enchantments, each on the being ``cast`` reaches."""
        if cast.spell == "paralysis":
            if being[0] == "w":
                self.paralysis.setdefault(being[1], cast.caster)
            else:
                monster = self.monsters[being[1]]
                self.monsters[being[1]] = replace(monster, paralysed_turn=self.t + 1)
            self.say("enchant", self.owner(being) | {cast.caster}, spell="paralysis", **self.named(being))
        elif cast.spell == "fear" and being[0] == "w":
            self.feared.add(being[1])
            self.say("enchant", {being[1], cast.caster}, spell="fear", target=f"p{being[1]}")
        elif cast.spell == "anti_spell" and being[0] == "w":
            self.anti_spell.add(being[1])
            self.say("enchant", {being[1], cast.caster}, spell="anti_spell", target=f"p{being[1]}")
        elif cast.spell == "blindness" and being[0] == "w":
            self.blinded.add(being[1])
            self.say("enchant", {being[1], cast.caster}, spell="blindness", target=f"p{being[1]}")

    def charm_default(self, cast: Cast) -> Being | None:
        """No target: the opponent's most recently created monster that is not an elemental."""
        mine = [
            m.number
            for m in self.monsters.values()
            if m.controller == 1 - cast.caster and m.kind != "fire_elemental" and m.number not in self.removed
        ]
        return ("m", max(mine)) if mine else None

    def strike(self, casts: list[Cast]) -> None:
        """Step 10: spell damage, stabs and monster attacks go to the ledger; PWK kills."""
        storms = [c for c in casts if c.spell == "fire_storm" and not c.fizzled]
        for cast in casts:
            if not cast.fizzled:
                self.spell_damage(cast, self.being(cast.target))
        if storms:
            casters = sorted({c.caster for c in storms})
            for being in self.beings():
                if being in self.countered or self.is_elemental(being):
                    continue
                self.fire(being, {"source": "fire_storm", "seat": casters[0]}, also=casters[1:])
        for seat, p in enumerate(self.plans):
            if p.left == STAB:  # (left before right, as HANDS)
                self.stab(seat, "left")
            if p.right == STAB:
                self.stab(seat, "right")
        if self.monsters:  # (most turns have none to attack)
            self.attack()

    def spell_damage(self, cast: Cast, being: Being | None) -> None:
        """Step 10 for one spell: its damage or heal to the ledger, or Power Word Kill's kill."""
        if cast.spell == "missile":
            self.blockable(being, MISSILE_DAMAGE, {"source": "missile", "seat": cast.caster}, by_spell=True)
        elif cast.spell == "fireball":
            self.fire(being, {"source": "fireball", "seat": cast.caster})
        elif cast.spell == "power_word_kill" and being is not None:
            self.killed.add(being)
            self.spell_hits[cast.caster].add(being)
            self.say("kill", self.owner(being) | {cast.caster}, **self.named(being))
        elif cast.spell == "cure_light_wounds" and being is not None:
            self.heal[being] = self.heal.get(being, 0) + CURE_HEAL

    def stab(self, seat: int, hand: str) -> None:
        """Step 10 for a stab: at its target, by default the other wizard (a shield blocks it)."""
        ref = self.subs[seat].target(hand)
        if ref is None or ref == WIZARDS[seat]:
            ref = WIZARDS[1 - seat]
        if ref.kind == "nobody":
            self.say("miss", [seat], seat=seat, source="stab", why="nobody")
            return
        self.blockable(self.being(ref), STAB_DAMAGE, {"source": "stab", "seat": seat}, by_spell=False)

    def beings(self) -> list[Being]:
        """Every wizard and every monster still on the field, in a stable order."""
        return [("w", 0), ("w", 1)] + [("m", n) for n in sorted(self.monsters) if n not in self.removed]

    def is_elemental(self, being: Being) -> bool:
        """Whether ``being`` is a fire elemental."""
        return being[0] == "m" and self.monsters[being[1]].kind == "fire_elemental"

    def blockable(
        self, being: Being | None, amount: int, source: dict[str, Plain], *, by_spell: bool
    ) -> None:
        """Damage that a shield blocks (missiles, stabs, monsters); ``source`` says whose: the
        event's ``source`` ("missile", "stab", "monster") and ``seat`` (caster, stabber or
        controller), a monster's ``monster`` and ``kind``."""
        seat: int = source["seat"]
        if being is None:
            self.say("miss", [seat], why="no_target", **source)
            return
        sees = self.owner(being) | {seat}
        if being in self.shielded:
            self.say("blocked", sees, why="shield", **source, **self.named(being))
            return
        self.hurt(seat, being, amount, by_spell)
        self.say("damage", sees, amount=amount, **source, **self.named(being))

    def fire(self, being: Being | None, source: dict[str, Plain], also: Iterable[int] = ()) -> None:
        """Fire damage: Resist Heat blocks it, shields do not, and a fire elemental takes none."""
        seat: int = source["seat"]
        if being is None:
            self.say("miss", [seat], why="no_target", **source)
            return
        sees = self.owner(being) | {seat, *also}
        if being in self.resistant or self.is_elemental(being):
            why = "made_of_fire" if self.is_elemental(being) else "resists_heat"
            self.say("blocked", sees, why=why, **source, **self.named(being))
            return
        self.hurt(seat, being, FIRE_DAMAGE, by_spell=True)
        for other in also:
            self.spell_hits[other].add(being)
        self.say("damage", sees, amount=FIRE_DAMAGE, **source, **self.named(being))

    def attack(self) -> None:
        """Monster attacks: every monster not removed or paralysed attacks, the dying included."""
        orders: dict[int, dict[Ref, Ref]] = {seat: dict(sub.monsters) for seat, sub in enumerate(self.subs)}
        # Paralysed last turn (as the turn began: a Paralysis cast this turn moves the mark on to
        # next turn, and must not free it from this one).
        held = {m.number for m in self.state.monsters if m.paralysed_turn == self.t}
        for number in sorted(self.monsters):
            monster = self.monsters[number]
            if number in self.removed:
                continue
            if number in held:
                self.say(
                    "idle", [monster.controller], monster=monster.name, kind=monster.kind, why="paralysed"
                )
                continue
            controller = self.controller.get(number, monster.controller)
            source: dict[str, Plain] = {
                "source": "monster",
                "seat": controller,
                "monster": monster.name,
                "kind": monster.kind,
            }
            if monster.kind == "fire_elemental":
                for being in self.beings():
                    if being == ("m", number):
                        continue
                    if being in self.shielded or being in self.resistant:
                        why = "shield" if being in self.shielded else "resists_heat"
                        self.say("blocked", self.owner(being), why=why, **source, **self.named(being))
                        continue
                    self.hurt(controller, being, MONSTER_HP[monster.kind], by_spell=True)
                    amount = MONSTER_HP[monster.kind]
                    self.say("damage", self.owner(being), amount=amount, **source, **self.named(being))
                continue
            mine = orders[controller]
            order = mine.get(Ref("monster", monster=number)) if mine else None  # (most have none)
            if order is None and mine and number in self.created:
                seat, hand = self.created[number]
                order = mine.get(Ref("summoning", seat=seat, hand=hand))
            target = order if order is not None else WIZARDS[1 - controller]
            if target.kind == "nobody":
                self.say("idle", [controller], monster=monster.name, kind=monster.kind, why="nobody")
                continue
            self.blockable(self.being(target), MONSTER_HP[monster.kind], source, by_spell=True)

    def settle(self) -> DuelState:
        """Steps 11-13: heals, deaths, the 5-HP rule, surrender; then the next turn's state."""
        monsters = self.surviving_monsters()
        hps = self.wizard_hps()
        down = [hps[s] <= 0 or ("w", s) in self.killed for s in (0, 1)]
        outcome = self.surrender(down, self.knock_outs(hps, down))
        if outcome is not None:
            self.say("outcome", [0, 1], winner=outcome.winner, reason=outcome.reason.value)
        return self.next_state(hps, monsters, outcome)

    def surviving_monsters(self) -> tuple[Monster, ...]:
        """Step 11 for the monsters: each healed and hurt, those dead or dispelled gone."""
        monsters: list[Monster] = []
        for number in sorted(self.monsters):
            monster = self.monsters[number]
            being: Being = ("m", number)
            if number in self.removed:
                continue
            hp = min(
                monster.hp - self.damage.get(being, 0) + self.heal.get(being, 0), MONSTER_HP[monster.kind]
            )
            if hp <= 0 or being in self.killed:
                self.say("death", self.owner(being), monster=monster.name, kind=monster.kind)
                continue
            controller = self.controller.get(number, monster.controller)
            resist_heat = monster.resist_heat or being in self.new_resist
            unchanged = (hp, controller, resist_heat) == (monster.hp, monster.controller, monster.resist_heat)
            # (A monster the turn left as it was is kept: an equal copy would serve as well.)
            monsters.append(
                monster
                if unchanged
                else replace(monster, hp=hp, controller=controller, resist_heat=resist_heat)
            )
        return tuple(monsters)

    def wizard_hps(self) -> list[int]:
        """Step 11 for the wizards: each one's hit points after this turn's damage and heals."""
        hps = []
        for seat, wizard in enumerate(self.state.wizards):
            being: Being = ("w", seat)
            hp = min(wizard.hp - self.damage.get(being, 0) + self.heal.get(being, 0), wizard.max_hp)
            if hp != wizard.hp:
                self.say("hp", [seat], seat=seat, hp=hp, was=wizard.hp)
            hps.append(hp)
        return hps

    def knock_outs(self, hps: list[int], down: list[bool]) -> Outcome | None:
        """Step 12: a wizard down loses; both down, the 5-HP rule revives them (``hps`` set)."""
        by_pwk = [("w", s) in self.killed for s in (0, 1)]
        if all(down):
            if all(by_pwk):
                return Outcome(None, DuelEnding.DRAW)
            if any(by_pwk):
                survivor = by_pwk.index(False)
                hps[survivor] = REVIVE_HP
                self.say("revive", [0, 1], seat=survivor, hp=hps[survivor], why="power_word_kill")
                return Outcome(survivor, DuelEnding.POWER_WORD_KILL)
            for seat in (0, 1):
                hps[seat] = REVIVE_HP
            self.say("revive", [0, 1], hp=REVIVE_HP, why="both")
            return None
        if any(down):
            loser = down.index(True)
            how = DuelEnding.POWER_WORD_KILL if by_pwk[loser] else DuelEnding.KNOCKED_OUT
            return Outcome(1 - loser, how)
        return None

    def surrender(self, down: list[bool], outcome: Outcome | None) -> Outcome | None:
        """Step 13: a surrender (P/P) ends the duel, whatever step 12 said (``outcome``)."""
        surrendered = [p.left == p.right == "P" for p in self.plans]
        if all(surrendered):
            self.say("surrender", [0, 1], why="both")
            return Outcome(None, DuelEnding.DRAW)
        if not any(surrendered):
            return outcome
        # A surrender always ends the duel. The quitter wins only if its own side (its spells,
        # its monsters) knocked the opponent out this turn, judged before any revival.
        quitter = surrendered.index(True)
        other = 1 - quitter
        if down[other] and ("w", other) in self.spell_hits[quitter]:
            self.say("surrender", [0, 1], seat=quitter, why="won")
            return Outcome(quitter, DuelEnding.KNOCKED_OUT)  # (P/P casts no Power Word Kill)
        self.say("surrender", [0, 1], seat=quitter, why="loses")
        return Outcome(other, DuelEnding.SURRENDER)

    def next_state(self, hps: list[int], monsters: tuple[Monster, ...], outcome: Outcome | None) -> DuelState:
        """Carry lasting effects into the next turn's wizards."""
        t = self.t
        choices: list[tuple[int, int]] = []
        wizards = []
        for seat, wizard in enumerate(self.state.wizards):
            paralysed = None
            if seat in self.paralysis and outcome is None:
                if wizard.paralysed is not None:
                    paralysed = wizard.paralysed  # forced: the hand already held
                    self.say(
                        "enchant",
                        [seat, self.paralysis[seat]],
                        spell="paralysis",
                        target=f"p{seat}",
                        hand=paralysed,
                        why="held",
                    )
                else:
                    choices.append((seat, self.paralysis[seat]))
            blind_from, blind_until, mark = wizard.blind_from, wizard.blind_until, wizard.blind_mark
            if seat in self.blinded:
                if wizard.blind_at(t + 1):
                    blind_until = max(blind_until, t + BLIND_TURNS)
                else:
                    blind_from, blind_until, mark = t + 1, t + BLIND_TURNS, self.next_monster
            # Every field, built at once (step 1's counted gestures join the histories here):
            # a new field of Wizard must be carried here too (tests/duel/test_edges.py checks).
            counted = self.plans[seat]
            wizards.append(
                _NEW_WIZARD(
                    hp=hps[seat],
                    max_hp=wizard.max_hp,
                    left=(*wizard.left, counted.left),
                    right=(*wizard.right, counted.right),
                    barrier=t if seat in self.anti_spell else wizard.barrier,
                    paralysed=paralysed,
                    feared=seat in self.feared,
                    blind_from=blind_from,
                    blind_until=blind_until,
                    blind_mark=mark,
                    resist_heat=wizard.resist_heat or ("w", seat) in self.new_resist,
                    clapped_alone=self.lone[seat],
                    last=self.subs[seat],
                )
            )
        return _NEW_STATE(
            turn=t + 1,
            wizards=(wizards[0], wizards[1]),
            monsters=monsters,
            next_monster=self.next_monster,
            submitted=(None, None),
            paralysis_choices=tuple(choices),
            chosen=(),
            outcome=outcome,
            events=tuple(self.events),
            events_turn=t,
        )


def resolve_turn(state: DuelState, submissions: tuple[Gestures, Gestures]) -> DuelState:
    """Resolve the turn once both wizards' submissions are in; returns the next turn's state."""
    turn = Turn(state, submissions)
    casts = turn.gather()
    if casts:  # (a turn that casts no spell, as many do, has nothing for steps 4 to 9 to do)
        turn.announce(casts)
        subjects = turn.counter(casts)
        turn.pwk_clash(casts)
        turn.summon(casts)
        turn.remove_instantly(casts)
        turn.protect(casts, subjects)
        turn.enchant(casts)
    turn.strike(casts)
    return turn.settle()
