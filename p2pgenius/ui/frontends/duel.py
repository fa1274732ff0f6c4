"""The wizard duel's front end: both wizards and their gesture histories, gestures typed as
"S D" with targets and spells, completions that say what each gesture pair casts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from p2pgenius.games.duel.actions import NOBODY
from p2pgenius.games.duel.engine import DUEL, target_choices
from p2pgenius.games.duel.spec import DUEL_SPEC
from p2pgenius.games.duel.spells import (
    BY_NAME,
    CLAP,
    GESTURES,
    HANDS,
    NOTHING,
    SPELLS,
    STAB,
    completions,
    next_gestures,
)
from p2pgenius.games.duel.state import Wizard
from p2pgenius.games.duel.words import words as duel_words
from p2pgenius.ui.frontends.base import (
    CHAT_ROOM,
    TIME_UP,
    BoardRequest,
    Choice,
    FrontEnd,
    InputError,
    Parsed,
    Question,
    rules_lines,
)
from p2pgenius.ui.lines import Line, namer, plural, seat_name, side_by_side, width_of, wrap_all

HELP: Final = (
    "Type both hands' gestures, left then right: S D, or SD.\n"
    "Gestures: C clap (both hands), D digit, P palm, S snap, W wave, > stab, - nothing.\n"
    "Then, optionally: left=p1 (a hand's target); left:missile (a shorter spell the gestures "
    "also complete); m1=p1 (a monster's target).\n"
    "left or right: after your Paralysis, the hand it holds (paralyze p1 left names the wizard too).\n"
    "P with both hands surrenders.\n"
    "The turn history on the board: a column for each wizard, a row for each turn (its number, the "
    "left hand's gesture, the right's; the newest at the bottom); a gesture that completed a spell "
    "is marked * and the spell is named after it. ^ before its first row: older turns above; v "
    "before its last: newer ones below. Up scrolls it a turn back, Down a turn forward.\n"
    f"Without fast turns your gestures may change until {TIME_UP}: type them again to change them, "
    "or done when you are sure; the turn resolves as soon as both players are done."
)


# -- the board ------------------------------------------------------------------------------------

SHORT: Final = {
    "counter_spell": "Counter",
    "cure_light_wounds": "Cure",
    "summon_goblin": "Goblin",
    "summon_ogre": "Ogre",
    "summon_fire_elemental": "Elemental",
    "power_word_kill": "PW Kill",
    "charm_monster": "Charm",
    "resist_heat": "Res. Heat",
}
"""Short spell names for the spell book of a narrow screen."""

BOOK_WIDE: Final = 40
"""Columns of the spell book as a column of its own (full names, gestures with dashes)."""
TALL: Final = 30
"""Rows from which the duel's board has room for all of it at once (see :func:`duel_board`)."""
LOG_ROOM: Final = 4
"""Rows a short board (80x24) leaves to the log under it beyond the least the screen keeps for
it: the spell book's title, and the last turn's events, only show when these stay free."""


HISTORY_LEAST: Final = 2
"""Turns the turn history shows at least, however short the board (80x24: the last two or
three; the keys scroll it back to the first)."""
ALL_ROWS: Final = len(SPELLS)
"""Rows each hand's spells under way may take: as many as it has (every one is listed)."""


def duel_board(request: BoardRequest) -> list[Line]:
    """Both wizards (HP, effects, both hands' gestures, every spell each hand can complete next
    and in how many gestures), the turn history (:func:`history_pane`), the monsters, whether
    each side has chosen, the last turn's events when there is room, and the spell book. A tall
    board (:data:`TALL` rows) has the wizards side by side across its width and the whole book
    under them, names in full, then, in the rows left, the rules of what it shows
    (:func:`rules_in_play`, as the other games' boards say theirs); a short wide one the book
    beside the wizards; a narrow one the book under them, shortly named."""
    return _board(request)[0]


def history_limit(request: BoardRequest) -> int:
    """How many turns the board ``request`` asks for can scroll its turn history back (0: it
    shows every turn played)."""
    return _board(request)[1]


def _board(request: BoardRequest) -> tuple[list[Line], int]:
    """The board (:func:`duel_board`), and how far back its turn history can scroll."""
    view, names, width, height = request.view, request.names, request.width, request.height
    # An onlooker (a replay, a spectator) sees p0 first at every step, a blind turn's view of
    # what p1 was shown included; a player sees its own wizard first.
    me = 0 if view.get("spectator") else int(view.get("seat", 0))
    tall = height >= TALL and width >= 2 * BOOK_WIDE
    book_beside = width >= 100 and not tall
    left_width = width - BOOK_WIDE - 3 if book_beside else width
    short = not tall and not book_beside  # (the log under it needs the rows: compact)
    half = (left_width - 2) // 2
    widths = [half, left_width - 2 - half]
    lines: list[Line] = [_turn_line(view, me, names)]
    if left_width >= 64:
        blocks = [_wizard(request, s, w, compact=short) for s, w in zip((me, 1 - me), widths, strict=True)]
        lines += side_by_side(blocks, widths, gap=2)
    else:
        for seat in (me, 1 - me):
            lines += wrap_all(_wizard(request, seat, left_width, compact=short), left_width)
    lines += wrap_all(_monsters(view, me, names), left_width)
    who = namer(names)
    events = [duel_words(e, who) for e in view.get("events", []) if isinstance(e, Mapping)]
    last = []
    if events:
        last = [[("class:title", " Last turn")]] + [[("class:dim", "  " + text)] for text in events]
    header = not short or left_width < 64  # (stacked wizards: the pane names its columns)
    if book_beside:
        book = spell_book(width=BOOK_WIDE, full=True)
        rows = len(book) - len(lines) - 2
        pane, limit = history_pane(request, me, widths, rows, header=header)
        left = lines + pane + ([[]] + wrap_all(last, left_width) if last else [])
        return side_by_side([left, book], [left_width, BOOK_WIDE], gap=3), limit
    if tall:
        told = [[], *wrap_all(last, width)] if last else []
        book = spell_book(width=width, full=True)
        fixed = len(lines) + 2 + len(told) + 1 + len(book)  # (the pane's title and heads)
        pane, limit = history_pane(request, me, widths, height - CHAT_ROOM - fixed, header=header)
        shown = [*lines, *pane, *told, [], *book]
        return shown + rules_lines(rules_in_play(view), "now", width, len(shown), height), limit
    book = spell_book(width=width, full=False)
    room = height - LOG_ROOM  # (the log under a short board shows the last turn already)
    pane, limit = history_pane(request, me, widths, room - len(lines) - len(book), header=header)
    lines += pane
    if len(lines) + len(book) + len(last) + 1 <= room and last:
        lines += wrap_all(last, width)
    if len(lines) + len(book) + 1 <= room:
        lines.append(
            [("class:title", " Spell book"), ("class:dim", "  (gestures in order; C: both hands clap)")]
        )
    # (the spells under way and the log come first: a book that would leave the log less than
    # its room is left out; the rules page, F2, has it)
    return lines + (book if len(lines) + len(book) <= room else []), limit


def turns_played(view: Mapping[str, Any]) -> int:
    """How many turns the wizards' gesture histories hold."""
    wizards = [w for w in view.get("wizards", []) if isinstance(w, Mapping)]
    return max((len(str(w.get(hand, ""))) for w in wizards for hand in HANDS), default=0)


def history_pane(
    request: BoardRequest, me: int, widths: Sequence[int], rows: int, *, header: bool
) -> tuple[list[Line], int]:
    """The turn history, as the two columns of a Warlocks board: each wizard's left and right
    hand gestures, a turn a row, the newest at the bottom, a gesture that completed a spell
    marked (``*``) with the spell's name after the row's gestures. It shows the last ``rows``
    turns (at least :data:`HISTORY_LEAST`) from ``request.scroll`` turns back, ``^`` before
    the first row when older turns are above it, ``v`` before the last when newer ones are
    below; with a ``header``, a title row and each column's wizard. Also: how far back it can
    scroll."""
    view = request.view
    turns = turns_played(view)
    shown = min(max(rows, HISTORY_LEAST), turns)
    limit = turns - shown
    back = min(max(request.scroll, 0), limit)
    last = turns - back
    first = last - shown + 1
    out: list[Line] = []
    if header and limit:  # (a title when there is more than it shows)
        keys = "  (Up/Down: older/newer turns)"
        out.append([("class:title", f" Turns {first}-{last} of {turns}"), ("class:dim", keys)])
    if not turns:
        return out + [[("class:dim", "  no turn played yet: each turn's gestures show here")]], 0
    columns = []
    for seat, width in zip((me, 1 - me), widths, strict=True):
        column: list[Line] = []
        if header:
            column.append([("class:dim", " turn L  R   "), ("class:seat", seat_name(request.names, seat))])
        for turn in range(first, last + 1):
            mark = "^" if turn == first and first > 1 else ("v" if turn == last and last < turns else " ")
            column.append(_turn_row(request, seat, turn, width, mark))
        columns.append(column)
    return out + side_by_side(columns, list(widths), gap=2), limit


def _turn_row(request: BoardRequest, seat: int, turn: int, width: int, mark: str) -> Line:
    """One wizard's turn in the history: its number, both hands' gestures (one that completed a
    spell marked ``*``), and the spells completed, left hand's first, each named in full if
    the row has room, else shortly, else cut."""
    wizard = request.view["wizards"][seat]
    cast = casts_of(request.memory, turn, seat)
    row: Line = [("class:dim", f"{mark}{turn:>3}  ")]
    for hand in HANDS:
        history = str(wizard.get(hand, ""))
        gesture = history[turn - 1] if turn <= len(history) else " "
        gesture = request.glyphs.hidden if gesture == "?" else gesture
        if hand in cast:
            row += [("class:cast", gesture), ("class:spell", "* ")]
        else:
            row += [("class:gestures", gesture), ("", "  ")]
    spells = [cast[hand] for hand in HANDS if hand in cast]
    quit_here = seat in (request.memory or {}).get("surrenders", {}).get(turn, ())
    if not spells and not quit_here:
        return row
    room = width - width_of(row) - 1
    end = ["surrenders"] if quit_here else []  # (P P: its Shields, and the duel given up)
    for titles in (
        [BY_NAME[s].title if s in BY_NAME else s for s in spells] + end,
        [SHORT.get(s, BY_NAME[s].title if s in BY_NAME else s) for s in spells] + end,
    ):
        said = ", ".join(titles)
        if len(said) <= room:
            break
    return row + [("", " "), ("class:spell", said[: max(room, 0)])]


def casts_of(memory: Mapping[str, Any] | None, turn: int, seat: int) -> dict[str, str]:
    """The spells ``seat``'s hands completed on ``turn``, by hand, as the front end's memory of
    the match keeps them (:meth:`DuelFrontEnd.remember`)."""
    casts = (memory or {}).get("casts", {})
    return dict(casts.get(turn, {}).get(seat, {})) if isinstance(casts, Mapping) else {}


RULES_ALWAYS: Final = (
    "A hand casts a spell by making its gestures on consecutive turns, one spell a turn.",
    "C counts only when both hands clap; a P in no longer spell casts Shield; P P surrenders.",
    "L next / R next: what each hand can complete, and the gestures it still needs (+N).",
    "At 0 HP or less a wizard is knocked out and loses (both at once: each rises with 5 HP).",
)
"""The rules every duel board shows on a tall screen (docs/rules/duel.md in a few lines, each
short enough for one row of a 96-column board)."""

RULES_OF: Final = {
    "paralysed": ("Paralysed: that hand repeats its last gesture this turn (a lone clap: nothing again).",),
    "feared": ("Afraid: this turn its C, D and S count as nothing.",),
    "blind_turns_left": ("Blind: 3 turns without the other's gestures; all is shown when it ends.",),
    "resist_heat": ("Resists heat: Fireball, Fire Storm and fire elementals no longer harm it.",),
    "monsters": (
        "Monsters attack the other wizard each turn (m1=p0 orders one); Shield blocks them.",
        "Goblin 1 HP, hits 1; ogre 2 and 2; fire elemental 3 and 3, hits every being but itself.",
    ),
}
"""The rule of each effect or thing a duel board may show, in the words of docs/rules/duel.md."""


def rules_in_play(view: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The rules of what the board shows now, for :func:`rules_lines`: the few every turn needs
    (``""``), then (``"now"``, standing out) those of each effect on a wizard and of the
    monsters, if any."""
    wizards = [w for w in view.get("wizards", []) if isinstance(w, Mapping)]
    shown = [key for key in RULES_OF if key != "monsters" and any(w.get(key) for w in wizards)]
    if any(isinstance(m, Mapping) for m in view.get("monsters", [])):
        shown.append("monsters")
    return {"": RULES_ALWAYS, "now": tuple(rule for key in shown for rule in RULES_OF[key])}


def _turn_line(view: Mapping[str, Any], me: int, names: Mapping[int, str]) -> Line:
    outcome = view.get("outcome")
    spectator = bool(view.get("spectator"))
    if isinstance(outcome, Mapping):
        result = DUEL_SPEC.read_outcome(outcome)
        return [
            ("class:title", f" Turn {int(view['turn']) - 1}: the duel is over: "),
            ("class:strong", DUEL_SPEC.outcome_words(result, names, mine=() if spectator else (me,))),
        ]
    turn = int(view["turn"])
    pending = [
        int(p.get("by", 0))
        for p in view.get("paralysis_choices") or []
        if isinstance(p, Mapping) and p.get("hand") is None  # (not yet chosen)
    ]
    if spectator:  # (an onlooker is shown the field after a turn: the replay's "turn 8" is this)
        line: Line = [("class:title", f" After turn {turn - 1}" if turn > 1 else " Before turn 1")]
    else:  # (a Paralysis's hand is chosen at the end of the turn that cast it)
        line = [("class:title", f" Turn {turn - 1 if pending else turn}")]
    if pending:
        if me in pending and not spectator:
            line.append(("class:effect", "   your Paralysis: you choose the hand it holds"))
        else:
            whose = " and ".join(f"{seat_name(names, s)}'s" for s in pending)
            line.append(("class:effect", f"   {whose} Paralysis: to choose the hand it holds"))
        return line
    if spectator:
        return line
    submitted = view.get("submitted", [None, None])
    mine = submitted[me] if len(submitted) > me else None
    theirs = submitted[1 - me] if len(submitted) > 1 - me else None
    if isinstance(mine, dict):
        mine = gestures_text(mine)
    line.append(("class:dim", "   you: "))
    line.append(("class:strong", f"chose {mine}") if mine else ("", "choosing"))
    line.append(("class:dim", f"   {names.get(1 - me) or 'opponent'}: "))
    line.append(("", "has chosen" if theirs == "chosen" else "choosing"))
    return line


def _wizard(request: BoardRequest, seat: int, width: int, *, compact: bool = False) -> list[Line]:
    """One wizard's block, ``width`` columns wide: who, HP (``compact``: on one row, if they fit),
    effects, both hands' gestures (as many of the latest as fit; not on a ``compact`` board,
    whose turn history has them) and every spell each hand can complete next."""
    view, names, glyphs = request.view, request.names, request.glyphs
    me = int(view.get("seat", 0))
    wizard = view["wizards"][seat]
    if view.get("spectator"):
        out: list[Line] = [[("class:seat", f" {seat_name(names, seat)}")]]
    else:
        who = "you" if seat == me else "opponent"
        out = [[("class:seat.me" if seat == me else "class:seat", f" {who}: {seat_name(names, seat)}")]]
    blind = view.get("dark_seat")  # (a replay of what a blind wizard was shown)
    out += _hp_rows(out.pop(), wizard, request, width if compact else 0)
    effects = [
        label
        for label, on in (
            (f"paralysed: {wizard.get('paralysed')} hand repeats", wizard.get("paralysed")),
            ("afraid: no C, D or S", wizard.get("feared")),
            (
                f"blind {plural(int(wizard.get('blind_turns_left') or 0), 'more turn')}",
                wizard.get("blind_turns_left"),
            ),
            ("resists heat", wizard.get("resist_heat")),
        )
        if on
    ]
    if effects:
        out.append([("class:effect", " " + "; ".join(effects))])
    barrier = wizard.get("anti_spell_from")
    room = max((width - 9) // 2, 12)  # (a gesture and a space each, after the hand's label)
    for hand in () if compact else HANDS:
        history = str(wizard.get(hand, ""))
        shown = " ".join(g if g != "?" else glyphs.hidden for g in history[-room:]) or "(none yet)"
        out.append([("class:dim", f"  {hand:<6}"), ("class:gestures", shown)])
    for hand in HANDS:
        label = f"  {hand[0].upper()} next "
        unseen = "unknown while you are blind" if blind is None else "unknown: unseen while blind"
        history = str(wizard.get(hand, ""))
        able = _able(_forced(wizard, hand), bool(wizard.get("feared")))
        rows = _next_spells(history, barrier, width - len(label), able, compact=compact) or [
            [("class:dim", unseen)]
        ]
        out.append([("class:dim", label), *rows[0]])
        out += [[("", " " * len(label)), *row] for row in rows[1:]]
    return out


def _forced(wizard: Mapping[str, Any], hand: str) -> str | None:
    """The gesture a paralysed ``hand`` repeats this turn (a clap made alone included), or None."""
    if wizard.get("paralysed") != hand:
        return None
    if wizard.get("clapped_alone") == hand:
        return CLAP
    return str(wizard.get(hand, ""))[-1:] or NOTHING


Able = tuple[Callable[[str], bool], str]
"""Whether a hand can make a gesture this turn, and why not, in words."""
FREE: Final[Able] = (lambda gesture: True, "")


def _able(forced: str | None, feared: bool) -> Able:
    """Which gestures a hand can make this turn (rules, step 1): a paralysed hand only its
    ``forced`` one, an afraid wizard no C, D or S."""
    if forced is not None:
        return (lambda gesture: gesture == forced), f"none: it must repeat {forced}"
    if feared:
        return (lambda gesture: gesture not in ("C", "D", "S")), "none: afraid, no C, D or S"
    return FREE


def _nearest(history: str, barrier: int, able: Callable[[str], bool]) -> list[tuple[str, str]]:
    """The spells a hand can go on with this turn: fewest gestures still needed first, then the
    most already made (a Blindness three gestures in before a Cure one in), then table order."""

    def done(item: tuple[str, str]) -> int:
        name, rest = item
        return max(len(seq) - len(rest) for seq in BY_NAME[name].sequences if seq.endswith(rest))

    near = [item for item in next_gestures(tuple(history), barrier) if able(item[1][0])]
    return sorted(near, key=lambda item: (len(item[1]), -done(item)))  # (stable: then table order)


def _hp_rows(who: Line, wizard: Mapping[str, Any], request: BoardRequest, width: int) -> list[Line]:
    """The wizard's ``who`` row and its HP (a bar of one cell a point) under it; given a
    ``width`` (a compact board), the HP in numbers on the ``who`` row if they fit there."""
    glyphs, blind = request.glyphs, request.view.get("dark_seat")
    hp, top = wizard.get("hp"), int(wizard.get("max_hp") or 15)
    if isinstance(hp, int):
        full = min(max(hp, 0), top)
        bar: Line = [("class:hp.bar", glyphs.bar * full + glyphs.gap * (top - full))]
        told: Line = [("class:hp", f" HP {hp:>2}/{top} ")]
    else:
        why = (
            "hidden while you are blind"
            if blind is None
            else f"unseen: {seat_name(request.names, int(blind))} was blind"
        )
        bar, told = [], [("class:dim", f" HP {glyphs.hidden} ({why})")]
    one = [*who, ("", " "), *told]
    return [one] if width_of(one) <= width else [who, told + bar]


def _next_spells(
    history: str, barrier: Any, room: int, able: Able = FREE, *, compact: bool = True
) -> list[Line]:
    """What a hand can complete next, nearest first (:func:`_nearest`), each with how many
    gestures it still needs and which: every one, on as many rows of ``room`` columns as they
    take (short names if full ones do not fit, or, ``compact``, take more rows); if not even
    that, as many as fit (short names when full ones do not let the two nearest fit); none if a
    gesture it needs is unseen (blind)."""
    if "?" in history[-8:] or barrier is None:
        return []
    near = _nearest(history, int(barrier), able[0])
    if not near:
        stopped = next_gestures(tuple(history), int(barrier))
        return [[("class:dim", able[1] if stopped else "nothing under way")]]
    out: list[Line] = []
    tries = [
        _spells_on_rows(near, names, room, ALL_ROWS, compact=compact)
        for names in (
            {n: BY_NAME[n].title for n, _ in near},
            {n: SHORT.get(n, BY_NAME[n].title) for n, _ in near},
        )
    ]
    whole = [listed for listed, placed in tries if placed == len(near)]
    if whole:  # every one listed (compact: on the fewest rows; full names if they take no more)
        return min(whole, key=len) if compact else whole[0]
    for out, placed in tries:
        if placed >= min(len(near), 2):  # at least the two nearest fit
            return out
    if out and out[0]:
        return out
    return [[("class:spell", SHORT.get(near[0][0], near[0][0])), ("class:dim", f" +{len(near[0][1])}")]]


def _spells_on_rows(
    near: Sequence[tuple[str, str]], names: Mapping[str, str], room: int, rows: int, *, compact: bool = False
) -> tuple[list[Line], int]:
    """``near`` spells, in order, on at most ``rows`` rows of ``room`` columns (a row ending in a
    comma when the list goes on under it), and how many of them were placed. Each is named with
    the gestures it still needs, and (not ``compact``) their count: "Fireball +2 SD"; compact,
    "Fireball SD"."""
    out: list[Line] = [[]]
    used = placed = 0
    for name, rest in near:
        needs = f" {rest}" if compact else f" +{len(rest)} {rest}"
        item: Line = [("class:spell", names[name]), ("class:dim", needs)]
        size = width_of(item) + (2 if out[-1] else 0)
        if used + size > room - (len(out) < rows):  # (a row the list goes on under ends in a comma)
            if len(out) == rows or not out[-1]:
                break
            out[-1].append(("", ","))
            out.append([])
            used, size = 0, width_of(item)
        out[-1] += ([("", ", ")] if out[-1] else []) + item
        used += size
        placed += 1
    return out, placed


def _monsters(view: Mapping[str, Any], me: int, names: Mapping[int, str]) -> list[Line]:
    monsters = [m for m in view.get("monsters", []) if isinstance(m, Mapping)]
    if not monsters:
        return []
    out: Line = [("class:title", " Monsters ")]
    for index, monster in enumerate(monsters):
        controller = monster.get("controller")
        owner = "yours" if controller == me else ("theirs" if controller is not None else "unseen")
        if view.get("spectator") and controller is not None:
            owner = f"{seat_name(names, int(controller))}'s"
        hp = monster.get("hp")
        what = f"{monster['id']} {str(monster['kind']).replace('_', ' ')} ({owner}" + (
            f", {hp} HP)" if hp is not None else ")"
        )
        out.append(("", "; " if index else ""))
        out.append(("class:monster", what))
    return [out]


def spell_book(*, width: int, full: bool) -> list[Line]:
    """The 16 spells with their gestures: one a line (``full``: names in full, gestures with
    dashes), or in as many columns as ``width`` takes, shortly named."""
    if full:
        out: list[Line] = [[("class:title", " Spell book"), ("class:dim", "  (C: both hands clap)")]]
        entries: list[Line] = []
        for spell in SPELLS:
            gestures = "/".join("-".join(seq) for seq in spell.sequences)
            entries.append([("class:spell", f" {spell.title:<21}"), ("", f" {gestures:<16}")])
        count = max(1, min(4, width // BOOK_WIDE))  # (one a line in the book's own column)
        tall = -(-len(entries) // count)
        columns = [entries[at : at + tall] for at in range(0, len(entries), tall)]
        return out + side_by_side(columns, [BOOK_WIDE - 1] * len(columns), gap=1)
    cells = [(SHORT.get(spell.name, spell.title), "/".join(spell.sequences)) for spell in SPELLS]
    cell = 19  # 10 for the name, a space, 8 for the gestures
    count = max(1, min(4, width // (cell + 1)))
    rows = -(-len(cells) // count)
    out = []
    for row in range(rows):
        line: Line = [("", " ")]
        for column in range(count):
            index = column * rows + row
            if index >= len(cells):
                break
            name, gestures = cells[index]
            line += [
                ("class:spell", f"{name:<10}"),
                ("", f" {gestures:<8}" + (" " if column < count - 1 else "")),
            ]
        out.append(line)
    return out


def repeated(wizard: Wizard, hand: str) -> str | None:
    """The gesture ``hand`` must repeat this turn if it is paralysed (a clap it made alone
    included), else None."""
    if wizard.paralysed != hand:
        return None
    if wizard.clapped_alone == hand:
        return CLAP
    history = wizard.history(hand)
    return history[-1] if history else NOTHING


def step_one(wizard: Wizard, left: str, right: str) -> str | None:
    """Why the rules' step 1 would change these gestures, in words (the UI refuses them up
    front), or None: a paralysed hand must repeat its gesture, an afraid wizard makes no C, D or
    S, and one knife stabs once a turn."""
    typed = {"left": left, "right": right}
    for hand in HANDS:
        forced = repeated(wizard, hand)
        if forced is not None and typed[hand] != forced:
            return f"your {hand} hand is paralysed: it repeats {forced} this turn (type {forced} for it)"
    if wizard.feared:
        for hand in HANDS:
            if typed[hand] in ("C", "D", "S") and repeated(wizard, hand) is None:
                return (
                    f"you are afraid this turn: no C, D or S (the {hand} hand's {typed[hand]} "
                    "would count as nothing)"
                )
    if left == right == STAB:
        return "one knife: only one hand may stab in a turn (the other hand's stab would count as nothing)"
    return None


def _other(hand: str) -> str:
    return "right" if hand == "left" else "left"


def duel_question(view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> Question:
    """What the wizard at ``seat`` decides now."""
    pending = [p for p in view.get("paralysis_choices") or [] if isinstance(p, Mapping)]
    mine = [p for p in pending if p.get("by") == seat and p.get("hand") is None]  # (not yet chosen)
    if mine:
        target = str(mine[0].get("target", "p1"))
        number = int(target.lstrip("p") or 0)
        wizard = view["wizards"][number]
        last = {hand: str(wizard.get(hand, ""))[-1:] or "-" for hand in HANDS}
        if wizard.get("clapped_alone") in HANDS:
            last[str(wizard["clapped_alone"])] = CLAP  # a clap made alone is what the hand repeats
        repeats = ", ".join(f"{hand} repeats {last[hand]}" for hand in HANDS)
        whose = "your own" if number == seat else f"{seat_name(names, number)}'s"
        how = "type left or right" if len(mine) == 1 else f"type paralyze {target} left, or right"
        return Question("paralyse", f"choose the hand to paralyse: {whose} {repeats} next turn ({how})")
    return Question(
        "gestures",
        f"turn {view.get('turn')}: choose your gestures, left hand then right, like S D (Tab lists them)",
    )


def _waiting_paralyses(state: Any, seat: int) -> list[int]:
    """The wizards whose hand this seat's Paralysis still has to pick."""
    if state is None or not getattr(state, "paralysis_choices", None):
        return []
    done = {target for target, _ in state.chosen}
    return [target for target, by in state.paralysis_choices if by == seat and target not in done]


def _paralysis_words(words: list[str], state: Any, seat: int) -> list[str]:
    """``left``/``right`` (or ``paralyze left``) as ``paralyze pN left`` while one Paralysis of
    ``seat`` waits for its hand; any other words as they are."""
    hand = words[-1].lower()
    short = len(words) == 1 or (len(words) == 2 and words[0].lower() == "paralyze")
    if not short or hand not in HANDS:
        return words
    if state is None:  # (blind: this machine cannot tell which wizard waits)
        raise InputError(
            f"while you are blind, name the wizard your Paralysis holds: paralyze p{1 - seat} {hand}"
        )
    waiting = _waiting_paralyses(state, seat)
    if not waiting:
        raise InputError(
            f"{hand} alone names the hand a Paralysis of yours holds, and none waits for one now"
        )
    if len(waiting) > 1:
        raise InputError(
            f"two of your Paralyses wait for a hand: name the wizard too, like paralyze p{waiting[0]} {hand}"
        )
    return ["paralyze", f"p{waiting[0]}", hand]


def paralysis_words(state: Any, seat: int, target: str, hand: str) -> str:
    """A Paralysis choice as what it does: "the opponent's right hand repeats D next turn"."""
    number = int(target[1:]) if target[1:].isdigit() and int(target[1:]) in (0, 1) else 1 - seat
    whose = "your own" if number == seat else "the opponent's"
    forced = repeated(replace(state.wizards[number], paralysed=hand), hand)
    return f"Paralysis: {whose} {hand} hand repeats {forced} next turn"


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
    if words[0].lower() == "paralyze":
        return _parse_paralyze(words)
    hands, rest = _split_gestures(words)
    action: dict[str, Any] = {"type": "gestures", "left": hands[0], "right": hands[1]}
    for word in rest:
        _add_option(action, word)
    confirm = ""
    if hands == ["P", "P"]:
        confirm = "P with both hands is a surrender: you lose the duel"
    return Parsed(action, confirm)


def _parse_paralyze(words: list[str]) -> Parsed:
    """``paralyze TARGET HAND``: the hand a Paralysis holds."""
    if len(words) != 3 or words[2].lower() not in HANDS:
        raise InputError("paralyze TARGET HAND, like: paralyze p1 left")
    return Parsed({"type": "paralyze", "target": words[1].lower(), "hand": words[2].lower()})


def _split_gestures(words: list[str]) -> tuple[list[str], list[str]]:
    """Both hands' gestures, typed together ("SD") or apart ("S D"), and the words after them."""
    if len(words[0]) == 2 and all(c.lower() in GESTURE_WORDS for c in words[0]):
        return [GESTURE_WORDS[c.lower()] for c in words[0]], words[1:]
    if len(words) >= 2 and all(w.lower() in GESTURE_WORDS for w in words[:2]):
        return [GESTURE_WORDS[w.lower()] for w in words[:2]], words[2:]
    raise InputError(
        "gestures for the left and right hand, like: S D  (C D P S W, > to stab, - for nothing); "
        "then targets like left=p1, spells like left:missile, monster orders like m1=p1"
    )


def _add_option(action: dict[str, Any], word: str) -> None:
    """One word after the gestures into ``action``: a hand's spell (``left:missile``), a hand's
    target (``left=p1``) or a monster's (``m1=p1``)."""
    if ":" in word:
        hand, _, spell = word.partition(":")
        if hand not in HANDS or spell not in BY_NAME:
            raise InputError(f"{word!r}: name a hand and a spell, like left:missile")
        _once(action.setdefault("spells", {}), f"{hand}:", spell, f"the {hand} hand casts one spell")
    elif "=" in word:
        key, _, target = word.partition("=")
        what = f"the {key} hand has one target" if key in HANDS else f"{key} attacks one target"
        _once(action.setdefault("targets" if key in HANDS else "monsters", {}), f"{key}=", target, what)
    else:
        raise InputError(f"{word!r}: expected left=TARGET, right=TARGET, HAND:SPELL or MONSTER=TARGET")


def _once(chosen: dict[str, str], typed: str, value: str, what: str) -> None:
    """The choice ``typed`` as ``left=`` or ``left:`` set to ``value``; a second, different one
    for the same key is refused (rather than one of the two silently counting)."""
    key = typed[:-1]
    if chosen.get(key, value) != value:
        raise InputError(f"{typed}{chosen[key]} and {typed}{value}: {what}; type only the one you mean")
    chosen[key] = value


def duel_choices(state: Any, seat: int, typed: str) -> list[Choice]:
    """Gesture pairs first (those completing spells first, each with what it casts), then targets,
    named spells and monster orders once the gestures are typed."""
    if state is None:
        return []
    if getattr(state, "paralysis_choices", None):
        waiting = _waiting_paralyses(state, seat)
        return [
            Choice(
                hand if len(waiting) == 1 else f"paralyze p{target} {hand}",
                paralysis_words(state, seat, f"p{target}", hand),
            )
            for target in waiting
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
            if step_one(wizard, left, right):
                continue  # refused up front: last turn's effects would change it
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


# -- the front end --------------------------------------------------------------------------------


class DuelFrontEnd(FrontEnd):
    """The duel in the terminal UI."""

    help = HELP
    styles: Mapping[str, str] = {
        "hp": "bold",
        "hp.bar": "ansired",
        "gestures": "bold",
        "monster": "ansimagenta",
        "spell": "bold",
        "cast": "bold reverse",
    }
    replay_unit = "turn"
    scroll_keys = "Up / Down             the turn history: a turn older / newer"

    board = staticmethod(duel_board)
    question = staticmethod(duel_question)
    scroll_limit = staticmethod(history_limit)

    def remember(
        self,
        memory: dict[str, Any],
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        actions: Sequence[tuple[int, Any]] = (),
    ) -> None:
        """Keep the spells each wizard's hands completed, by turn (``memory["casts"]``: turn ->
        seat -> hand -> spell), for the turn history (a view holds the last turn's events only).
        ``view``: the one after the step, whose turn is the next one."""
        if view is None:
            return
        turn = int(view.get("turn", 1)) - 1
        for event in events:
            if event.get("type") == "cast" and event.get("hand") in HANDS:
                by_seat = memory.setdefault("casts", {}).setdefault(turn, {})
                by_seat.setdefault(int(event["seat"]), {})[str(event["hand"])] = str(event["spell"])
            elif event.get("type") == "surrender":  # (a seat, or both: "why": "both")
                quitters = [int(event["seat"])] if "seat" in event else [0, 1]
                memory.setdefault("surrenders", {})[turn] = quitters

    def spectator_view(self, state: Any) -> dict[str, Any]:
        """The whole field (a seat's own view hides the other wizard while it is blind)."""
        view: dict[str, Any] = dict(self.engine.full(state))
        view.update(seat=0, events=list(self.engine.events(state)), spectator=True)
        return view

    def replay_number(self, stage: int, view: Mapping[str, Any]) -> int:
        """The turn a step played (a Paralysis choice belongs to the turn that cast it)."""
        return int(view.get("turn", 1)) - 1

    def log_lines(
        self,
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        names: Mapping[int, str] | None = None,
    ) -> list[str]:
        """A turn's events under its number: "turn 4: p1 casts ...", the rest indented."""
        texts = super().log_lines(events, view, names)
        if not texts or view is None:
            return texts
        label = f"turn {int(view.get('turn', 1)) - 1}: "
        return [label + texts[0]] + [" " * len(label) + text for text in texts[1:]]

    def describe(self, action: Mapping[str, Any]) -> str:
        """Gestures in the input syntax ("S D left=p1"); anything else as the generic words."""
        if action.get("type") == "gestures":
            return gestures_text(action)
        if action.get("type") == "paralyze":
            return f"paralyze {action.get('target')} {action.get('hand')}"
        return super().describe(action)

    def echo(self, action: Mapping[str, Any], state: Any, seat: int) -> str:
        """A Paralysis choice as what it does ("the opponent's right hand repeats D next turn")."""
        if action.get("type") == "paralyze" and state is not None:
            return paralysis_words(state, seat, str(action.get("target")), str(action.get("hand")))
        return super().echo(action, state, seat)

    def parse(self, text: str, state: Any, seat: int) -> Parsed:
        """The move typed; gestures that last turn's effects would change (rules, step 1) are
        refused up front, and a clap of one hand is asked about (it counts as nothing). While a
        Paralysis of this seat waits for its hand, ``left`` or ``right`` alone names it."""
        parsed = parse_duel(_paralysis_words(text.split(), state, seat))
        action = parsed.action
        waiting = _waiting_paralyses(state, seat)
        if waiting and action is not None and action.get("type") == "gestures":
            raise InputError("first choose the hand your Paralysis holds: type left or right")
        if waiting and action is not None and action.get("target") not in [f"p{t}" for t in waiting]:
            whose = "your own wizard" if waiting[0] == seat else "the opponent"
            raise InputError(f"your Paralysis holds a hand of {whose}: type left or right")
        if state is None or action is None or action.get("type") != "gestures" or seat not in (0, 1):
            return parsed
        wizard = state.wizards[seat]
        refusal = step_one(wizard, action["left"], action["right"])
        if refusal:
            raise InputError(refusal)
        alone = [h for h in HANDS if action[h] == CLAP and action[_other(h)] != CLAP]
        if alone and not parsed.confirm and repeated(wizard, alone[0]) != CLAP:
            return Parsed(action, f"a clap needs both hands: the {alone[0]} hand's C alone counts as nothing")
        return parsed

    def choices(self, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
        return duel_choices(state, seat, typed)

    def dark_choices(self, typed: str, seat: int) -> list[Choice]:
        return blind_choices(typed)

    def dark_words(self) -> str:
        return "you are blind: you see only what affects you (the rest is shown when it ends)"

    def dark_note(self, who: str, *, opened: bool) -> str:
        if opened:
            return f"{who} was blind: this is what it was shown (all was opened when the blindness ended)"
        return (
            f"{who} was blind: this is what it was shown; the transcript stops before the "
            "other's choices of its blind turns were opened"
        )


FRONT: Final = DuelFrontEnd(DUEL.name)
"""The duel's front end (named in the games' table)."""
