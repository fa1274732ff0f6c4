"""Hornswoggle's engine makes the same states, events and refusals as before issue 48 made its
copies fewer: random matches, seen with full knowledge and from a pair of seats' machines (other
seats' cards unknown), each tried with actions legal and not, are digested whole (every state's
full and public plain forms, every event, every refusal's words) and held to the digest the
engine gave before the change."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from p2pgenius.canonical import encode
from p2pgenius.errors import IllegalActionError
from p2pgenius.games.hornswoggle.actions import (
    CARDS,
    Bid,
    Discard,
    Flip,
    HornAction,
    Insure,
    Order,
    Pass,
    Place,
    Timeout,
)
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState, full, perspective, public

MATCHES = 60
DIGEST_BEFORE = "207622e3f61bdcb15499035f12ba19ec3bb1014db1e7195f00fc070ba0fa7b92"
"""The digest of :func:`digested` (``MATCHES`` matches) by the engine before issue 48's change."""


def anything(rng: random.Random) -> HornAction:
    """Any action at all, legal or not, for any seat."""
    card = rng.choice((*CARDS, None))
    return rng.choice(
        (
            Order(rng.randrange(4)),
            Place(card),
            Bid(rng.randrange(1, 9)),
            Pass(),
            Insure(),
            Flip(rng.randrange(4), rng.choice((*CARDS, None))),
            Discard(card),
            Timeout(),
        )
    )


def hidden_from(seen: HornState, seat: int, action: HornAction, flipped: str | None) -> HornAction:
    """``action`` as a machine that does not hold ``seat`` applies it (its card unknown; a flip
    carrying the card its owner opened)."""
    if isinstance(action, Place) and not seen.holds[seat]:
        return Place(None)
    if isinstance(action, Discard) and not seen.holds[seat]:
        return Discard(None)
    if isinstance(action, Flip):
        return Flip(action.pile, flipped)
    return action


def setup_of(rng: random.Random) -> dict[str, Any]:
    """A setup: either opponent, some garnets, hands of various sizes (each team with cards)."""
    hands = [[rng.randrange(0, 4), rng.randrange(0, 3)] for _ in range(4)]
    for a, b in ((0, 2), (1, 3)):
        if sum(hands[a]) + sum(hands[b]) == 0:
            hands[a] = [1, 1]
    return {"opponent": rng.choice((1, 3)), "garnets": [rng.randrange(3) for _ in range(4)], "hands": hands}


def digested(matches: int) -> str:
    """Play ``matches`` random matches and digest everything the engine said and made."""
    sha = hashlib.sha256()
    for number in range(matches):
        rng = random.Random(number)
        state = HORNSWOGGLE.initial(setup_of(rng), {})
        seen = perspective(state, (0, 2))
        while state.outcome is None and HORNSWOGGLE.to_act(state):
            seat = rng.randrange(4) if rng.random() < 0.2 else rng.choice(HORNSWOGGLE.to_act(state))
            legal = HORNSWOGGLE.legal_actions(state, seat)
            action = rng.choice(legal) if legal and rng.random() < 0.85 else anything(rng)
            try:
                after = HORNSWOGGLE.apply(state, seat, action)
            except IllegalActionError as exc:
                sha.update(f"refused {seat} {action} {exc}".encode())
                continue
            flipped = _flipped(after, action)
            try:
                seen = HORNSWOGGLE.apply(seen, seat, hidden_from(seen, seat, action, flipped))
            except IllegalActionError as exc:
                sha.update(f"seen refused {exc}".encode())
                seen = perspective(after, (0, 2))
            state = after
            for each in (state, seen):
                sha.update(encode({"full": full(each), "public": public(each), "events": list(each.events)}))
    return sha.hexdigest()


def _flipped(after: HornState, action: HornAction) -> str | None:
    """The card a flip turned over (what its owner's machine opens), else None."""
    if not isinstance(action, Flip | Timeout):
        return None
    flips = [e for e in after.events if e.get("type") == "flip"]
    card = flips[0].get("card") if flips else None
    return card if isinstance(card, str) else None


def test_the_engine_makes_what_it_made_before() -> None:
    assert digested(MATCHES) == DIGEST_BEFORE
