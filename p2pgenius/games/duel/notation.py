"""The wizard duel in the notation of ``p2pgenius export``: one line a stage (docs/export.md).

A turn: ``p0: L=S R=D -> Missile at p1 | p1: L=P R=> -> Shield at p1; p0 15->14 HP``. Each seat's
gestures as submitted (``@T`` after a gesture: the target that hand named; ``mK@T``: a monster
order; ``(G)`` after a gesture: what the engine counted it as, if it differs), the spells it cast,
then what the turn did that the gestures do not say: HP changes, monsters, enchantments, blocks.
A Paralysis choice: ``p0 holds p1's left hand``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError
from p2pgenius.games.duel.actions import Gestures, Paralyze, parse_action
from p2pgenius.games.duel.resolve import default_target
from p2pgenius.games.duel.spells import BY_NAME, HANDS
from p2pgenius.games.duel.state import DuelState
from p2pgenius.games.duel.words import words
from p2pgenius.games.spec import Played

SHORT_HAND: Final = {"left": "L", "right": "R"}
ENCHANTED: Final = {
    "paralysis": "paralysed",
    "fear": "afraid",
    "anti_spell": "anti-spelled",
    "blindness": "blinded",
}
"""What each enchantment makes of its target, in the effects of a turn."""


def moves(initial: DuelState, steps: Sequence[Played]) -> list[str]:
    """One line per stage: a turn, or the Paralysis choices that follow one."""
    lines = []
    before = initial
    for step in steps:
        if before.paralysis_choices:
            lines.append(", ".join(_choice(before, seat, action) for seat, action in step.actions))
        else:
            lines.append(_turn(before, step.actions, step.events, step.state))
        before = step.state
    return lines


def _choice(before: DuelState, seat: int, action: Plain) -> str:
    """A Paralysis choice (a timeout holds the left hand of the first wizard waiting)."""
    try:
        parsed = parse_action(action)
    except IllegalActionError:
        return f"p{seat} {action}"
    if isinstance(parsed, Paralyze):
        return f"p{seat} holds p{parsed.target}'s {parsed.hand} hand"
    waiting = [target for target, by in before.paralysis_choices if by == seat]
    held = f": p{waiting[0]}'s left hand held" if waiting else ""
    return f"p{seat} times out{held}"


def _turn(
    before: DuelState, actions: Sequence[tuple[int, Plain]], events: Sequence[Plain], after: DuelState
) -> str:
    """Both wizards' gestures and casts, then the turn's effects."""
    counted: dict[tuple[int, str], str] = {}
    casts: dict[int, list[str]] = {}
    effects: list[str] = []
    for event in events:
        if not isinstance(event, Mapping):
            continue
        kind = event.get("type")
        if kind == "rewrite":
            counted[(_int(event.get("seat")), str(event.get("hand")))] = str(event.get("counted"))
        elif kind == "cast":
            casts.setdefault(_int(event.get("seat")), []).append(_cast(event))
        elif kind in ("fizzle", "miss") and "seat" in event and "spell" in event:
            _mark(casts, event, "countered" if kind == "fizzle" else "misses")
        elif kind == "fizzle" and event.get("by") == "power_word_kill":
            for seat_casts in casts.values():
                seat_casts[:] = [
                    f"{cast} (clash)" if cast.startswith("Power Word Kill") else cast for cast in seat_casts
                ]
        else:
            effect = _effect(before, event)
            if effect:
                effects.append(effect)
    read = _Told(before, after, counted, casts)
    seats = " | ".join(
        _submission(read, seat, action) for seat, action in sorted(actions, key=lambda pair: pair[0])
    )
    return seats + (f"; {', '.join(_counted(effects))}" if effects else "")


@dataclass(frozen=True, slots=True)
class _Told:
    """A turn as its events told it: the states either side of it, the gesture each hand was
    counted as (where step 1 rewrote it), and each wizard's casts in words."""

    before: DuelState
    after: DuelState
    counted: Mapping[tuple[int, str], str]
    casts: Mapping[int, Sequence[str]]


def _submission(told: _Told, seat: int, action: Plain) -> str:
    """``p0: L=S R=D@m1 m2@p1 -> Missile at p1``."""
    before, after, counted, casts = told.before, told.after, told.counted, told.casts.get(seat, [])
    try:
        parsed = parse_action(action)
    except IllegalActionError:
        return f"p{seat}: {action}"
    words = []
    if isinstance(parsed, Gestures):
        targets = dict(parsed.targets)
        for hand in HANDS:
            gesture = parsed.gesture(hand)
            word = f"{SHORT_HAND[hand]}={gesture}"
            if hand in targets:
                word += f"@{targets[hand]}"
            if counted.get((seat, hand), gesture) != gesture:
                word += f"({counted[(seat, hand)]})"
            words.append(word)
        words += [f"{monster}@{target}" for monster, target in parsed.monsters]
    else:  # a timeout: the engine repeated the last submission; these are the gestures it counted
        words.append("timeout")
        wizard, earlier = after.wizards[seat], before.wizards[seat]
        for hand in HANDS:
            history = wizard.history(hand)
            if len(history) > len(earlier.history(hand)):
                words.append(f"{SHORT_HAND[hand]}={history[-1]}")
    text = f"p{seat}: {' '.join(words)}"
    return text + (f" -> {', '.join(_collapsed(casts))}" if casts else "")


def _collapsed(casts: Sequence[str]) -> list[str]:
    """The same cast by both hands once, with ``x2``."""
    out: list[str] = []
    for cast in casts:
        if out and out[-1] == cast:
            out[-1] = f"{cast} x2"
        else:
            out.append(cast)
    return out


def _counted(effects: Sequence[str]) -> list[str]:
    """Each effect once, where it first happened, with ``xN`` if it happened N > 1 times."""
    counts: dict[str, int] = {}
    for effect in effects:
        counts[effect] = counts.get(effect, 0) + 1
    return [effect if n == 1 else f"{effect} x{n}" for effect, n in counts.items()]


def _cast(event: Mapping[str, Plain]) -> str:
    """``Missile``, or ``Missile at m1`` when its subject is not the spell's default one."""
    name, seat, target = str(event.get("spell")), _int(event.get("seat")), event.get("target")
    spell = BY_NAME.get(name)
    if spell is None:
        return name
    default = default_target(name, seat)
    if target is None or (default is not None and target == str(default)):
        return spell.title
    return f"{spell.title} at {target}"


def _mark(casts: dict[int, list[str]], event: Mapping[str, Plain], why: str) -> None:
    """Mark the first cast of that seat and spell (not yet marked) as stopped."""
    spell = BY_NAME.get(str(event.get("spell")))
    if spell is None:
        return
    seat_casts = casts.get(_int(event.get("seat")), [])
    for index, cast in enumerate(seat_casts):
        if cast.startswith(spell.title) and not cast.endswith(")"):
            seat_casts[index] = f"{cast} ({why})"
            return


def _effect(before: DuelState, event: Mapping[str, Plain]) -> str:
    """A turn's event in a few words ("" for those the line already says, or says by HP)."""
    kind = event.get("type")
    if kind == "hp":
        seat = _int(event.get("seat"))
        return f"p{seat} {before.wizards[seat].hp}->{event.get('hp')} HP"
    if kind == "summon":
        what = str(event.get("kind", "monster")).replace("_", " ")
        return f"{event.get('monster')} {what} (p{event.get('controller')})"
    if kind == "death":
        return f"{event.get('monster')} dies"
    if kind == "destroyed":
        return f"{event.get('monster')} destroyed"
    if kind == "merge":
        return f"fire elementals merge into {event.get('monster')}"
    if kind == "charm":
        return f"{event.get('monster')} obeys p{event.get('controller')}"
    if kind == "enchant" and event.get("spell") in ENCHANTED and event.get("why") is None:
        return f"{event.get('target')} {ENCHANTED[str(event.get('spell'))]}"
    if kind in ("enchant", "kill", "surrender", "revive", "fizzle"):
        return words(event).split(":", maxsplit=1)[0]
    return ""  # cast, rewrite: said by the gestures; damage, blocked, miss, idle: by the HP


def _int(value: Plain) -> int:
    return value if type(value) is int else -1
