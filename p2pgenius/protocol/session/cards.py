"""Hidden cards: which commitment lies where on each seat's pile, and which are still unopened
(for games whose spec has hidden cards, such as Hornswoggle's doubloons and skulls)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from p2pgenius.canonical import Plain
from p2pgenius.errors import shown
from p2pgenius.games.spec import GameSpec
from p2pgenius.protocol.bodies import NONCE_LEN
from p2pgenius.protocol.messages import Envelope, commitment
from p2pgenius.protocol.session.faults import CheatError

Ref = tuple[int, int]  # (stage, seat): the commitment that holds a card


class HiddenCards:
    """The bookkeeping of one match's hidden cards, on one peer."""

    def __init__(self, seats: int) -> None:
        self.piles: list[list[Ref]] = [[] for _ in range(seats)]
        self.unopened: set[Ref] = set()
        self.opened: dict[Ref, Plain] = {}
        self.applied: dict[Ref, Plain] = {}  # each hidden card as this peer applied it

    def played(self, spec: GameSpec, ref: Ref, action: Plain) -> None:
        """Note a hidden card just played (laid on its seat's pile, or discarded)."""
        if spec.hidden(action):
            self.applied[ref] = action
            if spec.lays_on_pile(action):
                self.piles[ref[1]].append(ref)
            self.unopened.add(ref)

    def settle(self, spec: GameSpec, state: Any) -> None:
        """Cards no longer on a pile in ``state`` went back to their owners' hands."""
        if spec.piles is None:
            return
        for seat, refs in enumerate(self.piles):
            del refs[spec.piles.pile(state, seat)[0] :]

    def top(self, spec: GameSpec, state: Any, pile: int) -> Ref:
        """The commitment of the top face-down card of ``pile``."""
        assert spec.piles is not None  # (only a game with piles has cards to flip)
        return self.piles[pile][-1 - spec.piles.pile(state, pile)[1]]

    def open(self, ref: Ref, action: Plain) -> None:
        """A flipped card was opened."""
        self.unopened.discard(ref)
        self.opened[ref] = action

    def with_openings(
        self, spec: GameSpec, log: Iterable[tuple[int, int, Plain]], disclosed: Iterable[list[Any]]
    ) -> tuple[list[tuple[int, Plain]], list[Ref]]:
        """The whole match's actions with every hidden card opened (flips, and each peer's openings
        ``disclosed`` at the end), and the commitments nobody opened."""
        opened: dict[Ref, Plain] = dict(self.opened)
        for openings in disclosed:
            opened.update({(o[0], o[1]): o[2] for o in openings})
        full = []
        for number, seat, action in log:
            if spec.unopened(action):
                action = opened.get((number, seat), action)
            full.append((seat, action))
        return full, sorted(ref for ref in self.unopened if ref not in opened)


def openings_of(cards: HiddenCards, owner: Mapping[int, int] | tuple[int, ...], me: int) -> list[Ref]:
    """The unopened commitments of seats ``me`` holds, in order (what this peer opens at the end)."""
    return [ref for ref in sorted(cards.unopened) if owner[ref[1]] == me]


class MadeHere:
    """The commitments this peer made in this process, each with the very objects it made it of
    (the action and the nonce it keeps as its secret). A restored one is not here: it was made
    before, and its opening is checked as any other."""

    def __init__(self) -> None:
        self._made: dict[Ref, tuple[Plain, bytes, bytes]] = {}

    def note(self, ref: Ref, action: Plain, nonce: bytes, committed: bytes) -> None:
        """A commitment just made of ``action`` and ``nonce`` (one whose nonce is not of the
        length an opening needs is left out: its opening is checked, and refused, as before)."""
        if len(nonce) == NONCE_LEN:
            self._made[ref] = (action, nonce, committed)

    def check(
        self, match_id: bytes, env: Envelope, ref: Ref, opening: tuple[Plain, bytes], committed: bytes
    ) -> None:
        """:func:`check_opening`, but an opening that is, object for object, what this peer made
        ``committed`` of here is known to open it without hashing it again. A message from a
        peer or read back from disk is decoded into objects of its own, so only our own opening,
        as we send it, can be (issue 48: a peer checked its own openings again, hashing each
        action a second time)."""
        known = self._made.get(ref)
        if known is None or known[0] is not opening[0] or known[1] is not opening[1] or known[2] != committed:
            check_opening(match_id, env, ref, opening, committed)


def check_opening(
    match_id: bytes, env: Envelope, ref: Ref, opening: tuple[Plain, bytes], committed: bytes
) -> None:
    """An opening (the action and its nonce) must open the commitment it names: else its author
    convicts itself."""
    (number, seat), (action, nonce) = ref, opening
    if len(nonce) != NONCE_LEN or commitment(match_id, number, seat, nonce, action) != committed:
        raise CheatError(
            env.author,
            f"opened p{seat}'s stage-{number} commitment to something else",
            {"message": env.hash.hex()},
        )


def check_card(cards: HiddenCards, spec: GameSpec, env: Envelope, ref: Ref, action: Plain) -> None:
    """A hidden card's opening must be a card, of the kind it was played as: a commitment to
    anything else (a bid, a ruby) convicts the peer that made it, not the one who flipped."""
    applied = cards.applied.get(ref)
    if applied is not None and not spec.opens(applied, action):
        number, seat = ref
        raise CheatError(
            env.author,
            f"opened p{seat}'s stage-{number} card to something that is not one ({shown(action)})",
            {"message": env.hash.hex()},
        )
