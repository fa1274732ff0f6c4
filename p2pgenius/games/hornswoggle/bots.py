"""Hornswoggle's bot levels: ``captain`` (the default) and ``pirate`` (weaker, kept as a level).

Both first reduce the state to what their own seat may know (``perspective``), so a hidden card is
never read even when the bot is handed the full state, or holds its partner's seat too: a partner's
pile is guessed like any other.

``captain`` (:mod:`p2pgenius.games.hornswoggle.search`) chooses its role each round. Its heuristic
keeps its own pile clean, so that a bid no larger than that pile is a sure success (it starts the
challenge with one, and takes over a cheap enemy bid with one), and lays a skull as a trap on top,
last, rather than under its doubloons; it flips the safest piles first and insures long shots. It
remembers, per match and per seat, what each pirate showed: skulls met in its pile, a challenger's
own skull (a bluff), bids far past the bidder's own pile (a loose bidder), and how each opponent
answered its team's bids (passed, or raised within or past its own pile). A bid past a skull of
its own pile, which it could never make itself, is worth what those answers say
(:mod:`p2pgenius.games.hornswoggle.bluff`), not what its playouts guess: against opponents that
let its bids stand it does not bluff, though it may still raise an opponent's likely bid to block
it. Its decisions with a choice (the opening card, add or bid, raise or pass, which pile to flip,
Bluff Insurance) are searched: it draws every other seat's hidden cards from weighted guesses (a
prior on what its discards were, a bidder's pile likely clean, a passer's less so, that pirate's
history), plays each candidate out to the end of the round with its heuristic for every seat (a loose bidder
playing at random as often as its history says), and keeps the candidate with the best average
of cards kept and taken. The search, not the heuristic, picks the opening card: in the benches it
opens with a skull in about half the rounds, more against loose bidders, and it challenges far
more than the pirate (about six times a match each against pirates). Work is capped by playout
counts, never by time (median decision a few hundredths of a second); it is deterministic for its
seed.

``pirate`` is a probabilistic reasoner without search or memory. Each round its opening card picks
a role. An *attacker* keeps an all-doubloon pile: the challenger flips its own pile first, so it
can bid that many for certain, and more when the other piles look safe. A *defender* opens with a
skull (90% of rounds) and adds cards while others bid. To judge a bid it estimates, for each
face-down card of another seat, the chance of a skull: the skulls that seat can still hold over its
hidden cards, made smaller for a partner and for a seat that bid, larger for a seat that passed. It
flips the safest piles first and buys Bluff Insurance when the odds are poor. Measured in
bench/hornswoggle_bots.py.
"""

from __future__ import annotations

import random
from typing import Final

from p2pgenius.games.catalog import BotLevels
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
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.search import INSURE_BELOW, CaptainBot
from p2pgenius.games.hornswoggle.state import HornState, perspective

START_SKULLS: Final = 2
PARTNER_SKULL_BIAS: Final = 0.8
OPPONENT_SKULL_BIAS: Final = 1.0
BIDDER_SKULL_BIAS: Final = 0.3  # a bidder is showing doubloons on its own pile
PASSER_SKULL_BIAS: Final = 1.3
CHALLENGE_AT: Final = 0.5  # open or raise when this likely to succeed
DEFEND: Final = 0.9  # how often the opening card is a skull (when holding both kinds)
ATTACK_PILE: Final = 2  # an attacker bids once its own pile is this high...
ATTACK_TABLE: Final = 4  # ...or the table this full


class PirateBot:
    """The ``pirate`` level: a heuristic without search or memory."""

    level = "pirate"

    def __init__(self, *, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: HornState, seat: int) -> HornAction:
        """An action for ``seat`` from what ``seat`` may know."""
        state = perspective(state, [seat])
        phase = state.phase
        if phase == "order":
            return Order(self._first_player(seat))
        if phase == "opening":
            return Place(self._card_to_lay(state, seat, opening=True))
        if phase == "turns":
            return self._turn(state, seat)
        if phase == "bidding":
            return self._bidding(state, seat)
        if phase == "flipping":
            return self._flip(state, seat)
        return Discard(self._card_to_discard(state, seat))

    def _first_player(self, seat: int) -> int:
        return seat  # starting first means choosing first whether to bid

    def _card_to_lay(self, state: HornState, seat: int, *, opening: bool) -> str:
        hand = state.pirates[seat].hand
        assert hand is not None
        doubloons, skulls = hand
        if skulls == 0:
            return DOUBLOON
        if doubloons == 0:
            return SKULL
        # Each round the opening card sets a role. An attacker keeps an all-doubloon pile: its
        # own pile is flipped first, so it can bid that many for sure. A defender lays a skull
        # as a trap for whoever challenges; its own challenges are then dead, so it adds
        # freely and lets others bid.
        if opening:
            return SKULL if self.rng.random() < DEFEND else DOUBLOON
        defending = any(c.card == SKULL for c in state.pirates[seat].pile)
        return SKULL if defending and self.rng.random() < 0.5 else DOUBLOON

    def skull_chance(self, state: HornState, seat: int, owner: int) -> float:
        """The chance that a face-down card of ``owner`` is a skull, as ``seat`` sees it."""
        pirate = state.pirates[owner]
        seen = sum(1 for c in pirate.pile if c.flipped and c.card == SKULL)
        hidden = pirate.count + sum(1 for c in pirate.pile if not c.flipped)
        if hidden == 0:
            return 0.0
        base = min(1.0, max(0, START_SKULLS - seen) / hidden)
        bias = PARTNER_SKULL_BIAS if owner % 2 == seat % 2 else OPPONENT_SKULL_BIAS
        if owner in (state.bidder, state.challenger):
            bias *= BIDDER_SKULL_BIAS  # a bidder is showing doubloons on its own pile
        elif state.passed[owner]:
            bias *= PASSER_SKULL_BIAS
        return min(0.95, base * bias)

    def success(self, state: HornState, seat: int, bid: int) -> float:
        """The chance of flipping ``bid`` doubloons, own pile first, then the safest piles."""
        own = state.pirates[seat].pile
        needed = bid
        for card in reversed(own):  # top first
            if needed == 0:
                break
            if card.card == SKULL:
                return 0.0
            needed -= 1
        if needed == 0:
            return 1.0
        options: list[float] = []
        for owner, pirate in enumerate(state.pirates):
            if owner == seat:
                continue
            chance = self.skull_chance(state, seat, owner)
            options += [chance] * sum(1 for c in pirate.pile if not c.flipped)
        if len(options) < needed:
            return 0.0
        probability = 1.0
        for chance in sorted(options)[:needed]:
            probability *= 1.0 - chance
        return probability

    def _best_bid(self, state: HornState, seat: int, low: int) -> tuple[int, float]:
        best = (low, self.success(state, seat, low))
        for bid in range(low + 1, state.table + 1):
            chance = self.success(state, seat, bid)
            if chance >= CHALLENGE_AT:
                best = (bid, chance)
        return best

    def _turn(self, state: HornState, seat: int) -> HornAction:
        me = state.pirates[seat]
        bid, chance = self._best_bid(state, seat, 1)
        attacking = bool(me.pile) and all(c.card == DOUBLOON for c in me.pile)
        ready = len(me.pile) >= ATTACK_PILE or state.table >= ATTACK_TABLE
        if me.count == 0 or (attacking and ready and chance >= CHALLENGE_AT):
            return Bid(bid)
        return Place(self._card_to_lay(state, seat, opening=False))

    def _bidding(self, state: HornState, seat: int) -> HornAction:
        if state.bid >= state.table:
            return Pass()
        bid, chance = self._best_bid(state, seat, state.bid + 1)
        partner_leads = state.bidder is not None and state.bidder % 2 == seat % 2
        margin = 0.15 if partner_leads else 0.0
        if chance >= CHALLENGE_AT + margin:
            return Bid(bid)
        return Pass()

    def _flip(self, state: HornState, seat: int) -> HornAction:
        legal = HORNSWOGGLE.legal_actions(state, seat)
        if any(isinstance(a, Insure) for a in legal):
            remaining = state.bid - state.flips
            if self.success(state, seat, remaining) < INSURE_BELOW:
                return Insure()
        piles = [a.pile for a in legal if isinstance(a, Flip)]
        return Flip(min(piles, key=lambda pile: (self.skull_chance(state, seat, pile), pile)))

    def _card_to_discard(self, state: HornState, seat: int) -> str:
        hand = state.pirates[seat].hand
        assert hand is not None
        doubloons, skulls = hand
        if doubloons == 0:
            return SKULL
        if skulls == 0:
            return DOUBLOON
        # Keep one skull to bluff with while doubloons are plenty; doubloons win challenges.
        return SKULL if skulls > 1 or doubloons <= 2 else DOUBLOON


BOTS: Final = BotLevels({"captain": CaptainBot, "pirate": PirateBot})
"""Hornswoggle's bot levels (the first is its default)."""
