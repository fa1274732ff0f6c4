"""The Magic Square's front end: the coloured grid with its numbers and scores, cells typed as
b3, completions that mark the cells keeping a magic square possible (with hints on)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.squares import LINES, MAGIC_SUM, index
from p2pgenius.games.magic_square.state import SquareState, cell_name
from p2pgenius.ui.frontends.base import (
    BoardRequest,
    Choice,
    FrontEnd,
    InputError,
    Parsed,
    Question,
    rules_lines,
)
from p2pgenius.ui.lines import Glyphs, Line, plural, seat_name, side_by_side, width_of, wrap_all

HELP: Final = (
    "A cell (a1..d4) colours it or places the next number.\n"
    "first (or me) / second: who starts.\n"
    "challenge: say the square can no longer be made magic.\n"
    "pass: let the last placement stand while the other player is to move (on your own move, "
    "placing the next number lets it stand).\n"
    "complete N N ... (16 numbers): answer a challenge; concede.\n"
    "swap a1 b2 / done (or pass): swaps.\n"
    "hint toggles the cells where the next number keeps a magic square possible."
)


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


@dataclass(frozen=True)
class _Cells:
    """The grid as the board draws it: each cell's colour (its owner's seat, or None) and number
    (0: none yet), the cells in the order they were numbered, and those the hints mark."""

    colours: Sequence[Any]
    numbers: Sequence[int]
    placed: Sequence[int]
    good: frozenset[int]


def magic_board(request: BoardRequest) -> list[Line]:
    """The grid with colours and numbers, the scores, the round and the phase; with ``hints``,
    the cells where the next number still allows a magic completion. When the match is over, the
    last round's final grid and score (the state has cleared its numbers). A completion that
    beat a challenge (kept in ``memory``) beside the grid until the next round's first number,
    and as the final grid if it ended the match. Bigger cells when there is room. A spectator's
    view (a replay) names the players, nobody "you"."""
    view, names, width, height = request.view, request.names, request.width, request.height
    spectator = bool(view.get("spectator"))
    me = _me(view)
    grid = list(view["grid"])
    scores = list(view["scores"])
    last = view.get("last_round") if isinstance(view.get("last_round"), dict) else None
    over = view.get("phase") == "over"
    completion = _completion(request.memory, last)
    if over and last is not None:  # the final position, not the cleared grid of a next round
        grid, scores = list(last.get("grid", grid)), list(last.get("scores", scores))
    placed = [cell for _, cell in sorted((n, c) for c, n in enumerate(grid) if n)]
    good: frozenset[int] = frozenset()
    if request.hints and view.get("phase") == "place" and len(placed) < 16:
        good = frozenset(index().next_cells(placed))
    cells = _Cells(view["colours"], grid, placed, good)
    lines: list[Line] = [_magic_header(view, names, me, over=over)]
    big = height >= 24 and width >= 44
    drawn = _grid(cells, request.glyphs, big=big)
    aside = _completion_lines(completion, names, me, big=big)
    if not aside and last is not None and not over and len(placed) < 2:
        aside = _finished_lines(last, big=big)
    lines += _beside(drawn, aside, width)
    lines.append(
        [
            ("class:red", f" red: {seat_name(names, 0)} {scores[0]} "),
            ("", "  "),
            ("class:blue", f" blue: {seat_name(names, 1)} {scores[1]} "),
            ("class:dim", "" if spectator else f"   you are {'red' if me == 0 else 'blue'}"),
        ]
    )
    lines += _notes(request, cells)
    if last is not None:
        label = f"round {last.get('round')}" if not over else "the last round"
        lines.append([("class:dim", f" {label}: {_last_round(last, names, me)}")])
    lines = wrap_all(lines, width)
    return lines + rules_lines(RULES_NOW, str(view.get("phase")), width, len(lines), height)


RULES_NOW: Final[Mapping[str, tuple[str, ...]]] = {
    "": (
        "Magic: each of 1 to 16 once, and every row, every column and both main diagonals add up "
        "to 34 (the broken diagonals do not count).",
        "A player's score is the sum of the numbers on its colour's cells. Best of three rounds.",
    ),
    "colour_order": ("The Death Match Opponent chooses who colours first.",),
    "colouring": ("The players colour one cell a move, in turn, until each has eight cells.",),
    "swap": (
        "The last round's loser may swap up to two pairs of cells: a red one and a blue one exchange "
        "their colours. done ends the swaps; the winner gets none.",
    ),
    "lead": ("Each pair of numbers, the Lead Player names who places first; the lead alternates.",),
    "place": (
        "The numbers go in in order, one a move. Right after a placement the other player may "
        "challenge it: no magic square is possible any more.",
        "All 16 placed and not magic: whoever placed 16 loses the round. Otherwise the higher score "
        "wins; 68-68 replays the round.",
    ),
    "challenge": (
        "The challenged player shows a magic completion keeping every number placed, or concedes. "
        "A valid one: the challenger loses the round; anything else: the challenged player does.",
    ),
}
"""The rules in brief by phase ("": whatever the phase), for a board with rows to spare (rules_lines)."""


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


def _me(view: Mapping[str, Any]) -> int:
    """The person's seat on this board (-1 on a spectator's, where nobody is "you")."""
    return -1 if view.get("spectator") else int(view.get("seat", 0))


def _notes(request: BoardRequest, cells: _Cells) -> list[Line]:
    """Under the scores: what the hints found, and the challenge the person may make now."""
    view, names, me, placed = request.view, request.names, _me(request.view), cells.placed
    lines: list[Line] = []
    if cells.good:
        lines.append(
            [("class:dim", f" * the next number ({len(placed) + 1}) keeps a magic square possible here")]
        )
    elif request.hints and view.get("phase") == "place" and len(placed) < 16:
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
    your 81 to bob (p1)'s 55"; after a challenge or a timeout, the points the numbers placed
    made when it ended, said as points ("your 1 to bob's 2" read as the numbers placed)."""
    scores = [int(n) for n in last.get("scores", [0, 0])]
    winner = last.get("winner")
    reason = str(last.get("reason")).replace("_", " ")
    if winner is None:
        return f"a tie, {scores[0]}-{scores[1]}: replayed"
    won, lost = int(winner), 1 - int(winner)
    if last.get("reason") in ("score", "not_magic"):
        whose = f"{_whose(names, me, won)} {scores[won]} to {_whose(names, me, lost)} {scores[lost]}"
        return f"{_who(names, me, won)} won, {scores[won]}-{scores[lost]} ({reason}): {whose}"
    then = f"{_who(names, me, won)} {scores[won]}, {_who(names, me, lost)} {scores[lost]}"
    return f"{_who(names, me, won)} won ({reason}); the points then: {then}"


def remember_completion(
    memory: dict[str, Any],
    events: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any] | None,
    actions: Sequence[tuple[int, Any]] = (),
) -> None:
    """Keep the grid a challenged player showed when it beat the challenge, to be drawn beside
    the grid until a number is placed in the next round (:meth:`FrontEnd.remember`; the
    engine's events do not carry it: it is the challenged player's action, so it comes with the
    step's ``actions``)."""
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


def _finished_lines(last: Mapping[str, Any], *, big: bool) -> list[Line]:
    """The grid the last round ended with, row by row beside the new round's grid until the
    new round's numbers 1 and 2 are placed (a bot that leads at once must not hide it; how the
    round ended is the board's last line)."""
    grid = [int(n) for n in last.get("grid") or ()]
    if len(grid) != 16:
        return []
    out: list[Line] = [[("class:title", f"round {last.get('round')} as it ended:")]]
    for row in range(4):
        numbers = "".join(f"{n:>3}" if n else "  ." for n in grid[4 * row : 4 * row + 4])
        line: Line = [("", "  " + numbers)]
        out += [[], line, []] if big else [line]  # (a big cell's number is on its middle line)
        if big and row < 3:
            out.append([])
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


def _grid(cells: _Cells, glyphs: Glyphs, *, big: bool) -> list[Line]:
    """The 4x4 grid, a cell as one line of 5 columns, or (``big``) as three lines of 9 with its
    colour's letter and its number on the middle one (as the small cell has them)."""
    colours, grid, good = cells.colours, cells.numbers, cells.good
    last = cells.placed[-1] if cells.placed else None
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
            if big:  # the colour's letter and the number side by side on the middle line
                rows[0] += [(style, " " * cell_width), ("", " ")]
                rows[1] += [(style, f" {mark}  "), (numbered, text), (style, "   "), ("", " ")]
                rows[2] += [(style, " " * cell_width), ("", " ")]
            else:
                rows[0] += [(style, f" {mark}"), (numbered, text), (style, " "), ("", " ")]
        for at, line in enumerate(rows):
            label = f"  {row + 1} " if at == len(rows) // 2 else "    "
            lines.append([("class:dim", label), *line])
        if big and row < 3:
            lines.append([])
    return lines


def _example(free: list[bool]) -> str:
    """A cell to give as an example of a move: b3 if it is free, else the first free cell."""
    cells = [cell for cell, ok in enumerate(free) if ok]
    b3 = 9  # (row 3, column b)
    return cell_name(b3 if b3 in cells or not cells else cells[0])


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
        free = _example([c is None for c in view["colours"]])
        return Question("colour", f"colour a cell {colour}, like {free} ({8 - mine} of your 8 cells left)")
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
        # (no cell named as an example: one named while the square can no longer be completed
        # from it reads as advice, and whether it can is the very question of the round)
        place = f"place {len(placed) + 1} on an empty cell (a1 to d4)"
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


PLAIN_MOVES: Final = {
    "challenge": (
        {"type": "challenge"},
        "a challenge cannot be taken back: if the square can still be completed, you lose the round",
    ),
    "concede": ({"type": "concede"}, "conceding loses this round"),
    "done": ({"type": "swaps_done"}, ""),
}
"""The moves typed as one word that say all of it: the action, and the question to confirm."""


def parse_square(words: list[str], state: Any, seat: int) -> Parsed:
    """The move typed as ``words``; one of a kind the moment does not allow is refused with the
    kinds it does, in words."""
    parsed = _read_square(words, state, seat)
    if parsed.action is not None and isinstance(state, SquareState):
        _check_now(parsed.action, state, seat)
    return parsed


MOVE_WORDS: Final = {
    "order": "first or second",
    "colour": "a cell to colour (like b3)",
    "place": "a cell for the next number (a1 to d4)",
    "challenge": "challenge",
    "complete": "complete and the 16 numbers",
    "concede": "concede",
    "swap": "swap and a red and a blue cell (swap a1 b2)",
    "swaps_done": "done",
}
"""Each kind of move as the person types it, for a refusal that says what may be typed now."""


def _check_now(action: Mapping[str, Any], state: SquareState, seat: int) -> None:
    """Refuse a challenge out of its window, and a move of a kind the moment does not allow."""
    kinds = [str(a.to_plain()["type"]) for a in MAGIC_SQUARE.legal_actions(state, seat)]
    kind = str(action.get("type"))
    if kind in kinds or state.phase == "over":
        return
    if kind == "challenge":
        raise InputError(
            "you may challenge only right after your opponent places a number, before the next move"
        )
    if not kinds:
        return  # (not this seat's move: the table says whom the match waits for)
    if kind == "complete" and kinds == ["concede"]:  # (challenged, the square past completing)
        raise InputError("no magic square completes this grid any more: the challenge stands; concede")
    offered = " or ".join(dict.fromkeys(MOVE_WORDS.get(k, k) for k in kinds))
    raise InputError(f"not now: type {offered}")


def _read_square(words: list[str], state: Any, seat: int) -> Parsed:
    """The move ``words`` say, before it is checked against the moment."""
    head = words[0].lower()
    if head in PLAIN_MOVES:
        action, confirm = PLAIN_MOVES[head]
        return Parsed(dict(action), confirm)
    if head in ("first", "second") and len(words) == 1:
        return Parsed({"type": "order", "first": seat if head == "first" else 1 - seat})
    phase = getattr(state, "phase", None)
    if head in ME_WORDS and len(words) == 1 and phase in ORDER_PHASES:  # "who places first?" "me"
        return Parsed({"type": "order", "first": seat})
    swapping = phase == "swap" and getattr(state, "actor", None) == seat
    if head in ("pass", "no") and len(words) == 1 and swapping:  # (no other "no" while swapping)
        return Parsed(dict(PLAIN_MOVES["done"][0]))
    if head in ("pass", "no"):
        if state is not None and getattr(state, "actor", None) == seat:
            raise InputError(_no_pass(phase, getattr(state, "window", None) == seat))
        return Parsed(None)
    if head == "swap" and len(words) == 3:
        return _parse_swap(parse_cell(words[1]), parse_cell(words[2]), state)
    if head == "complete":
        return _parse_complete(words[1:], state)
    if len(words) == 1:
        return _parse_cell_move(head, state, seat)
    raise _unread(words, state)


ME_WORDS: Final = ("me", "i", "myself")
"""Typed for "first" when the question is who goes first (the person is first): nothing else."""
ORDER_PHASES: Final = {"colour_order": "colours", "lead": "places"}
"""The phases that ask who goes first, and the verb of their question."""


def _no_pass(phase: Any, window: bool) -> str:
    """Why ``pass`` is no move on the person's own move, and what to type instead (``window``:
    the person may challenge the last placement)."""
    if phase in ORDER_PHASES:
        return _order_refusal(phase)
    if phase == "place" and not window:
        return "no pass on your own move: place the next number on an empty cell (a1 to d4)"
    if phase == "place":
        return (
            "no pass on your own move: placing the next number (a1 to d4) lets the last one stand; "
            "or challenge"
        )
    if phase == "colouring":
        return "no pass while colouring: colour a cell, like b3"
    return "it is your move: show a magic completion (complete and the 16 numbers) or concede"


def _order_refusal(phase: Any) -> str:
    """What the question who goes first takes: first or second."""
    return f"choose who {ORDER_PHASES[str(phase)]} first: type first (you) or second (your opponent)"


def _parse_swap(a: int, b: int, state: Any) -> Parsed:
    """``swap`` and two cells, the red one and the blue one in either order (the action names
    the red cell first)."""
    colours = getattr(state, "colours", None)
    if not colours or colours[a] is None or colours[b] is None:
        # (the state unknown here, or the grid not coloured yet: as typed; the engine, or the
        # moment's check, says what is wrong with it)
        return Parsed({"type": "swap", "red": a, "blue": b})
    if colours[a] == colours[b]:
        both = "red" if colours[a] == 0 else "blue"
        raise InputError(
            f"a swap takes one red cell and one blue cell: {cell_name(a)} and {cell_name(b)} are both {both}"
        )
    red, blue = (a, b) if colours[a] == 0 else (b, a)
    return Parsed({"type": "swap", "red": red, "blue": blue})


def _parse_complete(numbers: list[str], state: Any) -> Parsed:
    """``complete`` and the 16 numbers of the finished square, row by row; asked first when they
    do not complete the grid (sent, they lose the round)."""
    if len(numbers) != 16 or not all(n.isascii() and n.isdigit() for n in numbers):
        raise InputError("complete takes the 16 numbers of the finished square, row by row")
    grid = [int(n) for n in numbers]
    placed = getattr(state, "grid", None)
    why = misfit(tuple(placed), grid) if placed is not None else ""
    confirm = f"these numbers do not complete your grid ({why}) and would lose the round" if why else ""
    return Parsed({"type": "complete", "grid": grid}, confirm)


LINE_NAMES: Final = (
    *(f"row {r}" for r in range(1, 5)),
    *(f"column {c}" for c in COLUMNS),
    "the diagonal a1-d4",
    "the diagonal d1-a4",
)
"""The lines of ``LINES`` (rows, columns, the two diagonals) as the board labels them."""


def misfit(placed: Sequence[int], grid: Sequence[int]) -> str:
    """Why ``grid`` is not a magic completion of the numbers ``placed`` (0: an empty cell), in
    words ("b2 holds 5, not 7"; "row 2 adds up to 30, not 34"); "" when it is one."""
    for cell, number in enumerate(placed):
        if number and grid[cell] != number:
            return f"{cell_name(cell)} holds {number}, not {grid[cell]}"
    for number in range(1, 17):
        count = list(grid).count(number)
        if count != 1:
            return f"{number} is missing" if count == 0 else f"{number} is there {count} times"
    for name, line in zip(LINE_NAMES, LINES, strict=True):
        total = sum(grid[cell] for cell in line)
        if total != MAGIC_SUM:
            return f"{name} adds up to {total}, not {MAGIC_SUM}"
    return ""


def _parse_cell_move(word: str, state: Any, seat: int) -> Parsed:
    """A cell typed alone: colouring it or placing the next number on it, when that is what the
    match waits for from ``seat``."""
    phase = getattr(state, "phase", "place")
    actor = getattr(state, "actor", None)
    if phase in ORDER_PHASES and actor == seat:  # (a cell, or any other word: not the answer)
        raise InputError(_order_refusal(phase))
    if phase == "swap" and actor == seat and not _is_cell(word):
        raise InputError(
            f"{word!r} is no swap: type swap and two cells (swap a1 b2), or done to swap nothing more"
        )
    cell = parse_cell(word)
    if state is not None and actor is not None and actor != seat:
        window = getattr(state, "window", None) == seat
        raise InputError(
            "it is the other player's move"
            + ("; you may challenge the last number (challenge) or let it stand (pass)" if window else "")
        )
    return Parsed({"type": "colour" if phase == "colouring" else "place", "cell": cell})


def _unread(words: list[str], state: Any) -> InputError:
    """What to say of ``words`` that are no move: a cell typed with more ("b1 1", "a1 b1") is
    told to go alone, in the words of the phase (colouring, swapping, placing); anything else,
    every kind of move."""
    head = words[0].lower()
    if _is_cell(head) and len(words) > 1:
        phase = getattr(state, "phase", None)
        if phase == "colouring":
            return InputError(f"colour one cell at a time: type it alone, like {head}")
        if phase == "swap" and len(words) == 2 and _is_cell(words[1]):
            return InputError(f"type a swap as swap {head} {words[1].lower()} (or done: no more swaps)")
        cells = getattr(state, "cells", None)
        number = f" ({len(cells) + 1} now)" if isinstance(cells, tuple) and len(cells) < 16 else ""
        return InputError(
            f"type the cell alone, like {head}: the number placed is always the next one{number}"
        )
    if head == "swap":
        return InputError("swap and two cells, a red one and a blue one, like swap a1 b2")
    phase = getattr(state, "phase", None)
    if phase in ORDER_PHASES and getattr(state, "actor", None) is not None:
        return InputError(_order_refusal(phase))
    return InputError(
        "a cell like b3; first / second; challenge / pass; swap a1 b2 / done; complete N x16 / concede"
    )


def _is_cell(word: str) -> bool:
    """Whether ``word`` names a cell (a1..d4)."""
    word = word.lower()
    return len(word) == 2 and word[0] in COLUMNS and word[1] in "1234"


@dataclass(frozen=True)
class _Asked:
    """Whom the completions are for: the ``state`` and ``seat``, whether ``hints`` are on, and
    the cells they mark (``good``: where the next number keeps a magic square possible)."""

    state: Any
    seat: int
    hints: bool
    good: frozenset[int]


def _order_choice(plain: Mapping[str, Any], asked: _Asked) -> tuple[int, Choice] | None:
    who = "you" if plain["first"] == asked.seat else "your opponent"
    text = "first" if plain["first"] == asked.seat else "second"
    return 1, Choice(text, f"{who} go{'es' if who != 'you' else ''} first")


def _cell_choice(plain: Mapping[str, Any], asked: _Asked) -> tuple[int, Choice] | None:
    cell = plain["cell"]
    verb = f"put {len(asked.state.cells) + 1} on" if plain["type"] == "place" else "colour"
    meta = f"{verb} {cell_name(cell)}"
    if cell in asked.good:
        meta += " (keeps a magic square possible)"
    return 0 if cell in asked.good else 1, Choice(cell_name(cell), meta)


def _complete_choice(plain: Mapping[str, Any], asked: _Asked) -> tuple[int, Choice] | None:
    if not asked.hints:
        return None
    grid = " ".join(str(n) for n in plain["grid"])
    return 0, Choice(f"complete {grid}", "a magic completion (hint)")


def _swap_choice(plain: Mapping[str, Any], asked: _Asked) -> tuple[int, Choice] | None:
    del asked
    text = f"swap {cell_name(plain['red'])} {cell_name(plain['blue'])}"
    return 1, Choice(text, "exchange these cells' colours")


def _fixed(rank: int, choice: Choice) -> Callable[[Mapping[str, Any], _Asked], tuple[int, Choice] | None]:
    return lambda plain, asked: (rank, choice)


CHOICES: Final[Mapping[str, Callable[[Mapping[str, Any], _Asked], tuple[int, Choice] | None]]] = {
    "order": _order_choice,
    "place": _cell_choice,
    "colour": _cell_choice,
    "challenge": _fixed(0, Choice("challenge", "say the square can no longer be made magic")),
    "concede": _fixed(2, Choice("concede", "give up this round")),
    "complete": _complete_choice,
    "swap": _swap_choice,
    "swaps_done": _fixed(0, Choice("done", "no more swaps")),
}
"""A legal action's completion by its type, with its rank (the lower, the earlier it is listed),
or None for one not offered (a completion without hints)."""


def square_choices(state: Any, seat: int, hints: bool) -> list[Choice]:
    """The legal moves in words; with ``hints``, cells that keep a magic square possible first."""
    if state is None:
        return []
    good: frozenset[int] = frozenset()
    if hints and state.phase == "place":
        good = frozenset(index().next_cells(list(state.cells)))
    asked = _Asked(state, seat, hints, good)
    out: list[tuple[int, Choice]] = []
    for action in MAGIC_SQUARE.legal_actions(state, seat):
        plain = action.to_plain()
        choose = CHOICES.get(plain["type"])
        found = choose(plain, asked) if choose is not None else None
        if found is not None:
            out.append(found)
    if seat == state.window and seat != state.actor:  # (the actor lets it stand by playing on)
        out.append((1, Choice("pass", "let the placement stand (no challenge)")))
    return [choice for _, choice in sorted(out, key=lambda item: item[0])]


# -- the front end --------------------------------------------------------------------------------


class SquareFrontEnd(FrontEnd):
    """The Magic Square in the terminal UI."""

    help = HELP
    styles: Mapping[str, str] = {
        "red": "bg:ansired ansiwhite",
        "blue": "bg:ansiblue ansiwhite",
        "uncoloured": "reverse",
        "last": "bold underline",
    }

    board = staticmethod(magic_board)
    remember = staticmethod(remember_completion)

    def log_lines(
        self,
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        names: Mapping[int, str] | None = None,
    ) -> list[str]:
        """The log's lines, each round's end followed by its grid as it ended, row by row (the
        board moves on to the next round at once when a bot leads it)."""
        out: list[str] = []
        events = [event for event in events if isinstance(event, Mapping)]
        for line, event in zip(super().log_lines(events, view, names), events, strict=True):
            out.append(line)
            grid = event.get("grid") if event.get("type") == "round_end" else None
            if isinstance(grid, list) and len(grid) == 16:
                rows = (" ".join(str(n) if n else "." for n in grid[r : r + 4]) for r in range(0, 16, 4))
                out.append(f"round {event.get('round')} ended with the grid, row by row: " + " / ".join(rows))
        return out

    def echo(self, action: Mapping[str, Any], state: Any, seat: int) -> str:
        """What the person at ``seat`` sent, in the words it typed: an order as "first" or
        "second" and what that means ("second: your opponent colours first"), not "p0 first"."""
        if action.get("type") != "order":
            return self.describe(action)
        verb = "colour" if getattr(state, "phase", None) == "colour_order" else "place"
        if action.get("first") == seat:
            return f"first: you {verb} first"
        return f"second: your opponent {verb}s first"

    question = staticmethod(square_question)

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

    def caution(self, action: Mapping[str, Any], state: Any, seat: int) -> str:
        """A number placed where the hints say no magic square is possible any more, while
        another cell keeps one possible: named, and asked first."""
        del seat
        if action.get("type") != "place" or getattr(state, "phase", None) != "place":
            return ""
        good = index().next_cells(list(state.cells))
        if not good or action.get("cell") in good:
            return ""
        marked = ", ".join(cell_name(cell) for cell in sorted(good))
        return (
            f"{len(state.cells) + 1} on {cell_name(int(action['cell']))} leaves no magic square "
            f"possible (the hints mark {marked})"
        )


FRONT: Final = SquareFrontEnd(MAGIC_SQUARE.name)
"""The Magic Square's front end (named in the games' table)."""
