"""The longer run of the proof that time never wrongs an honest player: the suite's matrix
(tests/net/test_time_is_fair.py: every game, 2 and the most peers, fast and not, clocks of 1 s,
their default, 600 s and a week, a grace period of 5 s and of an hour) with many drawn players per
cell instead of one, on the autojump clock (fake time: a week of a turn costs what its messages
cost). Prints a table: per cell, the matches played, the claims, disputes and forfeits found (0 is
the only good answer) and how many matches ended finished.

    .venv/bin/python bench/time_fairness.py [--matches N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pgenius.games import catalog  # noqa: E402
from tests.games.rps import ENTRY  # noqa: E402
from tests.net.test_time_is_fair import CLOCKS, GRACES, honest, tables  # noqa: E402
from tests.net.timing import TIME_KINDS, shares  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10, help="drawn matches per cell")
    parser.add_argument("--seed", type=int, default=0, help="the first seed of the draws")
    args = parser.parse_args()
    catalog.add(ENTRY)
    draw = random.Random(args.seed)
    print("| game (peers) | fast | clock | grace | matches | claims, disputes, forfeits | finished | s |")
    print("|---|---|---|---|---|---|---|---|")
    wrong = 0
    for game, peers, fast in tables():
        for clock in CLOCKS:
            for grace in GRACES:
                start, bad, finished = time.perf_counter(), 0, 0
                for _ in range(args.matches):
                    seed = draw.randrange(2**32)
                    delay = draw.choice([0.0, 0.05, 0.2])
                    cut = draw.choice([None, 3.0]) if grace > 3 else None
                    drawn = [shares(seed + p) for p in range(4)]
                    played = honest(game, peers, fast, clock, grace, drawn, delay, cut)
                    bad += sum(1 for i in range(peers) for kind in played.kinds(i) if kind in TIME_KINDS)
                    finished += all(report.ok for report in played.reports)
                wrong += bad
                seconds = time.perf_counter() - start
                fastness = "yes" if fast else "no"
                print(
                    f"| {game} ({peers}) | {fastness} | {clock} | {grace:.0f} s | {args.matches} "
                    f"| {bad} | {finished} | {seconds:.1f} |"
                )
    print(f"\n{'no honest player was claimed' if not wrong else f'{wrong} time messages in honest matches'}")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
