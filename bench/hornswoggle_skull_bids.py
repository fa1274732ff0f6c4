"""Counting, for bench/hornswoggle_bots.py, the bids a pirate makes past a skull of its own pile.

A bid is **past its own skull** when the bidder's pile holds a skull and the bid is more than the
doubloons lying on top of its topmost skull: were the bidder to become the challenger, its own pile
(flipped first, top down) would show that skull before the bid is made. It is **on top** when the
pile's top card is a skull (every bid is then past it), and **forced** when the bidder had no card
left in hand and had to bid on its turn. It is a **block** when it raises an opponent's bid:
passing could let that opponent make its bid, a card from each of the blocker's team (for sure when
the opponent's own pile covers the bid: that many doubloons on top of its own skull, or no skull;
these are counted apart as **covered**). Any other such bid, one that opens the bidding or raises
the partner's, is a **bluff**: it pays only if an opponent raises past it and meets a skull.

A round in which a watched pirate made such a bid is a **skull-bid round** (once per round, even if
both watched pirates of a team made one). At the round's reckoning it counts:

* **own skull flipped**: the watched pirate was the challenger and the skull that ended the round
  was its own (a card lost, unless it bought Bluff Insurance);
* **raised into a loss**: an opponent raised past the bid, became the challenger and met a skull;
* **net cards**: the cards the other team discarded at that reckoning less the cards the watched
  team discarded (+1 when an opponent raised into a loss, -1 when the bidder flipped its own skull
  uninsured, -1 per watched pirate holding cards when an opponent raised and made its bid);
* **bluff net**: the same over the rounds whose skull bids were all bluffs (neither forced nor a
  block): the bids the captain chose freely, whose worth is the question;
* **net against passing**: what the round's skull bids changed, against not making them: the net
  cards, plus, in a round with a covered block, the cards passing would surely have cost (one
  for each pirate of the watched team holding cards when it blocked: that opponent would have
  made its bid). Where passing's outcome is not sure (any other bid), it counts as nothing lost,
  so this is, if anything, too low.

The bench counts the watched team's captains; the figures are sums over a line-up's matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pgenius.games.hornswoggle.actions import SKULL, Bid, HornAction
from p2pgenius.games.hornswoggle.state import HornState, Pirate


def clean_top(pirate: Pirate) -> int:
    """The doubloons on top of ``pirate``'s pile, above its topmost skull (all of them if none)."""
    count = 0
    for card in reversed(pirate.pile):
        if card.card == SKULL:
            break
        count += 1
    return count


def past_own_skull(state: HornState, seat: int, action: HornAction) -> bool:
    """Whether ``action`` is a bid of ``seat`` past a skull of its own pile (full state)."""
    if not isinstance(action, Bid):
        return False
    pirate = state.pirates[seat]
    holds_skull = any(card.card == SKULL for card in pirate.pile)
    return holds_skull and action.count > clean_top(pirate)


@dataclass
class SkullBids:
    """The counters of bids past one's own skull, for the pirates of ``seats`` (one team)."""

    seats: set[int]
    bids: int = 0  # every bid of the watched pirates
    past_skull: int = 0  # bids past a skull of the bidder's own pile
    on_top: int = 0  # ...with that skull on top of the pile
    forced: int = 0  # ...with no card left in hand, on its turn (it had to bid)
    blocks: int = 0  # ...raising an opponent's bid
    covered: int = 0  # ...one that the opponent's own pile covers
    rounds: int = 0  # skull-bid rounds
    own_flips: int = 0  # rounds that ended with the bidder flipping its own skull
    own_flip_cards: int = 0  # ...and the cards those cost (not insured)
    raised_into_loss: int = 0  # an opponent raised past the bid and met a skull
    raised_and_made: int = 0  # an opponent raised past the bid and made it
    net: int = 0  # cards the other team discarded less the watched team's, in skull-bid rounds
    bluff_rounds: int = 0  # skull-bid rounds whose skull bids were all bluffs
    bluff_net: int = 0  # the net cards of those rounds
    against_passing: int = 0  # the net cards, plus what passing on covered blocks would have cost
    _avoided: int = 0  # this round's cards a covered block saved, passing being a sure loss
    _round: set[str] = field(default_factory=set)  # the kinds of this round's skull bids
    _bidders: set[int] = field(default_factory=set)  # this round's watched skull bidders

    def watch(self, before: HornState, seat: int, action: HornAction, after: HornState) -> None:
        """Count ``seat``'s ``action`` taken in ``before`` (full states), and the reckoning."""
        if seat in self.seats and isinstance(action, Bid):
            self.bids += 1
            if past_own_skull(before, seat, action):
                self._count_bid(before, seat)
        for event in after.events:
            if event.get("type") == "settled":
                self._reckon(after, event)

    def _count_bid(self, before: HornState, seat: int) -> None:
        pirate = before.pirates[seat]
        bidder = before.bidder
        kind = "forced" if before.phase == "turns" and pirate.count == 0 else "bluff"
        if before.phase == "bidding" and bidder is not None and bidder % 2 != seat % 2:
            kind = "block"
            if before.bid <= clean_top(before.pirates[bidder]):
                self.covered += 1
                holding = [s for s, p in enumerate(before.pirates) if s % 2 == seat % 2 and p.cards > 0]
                self._avoided = max(self._avoided, len(holding))
        self.past_skull += 1
        self.on_top += pirate.pile[-1].card == SKULL
        self.forced += kind == "forced"
        self.blocks += kind == "block"
        self._round.add(kind)
        self._bidders.add(seat)

    def _reckon(self, after: HornState, event: dict[str, object]) -> None:
        if not self._round:
            return
        challenger, owing = event.get("seat"), event.get("owing")
        assert isinstance(challenger, int) and isinstance(owing, list)
        team = min(self.seats) % 2
        net = sum(1 if s % 2 != team else -1 for s in owing if isinstance(s, int))
        self.rounds += 1
        self.net += net
        self.against_passing += net + self._avoided
        if self._round == {"bluff"}:
            self.bluff_rounds += 1
            self.bluff_net += net
        if challenger in self._bidders and not event.get("success") and _own_skull_ended(after, challenger):
            self.own_flips += 1
            self.own_flip_cards += challenger in owing
        elif challenger % 2 != team:
            self.raised_into_loss += not event.get("success")
            self.raised_and_made += bool(event.get("success"))
        self._round, self._bidders, self._avoided = set(), set(), 0


def _own_skull_ended(after: HornState, challenger: int) -> bool:
    """Whether the flip that ended the round was a skull of the challenger's own pile."""
    flips = [e for e in after.events if e.get("type") == "flip"]
    return bool(flips) and flips[-1].get("pile") == challenger and flips[-1].get("card") == SKULL
