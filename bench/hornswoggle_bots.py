"""Benchmark: how often the ``pirate`` bot's team beats random play in Hornswoggle.

    .venv/bin/python bench/hornswoggle_bots.py [--matches N]

Three line-ups, each over N matches with seats and first players varied: two pirates against two
random bots; one pirate with a random partner against two random bots; and, as a control, random
against random (about 50%).
"""

from __future__ import annotations

import argparse
import random
import time

from p2pgenius.bots import Bot, make_bot
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE

MAX_ACTIONS = 5000


def play(bots: list[Bot], seed: int) -> int:
    """Play one match; returns the winning team (0 for p0/p2, 1 for p1/p3)."""
    rng = random.Random(seed)
    state = HORNSWOGGLE.initial({"garnets": [1, 1, 1, 1]}, {})
    for _ in range(MAX_ACTIONS):
        seats = HORNSWOGGLE.to_act(state)
        if not seats:
            break
        seat = rng.choice(seats)
        state = HORNSWOGGLE.apply(state, seat, bots[seat].choose(state, seat))
    outcome = HORNSWOGGLE.outcome(state)
    assert outcome is not None, "a match always ends"
    return outcome.winner % 2 if outcome.winner is not None else -1


def line_up(levels: list[str], matches: int, offset: int) -> float:
    """Share of matches won by team 0 (p0 and p2) with these bot levels per seat."""
    wins = 0
    for match in range(matches):
        seed = offset + match
        bots = [make_bot("hornswoggle", level, seed=seed * 4 + s) for s, level in enumerate(levels)]
        wins += play(bots, seed) == 0
    return wins / matches


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400)
    args = parser.parse_args()
    rows = [
        ("pirate + pirate vs random + random", ["pirate", "random", "pirate", "random"]),
        ("pirate + random vs random + random", ["pirate", "random", "random", "random"]),
        ("random + random vs random + random", ["random", "random", "random", "random"]),
    ]
    print("| line-up (team p0+p2 first) | matches | team p0+p2 wins | seconds |")
    print("|---|---|---|---|")
    for name, levels in rows:
        start = time.perf_counter()
        share = line_up(levels, args.matches, offset=1000)
        print(f"| {name} | {args.matches} | {share:.0%} | {time.perf_counter() - start:.1f} |")


if __name__ == "__main__":
    main()
