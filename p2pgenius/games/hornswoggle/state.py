"""Hornswoggle's immutable state, its plain forms, and the point of view of one seat.

A card the engine does not know is ``None``: another seat's face-down card or discard, seen from one
seat's machine. Hands are then known only by their size. Public facts (counts, flipped cards, bids)
are always known, so every seat's engine computes the same public state and the same hash.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from p2pgenius.canonical import Plain, normalise
from p2pgenius.games.base import Ending, Outcome, replace
from p2pgenius.games.hornswoggle.actions import DOUBLOON, SKULL

HIDDEN: Final = "hidden"


class HornEnding(Ending):
    """How a Hornswoggle match ends: a team out of cards, or a team caught by the end-of-match
    audit (protocol/SPEC.md, "The audit")."""

    TEAM_ELIMINATED = "team_eliminated"
    AUDIT_FAILED = "audit_failed"


def team_of(seat: int) -> tuple[int, int]:
    """The two seats of ``seat``'s team: {p0, p2} or {p1, p3}."""
    return (seat % 2, seat % 2 + 2)


@dataclass(frozen=True, slots=True)
class PileCard:
    """A face-down card on a pile; ``card`` None when this engine cannot see it."""

    card: str | None
    flipped: bool = False


@dataclass(frozen=True, slots=True)
class Pirate:
    """One seat: its hand (composition if known, size always), pile, discards and garnets."""

    hand: tuple[int, int] | None  # (doubloons, skulls), or None when unknown here
    count: int  # cards in hand
    pile: tuple[PileCard, ...] = ()
    discarded: tuple[str | None, ...] = ()
    garnets: int = 0
    out: bool = False

    @property
    def cards(self) -> int:
        """Cards this seat still has (hand and pile)."""
        return self.count + len(self.pile)

    def lays(self, card: str | None) -> Pirate:
        """The pirate once ``card`` has left its hand for its pile, face down."""
        hand, count = self._without(card)
        return replace(self, hand=hand, count=count, pile=(*self.pile, PileCard(card)))

    def discards(self, card: str | None) -> Pirate:
        """The pirate once ``card`` has left its hand for its discards."""
        hand, count = self._without(card)
        return replace(self, hand=hand, count=count, discarded=(*self.discarded, card))

    def _without(self, card: str | None) -> tuple[tuple[int, int] | None, int]:
        """The hand (composition, size) once ``card`` has left it."""
        hand = self.hand
        if hand is not None and card is not None:
            hand = (hand[0] - (card == DOUBLOON), hand[1] - (card == SKULL))
        elif card is None:
            hand = None if self.count > 1 else (0, 0)
        return hand, self.count - 1

    def gathered(self) -> Pirate:
        """The pirate once the cards of its pile are back in its hand."""
        hand, count = self.hand, self.count
        for laid in self.pile:
            count += 1
            if hand is not None and laid.card is not None:
                hand = (hand[0] + (laid.card == DOUBLOON), hand[1] + (laid.card == SKULL))
            else:
                hand = None
        return replace(self, hand=hand, count=count, pile=())

    def holds(self, card: str) -> bool | None:
        """Whether the hand holds ``card`` (None when this engine cannot know)."""
        if self.hand is None:
            return None
        return self.hand[0 if card == DOUBLOON else 1] > 0


@dataclass(frozen=True, slots=True)
class HornState:
    """A Hornswoggle match between two actions."""

    opponent: int
    pirates: tuple[Pirate, Pirate, Pirate, Pirate]
    holds: tuple[bool, bool, bool, bool] = (True, True, True, True)  # whose secrets it knows
    phase: str = "order"  # order, opening, turns, bidding, flipping, discarding, over
    round: int = 1
    first: int = 0  # first player of this round
    current: int = 0  # whose add-or-bid or bidding turn it is
    bid: int = 0
    bidder: int | None = None
    passed: tuple[bool, bool, bool, bool] = (False, False, False, False)
    challenger: int | None = None
    insured: bool = False
    flips: int = 0  # doubloons flipped so far
    owing: tuple[int, ...] = ()  # seats that still owe a discard
    outcome: Outcome | None = None
    events: tuple[dict[str, Plain], ...] = ()

    @property
    def table(self) -> int:
        """Cards on the table (every pile)."""
        return sum(len(p.pile) for p in self.pirates)

    def dm_player(self, seat: int) -> int:
        """The Death Match player of ``seat``'s team (p0, or the Death Match Opponent)."""
        return 0 if seat % 2 == 0 else self.opponent


def _pile_plain(pile: tuple[PileCard, ...], *, hide: bool) -> list[Plain]:
    return [(HIDDEN if c.card is None or (hide and not c.flipped) else c.card) for c in pile]


PUBLIC_ORDER: Final = (
    "round",
    "phase",
    "opponent",
    "first",
    "current",
    "hand_counts",
    "piles",
    "flipped",
    "discard_counts",
    "garnets",
    "out",
    "bid",
    "bidder",
    "passed",
    "challenger",
    "insured",
    "doubloons_flipped",
    "owing",
    "outcome",
)
"""The order of :func:`public`'s fields, the order ``sim`` prints them in (the state hash's
form, :func:`public_canonical`, has them in the order of their names)."""


def public_canonical(state: HornState) -> dict[str, Plain]:
    """What every seat knows: sizes, flipped cards, bids, who is out. Hashed and compared.

    Built in canonical shape, as ``canonical.normalise`` makes it (every map's keys in order,
    lists), which the state hash packs as it is (``games.base.state_hash``): each peer hashes
    every state, and normalising was most of a hash. :func:`public` is the same fields in their
    own order (tests/hornswoggle/test_state_hash.py compares the two with the hash of before)."""
    pirates = state.pirates
    return {
        "bid": state.bid,
        "bidder": state.bidder,
        "challenger": state.challenger,
        "current": state.current,
        "discard_counts": [len(p.discarded) for p in pirates],
        "doubloons_flipped": state.flips,
        "first": state.first,
        "flipped": [[c.flipped for c in p.pile] for p in pirates],
        "garnets": [p.garnets for p in pirates],
        "hand_counts": [p.count for p in pirates],
        "insured": state.insured,
        "opponent": state.opponent,
        "out": [p.out for p in pirates],
        "outcome": None if state.outcome is None else normalise(state.outcome.to_plain()),
        "owing": list(state.owing),
        "passed": list(state.passed),
        "phase": state.phase,
        "piles": [_pile_plain(p.pile, hide=True) for p in pirates],
        "round": state.round,
    }


def public(state: HornState) -> dict[str, Plain]:
    """:func:`public_canonical`'s fields in :data:`PUBLIC_ORDER`, the outcome in its own order."""
    shaped = public_canonical(state)
    plain = {key: shaped[key] for key in PUBLIC_ORDER}
    if state.outcome is not None:
        plain["outcome"] = state.outcome.to_plain()
    return plain


def full(state: HornState) -> dict[str, Plain]:
    """Everything this engine knows (from sim: everything; cards it cannot see show "hidden")."""
    plain = public(state)
    plain["hands"] = [list(p.hand) if p.hand is not None else None for p in state.pirates]
    plain["piles"] = [_pile_plain(p.pile, hide=False) for p in state.pirates]
    plain["discards"] = [[HIDDEN if c is None else c for c in p.discarded] for p in state.pirates]
    return plain


def view(state: HornState, seat: int) -> dict[str, Plain]:
    """What ``seat`` may know: its own hand, pile and discards; everyone else's counts only."""
    plain = public(state)
    me = state.pirates[seat]
    plain["seat"] = seat
    plain["hand"] = None if me.hand is None else list(me.hand)
    plain["my_pile"] = _pile_plain(me.pile, hide=False)
    plain["my_discards"] = [HIDDEN if c is None else c for c in me.discarded]
    plain["events"] = list(state.events)
    return plain


def perspective(state: HornState, seats: Iterable[int]) -> HornState:
    """The state as the machine holding ``seats`` knows it: every other seat's hand, face-down
    cards and discards become unknown."""
    mine = set(seats)
    pirates = []
    for index, pirate in enumerate(state.pirates):
        if index in mine:
            pirates.append(pirate)
            continue
        pirates.append(
            replace(
                pirate,
                hand=None if pirate.count else (0, 0),
                pile=tuple(c if c.flipped else PileCard(None) for c in pirate.pile),
                discarded=tuple(None for _ in pirate.discarded),
            )
        )
    holds = tuple(index in mine for index in range(4))
    return replace(
        state,
        pirates=(pirates[0], pirates[1], pirates[2], pirates[3]),
        holds=(holds[0], holds[1], holds[2], holds[3]),
    )
