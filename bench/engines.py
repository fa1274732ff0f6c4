"""Benchmark: engine throughput per game, under random bots and under each game's strong bot.

    .venv/bin/python bench/engines.py [--matches N]

For every game and bot level, N whole matches in this process (no protocol, no network): actions
applied per second counting the engine alone (``apply``, ``outcome``, ``to_act``), and counting
the bots' thinking too. The strong bots think far longer than the engine computes; the first
column is the engine's own speed, the second what a table of bots plays at. (Two perfect Magic
Square bots can tie a round again and again, which the rules answer with a replay: such a match is
cut at MAX_ACTIONS and counted as such.)
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from p2pgenius.bots import levels, make_bot
from p2pgenius.games.catalog import names
from p2pgenius.games.registry import get_game

MAX_ACTIONS = 3000  # a random duel can wander; the engine's speed is what is measured


def match(game: str, level: str, seed: int, most: int = MAX_ACTIONS) -> tuple[int, float, float, bool]:
    """One match (cut after ``most`` actions): (actions applied, seconds in the engine, seconds in
    all, finished)."""
    engine: Any = get_game(game)
    rng = random.Random(seed)
    started = time.perf_counter()
    in_engine = 0.0
    state = engine.initial({}, {})
    bots = [make_bot(game, level, seed=seed * 8 + seat) for seat in range(engine.seats(state))]
    actions = 0
    while actions < most:
        t0 = time.perf_counter()
        over = engine.outcome(state) is not None
        seats = list(engine.to_act(state))
        in_engine += time.perf_counter() - t0
        if over or not seats:
            break
        rng.shuffle(seats)  # of those who may act now, any one may be first
        for seat in seats:
            action = bots[seat].choose(state, seat)
            if action is None:  # an optional action let pass
                continue
            t0 = time.perf_counter()
            state = engine.apply(state, seat, action)
            in_engine += time.perf_counter() - t0
            actions += 1
            break
        else:
            raise AssertionError(f"{game}: nobody acted at {seats}")
    return actions, in_engine, time.perf_counter() - started, engine.outcome(state) is not None


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument(
        "--slow-matches", type=int, default=6, help="matches for the perfect Magic Square bot (seconds each)"
    )
    parser.add_argument(
        "--max-actions", type=int, default=MAX_ACTIONS, help=f"cut a match after this many ({MAX_ACTIONS})"
    )
    args = parser.parse_args()
    print("| game | bots | matches | actions | actions/s, engine alone | actions/s, bots included |")
    print("|---|---|---|---|---|---|")
    for game in names():
        for level in ("random", levels(game)[0]):
            count = args.slow_matches if level == "perfect" else args.matches
            runs = [match(game, level, seed, args.max_actions) for seed in range(count)]
            actions = sum(r[0] for r in runs)
            engine_s, all_s = sum(r[1] for r in runs), sum(r[2] for r in runs)
            unfinished = sum(not r[3] for r in runs)
            note = f" ({unfinished} cut at {args.max_actions} actions)" if unfinished else ""
            print(
                f"| {game} | {level} | {len(runs)}{note} | {actions} "
                f"| {actions / engine_s:,.0f} | {actions / all_s:,.0f} |"
            )


if __name__ == "__main__":
    main()
