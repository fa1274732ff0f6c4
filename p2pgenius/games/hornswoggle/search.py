"""The ``captain`` bot's parts: a fast round simulator, a heuristic policy, a memory of what each
pirate showed, guesses of hidden cards that follow it, and the sampling search that ties them.

Nothing here reads a card its seat may not see: :class:`CaptainBot` first reduces the state with
``perspective(state, [seat])``; the guesses (:class:`Guesser`) then fill every other seat's unknown
cards, the partner's included, from public facts and the bot's memory only. The simulator
(:class:`SimTable`) plays the rest of one round on plain mutable lists (no frozen states copied per
action), with the engine's rules for turns, bidding, flipping and settling; the losers' discards
follow :func:`discard_choice`.

A searched decision draws a guess of the hidden cards, lets every candidate action (the
heuristic's own, each card it may add, pass, and the lowest, sure, sure-plus-one and heuristic
bids) play the round out from that same guess with the same random numbers, and repeats until
PLAYOUTS playouts are spent; the candidate with the best total of :func:`value` is played. A bid
past the seat's own skull is not played out but priced (:func:`bluff_worth`) from how the
opponents answered its team's bids so far: the playouts' opponents follow this bot's rules and
raise into a bluff far more readily than many real ones. Every
seat in a playout follows :func:`policy`, or a random legal action as often as its memory says it
bids loosely. Work is bounded by these counts, never by the clock.
"""

from __future__ import annotations

import math
import random
from bisect import bisect
from dataclasses import dataclass, field
from itertools import accumulate, combinations
from math import comb
from typing import Final

from p2pgenius.games.hornswoggle.actions import (
    DOUBLOON,
    SKULL,
    Bid,
    Discard,
    Flip,
    HornAction,
    Insure,
    Order,
    Pass,
    Place,
)
from p2pgenius.games.hornswoggle.bluff import Answers, bluff_value
from p2pgenius.games.hornswoggle.state import HornState, perspective

D: Final = 0  # a doubloon, in the simulator
S: Final = 1  # a skull
TURNS, BIDDING, FLIPPING, DONE = 0, 1, 2, 3
START: Final = (4, 2)
CLOCKWISE: Final = tuple(tuple((seat + step) % 4 for step in range(1, 5)) for seat in range(4))

# The heuristic policy (set by judgment, checked with bench/hornswoggle_bots.py; not tuned finely).
RAISE_AT: Final = 0.5  # raise an opponent's bid when this likely to succeed
STRETCH_AT: Final = 0.8  # bid past one's own clean pile when this likely to succeed
INSURE_BELOW: Final = 0.8
OPEN_SKULL: Final = 0.1  # how often a careful pirate is guessed to open with a skull
TRAP: Final = 0.2  # how often an attacker turns defender by laying its skull on top
PARTNER_BIAS: Final = 0.8
BIDDER_BIAS: Final = 0.3  # a bidder is showing doubloons on its own pile...
PASSER_BIAS: Final = 1.3  # ...and one that passed may be hiding a skull
NOISE: Final = 0.1  # how often a simulated pirate plays a random legal action

# The search.
PLAYOUTS: Final = 300  # playouts per searched decision (shared among the candidates)
MIN_SAMPLES: Final = 12  # guesses of the hidden cards per candidate, at least
OUT_BONUS: Final = 2.0  # a pirate still in is worth this many cards more
WIN: Final = 30.0

SimAction = tuple[str, int]  # ("place", card), ("bid", n), ("pass", 0), ("flip", pile), ("insure", 0)


class SimTable:
    """One round from the first add-or-bid on, on mutable lists (cards: D or S; pile tops last).

    ``size`` (cards on the table) and ``held`` (each seat's cards, hand and pile) are counters
    kept by the methods that move cards (:meth:`play`, :meth:`lay`, :meth:`settle`): a playout
    reads them thousands of times, and summing the piles each time was most of its cost."""

    __slots__ = (
        "bid",
        "bidder",
        "challenger",
        "current",
        "flips",
        "garnets",
        "hand",
        "held",
        "insured",
        "out",
        "passed",
        "phase",
        "pile",
        "shown",
        "size",
        "success",
    )

    def __init__(self) -> None:
        self.hand: list[list[int]] = [[0, 0] for _ in range(4)]
        self.pile: list[list[int]] = [[] for _ in range(4)]
        self.shown = [0, 0, 0, 0]  # flipped cards per pile (from the top)
        self.held = [0, 0, 0, 0]  # cards per seat, hand and pile (changes only with a discard)
        self.size = 0  # cards on the table
        self.out = [False] * 4
        self.garnets = [0, 0, 0, 0]
        self.passed = [False] * 4
        self.phase = TURNS
        self.current = 0
        self.bid = 0
        self.bidder = -1
        self.challenger = -1
        self.insured = False
        self.flips = 0
        self.success = False

    def copy(self) -> SimTable:
        """An independent copy."""
        other = SimTable.__new__(SimTable)
        hand, pile = self.hand, self.pile
        other.hand = [hand[0][:], hand[1][:], hand[2][:], hand[3][:]]
        other.pile = [pile[0][:], pile[1][:], pile[2][:], pile[3][:]]
        other.shown = self.shown[:]
        other.held = self.held[:]
        other.size = self.size
        other.out = self.out[:]
        other.garnets = self.garnets[:]
        other.passed = self.passed[:]
        other.phase, other.current, other.bid = self.phase, self.current, self.bid
        other.bidder, other.challenger, other.insured = self.bidder, self.challenger, self.insured
        other.flips, other.success = self.flips, self.success
        return other

    def set_cards(self, seat: int, hand: list[int], pile: list[int]) -> None:
        """Give ``seat`` these cards (the counters follow)."""
        self.size += len(pile) - len(self.pile[seat])
        self.hand[seat], self.pile[seat] = hand, pile
        self.held[seat] = hand[0] + hand[1] + len(pile)

    def lay(self, seat: int, card: int) -> None:
        """``seat`` adds ``card`` from its hand onto its pile."""
        self.hand[seat][card] -= 1
        self.pile[seat].append(card)
        self.size += 1

    def cards(self, seat: int) -> int:
        """Cards ``seat`` still has (hand and pile)."""
        return self.held[seat]

    def next_in(self, seat: int) -> int:
        """The next seat clockwise still in."""
        out = self.out
        for candidate in CLOCKWISE[seat]:
            if not out[candidate]:
                return candidate
        return seat

    def flippable(self) -> list[int]:
        """The piles the challenger may flip now."""
        me, shown, pile = self.challenger, self.shown, self.pile
        if shown[me] < len(pile[me]):
            return [me]
        return [s for s in range(4) if s != me and shown[s] < len(pile[s])]

    def may_insure(self) -> bool:
        """Bluff Insurance is still on offer."""
        return not self.insured and self.garnets[self.challenger] > 0 and not any(self.shown)

    def legal(self, seat: int) -> list[SimAction]:
        """Every legal action of the seat to act."""
        if self.phase == TURNS:
            places = [("place", c) for c in (D, S) if self.hand[seat][c]]
            return places + [("bid", n) for n in range(1, self.size + 1)]
        if self.phase == BIDDING:
            return [("pass", 0)] + [("bid", n) for n in range(self.bid + 1, self.size + 1)]
        flips = [("flip", p) for p in self.flippable()]
        return flips + ([("insure", 0)] if self.may_insure() else [])

    def random_action(self, seat: int, rng: random.Random) -> SimAction:
        """``legal(seat)[rng.randrange(len(legal(seat)))]``, the same draw, without the list."""
        if self.phase == FLIPPING:
            piles = self.flippable()
            pick = rng.randrange(len(piles) + self.may_insure())
            return ("flip", piles[pick]) if pick < len(piles) else ("insure", 0)
        if self.phase == BIDDING:
            pick = rng.randrange(1 + self.size - self.bid)
            return ("bid", self.bid + pick) if pick else ("pass", 0)
        hand = self.hand[seat]
        places = (hand[D] > 0) + (hand[S] > 0)  # a doubloon first, as in legal()
        pick = rng.randrange(places + self.size)
        if pick < places:
            return ("place", D if pick == 0 and hand[D] else S)
        return ("bid", pick - places + 1)

    def play(self, seat: int, action: SimAction) -> None:
        """Apply a legal action of ``seat``."""
        kind, value = action
        if kind == "flip":
            pile = self.pile[value]
            card = pile[len(pile) - 1 - self.shown[value]]
            self.shown[value] += 1
            if card == S:
                self.phase, self.success = DONE, False
            else:
                self.flips += 1
                if self.flips == self.bid:
                    self.phase, self.success = DONE, True
        elif kind == "place":
            self.lay(seat, value)
            self.current = self.next_in(seat)
        elif kind == "bid":
            if self.phase == TURNS:
                self.phase, self.passed = BIDDING, [False] * 4
            self.bid, self.bidder = value, seat
            self._after_bid(seat)
        elif kind == "pass":
            self.passed[seat] = True
            self._after_bid(seat)
        else:  # insure
            self.insured = True
            self.garnets[seat] -= 1

    def _after_bid(self, seat: int) -> None:
        """The next seat to bid, or the challenge once the bid is the table or all others passed."""
        out, passed, bidder = self.out, self.passed, self.bidder
        if self.bid != self.size:
            for other in range(4):
                if not (out[other] or passed[other] or other == bidder):
                    nxt = self.next_in(seat)
                    while passed[nxt]:
                        nxt = self.next_in(nxt)
                    self.current = nxt
                    return
        self.phase, self.challenger, self.current = FLIPPING, bidder, bidder

    def settle(self) -> None:
        """The piles go back to their owners and the losers discard (the heuristic's choice)."""
        hand, held = self.hand, self.held
        for seat, pile in enumerate(self.pile):
            if pile:
                cards = hand[seat]
                skulls = pile.count(S)
                cards[S] += skulls
                cards[D] += len(pile) - skulls
        self.pile, self.shown, self.size = [[], [], [], []], [0, 0, 0, 0], 0
        me = self.challenger
        if self.success:
            for seat in range(4):
                if seat % 2 != me % 2 and held[seat]:
                    self._discard(seat)
        elif not self.insured and held[me]:
            self._discard(me)

    def _discard(self, seat: int) -> None:
        self.hand[seat][discard_choice(self.hand[seat])] -= 1
        self.held[seat] -= 1


# -- the heuristic policy ------------------------------------------------------------------------


@dataclass
class Style:
    """What a seat expects of the others' piles: a skull factor per owner, as a bidder and not."""

    pile: list[float] = field(default_factory=lambda: [1.0] * 4)
    bidder: list[float] = field(default_factory=lambda: [BIDDER_BIAS] * 4)


PLAIN_STYLE: Final = Style()


def expected_skulls(cards: int) -> float:
    """How many skulls a pirate with ``cards`` cards likely holds (losers tend to keep one)."""
    return min(2, cards) * (cards + 3) / 9


SKULL_SHARE: Final = tuple(expected_skulls(cards) / cards if cards else 0.0 for cards in range(13))
"""``expected_skulls(cards) / cards`` for the usual counts (a table: a playout asks often)."""


def skull_chance(t: SimTable, seat: int, owner: int, style: Style = PLAIN_STYLE) -> float:
    """The chance that a face-down card of ``owner`` is a skull, from public facts only."""
    cards = t.held[owner]
    if cards <= t.shown[owner]:
        return 0.0
    base = SKULL_SHARE[cards] if cards < len(SKULL_SHARE) else expected_skulls(cards) / cards
    bias = PARTNER_BIAS if owner % 2 == seat % 2 else 1.0
    if owner in (t.bidder, t.challenger):
        bias *= style.bidder[owner]
    else:
        bias *= style.pile[owner]
        if t.phase == BIDDING and t.passed[owner]:
            bias *= PASSER_BIAS
    chance = base * bias
    return chance if chance < 0.95 else 0.95  # (min(0.95, chance), without the call)


def clean_top(t: SimTable, seat: int) -> int:
    """How many doubloons lie on top of ``seat``'s own pile before its first skull (unflipped)."""
    pile = t.pile[seat]
    count = 0
    for index in range(len(pile) - 1 - t.shown[seat], -1, -1):
        if pile[index] == S:
            break
        count += 1
    return count


def success(t: SimTable, seat: int, bid: int, style: Style = PLAIN_STYLE) -> float:
    """The chance that ``seat`` flips ``bid`` doubloons in all (own pile first, then the safest)."""
    return bid_chances(t, seat, bid, bid, style)[0]


def safest_cards(t: SimTable, seat: int, style: Style = PLAIN_STYLE) -> list[tuple[float, int]]:
    """The other piles' face-down cards as (skull chance, how many), safest first."""
    pile, shown = t.pile, t.shown
    found = []
    for owner in range(4):
        left = len(pile[owner]) - shown[owner]
        if left > 0 and owner != seat:
            found.append((skull_chance(t, seat, owner, style), left))
    found.sort()
    return found


def bid_chances(t: SimTable, seat: int, low: int, high: int, style: Style = PLAIN_STYLE) -> list[float]:
    """The chance that ``seat`` flips each bid from ``low`` to ``high`` in all (own pile first,
    then the safest; :func:`success` is one bid's): 1 while the seat's own clean top
    (and its flips so far) covers the bid; 0 once its own skull would come first, or the cards
    run out; else the chance that none of the others' safest cards it needs is a skull. The
    other piles' odds are worked out once for all the bids."""
    clean = clean_top(t, seat)
    first = low - (t.flips if t.challenger == seat else 0)  # the flips bid ``low`` needs
    count = high - low + 1
    sure = min(count, max(0, clean - first + 1))  # the bids that need no more than ``clean``
    chances = [1.0] * sure
    if sure < count and clean == len(t.pile[seat]) - t.shown[seat]:  # (else its own skull is next)
        skip = first + sure - clean - 1  # the others' cards flipped before the first bid not sure
        probability = 1.0
        for chance, cards in safest_cards(t, seat, style):
            for _ in range(cards):
                probability *= 1.0 - chance
                if skip:
                    skip -= 1
                    continue
                chances.append(probability)
                if len(chances) == count:
                    return chances
    return chances + [0.0] * (count - len(chances))


def best_bid(t: SimTable, seat: int, low: int, style: Style = PLAIN_STYLE) -> tuple[int, float]:
    """The highest bid from ``low`` that is sure, or else likely (STRETCH_AT), with its chance."""
    chances = bid_chances(t, seat, low, max(low, t.size), style)
    best = (low, chances[0])
    for bid in range(low + 1, t.size + 1):
        chance = chances[bid - low]
        if chance >= 1.0 or chance >= STRETCH_AT:
            best = (bid, chance)
        else:
            break
    return best


def discard_choice(hand: list[int]) -> int:
    """Keep one skull to trap with while doubloons are plenty; doubloons win challenges."""
    doubloons, skulls = hand
    if doubloons == 0:
        return S
    if skulls == 0:
        return D
    return S if skulls > 1 or doubloons <= 1 else D


def lay_choice(t: SimTable, seat: int, rng: random.Random) -> int:
    """The card to add: an attacker keeps its pile clean, sometimes it lays the trap on top."""
    doubloons, skulls = t.hand[seat]
    if not skulls:
        return D
    if not doubloons:
        return S
    clean = clean_top(t, seat) == len(t.pile[seat])
    if clean:
        return S if rng.random() < TRAP else D
    return S if t.pile[seat][-1] == D else D  # a defender keeps a skull on top


def turn_policy(t: SimTable, seat: int, rng: random.Random, style: Style = PLAIN_STYLE) -> SimAction:
    """Add a card or bid."""
    in_hand = sum(t.hand[seat])
    clean = clean_top(t, seat)
    attacking = clean == len(t.pile[seat]) and clean > 0
    if attacking and (clean >= 2 or t.size >= 6 or not in_hand):
        return ("bid", best_bid(t, seat, 1, style)[0])
    if not in_hand:
        return ("bid", best_bid(t, seat, 1, style)[0] if attacking else 1)
    return ("place", lay_choice(t, seat, rng))


def bidding_policy(t: SimTable, seat: int, style: Style = PLAIN_STYLE) -> SimAction:
    """Raise or pass."""
    if t.bid >= t.size:
        return ("pass", 0)
    bid, chance = best_bid(t, seat, t.bid + 1, style)
    if t.bidder % 2 == seat % 2:
        # A partner's success is as good as ours: take over only with a sure bid past its pile.
        sure = chance >= 1.0 and t.bid > len(t.pile[t.bidder])
        return ("bid", bid) if sure else ("pass", 0)
    return ("bid", bid) if chance >= RAISE_AT else ("pass", 0)


def flip_policy(t: SimTable, seat: int, style: Style = PLAIN_STYLE) -> SimAction:
    """Insure a long shot; flip the safest pile."""
    if t.may_insure() and success(t, seat, t.bid, style) < INSURE_BELOW:
        return ("insure", 0)
    piles = t.flippable()
    return ("flip", min(piles, key=lambda p: (skull_chance(t, seat, p, style), p)))


def policy(t: SimTable, seat: int, rng: random.Random, style: Style = PLAIN_STYLE) -> SimAction:
    """The heuristic's action for the seat to act (it reads only that seat's own cards)."""
    if t.phase == TURNS:
        return turn_policy(t, seat, rng, style)
    if t.phase == BIDDING:
        return bidding_policy(t, seat, style)
    return flip_policy(t, seat, style)


def playout(t: SimTable, rng: random.Random, styles: list[Style], noise: list[float]) -> None:
    """Play the round to its end: every pirate plays the heuristic, or, as often as its noise
    says, a random legal action."""
    draw, random_action, play = rng.random, t.random_action, t.play
    while t.phase != DONE:
        seat = t.current
        if draw() < noise[seat]:
            play(seat, random_action(seat, rng))
        else:
            play(seat, policy(t, seat, rng, styles[seat]))
    t.settle()


def value(t: SimTable, seat: int) -> float:
    """How good the settled round is for ``seat``'s team (cards, and pirates still in)."""
    score = [float(c) + (OUT_BONUS if c else 0.0) for c in t.held]
    mine = score[seat % 2] + score[seat % 2 + 2]
    theirs = score[1 - seat % 2] + score[3 - seat % 2]
    if not theirs:
        return WIN + mine
    if not mine:
        return -WIN - theirs
    return mine - theirs


# -- memory ---------------------------------------------------------------------------------------


@dataclass
class Memory:
    """What one seat saw in one match: the cards each pirate showed and how it bid.

    ``rounds`` and ``discards`` only grow in a match; a state that goes back means a new match."""

    round: int = 0
    discards: tuple[int, ...] = (0, 0, 0, 0)
    seen: set[tuple[int, int, int]] = field(default_factory=set)  # (round, owner, depth) flipped
    hits: list[int] = field(default_factory=lambda: [0] * 4)  # skulls met in a pile (not its bidder's)
    tries: list[int] = field(default_factory=lambda: [0] * 4)  # piles flipped into (not the bidder's)
    bluffs: list[int] = field(default_factory=lambda: [0] * 4)  # own skull met as challenger
    challenges: list[int] = field(default_factory=lambda: [0] * 4)
    skull_floor: list[tuple[int, int]] = field(
        default_factory=lambda: [(0, 0)] * 4
    )  # (skulls, discards then)
    bidders: set[int] = field(default_factory=set)  # who bid this round
    bids: set[tuple[int, int, int]] = field(default_factory=set)  # (round, bidder, bid) seen
    wild: list[int] = field(default_factory=lambda: [0] * 4)  # bids far past the bidder's own pile
    counted: list[int] = field(default_factory=lambda: [0] * 4)  # bids seen
    answers: Answers = field(default_factory=Answers)  # how the opponents answered our team's bids

    def loose(self, seat: int) -> float:
        """How loosely a pirate bids, 0 to 1: the share of its bids far past its own pile (a
        random bot's are about half, a careful bot's few), with a prior of a few careful bids."""
        rate = (self.wild[seat] + 0.3 * 2) / (self.counted[seat] + 2)
        return min(1.0, max(0.0, (rate - 0.15) / 0.3))

    def noise(self) -> list[float]:
        """How often each pirate plays a random action in the playouts."""
        return [NOISE + (0.9 - NOISE) * self.loose(s) for s in range(4)]

    def style(self, seat: int) -> Style:
        """Skull factors from what each pirate showed (a prior of a few neutral rounds)."""
        pile = [(self.hits[s] + 0.35 * 3) / (self.tries[s] + 3) / 0.35 for s in range(4)]
        bidder = [BIDDER_BIAS * (self.bluffs[s] + 0.2 * 3) / (self.challenges[s] + 3) / 0.2 for s in range(4)]
        bidder = [b + (1 - b) * self.loose(s) for s, b in enumerate(bidder)]
        for s in self.bidders:
            pile[s] = min(pile[s], bidder[s])  # a pirate that bid this round showed confidence
        return Style(pile=pile, bidder=bidder)

    def floor(self, owner: int, discards: int) -> int:
        """Skulls ``owner`` surely still holds: shown earlier, less the discards since."""
        skulls, then = self.skull_floor[owner]
        return max(0, skulls - (discards - then))


def observe(memory: Memory, state: HornState) -> None:
    """Note what ``state`` shows: flipped cards, a challenge's last flip, the bidders."""
    discards = tuple(len(p.discarded) for p in state.pirates)
    if state.round != memory.round:
        memory.bidders = set()
        memory.round = state.round
    memory.discards = discards
    if state.bidder is not None:
        _bid_seen(memory, state, state.bidder)
    for owner, pirate in enumerate(state.pirates):
        skulls = 0
        for depth in range(len(pirate.pile) - 1, -1, -1):  # top first: the order of the flips
            card = pirate.pile[depth]
            if card.flipped:
                skulls += card.card == SKULL
                _flip_seen(memory, state, (state.round, owner, depth), skull=card.card == SKULL)
        if skulls:
            memory.skull_floor[owner] = (skulls, discards[owner])
    for event in state.events:
        if event.get("type") == "flip" and not any(p.pile for p in state.pirates):
            _last_flip(memory, state, event)


def _bid_seen(memory: Memory, state: HornState, bidder: int) -> None:
    memory.bidders.add(bidder)
    key = (state.round, bidder, state.bid)
    if key not in memory.bids:
        memory.bids.add(key)
        memory.counted[bidder] += 1
        memory.wild[bidder] += state.bid > len(state.pirates[bidder].pile) + 1


def _flip_seen(memory: Memory, state: HornState, key: tuple[int, int, int], *, skull: bool) -> None:
    if key not in memory.seen:
        memory.seen.add(key)
        _count(memory, state.challenger, key[1], skull, first=not _any_seen(memory, key))


def _any_seen(memory: Memory, key: tuple[int, int, int]) -> bool:
    rnd, owner, depth = key
    return any((rnd, owner, d) in memory.seen for d in range(depth + 1, 12))


def _count(memory: Memory, challenger: int | None, owner: int, skull: bool, *, first: bool) -> None:
    if owner == challenger:
        if first:
            memory.challenges[owner] += 1
        memory.bluffs[owner] += skull
        return
    if first:
        memory.tries[owner] += 1
    memory.hits[owner] += skull


def _last_flip(memory: Memory, state: HornState, event: dict[str, object]) -> None:
    """A challenge's last flip, seen only in the events once the piles went back."""
    rnd = state.round - (state.phase == "opening")
    owner, card, flipper = event.get("pile"), event.get("card"), event.get("seat")
    key = (rnd, owner if isinstance(owner, int) else -1, -1)
    if key in memory.seen or not isinstance(owner, int) or not isinstance(flipper, int):
        return
    memory.seen.add(key)
    skull = card == SKULL
    if skull:
        memory.skull_floor[owner] = (1, memory.discards[owner])
    _count(memory, flipper, owner, skull, first=not _any_seen(memory, key))


# -- guesses of hidden cards ---------------------------------------------------------------------


def _owner_configs(
    state: HornState, seat: int, owner: int, memory: Memory, style: Style
) -> tuple[list[tuple[frozenset[int], int]], list[float]]:
    """Every way to place ``owner``'s hidden skulls (pile depths that are skulls, skulls in hand)
    with its weight: the prior of its discards, times the skull factor of its behaviour."""
    pirate = state.pirates[owner]
    hidden_depths = [d for d, c in enumerate(pirate.pile) if not c.flipped]
    known = [c.card for c in pirate.pile if c.flipped]
    known_s = sum(c == SKULL for c in known)
    known_d = len(known) - known_s
    hand = pirate.count
    cards = hand + len(pirate.pile)
    lost = 6 - cards
    floor = memory.floor(owner, len(pirate.discarded))
    factor = style.bidder[owner] if owner in (state.bidder, state.challenger) else style.pile[owner]
    if owner % 2 == seat % 2:
        factor *= PARTNER_BIAS
    if state.phase == "bidding" and state.passed[owner]:
        factor *= PASSER_BIAS
    configs: list[tuple[frozenset[int], int]] = []
    weights: list[float] = []
    hidden = len(hidden_depths) + hand
    for skulls in range(max(known_s, floor), 3):
        doubloons = cards - skulls
        if doubloons < known_d or doubloons > START[0] or skulls - known_s > hidden:
            continue
        prior = comb(2, 2 - skulls) * comb(4, lost - (2 - skulls)) if lost >= 2 - skulls else 0
        if not prior:
            continue
        share = prior / comb(hidden, skulls - known_s)
        for size in range(min(skulls - known_s, len(hidden_depths)) + 1):
            in_hand = skulls - known_s - size
            if in_hand > hand:
                continue
            for chosen in combinations(hidden_depths, size):
                configs.append((frozenset(chosen), in_hand))
                weights.append(share * comb(hand, in_hand) * factor**size)
    if not configs:  # (facts this model cannot explain: fall back to any consistent split)
        configs.append((frozenset(), max(0, min(hand, 2 - known_s))))
        weights.append(1.0)
    return configs, weights


@dataclass
class Guesser:
    """Draws whole tables from one seat's point of view: its own cards as they are, everyone
    else's hidden cards from the weighted ways they may lie."""

    state: HornState
    seat: int
    configs: dict[int, tuple[list[tuple[frozenset[int], int]], list[float]]]
    base: SimTable = field(init=False)  # the table with what is known: copied for each guess
    cumulative: dict[int, list[float]] = field(init=False)  # configs' weights, added up
    cards: dict[int, list[tuple[list[int], list[int]]]] = field(init=False)  # configs' piles, hands

    def __post_init__(self) -> None:
        # Worked out once per decision, not per guess (see weighted_index).
        self.cumulative = {owner: list(accumulate(w)) for owner, (_, w) in self.configs.items()}
        if not all(0.0 < added[-1] < math.inf for added in self.cumulative.values()):
            raise ValueError("Total of weights must be greater than zero and finite")  # (as choices)
        self.cards = {
            owner: [self._cards(owner, c) for c in options] for owner, (options, _) in self.configs.items()
        }
        self.base = self._known()

    def _cards(self, owner: int, config: tuple[frozenset[int], int]) -> tuple[list[int], list[int]]:
        """``owner``'s pile and hand (doubloons, skulls) if its hidden skulls lie as ``config``."""
        chosen, skulls_in_hand = config
        pirate = self.state.pirates[owner]
        pile = [S if (c.flipped and c.card == SKULL) or d in chosen else D for d, c in enumerate(pirate.pile)]
        return pile, [pirate.count - skulls_in_hand, skulls_in_hand]

    @classmethod
    def of(cls, state: HornState, seat: int, memory: Memory) -> Guesser:
        style = memory.style(seat)
        configs = {
            owner: _owner_configs(state, seat, owner, memory, style)
            for owner in range(4)
            if owner != seat and not state.pirates[owner].out
        }
        return cls(state, seat, configs)

    def _known(self) -> SimTable:
        """The table without the guesses: every seat's public facts, the known seats' cards."""
        t = SimTable()
        for owner, pirate in enumerate(self.state.pirates):
            t.out[owner] = pirate.out
            t.garnets[owner] = pirate.garnets
            t.shown[owner] = sum(c.flipped for c in pirate.pile)
            if owner == self.seat or owner not in self.configs:
                hand = pirate.hand or (0, 0)
                t.set_cards(owner, [hand[0], hand[1]], [S if c.card == SKULL else D for c in pirate.pile])
        _public(t, self.state)
        return t

    def draw(self, rng: random.Random, noise: list[float] | None = None) -> SimTable:
        """One guess of the whole table (in the opening, with the others' opening cards laid as
        their noise says: a careful pirate opens with a skull as often as OPEN_SKULL)."""
        t = self.base.copy()
        pirates = self.state.pirates
        for owner, cards in self.cards.items():
            pile, hand = cards[weighted_index(rng, self.cumulative[owner])]
            t.set_cards(owner, hand[:], pile[:])
        if self.state.phase == "opening":
            for owner in self.configs:
                if not pirates[owner].pile and t.hand[owner][D] + t.hand[owner][S] > 0:
                    careless = (noise or [NOISE] * 4)[owner]
                    _lay(t, owner, rng.random() < OPEN_SKULL * (1 - careless) + 0.5 * careless)
        return t


def weighted_index(rng: random.Random, cumulative: list[float]) -> int:
    """``rng.choices(range(n), weights)[0]`` for weights whose running totals are ``cumulative``:
    the same number drawn and the same index found, the way random.choices finds it (the first
    running total above random() times the total), without adding up the weights each time."""
    return bisect(cumulative, rng.random() * (cumulative[-1] + 0.0), 0, len(cumulative) - 1)


def _lay(t: SimTable, seat: int, skull: bool) -> None:
    """An opening card (a skull if asked and held, or the only kind held)."""
    t.lay(seat, S if (skull and t.hand[seat][S]) or not t.hand[seat][D] else D)


def _public(t: SimTable, state: HornState) -> None:
    t.phase = {"turns": TURNS, "bidding": BIDDING, "flipping": FLIPPING, "opening": TURNS}.get(
        state.phase, DONE
    )
    t.current = state.current
    if state.phase == "opening":
        t.current = state.first if not state.pirates[state.first].out else t.next_in(state.first)
    t.bid = state.bid
    t.bidder = -1 if state.bidder is None else state.bidder
    t.challenger = -1 if state.challenger is None else state.challenger
    t.passed = list(state.passed)
    t.insured = state.insured
    t.flips = state.flips


# -- the bot -------------------------------------------------------------------------------------


def to_action(action: SimAction) -> HornAction:
    """The engine's action for a simulator action."""
    kind, value = action
    if kind == "place":
        return Place(SKULL if value == S else DOUBLOON)
    if kind == "bid":
        return Bid(value)
    if kind == "pass":
        return Pass()
    if kind == "insure":
        return Insure()
    return Flip(value)


def candidates(t: SimTable, seat: int, rng: random.Random, style: Style) -> list[SimAction]:
    """The few actions worth searching: the heuristic's, cards to add, sure and nearby bids."""
    legal = t.legal(seat)
    if t.phase == FLIPPING:
        return legal
    chosen: list[SimAction] = [policy(t, seat, rng, style)]
    chosen += [a for a in legal if a[0] in ("place", "pass")]
    low = 1 if t.phase == TURNS else t.bid + 1
    sure = low - 1
    while sure < t.size and success(t, seat, sure + 1, style) >= 1.0:
        sure += 1
    for bid in (low, sure, sure + 1, best_bid(t, seat, low, style)[0]):
        if low <= bid <= t.size:
            chosen.append(("bid", bid))
    return [a for i, a in enumerate(chosen) if a in legal and a not in chosen[:i]]


def past_own_skull(t: SimTable, seat: int, action: SimAction) -> bool:
    """Whether ``action`` is a bid past a skull of ``seat``'s own pile (which it would flip first)."""
    clean = clean_top(t, seat)
    return action[0] == "bid" and action[1] > clean and clean < len(t.pile[seat]) - t.shown[seat]


def bluff_worth(t: SimTable, seat: int, answers: Answers) -> float:
    """The cards a bid past ``seat``'s own skull is worth against how the opponents still in the
    bidding have answered its team's bids (:func:`bluff_value`), not against the playouts' guess."""
    answering = [
        o for o in range(4) if o % 2 != seat % 2 and not t.out[o] and not (t.phase == BIDDING and t.passed[o])
    ]
    holders = sum(1 for s in (seat, seat ^ 2) if t.cards(s))
    return bluff_value(answers, answering, holders)


def priced_bluffs(
    options: list[SimAction], t: SimTable, seat: int, answers: Answers
) -> tuple[list[SimAction], float | None]:
    """``options``, and what its bids past the seat's own skull are worth in cards (None: nothing
    to price). They are priced by how the opponents answered so far, not played out: the playouts'
    opponents follow this bot's rules, which raise into them far more than many pirates do. One
    that opens the bidding or raises the partner, a bluff, is kept only when that worth is
    positive; a raise over an opponent's bid, a block, is kept to be weighed against passing (which
    may let that opponent take a card from each of the team). With nothing else left (an empty
    hand) the bids are searched as any."""
    bluffs = [o for o in options if past_own_skull(t, seat, o)]
    if not bluffs or len(bluffs) == len(options):
        return options, None
    worth = bluff_worth(t, seat, answers)
    blocking = t.phase == BIDDING and t.bidder % 2 != seat % 2
    if worth > 0 or blocking:
        return options, worth
    return [o for o in options if o not in bluffs], None


class CaptainBot:
    """The strongest Hornswoggle level: a heuristic that searches its close calls."""

    level = "captain"

    def __init__(self, *, seed: int, playouts: int = PLAYOUTS) -> None:
        self.rng = random.Random(seed)
        self.playouts = playouts
        self.memories: dict[int, Memory] = {}

    def memory(self, state: HornState, seat: int) -> Memory:
        """This seat's memory of this match (a new one when the state went back: a new match)."""
        memory = self.memories.get(seat)
        discards = tuple(len(p.discarded) for p in state.pirates)
        if (
            memory is None
            or state.round < memory.round
            or any(now < then for now, then in zip(discards, memory.discards, strict=True))
        ):
            memory = self.memories[seat] = Memory()
        return memory

    def choose(self, state: HornState, seat: int) -> HornAction:
        """An action for ``seat`` from what ``seat`` may know."""
        state = perspective(state, [seat])
        memory = self.memory(state, seat)
        observe(memory, state)
        memory.answers.observe(state, seat)
        hand = state.pirates[seat].hand or (0, 0)
        if state.phase == "order":
            # Starting first means choosing first whether to bid (a partner, if this seat is out).
            return Order(next(s for s in (seat, seat ^ 2, seat ^ 1, seat ^ 3) if not state.pirates[s].out))
        if state.phase == "opening" and not (hand[0] and hand[1]):
            return Place(DOUBLOON if hand[0] else SKULL)
        if state.phase == "discarding":
            return Discard(SKULL if discard_choice([hand[0], hand[1]]) == S else DOUBLOON)
        action = self.search(state, seat, memory)
        if action[0] == "bid":
            memory.answers.our_bid(state)
        return to_action(action)

    def search(self, state: HornState, seat: int, memory: Memory) -> SimAction:
        """The candidate whose playouts, over guesses of the hidden cards, score best."""
        guesser = Guesser.of(state, seat, memory)
        style = memory.style(seat)
        noise = memory.noise()
        noise[seat] = 0.0
        opening = state.phase == "opening"
        t = guesser.draw(self.rng, noise)
        options = [("place", D), ("place", S)] if opening else candidates(t, seat, self.rng, style)
        options, worth = priced_bluffs(options, t, seat, memory.answers)
        if len(options) == 1:
            return options[0]
        bluffs = set() if worth is None else {i for i, o in enumerate(options) if past_own_skull(t, seat, o)}
        samples = max(MIN_SAMPLES, self.playouts // len(options))
        totals = [0.0] * len(options)
        styles = [style if s == seat else PLAIN_STYLE for s in range(4)]
        rng = random.Random()  # seeded again for each playout (as a new one would be, for less)
        now = 0.0  # the table's value as it stands, which a bluff's worth in cards moves
        for _ in range(samples):
            guess = guesser.draw(self.rng, noise)
            seed = self.rng.getrandbits(32)
            now += value(guess, seat)
            for index, option in enumerate(options):
                if index in bluffs:
                    continue
                trial = guess.copy()
                if opening:
                    _lay(trial, seat, option[1] == S)
                else:
                    trial.play(seat, option)
                if trial.phase != DONE:  # (a round the option ended draws no number: no seeding)
                    rng.seed(seed)  # every option plays out with the same random numbers
                playout(trial, rng, styles, noise)
                totals[index] += value(trial, seat)
        for index in bluffs:
            totals[index] = now + samples * (worth or 0.0)
        best = max(range(len(options)), key=lambda i: (totals[i], -i))
        return options[best]
