"""The wizard duel's immutable state and its plain forms (full, public, per-seat view)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from p2pgenius.canonical import Plain, normalise
from p2pgenius.games.base import Ending, Outcome
from p2pgenius.games.duel.actions import Gestures
from p2pgenius.games.duel.spells import HANDS

MONSTER_HP: Final = {"goblin": 1, "ogre": 2, "fire_elemental": 3}
"""Starting HP, which is also the damage each kind deals."""

REVIVE_HP: Final = 5
BLIND_TURNS: Final = 3
HIDDEN: Final = "?"


class DuelEnding(Ending):
    """How a duel ends (the ``reason`` of its outcome, protocol/games.md)."""

    KNOCKED_OUT = "knocked_out"
    POWER_WORD_KILL = "power_word_kill"
    SURRENDER = "surrender"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Wizard:
    """One wizard. Histories hold the gestures as the engine counted them, one per turn."""

    hp: int
    max_hp: int
    left: tuple[str, ...] = ()
    right: tuple[str, ...] = ()
    barrier: int = 0  # anti-spell: gestures before this index no longer count
    paralysed: str | None = None  # the hand that repeats its previous gesture this turn
    feared: bool = False  # this turn C, D and S count as nothing
    blind_from: int = 0  # blind during turns blind_from..blind_until (0: never)
    blind_until: int = 0
    blind_mark: int = 0  # monsters numbered below this existed when the blindness began
    resist_heat: bool = False
    clapped_alone: str | None = None  # the hand that clapped alone last turn (counted as nothing)
    last: Gestures | None = None  # the previous submission, repeated on a timeout

    def history(self, hand: str) -> tuple[str, ...]:
        """The gesture history of ``hand``."""
        return self.left if hand == "left" else self.right

    def blind_at(self, turn: int) -> bool:
        """Whether this wizard cannot see during ``turn``."""
        return self.blind_from <= turn <= self.blind_until and self.blind_from > 0


@dataclass(frozen=True, slots=True)
class Monster:
    """A summoned monster; ``number`` is k of its name ``m<k>``."""

    number: int
    kind: str
    controller: int
    hp: int
    resist_heat: bool = False
    paralysed_turn: int = 0  # it makes no attack during this turn

    @property
    def name(self) -> str:
        """The monster's target name, ``m<k>``."""
        return f"m{self.number}"


@dataclass(frozen=True, slots=True)
class DuelState:
    """Everything about a duel between two complete steps (or part-way through a simultaneous one)."""

    turn: int
    wizards: tuple[Wizard, Wizard]
    monsters: tuple[Monster, ...] = ()
    next_monster: int = 1
    submitted: tuple[Gestures | None, Gestures | None] = (None, None)
    paralysis_choices: tuple[tuple[int, int], ...] = ()  # (target wizard, choosing caster)
    chosen: tuple[tuple[int, str], ...] = ()  # (target wizard, hand) chosen so far
    outcome: Outcome | None = None
    events: tuple[dict[str, Plain], ...] = field(default=())
    events_turn: int = 0  # the turn whose resolution produced ``events``

    def monster(self, number: int) -> Monster | None:
        """The living monster ``m<number>``, if any."""
        for monster in self.monsters:
            if monster.number == number:
                return monster
        return None


WIZARD_ORDER: Final = (
    "hp",
    "max_hp",
    "left",
    "right",
    "anti_spell_from",
    "paralysed",
    "feared",
    "blind_turns_left",
    "blind_from",
    "blind_until",
    "resist_heat",
    "clapped_alone",
)
"""The order of a wizard's fields in :func:`public`, the order ``sim`` prints them in (the state
hash's form, :func:`public_canonical`, has every map's fields in the order of their names)."""
MONSTER_ORDER: Final = ("id", "kind", "controller", "hp", "resist_heat", "paralysed_turn")
"""The order of a monster's fields in :func:`public` (see :data:`WIZARD_ORDER`)."""
CHOICE_ORDER: Final = ("target", "by", "hand")
"""The order of a Paralysis choice's fields in :func:`public` (see :data:`WIZARD_ORDER`)."""


def _wizard_shaped(wizard: Wizard, turn: int) -> dict[str, Plain]:
    return {
        "anti_spell_from": wizard.barrier,
        "blind_from": wizard.blind_from,
        "blind_turns_left": max(0, wizard.blind_until - turn + 1) if wizard.blind_at(turn) else 0,
        "blind_until": wizard.blind_until,
        "clapped_alone": wizard.clapped_alone,
        "feared": wizard.feared,
        "hp": wizard.hp,
        "left": "".join(wizard.left),
        "max_hp": wizard.max_hp,
        "paralysed": wizard.paralysed,
        "resist_heat": wizard.resist_heat,
        "right": "".join(wizard.right),
    }


def _monster_shaped(monster: Monster) -> dict[str, Plain]:
    return {
        "controller": monster.controller,
        "hp": monster.hp,
        "id": monster.name,
        "kind": monster.kind,
        "paralysed_turn": monster.paralysed_turn,
        "resist_heat": monster.resist_heat,
    }


def _choices_shaped(state: DuelState) -> list[Plain]:
    """The Paralysis choices of hand the duel waits on, each with the hand once chosen (a caster
    owing two makes them in two stages: the first one is part of the state between them)."""
    if not state.paralysis_choices:
        return []
    hands = dict(state.chosen)
    return [
        {"by": chooser, "hand": hands.get(target), "target": f"p{target}"}
        for target, chooser in state.paralysis_choices
    ]


def _ordered(shaped: dict[str, Plain], order: tuple[str, ...]) -> dict[str, Plain]:
    """``shaped``'s fields in ``order``."""
    return {key: shaped[key] for key in order}


def public_canonical(state: DuelState) -> dict[str, Plain]:
    """The state every peer agrees on after a complete step (submissions in progress are left
    out), built in canonical shape, as ``canonical.normalise`` makes it (every map's keys in the
    order of their names, lists): the state hash packs it as it is (``games.base.state_hash``),
    each peer hashing every state, and normalising was two thirds of a hash. :func:`public` is
    the same fields in their own order (tests/duel/test_state_hash.py compares the two)."""
    turn = state.turn
    return {
        "monsters": [_monster_shaped(monster) for monster in state.monsters],
        "next_monster": state.next_monster,
        "outcome": None if state.outcome is None else normalise(state.outcome.to_plain()),
        "paralysis_choices": _choices_shaped(state),
        "turn": turn,
        "wizards": [_wizard_shaped(wizard, turn) for wizard in state.wizards],
    }


def public(state: DuelState) -> dict[str, Plain]:
    """:func:`public_canonical`'s fields in the order ``sim`` prints them (:data:`WIZARD_ORDER`
    and the others), the outcome in its own order."""
    shaped = public_canonical(state)
    return {
        "turn": shaped["turn"],
        "wizards": [_ordered(wizard, WIZARD_ORDER) for wizard in shaped["wizards"]],
        "monsters": [_ordered(monster, MONSTER_ORDER) for monster in shaped["monsters"]],
        "next_monster": shaped["next_monster"],
        "paralysis_choices": [_ordered(choice, CHOICE_ORDER) for choice in shaped["paralysis_choices"]],
        "outcome": None if state.outcome is None else state.outcome.to_plain(),
    }


def full(state: DuelState) -> dict[str, Plain]:
    """Everything, including submissions not yet resolved (what ``p2pgenius sim`` prints)."""
    plain = public(state)
    plain["submitted"] = [None if sub is None else sub.to_plain() for sub in state.submitted]
    plain["paralysis_chosen"] = [{"target": f"p{t}", "hand": h} for t, h in state.chosen]
    return plain


def view(state: DuelState, seat: int) -> dict[str, Plain]:
    """What ``seat`` may know: its own everything; the opponent's submission only as "chosen"; and,
    while blinded, none of the opponent's gestures, HP or status from its blind turns, only events
    that concern it, and of the opponent's monsters only those it saw before going blind."""
    me = state.wizards[seat]
    other = 1 - seat
    plain = public(state)
    plain["seat"] = seat
    plain["submitted"] = [
        (None if sub is None else (sub.to_plain() if index == seat else "chosen"))
        for index, sub in enumerate(state.submitted)
    ]
    plain["events"] = list(state.events)
    if not me.blind_at(state.turn):
        return plain
    opponent = plain["wizards"][other]
    hidden_from = me.blind_from - 1  # history index of the first blind turn
    for hand in HANDS:
        seen = opponent[hand][:hidden_from]
        opponent[hand] = seen + HIDDEN * (len(opponent[hand]) - len(seen))
    for key in (
        "hp",
        "paralysed",
        "feared",
        "blind_turns_left",
        "blind_from",
        "blind_until",
        "resist_heat",
        "anti_spell_from",
        "clapped_alone",
    ):
        opponent[key] = None
    plain["monsters"] = [
        (
            _ordered(_monster_shaped(monster), MONSTER_ORDER)
            if monster.controller == seat
            else {"id": monster.name, "kind": monster.kind, "controller": None, "hp": None}
        )
        for monster in state.monsters
        if monster.controller == seat or monster.number < me.blind_mark
    ]
    plain["next_monster"] = None
    plain["paralysis_choices"] = [
        choice
        for choice, (target, chooser) in zip(plain["paralysis_choices"], state.paralysis_choices, strict=True)
        if seat in (target, chooser)
    ]
    plain["outcome"] = None if state.outcome is None else state.outcome.to_plain()
    if state.events_turn >= me.blind_from:
        plain["events"] = [event for event in state.events if seat in event["blind_sees"]]
    return plain
