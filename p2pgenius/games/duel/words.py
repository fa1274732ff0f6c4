"""The duel's events and results in words, for people: each event is data (protocol/games.md,
section 5, "The per-seat view"), and this is the one place that words it.

``who`` renders a seat: "p0" by default; a screen passes one that says "Hana (p0)". Nothing reads
these sentences back: every layer that needs to know what happened reads the event's fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgenius.games.base import Ending, Outcome
from p2pgenius.games.duel.spells import BY_NAME
from p2pgenius.games.duel.state import BLIND_TURNS, MONSTER_HP, REVIVE_HP, DuelEnding

Who = Callable[[int], str]

REWRITES: Final = {
    "paralysed": "paralysed: it repeats its last gesture",
    "paralysed_clap": "paralysed: it claps again, alone, which is nothing",
    "afraid": "afraid: no C, D or S",
    "one_knife": "only one stab a turn",
    "lone_clap": "a one-handed clap is nothing",
}
"""Why step 1 changed a gesture (the ``why`` of a ``rewrite`` event), in words."""

LOSSES: Final[Mapping[Ending, tuple[str, str]]] = {
    DuelEnding.SURRENDER: ("you surrendered", "{loser} surrendered"),
    DuelEnding.KNOCKED_OUT: ("you were knocked out", "{loser} was knocked out"),
    DuelEnding.POWER_WORD_KILL: ("Power Word Kill killed you", "Power Word Kill killed {loser}"),
}
"""How a duel was lost, said of the loser: when it is the person told, and when it is not."""
DRAWN: Final = "both surrendered, or both fell to Power Word Kill"
"""How a duel is drawn, in words."""


def seat_label(seat: int) -> str:
    """A seat as the rules write it."""
    return f"p{seat}"


def words(event: Mapping[str, Any], who: Who = seat_label) -> str:
    """One event in a sentence."""
    kind = event.get("type")
    teller = _TELLERS.get(str(kind))
    return teller(event, who) if teller is not None else str(kind)


def loss(outcome: Outcome, losers: str | None) -> str:
    """How the duel ended, told to a wizard: of the ``losers`` (by name) to the winner, or, ``losers``
    None, to the loser, or of a draw (GameSpec.loss_words)."""
    if outcome.reason is DuelEnding.DRAW:
        return DRAWN
    said = LOSSES.get(outcome.reason)
    if said is None:
        return outcome.reason.words
    return said[0] if losers is None else said[1].format(loser=losers)


def _title(spell: Any) -> str:
    return BY_NAME[str(spell)].title if str(spell) in BY_NAME else str(spell)


def _kind(kind: Any) -> str:
    return str(kind).replace("_", " ")


def _target(event: Mapping[str, Any], who: Who, field: str = "target") -> str:
    """A being an event names: a wizard, or a monster with its kind ("m1 (goblin)")."""
    target = event.get(field)
    if isinstance(target, str) and target.startswith("m"):
        kind = event.get(f"{field}_kind")
        return f"{target} ({_kind(kind)})" if kind else target
    return _ref(target, who)


def _ref(target: Any, who: Who) -> str:
    """A target as it was named: a wizard by ``who``, anything else as written."""
    if isinstance(target, str) and len(target) == 2 and target[0] == "p" and target[1].isdigit():
        return who(int(target[1]))
    return str(target)


def _source(event: Mapping[str, Any], who: Who) -> str:
    """What dealt (or would have dealt) damage: a spell, a stab, a monster."""
    source = event.get("source")
    if source == "stab":
        return f"{who(int(event['seat']))}'s stab"
    if source == "monster":
        return f"{event.get('monster')} ({_kind(event.get('kind'))})"
    return _title(source)


def _rewrite(e: Mapping[str, Any], who: Who) -> str:
    why = REWRITES.get(str(e.get("why")), str(e.get("why")))
    return f"{who(int(e['seat']))}'s {e['hand']} hand counts as {e['counted']} ({why})"


def _cast(e: Mapping[str, Any], who: Who) -> str:
    at = "" if e.get("target") is None else f" at {_ref(e['target'], who)}"
    return f"{who(int(e['seat']))} casts {_title(e['spell'])} ({e['hand']} hand){at}"


def _miss(e: Mapping[str, Any], who: Who) -> str:
    why = e.get("why")
    if why == "no_target":
        return f"{_source(e, who)} finds no target"
    if e.get("source") == "stab":
        return f"{who(int(e['seat']))}'s stab is aimed at nobody"
    caster = f"{who(int(e['seat']))}'s {_title(e.get('spell'))}"
    if why == "no_master":
        return f"{caster} finds no one to serve and fails"
    if why == "no_monster":
        return f"{caster} finds no monster it can charm"
    return f"{caster} is aimed at nobody and misses on purpose"


def _fizzle(e: Mapping[str, Any], who: Who) -> str:
    if e.get("by") == "power_word_kill":
        return "Both wizards speak Power Word Kill: the words clash and fizzle"
    if e.get("by") == "charm_monster":
        return f"Two charms on {e['monster']} cancel out"
    target = _ref(e.get("target"), who)
    return f"{who(int(e['seat']))}'s {_title(e['spell'])} at {target} is stopped by a Counter-spell"


def _merge(e: Mapping[str, Any], who: Who) -> str:
    hp = MONSTER_HP["fire_elemental"]
    return f"A second fire elemental merges into {e['monster']}: one elemental, back to {hp} HP"


def _summon(e: Mapping[str, Any], who: Who) -> str:
    kind = _kind(e["kind"])
    article = "an" if kind[:1] in "aeiou" else "a"
    return f"{e['monster']}, {article} {kind}, appears for {who(int(e['controller']))}"


def _destroyed(e: Mapping[str, Any], who: Who) -> str:
    by = f"{who(int(e['seat']))}'s {_title(e['spell'])}"
    return f"{e['monster']} is destroyed by {by} before it can attack"


def _charm(e: Mapping[str, Any], who: Who) -> str:
    return f"{e['monster']} now obeys {who(int(e['controller']))}"


def _enchant(e: Mapping[str, Any], who: Who) -> str:
    spell, target = e.get("spell"), _target(e, who)
    if spell == "paralysis":
        if e.get("why") == "held":
            return f"{target}'s {e['hand']} hand stays paralysed"
        if e.get("why") == "chosen":
            return f"{target}'s {e['hand']} hand is paralysed next turn"
        return f"{target} is paralysed"
    if spell == "fear":
        return f"{target} is afraid: no C, D or S next turn"
    if spell == "anti_spell":
        return f"{target}'s spells in progress are wiped out"
    return f"{target} is blinded for {BLIND_TURNS} turns"


def _kill(e: Mapping[str, Any], who: Who) -> str:
    return f"Power Word Kill strikes {_target(e, who)}"


def _fiery(e: Mapping[str, Any]) -> bool:
    return e.get("source") in ("fireball", "fire_storm") or (
        e.get("source") == "monster" and e.get("kind") == "fire_elemental"
    )


def _blocked(e: Mapping[str, Any], who: Who) -> str:
    what, target, why = _source(e, who), _target(e, who), e.get("why")
    if e.get("source") == "monster" and e.get("kind") == "fire_elemental":
        return f"{what} cannot harm {target} ({'a shield' if why == 'shield' else 'resistance to heat'})"
    if why == "shield":
        return f"{what} at {target} is blocked by a shield"
    return (
        f"{what} cannot burn {target} ({'it is made of fire' if why == 'made_of_fire' else 'resists heat'})"
    )


def _damage(e: Mapping[str, Any], who: Who) -> str:
    verb = "burns" if _fiery(e) else "hits"
    return f"{_source(e, who)} {verb} {_target(e, who)} for {e['amount']}"


def _idle(e: Mapping[str, Any], who: Who) -> str:
    if e.get("why") == "paralysed":
        return f"{e['monster']} is paralysed and does not attack"
    return f"{e['monster']} ({_kind(e.get('kind'))}) is ordered to attack nobody"


def _death(e: Mapping[str, Any], who: Who) -> str:
    return f"{e['monster']} ({_kind(e.get('kind'))}) dies"


def _hp(e: Mapping[str, Any], who: Who) -> str:
    return f"{who(int(e['seat']))} goes from {e['was']} to {e['hp']} HP"


def _revive(e: Mapping[str, Any], who: Who) -> str:
    if e.get("why") == "both":
        return f"Both wizards fall together: each rises again with {REVIVE_HP} HP"
    survivor = who(int(e["seat"]))
    return (
        f"{survivor} was knocked out too, but a Power Word Kill victim cannot come back: "
        f"{survivor} rises with {e['hp']} HP and wins"
    )


def _surrender(e: Mapping[str, Any], who: Who) -> str:
    if e.get("why") == "both":
        return "Both wizards surrender: the duel is a draw"
    quitter = who(int(e["seat"]))
    if e.get("why") == "won":
        return f"{quitter} surrenders, but its spells already knocked out {who(1 - int(e['seat']))}"
    return f"{quitter} surrenders"


def _outcome(e: Mapping[str, Any], who: Who) -> str:
    """The end in the rules' words: "bob (p1) wins: Power Word Kill killed ann (p0)"."""
    winner, reason = e.get("winner"), str(e.get("reason"))
    if winner is None:
        return f"The duel is over: a draw ({DRAWN})"
    said = LOSSES.get(DuelEnding(reason)) if reason in set(DuelEnding) else None
    why = reason.replace("_", " ") if said is None else said[1].format(loser=who(1 - int(winner)))
    return f"The duel is over: {who(int(winner))} wins: {why}"


_TELLERS: Final[dict[str, Callable[[Mapping[str, Any], Who], str]]] = {
    "rewrite": _rewrite,
    "cast": _cast,
    "miss": _miss,
    "fizzle": _fizzle,
    "merge": _merge,
    "summon": _summon,
    "destroyed": _destroyed,
    "charm": _charm,
    "enchant": _enchant,
    "kill": _kill,
    "blocked": _blocked,
    "damage": _damage,
    "idle": _idle,
    "death": _death,
    "hp": _hp,
    "revive": _revive,
    "surrender": _surrender,
    "outcome": _outcome,
}
