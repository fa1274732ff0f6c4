"""A game's spec: everything the layers above games/ need to know about one game, in one place.

The engine (:class:`~p2pgenius.games.base.Game`) plays the rules. The spec says how the game is
*played between peers*: its traits as data (how seats are grouped among peers, whether every choice
is a sealed simultaneous commitment, which actions travel hidden, its time options, how its matches
end) and hooks for what differs between games (a seat's perspective, who resolves a timeout, which
clock a decision runs on, blindness, hidden cards that are flipped open, the end-of-match audit, its
events and results in words). The session, the clocks, the bots, the UI and the command line
dispatch through it and never name a game, so adding a game is: an engine, a spec, its entry in
the games' table (:mod:`p2pgenius.games.catalog`), and, for people, a front end (a module of
``p2pgenius.ui.frontends``, listed there) and bots (the files: docs/architecture.md, "Adding a game").

Defaults describe the simplest game: public actions, one group per seat, no blindness, no
hidden cards, no audit. Everything here is pure: no clock, no randomness, no I/O.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol

from p2pgenius.canonical import Plain
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.base import Ending, Game, Outcome


@dataclass(frozen=True, slots=True)
class TimeOption:
    """A time limit the match terms may set: its option name, default and what it limits, and its
    default in a match by correspondence (``by_mail``: two days, time for a player who looks once
    a day)."""

    name: str
    seconds: int
    what: str
    by_mail: int = 2 * 86400


@dataclass(frozen=True, slots=True)
class Period:
    """One clock: ``kind`` ("turn", "round", "challenge" or "decision"), ``key`` (which round,
    turn or stage it belongs to; time spent under one key adds up) and its whole budget."""

    kind: str
    key: int
    budget_ms: int


@dataclass(frozen=True, slots=True)
class Finding:
    """What the end-of-match audit found, replaying the whole match with every hidden choice open:
    the outcome instead of the game's (None: the game's stands), and the state after each action
    of the replay (by the spec's engine, from its initial state for the terms' setup and options)
    when it applied every one, which a transcript's report shows instead of working them out
    again; else none."""

    outcome: Outcome | None
    states: tuple[Any, ...] = ()


class Played(Protocol):
    """One stage of a match as a transcript holds it (``p2pgenius.protocol.transcript.Step``):
    the actions applied, what the engine said happened, and the state after."""

    @property
    def actions(self) -> Sequence[tuple[int, Plain]]:
        """(seat, action in its plain form), in the order applied."""
        ...

    @property
    def events(self) -> Sequence[Plain]:
        """The engine's events of the stage."""
        ...

    @property
    def state(self) -> Any:
        """The engine state after the stage."""
        ...


def seat_label(seat: int) -> str:
    """A seat as the rules write it: "p1"."""
    return f"p{seat}"


def seat_named(names: Mapping[int, str], seat: int) -> str:
    """A seat by its player's name, ``names`` (seat: name) permitting: "bob (p1)", else "p1"."""
    name = names.get(seat)
    return f"{name} (p{seat})" if name else f"p{seat}"


class BlindnessRules(ABC):
    """The rules of blindness, in a game where a seat may for a while not see the others' choices
    (the duel): its peer is sent signed claims instead, and checks them once it sees again."""

    @abstractmethod
    def blind(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat`` cannot see the others' choices now (or ``turns_ago`` turns ago)."""

    @abstractmethod
    def fix(self, state: Any, seat: int, action: Any) -> Any:
        """A choice made while blind that turns out illegal on the real field, made legal (the
        same way on every peer)."""

    @abstractmethod
    def claim_shaped(self, view: Mapping[str, Plain]) -> bool:
        """Whether a blindness claim has the shape of this game's view."""


class HiddenChoices(ABC):
    """Choices that travel only as commitments (hidden cards): the other peers apply a
    placeholder; their owner opens them when flipped, or in the audit at the end."""

    types: tuple[str, ...] = ()
    """The action types that are hidden when they carry a ``card``."""
    owner_resolves_timeout: bool = False
    """A seat's timeout is resolved by its own peer (:meth:`own_timeout`), since it lays a card
    from a hand only that peer knows: a bare "timeout" from a peer is then refused."""

    def hidden(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` travels only as a commitment (any value a peer sent: False)."""
        if not isinstance(action, Mapping):
            return False
        kind = action.get("type")  # (a string first: a list is not even hashable)
        return isinstance(kind, str) and kind in self.types and "card" in action

    def unopened(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` is a hidden choice as the other peers applied it (content unknown)."""
        return self.hidden(action) and isinstance(action, Mapping) and action.get("card") is None

    @abstractmethod
    def committing(self, state: Any) -> bool:
        """Whether a seat may be committing to a hidden choice in ``state``."""

    @abstractmethod
    def placeholder(self, state: Any, seat: int) -> Plain:
        """Another peer's hidden choice, as this peer applies it (content unknown)."""

    def own_timeout(self, state: Any, seat: int) -> Any | None:
        """The action a seat's own peer sends when the seat's time runs out (None: "timeout")."""
        return None

    @abstractmethod
    def audit(
        self, setup: Mapping[str, Any], options: Mapping[str, Any], log: list[tuple[int, Any]], state: Any
    ) -> Finding:
        """At the end every seat opens every hidden choice: replay the whole match with them
        (``log``: (seat, parsed action)); the outcome instead of the game's if a seat played a
        card it did not hold, and the states the replay went through."""


class Piles(ABC):
    """Hidden cards laid face down on each seat's pile and flipped open one by one: the flip is
    applied with the card its owner's peer opens."""

    flip_type: str = "flip"
    """The action that flips the top card of a pile."""

    def flipped_pile(self, action: Mapping[str, Plain] | Plain) -> int | None:
        """The pile ``action`` flips, if it is a flip."""
        if isinstance(action, Mapping) and action.get("type") == self.flip_type:
            pile = action.get("pile")
            return pile if type(pile) is int else None
        return None

    @abstractmethod
    def lays_on_pile(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` lays a hidden card on its seat's pile."""

    @abstractmethod
    def pile(self, state: Any, seat: int) -> tuple[int, int]:
        """(cards on ``seat``'s pile, of which face up) in ``state``."""

    def flip_with(self, pile: int, opened: Plain) -> Plain:
        """The flip of ``pile`` as applied, with the card its owner opened."""
        card = opened.get("card") if isinstance(opened, Mapping) else None
        return {"type": self.flip_type, "pile": pile, "card": card}


class RoundClock(ABC):
    """Clocks that span a round of several decisions (the Magic Square's thinking time)."""

    warnings: tuple[int, ...] = ()
    """Seconds left on a round clock at which its player is warned."""

    @abstractmethod
    def new_round(self, before: Any, after: Any) -> bool:
        """Whether applying a stage took the match from ``before`` into a new round (fresh round
        clocks)."""


FEATURES: Final = {
    "blindness": BlindnessRules,
    "cards": HiddenChoices,
    "piles": Piles,
    "round_clock": RoundClock,
}
"""The optional parts of a spec, each present (an object of its kind) or absent (None)."""


class GameSpec:
    """One game as the protocol, clocks, bots, UI and CLI see it. Subclass per game: set the
    traits that differ, give it the optional parts it has (:data:`FEATURES`), override the hooks
    that differ from these defaults."""

    name: str = ""
    """The game's name on the command line and in match terms."""
    title: str = ""
    """Its name for people."""
    rules_version: int = 1
    """Bumped whenever the engine would compute anything differently (peers must agree)."""
    older_engines: ClassVar[Mapping[int, Game[Any, Any]]] = {}
    """Engines of earlier rules versions, by version, that replay a match of that version exactly
    (its state hashes and views as its peers computed them): an observer (``verify``, a spectator)
    reads such a match with one; a player plays only ``rules_version`` (SPEC.md section 8)."""
    groups_by_peers: ClassVar[Mapping[int, tuple[tuple[int, ...], ...]]] = {2: ((0,), (1,))}
    """For each number of peers the game allows, the seat groups the coin flip deals, one a peer."""
    sides: ClassVar[tuple[tuple[int, ...], ...]] = ((0,), (1,))
    """The seats that win or lose together (a team each), in seat order."""
    sealed: bool = False
    """Every stage's choices are sealed simultaneous commitments, revealed once all are in (and,
    unless the ``fast`` option is on, they may change until each seat's time is up)."""
    optional_types: tuple[str, ...] = ()
    """The actions a seat may take when the game merely allows it to act (others let it pass)."""
    time_options: tuple[TimeOption, ...] = ()
    """The time limits of the match terms, the first being the main one."""
    demo_options: ClassVar[Mapping[str, Any]] = {}
    """Options the unattended ``demo`` and bot matches use."""
    endings: ClassVar[type[Ending]]
    """How a match of the game may end: its closed set of endings, the ``reason`` of its outcomes
    (every game names its own; the spec is refused without)."""

    blindness: BlindnessRules | None = None
    """Present in a game where a seat may play blind (the duel)."""
    cards: HiddenChoices | None = None
    """Present in a game with hidden choices that travel as commitments (Hornswoggle)."""
    piles: Piles | None = None
    """Present in a game whose hidden cards lie on piles and are flipped open (needs ``cards``)."""
    round_clock: RoundClock | None = None
    """Present in a game whose clocks span rounds (the Magic Square)."""

    def __init__(self, engine: Game[Any, Any]) -> None:
        self.engine = engine

    # -- seats ---------------------------------------------------------------------------------

    def seat_groups(self, peers: int) -> list[list[int]]:
        """The seat groups for ``peers`` peers; raises LocalMisuseError if the game cannot."""
        groups = self.groups_by_peers.get(peers)
        if groups is None:
            allowed = sorted(self.groups_by_peers)
            few = f"exactly {allowed[0]}" if len(allowed) == 1 else f"{allowed[0]} to {allowed[-1]}"
            raise LocalMisuseError(f"{self.name} is played by {few} peers")
        return [list(group) for group in groups]

    def perspective(self, state: Any, seats: Sequence[int]) -> Any:
        """The starting state as a peer holding ``seats`` may know it (hidden hands unknown)."""
        return state

    def winners_without(self, seats: Sequence[int]) -> tuple[int, ...]:
        """The seats that win when the peer holding ``seats`` forfeits or is caught cheating:
        every seat of every side it holds no seat of (its own side loses with it)."""
        return tuple(sorted(seat for side in self.sides if not set(side) & set(seats) for seat in side))

    # -- actions (the optional parts, asked through one place) ----------------------------------

    @property
    def hidden_types(self) -> tuple[str, ...]:
        """The action types that travel hidden (none without ``cards``)."""
        return self.cards.types if self.cards is not None else ()

    @property
    def flip_type(self) -> str:
        """The action that flips a pile ("" without ``piles``)."""
        return self.piles.flip_type if self.piles is not None else ""

    @property
    def audited(self) -> bool:
        """At the end every seat opens every hidden choice it made, and the spec audits them."""
        return self.cards is not None

    @property
    def owner_resolves_timeout(self) -> bool:
        """A seat's timeout is resolved by its own peer (a bare "timeout" is refused)."""
        return self.cards is not None and self.cards.owner_resolves_timeout

    @property
    def warnings(self) -> tuple[int, ...]:
        """Seconds left on a round clock at which its player is warned."""
        return self.round_clock.warnings if self.round_clock is not None else ()

    def hidden(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` travels only as a commitment (a hidden card), sealed games aside."""
        return self.cards is not None and self.cards.hidden(action)

    def unopened(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` is a hidden card as the other peers applied it (content unknown)."""
        return self.cards is not None and self.cards.unopened(action)

    def committing(self, state: Any) -> bool:
        """Whether a seat may be committing to a choice in ``state``."""
        return self.sealed or (self.cards is not None and self.cards.committing(state))

    def own_timeout(self, state: Any, seat: int) -> Any | None:
        """The action a seat's own peer sends when that seat's time runs out, if the seat's own
        peer must resolve it; None: send "timeout"."""
        return self.cards.own_timeout(state, seat) if self.cards is not None else None

    def ahead(self, state: Any) -> Any | None:
        """A state in which the seats of the *next* stage may already choose, while the stage of
        ``state`` is still open; None (the default): the next stage waits for this one.

        Only where nothing done in the open stage can change who acts next or what each may do,
        and only for choices that travel as commitments (no one learns them early): the
        Hornswoggle opening cards, while the Death Match Opponent picks who begins."""
        return None

    # -- clocks --------------------------------------------------------------------------------

    def period(self, options: Mapping[str, Any], state: Any, stage: int, seat: int, round_key: int) -> Period:
        """The clock ``seat``'s decision at ``stage`` runs on. ``state`` may be None (a blinded
        peer does not know it). ``round_key``: the stage at which the current round began."""
        option = self.time_options[0]
        return Period("decision", stage, 1000 * int(options.get(option.name, option.seconds)))

    def new_round(self, before: Any, after: Any) -> bool:
        """Whether applying a stage took the match from ``before`` into a new round."""
        return self.round_clock is not None and self.round_clock.new_round(before, after)

    # -- blindness: the seats kept in the dark (the session's sight, SPEC 6 "Sight") -----------

    def blind(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat`` cannot see the others' choices now (or ``turns_ago`` turns ago): it is
        kept in the dark, its peer sent view claims instead of them."""
        return self.blindness is not None and self.blindness.blind(state, seat, turns_ago)

    def made_legal(self, state: Any, seat: int, action: Any) -> Any:
        """A choice ``seat`` made in the dark that turns out illegal on the real field, made legal
        (the same way on every peer; without blindness, as it is)."""
        return action if self.blindness is None else self.blindness.fix(state, seat, action)

    def claim_shaped(self, view: Mapping[str, Plain]) -> bool:
        """Whether a view claim has the shape of this game's view (none without blindness)."""
        return self.blindness is not None and self.blindness.claim_shaped(view)

    def dark_mark(self, seats: str) -> str:
        """How a record marks a stage played while ``seats`` ("p1", "alice (p1)", "p0 and p1")
        were kept in the dark (``export``, the replay): "p1 in the dark" by default."""
        return f"{seats} in the dark"

    def unopened_mark(self) -> str:
        """How ``export`` writes a stage the transcript shows only through a view claim (it
        stops before the choices withheld from the seat in the dark were opened)."""
        return (
            "not opened: the transcript stops before the choices withheld from the seat in the dark "
            "were opened"
        )

    # -- hidden cards that are flipped open ----------------------------------------------------

    def flipped_pile(self, action: Mapping[str, Plain] | Plain) -> int | None:
        """The pile ``action`` flips, if it is a flip."""
        return self.piles.flipped_pile(action) if self.piles is not None else None

    def lays_on_pile(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` lays a hidden card on its seat's pile."""
        return self.piles is not None and self.piles.lays_on_pile(action)

    def opens(self, applied: Plain, opened: Plain) -> bool:
        """Whether ``opened`` is a true opening of a hidden card that was applied as ``applied``
        (the same kind of action, with the same fields, a real card in it, and legal in form).
        Anything else convicts the peer that committed it."""
        if not (isinstance(applied, Mapping) and isinstance(opened, Mapping)):
            return False
        if opened.get("type") != applied.get("type") or set(opened) != set(applied):
            return False
        if opened.get("card") is None:
            return False
        try:
            self.engine.parse_action(opened)
        except P2PGeniusError:
            return False
        return True

    def warm(self) -> object:
        """Load once what the engine would otherwise load the first time it is asked (a table,
        an index): a networked peer calls this in a worker thread before play, so that nothing
        on its event loop takes long (what it returns, what was loaded, is not used). By default
        there is nothing to load."""
        return None

    # -- the record of a match ---------------------------------------------------------------

    def words(self, event: Mapping[str, Any], who: Callable[[int], str] = seat_label) -> str:
        """One of the engine's events (data: its ``type`` and fields) in a sentence for people;
        ``who`` renders a seat ("p1" by default). The one place a game's events are worded: no
        layer reads these sentences back. By default, the event's type."""
        del who
        return str(event.get("type", ""))

    def notation(self, initial: Any, steps: Sequence[Played]) -> list[str]:
        """Every stage of a match in one line for people, without its number (``p2pgenius
        export``, docs/export.md). ``initial`` is the state before the first stage. By default,
        each action as ``p<seat> <type>`` and its other fields as ``key=value``, joined by ", "."""
        return [", ".join(_plain_action(seat, action) for seat, action in step.actions) for step in steps]

    # -- the result, in words ------------------------------------------------------------------

    def read_outcome(self, plain: Mapping[str, Plain]) -> Outcome:
        """An outcome of this game from its plain form (an ``end``'s, a transcript's, a state's);
        ValueError if it is none (:meth:`Outcome.from_plain`)."""
        return Outcome.from_plain(plain, self.endings)

    def outcome_words(
        self,
        outcome: Outcome,
        names: Mapping[int, str] | None = None,
        *,
        mine: Sequence[int] | None = None,
        brief: bool = False,
    ) -> str:
        """The result in words: the one place a game's results are worded.

        * for the record, seats by number (``p2pgenius export``): "p0 wins (knocked out)", "p1
          and p3 win (team eliminated)", "p0 wins (round wins 2-0)", "a draw (draw)";
        * ``brief``, as a match says it ends (its log; ``play`` after the person's words): the
          winner's seat and the ending, "p0 wins (round wins)";
        * with ``names`` (seat: player), to an onlooker (the replay, ``watch``): "alice (p0) wins
          (knocked out)", "bob (p1/p3) wins (team eliminated)" (a team of one peer's seats), "bob
          (p1) and carol (p3) win (...)", "alice (p0) wins, 2-0 in rounds", "a draw (draw)";
        * with ``mine`` too, to the person at the table holding those seats (the first theirs;
          none: a spectator there): "you win (bob (p1) surrendered)", "you lose, 1-2 in rounds",
          "your team wins (p1 and p3 are out of cards)", "alice (p0) wins (knocked out)".

        The game says its part through :meth:`ending_words`, :meth:`tally_words` and
        :meth:`loss_words`."""
        if brief:
            who = "a draw" if outcome.winner is None else f"p{outcome.winner} wins"
            return f"{who} ({outcome.reason.words})"
        if names is None:
            return self._numbered(outcome)
        if mine is None:
            return self._onlooker(outcome, names)
        return self._told(outcome, mine, names)

    def ending_words(self, outcome: Outcome) -> str:
        """How the match ended, for the record (``p2pgenius history``; within the result
        ``export`` writes): "knocked out", "round wins 2-0". By default, the ending's words."""
        return outcome.reason.words

    def tally_words(self, outcome: Outcome, seat: int) -> str | None:
        """The score the match ended at, from ``seat``'s side ("2-1 in rounds"), in a game that
        keeps one; None (the default): the ending is told instead."""
        del outcome, seat
        return None

    def loss_words(self, outcome: Outcome, losers: str | None) -> str:
        """How the match ended, told to a player: said of the losing side, ``losers`` (their
        names), to one who won ("bob (p1) surrendered"); ``losers`` None, to one who lost ("you
        surrendered"), or of a draw. By default, the ending's words."""
        del losers
        return outcome.reason.words

    def _numbered(self, outcome: Outcome) -> str:
        how = self.ending_words(outcome)
        if outcome.winner is None:
            return f"a draw ({how})"
        if len(outcome.team) > 1:
            return f"{' and '.join(f'p{seat}' for seat in outcome.team)} win ({how})"
        return f"p{outcome.winner} wins ({how})"

    def _onlooker(self, outcome: Outcome, names: Mapping[int, str]) -> str:
        if outcome.winner is None:
            return self.outcome_words(outcome, brief=True)
        how, team = outcome.reason.words, outcome.team
        if team:
            if len({names.get(seat) for seat in team}) == 1 and names.get(team[0]):
                return f"{names[team[0]]} ({'/'.join(f'p{seat}' for seat in team)}) wins ({how})"
            return f"{' and '.join(seat_named(names, seat) for seat in team)} win ({how})"
        tally = self.tally_words(outcome, outcome.winner)
        if tally is not None:
            return f"{seat_named(names, outcome.winner)} wins, {tally}"
        return f"{seat_named(names, outcome.winner)} wins ({how})"

    def _told(self, outcome: Outcome, mine: Sequence[int], names: Mapping[int, str]) -> str:
        if outcome.winner is None:
            return f"a draw ({self.loss_words(outcome, None)})"
        if not mine:  # (a spectator: the winner by name)
            return f"{seat_named(names, outcome.winner)} wins ({outcome.reason.words})"
        winners = outcome.team or (outcome.winner,)
        won = mine[0] in winners
        losers = " and ".join(seat_named(names, s) for s in sorted(set(names) | {0, 1}) if s not in winners)
        if outcome.team:
            head = "your team wins" if won else "your team loses"
        else:
            head = "you win" if won else "you lose"
        tally = self.tally_words(outcome, mine[0])
        if tally is not None:
            return f"{head}, {tally}"
        return f"{head} ({self.loss_words(outcome, losers if won else None)})"

    # -- the end -------------------------------------------------------------------------------

    def audit(
        self, setup: Mapping[str, Any], options: Mapping[str, Any], log: list[tuple[int, Any]], state: Any
    ) -> Finding:
        """The audit (its outcome None: the game's stands; always so without hidden choices). A
        game's audit written before it gave a :class:`Finding` gives the outcome alone: it is
        taken as one without states (its report works them out again)."""
        if self.cards is None:
            return Finding(None)
        found: Finding | Outcome | None = self.cards.audit(setup, options, log, state)
        return found if isinstance(found, Finding) else Finding(found)


GAME_METHODS: Final = (
    "initial",
    "seats",
    "to_act",
    "waiting_on",
    "legal_actions",
    "parse_action",
    "apply",
    "outcome",
    "full",
    "public",
    "view",
    "events",
)
"""What every engine implements (:class:`~p2pgenius.games.base.Game`)."""


def check(spec: object, name: str) -> None:
    """Refuse (TypeError) a spec that is not a whole game named ``name``: not a GameSpec, its
    engine missing a method of the Game protocol or refusing the timeout every engine must take,
    an optional part that is not of its kind, piles without hidden choices, or no endings."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"the spec of {name!r} is not a GameSpec but {type(spec).__name__}")
    if spec.name != name or getattr(spec.engine, "name", None) != name:
        raise TypeError(f"the table names {name!r}, its spec {spec.name!r}, its engine {spec.engine!r}")
    missing = [method for method in GAME_METHODS if not callable(getattr(spec.engine, method, None))]
    if missing:
        raise TypeError(f"the engine of {name!r} lacks {', '.join(missing)} (the Game protocol)")
    for part, kind in FEATURES.items():
        value = getattr(spec, part)
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"{name!r}: its {part} must be a {kind.__name__} or None, not {value!r}")
    if spec.piles is not None and spec.cards is None:
        raise TypeError(f"{name!r}: cards on piles are hidden choices: give it cards too")
    if not spec.time_options:
        raise TypeError(f"{name!r}: a game needs at least one time option (its main clock)")
    endings = getattr(spec, "endings", None)
    if not (isinstance(endings, type) and issubclass(endings, Ending) and len(endings) > 0):
        raise TypeError(f"{name!r}: a game names how its matches end: endings, an Ending with members")
    try:
        spec.engine.parse_action({"type": "timeout"})
    except P2PGeniusError as exc:
        raise TypeError(f"the engine of {name!r} refuses the timeout every engine takes: {exc}") from None


def _plain_action(seat: int, action: Plain) -> str:
    """An action in the default notation: ``p0 bid count=3``."""
    if not isinstance(action, Mapping):
        return f"p{seat} {_words(action)}"
    fields = " ".join(f"{key}={_words(value)}" for key, value in sorted(action.items()) if key != "type")
    return f"p{seat} {action.get('type')}" + (f" {fields}" if fields else "")


def _words(value: Plain) -> str:
    """A plain value in compact text: a string as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=lambda b: b.hex())
