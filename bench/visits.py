"""Benchmark: how often each player must open the program in a match played by correspondence.

    .venv/bin/python bench/visits.py [--matches N]

Each match is played on the in-memory table (p2pgenius.inmemory) with bots, the peers taking
turns as players by correspondence would: a *visit* reads everything that waits for the player,
then makes every decision it can (a sealed choice standing at once, as with fast turns), and a
player visits only when something waits for it. The table counts each player's visits before the
deal (the terms, the seats by the coin flip) and after it to the signed result, the latter
divided by the turns played (the duel: its turns; the other games: their stages, each one
decision). The goal for the duel (issue 46): one visit per player per turn, commit-reveal
costing no second visit.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from p2pgenius.inmemory import play

GAMES: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("duel", 2, {"fast": True}),
    ("magic-square", 2, {}),
    ("hornswoggle", 4, {}),
)


def turns_of(table: Any) -> int:
    """The turns a finished match lasted: the duel's turn count, else its stages."""
    session = table.sessions[0]
    state = session.played.match.state
    return int(state.turn) - 1 if hasattr(state, "turn") else int(session.view.played)


def measure(game: str, peers: int, options: dict[str, Any], matches: int) -> tuple[float, float, int, int]:
    """Over ``matches`` matches: the median and the worst visits per player per turn after the
    deal, the median turns a match lasted, and the most visits a player made before the deal."""
    ratios: list[float] = []
    turns: list[int] = []
    dealing = 0
    for seed in range(matches):
        table = play(game, peers=peers, seed=seed, options=options)
        assert all(session.finished for session in table.sessions), f"{game} seed {seed} did not finish"
        played = max(turns_of(table), 1)
        turns.append(played)
        ratios += [
            (total - before) / played for total, before in zip(table.visits, table.dealing, strict=True)
        ]
        dealing = max(dealing, *table.dealing)
    return statistics.median(ratios), max(ratios), int(statistics.median(turns)), dealing


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()
    print(
        "| game | peers | matches | turns (median) | visits before the deal (most) "
        "| visits per player per turn after it (median) | worst |"
    )
    print("|---|---|---|---|---|---|---|")
    for game, peers, options in GAMES:
        median, worst, turns, dealing = measure(game, peers, options, args.matches)
        print(f"| {game} | {peers} | {args.matches} | {turns} | {dealing} | {median:.2f} | {worst:.2f} |")


if __name__ == "__main__":
    main()
