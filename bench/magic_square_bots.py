"""Benchmark: the Magic Square's ``perfect`` bot against the other players, and its decision time.

    .venv/bin/python bench/magic_square_bots.py [--matches N] [--max-replays R]

``perfect`` (exact in every phase) plays N matches against each of: ``exact-placement`` (the first
``perfect``: exact placement, heuristic colouring, six sampled swaps), ``heuristic`` and
``random``; and, for reference, ``exact-placement`` against ``heuristic`` and ``perfect`` against
itself. Seats alternate (the Death Match Opponent is p1, as by default). A match still going after
R replayed 68-68 ties is counted as unfinished (two perfect players could tie forever; ``perfect``
plays each round to win it, so its matches end). Prints each
line-up's share of matches won, lost and unfinished, with 95% Wilson intervals, its share of round-1
wins, and the first bot's decision time (median and max of every decision, and the slowest colouring
and swap decisions; one core, shared).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass, field

from stats import wilson  # (bench/stats.py: the script's own folder is on the path)

from p2pgenius.bots import Bot, make_bot
from p2pgenius.games.magic_square.bots import ExactPlacementBot
from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.state import SquareState

MAX_ACTIONS = 100_000


def bot(level: str, seed: int) -> Bot:
    """A bot of ``level`` (``exact-placement`` is not a level of the game: built here)."""
    return (
        ExactPlacementBot(seed=seed)
        if level == "exact-placement"
        else make_bot("magic-square", level, seed=seed)
    )


@dataclass
class Tally:
    """One line-up's results, from the first bot's side."""

    won: int = 0
    lost: int = 0
    unfinished: int = 0
    round_1_won: int = 0
    times: dict[str, list[float]] = field(default_factory=dict)
    """The first bot's decisions (calls that returned an action), by phase."""


def play(bots: list[Bot], measured: int, seed: int, max_replays: int, tally: Tally) -> None:
    """One match; the seat ``measured`` is the first bot, whose decisions are timed."""
    rng = random.Random(seed)
    state: SquareState = MAGIC_SQUARE.initial({}, {})
    replays = 0
    for _ in range(MAX_ACTIONS):
        seats = MAGIC_SQUARE.to_act(state)
        if not seats or replays > max_replays:
            break
        action = None
        for seat in rng.sample(seats, len(seats)):
            start = time.perf_counter()
            action = bots[seat].choose(state, seat)
            if seat == measured and action is not None:
                tally.times.setdefault(state.phase, []).append(time.perf_counter() - start)
            if action is not None:
                break
        assert action is not None, "the seat the game waits on always acts"
        state = MAGIC_SQUARE.apply(state, seat, action)
        replays += notice(state, measured, tally)
    outcome = MAGIC_SQUARE.outcome(state)
    if outcome is None:
        tally.unfinished += 1
    elif outcome.winner == measured:
        tally.won += 1
    else:
        tally.lost += 1


def notice(state: SquareState, measured: int, tally: Tally) -> int:
    """Count a round 1 won by the measured seat; returns how many replays the last step began."""
    replays = 0
    for event in state.events:
        if event["type"] == "replay":
            replays += 1
        if event["type"] == "round_end" and event["round"] == 1 and event["winner"] == measured:
            tally.round_1_won += 1
    return replays


def share(hits: int, n: int) -> str:
    """``hits``/``n`` as a percentage with its 95% Wilson interval."""
    if n == 0:
        return "-"
    low, high = wilson(hits / n, n)
    return f"{100 * hits / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def line_up(first: str, second: str, matches: int, max_replays: int) -> Tally:
    """``first`` against ``second`` over ``matches`` matches, seats alternating."""
    tally = Tally()
    for match in range(matches):
        measured = match % 2
        levels = [first, second] if measured == 0 else [second, first]
        bots = [bot(level, seed=match * 2 + s) for s, level in enumerate(levels)]
        play(bots, measured, match, max_replays, tally)
    return tally


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--max-replays", type=int, default=20)
    args = parser.parse_args()
    rows = [
        ("perfect", "exact-placement"),
        ("perfect", "heuristic"),
        ("perfect", "random"),
        ("exact-placement", "heuristic"),
        ("perfect", "perfect"),
    ]
    print(
        "| first vs second | matches | first wins | first loses | unfinished | first wins round 1 "
        "| first's decisions: median, max | max colouring, swap | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for first, second in rows:
        start = time.perf_counter()
        tally = line_up(first, second, args.matches, args.max_replays)
        n = args.matches
        times = [t for phase in tally.times.values() for t in phase]
        slowest = [1000 * max(tally.times.get(phase, [0.0])) for phase in ("colouring", "swap")]
        print(
            f"| {first} vs {second} | {n} | {share(tally.won, n)} | {share(tally.lost, n)} "
            f"| {share(tally.unfinished, n)} | {share(tally.round_1_won, n)} "
            f"| {1000 * statistics.median(times):.2f} ms, {1000 * max(times):.0f} ms "
            f"| {slowest[0]:.0f} ms, {slowest[1]:.0f} ms "
            f"| {time.perf_counter() - start:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
