"""The Magic Square's front end: the coloured grid with its numbers and scores, cells typed as
b3, completions that mark the cells keeping a magic square possible (with hints on)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.squares import index
from p2pgenius.games.magic_square.state import cell_name
from p2pgenius.ui.frontends.base import Choice, FrontEnd, InputError, Parsed, register_frontend
from p2pgenius.ui.lines import Glyphs, Line, seat_name

HELP: Final = (
    "A cell (a1..d4) colours it or places the next number.  first / second: who starts.\n"
    "challenge: say the square can no longer be made magic; pass: let it go.\n"
    "complete N N ... (16 numbers): answer a challenge; concede.  swap a1 b2 / done: swaps.\n"
    "hint toggles the cells where the next number keeps a magic square possible."
)


class SquareFrontEnd(FrontEnd):
    """The Magic Square in the terminal UI."""

    help = HELP
    styles: Mapping[str, str] = {
        "red": "bg:ansired ansiwhite",
        "blue": "bg:ansiblue ansiwhite",
        "uncoloured": "reverse",
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
        return magic_board(view, names, glyphs, hints=hints)

    def parse(self, text: str, state: Any, seat: int) -> Parsed:
        return parse_square(text.split(), state, seat)

    def choices(self, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
        return square_choices(state, seat, hints)


# -- the board ------------------------------------------------------------------------------------

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
        good = set(index().next_cells(placed))
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


# -- moves ----------------------------------------------------------------------------------------


def parse_cell(word: str) -> int:
    """a1..d4 -> 0..15."""
    word = word.strip().lower()
    if len(word) == 2 and word[0] in "abcd" and word[1] in "1234":
        return "abcd".index(word[0]) + 4 * (int(word[1]) - 1)
    raise InputError(f"{word!r} is not a cell: columns a-d, rows 1-4 (like b3)")


def parse_square(words: list[str], state: Any, seat: int) -> Parsed:
    """The move typed as ``words``."""
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
    engine = MAGIC_SQUARE
    good: set[int] = set()
    if hints and state.phase == "place":
        good = set(index().next_cells(list(state.cells)))
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


register_frontend(MAGIC_SQUARE.name, SquareFrontEnd(MAGIC_SQUARE.name))
