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
C/D/S, a second stab); the mean length of the duels in turns (with a 95% bootstrap interval); its
decision time (median, 99th percentile and max, ms). Then, per line-up (issue 49): the duels that
reached the cap; the duels in which a cycle of 3 or more turns was played twice in a row by both
sides (each wizard's two hands counted the same two gestures as in the turns just before, either
way round: a loop played with the hands swapped is the same loop to anyone watching); and the
first level's useless spells by kind per 100 of its turns: a Charm Monster that found no monster
(and, apart, those cast with no monster of the other's on the board: they may still take one
summoned that turn), a Cure Light Wounds at full HP that no damage met, a Counter-spell that
stopped and blocked nothing, a Resist Heat on a wizard that already resisted, and a Shield raised
for its own sake (see above) that blocked nothing. A Shield completed on the way to a longer spell
is not counted: it is the by-product of that spell's gestures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

from stats import bootstrap_mean, wilson  # (bench/stats.py: the script's own folder is on the path)

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
    lengths: list[int] = field(default_factory=list)
    cycles: int = 0
    useless: Counter[str] = field(default_factory=Counter)
    played: list[str] = field(default_factory=list)  # this match's turns: both wizards' gestures

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
    tally.useless.update(useless_spells(before, after, seat))
    tally.played.append("/".join("".join(sorted(w.left[-1] + w.right[-1])) for w in after.wizards))


def useless_spells(before: DuelState, after: DuelState, seat: int) -> list[str]:
    """The spells ``seat`` completed in this turn that did nothing (Shields are judged at the end
    of the match, by :func:`note_shields`)."""
    me = f"p{seat}"
    events = after.events
    cast = [str(e["spell"]) for e in events if e["type"] == "cast" and e["seat"] == seat]
    hurt = any(e["type"] == "damage" and e.get("target") == me for e in events)
    shielded = any(
        e["type"] == "blocked" and e.get("why") == "shield" and e.get("target") == me for e in events
    )
    stopped = any(e["type"] == "fizzle" and e.get("by") == "counter_spell" for e in events)
    useless = [
        "charm_monster"
        for e in events
        if e["type"] == "miss" and e.get("seat") == seat and e.get("spell") == "charm_monster"
    ]
    was = before.wizards[seat]
    if "charm_monster" in cast and not any(m.controller != seat for m in before.monsters):
        useless.append("charm_monster_blind")  # (cast with no monster of the other's on the board)
    if "cure_light_wounds" in cast and was.hp >= was.max_hp and not hurt:
        useless.append("cure_light_wounds")
    storm = any(e["type"] == "cast" and e["spell"] == "fire_storm" for e in events)
    if "counter_spell" in cast and not (shielded or stopped or storm):
        useless.append("counter_spell")
    if "resist_heat" in cast and was.resist_heat:
        useless.append("resist_heat")
    return useless


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
        tally.useless["shield"] += not blocked
    tally.pending.clear()


def repeats_a_cycle(played: list[str], shortest: int = 3) -> bool:
    """Whether some ``shortest`` or more turns were played again at once, every hand of both
    wizards the same: a loop a person watching would call a loop."""
    n = len(played)
    for length in range(shortest, n // 2 + 1):
        for start in range(n - 2 * length + 1):
            if played[start : start + length] == played[start + length : start + 2 * length]:
                return True
    return False


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
    tally.cycles += repeats_a_cycle(tally.played)
    tally.played.clear()
    tally.matches += 1
    tally.turns += state.turn - 1
    tally.lengths.append(state.turn - 1)
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
    """A line of the first table."""
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


USELESS = (
    "charm_monster",
    "charm_monster_blind",
    "cure_light_wounds",
    "counter_spell",
    "resist_heat",
    "shield",
)


def detail(first: str, second: str, tally: Tally) -> str:
    """A line of the second table (issue 49): cycles, the cap, lengths, useless spells, times."""
    n = max(1, tally.matches)
    low, high = wilson(tally.cycles / n, n)
    cap_low, cap_high = wilson(tally.unfinished / n, n)
    mean = statistics.fmean(tally.lengths or [0])
    length_low, length_high = bootstrap_mean([float(n) for n in tally.lengths or [0]], rounds=2000)
    per_100 = 100 / max(1, tally.hand_turns // 2)
    useless = ", ".join(f"{name} {tally.useless[name] * per_100:.2f}" for name in USELESS)
    times = sorted(tally.times) or [0.0]
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return (
        f"| {first} vs {second} | {tally.cycles} [{low:.1%}, {high:.1%}] "
        f"| {tally.unfinished} [{cap_low:.1%}, {cap_high:.1%}] "
        f"| {mean:.1f} [{length_low:.1f}, {length_high:.1f}] "
        f"| {useless} | {statistics.median(times) * 1000:.1f} / {p99 * 1000:.1f} |"
    )


def main() -> None:
    """Run the line-ups and print the tables."""
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
    details = []
    for first, second in pairs:
        start = time.perf_counter()
        tally = line_up(first, second, args.matches, args.offset)
        print(row(first, second, tally, time.perf_counter() - start), flush=True)
        details.append(detail(first, second, tally))
    print()
    print(
        "| line-up | duels repeating a 3+-turn cycle [95% Wilson] | at the cap | mean turns [95% bootstrap] "
        "| useless spells of the first per 100 of its turns | decision ms (median / p99) |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(details))


if __name__ == "__main__":
    main()
