"""The wizard duel's actions, in their plain form (docs/sim.md), validated on parse."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, shown
from p2pgenius.games.base import action_type, only_fields
from p2pgenius.games.duel.spells import BY_NAME, GESTURES, HANDS

_WIZARD: Final = re.compile(r"p([01])")
_MONSTER: Final = re.compile(r"m([1-9][0-9]{0,5})")
_SUMMONING: Final = re.compile(r"p([01])\.(left|right)")
NOBODY: Final = "nobody"
"""The target of a deliberate miss: every targeted spell, stab and monster order accepts it, except
Summon Fire Elemental, which must be cast on a wizard."""


@dataclass(frozen=True, slots=True)
class Ref:
    """A target: a wizard (``p0``), an existing monster (``m3``), a summon this turn (``p1.left``)
    or ``nobody`` (a deliberate miss)."""

    kind: str  # "wizard" | "monster" | "summoning" | "nobody"
    seat: int = -1  # wizard seat, or the summoning seat
    monster: int = 0  # monster number k of "m<k>"
    hand: str = ""  # the summoning hand

    @classmethod
    def parse(cls, text: Any, what: str) -> Ref:
        """Parse a target string; raises IllegalActionError naming ``what`` it was for."""
        if not isinstance(text, str):
            raise IllegalActionError(
                f"{what}: target must be a string like p1, m2, p0.left or nobody, got {shown(text)}"
            )
        if text == NOBODY:
            return cls("nobody")
        if match := _WIZARD.fullmatch(text):
            return cls("wizard", seat=int(match[1]))
        if match := _MONSTER.fullmatch(text):
            return cls("monster", monster=int(match[1]))
        if match := _SUMMONING.fullmatch(text):
            return cls("summoning", seat=int(match[1]), hand=match[2])
        raise IllegalActionError(
            f"{what}: unknown target {shown(text)} (use p0, p1, m<k>, p<s>.left or nobody)"
        )

    def __str__(self) -> str:
        if self.kind == "nobody":
            return NOBODY
        if self.kind == "wizard":
            return f"p{self.seat}"
        if self.kind == "monster":
            return f"m{self.monster}"
        return f"p{self.seat}.{self.hand}"


def _hand_map(data: Any, field: str) -> Mapping[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise IllegalActionError(f"{field} must be an object keyed by hand, got {shown(data)}")
    for hand in data:
        if hand not in HANDS:
            raise IllegalActionError(f"{field}: unknown hand {shown(hand)} (use left or right)")
    return data


@dataclass(frozen=True, slots=True)
class Gestures:
    """One wizard's submission for a turn: a gesture per hand, plus optional targets, spell choices
    and monster orders (each a sorted tuple of pairs, so the value is hashable and canonical)."""

    left: str
    right: str
    targets: tuple[tuple[str, Ref], ...] = ()
    spells: tuple[tuple[str, str], ...] = ()
    monsters: tuple[tuple[Ref, Ref], ...] = ()

    def gesture(self, hand: str) -> str:
        """The gesture of ``hand`` as submitted."""
        return self.left if hand == "left" else self.right

    def target(self, hand: str) -> Ref | None:
        """The named target of ``hand``, if any."""
        for named, ref in reversed(self.targets):  # (the last pair of a hand, as a dict would)
            if named == hand:
                return ref
        return None

    def spell(self, hand: str) -> str | None:
        """The spell named for ``hand``, if any."""
        for named, spell in reversed(self.spells):
            if named == hand:
                return spell
        return None

    def to_plain(self) -> dict[str, Plain]:
        """The contract form."""
        plain: dict[str, Plain] = {"type": "gestures", "left": self.left, "right": self.right}
        if self.targets:
            plain["targets"] = {hand: str(ref) for hand, ref in self.targets}
        if self.spells:
            plain["spells"] = dict(self.spells)
        if self.monsters:
            plain["monsters"] = {str(monster): str(ref) for monster, ref in self.monsters}
        return plain

    @classmethod
    def from_plain(cls, data: Mapping[str, Any]) -> Gestures:
        """Parse the contract form (``type`` already checked)."""
        left, right = data.get("left"), data.get("right")
        if len(data) == 3 and "type" in data and type(left) is str and type(right) is str and cls is Gestures:
            # Two gestures and nothing else (its three keys are ``type``, ``left`` and ``right``):
            # most submissions, parsed three times a turn on each peer. The 49 valid pairs are
            # made once; anything else takes the general path, which says what is wrong.
            bare = BARE.get((left, right))
            if bare is not None:
                return bare
        return cls.parsed(data)

    @classmethod
    def parsed(cls, data: Mapping[str, Any]) -> Gestures:
        """The contract form parsed field by field (what :meth:`from_plain` gives for any value)."""
        only_fields(data, "left", "right", "targets", "spells", "monsters")
        hands = []
        for hand in HANDS:
            gesture = data.get(hand)
            if gesture not in GESTURES:
                raise IllegalActionError(
                    f"{hand} hand: gesture must be one of C D P S W > -, got {shown(gesture)}"
                )
            hands.append(gesture)
        targets = _hand_map(data.get("targets"), "targets")
        spells = _hand_map(data.get("spells"), "spells")
        for hand, name in spells.items():
            if not isinstance(name, str) or name not in BY_NAME:  # (a list is not even hashable)
                raise IllegalActionError(f"{hand} hand: unknown spell {shown(name)}")
        orders = data.get("monsters")
        if orders is None:
            orders = {}
        if not isinstance(orders, Mapping):
            raise IllegalActionError(f"monsters must be an object: monster -> target, got {shown(orders)}")
        parsed_orders = []
        for monster, target in orders.items():
            ref = Ref.parse(monster, "monster order")
            if ref.kind in ("wizard", "nobody"):
                raise IllegalActionError(f"monster order: {monster!r} is not a monster")
            parsed_orders.append((ref, Ref.parse(target, f"order for {monster}")))
        return cls(
            left=hands[0],
            right=hands[1],
            targets=tuple(
                (hand, Ref.parse(targets[hand], f"{hand} hand")) for hand in HANDS if hand in targets
            ),
            spells=tuple((hand, spells[hand]) for hand in HANDS if hand in spells),
            monsters=tuple(sorted(parsed_orders, key=lambda pair: str(pair[0]))),
        )


BARE: Final = {(left, right): Gestures(left, right) for left in GESTURES for right in GESTURES}
"""Each of the 49 submissions of two gestures alone, by its pair."""


@dataclass(frozen=True, slots=True)
class Paralyze:
    """The caster of a Paralysis on a wizard picks which of that wizard's hands it holds."""

    target: int
    hand: str

    def to_plain(self) -> dict[str, Plain]:
        """The contract form."""
        return {"type": "paralyze", "target": f"p{self.target}", "hand": self.hand}

    @classmethod
    def from_plain(cls, data: Mapping[str, Any]) -> Paralyze:
        """Parse the contract form (``type`` already checked)."""
        only_fields(data, "target", "hand")
        ref = Ref.parse(data.get("target"), "paralyze")
        if ref.kind != "wizard":
            raise IllegalActionError("paralyze: target must be a wizard (p0 or p1)")
        hand = data.get("hand")
        if hand not in HANDS:
            raise IllegalActionError(f"paralyze: hand must be left or right, got {shown(hand)}")
        return cls(ref.seat, hand)


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat missed its submission; the engine repeats its previous one."""

    def to_plain(self) -> dict[str, Plain]:
        """The contract form."""
        return {"type": "timeout"}


DuelAction = Gestures | Paralyze | Timeout


def _timeout(data: Mapping[str, Any]) -> Timeout:
    only_fields(data)
    return Timeout()


_PARSERS: Final[dict[str, Callable[[Mapping[str, Any]], DuelAction]]] = {
    "gestures": Gestures.from_plain,
    "paralyze": Paralyze.from_plain,
    "timeout": _timeout,
}


def parse_action(data: Any) -> DuelAction:
    """Build a duel action from its plain form. Total: any value a peer may send is an action or
    an IllegalActionError saying which field was wrong and what came, never another error."""
    if type(data) is dict and data.get("type") == "gestures":  # (a submission: most actions)
        return Gestures.from_plain(data)
    return _PARSERS[action_type(data, _PARSERS, "the duel")](data)
