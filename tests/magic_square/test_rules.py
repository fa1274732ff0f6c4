"""The Magic Square's rules and rulings, one behaviour per test."""

from __future__ import annotations

import pytest

from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.magic_square.engine import MAGIC_SQUARE, clock
from p2pgenius.games.magic_square.squares import index
from p2pgenius.games.registry import get_spec

from .helpers import (
    TOP_HALF_RED,
    act,
    cells_of,
    place_square,
    red_winning_colours,
    square,
    start,
)

# -- colouring ----------------------------------------------------------------------------------


def test_the_death_match_opponent_chooses_who_colours_first() -> None:
    state = start()
    assert MAGIC_SQUARE.to_act(state) == (1,)
    with pytest.raises(IllegalActionError, match="p1's move"):
        act(state, 0, {"type": "order", "first": 0})
    state = act(state, 1, {"type": "order", "first": 0})
    assert (state.phase, state.colourer) == ("colouring", 0)


def test_setup_can_name_another_opponent() -> None:
    assert MAGIC_SQUARE.to_act(start(opponent=0)) == (0,)


def test_colouring_alternates_and_the_second_colourer_leads_first() -> None:
    state = act(start(), 1, {"type": "order", "first": 1})
    seat = 1
    for cell in range(16):
        assert MAGIC_SQUARE.to_act(state) == (seat,)
        state = act(state, seat, {"type": "colour", "cell": cell})
        seat = 1 - seat
    assert state.colours == (1, 0) * 8
    assert (state.phase, state.first_lead, state.lead) == ("lead", 0, 0)


def test_a_cell_cannot_be_coloured_twice() -> None:
    state = act(act(start(), 1, {"type": "order", "first": 0}), 0, {"type": "colour", "cell": 5})
    with pytest.raises(IllegalActionError, match="already coloured"):
        act(state, 1, {"type": "colour", "cell": 5})


def test_a_bad_colouring_in_setup_is_refused() -> None:
    with pytest.raises(LocalMisuseError):
        start([0] * 16)


# -- placement ----------------------------------------------------------------------------------


def test_the_lead_names_who_places_first_and_the_lead_alternates() -> None:
    state = start(TOP_HALF_RED, first_lead=1)
    assert MAGIC_SQUARE.to_act(state) == (1,)
    state = act(state, 1, {"type": "order", "first": 0})
    cells = cells_of(square())
    state = act(state, 0, {"type": "place", "cell": cells[0]})
    # p1 places second (and may challenge p0's 1 instead).
    assert MAGIC_SQUARE.to_act(state) == (1,)
    state = act(state, 1, {"type": "place", "cell": cells[1]})
    assert state.phase == "lead"
    assert state.lead == 0
    assert state.window == 0  # p0 may challenge p1's 2, and p0 also leads: one seat to act
    assert MAGIC_SQUARE.to_act(state) == (0,)


def test_numbers_are_the_running_count() -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=5)
    assert sorted(n for n in state.grid if n) == [1, 2, 3, 4, 5]
    assert MAGIC_SQUARE.full(state)["turn"] == 6


def test_an_occupied_cell_cannot_take_a_number() -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=1)
    with pytest.raises(IllegalActionError, match="already holds 1"):
        act(state, state.placer, {"type": "place", "cell": state.cells[0]})


def test_the_wrong_player_cannot_place() -> None:
    state = act(start(TOP_HALF_RED), 0, {"type": "order", "first": 0})
    with pytest.raises(IllegalActionError, match="not p1's"):
        act(state, 1, {"type": "place", "cell": 0})


# -- challenges ---------------------------------------------------------------------------------


def uncompletable_after(state_cells: list[int]) -> int:
    """A cell for the next number that leaves no magic completion."""
    good = set(index().next_cells(state_cells))
    return next(c for c in range(16) if c not in good and c not in state_cells)


def test_a_challenge_is_allowed_only_right_after_the_opponents_placement() -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=1)  # p0 placed 1
    with pytest.raises(IllegalActionError, match="cannot challenge"):
        act(state, 0, {"type": "challenge"})  # not one's own placement
    state = act(state, 1, {"type": "place", "cell": cells_of(square())[1]})
    state = act(state, 1, {"type": "order", "first": 1})  # p1 leads round 2
    with pytest.raises(IllegalActionError, match="cannot challenge"):
        act(state, 0, {"type": "challenge"})  # the window closed with p1's order


def test_a_magic_completion_makes_the_challenger_lose_the_round() -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=3)
    state = act(state, state.window or 0, {"type": "challenge"})
    challenged = 1 - (state.challenger or 0)
    assert MAGIC_SQUARE.to_act(state) == (challenged,)
    assert clock(state) == (challenged, "challenge")
    state = act(state, challenged, {"type": "complete", "grid": list(square())})
    assert state.last_round is not None
    assert state.last_round["reason"] == "challenge_failed"
    assert state.last_round["winner"] == challenged


@pytest.mark.parametrize(
    "answer",
    [
        {"type": "concede"},
        {"type": "timeout"},
        {"type": "complete", "grid": list(range(1, 17))},  # not magic
        {"type": "complete", "grid": "other square"},  # magic but not the numbers placed
    ],
    ids=["concede", "timeout", "not_magic", "inconsistent"],
)
def test_a_failed_answer_makes_the_challenged_player_lose(answer: dict[str, object]) -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=3)
    challenger = state.window
    assert challenger is not None
    state = act(state, challenger, {"type": "challenge"})
    if answer.get("grid") == "other square":
        other = next(g for g in index().grids if g[state.cells[0]] != 1)
        answer = {"type": "complete", "grid": list(other)}
    state = act(state, 1 - challenger, answer)
    assert state.last_round is not None
    assert (state.last_round["winner"], state.last_round["reason"]) == (challenger, "challenge_upheld")


def test_placing_an_uncompletable_number_loses_to_a_challenge() -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=4)
    state = act(state, 0, {"type": "order", "first": 0})
    state = act(state, 0, {"type": "place", "cell": uncompletable_after(list(state.cells))})
    state = act(state, 1, {"type": "challenge"})
    state = act(state, 0, {"type": "concede"})
    assert state.last_round is not None
    assert state.last_round["winner"] == 1
    assert state.round_wins == (0, 1)


# -- the end of a round -------------------------------------------------------------------------


def test_a_full_magic_square_is_won_on_score() -> None:
    grid = square(17)
    state = place_square(start(red_winning_colours(grid)), grid)
    assert state.last_round is not None
    assert state.last_round == {
        "winner": 0,
        "reason": "score",
        "scores": [100, 36],
        "grid": list(grid),
        "round": 1,
    }
    assert state.round_wins == (1, 0)
    full = MAGIC_SQUARE.full(state)  # the next round's start
    assert (full["round"], full["turn"], full["grid"], full["scores"]) == (2, 1, [0] * 16, [0, 0])


def test_a_full_square_that_is_not_magic_loses_for_whoever_placed_16() -> None:
    grid = list(square())
    a, b = grid.index(15), grid.index(16)
    grid[a], grid[b] = 16, 15  # 15 and 16 swapped: complete, not magic
    state = place_square(start(TOP_HALF_RED), tuple(grid))
    assert state.last_round is not None
    # Leads alternate 0, 1, ... and place first: p1 leads the last round, so p0 placed 16.
    assert (state.last_round["winner"], state.last_round["reason"]) == (1, "not_magic")


def test_a_68_68_tie_is_replayed_with_the_other_first_lead_and_no_swaps() -> None:
    state = place_square(start(TOP_HALF_RED, first_lead=0), square())
    assert state.last_round is not None
    assert (state.last_round["winner"], state.last_round["reason"]) == (None, "tie_replay")
    assert state.last_round["scores"] == [68, 68]
    assert (state.round, state.round_wins, state.phase) == (1, (0, 0), "lead")
    assert state.first_lead == 1
    assert state.colours == tuple(TOP_HALF_RED)


def test_the_loser_may_make_up_to_two_swaps_then_leads() -> None:
    grid = square(17)
    colours = red_winning_colours(grid)
    state = place_square(start(colours), grid)  # p0 wins round 1
    assert (state.phase, state.first_lead, MAGIC_SQUARE.to_act(state)) == ("swap", 1, (1,))
    with pytest.raises(IllegalActionError, match="must be red"):
        act(state, 1, {"type": "swap", "red": colours.index(1), "blue": colours.index(0)})
    with pytest.raises(IllegalActionError):
        act(state, 0, {"type": "swaps_done"})  # the winner gets no swaps
    red, blue = colours.index(0), colours.index(1)
    state = act(state, 1, {"type": "swap", "red": red, "blue": blue})
    assert (state.colours[red], state.colours[blue]) == (1, 0)
    state = act(
        state, 1, {"type": "swap", "red": colours.index(0, red + 1), "blue": colours.index(1, blue + 1)}
    )
    assert (state.phase, state.lead) == ("lead", 1)


def test_declining_ends_the_swap_step() -> None:
    grid = square(17)
    state = place_square(start(red_winning_colours(grid)), grid)
    state = act(state, 1, {"type": "swaps_done"})
    assert state.phase == "lead"
    assert state.colours == tuple(red_winning_colours(grid))


def test_two_round_wins_end_the_match() -> None:
    grid = square(17)
    colours = red_winning_colours(grid)
    state = place_square(start(colours), grid)
    state = act(state, 1, {"type": "swaps_done"})
    state = place_square(state, grid)
    assert MAGIC_SQUARE.outcome(state) is not None
    assert MAGIC_SQUARE.full(state)["outcome"] == {"winner": 0, "reason": "round_wins", "round_wins": [2, 0]}
    assert MAGIC_SQUARE.to_act(state) == ()
    with pytest.raises(IllegalActionError, match="over"):
        act(state, 1, {"type": "swaps_done"})


# -- time ---------------------------------------------------------------------------------------


def test_running_out_of_round_time_loses_the_round() -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=2)
    assert clock(state) == (1, "round")  # p1 leads the second placement round
    state = act(state, 1, {"type": "timeout"})
    assert state.last_round is not None
    assert (state.last_round["winner"], state.last_round["reason"]) == (0, "timeout")


def test_colouring_runs_on_the_round_clock() -> None:
    state = start()
    assert clock(state) == (1, "round")  # the opponent's choice of who colours first
    state = act(state, 1, {"type": "order", "first": 0})
    assert clock(state) == (0, "round")
    state = act(state, 0, {"type": "colour", "cell": 0})
    assert clock(state) == (1, "round")


def test_running_out_while_colouring_loses_round_1_and_the_blank_cells_are_coloured() -> None:
    state = act(start(), 1, {"type": "order", "first": 0})
    for seat, cell in ((0, 15), (1, 14), (0, 5)):
        state = act(state, seat, {"type": "colour", "cell": cell})
    state = act(state, 1, {"type": "timeout"})  # p1, to colour next, runs out
    assert state.last_round is not None
    assert (state.last_round["winner"], state.last_round["reason"]) == (0, "timeout")
    assert state.last_round["round"] == 1 and state.round_wins == (1, 0)
    # The colouring is kept for round 2: the blank cells in a1..d4 order, alternately from p1.
    blank = [c for c in range(16) if c not in (15, 14, 5)]
    expected: list[int | None] = [None] * 16
    expected[15], expected[14], expected[5] = 0, 1, 0
    for i, cell in enumerate(blank):
        expected[cell] = 1 if i % 2 == 0 else 0
    assert state.colours == tuple(expected)
    assert state.colours.count(0) == state.colours.count(1) == 8
    ended = next(e for e in state.events if e["type"] == "round_end")
    assert ended["how"] == "colouring_timeout" and ended["cells"] == blank
    assert "ran out of time while colouring" in get_spec("magic-square").words(ended)
    # Round 2 starts as after any lost round: the loser may swap and leads first.
    assert (state.round, state.phase, state.first_lead, state.swaps_left) == (2, "swap", 1, 2)
    assert MAGIC_SQUARE.to_act(state) == (1,)


def test_an_opponent_who_never_chooses_the_colouring_order_loses_round_1() -> None:
    state = act(start(), 1, {"type": "timeout"})
    assert state.last_round is not None
    assert (state.last_round["winner"], state.last_round["reason"]) == (0, "timeout")
    assert state.colours == (0, 1) * 8  # coloured in board order, alternately from p0
    assert (state.round, state.phase, state.first_lead) == (2, "swap", 1)


def test_a_seat_whose_clock_is_not_running_cannot_time_out() -> None:
    state = place_square(start(TOP_HALF_RED), square(), upto=2)
    with pytest.raises(IllegalActionError):
        act(state, 0, {"type": "timeout"})  # p0 may challenge, but it is p1's clock that runs


def test_time_limits_are_options() -> None:
    assert MAGIC_SQUARE.initial({}, {"round_seconds": 60, "challenge_seconds": 30}).phase
    with pytest.raises(LocalMisuseError):
        MAGIC_SQUARE.initial({}, {"round_seconds": 0})


def test_colouring_has_no_time_limit_of_its_own() -> None:
    # colour_seconds was an option once; colouring now counts on the round clock.
    with pytest.raises(LocalMisuseError, match="unknown option 'colour_seconds'"):
        MAGIC_SQUARE.initial({}, {"colour_seconds": 60})
