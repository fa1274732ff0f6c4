"""The Magic Square's front end: the coloured grid with its numbers and scores, cells typed as
b3, completions that mark the cells keeping a magic square possible (with hints on)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.squares import index
from p2pgenius.games.magic_square.state import cell_name
from p2pgenius.ui.frontends.base import Choice, FrontEnd, InputError, Parsed, Question
from p2pgenius.ui.lines import Glyphs, Line, plural, seat_name, side_by_side, width_of, wrap_all

HELP: Final = (
    "A cell (a1..d4) colours it or places the next number.\n"
    "first / second: who starts.\n"
    "challenge: say the square can no longer be made magic; pass: let it go.\n"
    "complete N N ... (16 numbers): answer a challenge; concede.\n"
    "swap a1 b2 / done: swaps.\n"
    "hint toggles the cells where the next number keeps a magic square possible."
)


class SquareFrontEnd(FrontEnd):
    """The Magic Square in the terminal UI."""

    help = HELP
    styles: Mapping[str, str] = {
        "red": "bg:ansired ansiwhite",
        "blue": "bg:ansiblue ansiwhite",
        "uncoloured": "reverse",
        "last": "bold underline",
    }

    def board(
        self,
        view: Mapping[str, Any],
        names: Mapping[int, str],
        glyphs: Glyphs,
        *,
        hints: bool,
        mine: Sequence[int],
        width: int = 80,
        height: int = 40,
        memory: Mapping[str, Any] | None = None,
    ) -> list[Line]:
        return magic_board(view, names, glyphs, hints=hints, width=width, height=height, memory=memory)

    def remember(
        self,
        memory: dict[str, Any],
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        actions: Sequence[tuple[int, Any]] = (),
    ) -> None:
        """The completion that beat a challenge, drawn beside the grid until the next round's
        first number (the engine's events do not carry it: it is the challenged player's
        action, so it comes with the step's ``actions``)."""
        remember_completion(memory, events, view, actions)

    def echo(self, action: Mapping[str, Any], state: Any, seat: int) -> str:
        """What the person at ``seat`` sent, in the words it typed: an order as "first" or
        "second" and what that means ("second: your opponent colours first"), not "p0 first"."""
        if action.get("type") != "order":
            return self.describe(action)
        verb = "colour" if getattr(state, "phase", None) == "colour_order" else "place"
        if action.get("first") == seat:
            return f"first: you {verb} first"
        return f"second: your opponent {verb}s first"

    def question(self, view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> Question:
        return square_question(view, seat, names)

    def describe(self, action: Mapping[str, Any]) -> str:
        """An action as the player typed it ("b3", "swap a1 b2", "done")."""
        kind = action.get("type")
        if kind in ("place", "colour"):
            return cell_name(int(action["cell"]))
        if kind == "order":
            return f"p{action.get('first')} first"
        if kind == "swap":
            return f"swap {cell_name(int(action['red']))} {cell_name(int(action['blue']))}"
        if kind == "swaps_done":
            return "done"
        if kind == "complete":
            return "complete " + " ".join(str(n) for n in action.get("grid", []))
        return str(kind)

    def parse(self, text: str, state: Any, seat: int) -> Parsed:
        return parse_square(text.split(), state, seat)

    def choices(self, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
        return square_choices(state, seat, hints)


# -- the board ------------------------------------------------------------------------------------

COLUMNS = "abcd"
PHASE_WORDS: Final = {
    "colour_order": "choosing who colours first",
    "colouring": "colouring",
    "swap": "swaps",
    "lead": "choosing who places first",
    "place": "placing",
    "challenge": "a challenge",
    "over": "the match is over",
}


def magic_board(
    view: Mapping[str, Any],
    names: Mapping[int, str],
    glyphs: Glyphs,
    *,
    hints: bool,
    width: int = 80,
    height: int = 40,
    memory: Mapping[str, Any] | None = None,
) -> list[Line]:
    """The grid with colours and numbers, the scores, the round and the phase; with ``hints``,
    the cells where the next number still allows a magic completion. When the match is over, the
    last round's final grid and score (the state has cleared its numbers). A completion that
    beat a challenge (kept in ``memory``) beside the grid until the next round's first number,
    and as the final grid if it ended the match. Bigger cells when there is room. A spectator's
    view (a replay) names the players, nobody "you"."""
    spectator = bool(view.get("spectator"))
    me = -1 if spectator else int(view.get("seat", 0))
    colours = view["colours"]
    grid = list(view["grid"])
    scores = list(view["scores"])
    last = view.get("last_round") if isinstance(view.get("last_round"), dict) else None
    over = view.get("phase") == "over"
    completion = _completion(memory, last)
    if over and last is not None:  # the final position, not the cleared grid of a next round
        grid, scores = list(last.get("grid", grid)), list(last.get("scores", scores))
    placed = [cell for _, cell in sorted((n, c) for c, n in enumerate(grid) if n)]
    good: set[int] = set()
    if hints and view.get("phase") == "place" and len(placed) < 16:
        good = set(index().next_cells(placed))
    lines: list[Line] = [_magic_header(view, names, me, over=over)]
    big = height >= 24 and width >= 44
    drawn = _grid(colours, grid, glyphs, good, placed[-1] if placed else None, big=big)
    lines += _beside(drawn, _completion_lines(completion, names, me, big=big), width)
    lines.append(
        [
            ("class:red", f" red: {seat_name(names, 0)} {scores[0]} "),
            ("", "  "),
            ("class:blue", f" blue: {seat_name(names, 1)} {scores[1]} "),
            ("class:dim", "" if spectator else f"   you are {'red' if me == 0 else 'blue'}"),
        ]
    )
    lines += _notes(view, names, me, placed, good, hints=hints)
    if last is not None:
        label = f"round {last.get('round')}" if not over else "the last round"
        lines.append([("class:dim", f" {label}: {_last_round(last, names, me)}")])
    return wrap_all(lines, width)


def _magic_header(view: Mapping[str, Any], names: Mapping[int, str], me: int, *, over: bool) -> Line:
    """The board's first line: the round (or the final position), rounds won, the phase."""
    wins = view["round_wins"]
    phase = PHASE_WORDS.get(str(view["phase"]), str(view["phase"]).replace("_", " "))
    if view.get("phase") == "place":
        phase = f"placing {view.get('turn')}"
    return [
        ("class:title", " Final position" if over else f" Round {view['round']}"),
        ("", f"   rounds won: {_who(names, me, 0)} {wins[0]}, {_who(names, me, 1)} {wins[1]}"),
        ("class:dim", f"   {phase}"),
    ]


def _notes(
    view: Mapping[str, Any],
    names: Mapping[int, str],
    me: int,
    placed: list[int],
    good: set[int],
    *,
    hints: bool,
) -> list[Line]:
    """Under the scores: what the hints found, and the challenge the person may make now."""
    lines: list[Line] = []
    if good:
        lines.append(
            [("class:dim", f" * the next number ({len(placed) + 1}) keeps a magic square possible here")]
        )
    elif hints and view.get("phase") == "place" and len(placed) < 16:
        lines.append([("class:effect", " no cell keeps a magic square possible: challenge!")])
    window = view.get("challenge_window")
    if window == me and placed:  # the note only for the player it concerns
        number = len(placed)
        lines.append(
            [
                (
                    "class:effect",
                    f" you may challenge {_who(names, me, 1 - me)}'s {number} on "
                    f"{cell_name(placed[-1])} until the next move",
                )
            ]
        )
    return lines


def _who(names: Mapping[int, str], me: int, seat: int) -> str:
    return "you" if seat == me else seat_name(names, seat)


def _whose(names: Mapping[int, str], me: int, seat: int) -> str:
    return "your" if seat == me else f"{seat_name(names, seat)}'s"


def _last_round(last: Mapping[str, Any], names: Mapping[int, str], me: int) -> str:
    """How a round ended, the winner's score first and whose each is: "you won, 81-55 (score):
    your 81 to bob (p1)'s 55"; after a challenge or a timeout, the scores the numbers placed
    made when it ended."""
    scores = [int(n) for n in last.get("scores", [0, 0])]
    winner = last.get("winner")
    reason = str(last.get("reason")).replace("_", " ")
    if winner is None:
        return f"a tie, {scores[0]}-{scores[1]}: replayed"
    won, lost = int(winner), 1 - int(winner)
    whose = f"{_whose(names, me, won)} {scores[won]} to {_whose(names, me, lost)} {scores[lost]}"
    if last.get("reason") in ("score", "not_magic"):
        return f"{_who(names, me, won)} won, {scores[won]}-{scores[lost]} ({reason}): {whose}"
    return f"{_who(names, me, won)} won ({reason}), {whose} when it ended"


def remember_completion(
    memory: dict[str, Any],
    events: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any] | None,
    actions: Sequence[tuple[int, Any]],
) -> None:
    """Keep the grid a challenged player showed when it beat the challenge (from the step's
    ``actions``), until a number is placed in the next round."""
    for event in events:
        if (
            not isinstance(event, Mapping)
            or event.get("type") != "round_end"
            or event.get("how") != "completes"
        ):
            continue
        for seat, action in actions:
            if seat == event.get("seat") and isinstance(action, Mapping) and action.get("type") == "complete":
                placed = sum(1 for n in event.get("grid") or () if n)
                memory["completion"] = {
                    "round": event.get("round"),
                    "seat": seat,
                    "grid": [int(n) for n in action.get("grid", ())],
                    "placed": placed,
                }
    if view is not None and any(view.get("grid") or ()) and "completion" in memory:
        del memory["completion"]  # the next round has begun placing


def _completion(memory: Mapping[str, Any] | None, last: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The completion kept for the round that ended last, if it beat a challenge."""
    kept = (memory or {}).get("completion")
    if not isinstance(kept, Mapping) or last is None or last.get("reason") != "challenge_failed":
        return None
    if kept.get("round") != last.get("round") or len(kept.get("grid", ())) != 16:
        return None
    return kept


def _completion_lines(
    completion: Mapping[str, Any] | None, names: Mapping[int, str], me: int, *, big: bool
) -> list[Line]:
    """The grid a challenged player showed to beat the challenge, row by row beside the grid's
    rows: the numbers placed in play stand out, the rest are its completion."""
    if completion is None:
        return []
    grid, placed = list(completion["grid"]), int(completion.get("placed", 0))
    whose = _whose(names, me, int(completion.get("seat", 0)))
    out: list[Line] = [[("class:title", f"{whose} completion (round {completion.get('round')}):")]]
    for row in range(4):
        line: Line = [("", "  ")]
        for number in grid[4 * row : 4 * row + 4]:
            line.append(("class:last" if number <= placed else "", f"{number:>3}"))
        out += [[], line, []] if big else [line]  # (a big cell's number is on its middle line)
        if big and row < 3:
            out.append([])
    kept = "1 where it was placed" if placed == 1 else f"1 to {placed} where they were placed"
    out.append([("class:dim", f"magic, with {kept}: the challenge failed")])
    return out


def _beside(grid: list[Line], extra: list[Line], width: int) -> list[Line]:
    """``extra`` to the right of the grid when the width has room for it, else under it."""
    if not extra:
        return grid
    used = max(width_of(line) for line in grid)
    room = width - used - 3
    if room >= 24:
        return side_by_side([grid, extra], [used, room], gap=3)
    return grid + extra


def _grid(
    colours: Sequence[Any],
    grid: Sequence[int],
    glyphs: Glyphs,
    good: set[int],
    last: int | None,
    *,
    big: bool,
) -> list[Line]:
    """The 4x4 grid, a cell as one line of 5 columns, or (``big``) as three lines of 9."""
    cell_width = 9 if big else 5
    lines: list[Line] = [
        [("class:dim", "    " + "".join(f"{c:^{cell_width}} " for c in COLUMNS))],
    ]
    for row in range(4):
        rows: list[Line] = [[] for _ in range(3 if big else 1)]
        for col in range(4):
            cell = 4 * row + col
            owner = colours[cell]
            style = "class:red" if owner == 0 else ("class:blue" if owner == 1 else "class:uncoloured")
            number = grid[cell]
            mark = "R" if owner == 0 else ("B" if owner == 1 else glyphs.gap)
            text = f"{number:>2}" if number else (" *" if cell in good else "  ")
            numbered = style + (" class:last" if cell == last else "")
            if big:
                rows[0] += [(style, f"{mark:<{cell_width}}"), ("", " ")]
                rows[1] += [(numbered, f"{text:^{cell_width}}"), ("", " ")]
                rows[2] += [(style, " " * cell_width), ("", " ")]
            else:
                rows[0] += [(style, f" {mark}"), (numbered, text), (style, " "), ("", " ")]
        for at, line in enumerate(rows):
            label = f"  {row + 1} " if at == len(rows) // 2 else "    "
            lines.append([("class:dim", label), *line])
        if big and row < 3:
            lines.append([])
    return lines


def square_question(view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> Question:
    """What the player at ``seat`` decides now."""
    phase = view.get("phase")
    other = _who(names, seat, 1 - seat)
    grid = list(view["grid"])
    placed = [cell for _, cell in sorted((n, c) for c, n in enumerate(grid) if n)]
    actor = view.get("to_move")
    window = view.get("challenge_window") == seat and placed
    last = f"{other}'s {len(placed)} on {cell_name(placed[-1])}" if placed else ""
    if phase == "challenge" and actor == seat:
        return Question(
            "answer",
            f"{other} challenges your {len(placed)}: show a magic completion (complete and the 16 "
            "numbers row by row) or concede; a valid completion wins the round",
        )
    if window and actor != seat:
        return Question(
            "challenge?",
            f"you may challenge {last} (challenge) until {other} moves; or let it stand (pass)",
        )
    if phase == "colour_order":
        return Question("who colours first", f"choose who colours first: first (you) or second ({other})")
    if phase == "colouring":
        mine = sum(1 for c in view["colours"] if c == seat)
        colour = "red" if seat == 0 else "blue"
        return Question("colour", f"colour a cell {colour}, like b3 ({8 - mine} of your 8 cells left)")
    if phase == "swap":
        left = int(view.get("swaps_left", 0))
        return Question(
            "swap",
            f"swap one red and one blue cell (swap a1 b2), or done; {plural(left, 'swap')} left",
        )
    if phase == "lead":
        return Question(
            "who places first",
            f"you lead: choose who places {len(placed) + 1} first: first (you) or second ({other})",
        )
    if phase == "place":
        place = f"place {len(placed) + 1} on an empty cell, like b3"
        if window:
            return Question(
                "challenge or place", f"you may challenge {last} (challenge), or play on: {place}"
            )
        return Question("place", place)
    return FrontEnd.question(FRONT, view, seat, names)


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
        if state is not None and getattr(state, "actor", None) == seat:
            raise InputError("it is your move: playing it lets the last placement stand (or: challenge)")
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
        actor = getattr(state, "actor", None)
        if phase in ("colour_order", "lead") and actor == seat:
            what = "colours" if phase == "colour_order" else "places"
            raise InputError(f"first choose who {what} first: first (you) or second")
        if state is not None and actor is not None and actor != seat:
            window = getattr(state, "window", None) == seat
            raise InputError(
                "it is the other player's move"
                + ("; you may challenge the last number (challenge) or let it stand (pass)" if window else "")
            )
        return Parsed({"type": "colour" if phase == "colouring" else "place", "cell": cell})
    raise _unread(words, state)


def _unread(words: list[str], state: Any) -> InputError:
    """What to say of ``words`` that are no move: a cell typed with a number ("b1 1") is told to
    go alone; anything else, every kind of move."""
    head = words[0].lower()
    if len(words) == 2 and len(head) == 2 and head[0] in "abcd" and head[1] in "1234":
        cells = getattr(state, "cells", None)
        number = f" ({len(cells) + 1} now)" if isinstance(cells, tuple) and len(cells) < 16 else ""
        return InputError(
            f"type the cell alone, like {head}: the number placed is always the next one{number}"
        )
    return InputError(
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
    if seat == state.window and seat != state.actor:  # (the actor lets it stand by playing on)
        out.append((1, Choice("pass", "let the placement stand (no challenge)")))
    return [choice for _, choice in sorted(out, key=lambda item: item[0])]


FRONT: Final = SquareFrontEnd(MAGIC_SQUARE.name)
"""The Magic Square's front end (named in the games' table)."""
