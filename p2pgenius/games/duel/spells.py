"""The wizard duel's gestures and its 16 spells, and how spells are found in gesture histories.

A spell is cast by one hand making its gestures on consecutive turns; the last gesture completes it.
A ``C`` in a sequence is a clap and needs both hands to clap on that turn. Gestures the engine has
rewritten (paralysis, fear, a second stab, a one-handed clap) are stored as rewritten, so a ``C`` in
a hand's history is always a two-handed clap.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

CLAP: Final = "C"
STAB: Final = ">"
NOTHING: Final = "-"
GESTURES: Final = ("C", "D", "P", "S", "W", STAB, NOTHING)
"""Every gesture in the stable order used by ``legal_actions`` and bots."""

HANDS: Final = ("left", "right")


@dataclass(frozen=True, slots=True)
class Spell:
    """One spell: its name, every gesture sequence that casts it, and its default target."""

    name: str
    sequences: tuple[str, ...]
    default_target: str  # "self" or "opponent"; Fire Storm has no target at all ("none")
    title: str


SPELLS: Final[tuple[Spell, ...]] = (
    Spell("shield", ("P",), "self", "Shield"),
    Spell("counter_spell", ("DPP", "DDS"), "self", "Counter-spell"),
    Spell("cure_light_wounds", ("SPW",), "self", "Cure Light Wounds"),
    Spell("summon_goblin", ("WWS",), "self", "Summon Goblin"),
    Spell("summon_ogre", ("PWWS",), "self", "Summon Ogre"),
    Spell("summon_fire_elemental", ("CPSWW",), "self", "Summon Fire Elemental"),
    Spell("missile", ("SD",), "opponent", "Missile"),
    Spell("power_word_kill", ("PWPWSSSD",), "opponent", "Power Word Kill"),
    Spell("fireball", ("DSPSD",), "opponent", "Fireball"),
    Spell("fire_storm", ("SWWC",), "none", "Fire Storm"),
    Spell("charm_monster", ("PWWD",), "opponent", "Charm Monster"),
    Spell("paralysis", ("WWW",), "opponent", "Paralysis"),
    Spell("fear", ("SWD",), "opponent", "Fear"),
    Spell("anti_spell", ("SPP",), "opponent", "Anti-spell"),
    Spell("resist_heat", ("CWWP",), "self", "Resist Heat"),
    Spell("blindness", ("DWSWC",), "opponent", "Blindness"),
)
"""The spell table of the game's rule text (docs/rules/duel.md), in a stable order. No two spells
share a sequence, so the longest completed spell on a hand is always unique."""

BY_NAME: Final = {spell.name: spell for spell in SPELLS}
SUMMONS: Final = ("summon_goblin", "summon_ogre", "summon_fire_elemental")
_ORDER: Final = {spell.name: index for index, spell in enumerate(SPELLS)}


@dataclass(frozen=True, slots=True)
class Completion:
    """A spell that one hand completes this turn, and how many gestures it used."""

    spell: str
    length: int


_LONGEST: Final = max(len(sequence) for spell in SPELLS for sequence in spell.sequences)


def completions(history: tuple[str, ...], barrier: int) -> tuple[Completion, ...]:
    """Every spell whose sequence ends the hand's ``history`` (this turn's gesture last).

    Gestures before index ``barrier`` (an anti-spell) cannot count. Longest first, then table order;
    a spell with two sequences is listed once, with its longest matching one.
    """
    # Only the gestures a spell could reach matter, so the answer depends on a short tail alone:
    # remembering tails makes the engine's most frequent question a dictionary lookup.
    return _tail_completions(history[max(barrier, len(history) - _LONGEST, 0) :])


_CAST_BY: Final = {tuple(sequence): spell.name for spell in SPELLS for sequence in spell.sequences}
"""Every gesture sequence, as a tuple of gestures, and the spell it casts (no two spells share
one): a tail's completions are its suffixes found here."""
_ENDING_IN: Final = {
    last: sorted((len(seq), seq, name) for seq, name in _CAST_BY.items() if seq[-1] == last)
    for last in GESTURES
}
"""The sequences that end in each gesture, shortest first, with the spell each casts: a tail's
completions are among those that end in its last gesture (most tails complete nothing)."""


@lru_cache(maxsize=16_384)
def _tail_completions(tail: tuple[str, ...]) -> tuple[Completion, ...]:
    found: dict[str, int] = {}
    end = len(tail)
    for n, sequence, name in _ENDING_IN.get(tail[-1], ()) if tail else ():
        if n > end:
            break
        if tail[end - n :] == sequence:
            found[name] = max(found.get(name, 0), n)
    if not found:
        return ()
    ordered = sorted(found.items(), key=lambda item: (-item[1], _ORDER[item[0]]))
    return tuple(Completion(name, length) for name, length in ordered)


def progress(history: tuple[str, ...], barrier: int) -> tuple[tuple[str, int], ...]:
    """Spells this hand is part-way through: (spell, gestures still needed), fewest first.

    For players, bots and the UI: which spells each hand can complete next.
    """
    return tuple((name, len(rest)) for name, rest in next_gestures(history, barrier))


def next_gestures(history: tuple[str, ...], barrier: int) -> tuple[tuple[str, str], ...]:
    """Spells this hand is part-way through, each with the gestures that would complete it
    (of a spell with two sequences, the one nearer completion), fewest first, then table order.
    Counter-spell after ``D-D`` needs ``S``; after ``D-P`` it needs ``P``."""
    found: dict[str, str] = {}
    end = len(history)
    for spell in SPELLS:
        for sequence in spell.sequences:
            for done in range(len(sequence) - 1, 0, -1):
                start = end - done
                if start < barrier or start < 0:
                    continue
                if all(history[start + k] == sequence[k] for k in range(done)):
                    rest = sequence[done:]
                    if spell.name not in found or len(rest) < len(found[spell.name]):
                        found[spell.name] = rest
                    break
    return tuple(sorted(found.items(), key=lambda item: (len(item[1]), _ORDER[item[0]])))
