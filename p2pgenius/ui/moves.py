"""What a player types, turned into actions; and the legal moves offered as completions.

Pure functions of the game, the state this machine knows and the seat: the terminal UI and its
tests share them. Every error is one line that says what would be accepted instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.duel.actions import NOBODY
from p2pgenius.games.duel.engine import target_choices
from p2pgenius.games.duel.spells import BY_NAME, GESTURES, HANDS, completions
from p2pgenius.games.magic_square.squares import index as magic_index
from p2pgenius.games.magic_square.state import cell_name
from p2pgenius.games.registry import get_game


class InputError(P2PGeniusError):
    """What the player typed is not a move (the message says what is)."""


@dataclass(frozen=True)
class Parsed:
    """A move to send, and, for an irreversible or self-defeating one, the question to confirm."""

    action: dict[str, Any] | None  # None: let an optional action pass
    confirm: str = ""


@dataclass(frozen=True)
class Choice:
    """A completion: the text to type and a one-line explanation."""

    text: str
    meta: str
    extra: tuple[str, ...] = field(default=())


def parse_cell(word: str) -> int:
    """a1..d4 -> 0..15."""
    word = word.strip().lower()
    if len(word) == 2 and word[0] in "abcd" and word[1] in "1234":
        return "abcd".index(word[0]) + 4 * (int(word[1]) - 1)
    raise InputError(f"{word!r} is not a cell: columns a-d, rows 1-4 (like b3)")


def parse(game: str, text: str, state: Any, seat: int) -> Parsed:
    """The move ``text`` means for ``seat``; raises InputError. Legality is checked here too, by
    the engine itself, so the player hears why before anything is sent."""
    words = text.split()
    if not words:
        raise InputError("type a move (Tab shows the legal ones), or help")
    if game == "duel":
        parsed = _duel(words, state, seat)
    elif game == "magic-square":
        parsed = _square(words, state, seat)
    else:
        parsed = _horn(words, state, seat)
    if parsed.action is not None and state is not None:
        engine = get_game(game)
        try:
            action = engine.parse_action(parsed.action)
            if not (game == "hornswoggle" and action.to_plain().get("type") == "flip"):
                engine.apply(state, seat, action)
        except P2PGeniusError as exc:
            raise InputError(str(exc)) from None
    return parsed


# -- the duel -------------------------------------------------------------------------------------

GESTURE_WORDS = {"c": "C", "d": "D", "p": "P", "s": "S", "w": "W", ">": ">", "-": "-", ".": "-", "k": ">"}


def _duel(words: list[str], state: Any, seat: int) -> Parsed:
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
    wizard = state.wizards[seat]
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
    del wizard
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


# -- the Magic Square -----------------------------------------------------------------------------


def _square(words: list[str], state: Any, seat: int) -> Parsed:
    head = words[0].lower()
    other = 1 - seat
    if head in ("first", "second") and len(words) == 1:
        return Parsed({"type": "order", "first": seat if head == "first" else other})
    if head == "challenge":
        return Parsed({"type": "challenge"}, "a challenge cannot be taken back")
    if head in ("pass", "no"):
        return Parsed(None)
    if head == "concede":
        return Parsed({"type": "concede"}, "conceding loses this round")
    if head == "done":
        return Parsed({"type": "swaps_done"})
    if head == "swap" and len(words) == 3:
        a, b = parse_cell(words[1]), parse_cell(words[2])
        colours = getattr(state, "colours", ())
        red, blue = (a, b) if colours and colours[a] == 0 else (b, a)
        return Parsed({"type": "swap", "red": red, "blue": blue})
    if head == "complete":
        numbers = words[1:]
        if len(numbers) != 16 or not all(n.isascii() and n.isdigit() for n in numbers):
            raise InputError("complete takes the 16 numbers of the finished square, row by row")
        return Parsed({"type": "complete", "grid": [int(n) for n in numbers]})
    if len(words) == 1:
        cell = parse_cell(head)
        phase = getattr(state, "phase", "place")
        return Parsed({"type": "colour" if phase == "colouring" else "place", "cell": cell})
    raise InputError(
        "a cell like b3; first / second; challenge / pass; swap a1 b2 / done; complete N x16 / concede"
    )


def square_choices(state: Any, seat: int, hints: bool) -> list[Choice]:
    """The legal moves in words; with ``hints``, cells that keep a magic square possible first."""
    if state is None:
        return []
    engine = get_game("magic-square")
    good: set[int] = set()
    if hints and state.phase == "place":
        good = set(magic_index().next_cells(list(state.cells)))
    out: list[tuple[int, Choice]] = []
    for action in engine.legal_actions(state, seat):
        plain = action.to_plain()
        kind = plain["type"]
        if kind == "order":
            who = "you" if plain["first"] == seat else "your opponent"
            out.append(
                (
                    1,
                    Choice(
                        "first" if plain["first"] == seat else "second",
                        f"{who} go{'es' if who != 'you' else ''} first",
                    ),
                )
            )
        elif kind in ("place", "colour"):
            cell = plain["cell"]
            number = len(state.cells) + 1
            verb = f"put {number} on" if kind == "place" else "colour"
            meta = f"{verb} {cell_name(cell)}"
            if cell in good:
                meta += " (keeps a magic square possible)"
            out.append((0 if cell in good else 1, Choice(cell_name(cell), meta)))
        elif kind == "challenge":
            out.append((0, Choice("challenge", "say the square can no longer be made magic")))
        elif kind == "concede":
            out.append((2, Choice("concede", "give up this round")))
        elif kind == "complete" and hints:
            grid = " ".join(str(n) for n in plain["grid"])
            out.append((0, Choice(f"complete {grid}", "a magic completion (hint)")))
        elif kind == "swap":
            out.append(
                (
                    1,
                    Choice(
                        f"swap {cell_name(plain['red'])} {cell_name(plain['blue'])}",
                        "exchange these cells' colours",
                    ),
                )
            )
        elif kind == "swaps_done":
            out.append((0, Choice("done", "no more swaps")))
    if seat == state.window:
        out.append((1, Choice("pass", "do not challenge")))
    return [choice for _, choice in sorted(out, key=lambda item: item[0])]


# -- Hornswoggle ----------------------------------------------------------------------------------

CARD_WORDS = {"d": "doubloon", "doubloon": "doubloon", "s": "skull", "skull": "skull"}


def _horn(words: list[str], state: Any, seat: int) -> Parsed:
    head = words[0].lower()
    del state, seat
    if head in ("place", "discard") and len(words) == 2 and words[1].lower() in CARD_WORDS:
        return Parsed({"type": head, "card": CARD_WORDS[words[1].lower()]})
    if head == "bid" and len(words) == 2 and words[1].isascii() and words[1].isdigit():
        return Parsed({"type": "bid", "count": int(words[1])})
    if head == "pass" and len(words) == 1:
        return Parsed({"type": "pass"})
    if head == "insure" and len(words) == 1:
        return Parsed({"type": "insure"}, "insuring cannot be taken back")
    if head in ("flip", "first") and len(words) == 2:
        who = words[1].lower().lstrip("p")
        if who.isascii() and who.isdigit():
            key = "pile" if head == "flip" else "first"
            return Parsed({"type": "flip" if head == "flip" else "order", key: int(who)})
    raise InputError("place doubloon|skull, bid N, pass, insure, flip pN, discard doubloon|skull, first pN")


def horn_choices(state: Any, seat: int) -> list[Choice]:
    """The legal moves in words."""
    if state is None:
        return []
    out = []
    for action in get_game("hornswoggle").legal_actions(state, seat):
        plain = action.to_plain()
        kind = plain["type"]
        if kind in ("place", "discard"):
            out.append(Choice(f"{kind} {plain['card']}", f"{kind} a {plain['card']} face down"))
        elif kind == "bid":
            out.append(Choice(f"bid {plain['count']}", f"bet {plain['count']} doubloons can be flipped"))
        elif kind == "pass":
            out.append(Choice("pass", "stay out of the bidding"))
        elif kind == "insure":
            out.append(Choice("insure", "insure the challenge"))
        elif kind == "flip":
            out.append(Choice(f"flip p{plain['pile']}", f"flip the top card of p{plain['pile']}'s pile"))
        elif kind == "order":
            out.append(Choice(f"first p{plain['first']}", f"p{plain['first']} plays first"))
    return out


def choices(game: str, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
    """The completions for what is typed so far."""
    if game == "duel":
        return duel_choices(state, seat, typed)
    if game == "magic-square":
        return square_choices(state, seat, hints)
    return horn_choices(state, seat)


HELP: Mapping[str, str] = {
    "duel": (
        "Type both hands' gestures, left then right: S D, or SD.  C clap (both hands), D digit,\n"
        "P palm, S snap, W wave, > stab, - nothing.  Then, optionally: left=p1 (a hand's target),\n"
        "left:missile (a shorter spell the gestures also complete), m1=p1 (a monster's target).\n"
        "paralyze p1 left: after your Paralysis, choose the hand.  P with both hands surrenders."
    ),
    "magic-square": (
        "A cell (a1..d4) colours it or places the next number.  first / second: who starts.\n"
        "challenge: say the square can no longer be made magic; pass: let it go.\n"
        "complete N N ... (16 numbers): answer a challenge; concede.  swap a1 b2 / done: swaps.\n"
        "hint toggles the cells where the next number keeps a magic square possible."
    ),
    "hornswoggle": (
        "place doubloon | place skull (d / s for short), bid N, pass, insure, flip pN,\n"
        "discard doubloon | discard skull, first pN.  Your cards show; others' only as counts."
    ),
}

COMMON_HELP = (
    "Tab: legal moves, each with what it does.  say TEXT (or 'TEXT): chat to the table.\n"
    "F1 or ?: this help.  rules (or F2): the rules page, PageUp/PageDown to scroll.\n"
    "Ctrl-C / Ctrl-Q: leave (asks first)."
)
