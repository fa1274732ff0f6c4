"""Hornswoggle behind the common game interface (rules: docs/rules/hornswoggle.md).

The engine runs with full knowledge (``p2pgenius sim``) or from one machine's point of view
(:func:`~p2pgenius.games.hornswoggle.state.perspective`), where other seats' face-down cards are
``None`` until opened. Checks that need a hidden card (may this seat place a skull?) are made where
the card is known and left to the end-of-match audit where it is not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.base import Outcome, expect, replace
from p2pgenius.games.hornswoggle import state as st
from p2pgenius.games.hornswoggle.actions import (
    CARDS,
    SEATS,
    SKULL,
    Bid,
    Discard,
    Flip,
    HornAction,
    Insure,
    Order,
    Pass,
    Place,
    Timeout,
    parse_action,
)
from p2pgenius.games.hornswoggle.state import HornEnding, HornState, PileCard, Pirate, team_of

START_HAND: Final = (4, 2)
DECISION_SECONDS: Final = 60
GARNET_TRANSFER: Final = 2


class Hornswoggle:
    """Hornswoggle (4 seats, teams {p0, p2} and {p1, p3})."""

    name = "hornswoggle"

    def initial(self, setup: Mapping[str, Any], options: Mapping[str, Any]) -> HornState:
        """A new match. Setup: ``opponent`` (1 or 3, default 1), ``garnets`` (4 numbers) and
        ``hands`` (4 pairs [doubloons, skulls]; default 4 and 2 each)."""
        unknown = set(setup) - {"opponent", "garnets", "hands"}
        if unknown:
            raise LocalMisuseError(f"hornswoggle setup: unknown field {sorted(unknown)[0]!r}")
        for key, value in options.items():
            if key != "decision_seconds":
                raise LocalMisuseError(f"hornswoggle options: unknown option {key!r}")
            if type(value) is not int or value <= 0:
                raise LocalMisuseError("hornswoggle options: decision_seconds must be positive")
        opponent = setup.get("opponent", 1)
        if opponent not in (1, 3) or type(opponent) is not int:
            raise LocalMisuseError("hornswoggle setup: opponent must be 1 or 3 (p0's opponents)")
        garnets = setup.get("garnets", [0] * SEATS)
        if (
            not isinstance(garnets, list)
            or len(garnets) != SEATS
            or any(type(g) is not int or g < 0 for g in garnets)
        ):
            raise LocalMisuseError("hornswoggle setup: garnets must be 4 whole numbers >= 0")
        hands = setup.get("hands", [list(START_HAND)] * SEATS)
        if (
            not isinstance(hands, list)
            or len(hands) != SEATS
            or any(
                not isinstance(h, list) or len(h) != 2 or any(type(n) is not int or n < 0 for n in h)
                for h in hands
            )
        ):
            raise LocalMisuseError("hornswoggle setup: hands must be 4 pairs [doubloons, skulls]")
        if any(sum(hands[a]) + sum(hands[b]) == 0 for a, b in ((0, 2), (1, 3))):
            raise LocalMisuseError("hornswoggle setup: each team needs a pirate with cards")
        # A pirate set up with no cards is out from the start (skipped, as after elimination).
        pirates = tuple(
            Pirate(hand=(h[0], h[1]), count=h[0] + h[1], garnets=g, out=sum(h) == 0)
            for h, g in zip(hands, garnets, strict=True)
        )
        return HornState(opponent=opponent, pirates=(pirates[0], pirates[1], pirates[2], pirates[3]))

    def seats(self, state: HornState) -> int:
        """Always four pirates."""
        return SEATS

    def to_act(self, state: HornState) -> tuple[int, ...]:
        """Who may act now (several at once for the opening cards and the discards)."""
        phase = state.phase
        if phase == "order":
            return (state.opponent,)
        if phase == "opening":
            return tuple(s for s, p in enumerate(state.pirates) if not p.out and not p.pile and p.count)
        if phase in ("turns", "bidding"):
            return (state.current,)
        if phase == "flipping":
            return () if state.challenger is None else (state.challenger,)
        if phase == "discarding":
            return state.owing
        return ()

    # Every seat to act must act. (Bound here: an engine that overrides to_act overrides this too.)
    waiting_on = to_act

    def legal_actions(self, state: HornState, seat: int) -> Sequence[HornAction]:
        """Every legal action in the stable order (a timeout plays the first one, or passes).

        For a seat whose hand this engine cannot see, cards are ``None`` (hidden)."""
        if seat not in self.to_act(state):
            return ()
        me = state.pirates[seat]
        phase = state.phase
        if phase == "order":
            return tuple(Order(s) for s in range(SEATS) if not state.pirates[s].out)
        if phase in ("opening", "discarding"):
            kind = Place if phase == "opening" else Discard
            return tuple(kind(c) for c in self._cards(state, seat))
        if phase == "turns":
            places = [Place(c) for c in self._cards(state, seat)] if me.count else []
            return (*places, *(Bid(n) for n in range(1, state.table + 1)))
        if phase == "bidding":
            return (Pass(), *(Bid(n) for n in range(state.bid + 1, state.table + 1)))
        flips = [Flip(s) for s in self._flippable(state)]
        insure = [Insure()] if self._may_insure(state) else []
        return (*flips, *insure)

    def _cards(self, state: HornState, seat: int) -> list[str | None]:
        pirate = state.pirates[seat]
        if not state.holds[seat]:
            return [None]
        return [c for c in CARDS if pirate.holds(c)]

    def _flippable(self, state: HornState) -> list[int]:
        challenger = state.challenger
        assert challenger is not None
        own = state.pirates[challenger].pile
        if any(not c.flipped for c in own):
            return [challenger]
        return [
            s for s, p in enumerate(state.pirates) if s != challenger and any(not c.flipped for c in p.pile)
        ]

    def _may_insure(self, state: HornState) -> bool:
        challenger = state.challenger
        assert challenger is not None
        fresh = not any(c.flipped for p in state.pirates for c in p.pile)
        return fresh and not state.insured and state.pirates[challenger].garnets > 0

    parse_action = staticmethod(parse_action)

    def apply(self, state: HornState, seat: int, action: HornAction) -> HornState:
        """The state after ``seat`` acts; raises IllegalActionError with the reason."""
        if not 0 <= seat < SEATS:
            raise IllegalActionError(f"no seat p{seat} in Hornswoggle (seats are p0..p3)")
        if state.outcome is not None:
            raise IllegalActionError("the match is over")
        if seat not in self.to_act(state):
            raise IllegalActionError(self._not_your_turn(state, seat))
        if isinstance(action, Timeout):
            action = self.timeout_action(state, seat)
        # The new state is copied once here, and its fields are set as the rules go: nobody else
        # holds it until it is returned (every state a caller sees stays as it was made).
        state = replace(state, events=())
        return _BY_PHASE[state.phase](self, state, seat, action)

    def _not_your_turn(self, state: HornState, seat: int) -> str:
        if state.pirates[seat].out:
            return f"p{seat} is out of the game"
        waiting = ", ".join(f"p{s}" for s in self.to_act(state)) or "nobody"
        return f"not p{seat}'s turn ({state.phase}: waiting for {waiting})"

    def timeout_action(self, state: HornState, seat: int) -> HornAction:
        """What a timeout plays for ``seat``: a pass where passing is allowed, else the first legal
        action in the stable order."""
        legal = self.legal_actions(state, seat)
        if any(isinstance(a, Pass) for a in legal):
            return Pass()
        return legal[0]

    # -- phases ------------------------------------------------------------------------------

    def _order(self, state: HornState, seat: int, action: HornAction) -> HornState:
        order = expect(action, Order, "order", "pick the first player of round 1")
        if state.pirates[order.first].out:
            raise IllegalActionError(f"p{order.first} has no cards and cannot start")
        state = _set(state, phase="opening", first=order.first, current=order.first)
        return _say(state, "order", seat=seat, first=order.first)

    def _opening(self, state: HornState, seat: int, action: HornAction) -> HornState:
        place = expect(action, Place, "place", "place your opening card face down")
        state = _put(state, seat, place.card)
        state = _say(state, "opening_card", seat=seat)
        if self.to_act(state):
            return state
        start = _next_in(state, state.first, include=True)
        return _say(_set(state, phase="turns", current=start), "piles_laid", seat=start)

    def _turn(self, state: HornState, seat: int, action: HornAction) -> HornState:
        if isinstance(action, Place):
            if state.pirates[seat].count == 0:
                raise IllegalActionError(f"p{seat} has no cards in hand and must bid")
            state = _say(_put(state, seat, action.card), "add", seat=seat)
            return _set(state, current=_next_in(state, seat))
        bid = expect(action, Bid, "place or bid", "add a card or start the challenge")
        self._check_bid(state, bid)
        state = _set(state, phase="bidding", bid=bid.count, bidder=seat, passed=(False,) * 4)
        state = _say(state, "bid", seat=seat, count=bid.count, first=True)
        return self._after_bid(state, seat)

    def _bidding(self, state: HornState, seat: int, action: HornAction) -> HornState:
        if isinstance(action, Pass):
            passed = list(state.passed)
            passed[seat] = True
            state = _say(_set(state, passed=(passed[0], passed[1], passed[2], passed[3])), "pass", seat=seat)
            return self._after_bid(state, seat)
        bid = expect(action, Bid, "bid or pass", "raise the bid or pass")
        if bid.count <= state.bid:
            raise IllegalActionError(f"a raise must be more than {state.bid}")
        self._check_bid(state, bid)
        state = _say(_set(state, bid=bid.count, bidder=seat), "bid", seat=seat, count=bid.count, first=False)
        return self._after_bid(state, seat)

    def _check_bid(self, state: HornState, bid: Bid) -> None:
        if bid.count > state.table:
            raise IllegalActionError(f"a bid can be at most the {state.table} cards on the table")

    def _after_bid(self, state: HornState, seat: int) -> HornState:
        assert state.bidder is not None
        bidding = [
            s for s in range(SEATS) if not state.pirates[s].out and not state.passed[s] and s != state.bidder
        ]
        if state.bid == state.table or not bidding:
            return self._challenge(state, state.bidder)
        # Skip seats that passed; the high bidder is reached again only once all others passed,
        # which the check above already turned into the challenge.
        nxt = _next_in(state, seat)
        while state.passed[nxt]:
            nxt = _next_in(state, nxt)
        return _set(state, current=nxt)

    def _challenge(self, state: HornState, challenger: int) -> HornState:
        state = _set(state, phase="flipping", challenger=challenger, current=challenger)
        return _say(state, "challenger", seat=challenger, count=state.bid)

    def _flip(self, state: HornState, seat: int, action: HornAction) -> HornState:
        if isinstance(action, Insure):
            if not self._may_insure(state):
                why = (
                    "only before the first flip"
                    if state.pirates[seat].garnets and not state.insured
                    else "it needs a Hacked Garnet"
                    if not state.insured
                    else "it is already insured"
                )
                raise IllegalActionError(f"p{seat} cannot buy Bluff Insurance: {why}")
            pirates = _with(
                state.pirates, seat, replace(state.pirates[seat], garnets=state.pirates[seat].garnets - 1)
            )
            return _say(_set(state, insured=True, pirates=pirates), "insure", seat=seat)
        flip = expect(action, Flip, "flip", "flip a card")
        allowed = self._flippable(state)
        if flip.pile not in allowed:
            own = "its own pile first" if allowed == [seat] else "a pile with face-down cards"
            raise IllegalActionError(f"p{seat} must flip {own}")
        pirate = state.pirates[flip.pile]
        depth = max(i for i, c in enumerate(pirate.pile) if not c.flipped)
        known = pirate.pile[depth].card
        card = known if known is not None else flip.card
        if card is None:
            raise IllegalActionError(
                f"the card on p{flip.pile}'s pile is hidden: the flip must carry the card its owner opened"
            )
        if known is not None and flip.card is not None and flip.card != known:
            raise IllegalActionError(f"p{flip.pile}'s card is a {known}, not a {flip.card}")
        pile = list(pirate.pile)
        pile[depth] = PileCard(card, flipped=True)
        state = _set(state, pirates=_with(state.pirates, flip.pile, replace(pirate, pile=tuple(pile))))
        state = _say(state, "flip", seat=seat, pile=flip.pile, card=card)
        if card == SKULL:
            return self._settle(state, success=False)
        state = _set(state, flips=state.flips + 1)
        if state.flips == state.bid:
            return self._settle(state, success=True)
        return state

    def _settle(self, state: HornState, *, success: bool) -> HornState:
        challenger = state.challenger
        assert challenger is not None
        pirates = tuple(p.gathered() for p in state.pirates)
        state = _set(state, pirates=(pirates[0], pirates[1], pirates[2], pirates[3]))
        if success:
            owing = tuple(s for s in range(SEATS) if s % 2 != challenger % 2 and state.pirates[s].cards > 0)
        else:
            owing = () if state.insured or state.pirates[challenger].cards == 0 else (challenger,)
        state = _say(
            _set(state, phase="discarding", owing=owing),
            "settled",
            seat=challenger,
            success=success,
            count=state.bid,
            owing=list(owing),
            insured=state.insured,
        )
        return state if owing else self._next_round(state)

    def _discard(self, state: HornState, seat: int, action: HornAction) -> HornState:
        discard = expect(action, Discard, "discard", "discard a card")
        pirate = state.pirates[seat]
        if discard.card is not None and pirate.holds(discard.card) is False:
            raise IllegalActionError(f"p{seat} has no {discard.card} to discard")
        if discard.card is None and state.holds[seat]:
            raise IllegalActionError(f"p{seat}'s discard must name its card")
        pirate = pirate.discards(discard.card)
        state = _set(
            state,
            pirates=_with(state.pirates, seat, pirate),
            owing=tuple(s for s in state.owing if s != seat),
        )
        state = _say(state, "discard", seat=seat)
        return state if state.owing else self._next_round(state)

    def _next_round(self, state: HornState) -> HornState:
        pirates = tuple(p if p.out == (p.cards == 0) else replace(p, out=p.cards == 0) for p in state.pirates)
        state = _set(state, pirates=(pirates[0], pirates[1], pirates[2], pirates[3]))
        for team in ((0, 2), (1, 3)):
            if all(state.pirates[s].out for s in team):
                return self._team_loses(state, team)
        challenger = state.challenger
        assert challenger is not None
        first = _next_in(state, challenger)
        state = _set(
            state,
            phase="opening",
            round=state.round + 1,
            first=first,
            current=first,
            bid=0,
            bidder=None,
            passed=(False,) * 4,
            challenger=None,
            insured=False,
            flips=0,
            owing=(),
        )
        out = [s for s, p in enumerate(state.pirates) if p.out]
        return _say(state, "round", round=state.round, first=first, out=out)

    def _team_loses(self, state: HornState, team: tuple[int, int]) -> HornState:
        winners = team_of(team[0] + 1)
        outcome = result(state, winners, HornEnding.TEAM_ELIMINATED)
        return _say(_set(state, phase="over", outcome=outcome), "over", out=list(team), winner=outcome.winner)

    def outcome(self, state: HornState) -> Outcome | None:
        """The result once a team is out (or a seat failed the audit)."""
        return state.outcome

    full = staticmethod(st.full)
    public = staticmethod(st.public)
    public_canonical = staticmethod(st.public_canonical)
    view = staticmethod(st.view)

    def events(self, state: HornState) -> tuple[dict[str, Plain], ...]:
        """What the last action did (no hidden card is ever named)."""
        return state.events


def result(state: HornState, winners: tuple[int, int], how: HornEnding) -> Outcome:
    """The outcome for the team ``winners``, with the garnet transfer the result records."""
    winner = state.dm_player(winners[0])
    partner = winners[0] if winners[1] == winner else winners[1]
    losers = team_of(winners[0] + 1)
    loser_dm = state.dm_player(losers[0])
    loser_partner = losers[0] if losers[1] == loser_dm else losers[1]
    return Outcome(
        winner,
        how,
        team=winners,
        details={"garnet_transfer": {"from": loser_partner, "to": partner, "amount": GARNET_TRANSFER}},
    )


def _next_in(state: HornState, seat: int, *, include: bool = False) -> int:
    """The next seat clockwise from ``seat`` (``seat`` itself first if ``include``) still in."""
    for step in range(0 if include else 1, SEATS + 1):
        candidate = (seat + step) % SEATS
        if not state.pirates[candidate].out:
            return candidate
    return seat


def _put(state: HornState, seat: int, card: str | None) -> HornState:
    pirate = state.pirates[seat]
    if card is not None and pirate.holds(card) is False:
        raise IllegalActionError(f"p{seat} has no {card} in hand")
    if card is None and state.holds[seat]:
        raise IllegalActionError(f"p{seat}'s card must be doubloon or skull")
    return _set(state, pirates=_with(state.pirates, seat, pirate.lays(card)))


def _with(
    pirates: tuple[Pirate, Pirate, Pirate, Pirate], seat: int, pirate: Pirate
) -> tuple[Pirate, Pirate, Pirate, Pirate]:
    items = list(pirates)
    items[seat] = pirate
    return items[0], items[1], items[2], items[3]


def _set(state: HornState, **changes: Any) -> HornState:
    """``state`` with ``changes`` made to it in place: only ever the new state an action is making
    (:meth:`Hornswoggle.apply` copied it for that action, and no one else holds it yet)."""
    for name, value in changes.items():
        object.__setattr__(state, name, value)
    return state


def _say(state: HornState, kind: str, **data: Plain) -> HornState:
    """Record what happened, as data (words.py says it in words)."""
    event: dict[str, Plain] = {"type": kind, **data}
    return _set(state, events=(*state.events, event))


_BY_PHASE: Final[dict[str, Callable[[Hornswoggle, HornState, int, HornAction], HornState]]] = {
    "order": Hornswoggle._order,
    "opening": Hornswoggle._opening,
    "turns": Hornswoggle._turn,
    "bidding": Hornswoggle._bidding,
    "flipping": Hornswoggle._flip,
    "discarding": Hornswoggle._discard,
}
"""The method that plays an action in each phase of a match still on (a table made once, not a
dictionary of bound methods made for every action)."""

HORNSWOGGLE: Final = Hornswoggle()
