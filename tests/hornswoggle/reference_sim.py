"""A straightforward simulator and search for the captain, as they were before they were made fast
(issue 49): every count summed when asked, a new ``random.Random(seed)`` for every playout, the
guesses drawn from the weights. The tests hold the fast ones to exactly these decisions.

The heuristic policy itself (``policy`` and the functions it calls) is shared with
:mod:`p2pgenius.games.hornswoggle.search`: what differs, and so what is checked, is the machinery
under it (the table, its counters, copies, legality, settling, the random numbers, the draws) and
the skull and success chances, which are checked against :func:`reference_success` here.
"""

from __future__ import annotations

import random
from typing import cast

from p2pgenius.games.hornswoggle.actions import SKULL
from p2pgenius.games.hornswoggle.search import (
    BIDDING,
    DONE,
    FLIPPING,
    MIN_SAMPLES,
    OPEN_SKULL,
    PARTNER_BIAS,
    PASSER_BIAS,
    PLAIN_STYLE,
    STRETCH_AT,
    TURNS,
    CaptainBot,
    D,
    Guesser,
    Memory,
    S,
    SimAction,
    SimTable,
    Style,
    _public,
    candidates,
    clean_top,
    discard_choice,
    expected_skulls,
    past_own_skull,
    policy,
    priced_bluffs,
    value,
)
from p2pgenius.games.hornswoggle.state import HornState


class RefTable:
    """The simulator's table with nothing kept but the cards: sizes and counts are summed."""

    def __init__(self) -> None:
        self.hand: list[list[int]] = [[0, 0] for _ in range(4)]
        self.pile: list[list[int]] = [[] for _ in range(4)]
        self.shown = [0, 0, 0, 0]
        self.out = [False] * 4
        self.garnets = [0, 0, 0, 0]
        self.passed = [False] * 4
        self.phase, self.current, self.bid = TURNS, 0, 0
        self.bidder, self.challenger, self.insured = -1, -1, False
        self.flips, self.success = 0, False

    def copy(self) -> RefTable:
        """An independent copy (every list copied)."""
        other = RefTable()
        other.hand = [list(h) for h in self.hand]
        other.pile = [list(p) for p in self.pile]
        other.shown, other.out = list(self.shown), list(self.out)
        other.garnets, other.passed = list(self.garnets), list(self.passed)
        other.phase, other.current, other.bid = self.phase, self.current, self.bid
        other.bidder, other.challenger, other.insured = self.bidder, self.challenger, self.insured
        other.flips, other.success = self.flips, self.success
        return other

    @property
    def size(self) -> int:
        """Cards on the table."""
        return sum(len(p) for p in self.pile)

    @property
    def held(self) -> list[int]:
        """Cards per seat, hand and pile."""
        return [self.hand[s][0] + self.hand[s][1] + len(self.pile[s]) for s in range(4)]

    def cards(self, seat: int) -> int:
        """Cards ``seat`` still has (hand and pile)."""
        return self.hand[seat][0] + self.hand[seat][1] + len(self.pile[seat])

    def next_in(self, seat: int) -> int:
        """The next seat clockwise still in."""
        for step in range(1, 5):
            if not self.out[(seat + step) % 4]:
                return (seat + step) % 4
        return seat

    def flippable(self) -> list[int]:
        """The piles the challenger may flip now."""
        me = self.challenger
        if self.shown[me] < len(self.pile[me]):
            return [me]
        return [s for s in range(4) if s != me and self.shown[s] < len(self.pile[s])]

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

    def play(self, seat: int, action: SimAction) -> None:
        """Apply a legal action of ``seat``."""
        kind, value = action
        if kind == "place":
            self.hand[seat][value] -= 1
            self.pile[seat].append(value)
            self.current = self.next_in(seat)
        elif kind in ("bid", "pass"):
            if kind == "bid" and self.phase == TURNS:
                self.phase, self.passed = BIDDING, [False] * 4
            if kind == "bid":
                self.bid, self.bidder = value, seat
            else:
                self.passed[seat] = True
            self._after_bid(seat)
        elif kind == "insure":
            self.insured = True
            self.garnets[seat] -= 1
        else:
            self._flip(value)

    def _after_bid(self, seat: int) -> None:
        bidding = [s for s in range(4) if not self.out[s] and not self.passed[s] and s != self.bidder]
        if self.bid == self.size or not bidding:
            self.phase, self.challenger, self.current = FLIPPING, self.bidder, self.bidder
            return
        nxt = self.next_in(seat)
        while self.passed[nxt]:
            nxt = self.next_in(nxt)
        self.current = nxt

    def _flip(self, owner: int) -> None:
        pile = self.pile[owner]
        card = pile[len(pile) - 1 - self.shown[owner]]
        self.shown[owner] += 1
        if card == S:
            self.phase, self.success = DONE, False
            return
        self.flips += 1
        if self.flips == self.bid:
            self.phase, self.success = DONE, True

    def settle(self) -> None:
        """The piles go back to their owners and the losers discard."""
        for seat in range(4):
            for card in self.pile[seat]:
                self.hand[seat][card] += 1
            self.pile[seat] = []
            self.shown[seat] = 0
        me = self.challenger
        if self.success:
            losers = [s for s in range(4) if s % 2 != me % 2 and self.cards(s)]
        else:
            losers = [] if self.insured or not self.cards(me) else [me]
        for seat in losers:
            self.hand[seat][discard_choice(self.hand[seat])] -= 1


def fast(t: RefTable) -> SimTable:
    """The reference table where the search's functions want a :class:`SimTable` (it has every
    field they read)."""
    return cast(SimTable, t)


def reference_skull_chance(t: RefTable, seat: int, owner: int, style: Style = PLAIN_STYLE) -> float:
    """The chance that a face-down card of ``owner`` is a skull, as first written."""
    hidden = t.cards(owner) - t.shown[owner]
    if hidden <= 0:
        return 0.0
    base = expected_skulls(t.cards(owner)) / t.cards(owner)
    bias = PARTNER_BIAS if owner % 2 == seat % 2 else 1.0
    if owner in (t.bidder, t.challenger):
        bias *= style.bidder[owner]
    else:
        bias *= style.pile[owner]
        if t.phase == BIDDING and t.passed[owner]:
            bias *= PASSER_BIAS
    return min(0.95, base * bias)


def reference_success(t: RefTable, seat: int, bid: int, style: Style = PLAIN_STYLE) -> float:
    """The chance that ``seat`` flips ``bid`` doubloons, as first written."""
    own_left = len(t.pile[seat]) - t.shown[seat]
    need = bid - (t.flips if t.challenger == seat else 0)
    clean = clean_top(fast(t), seat)
    if need <= clean:
        return 1.0
    if clean < own_left:
        return 0.0
    need -= clean
    chances: list[float] = []
    for owner in range(4):
        if owner != seat:
            chances += [reference_skull_chance(t, seat, owner, style)] * (len(t.pile[owner]) - t.shown[owner])
    if len(chances) < need:
        return 0.0
    probability = 1.0
    for chance in sorted(chances)[:need]:
        probability *= 1.0 - chance
    return probability


def reference_best_bid(t: RefTable, seat: int, low: int, style: Style = PLAIN_STYLE) -> tuple[int, float]:
    """The best bid from ``low``, each bid's chance worked out from scratch."""
    best = (low, reference_success(t, seat, low, style))
    for bid in range(low + 1, t.size + 1):
        chance = reference_success(t, seat, bid, style)
        if chance >= 1.0 or chance >= STRETCH_AT:
            best = (bid, chance)
        else:
            break
    return best


def reference_playout(t: RefTable, rng: random.Random, styles: list[Style], noise: list[float]) -> None:
    """The round played out: a random action drawn from the whole legal list."""
    while t.phase != DONE:
        seat = t.current
        if rng.random() < noise[seat]:
            legal = t.legal(seat)
            action = legal[rng.randrange(len(legal))]
        else:
            action = policy(fast(t), seat, rng, styles[seat])
        t.play(seat, action)
    t.settle()


def reference_draw(guesser: Guesser, rng: random.Random, noise: list[float]) -> RefTable:
    """One guess of the table, drawn from the weights and built afresh."""
    t, state = RefTable(), guesser.state
    for owner, pirate in enumerate(state.pirates):
        t.out[owner], t.garnets[owner] = pirate.out, pirate.garnets
        t.shown[owner] = sum(c.flipped for c in pirate.pile)
        if owner == guesser.seat or owner not in guesser.configs:
            hand = pirate.hand or (0, 0)
            t.hand[owner] = [hand[0], hand[1]]
            t.pile[owner] = [S if c.card == SKULL else D for c in pirate.pile]
            continue
        options, weights = guesser.configs[owner]
        chosen, in_hand = rng.choices(options, weights)[0]
        t.pile[owner] = [
            S if (c.flipped and c.card == SKULL) or d in chosen else D for d, c in enumerate(pirate.pile)
        ]
        t.hand[owner] = [pirate.count - in_hand, in_hand]
    _public(fast(t), state)
    if state.phase == "opening":
        for owner in guesser.configs:
            if not state.pirates[owner].pile and t.hand[owner][D] + t.hand[owner][S] > 0:
                careless = noise[owner]
                lay(t, owner, rng.random() < OPEN_SKULL * (1 - careless) + 0.5 * careless)
    return t


def lay(t: RefTable, seat: int, skull: bool) -> None:
    """An opening card (a skull if asked and held, or the only kind held)."""
    card = S if (skull and t.hand[seat][S]) or not t.hand[seat][D] else D
    t.hand[seat][card] -= 1
    t.pile[seat].append(card)


class ReferenceCaptain(CaptainBot):
    """The captain with the reference machinery under its search."""

    def search(self, state: HornState, seat: int, memory: Memory) -> SimAction:
        """The candidate whose playouts score best, every playout on a new generator."""
        guesser = Guesser.of(state, seat, memory)
        style, noise = memory.style(seat), memory.noise()
        noise[seat] = 0.0
        opening = state.phase == "opening"
        t = reference_draw(guesser, self.rng, noise)
        options = [("place", D), ("place", S)] if opening else candidates(fast(t), seat, self.rng, style)
        options, worth = priced_bluffs(options, fast(t), seat, memory.answers)  # (as the captain's own)
        if len(options) == 1:
            return options[0]
        bluffs = (
            set() if worth is None else {i for i, o in enumerate(options) if past_own_skull(fast(t), seat, o)}
        )
        totals = [0.0] * len(options)
        styles = [style if s == seat else PLAIN_STYLE for s in range(4)]
        samples, now = max(MIN_SAMPLES, self.playouts // len(options)), 0.0
        for _ in range(samples):
            guess = reference_draw(guesser, self.rng, noise)
            seed = self.rng.getrandbits(32)
            now += value(fast(guess), seat)
            for index, option in enumerate(options):
                if index in bluffs:
                    continue
                trial = guess.copy()
                if opening:
                    lay(trial, seat, option[1] == S)
                else:
                    trial.play(seat, option)
                reference_playout(trial, random.Random(seed), styles, noise)
                totals[index] += value(fast(trial), seat)
        for index in bluffs:
            totals[index] = now + samples * (worth or 0.0)
        return options[max(range(len(options)), key=lambda i: (totals[i], -i))]
