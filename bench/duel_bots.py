"""Benchmark: the duel's bot levels against random play and against each other.

    nice -n 10 .venv/bin/python bench/duel_bots.py [--matches N] [--levels archmage,wizard]
        [--pairs archmage:random,wizard:random,archmage:wizard] [--offset K]

Each line-up plays N matches, the first level taking seat p0 in even matches and p1 in odd ones,
every bot seeded from the match number. A match that reaches 300 turns counts as a draw. For the
first level of each line-up it prints: its score (wins plus half the draws) with a 95% Wilson
interval; wins, draws, losses; its surrenders (P with both hands); how many of its Shields blocked
nothing (a turn on which it cast Shield and no attack on it was blocked by a shield), of all its
Shields and of those it raised for their own sake (a P that continued no spell the hand had under
way and was not followed by W, as every spell begun with P is; not on the last turn); its stabs
per match; its idle hands (hand-turns whose gesture counted as nothing: a lone clap, an afraid
C/D/S, a second stab); the mean length of the duels in turns; its decision time (median and max,
ms).
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field

from stats import wilson  # (bench/stats.py: the script's own folder is on the path)

from p2pgenius.bots import Bot, make_bot
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.spells import STAB, next_gestures
from p2pgenius.games.duel.state import DuelState

MAX_TURNS = 300


@dataclass
class Tally:
    """What the first level of a line-up did over its matches."""

    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    unfinished: int = 0
    surrenders: int = 0
    shields: int = 0
    idle_shields: int = 0
    raised: int = 0
    idle_raised: int = 0
    pending: list[tuple[int, str, bool]] = field(default_factory=list)
    stabs: int = 0
    idle_hands: int = 0
    hand_turns: int = 0
    turns: int = 0
    times: list[float] = field(default_factory=list)

    def score(self) -> float:
        """Wins plus half the draws, as a share of the matches."""
        return (self.wins + self.draws / 2) / max(1, self.matches)


def note_turn(tally: Tally, before: DuelState, after: DuelState, seat: int) -> None:
    """Count what ``seat`` did in the turn that led from ``before`` to ``after``."""
    wizard, was = after.wizards[seat], before.wizards[seat]
    raised: list[tuple[int, str]] = []  # (history index, hand) of each P that continued nothing
    for hand in ("left", "right"):
        gesture = wizard.history(hand)[-1]
        tally.hand_turns += 1
        tally.stabs += gesture == STAB
        tally.idle_hands += gesture == "-"
        under_way = next_gestures(was.history(hand), was.barrier)
        if gesture == "P" and not any(rest[0] == "P" for _, rest in under_way):
            raised.append((len(was.history(hand)), hand))
    shielded = any(e["type"] == "cast" and e["seat"] == seat and e["spell"] == "shield" for e in after.events)
    blocked = any(
        e["type"] == "blocked" and e.get("why") == "shield" and e.get("target") == f"p{seat}"
        for e in after.events
    )
    tally.shields += shielded
    tally.idle_shields += shielded and not blocked
    tally.pending.extend((index, hand, blocked) for index, hand in raised)


def note_shields(tally: Tally, final: DuelState, seat: int) -> None:
    """At the end of a match: a P that continued no spell and whose hand did not go on with W
    next turn (as every spell begun with P does) was a Shield raised for its own sake."""
    wizard = final.wizards[seat]
    for index, hand, blocked in tally.pending:
        history = wizard.history(hand)
        if index + 1 >= len(history) or history[index + 1] == "W":
            continue  # (on the last turn, what the P was for cannot be told)
        tally.raised += 1
        tally.idle_raised += not blocked
    tally.pending.clear()


def play(bots: list[Bot], tally: Tally, seat: int) -> None:
    """One match; ``tally`` counts for the bot at ``seat``."""
    state = DUEL.initial({}, {})
    while state.outcome is None and state.turn <= MAX_TURNS:
        before = state
        for s in DUEL.to_act(state):
            start = time.perf_counter()
            action = bots[s].choose(state, s)
            if s == seat:
                tally.times.append(time.perf_counter() - start)
            state = DUEL.apply(state, s, action)
        if state.turn != before.turn:
            note_turn(tally, before, state, seat)
    note_shields(tally, state, seat)
    tally.matches += 1
    tally.turns += state.turn - 1
    outcome = state.outcome
    if outcome is None:
        tally.unfinished += 1
        tally.draws += 1
        return
    if outcome.reason == "surrender" and outcome.winner != seat:
        tally.surrenders += 1
    if outcome.winner is None:
        tally.draws += 1
    elif outcome.winner == seat:
        tally.wins += 1
    else:
        tally.losses += 1


def line_up(first: str, second: str, matches: int, offset: int = 0) -> Tally:
    """``first`` against ``second`` over ``matches`` matches (numbered from ``offset``), alternating
    seats."""
    tally = Tally()
    for match in range(offset, offset + matches):
        seat = match % 2
        levels = (first, second) if seat == 0 else (second, first)
        bots = [make_bot("duel", level, seed=match * 2 + s) for s, level in enumerate(levels)]
        play(bots, tally, seat)
    return tally


def row(first: str, second: str, tally: Tally, seconds: float) -> str:
    """A line of the table."""
    low, high = wilson(tally.score(), tally.matches)
    times = sorted(tally.times) or [0.0]
    return (
        f"| {first} vs {second} | {tally.matches} | {tally.score():.1%} [{low:.1%}, {high:.1%}] "
        f"| {tally.wins}/{tally.draws}/{tally.losses} ({tally.unfinished} unfinished) "
        f"| {tally.surrenders} | {tally.idle_shields}/{tally.shields} | {tally.idle_raised}/{tally.raised} "
        f"| {tally.stabs / max(1, tally.matches):.1f} | {tally.idle_hands / max(1, tally.hand_turns):.1%} "
        f"| {tally.turns / max(1, tally.matches):.1f} "
        f"| {statistics.median(times) * 1000:.1f} / {times[-1] * 1000:.1f} | {seconds:.0f} |"
    )


def main() -> None:
    """Run the line-ups and print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--levels", default="archmage,wizard", help="levels to play, strongest first")
    parser.add_argument("--pairs", default="", help="only these line-ups: a:b,c:d")
    parser.add_argument("--offset", type=int, default=0, help="the first match's number (its seeds)")
    args = parser.parse_args()
    levels = args.levels.split(",")
    if args.pairs:
        pairs = [tuple(pair.split(":")) for pair in args.pairs.split(",")]
    else:
        pairs = [(level, "random") for level in levels]
        pairs += [(a, b) for i, a in enumerate(levels) for b in levels[i + 1 :]]
    print(
        "| line-up | matches | score of the first [95% Wilson] | W/D/L | surrenders "
        "| shields blocking nothing | raised shields blocking nothing | stabs/match | idle hands "
        "| turns/match | decision ms (median / max) "
        "| seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for first, second in pairs:
        start = time.perf_counter()
        tally = line_up(first, second, args.matches, args.offset)
        print(row(first, second, tally, time.perf_counter() - start), flush=True)


if __name__ == "__main__":
    main()
