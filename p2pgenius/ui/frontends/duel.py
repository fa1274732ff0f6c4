"""The wizard duel's front end: both wizards and their gesture histories, gestures typed as
"S D" with targets and spells, completions that say what each gesture pair casts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from p2pgenius.games.duel.actions import NOBODY
from p2pgenius.games.duel.engine import DUEL, target_choices
from p2pgenius.games.duel.spells import BY_NAME, GESTURES, HANDS, completions, next_gestures
from p2pgenius.ui.frontends.base import Choice, FrontEnd, InputError, Parsed, register_frontend
from p2pgenius.ui.lines import Glyphs, Line, seat_name

HELP: Final = (
    "Type both hands' gestures, left then right: S D, or SD.  C clap (both hands), D digit,\n"
    "P palm, S snap, W wave, > stab, - nothing.  Then, optionally: left=p1 (a hand's target),\n"
    "left:missile (a shorter spell the gestures also complete), m1=p1 (a monster's target).\n"
    "paralyze p1 left: after your Paralysis, choose the hand.  P with both hands surrenders."
)


class DuelFrontEnd(FrontEnd):
    """The duel in the terminal UI."""

    help = HELP
    styles: Mapping[str, str] = {
        "hp": "bold",
        "hp.bar": "ansired",
        "gestures": "bold",
        "monster": "ansimagenta",
    }

    def board(
        self,
        view: Mapping[str, Any],
        names: Mapping[int, str],
        glyphs: Glyphs,
        *,
        hints: bool,
        mine: Sequence[int],
    ) -> list[Line]:
        return duel_board(view, names, glyphs)

    def describe(self, action: Mapping[str, Any]) -> str:
        """Gestures in the input syntax ("S D left=p1"); anything else as the generic words."""
        if action.get("type") == "gestures":
            return gestures_text(action)
        return super().describe(action)

    def parse(self, text: str, state: Any, seat: int) -> Parsed:
        return parse_duel(text.split())

    def choices(self, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
        return duel_choices(state, seat, typed)

    def blind_choices(self, typed: str, seat: int) -> list[Choice]:
        return blind_choices(typed)


# -- the board ------------------------------------------------------------------------------------


def duel_board(view: Mapping[str, Any], names: Mapping[int, str], glyphs: Glyphs) -> list[Line]:
    """Both wizards (HP, effects, both gesture histories), the monsters, what each of your hands
    can complete next, and whether each side has chosen this turn."""
    me = int(view.get("seat", 0))
    lines: list[Line] = [[("class:title", f" Turn {view['turn']}")]]
    for seat in (me, 1 - me):
        wizard = view["wizards"][seat]
        who = "you" if seat == me else "opponent"
        hp, top = wizard.get("hp"), wizard.get("max_hp", 15)
        if isinstance(hp, int):
            bar = glyphs.bar * max(hp, 0) + glyphs.gap * max(top - hp, 0)
            health: Line = [("class:hp", f" HP {hp:>2}/{top} "), ("class:hp.bar", bar)]
        else:
            health = [("class:dim", f" HP {glyphs.hidden} (you are blind)")]
        effects = [
            label
            for label, on in (
                (f"paralysed ({wizard.get('paralysed')})", wizard.get("paralysed")),
                ("afraid", wizard.get("feared")),
                (f"blind {wizard.get('blind_turns_left')}", wizard.get("blind_turns_left")),
                ("resists heat", wizard.get("resist_heat")),
            )
            if on
        ]
        lines.append(
            [
                ("class:seat.me" if seat == me else "class:seat", f" {who:<8} {seat_name(names, seat)}"),
                *health,
            ]
            + ([("class:effect", "  " + ", ".join(effects))] if effects else [])
        )
        for hand in HANDS:
            history = str(wizard.get(hand, ""))
            shown = " ".join(g if g != "?" else glyphs.hidden for g in history[-12:]) or "(none yet)"
            lines.append([("class:dim", f"   {hand:<5} "), ("class:gestures", shown)])
        submitted = view.get("submitted", [None, None])[seat]
        if submitted == "chosen":
            lines.append([("class:dim", "   has chosen this turn")])
        elif isinstance(submitted, str):
            lines.append([("class:dim", f"   your choice: {submitted}")])
        elif isinstance(submitted, dict):
            lines.append([("class:dim", f"   your choice: {gestures_text(submitted)}")])
    monsters = view.get("monsters", [])
    if monsters:
        lines.append([("class:title", " Monsters")])
        for monster in monsters:
            owner = "yours" if monster.get("controller") == me else "theirs"
            lines.append(
                [
                    (
                        "class:monster",
                        f"   {monster['id']} {monster['kind'].replace('_', ' ')} ({owner}), "
                        f"{monster['hp']} HP",
                    )
                ]
            )
    lines.append([("class:title", " Your hands can complete next")])
    wizard = view["wizards"][me]
    barrier = int(wizard.get("anti_spell_from", 0))
    for hand in HANDS:
        near = next_gestures(tuple(str(wizard.get(hand, ""))), barrier)[:4]
        text = ", ".join(f"{BY_NAME[name].title} (+{len(rest)}: {rest})" for name, rest in near)
        lines.append([("class:dim", f"   {hand:<5} "), ("", text or "any spell from its first gesture")])
    return lines


def gestures_text(action: Mapping[str, Any]) -> str:
    """A submission in the input syntax: "S D left=p1"."""
    if action.get("type") != "gestures":
        return str(action.get("type"))
    parts = [str(action.get("left")), str(action.get("right"))]
    for key, value in sorted(dict(action.get("targets", {})).items()):
        parts.append(f"{key}={value}")
    for key, value in sorted(dict(action.get("spells", {})).items()):
        parts.append(f"{key}:{value}")
    for key, value in sorted(dict(action.get("monsters", {})).items()):
        parts.append(f"{key}={value}")
    return " ".join(parts)


# -- moves ----------------------------------------------------------------------------------------

GESTURE_WORDS = {"c": "C", "d": "D", "p": "P", "s": "S", "w": "W", ">": ">", "-": "-", ".": "-", "k": ">"}


def parse_duel(words: list[str]) -> Parsed:
    """The move typed as ``words``."""
    head = words[0].lower()
    if head == "paralyze":
        if len(words) != 3 or words[2].lower() not in HANDS:
            raise InputError("paralyze TARGET HAND, like: paralyze p1 left")
        return Parsed({"type": "paralyze", "target": words[1].lower(), "hand": words[2].lower()})
    if len(words[0]) == 2 and len(words) >= 1 and all(c.lower() in GESTURE_WORDS for c in words[0]):
        hands, rest = [GESTURE_WORDS[c.lower()] for c in words[0]], words[1:]
    elif len(words) >= 2 and all(w.lower() in GESTURE_WORDS for w in words[:2]):
        hands, rest = [GESTURE_WORDS[w.lower()] for w in words[:2]], words[2:]
    else:
        raise InputError(
            "gestures for the left and right hand, like: S D  (C D P S W, > to stab, - for nothing); "
            "then targets like left=p1, spells like left:missile, monster orders like m1=p1"
        )
    action: dict[str, Any] = {"type": "gestures", "left": hands[0], "right": hands[1]}
    for word in rest:
        if ":" in word:
            hand, _, spell = word.partition(":")
            if hand not in HANDS or spell not in BY_NAME:
                raise InputError(f"{word!r}: name a hand and a spell, like left:missile")
            action.setdefault("spells", {})[hand] = spell
        elif "=" in word:
            key, _, target = word.partition("=")
            if key in HANDS:
                action.setdefault("targets", {})[key] = target
            else:
                action.setdefault("monsters", {})[key] = target
        else:
            raise InputError(f"{word!r}: expected left=TARGET, right=TARGET, HAND:SPELL or MONSTER=TARGET")
    confirm = ""
    if hands == ["P", "P"]:
        confirm = "P with both hands is a surrender: you lose the duel"
    return Parsed(action, confirm)


def duel_choices(state: Any, seat: int, typed: str) -> list[Choice]:
    """Gesture pairs first (those completing spells first, each with what it casts), then targets,
    named spells and monster orders once the gestures are typed."""
    if state is None:
        return []
    if getattr(state, "paralysis_choices", None):
        return [
            Choice(f"paralyze p{target} {hand}", f"paralyse p{target}'s {hand} hand next turn")
            for target, by in state.paralysis_choices
            if by == seat
            for hand in HANDS
        ]
    words = typed.split()
    if len(words) <= 1 and not typed.endswith(" "):
        return _gesture_pairs(state, seat)
    names = target_choices(state)
    choices = [
        Choice(f"{hand}={name}", f"aim the {hand} hand's spell or stab at {_target_words(name)}")
        for hand in HANDS
        for name in names
    ]
    choices += [
        Choice(f"{hand}:{spell}", f"cast {BY_NAME[spell].title} with the {hand} hand")
        for hand in HANDS
        for spell in BY_NAME
    ]
    choices += [
        Choice(f"{monster.name}={name}", f"order {monster.name} to attack {_target_words(name)}")
        for monster in state.monsters
        if monster.controller == seat
        for name in names
    ]
    return choices


def blind_choices(typed: str) -> list[Choice]:
    """While blind: every gesture pair (what it completes depends on a field this machine cannot
    see), then the hands' targets."""
    if len(typed.split()) <= 1 and not typed.endswith(" "):
        pairs = [f"{left} {right}" for left in GESTURES for right in GESTURES if (left, right) != ("P", "P")]
        return [Choice(pair, "you are blind: the field is hidden") for pair in pairs] + [
            Choice("P P", "SURRENDER (P with both hands)")
        ]
    return [
        Choice(f"{hand}={who}", f"aim the {hand} hand at {_target_words(who)}")
        for hand in HANDS
        for who in ("p0", "p1", NOBODY)
    ]


def _target_words(name: str) -> str:
    """A target as a player reads it."""
    return "nobody (a deliberate miss)" if name == NOBODY else name


def _gesture_pairs(state: Any, seat: int) -> list[Choice]:
    wizard = state.wizards[seat]
    barrier = wizard.barrier
    out: list[tuple[int, Choice]] = []
    for left in GESTURES:
        for right in GESTURES:
            cast = []
            for hand, gesture in (("left", left), ("right", right)):
                if gesture == "C" and (left, right) != ("C", "C"):
                    continue  # a one-handed clap is nothing
                history = (*getattr(wizard, hand), gesture)
                found = completions(tuple(history), barrier)
                if found:
                    cast.append(f"{hand}: {BY_NAME[found[0].spell].title}")
            meta = "; ".join(cast) if cast else "completes nothing"
            rank = 0 if cast else 1
            if (left, right) == ("P", "P"):
                meta, rank = "SURRENDER (P with both hands)", 2
            out.append((rank, Choice(f"{left} {right}", meta)))
    return [choice for _, choice in sorted(out, key=lambda item: item[0])]


register_frontend(DUEL.name, DuelFrontEnd(DUEL.name))
