"""Hornswoggle as peers play it: hidden cards on piles, flipped open by their owners, an audit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

from p2pgenius.canonical import Plain
from p2pgenius.games.base import replace
from p2pgenius.games.hornswoggle.audit import audit, audit_outcome
from p2pgenius.games.hornswoggle.engine import DECISION_SECONDS, HORNSWOGGLE
from p2pgenius.games.hornswoggle.notation import moves
from p2pgenius.games.hornswoggle.state import HornEnding, HornState, perspective
from p2pgenius.games.hornswoggle.words import loss, words
from p2pgenius.games.spec import Finding, GameSpec, HiddenChoices, Piles, TimeOption


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

    # The seat's own peer resolves its timeout, so a card it lays is committed like any other.
    own_timeout = staticmethod(HORNSWOGGLE.timeout_action)

    def audit(
        self, setup: Mapping[str, Any], options: Mapping[str, Any], log: list[tuple[int, Any]], state: Any
    ) -> Finding:
        """The other team wins if a seat played a card it did not hold."""
        audited = audit(setup, options, log)
        failure = audited.failure
        return Finding(None if failure is None else audit_outcome(state, failure), audited.states)


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

    perspective = staticmethod(perspective)  # other peers' hands are unknown

    def ahead(self, state: HornState) -> HornState | None:
        """While the Death Match Opponent picks who begins, every pirate may already lay its
        opening card face down: who begins changes neither who lays one nor what it may lay."""
        return replace(state, phase="opening") if state.phase == "order" else None

    words = staticmethod(words)
    loss_words = staticmethod(loss)
    notation = staticmethod(moves)


HORNSWOGGLE_SPEC: Final = HornswoggleSpec(HORNSWOGGLE)
