"""Hornswoggle as peers play it: hidden cards on piles, flipped open by their owners, an audit."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Final

from p2pgenius.canonical import Plain
from p2pgenius.games.base import Outcome
from p2pgenius.games.hornswoggle.audit import audit, audit_outcome
from p2pgenius.games.hornswoggle.engine import DECISION_SECONDS, HORNSWOGGLE
from p2pgenius.games.hornswoggle.notation import moves
from p2pgenius.games.hornswoggle.state import HornEnding, HornState, perspective
from p2pgenius.games.hornswoggle.words import loss, words
from p2pgenius.games.spec import GameSpec, HiddenChoices, Piles, Played, TimeOption, seat_label


class HornCards(HiddenChoices):
    """Cards laid and discarded travel as commitments; every seat opens the rest at the end."""

    types = ("place", "discard")
    owner_resolves_timeout = True

    def committing(self, state: HornState) -> bool:
        """Cards are laid or discarded in these phases."""
        return state.phase in ("opening", "turns", "discarding")

    def placeholder(self, state: HornState, seat: int) -> Plain:
        """Another peer's card, unseen."""
        return {"type": "discard" if state.phase == "discarding" else "place", "card": None}

    def own_timeout(self, state: HornState, seat: int) -> Any:
        """The seat's own peer resolves its timeout, so a card it lays is committed like any
        other."""
        return HORNSWOGGLE.timeout_action(state, seat)

    def audit(
        self, setup: Mapping[str, Any], options: Mapping[str, Any], log: list[tuple[int, Any]], state: Any
    ) -> Outcome | None:
        """The other team wins if a seat played a card it did not hold."""
        failure = audit(setup, options, log)
        return None if failure is None else audit_outcome(state, failure)


class HornPiles(Piles):
    """A flipped card is opened by its pile's owner."""

    flip_type = "flip"

    def lays_on_pile(self, action: Mapping[str, Plain] | Plain) -> bool:
        """A card placed face down."""
        return isinstance(action, Mapping) and action.get("type") == "place" and "card" in action

    def pile(self, state: HornState, seat: int) -> tuple[int, int]:
        """(cards, face up) on the seat's pile."""
        cards = state.pirates[seat].pile
        return len(cards), sum(1 for card in cards if card.flipped)


class HornswoggleSpec(GameSpec):
    """Four seats among two to four peers; cards laid and discarded travel as commitments, a
    flipped card is opened by its pile's owner, and every seat opens the rest at the end."""

    name = "hornswoggle"
    title = "Hornswoggle"
    groups_by_peers: ClassVar[Mapping[int, tuple[tuple[int, ...], ...]]] = {
        2: ((0, 2), (1, 3)),
        3: ((0, 2), (1,), (3,)),
        4: ((0,), (1,), (2,), (3,)),
    }
    sides: ClassVar[tuple[tuple[int, ...], ...]] = ((0, 2), (1, 3))
    time_options = (TimeOption("decision_seconds", DECISION_SECONDS, "each decision"),)
    endings = HornEnding
    cards = HornCards()
    piles = HornPiles()

    def perspective(self, state: HornState, seats: Sequence[int]) -> HornState:
        """Other peers' hands are unknown."""
        return perspective(state, seats)

    def ahead(self, state: HornState) -> HornState | None:
        """While the Death Match Opponent picks who begins, every pirate may already lay its
        opening card face down: who begins changes neither who lays one nor what it may lay."""
        return replace(state, phase="opening") if state.phase == "order" else None

    def words(self, event: Mapping[str, Any], who: Callable[[int], str] = seat_label) -> str:
        """One event in a sentence (words.py)."""
        return words(event, who)

    def loss_words(self, outcome: Outcome, losers: str | None) -> str:
        """How a team lost, told to a pirate (words.py)."""
        return loss(outcome, losers)

    def notation(self, initial: HornState, steps: Sequence[Played]) -> list[str]:
        """One line per stage for ``p2pgenius export`` (docs/export.md)."""
        return moves(initial, steps)


HORNSWOGGLE_SPEC: Final = HornswoggleSpec(HORNSWOGGLE)
