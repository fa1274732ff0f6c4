"""The placement-phase solver against a brute force over the rules, and the `solve` command."""

from __future__ import annotations

import json
import random

import pytest

from p2pgenius.cli.main import main
from p2pgenius.games.magic_square.solver import PlacementSolver, lead_of
from p2pgenius.games.magic_square.squares import Grid, index

LOSS = 1000  # a round lost to a challenge, in margin units: worse than any score


def brute(
    cells: list[int], colours: list[int], first_lead: int, placer: int | None, candidates: list[Grid]
) -> int:
    """Red-minus-blue under perfect play, straight from the rules: every empty cell is a legal
    placement, and one that leaves no completion loses the round to a challenge."""
    k = len(cells)
    if k == 16:
        return sum(n if colours[c] == 0 else -n for c, n in enumerate(candidates[0]))
    if placer is None:  # a round starts: the lead picks who places first
        lead = lead_of(first_lead, k)
        options = [brute(cells, colours, first_lead, f, candidates) for f in (0, 1)]
        return max(options) if lead == 0 else min(options)
    values = []
    for cell in range(16):
        if cell in cells:
            continue
        left = [g for g in candidates if g[cell] == k + 1]
        if not left:
            values.append(-LOSS if placer == 0 else LOSS)
            continue
        after = [*cells, cell]
        nxt = 1 - placer if (k + 1) % 2 else None
        values.append(brute(after, colours, first_lead, nxt, left))
    return max(values) if placer == 0 else min(values)


@pytest.mark.parametrize("seed", range(6))
def test_the_solver_agrees_with_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    colours = [0] * 8 + [1] * 8
    rng.shuffle(colours)
    first_lead = rng.randrange(2)
    grid = rng.choice(index().grids)
    k = rng.choice([10, 11, 12])
    cells = [grid.index(n) for n in range(1, k + 1)]
    placer = rng.choice([None, 0, 1]) if k % 2 == 0 else rng.randrange(2)
    candidates = index().matching([n if n <= k else 0 for n in grid])
    solution = PlacementSolver(colours, first_lead).solve(cells, placer)
    assert solution.margin == brute(cells, colours, first_lead, placer, candidates)
    assert solution.winner == (None if solution.margin == 0 else int(solution.margin < 0))
    assert sum(solution.scores) == 136


def test_the_solver_says_to_challenge_an_uncompletable_position() -> None:
    good = set(index().next_cells([]))
    assert good == set(range(16))  # 1 may go anywhere; find a bad second number
    bad = next(c for c in range(1, 16) if c not in index().next_cells([0]))
    solution = PlacementSolver([0] * 8 + [1] * 8, 0).solve([0, bad])
    assert solution.best == {"type": "challenge"}
    assert solution.winner == 0  # p0 led and placed 1; p1 placed the bad 2


def test_solve_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["solve", "magic-square", "--colours", "RRRRRRRRBBBBBBBB", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["winner"] is None  # two full rows each: always 68-68
    assert result["scores"] == [68, 68]
    assert result["best"]["type"] == "order"


def test_solve_command_refuses_bad_colours(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "magic-square", "--colours", "RRRR"]) == 2
    assert capsys.readouterr().err.startswith("error: --colours")
