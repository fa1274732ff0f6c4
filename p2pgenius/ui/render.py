"""The boards as text: pure functions from a seat's view of the state to styled lines.

Each function takes the engine's ``view`` for the player's seat (so hidden information is exactly
what that seat may know: the session already keeps the rest off this machine) and returns lines of
prompt_toolkit fragments ``(style, text)``. Nothing here touches the terminal, so the tests read
the same text the player sees. ``ascii`` swaps every non-ASCII glyph for a plain one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgenius.games.duel.spells import BY_NAME, HANDS, next_gestures
from p2pgenius.games.magic_square.squares import index as magic_index

Fragment = tuple[str, str]
Line = list[Fragment]


@dataclass(frozen=True)
class Glyphs:
    """The few symbols the boards use, in Unicode and in ASCII."""

    bar: str
    gap: str
    running: str
    stopped: str
    sep: str
    hidden: str

    @classmethod
    def pick(cls, ascii_only: bool) -> Glyphs:
        if ascii_only:
            return cls(bar="#", gap=".", running=">", stopped=" ", sep="|", hidden="?")
        return cls(bar="\u2588", gap="\u00b7", running="\u25b6", stopped=" ", sep="\u2502", hidden="\u25a0")


def plain(lines: Sequence[Line]) -> str:
    """The text of some lines, without styles (for tests and the ASCII check)."""
    return "\n".join("".join(text for _, text in line) for line in lines)


def seat_name(names: Mapping[int, str], seat: int) -> str:
    """ "alice (p0)"."""
    name = names.get(seat)
    return f"{name} (p{seat})" if name else f"p{seat}"


# -- clocks ---------------------------------------------------------------------------------------


def clock_text(seconds: float) -> str:
    """12:00, 0:09."""
    whole = max(int(seconds + 0.999), 0)
    return f"{whole // 60}:{whole % 60:02d}"


def clocks_line(
    readings: Mapping[int, tuple[str, float, bool]], names: Mapping[int, str], glyphs: Glyphs
) -> Line:
    """Every seat's clock: kind, time left, and a mark on the running ones."""
    line: Line = [("class:label", " clocks ")]
    for seat, (kind, left, running) in sorted(readings.items()):
        style = "class:clock.low" if left < 60 else ("class:clock.running" if running else "class:clock")
        mark = glyphs.running if running else glyphs.stopped
        line.append((style, f" {mark}{seat_name(names, seat)} {kind} {clock_text(left)} "))
    if len(line) == 1:
        line.append(("class:dim", " (no clock running)"))
    return line


# -- the duel -------------------------------------------------------------------------------------


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


# -- the Magic Square -----------------------------------------------------------------------------

COLUMNS = "abcd"


def magic_board(
    view: Mapping[str, Any], names: Mapping[int, str], glyphs: Glyphs, *, hints: bool
) -> list[Line]:
    """The grid with colours and numbers, the scores, the round and the phase; with ``hints``,
    the cells where the next number still allows a magic completion."""
    me = int(view.get("seat", 0))
    colours = view["colours"]
    grid = view["grid"]
    placed = [cell for _, cell in sorted((n, c) for c, n in enumerate(grid) if n)]
    good: set[int] = set()
    if hints and view.get("phase") == "place" and len(placed) < 16:
        good = set(magic_index().next_cells(placed))
    lines: list[Line] = [
        [
            ("class:title", f" Round {view['round']}"),
            ("", f"  (round wins {view['round_wins'][0]}-{view['round_wins'][1]})"),
            ("class:dim", f"  phase: {view['phase'].replace('_', ' ')}"),
        ],
        [("class:dim", "    " + "".join(f"  {c}   " for c in COLUMNS))],
    ]
    for row in range(4):
        line: Line = [("class:dim", f"  {row + 1} ")]
        for col in range(4):
            cell = 4 * row + col
            owner = colours[cell]
            style = "class:red" if owner == 0 else ("class:blue" if owner == 1 else "class:uncoloured")
            number = grid[cell]
            mark = "R" if owner == 0 else ("B" if owner == 1 else glyphs.gap)
            text = f"{number:>2}" if number else (" *" if cell in good else "  ")
            line.append((style, f" {mark}{text} "))
            line.append(("", " "))
        lines.append(line)
    scores = view["scores"]
    lines.append(
        [
            ("class:red", f" {seat_name(names, 0)} red {scores[0]}"),
            ("", "   "),
            ("class:blue", f" {seat_name(names, 1)} blue {scores[1]}"),
            ("class:dim", f"   (you are p{me})"),
        ]
    )
    if good:
        lines.append(
            [("class:dim", f" * the next number ({len(placed) + 1}) keeps a magic square possible here")]
        )
    elif hints and view.get("phase") == "place" and len(placed) < 16:
        lines.append([("class:effect", " no cell keeps a magic square possible: challenge!")])
    if view.get("challenge_window") is not None:
        lines.append([("class:dim", f" p{view['challenge_window']} may challenge the last placement")])
    last = view.get("last_round")
    if isinstance(last, dict):
        winner = last.get("winner")
        won = "a tie" if winner is None else f"p{winner} won"
        lines.append([("class:dim", f" last round: {won} ({str(last.get('reason')).replace('_', ' ')})")])
    return lines


# -- Hornswoggle ----------------------------------------------------------------------------------


def horn_board(
    view: Mapping[str, Any], names: Mapping[int, str], glyphs: Glyphs, mine: Sequence[int]
) -> list[Line]:
    """The four pirates (hands, piles, discards, garnets), the bid, and whose move it is. Cards
    you hold show their faces; everyone else's show only as counts, or as their faces once flipped."""
    me = int(view.get("seat", 0))
    lines: list[Line] = [
        [
            ("class:title", f" Round {view['round']}"),
            ("class:dim", f"  phase: {view['phase']}"),
            (
                "",
                f"  bid: {view['bid'] or 'none'}"
                + (f" by p{view['bidder']}" if view.get("bidder") is not None else ""),
            ),
        ]
    ]
    for seat in range(4):
        team = "A" if seat % 2 == 0 else "B"
        style = "class:seat.me" if seat in mine else "class:seat"
        turn = glyphs.running if view.get("current") == seat and view.get("phase") not in ("over",) else " "
        status = []
        if view["out"][seat]:
            status.append("out")
        if view["passed"][seat]:
            status.append("passed")
        if view.get("challenger") == seat:
            status.append("challenger")
        pile = view["piles"][seat]
        flipped = view["flipped"][seat]
        own = view if seat == me else dict(view.get("partners", {})).get(seat)
        if own is not None:  # a seat this machine holds (a bot partner's, too): its faces
            faces = list(own.get("my_pile", []))
            hand = own.get("hand") or [0, 0]
            holding = f"hand: {_count(hand[0], 'doubloon')}, {_count(hand[1], 'skull')}"
        else:
            faces = [card if up else glyphs.hidden for card, up in zip(pile, flipped, strict=False)]
            holding = f"{view['hand_counts'][seat]} cards in hand"
        shown = " ".join(_card(face, glyphs) for face in faces) or "(empty)"
        partner = " (bot partner)" if seat in mine and seat != me else ""
        lines.append(
            [(style, f" {turn} {seat_name(names, seat)}{partner}"), ("class:dim", f"  team {team}")]
            + ([("class:effect", "  " + ", ".join(status))] if status else [])
        )
        lines.append(
            [
                ("class:dim", f"     {holding}"),
                ("", f"   pile: {shown}"),
                (
                    "class:dim",
                    f"   discards {view['discard_counts'][seat]}   garnets {view['garnets'][seat]}",
                ),
            ]
        )
    if view.get("owing"):
        lines.append([("class:dim", " discards owed by " + ", ".join(f"p{s}" for s in view["owing"]))])
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _card(face: Any, glyphs: Glyphs) -> str:
    if face == "doubloon":
        return "D"
    if face == "skull":
        return "S"
    return glyphs.hidden


def board(
    game: str,
    view: Mapping[str, Any],
    names: Mapping[int, str],
    *,
    ascii_only: bool,
    hints: bool,
    mine: Sequence[int],
) -> list[Line]:
    """The board of ``game`` from ``view``."""
    glyphs = Glyphs.pick(ascii_only)
    if game == "duel":
        return duel_board(view, names, glyphs)
    if game == "magic-square":
        return magic_board(view, names, glyphs, hints=hints)
    return horn_board(view, names, glyphs, mine)
