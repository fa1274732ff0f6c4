"""The wizard duel behind the common game interface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.base import Outcome, replace
from p2pgenius.games.duel import state as st
from p2pgenius.games.duel.actions import (
    BARE,
    NOBODY,
    DuelAction,
    Gestures,
    Paralyze,
    Ref,
    Timeout,
    parse_action,
)
from p2pgenius.games.duel.resolve import Plan, plan, resolve_turn
from p2pgenius.games.duel.spells import HANDS, STAB
from p2pgenius.games.duel.state import DuelState, Wizard

DEFAULT_HP: Final = 15
MAX_SETUP_HP: Final = 1000
OPTION_KEYS: Final = ("turn_seconds", "fast")
TURN_SECONDS: Final = 60
_EVERY_PAIR: Final = tuple(BARE.values())
"""The 49 default submissions, made once: a random bot asks for them every turn (they are frozen,
so one tuple serves every state)."""
_YET_TO_SUBMIT: Final = {(True, True): (0, 1), (True, False): (0,), (False, True): (1,), (False, False): ()}
"""The seats to act outside a choice of paralysed hand, by whether each has yet to submit (asked
several times a turn by each peer: a look-up, not a tuple built from a generator)."""


class Duel:
    """The wizard duel (2 seats): simultaneous gestures, 16 spells, monsters."""

    name = "duel"
    OWN_SUMMONS_CHECKED: ClassVar[bool] = False
    """Rules 3 refused an order for a summons of the seat's own hand that summons nothing."""

    def initial(self, setup: Mapping[str, Any], options: Mapping[str, Any]) -> DuelState:
        """A new duel; setup may set ``hp`` for both wizards (default 15 each)."""
        unknown = set(setup) - {"hp"}
        if unknown:
            raise LocalMisuseError(f"duel setup: unknown field {sorted(unknown)[0]!r}")
        hp = setup.get("hp", [DEFAULT_HP, DEFAULT_HP])
        if (
            not isinstance(hp, list)
            or len(hp) != 2
            or not all(type(h) is int and 1 <= h <= MAX_SETUP_HP for h in hp)
        ):
            raise LocalMisuseError(f"duel setup: hp must be two whole numbers 1..{MAX_SETUP_HP}")
        check_options(options)
        # Setup HP is where the wizards start; healing caps at the normal maximum (or the setup
        # HP if higher), so an analysis position "at 5 HP" can still be cured.
        top = [max(h, DEFAULT_HP) for h in hp]
        return DuelState(turn=1, wizards=(Wizard(hp[0], top[0]), Wizard(hp[1], top[1])))

    def seats(self, state: DuelState) -> int:
        """Always two wizards."""
        return 2

    def to_act(self, state: DuelState) -> tuple[int, ...]:
        """Casters choosing paralysed hands first; otherwise wizards yet to submit."""
        if state.outcome is not None:
            return ()
        if state.paralysis_choices:
            done = {target for target, _ in state.chosen}
            return tuple(sorted({by for target, by in state.paralysis_choices if target not in done}))
        return _YET_TO_SUBMIT[state.submitted[0] is None, state.submitted[1] is None]

    # Every seat to act must act (no optional actions in the duel). (Bound here: an engine that
    # overrides to_act overrides this too.)
    waiting_on = to_act

    def legal_actions(self, state: DuelState, seat: int) -> Sequence[DuelAction]:
        """Stable order. Gestures: all 49 pairs with default targets (other targets, named spells
        and monster orders widen this set; see :func:`target_choices`). Paralysis: each hand."""
        if seat not in self.to_act(state):
            return ()
        if state.paralysis_choices:
            done = {target for target, _ in state.chosen}
            return tuple(
                Paralyze(target, hand)
                for target, by in state.paralysis_choices
                if by == seat and target not in done
                for hand in HANDS
            )
        return _EVERY_PAIR

    parse_action = staticmethod(parse_action)

    def apply(self, state: DuelState, seat: int, action: DuelAction) -> DuelState:
        """Record a submission or a paralysis choice; resolve the turn once all are in."""
        if seat not in (0, 1):
            raise IllegalActionError(f"no seat p{seat} in a duel (seats are p0 and p1)")
        if state.outcome is not None:
            raise IllegalActionError("the duel is over")
        if state.paralysis_choices:
            if seat not in self.to_act(state):
                raise IllegalActionError(f"p{seat} must wait: a paralysed hand is being chosen")
            return self._choose_paralysis(state, seat, action)
        if state.submitted[seat] is not None:  # (not to act: see to_act)
            raise IllegalActionError(f"p{seat} has already submitted for turn {state.turn}")
        if isinstance(action, Paralyze):
            raise IllegalActionError("no paralysis is waiting for a choice of hand")
        if isinstance(action, Timeout):
            action = repeat_submission(state, seat)
        else:
            validate(state, seat, action, own_summons=self.OWN_SUMMONS_CHECKED)
        other = state.submitted[1 - seat]
        if other is None:
            return replace(state, submitted=(action, None) if seat == 0 else (None, action))
        return resolve_turn(state, (action, other) if seat == 0 else (other, action))

    def _choose_paralysis(self, state: DuelState, seat: int, action: DuelAction) -> DuelState:
        open_choices = [
            target
            for target, by in state.paralysis_choices
            if by == seat and target not in {t for t, _ in state.chosen}
        ]
        if isinstance(action, Timeout):
            # A missed choice takes the first legal one in the stable order: the left hand.
            action = Paralyze(open_choices[0], "left")
        if not isinstance(action, Paralyze):
            raise IllegalActionError(f"p{seat} must first choose which hand the paralysis holds")
        if action.target not in open_choices:
            raise IllegalActionError(f"p{seat} has no paralysis on p{action.target} to place")
        chosen = (*state.chosen, (action.target, action.hand))
        if len(chosen) < len(state.paralysis_choices):
            return replace(state, chosen=chosen)
        wizards = list(state.wizards)
        for target, hand in chosen:
            wizards[target] = replace(wizards[target], paralysed=hand)
        told: list[dict[str, Plain]] = [
            {
                "type": "enchant",
                "blind_sees": [0, 1],
                "spell": "paralysis",
                "target": f"p{target}",
                "hand": hand,
                "why": "chosen",
            }
            for target, hand in chosen
        ]
        return replace(
            state,
            wizards=(wizards[0], wizards[1]),
            paralysis_choices=(),
            chosen=(),
            events=(*state.events, *told),
        )

    def outcome(self, state: DuelState) -> Outcome | None:
        """The result, once a wizard is down, someone surrendered or both drew."""
        return state.outcome

    full = staticmethod(st.full)
    public = staticmethod(st.public)
    public_canonical = staticmethod(st.public_canonical)
    view = staticmethod(st.view)

    def events(self, state: DuelState) -> tuple[dict[str, Plain], ...]:
        """What the last turn did."""
        return state.events


def check_options(options: Mapping[str, Any]) -> None:
    """Refuse unknown or malformed duel options (the engine itself never reads the clock)."""
    for key, value in options.items():
        if key not in OPTION_KEYS:
            raise LocalMisuseError(f"duel options: unknown option {key!r}")
        if key == "turn_seconds" and not (type(value) is int and value > 0):
            raise LocalMisuseError("duel options: turn_seconds must be a positive whole number")
        if key == "fast" and type(value) is not bool:
            raise LocalMisuseError("duel options: fast must be true or false")


def validate(state: DuelState, seat: int, action: Gestures, *, own_summons: bool = False) -> None:
    """Refuse a submission whose named spells, targets or orders the rules do not allow
    (``own_summons``: rules 3's order check, see :class:`DuelRules3`)."""
    if not (action.spells or action.targets or action.monsters):
        return  # (two gestures alone, most submissions: nothing to refuse, no plan to work out)
    wizard = state.wizards[seat]
    try:
        intent = plan(wizard, action, strict=True)
    except ValueError as exc:
        raise IllegalActionError(str(exc)) from None
    if action.targets:  # (most submissions name no target and give no order)
        _check_targets(state, seat, action, intent)
    if action.monsters:
        _check_orders(state, seat, action, intent)
    if own_summons:
        for monster, _ in action.monsters:
            summons = intent.spell(monster.hand) in ("summon_goblin", "summon_ogre")
            if monster.kind != "monster" and monster.seat == seat and not summons:
                raise IllegalActionError(
                    f"order for {monster}: that hand is not summoning a goblin or ogre this turn"
                )


def _check_targets(state: DuelState, seat: int, action: Gestures, intent: Plan) -> None:
    """Each hand's target: one that exists, and one its spell or its stab may have."""
    for hand, ref in action.targets:
        _check_exists(state, ref, f"{hand} hand")
        spell = intent.spell(hand)
        if spell == "summon_fire_elemental" and ref.kind != "wizard":
            raise IllegalActionError(f"{hand} hand: Summon Fire Elemental must target a wizard")
        if spell in ("summon_goblin", "summon_ogre") and _is_elemental(state, ref):
            raise IllegalActionError(f"{hand} hand: a summon cannot target an elemental ({ref})")
        if intent.gesture(hand) == STAB and ref == Ref("wizard", seat=seat):
            raise IllegalActionError(f"{hand} hand: a wizard cannot stab itself")


def _check_orders(state: DuelState, seat: int, action: Gestures, intent: Plan) -> None:
    """Each monster order: for a monster on the field that ``seat`` controls (any but a fire
    elemental if it casts Charm Monster this turn), or for a summons of this turn, and never at
    itself. An order for a summons (``p<s>.left``) is one rule for every hand of both wizards,
    the seat's own included: it is accepted whatever the hand does, and counts only if that hand
    summons a goblin or ogre that serves ``seat``; the other wizard's hands cannot be known when
    a sealed submission is checked, so no hand's can be refused."""
    charming = intent.casts("charm_monster")
    for monster, target in action.monsters:
        _check_exists(state, target, f"order for {monster}")
        if monster == target:
            raise IllegalActionError(f"order for {monster}: a monster cannot attack itself")
        if monster.kind != "monster":
            continue
        found = state.monster(monster.monster)
        if found is None:
            raise IllegalActionError(f"order for {monster}: there is no monster {monster}")
        if found.kind == "fire_elemental":
            raise IllegalActionError(
                f"order for {monster}: a fire elemental attacks everyone and takes no orders"
            )
        if found.controller != seat and not charming:
            raise IllegalActionError(f"order for {monster}: that monster is not under your control")


def _check_exists(state: DuelState, ref: Ref, what: str) -> None:
    if ref.kind == "monster" and state.monster(ref.monster) is None:
        raise IllegalActionError(f"{what}: there is no monster {ref}")


def _is_elemental(state: DuelState, ref: Ref) -> bool:
    found = state.monster(ref.monster) if ref.kind == "monster" else None
    return found is not None and found.kind == "fire_elemental"


def repeat_submission(state: DuelState, seat: int) -> Gestures:
    """A missed turn repeats the previous submission, minus what no longer makes sense (spell
    names that no longer complete, targets and orders naming monsters that are gone)."""
    return sanitize(state, seat, state.wizards[seat].last or Gestures("-", "-"))


def sanitize(state: DuelState, seat: int, last: Gestures) -> Gestures:
    """``last`` made legal now, part by part (used for a missed turn's repeated submission and for
    a blinded wizard's choices, made without seeing the field). The gestures always stay; each
    spell name, then each target (left hand, then right), then each monster order (in the order
    of their names) is kept if, added to what was kept so far, the submission is still legal, and
    otherwise falls back to its default (a monster that is gone, a stab that step 1 turned on
    oneself, an order for a monster no longer controlled...)."""
    kept = Gestures(last.left, last.right)  # always legal
    for named in last.spells:
        candidate = replace(kept, spells=(*kept.spells, named))
        if _legal(state, seat, candidate):
            kept = candidate
    for hand, ref in last.targets:
        candidate = replace(kept, targets=(*kept.targets, (hand, ref)))
        if _legal(state, seat, candidate):
            kept = candidate
    for order in last.monsters:
        candidate = replace(kept, monsters=(*kept.monsters, order))
        if _legal(state, seat, candidate):
            kept = candidate
    return kept


def _legal(state: DuelState, seat: int, action: Gestures) -> bool:
    try:
        validate(state, seat, action)
    except IllegalActionError:
        return False
    return True


def target_choices(state: DuelState) -> tuple[str, ...]:
    """Every target name that may be given this turn, in a stable order (for bots and the UI)."""
    names = ["p0", "p1"] + [monster.name for monster in state.monsters]
    names += [f"p{s}.{hand}" for s in (0, 1) for hand in HANDS]
    return (*names, NOBODY)


DUEL: Final = Duel()


class DuelRules3(Duel):
    """The duel of rules version 3, for an observer replaying a match of that version (SPEC.md
    section 8): the same play, but its public state and views give no ``hand`` in
    ``paralysis_choices``, so the first of a caster's two choices did not change the state hash;
    and it refuses an order for a summons of the seat's own hand when that hand summons nothing,
    as rules 3 did (a rules-3 peer convicted such an order: its transcript must say so again)."""

    OWN_SUMMONS_CHECKED: ClassVar[bool] = True

    def public(self, state: DuelState) -> dict[str, Plain]:
        """What both peers agreed on under rules version 3."""
        return _without_hands(st.public(state))

    def public_canonical(self, state: DuelState) -> dict[str, Plain]:
        """:meth:`public` in canonical shape (``games.base.state_hash``): a choice's keys stay
        in order without its hand."""
        return _without_hands(st.public_canonical(state))

    def view(self, state: DuelState, seat: int) -> dict[str, Plain]:
        """A seat's view (a blindness claim's body) under rules version 3."""
        return _without_hands(st.view(state, seat))


def _without_hands(plain: dict[str, Plain]) -> dict[str, Plain]:
    choices = plain["paralysis_choices"]
    assert isinstance(choices, list)
    plain["paralysis_choices"] = [
        {key: value for key, value in choice.items() if key != "hand"}
        for choice in choices
        if isinstance(choice, dict)
    ]
    return plain


DUEL_RULES_3: Final = DuelRules3()
