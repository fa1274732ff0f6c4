"""The shipped tables (colourings.bin, colouring_game.bin) against the solver and the rules, and the
``perfect`` bot's colouring, order and swap choices against the tables."""

from __future__ import annotations

import random
import time
from dataclasses import replace
from importlib import resources

import pytest

from p2pgenius.bots import make_bot
from p2pgenius.games.magic_square import table
from p2pgenius.games.magic_square.actions import Colour, Order, Swap, SwapsDone
from p2pgenius.games.magic_square.bots import PerfectSquareBot, always_ties, swap_score
from p2pgenius.games.magic_square.solver import PlacementSolver
from p2pgenius.games.magic_square.squares import index
from p2pgenius.games.magic_square.state import SquareState


def sample(count: int, seed: int) -> list[int]:
    return random.Random(seed).sample(table.MASKS, count)


def test_the_32_symmetries_map_the_magic_squares_onto_themselves() -> None:
    squares = set(index().grids)
    perms = table.symmetries()
    assert len(perms) == 32
    for perm in perms:
        # cell c goes to perm[c]: the image square holds at perm[c] what the square held at c
        for grid in index().grids:
            image = [0] * 16
            for c, n in enumerate(grid):
                image[perm[c]] = n
            assert tuple(image) in squares


@pytest.mark.parametrize("mask", sample(3, 1))
def test_the_table_agrees_with_the_solver(mask: int) -> None:
    row = table.values()[table.RANK[mask]]
    for lead in (0, 1):
        assert row[lead] == PlacementSolver(table.colours_of(mask), lead).solve([]).margin


def test_a_colouring_and_its_images_share_values_and_exchanging_seats_negates() -> None:
    mask = sample(1, 2)[0]
    row = table.values()[table.RANK[mask]]
    for image in table.images(mask):
        assert table.values()[table.RANK[image]][:2] == row[:2]
    swapped = table.values()[table.RANK[mask ^ table.FULL]]
    assert (swapped[0], swapped[1]) == (-row[1], -row[0])


def test_colourings_bin_is_what_the_script_writes_from_its_margins() -> None:
    shipped = resources.files(table.__package__).joinpath("data", "colourings.bin").read_bytes()
    assert len(shipped) == len(table.MASKS) * table.RECORD
    assert table.pack_values(table.values()) == shipped
    margins = [row[:2] for row in table.values()]
    view = (1, -1)
    for mask in sample(2, 3):
        row = table.values()[table.RANK[mask]]
        near = [table.RANK[m] for m in table.neighbours(mask)]
        assert len(set(near)) == 849
        for t in (0, 1):
            final = max(view[t] * table.round_result(margins, o, t) for o in near)
            assert row[2 + t] == final
        # round 1's match value: its loser swaps into the best colouring for round 2 (swap_score)
        for lead in (0, 1):
            first = table.round_result(margins, table.RANK[mask], lead)
            if first == 0:
                assert row[4 + lead] == 0
                continue
            loser = 0 if first == -1 else 1
            best = max(swap_score(table.MASKS[o], loser, deciding=False)[1] for o in near)  # (the match)
            assert row[4 + lead] == view[loser] * best


def test_the_colouring_game_table_agrees_with_a_fresh_search() -> None:
    game = table.game()
    assert all((k >> 16 & table.FULL | k & table.FULL).bit_count() <= table.SHIPPED_DEPTH for k in game)
    rng = random.Random(4)
    deepest = [k for k in game if (k >> 16 & table.FULL | k & table.FULL).bit_count() == table.SHIPPED_DEPTH]
    search = table.ColouringSearch(lambda r, f: table.leaf_value(table.values(), r, f), table.raw_key)
    for key in rng.sample(sorted(deepest), 2):
        first, red, blue = key >> 32, key >> 16 & table.FULL, key & table.FULL
        assert search.value(red, blue, first) == game[key]
    # one layer up, each entry is the minimax of the shipped entries below it
    upper = [
        k for k in game if (k >> 16 & table.FULL | k & table.FULL).bit_count() == table.SHIPPED_DEPTH - 1
    ]
    for key in rng.sample(sorted(upper), 3):
        first, red, blue = key >> 32, key >> 16 & table.FULL, key & table.FULL
        who = table.mover(red, blue, first)
        children = [game[table.canonical(r, b, first)] for r, b in _children(red, blue, who)]
        assert game[key] == (max(children) if who == 0 else min(children))


def _children(red: int, blue: int, who: int) -> list[tuple[int, int]]:
    free = [1 << c for c in range(16) if not (red | blue) >> c & 1]
    return [(red | bit, blue) if who == 0 else (red, blue | bit) for bit in free]


def colouring_state(cells: int, seed: int) -> SquareState:
    """A colouring in progress: p0 coloured first, ``cells`` cells coloured alternately at random."""
    rng = random.Random(seed)
    colours: list[int | None] = [None] * 16
    for i, cell in enumerate(rng.sample(range(16), cells)):
        colours[cell] = i % 2
    return SquareState(
        opponent=1, phase="colouring", colours=tuple(colours), colourer=cells % 2, first_lead=1
    )


@pytest.mark.parametrize("cells", [0, 3, 5, 6, 9, 14])
def test_the_perfect_bot_colours_a_best_cell_by_the_table_within_a_second(cells: int) -> None:
    state = colouring_state(cells, cells)
    bot = make_bot("magic-square", "perfect", seed=cells)
    start = time.process_time()  # (the bot's own work: other processes on a busy machine add none)
    action = bot.choose(state, state.colourer)
    assert time.process_time() - start < 1.0
    assert isinstance(action, Colour)
    red, blue = table.mask_of(state.colours, 0), table.mask_of(state.colours, 1)
    options = dict(table.colouring_values(red, blue, first=0))
    best = max(options.values()) if state.colourer == 0 else min(options.values())
    assert options[action.cell] == best
    assert make_bot("magic-square", "perfect", seed=cells).choose(state, state.colourer) == action


def test_the_death_match_opponent_picks_the_better_first_colourer() -> None:
    state = SquareState(opponent=1, phase="colour_order", colours=(None,) * 16)
    action = make_bot("magic-square", "perfect", seed=0).choose(state, 1)
    assert isinstance(action, Order)
    blue_view = [-table.root_value(first) for first in (0, 1)]
    assert blue_view[action.first] == max(blue_view)


@pytest.mark.parametrize(("wins", "swaps"), [((1, 0), 2), ((1, 1), 2), ((0, 1), 1)])
def test_the_perfect_bot_swaps_into_a_best_colouring_by_the_table(wins: tuple[int, int], swaps: int) -> None:
    mask = sample(1, 5)[0]
    seat = 1 if wins[0] > wins[1] else 0
    state = SquareState(
        opponent=1,
        phase="swap",
        colours=tuple(table.colours_of(mask)),
        round=sum(wins) + 1,
        round_wins=wins,
        first_lead=seat,
        swaps_left=swaps,
    )
    deciding = sum(wins) == 2
    best = max(swap_score(other, seat, deciding) for other in table.neighbours(mask, swaps))
    bot = PerfectSquareBot(seed=1)
    start = time.process_time()  # (the bot's own work: other processes on a busy machine add none)
    for _ in range(swaps + 1):
        action = bot.choose(state, seat)
        assert time.process_time() - start < 1.0
        if isinstance(action, SwapsDone):
            break
        assert isinstance(action, Swap)
        colours = list(state.colours)
        colours[action.red], colours[action.blue] = 1, 0
        state = replace(state, colours=tuple(colours), swaps_left=state.swaps_left - 1)
        if state.swaps_left == 0:
            break
    assert swap_score(table.mask_of(state.colours, 0), seat, deciding) == best


def test_some_colourings_tie_whatever_anyone_plays() -> None:
    from tests.magic_square.helpers import TOP_HALF_RED

    assert always_ties(table.mask_of(TOP_HALF_RED, 0))
    assert sum(map(always_ties, table.MASKS)) == 34


def swap_to_the_end(state: SquareState, seat: int, bot: PerfectSquareBot) -> SquareState:
    """Let the bot make its swaps."""
    while state.phase == "swap":
        action = bot.choose(state, seat)
        if isinstance(action, SwapsDone):
            return replace(state, phase="lead")
        assert isinstance(action, Swap)
        colours = list(state.colours)
        colours[action.red], colours[action.blue] = 1, 0
        left = state.swaps_left - 1
        state = replace(state, colours=tuple(colours), swaps_left=left, phase="swap" if left else "lead")
    return state


def test_round_1s_loser_swaps_to_win_round_2_so_two_perfect_bots_finish() -> None:
    # Round 1's loser cannot win the match against perfect play, but could swap into a round that
    # ties without end; a match nobody can lose never ends, so it swaps to win round 2 instead.
    mask = sample(8, 3)[0]
    scored = {other: swap_score(other, 0, False) for other in table.neighbours(mask)}
    best = max(scored.values())
    assert best[0] == 1, "a winning colouring is within two swaps"
    assert any(score[:2] == (0, 0) for score in scored.values()), "a tie without end was there too"
    start = SquareState(
        opponent=1,
        phase="swap",
        colours=tuple(table.colours_of(mask)),
        round=2,
        round_wins=(0, 1),
        swaps_left=2,
    )
    for seed in range(8):
        final = table.mask_of(swap_to_the_end(start, 0, PerfectSquareBot(seed=seed)).colours, 0)
        assert swap_score(final, 0, False) == best
    # Among colourings equal for the round, one that ties whatever anyone plays is left.
    from tests.magic_square.helpers import TOP_HALF_RED

    mask = table.mask_of(TOP_HALF_RED, 0)
    final = table.mask_of(
        swap_to_the_end(replace(start, colours=tuple(TOP_HALF_RED)), 0, PerfectSquareBot(seed=1)).colours, 0
    )
    assert final != mask and not always_ties(final)


def test_two_perfect_bots_finish_their_match() -> None:
    from p2pgenius.inmemory import play

    for seed in range(2):
        table_ = play("magic-square", seed=seed, levels=["perfect", "perfect"], max_rounds=5000)
        outcome = table_.outcomes()[0]
        assert outcome is not None and sorted(outcome["round_wins"]) == [1, 2], outcome
