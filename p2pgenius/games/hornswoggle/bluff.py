"""When the ``captain`` may bid past a skull of its own pile: a bluff, worth it only against
opponents that raise.

A bid past its own skull cannot be made by the bidder (its own pile is flipped first, top down):
it pays only if an opponent raises past it and then meets a skull. So the captain remembers, per
match, how each opponent answered its team's bids (:class:`Answers`: passed, raised within its own
pile, raised past it), and :func:`bluff_value` weighs the bluff in cards from those rates:

* nobody raises: the captain is the challenger and flips its own skull, a card lost (-1);
* an opponent raises past its own pile (a blind raise, which must flip other piles): it meets a
  skull as often as RAISER_HITS, a card it loses (+1), or else makes its bid, a card lost by each
  pirate of the captain's team that still has cards;
* an opponent raises within its own pile: it would have bid so anyway (counted as 0).

The search only considers such a bid as a bluff (opening the bidding or raising its partner) when
that value is positive; as a block (raising an opponent's bid) it weighs it against passing, which
may cost its team more; and when no other action is left (a pirate with no card in hand must bid)
it bids as it searched. With no answers seen, the prior is an opponent that
rarely raises, so the captain does not open a match with a bluff; against opponents that never
raised over its team it never bluffs, and against ones that keep raising blindly it may.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from p2pgenius.games.hornswoggle.state import HornState

PASSED: Final = 0
COVERED: Final = 1  # raised within its own pile: a bid it can make from its own doubloons
BLIND: Final = 2  # raised past its own pile: it must flip other piles, a bluff's skull among them

PRIOR_ANSWERS: Final = 2.0  # the prior's weight, in answers
PRIOR_BLIND: Final = 0.2  # the prior's share of blind raises...
PRIOR_COVERED: Final = 0.1  # ...and of raises within the raiser's own pile
RAISER_HITS: Final = 0.8  # how often a blind raiser over a bluff meets a skull (the bench shows about this)


@dataclass
class Answers:
    """How each opponent answered the bids of one seat's team in one match.

    ``answers`` maps (round, opponent) to PASSED, COVERED or BLIND: its last answer in that round
    to a bid of the team (a raise is kept over a later pass). ``ours`` is the round in which the
    team was last seen bidding, with the seats that had passed by then (their passes answered
    someone else)."""

    answers: dict[tuple[int, int], int] = field(default_factory=dict)
    ours: int = 0
    passed_before: tuple[bool, ...] = (False, False, False, False)

    def our_bid(self, state: HornState) -> None:
        """The team bids in ``state`` (the state it bids in), if not already this round."""
        if self.ours != state.round:
            self.ours, self.passed_before = state.round, state.passed

    def observe(self, state: HornState, seat: int) -> None:
        """Note, from the public facts of ``state``, how the opponents answered the team's bid."""
        self._winner_seen(state, seat)
        if state.phase not in ("bidding", "flipping") or state.bidder is None:
            return
        if state.bidder % 2 == seat % 2:
            self.our_bid(state)
        if self.ours != state.round:
            return
        for opponent in (s for s in range(4) if s % 2 != seat % 2):
            key = (state.round, opponent)
            if state.bidder == opponent:
                blind = state.bid > len(state.pirates[opponent].pile)
                self.answers[key] = BLIND if blind else COVERED
            elif state.passed[opponent] and not self.passed_before[opponent] and key not in self.answers:
                self.answers[key] = PASSED

    def _winner_seen(self, state: HornState, seat: int) -> None:
        """An opponent that took the bidding from the team without this seat being asked again (a
        raise of the whole table, or everyone else passing): seen once the round is settled, as the
        challenger, or in the next round as the seat before its first player. The size of its pile
        then is not seen; such a raise is counted blind, as most of them are."""
        if not self.ours:
            return  # (the team has not bid yet)
        if state.phase == "discarding" and state.round == self.ours:
            winner = state.challenger
        elif state.round == self.ours + 1:
            winner = (state.first - 1) % 4
            if state.pirates[winner].out:
                return  # (it may have gone out in that round, or sat out before: unknown)
        else:
            return
        if winner is not None and winner % 2 != seat % 2:
            self.answers.setdefault((self.ours, winner), BLIND)

    def rates(self, opponent: int) -> tuple[float, float]:
        """How often ``opponent`` raises over the team's bid: blindly, and within its own pile."""
        seen = [answer for (_, who), answer in self.answers.items() if who == opponent]
        weight = len(seen) + PRIOR_ANSWERS
        blind = (seen.count(BLIND) + PRIOR_BLIND * PRIOR_ANSWERS) / weight
        covered = (seen.count(COVERED) + PRIOR_COVERED * PRIOR_ANSWERS) / weight
        return blind, covered


def bluff_value(answers: Answers, answering: list[int], holders: int) -> float:
    """The expected cards a bid past one's own skull brings: ``answering`` are the opponents still
    to answer it, ``holders`` the pirates of the bidder's team that still have cards."""
    nobody = 1.0
    no_blind = 1.0
    for opponent in answering:
        blind, covered = answers.rates(opponent)
        nobody *= 1.0 - blind - covered
        no_blind *= 1.0 - blind
    blind_raise = RAISER_HITS - holders * (1.0 - RAISER_HITS)
    return (1.0 - no_blind) * blind_raise - nobody
