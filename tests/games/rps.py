"""A fourth game that exists only for the tests: rock-paper-scissors, face down.

It has what the three real games have between them, small: a hidden choice (each round both
players lay a card face down at once, a commitment that travels hidden), public turns (each then
flips the other's card, the leader first, and the flip is applied with the card its owner opens)
and an optional action (while the leader flips, the other player may double the round's stakes).
First to three points; a round of equal cards scores nothing; after fifteen rounds, the higher
score wins (equal: a draw). The games' table gets it from :data:`ENTRY` (tests/test_every_game.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.base import Ending, Outcome, only_fields
from p2pgenius.games.catalog import BotLevels, Entry
from p2pgenius.games.spec import Finding, GameSpec, HiddenChoices, Piles, TimeOption, seat_label

NAME: Final = "rps"
CARDS: Final = ("rock", "paper", "scissors")
BEATS: Final = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
TO_WIN: Final = 3
MAX_ROUNDS: Final = 15


class RpsEnding(Ending):
    """How a match ends: on points (the first to three, or the higher after fifteen rounds), or
    tied on points after fifteen."""

    POINTS = "points"
    POINTS_TIED = "points_tied"


@dataclass(frozen=True, slots=True)
class Lay:
    card: str | None  # None: another peer's card, unseen

    def to_plain(self) -> dict[str, Plain]:
        return {"type": "place", "card": self.card}


@dataclass(frozen=True, slots=True)
class Flip:
    pile: int
    card: str | None = None  # the card its owner opened (None: as chosen, before the opening)

    def to_plain(self) -> dict[str, Plain]:
        plain: dict[str, Plain] = {"type": "flip", "pile": self.pile}
        return plain if self.card is None else {**plain, "card": self.card}


@dataclass(frozen=True, slots=True)
class Double:
    def to_plain(self) -> dict[str, Plain]:
        return {"type": "double"}


@dataclass(frozen=True, slots=True)
class Timeout:
    def to_plain(self) -> dict[str, Plain]:
        return {"type": "timeout"}


Action = Lay | Flip | Double | Timeout


@dataclass(frozen=True, slots=True)
class Card:
    value: str | None  # None: face down and not ours
    up: bool = False


@dataclass(frozen=True, slots=True)
class RpsState:
    phase: str = "lay"  # "lay", "flip" or "over"
    round: int = 1
    leader: int = 0
    current: int = 0  # whose flip it is
    stakes: int = 1
    points: tuple[int, int] = (0, 0)
    piles: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    events: tuple[dict[str, Plain], ...] = ()


class FaceDown:
    """The engine (see the module's doc)."""

    name = NAME

    def initial(self, setup: Mapping[str, Any], options: Mapping[str, Any]) -> RpsState:
        if setup or set(options) - {"move_seconds"}:
            raise LocalMisuseError("rps takes no setup and only the move_seconds option")
        return RpsState()

    def seats(self, state: RpsState) -> int:
        return 2

    def to_act(self, state: RpsState) -> tuple[int, ...]:
        if state.phase == "lay":
            return tuple(seat for seat in (0, 1) if not state.piles[seat])
        if state.phase == "flip":
            other = 1 - state.current
            window = state.current == state.leader and state.stakes == 1
            return (state.current, other) if window else (state.current,)
        return ()

    def waiting_on(self, state: RpsState) -> tuple[int, ...]:
        if state.phase == "flip":
            return (state.current,)
        return self.to_act(state)

    def legal_actions(self, state: RpsState, seat: int) -> Sequence[Action]:
        if seat not in self.to_act(state):
            return ()
        if state.phase == "lay":
            return tuple(Lay(card) for card in CARDS)
        if seat == state.current:
            return (Flip(1 - seat),)
        return (Double(),)

    def parse_action(self, data: Any) -> Action:
        kind = data.get("type") if isinstance(data, Mapping) else None
        if kind == "timeout":
            only_fields(data)
            return Timeout()
        if kind == "double":
            only_fields(data)
            return Double()
        if kind == "place":
            only_fields(data, "card")
            card = data.get("card")
            if card is not None and card not in CARDS:
                raise IllegalActionError(f"a card is one of {', '.join(CARDS)}")
            return Lay(card)
        if kind == "flip":
            only_fields(data, "pile", "card")
            pile, card = data.get("pile"), data.get("card")
            # (type, not just equality: True == 1, and a boolean is no pile number)
            if type(pile) is not int or pile not in (0, 1) or (card is not None and card not in CARDS):
                raise IllegalActionError("flip names pile 0 or 1 (and, opened, its card)")
            return Flip(pile, card)
        raise IllegalActionError("an action is place, flip, double or timeout")

    def timeout_action(self, state: RpsState, seat: int) -> Action:
        """What a timeout plays: rock when laying, the only flip when flipping."""
        return Lay("rock") if state.phase == "lay" else Flip(1 - seat)

    def apply(self, state: RpsState, seat: int, action: Action) -> RpsState:
        if seat not in self.to_act(state):
            raise IllegalActionError(f"not p{seat}'s turn ({state.phase})")
        if isinstance(action, Timeout):
            if seat != state.current and state.phase == "flip":
                raise IllegalActionError("a double is never forced: let it pass")
            action = self.timeout_action(state, seat)
        if isinstance(action, Lay) and state.phase == "lay":
            return self._lay(state, seat, action)
        if isinstance(action, Double) and state.phase == "flip" and seat != state.current:
            return replace(state, stakes=2, events=({"type": "double", "seat": seat},))
        if isinstance(action, Flip) and state.phase == "flip" and seat == state.current:
            return self._flip(state, seat, action)
        raise IllegalActionError(f"p{seat} cannot {action.to_plain()['type']} now")

    def _lay(self, state: RpsState, seat: int, action: Lay) -> RpsState:
        piles = list(state.piles)
        piles[seat] = (Card(action.card),)
        events: tuple[dict[str, Plain], ...] = ({"type": "laid", "seat": seat},)
        if all(piles):
            events += ({"type": "flip_turn", "seat": state.leader},)
            return replace(
                state, phase="flip", current=state.leader, piles=(piles[0], piles[1]), events=events
            )
        return replace(state, piles=(piles[0], piles[1]), events=events)

    def _flip(self, state: RpsState, seat: int, action: Flip) -> RpsState:
        if action.pile != 1 - seat:
            raise IllegalActionError(f"p{seat} flips p{1 - seat}'s card, not its own")
        known = state.piles[action.pile][0].value if state.piles[action.pile] else None
        card = action.card if action.card is not None else known
        if card is None:  # (over the network, the flip is applied with the card its owner opened)
            raise IllegalActionError("a flip is applied with the card face down there, opened")
        if known is not None and card != known:
            raise IllegalActionError(f"the card on p{action.pile}'s pile is {known}, not {card}")
        action = Flip(action.pile, card)
        piles = list(state.piles)
        piles[action.pile] = (Card(card, up=True),)
        flipped = replace(state, piles=(piles[0], piles[1]))
        event: dict[str, Plain] = {"type": "flip", "seat": seat, "pile": action.pile, "card": card}
        if seat == state.leader:
            return replace(flipped, current=1 - seat, events=(event,))
        return self._score(flipped, event)

    def _score(self, state: RpsState, flipped: dict[str, Plain]) -> RpsState:
        a, b = (pile[0].value for pile in state.piles)
        points = list(state.points)
        winner = None if a == b else (0 if a is not None and BEATS[a] == b else 1)
        if winner is not None:
            points[winner] += state.stakes
        events: tuple[dict[str, Plain], ...] = (
            flipped,
            {"type": "round", "round": state.round, "winner": winner, "points": list(points)},
        )
        over = max(points) >= TO_WIN or state.round >= MAX_ROUNDS
        leader = 1 - state.leader
        return RpsState(
            phase="over" if over else "lay",
            round=state.round + 1,
            leader=leader,
            current=leader,
            points=(points[0], points[1]),
            events=events,
        )

    def outcome(self, state: RpsState) -> Outcome | None:
        if state.phase != "over":
            return None
        a, b = state.points
        if a == b:
            return Outcome(None, RpsEnding.POINTS_TIED)
        return Outcome(0 if a > b else 1, RpsEnding.POINTS)

    def full(self, state: RpsState) -> dict[str, Plain]:
        return self._shown(state, lambda seat, card: card.value)

    def public(self, state: RpsState) -> dict[str, Plain]:
        return self._shown(state, lambda seat, card: card.value if card.up else "hidden")

    def view(self, state: RpsState, seat: int) -> dict[str, Plain]:
        return {
            **self._shown(state, lambda s, card: card.value if card.up or s == seat else "hidden"),
            "you": seat,
        }

    def _shown(self, state: RpsState, show: Any) -> dict[str, Plain]:
        return {
            "phase": state.phase,
            "round": state.round,
            "leader": state.leader,
            "current": state.current,
            "stakes": state.stakes,
            "points": list(state.points),
            "piles": [[show(seat, card) for card in pile] for seat, pile in enumerate(state.piles)],
        }

    def events(self, state: RpsState) -> tuple[dict[str, Plain], ...]:
        return state.events


ENGINE: Final = FaceDown()


class RpsCards(HiddenChoices):
    """The laid cards travel hidden; each is opened when the other player flips it."""

    types = ("place",)
    owner_resolves_timeout = True

    def committing(self, state: RpsState) -> bool:
        return state.phase == "lay"

    def placeholder(self, state: RpsState, seat: int) -> Plain:
        return {"type": "place", "card": None}

    def own_timeout(self, state: RpsState, seat: int) -> Any:
        return ENGINE.timeout_action(state, seat)

    def audit(
        self, setup: Mapping[str, Any], options: Mapping[str, Any], log: list[tuple[int, Any]], state: Any
    ) -> Finding:
        return Finding(None)  # (any card may be laid at any time: nothing to hold anyone to)


class RpsPiles(Piles):
    """One card a round on each player's pile."""

    def lays_on_pile(self, action: Mapping[str, Plain] | Plain) -> bool:
        return isinstance(action, Mapping) and action.get("type") == "place" and "card" in action

    def pile(self, state: RpsState, seat: int) -> tuple[int, int]:
        cards = state.piles[seat]
        return len(cards), sum(1 for card in cards if card.up)


class RpsSpec(GameSpec):
    """Two players; laid cards hidden, flips public, a double optional."""

    name = NAME
    title = "Rock-paper-scissors, face down"
    optional_types = ("double",)
    time_options = (TimeOption("move_seconds", 30, "each move"),)
    demo_options: ClassVar[Mapping[str, Any]] = {}
    endings = RpsEnding
    cards = RpsCards()
    piles = RpsPiles()

    def words(self, event: Mapping[str, Any], who: Callable[[int], str] = seat_label) -> str:
        kind = event.get("type")
        seat = who(int(event.get("seat", 0)))
        if kind == "laid":
            return f"{seat} lays a card face down"
        if kind == "flip_turn":
            return f"{seat} flips first"
        if kind == "double":
            return f"{seat} doubles the stakes"
        if kind == "flip":
            return f"{seat} flips {who(int(event['pile']))}'s card: {event['card']}"
        if kind == "round":
            winner = event.get("winner")
            taken = "nobody scores" if winner is None else f"{who(int(winner))} scores"
            return f"round {event['round']}: {taken} ({event['points'][0]}-{event['points'][1]})"
        return str(kind)


SPEC: Final = RpsSpec(ENGINE)


class Doubler:
    """A bot that doubles whenever it may and lays its cards in turn (a strong opponent it is not)."""

    level = "doubler"

    def __init__(self, *, seed: int) -> None:
        self.turn = seed

    def choose(self, state: RpsState, seat: int) -> Any:
        legal = ENGINE.legal_actions(state, seat)
        if not legal:
            return None
        self.turn += 1
        return legal[self.turn % len(legal)]


ENTRY: Final = Entry(
    NAME,
    RpsSpec.title,
    "a test's game: cards laid face down, flipped in turn, stakes doubled at will",
    spec=SPEC,
    bots=BotLevels({"doubler": Doubler}),
    rules=str(Path(__file__).with_suffix(".md")),
)
"""The games' table entry (no front end: the generic one shows it)."""
