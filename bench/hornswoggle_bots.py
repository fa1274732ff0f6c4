"""Benchmark: how often each Hornswoggle bot team wins, with 95% Wilson intervals and decision times.

    .venv/bin/python bench/hornswoggle_bots.py [--matches N] [--rows captain-pirate,...] [--offset SEED]

Each line-up plays N matches; the tested team sits at p0/p2 in even matches and at p1/p3 in odd
ones (the Death Match Opponent p1 picks who begins, so the first player varies too), every seat
with one Hacked Garnet. Rows: the ``captain`` team against two random bots, against today's
``pirate`` team and against a generic information-set MCTS team (:class:`IsmctsBot`, below: no
game knowledge; single-observer ISMCTS, 100 iterations a decision, UCB constant 0.7, each iteration
guessing every unseen card uniformly from its owner's six starting cards and playing at random
to the end of the second round, a match's result or the difference in cards as the reward); a
captain with a random partner against two randoms; the pirate's rows as before;
and, as controls, the ISMCTS team against the pirates, the captain team against itself and random
against random (about 50%).

The decision time is the tested team's smart seats' time per decision (median and max, seconds,
on this machine under whatever else runs on it).

A second table counts the tested captains' bids past a skull of their own pile, how many ended with
the captain flipping its own skull, how many made an opponent raise into a loss, the net cards
those rounds brought per match, the same over the rounds of bluffs alone, and the net against
passing (bench/hornswoggle_skull_bids.py defines each count).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from hornswoggle_skull_bids import SkullBids  # (the script's own folder is on the path)
from stats import wilson

from p2pgenius.bots import Bot, make_bot
from p2pgenius.games.hornswoggle.actions import DOUBLOON, SKULL, HornAction
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState, PileCard, Pirate, perspective, team_of

MAX_ACTIONS = 5000
ISMCTS_ITERATIONS = 100
ISMCTS_ROUNDS = 2  # playouts stop after this many round ends
UCB = 0.7


# -- the generic ISMCTS baseline -------------------------------------------------------------


def uniform_guess(state: HornState, seat: int, rng: random.Random) -> HornState:
    """A full state: every other seat's unseen cards drawn uniformly from its six starting cards
    less those shown (its discards take the rest)."""
    pirates: list[Pirate] = []
    for owner, pirate in enumerate(state.pirates):
        if owner == seat:
            pirates.append(pirate)
            continue
        pool = [DOUBLOON] * 4 + [SKULL] * 2
        for card in pirate.pile:
            if card.flipped and card.card in pool:
                pool.remove(card.card)
        rng.shuffle(pool)
        pile = tuple(c if c.flipped else PileCard(pool.pop()) for c in pirate.pile)
        hand = [pool.pop() for _ in range(pirate.count)]
        discarded = tuple(pool.pop() if pool else DOUBLOON for _ in pirate.discarded)
        hand_pair = (hand.count(DOUBLOON), hand.count(SKULL))
        pirates.append(replace(pirate, hand=hand_pair, pile=pile, discarded=discarded))
    return replace(state, pirates=(pirates[0], pirates[1], pirates[2], pirates[3]), holds=(True,) * 4)


@dataclass
class Node:
    """A node of the information-set tree: children by (seat, action)."""

    visits: int = 0
    available: int = 0
    total: float = 0.0  # reward of the team of the seat that moved into this node
    children: dict[tuple[int, str], Node] = field(default_factory=dict)


def reward(state: HornState, team: int) -> float:
    """1 for a won match, 0 for a lost one; else a half, moved by the difference in cards."""
    outcome = HORNSWOGGLE.outcome(state)
    if outcome is not None and outcome.winner is not None:
        return 1.0 if outcome.winner % 2 == team else 0.0
    cards = [p.cards for p in state.pirates]
    diff = cards[team] + cards[team + 2] - cards[1 - team] - cards[3 - team]
    return min(1.0, max(0.0, 0.5 + diff / 24))


class IsmctsBot:
    """Single-observer information-set MCTS: uniform guesses, random playouts two rounds deep."""

    level = "ismcts"

    def __init__(self, *, seed: int, iterations: int = ISMCTS_ITERATIONS) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations

    def choose(self, state: HornState, seat: int) -> HornAction:
        state = perspective(state, [seat])
        legal = HORNSWOGGLE.legal_actions(state, seat)
        if len(legal) == 1:
            return legal[0]
        root = Node()
        for _ in range(self.iterations):
            self._iterate(root, uniform_guess(state, seat, self.rng), seat, state.round)
        best = max(root.children.items(), key=lambda item: item[1].visits)
        return next(a for a in legal if repr(a) == best[0][1])

    def _iterate(self, root: Node, state: HornState, seat: int, start: int) -> None:
        path: list[tuple[Node, int]] = [(root, seat)]
        node, actor = root, seat
        while not self._ended(state, start):
            actions = HORNSWOGGLE.legal_actions(state, actor)
            for action in actions:
                node.children.setdefault((actor, repr(action)), Node()).available += 1
            fresh = [a for a in actions if node.children[(actor, repr(a))].visits == 0]
            if fresh:
                action = self.rng.choice(fresh)
            else:
                action = max(actions, key=lambda a: self._ucb(node.children[(actor, repr(a))]))
            node = node.children[(actor, repr(action))]
            state = HORNSWOGGLE.apply(state, actor, action)
            path.append((node, actor))
            if fresh:
                break
            actor = HORNSWOGGLE.to_act(state)[0] if HORNSWOGGLE.to_act(state) else actor
        state = self._playout(state, start)
        rewards = (reward(state, 0), reward(state, 1))
        for visited, mover in path:
            visited.visits += 1
            visited.total += rewards[mover % 2]

    def _ucb(self, node: Node) -> float:
        return node.total / node.visits + UCB * math.sqrt(math.log(max(1, node.available)) / node.visits)

    def _ended(self, state: HornState, start: int) -> bool:
        return HORNSWOGGLE.outcome(state) is not None or state.round >= start + ISMCTS_ROUNDS

    def _playout(self, state: HornState, start: int) -> HornState:
        while not self._ended(state, start):
            actor = HORNSWOGGLE.to_act(state)[0]
            legal = HORNSWOGGLE.legal_actions(state, actor)
            state = HORNSWOGGLE.apply(state, actor, legal[self.rng.randrange(len(legal))])
        return state


# -- matches ----------------------------------------------------------------------------------


def make(level: str, seed: int) -> Bot:
    """A bot of ``level`` (the bench's own ``ismcts``, or a registered level)."""
    if level == "ismcts":
        return IsmctsBot(seed=seed)
    return make_bot("hornswoggle", level, seed=seed)


def play(
    bots: list[Bot],
    seed: int,
    timed: Callable[[int, float], None] = lambda s, t: None,
    watch: Callable[[HornState, int, HornAction, HornState], None] = lambda b, s, a, n: None,
    clock: Callable[[], float] = time.perf_counter,
) -> int:
    """Play one match; returns the winning team (0 for p0/p2, 1 for p1/p3). ``timed`` is given
    each decision's time by ``clock``; ``watch`` sees each action with the full states before
    and after it."""
    rng = random.Random(seed)
    state = HORNSWOGGLE.initial({"garnets": [1, 1, 1, 1]}, {})
    for _ in range(MAX_ACTIONS):
        seats = HORNSWOGGLE.to_act(state)
        if not seats:
            break
        seat = rng.choice(seats)
        start = clock()
        action: Any = bots[seat].choose(state, seat)
        timed(seat, clock() - start)
        before, state = state, HORNSWOGGLE.apply(state, seat, action)
        watch(before, seat, action, state)
    outcome = HORNSWOGGLE.outcome(state)
    assert outcome is not None, "a match always ends"
    return outcome.winner % 2 if outcome.winner is not None else -1


@dataclass
class Timer:
    """Collects the decision times of some seats."""

    seats: set[int]
    times: list[float]

    def __call__(self, seat: int, seconds: float) -> None:
        if seat in self.seats:
            self.times.append(seconds)


@dataclass
class Row:
    """One line-up's result."""

    wins: int
    matches: int
    times: list[float]
    skulls: SkullBids  # the tested team's captains' bids past their own skull
    nets: list[int]  # per match, the net cards of its skull-bid rounds
    bluff_nets: list[int]  # ...of those whose skull bids were all bluffs
    passing_nets: list[int]  # per match, the skull bids' net against passing


def line_up(team: tuple[str, str], others: tuple[str, str], matches: int, offset: int) -> Row:
    """Matches won by ``team`` (its two levels) against ``others``, sides alternating."""
    wins, times, nets, bluff_nets, passing_nets = 0, list[float](), list[int](), list[int](), list[int]()
    skulls = SkullBids(set())
    for match in range(matches):
        seed = offset + match
        side = match % 2
        levels = [""] * 4
        for index, seat in enumerate(team_of(side)):
            levels[seat] = team[index]
        for index, seat in enumerate(team_of(1 - side)):
            levels[seat] = others[index]
        bots = [make(level, seed * 4 + s) for s, level in enumerate(levels)]
        smart = {s for s in team_of(side) if levels[s] != "random"}
        skulls.seats = {s for s in team_of(side) if levels[s] == "captain"}
        net_before, bluff_before, passing_before = skulls.net, skulls.bluff_net, skulls.against_passing
        wins += play(bots, seed, Timer(smart, times), skulls.watch) == side
        nets.append(skulls.net - net_before)
        bluff_nets.append(skulls.bluff_net - bluff_before)
        passing_nets.append(skulls.against_passing - passing_before)
    return Row(wins, matches, times, skulls, nets, bluff_nets, passing_nets)


ROWS = {
    "captain-random": (("captain", "captain"), ("random", "random")),
    "captain-pirate": (("captain", "captain"), ("pirate", "pirate")),
    "captain-ismcts": (("captain", "captain"), ("ismcts", "ismcts")),
    "captain+random": (("captain", "random"), ("random", "random")),
    "captain-captain": (("captain", "captain"), ("captain", "captain")),
    "pirate-random": (("pirate", "pirate"), ("random", "random")),
    "pirate+random": (("pirate", "random"), ("random", "random")),
    "ismcts-pirate": (("ismcts", "ismcts"), ("pirate", "pirate")),
    "random-random": (("random", "random"), ("random", "random")),
}
DEFAULT_ROWS = "captain-random,captain-pirate,captain-ismcts,captain+random,pirate-random,pirate+random"


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--rows", default=DEFAULT_ROWS, help=f"any of {', '.join(ROWS)}")
    parser.add_argument("--offset", type=int, default=1000, help="the first match's seed")
    args = parser.parse_args()
    print("| line-up (tested team first) | matches | wins | 95% interval | decision s (median, max) |")
    print("|---|---|---|---|---|")
    rows: list[tuple[str, Row]] = []
    for name in args.rows.split(","):
        team, others = ROWS[name]
        row = line_up(team, others, args.matches, args.offset)
        low, high = wilson(row.wins / row.matches if row.matches else 0.0, row.matches)
        timing = f"{statistics.median(row.times):.4f}, {max(row.times):.3f}" if row.times else "-"
        title = f"{' + '.join(team)} vs {' + '.join(others)}"
        rows.append((title, row))
        print(
            f"| {title} | {row.matches} | {row.wins / row.matches:.1%} | {low:.1%}-{high:.1%} | {timing} |",
            flush=True,
        )
    print_skull_bids([(title, row) for title, row in rows if row.skulls.bids])


def print_skull_bids(rows: list[tuple[str, Row]]) -> None:
    """The tested captains' bids past their own skull (bench/hornswoggle_skull_bids.py defines
    them), with the net cards per match and its 95% normal interval."""
    if not rows:
        return
    print()
    print(
        "| line-up | bids | past own skull | on top | forced | blocks (covered) | own skull flipped (cards) "
        "| raised into a loss | raised and made | net cards per match | bluff rounds | bluff net per match "
        "| net against passing per match |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for title, row in rows:
        k = row.skulls
        print(
            f"| {title} | {k.bids} | {k.past_skull} ({k.past_skull / k.bids:.0%}) | {k.on_top} | {k.forced} "
            f"| {k.blocks} ({k.covered}) | {k.own_flips} ({k.own_flip_cards}) "
            f"| {k.raised_into_loss} | {k.raised_and_made} "
            f"| {interval(row.nets)} | {k.bluff_rounds} | {interval(row.bluff_nets)} "
            f"| {interval(row.passing_nets)} |"
        )


def interval(values: list[int]) -> str:
    """The mean of ``values`` with its 95% normal interval."""
    if len(values) < 2:
        return f"{values[0] if values else 0:+.2f}"
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}]"


if __name__ == "__main__":
    main()
