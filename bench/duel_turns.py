"""Benchmark: how fast the duel engine resolves turns under random bot play (one process, one core).

    .venv/bin/python bench/duel_turns.py [--matches N]

Prints turns per second and the median and 99th-percentile time to resolve one turn (both wizards'
submissions applied, the second one triggering the resolution).
"""

from __future__ import annotations

import argparse
import statistics
import time

from p2pgenius.bots import make_bot
from p2pgenius.bots.uniform import RandomBot
from p2pgenius.games.duel import DUEL

MAX_TURNS = 200


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    args = parser.parse_args()
    bots = [RandomBot(DUEL, seed=seed) for seed in (1, 2)]
    resolve_ns: list[int] = []
    turns = 0
    started = time.perf_counter()
    for _ in range(args.matches):
        state = DUEL.initial({}, {})
        while state.outcome is None and state.turn <= MAX_TURNS:
            seats = DUEL.to_act(state)
            for seat in seats[:-1]:
                state = DUEL.apply(state, seat, bots[seat].choose(state, seat))
            last = seats[-1]
            action = bots[last].choose(state, last)
            t0 = time.perf_counter_ns()
            state = DUEL.apply(state, last, action)
            resolve_ns.append(time.perf_counter_ns() - t0)
            turns += 1
    elapsed = time.perf_counter() - started
    resolve_ns.sort()
    p99 = resolve_ns[int(len(resolve_ns) * 0.99)]
    print("| matches | turns | turns/s (bots included) | resolve median | resolve p99 |")
    print("|---|---|---|---|---|")
    print(
        f"| {args.matches} | {turns} | {turns / elapsed:,.0f} | "
        f"{statistics.median(resolve_ns) / 1000:.1f} us | {p99 / 1000:.1f} us |"
    )


def strength(matches: int) -> None:
    """How the wizard bot fares against random play and against itself."""
    print()
    print("| line-up | matches | p0 wins | p1 wins | unfinished after 300 turns |")
    print("|---|---|---|---|---|")
    for levels in (("wizard", "random"), ("random", "wizard"), ("wizard", "wizard")):
        tally = {0: 0, 1: 0, None: 0}
        for seed in range(matches):
            bots = [make_bot("duel", level, seed=seed * 2 + i) for i, level in enumerate(levels)]
            state = DUEL.initial({}, {})
            while state.outcome is None and state.turn <= 300:
                for seat in DUEL.to_act(state):
                    state = DUEL.apply(state, seat, bots[seat].choose(state, seat))
            winner = None if state.outcome is None else state.outcome.winner
            tally[winner] = tally.get(winner, 0) + 1
        print(f"| {' vs '.join(levels)} | {matches} | {tally[0]} | {tally[1]} | {tally[None]} |")


if __name__ == "__main__":
    main()
    strength(100)
