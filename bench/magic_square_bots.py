"""Benchmark: the Magic Square's ``perfect`` bot against the other players, and its decision time.

    .venv/bin/python bench/magic_square_bots.py [--matches N] [--max-replays R] [--rows A:B,...]
        [--digest] [--times]

``perfect`` (exact in every phase) plays N matches against each of: ``exact-placement`` (the first
``perfect``: exact placement, heuristic colouring, six sampled swaps), ``heuristic`` and
``random``; and, for reference, ``exact-placement`` against ``heuristic`` and ``perfect`` against
itself. Seats alternate (the Death Match Opponent is p1, as by default). A match still going after
R replayed 68-68 ties is counted as unfinished (two perfect players could tie forever; ``perfect``
plays each round to win it, so its matches end). Prints each
line-up's share of matches won, lost and unfinished, with 95% Wilson intervals, its share of round-1
wins, and the first bot's decision time (median and max of every decision, and the slowest colouring
and swap decisions; one core, shared). ``--rows`` picks line-ups (``perfect:heuristic,...``).

``--digest`` adds each line-up's SHA-256 of every action of every match (seat and action, in
order): two versions of the bots that print the same digests made the same moves in all those
seeded matches (how a faster solver was shown to play exactly as before, issue 49). ``--times``
adds the first bot's CPU time per decision (``time.process_time``) by phase: calls, median, 99th
percentile with its 95% interval (between two order statistics) and the slowest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from stats import quantile_interval, wilson  # (bench/stats.py: the script's own folder is on the path)

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
    cpu: dict[str, list[float]] = field(default_factory=dict)
    """The same on CPU time."""
    moves: Any = field(default_factory=hashlib.sha256)
    """Every action of every match, in order (the line-up's digest)."""


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
            start, cpu = time.perf_counter(), time.process_time()
            action = bots[seat].choose(state, seat)
            if seat == measured and action is not None:
                tally.cpu.setdefault(state.phase, []).append(time.process_time() - cpu)
                tally.times.setdefault(state.phase, []).append(time.perf_counter() - start)
            if action is not None:
                break
        assert action is not None, "the seat the game waits on always acts"
        tally.moves.update(json.dumps([seat, action.to_plain()], sort_keys=True).encode())
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


ROWS = (
    ("perfect", "exact-placement"),
    ("perfect", "heuristic"),
    ("perfect", "random"),
    ("exact-placement", "heuristic"),
    ("perfect", "perfect"),
)


def phase_times(first: str, tally: Tally) -> list[str]:
    """The first bot's CPU time per decision by phase, then all phases together (table rows)."""
    phases = [*sorted(tally.cpu), "all"]
    rows = []
    for phase in phases:
        spent = [t for each in tally.cpu.values() for t in each] if phase == "all" else tally.cpu[phase]
        p99, low, high = quantile_interval(spent, 0.99)
        top = "-" if high == float("inf") else f"{1000 * high:.2f}"
        rows.append(
            f"| {first} | {phase} | {len(spent)} | {1000 * statistics.median(spent):.2f} "
            f"| {1000 * p99:.2f} [{1000 * low:.2f}, {top}] | {1000 * max(spent):.2f} |"
        )
    return rows


def main() -> None:
    """Run and print the table (then the digests and the CPU times, if asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--max-replays", type=int, default=20)
    parser.add_argument("--rows", help="line-ups as first:second, comma-separated (default: all)")
    parser.add_argument("--digest", action="store_true", help="print each line-up's digest of moves")
    parser.add_argument("--times", action="store_true", help="print CPU time per decision by phase")
    args = parser.parse_args()
    rows = [tuple(row.split(":", 1)) for row in args.rows.split(",")] if args.rows else ROWS
    print(
        "| first vs second | matches | first wins | first loses | unfinished | first wins round 1 "
        "| first's decisions: median, max | max colouring, swap | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    tallies = []
    for first, second in rows:
        start = time.perf_counter()
        tally = line_up(first, second, args.matches, args.max_replays)
        tallies.append(tally)
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
    if args.digest:
        print("\n| first vs second | SHA-256 of every match's moves |\n|---|---|")
        for (first, second), tally in zip(rows, tallies, strict=True):
            print(f"| {first} vs {second} | {tally.moves.hexdigest()} |")
    if args.times:
        print("\n| first | phase | calls | median ms | p99 ms [95% interval] | max ms |")
        print("|---|---|---|---|---|---|")
        for (first, second), tally in zip(rows, tallies, strict=True):
            print(f"| ({first} vs {second}) | | | | | |")
            print("\n".join(phase_times(first, tally)))


if __name__ == "__main__":
    main()
