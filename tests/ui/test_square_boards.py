"""The Magic Square on the screen a player sees (pyte, 80x24 and 160x50), from issue 37: numbers
that do not complete the grid and a placement the hints mark as hopeless are asked about first;
two cells typed while colouring, a swap in either order and a cell already used are answered in
the words of the board; the large board keeps a cell's colour and number on one row; the grid a
round ended with stays on the board and in the log when a bot starts the next round at once; and a
large window spends its spare rows on the rules of what is on the board."""

from __future__ import annotations

import re
from typing import Any

from p2pgenius.games.magic_square.squares import index
from p2pgenius.games.magic_square.state import SquareState
from p2pgenius.protocol.events import Applied
from p2pgenius.ui.table import TableScreen
from tests.magic_square.helpers import act, place_square, red_winning_colours, square, start

from .screen import Terminal
from .test_table import seated, show


def at_table(state: SquareState, seat: int = 0, *, hints: bool = False) -> tuple[TableScreen, list[Any]]:
    """A table seating the person at ``seat`` over ``state``, asked for its move; what it sends
    goes into the list returned."""
    table, _ = seated("magic-square", state, my_seats=(seat,), me=seat)
    sent: list[Any] = []
    table.adapter.token = type("Token", (), {"run_sync_soon": lambda self, call, *a: call(*a)})()
    table.adapter.peer.offer = lambda number, seat, action: sent.append((seat, action))  # type: ignore[union-attr, method-assign]
    table.state.asking = {seat: 1}
    table.state.hints = hints
    return table, sent


def both(table: TableScreen) -> tuple[str, str]:
    """The screen at 80x24 and at 160x50."""
    return show(table, Terminal(80, 24)), show(table, Terminal(160, 50))


def flat(text: str) -> str:
    """A screen's words with the frame and the line breaks gone (a narrow screen wraps)."""
    return re.sub(r"[\s\u2502]+", " ", text)


def challenged() -> SquareState:
    """p1 placed 2 and 3 of square 5 where that square has them; p0 challenged the 3."""
    state = place_square(start([0, 1] * 8, 0), square(5), upto=3)
    return act(state, 0, {"type": "challenge"})


def test_numbers_that_do_not_complete_the_grid_are_asked_about_before_they_are_sent() -> None:
    state = challenged()
    grid = list(square(5))
    wrong = grid[:]
    wrong[14], wrong[15] = wrong[15], wrong[14]  # row 4 still adds up, the columns do not
    table, sent = at_table(state, 1)
    table.input.enter("complete " + " ".join(map(str, wrong)))
    assert table.state.confirming is not None and not sent
    for screen in both(table):
        said = flat(screen)
        why = r"\(column [a-d] adds up to \d+, not 34\)"
        assert re.search(r"these numbers do not complete your grid " + why, said)
        assert "and would lose the round: send it? y or n" in said
    table.input.enter("n")
    assert not sent and table.state.message == "not sent"
    moved = grid[:]
    placed = state.cells[0]
    moved[placed], moved[(placed + 1) % 16] = moved[(placed + 1) % 16], moved[placed]
    table.state.asking = {1: 1}
    table.input.enter("complete " + " ".join(map(str, moved)))
    assert table.state.confirming is not None and "holds 1, not" in table.state.confirming[0]
    table.input.enter("y")
    assert sent == [(1, {"type": "complete", "grid": moved})]
    table, sent = at_table(state, 1)  # a true completion goes at once
    table.input.enter("complete " + " ".join(map(str, grid)))
    assert table.state.confirming is None and sent == [(1, {"type": "complete", "grid": grid})]


def placing_with_a_hopeless_cell() -> tuple[SquareState, int, tuple[int, ...]]:
    """A placement where some empty cells keep a magic square possible and one does not."""
    state = place_square(start([0, 1] * 8, 0), square(5), upto=2)
    while state.phase != "place":
        state = act(state, state.lead, {"type": "order", "first": state.lead})
    good = index().next_cells(list(state.cells))
    bad = next(cell for cell in range(16) if cell not in good and cell not in state.cells)
    return state, bad, good


def test_with_hints_on_a_placement_that_leaves_no_magic_square_is_asked_about_first() -> None:
    state, bad, good = placing_with_a_hopeless_cell()
    seat = state.actor
    assert seat is not None
    cell = "abcd"[bad % 4] + str(bad // 4 + 1)
    table, sent = at_table(state, seat, hints=True)
    table.input.enter(cell)
    assert table.state.confirming is not None and not sent
    for screen in both(table):
        marked = r"\(the hints mark [a-d][1-4]"
        assert re.search(rf"3 on {cell} leaves no magic square possible {marked}", flat(screen))
    table.input.enter("y")
    assert sent == [(seat, {"type": "place", "cell": bad})]
    table, sent = at_table(state, seat, hints=True)  # a cell the hints mark goes at once
    table.input.enter("abcd"[good[0] % 4] + str(good[0] // 4 + 1))
    assert sent and table.state.confirming is None
    table, sent = at_table(state, seat, hints=False)  # without hints, nothing is told
    table.input.enter(cell)
    assert sent and table.state.confirming is None


def test_two_cells_typed_while_colouring_are_told_to_go_one_at_a_time() -> None:
    state = act(start(), 1, {"type": "order", "first": 0})
    assert state.phase == "colouring" and state.actor == 0
    table, sent = at_table(state, 0)
    table.input.enter("a1 b1")
    assert not sent and table.state.message == "colour one cell at a time: type it alone, like a1"
    narrow, wide = both(table)
    assert "colour one cell at a time" in narrow and "colour one cell at a time" in wide
    assert "number placed" not in narrow
    coloured = act(state, 0, {"type": "colour", "cell": 5})
    table, sent = at_table(coloured, 1)
    table.input.enter("b2")
    assert not sent and table.state.message == "b2 is already coloured"  # never "cell 5 (b2)"


def test_the_example_cell_of_a_question_is_one_that_is_free() -> None:
    state = act(start(), 1, {"type": "order", "first": 0})
    table, _ = at_table(state, 0)
    assert "colour a cell red, like b3" in flat(both(table)[0])  # (b3 is free)
    taken = act(state, 0, {"type": "colour", "cell": 9})  # b3
    table, _ = at_table(taken, 1)
    narrow = flat(both(table)[0])
    assert "like b3" not in narrow and "colour a cell blue, like a1" in narrow, narrow


def test_the_placement_question_names_no_cell_to_play() -> None:
    """A cell named as an example of a placement reads as advice, and one the square can no longer
    be completed from is bad advice (a newcomer's try, with hints on: "place 4 on an empty cell,
    like b3", b3 hopeless): the question names the cells' range instead, hints on or off."""
    state, _, _ = placing_with_a_hopeless_cell()
    seat = state.actor
    assert seat is not None
    for hints in (False, True):
        table, _ = at_table(state, seat, hints=hints)
        narrow = flat(both(table)[0])
        assert "place 3 on an empty cell (a1 to d4)" in narrow, narrow
        assert not re.search(r"on an empty cell,? like [a-d][1-4]", narrow)


def test_a_swap_typed_while_colouring_is_told_it_is_not_the_moment() -> None:
    """Cells not coloured yet are no colour (a second newcomer's try: "swap a1 b1" while
    colouring said "a1 and b1 are both blue")."""
    state = act(start(), 1, {"type": "order", "first": 0})
    table, sent = at_table(state, 0)
    table.input.enter("swap a1 b1")
    assert not sent and "blue" not in table.state.message
    assert table.state.message.startswith("not now: type a cell to colour")


def test_a_completion_of_a_grid_past_completing_is_told_so() -> None:
    """Challenged on a grid no magic square completes, `complete` cannot win: the words say so
    and that the challenge stands, not "not now" (a second newcomer's try)."""
    state, bad, _ = placing_with_a_hopeless_cell()
    placer = state.actor
    assert placer is not None
    placed = act(state, placer, {"type": "place", "cell": bad})
    challenged = act(placed, 1 - placer, {"type": "challenge"})
    table, sent = at_table(challenged, placer)
    table.input.enter("complete " + " ".join(str(n) for n in range(1, 17)))
    assert not sent and table.state.confirming is None
    assert table.state.message == (
        "no magic square completes this grid any more: the challenge stands; concede"
    )


def lost_round_one() -> SquareState:
    """Red wins round 1 on score: blue (p1), the loser, may swap."""
    grid = square(5)
    state = place_square(start(red_winning_colours(grid), 0), grid)
    assert state.phase == "swap" and state.actor == 1
    return state


def test_a_swap_takes_the_red_and_the_blue_cell_in_either_order() -> None:
    state = lost_round_one()
    red = state.colours.index(0)
    blue = state.colours.index(1)
    name = "abcd"[red % 4] + str(red // 4 + 1), "abcd"[blue % 4] + str(blue // 4 + 1)
    for typed in (f"swap {name[0]} {name[1]}", f"swap {name[1]} {name[0]}"):
        table, sent = at_table(state, 1)
        table.input.enter(typed)
        assert sent == [(1, {"type": "swap", "red": red, "blue": blue})], table.state.message
    other = state.colours.index(0, red + 1)
    both_red = "abcd"[other % 4] + str(other // 4 + 1)
    table, sent = at_table(state, 1)
    table.input.enter(f"swap {name[0]} {both_red}")
    assert not sent
    assert table.state.message == (
        f"a swap takes one red cell and one blue cell: {name[0]} and {both_red} are both red"
    )
    assert table.state.message in flat(show(table, Terminal(80, 24)))
    table.input.enter(f"swap {name[0]}")  # one cell: what a swap takes
    assert not sent and table.state.message == "swap and two cells, a red one and a blue one, like swap a1 b2"


def test_the_large_board_has_each_cells_colour_and_number_on_one_row() -> None:
    state = place_square(start([0, 1] * 8, 0), square(5), upto=5)
    table, _ = at_table(state, 0)
    narrow, wide = both(table)
    numbers = {n: state.cells[n - 1] for n in range(1, 6)}
    for n, cell in numbers.items():
        row, col = cell // 4 + 1, cell % 4
        letter = "R" if col % 2 == 0 else "B"  # ([0, 1] * 8: columns a and c red)
        for screen in (narrow, wide):
            line = next(line for line in screen.splitlines() if re.match(rf"\W*{row} ", line))
            cells = re.findall(r"([RB])\s+(\d*)", line.split("\u2502\u2502")[0][5:])
            assert cells[col] == (letter, str(n)), (n, line)
    grid_rows = [line for line in wide.splitlines() if re.search(r"\b[RB]\b", line)]
    assert len(grid_rows) == 4, "a letter on the number's row only"


def test_the_grid_a_round_ended_with_stays_when_a_bot_starts_the_next_round() -> None:
    state = lost_round_one()
    ended = list(state.last_round["grid"])  # type: ignore[index]
    table, session = seated("magic-square", state, my_seats=(0,), me=0)
    table.adapter.report(session, Applied(30, (), state.events, state))  # type: ignore[arg-type]
    state = act(state, 1, {"type": "swaps_done"})
    state = act(state, 1, {"type": "order", "first": 1})
    state = act(state, 1, {"type": "place", "cell": 0})  # the bot leads and places 1 at once
    session.state = state
    table.adapter.report(session, Applied(33, (), state.events, state))  # type: ignore[arg-type]
    rows = [" ".join(str(n) for n in ended[r : r + 4]) for r in range(0, 16, 4)]
    assert f"round 1 ended with the grid, row by row: {' / '.join(rows)}" in list(table.state.log)
    for screen in both(table):
        board = screen.split("what happened")[0] if "\u2502\u2502" not in screen else screen
        assert "round 1 as it ended:" in board
        for row in rows:
            assert re.search(r"\s+".join(row.split()), board), (row, board)
    state = act(state, 0, {"type": "place", "cell": 1})  # the person's own number: it goes
    session.state = state
    assert "as it ended" not in show(table, Terminal(80, 24))


def test_a_large_window_spends_its_spare_rows_on_the_rules_of_the_moment() -> None:
    state = place_square(start([0, 1] * 8, 0), square(5), upto=3)
    table, _ = at_table(state, 0)
    narrow, wide = both(table)
    assert "The rules in brief" not in narrow
    assert "The rules in brief" in wide
    said = flat(wide)
    assert "every row, every column and both main diagonals add up to 34" in said
    assert "Right after a placement the other player may challenge it" in said
    rows = wide.splitlines()
    chat = next(i for i, row in enumerate(rows) if "chat (say TEXT)" in row)
    assert chat > 30, "the rules fill the board's spare rows, the chat keeps the rest"


def test_a_move_the_moment_does_not_allow_says_what_may_be_typed_and_never_a_seat_id() -> None:
    state = place_square(start([0, 1] * 8, 0), square(5), upto=3)
    placer = state.actor
    assert placer is not None and state.window == placer  # (it may challenge, or play on)
    table, sent = at_table(state, placer)
    table.input.enter("concede")
    assert not sent and table.state.confirming is None
    assert table.state.message == "not now: type a cell for the next number (a1 to d4) or challenge"
    for screen in both(table):
        assert table.state.message in flat(screen) and "expected" not in screen
    empty = next(cell for cell in range(16) if cell not in state.cells)
    played_on = act(state, placer, {"type": "place", "cell": empty})
    assert played_on.window != placer
    table, sent = at_table(played_on, placer)
    table.state.asking = {placer: 1}
    table.input.enter("challenge")
    assert not sent and table.state.confirming is None
    said = "you may challenge only right after your opponent places a number, before the next move"
    assert table.state.message == said and "p0" not in table.state.message
