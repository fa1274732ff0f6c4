"""Every game's bot levels against each other: the table in docs/bots.md.

    .venv/bin/python bench/bots.py [--matches N] [--games G ...] [--jobs J] [--write]

For each game, each pair of its levels (the games' table, strongest first, ``random`` last), and
the strongest against itself, plays N matches, the sides swapped every match (the game's spec
says its sides: in a game of teams each level is a whole team, in Hornswoggle seats 0 and 2 against
1 and 3); a match still going after MAX_ACTIONS
actions counts as a draw (and says that a level's matches may not end). Each line is the first
level's score (a win 1, a draw 1/2) with its 95% Wilson interval, and each level's decision time
(median and slowest) over those matches. The
engine alone is played, with no network (the bots decide exactly as they do at a table).
``--write`` puts the tables in docs/bots.md between its markers; ``--jobs`` plays line-ups in that
many processes at once. Printed after the tables, not written: each level's CPU time per decision
(``time.process_time``, which a busy machine slows less than the wall clock): calls, median, the
99th percentile with its 95% interval (between two order statistics) and the slowest.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from stats import quantile_interval, wilson  # (bench/stats.py: the script's own folder is on the path)

from p2pgenius.bots import make_bot
from p2pgenius.games.catalog import GAMES, find
from p2pgenius.games.registry import get_spec

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bots.md"
BEGIN, END = "<!-- bench/bots.py: begin -->", "<!-- bench/bots.py: end -->"
MAX_ACTIONS = 20_000


@dataclass
class LineUp:
    """One pair of levels of one game, and what their matches gave (from ``first``'s side)."""

    game: str
    first: str
    second: str
    won: int = 0
    drawn: int = 0
    lost: int = 0
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    """Each level's decisions on CPU time (``times`` is the wall clock's)."""

    @property
    def matches(self) -> int:
        return self.won + self.drawn + self.lost

    @property
    def score(self) -> float:
        return (self.won + self.drawn / 2) / max(self.matches, 1)


def play(line: LineUp, match: int) -> None:
    """One match of ``line``; ``first`` holds the spec's first side in even matches, else the
    second (the game's sides, its seats and its teams, come from its spec)."""
    spec = get_spec(line.game)
    engine = spec.engine
    side = match % 2  # the side of the first level
    ours = spec.sides[side]
    seats = engine.seats(engine.initial({}, {}))
    levels = [line.first if seat in ours else line.second for seat in range(seats)]
    bots = [make_bot(line.game, level, seed=1000 * match + seat) for seat, level in enumerate(levels)]
    rng = random.Random(match)
    state = engine.initial({}, {})
    for _ in range(MAX_ACTIONS):
        waiting = engine.to_act(state)
        if not waiting:
            break
        for seat in rng.sample(list(waiting), len(waiting)):
            start, cpu = time.perf_counter(), time.process_time()
            action = bots[seat].choose(state, seat)
            line.cpu.setdefault(levels[seat], []).append(time.process_time() - cpu)
            line.times.setdefault(levels[seat], []).append(time.perf_counter() - start)
            if action is not None:
                break
        else:
            raise AssertionError(f"{line.game}: no seat the game waits on acted")
        state = engine.apply(state, seat, action)
    outcome = engine.outcome(state)
    if outcome is None or outcome.winner is None:
        line.drawn += 1
    elif outcome.winner in ours:
        line.won += 1
    else:
        line.lost += 1


def run(line: LineUp, matches: int) -> LineUp:
    for match in range(matches):
        play(line, match)
    return line


def line_ups(games: Sequence[str]) -> list[LineUp]:
    """Every pair of levels of every game, stronger first, then the strongest against itself
    (what ``host --bot`` and ``join --bot`` play by default: its matches must end)."""
    out = []
    for game in games:
        levels = find(game).described
        out += [LineUp(game, first.name, second.name) for first, second in itertools.combinations(levels, 2)]
        out.append(LineUp(game, levels[0].name, levels[0].name))
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def tables(lines: Sequence[LineUp], matches: int) -> str:
    """The Markdown tables, a game each."""
    out: list[str] = []
    for game in dict.fromkeys(line.game for line in lines):
        entry = find(game)
        out += [f"### {entry.title} (`{game}`)", ""]
        out += [f"Levels: {', '.join(f'`{lv.name}` ({lv.rank}: {lv.what})' for lv in entry.described)}.", ""]
        out += [
            "| line-up | matches | won | drawn | lost | score | 95% interval |",
            "|---|---|---|---|---|---|---|",
        ]
        times: dict[str, list[float]] = {}
        for line in (each for each in lines if each.game == game):
            low, high = wilson(line.score, line.matches)
            out.append(
                f"| {line.first} vs {line.second} | {line.matches} | {line.won} | {line.drawn} | {line.lost} "
                f"| {line.score:.1%} | {low:.1%} to {high:.1%} |"
            )
            for level, spent in line.times.items():
                times.setdefault(level, []).extend(spent)
        out += ["", "| level | calls | median | slowest |", "|---|---|---|---|"]
        for level in (lv.name for lv in entry.described if lv.name in times):
            spent = times[level]
            out.append(f"| {level} | {len(spent)} | {ms(statistics.median(spent))} | {ms(max(spent))} |")
        out.append("")
    stamp = datetime.date.today().isoformat()
    out.append(f"({matches} matches a line-up, measured {stamp} by `bench/bots.py --matches {matches}`.)")
    return "\n".join(out)


def fine_ms(seconds: float) -> str:
    """Milliseconds to two places ("-" for an unbounded interval's end)."""
    return "-" if seconds == float("inf") else f"{seconds * 1000:.2f} ms"


def cpu_tables(lines: Sequence[LineUp]) -> str:
    """Each game's levels' CPU time per decision: calls, median, p99 [95% interval], slowest."""
    out = [
        "| game | level | calls | median | p99 [95% interval] | slowest |",
        "|---|---|---|---|---|---|",
    ]
    for game in dict.fromkeys(line.game for line in lines):
        spent: dict[str, list[float]] = {}
        for line in (each for each in lines if each.game == game):
            for level, cpu in line.cpu.items():
                spent.setdefault(level, []).extend(cpu)
        for level in (lv.name for lv in find(game).described if lv.name in spent):
            times = spent[level]
            p99, low, high = quantile_interval(times, 0.99)
            out.append(
                f"| {game} | {level} | {len(times)} | {fine_ms(statistics.median(times))} "
                f"| {fine_ms(p99)} [{fine_ms(low)}, {fine_ms(high)}] | {fine_ms(max(times))} |"
            )
    return "\n".join(out)


def write(text: str) -> None:
    """Put ``text`` between the markers of docs/bots.md."""
    doc = DOC.read_text(encoding="utf-8")
    head, _, rest = doc.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--games", nargs="*", default=[entry.name for entry in GAMES])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="write the tables into docs/bots.md")
    args = parser.parse_args()
    todo = line_ups(args.games)
    done: list[LineUp] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run, line, args.matches) for line in todo]
        for number, future in enumerate(futures, start=1):
            line = future.result()
            done.append(line)
            print(
                f"[{number}/{len(todo)}] {line.game}: {line.first} vs {line.second}: {line.score:.1%}",
                file=sys.stderr,
                flush=True,
            )
    text = tables(done, args.matches)
    print(text)
    print(f"\nCPU time per decision ({args.matches} matches a line-up):\n")
    print(cpu_tables(done))
    if args.write:
        write(text)


if __name__ == "__main__":
    main()
