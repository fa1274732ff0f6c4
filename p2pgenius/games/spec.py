"""A game's spec: everything the layers above games/ need to know about one game, in one place.

The engine (:class:`~p2pgenius.games.base.Game`) plays the rules. The spec says how the game is
*played between peers*: its traits as data (how seats are grouped among peers, whether every choice
is a sealed simultaneous commitment, which actions travel hidden, its time options) and hooks for
what differs between games (a seat's perspective, who resolves a timeout, which clock a decision
runs on, blindness, hidden cards that are flipped open, the end-of-match audit). The session, the
clocks, the bots, the UI and the command line dispatch through it and never name a game, so adding
a game is: an engine, a spec, a registration (:func:`p2pgenius.games.registry.register`), and,
for people, a front end (``p2pgenius.ui.frontends``) and bots (``p2pgenius.bots.register``).

Defaults describe the simplest game: public actions, one group per seat, no blindness, no
hidden cards, no audit. Everything here is pure: no clock, no randomness, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from p2pgenius.canonical import Plain
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.base import Game, Outcome


@dataclass(frozen=True, slots=True)
class TimeOption:
    """A time limit the match terms may set: its option name, default and what it limits."""

    name: str
    seconds: int
    what: str


@dataclass(frozen=True, slots=True)
class Period:
    """One clock: ``kind`` ("turn", "round", "challenge" or "decision"), ``key`` (which round,
    turn or stage it belongs to; time spent under one key adds up) and its whole budget."""

    kind: str
    key: int
    budget_ms: int


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


class GameSpec:
    """One game as the protocol, clocks, bots, UI and CLI see it. Subclass per game and override
    the traits and hooks that differ from these defaults."""

    name: str = ""
    """The game's name on the command line and in match terms."""
    title: str = ""
    """Its name for people."""
    rules_version: int = 1
    """Bumped whenever the engine would compute anything differently (peers must agree)."""
    groups_by_peers: ClassVar[Mapping[int, tuple[tuple[int, ...], ...]]] = {2: ((0,), (1,))}
    """For each number of peers the game allows, the seat groups the coin flip deals, one a peer."""
    sealed: bool = False
    """Every stage's choices are sealed simultaneous commitments, revealed once all are in (and,
    unless the ``fast`` option is on, they may change until each seat's time is up)."""
    hidden_types: tuple[str, ...] = ()
    """Action types that travel only as commitments when they carry a ``card`` (hidden cards)."""
    owner_resolves_timeout: bool = False
    """A seat's timeout is resolved by its own peer (:meth:`own_timeout`): a bare "timeout" action
    from a peer is then refused (its card would not be committed)."""
    optional_types: tuple[str, ...] = ()
    """The actions a seat may take when the game merely allows it to act (others let it pass)."""
    flip_type: str = ""
    """The action that flips the top hidden card of a seat's pile open ("" if the game has none);
    the pile's owner opens the card, and the flip is applied with it."""
    audited: bool = False
    """At the end every seat opens every commitment it still holds, and the spec audits them."""
    time_options: tuple[TimeOption, ...] = ()
    """The time limits of the match terms, the first being the main one."""
    demo_options: ClassVar[Mapping[str, Any]] = {}
    """Options the unattended ``demo`` and bot matches use."""
    warnings: tuple[int, ...] = ()
    """Seconds left on a "round" clock at which its player is warned."""

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

    # -- actions -------------------------------------------------------------------------------

    def hidden(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` travels only as a commitment (a hidden card), sealed games aside."""
        return isinstance(action, Mapping) and action.get("type") in self.hidden_types and "card" in action

    def unopened(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` is a hidden card as the other peers applied it (content unknown)."""
        return self.hidden(action) and isinstance(action, Mapping) and action.get("card") is None

    def committing(self, state: Any) -> bool:
        """Whether a seat may be committing to a hidden choice in ``state``."""
        return self.sealed

    def placeholder(self, state: Any, seat: int) -> Plain:
        """The hidden choice of another peer's seat, as this peer applies it (content unknown)."""
        raise NotImplementedError(f"{self.name} has no hidden choices")

    def ahead(self, state: Any) -> Any | None:
        """A state in which the seats of the *next* stage may already choose, while the stage of
        ``state`` is still open; None (the default): the next stage waits for this one.

        Only where nothing done in the open stage can change who acts next or what each may do,
        and only for choices that travel as commitments (no one learns them early): the
        Hornswoggle opening cards, while the Death Match Opponent picks who begins."""
        return None

    def own_timeout(self, state: Any, seat: int) -> Any | None:
        """The action a seat's own peer sends when that seat's time runs out, if the seat's own
        peer must resolve it (it holds a secret the timeout uses); None: send "timeout"."""
        return None

    # -- clocks --------------------------------------------------------------------------------

    def period(self, options: Mapping[str, Any], state: Any, stage: int, seat: int, round_key: int) -> Period:
        """The clock ``seat``'s decision at ``stage`` runs on. ``state`` may be None (a blinded
        peer does not know it). ``round_key``: the stage at which the current round began."""
        option = self.time_options[0]
        return Period("decision", stage, 1000 * int(options.get(option.name, option.seconds)))

    def new_round(self, before: Any, after: Any) -> bool:
        """Whether applying a stage took the match from ``before`` into a new round (fresh round
        clocks)."""
        return False

    # -- blindness -----------------------------------------------------------------------------

    def blind(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat`` cannot see the others' choices now (or ``turns_ago`` turns ago)."""
        return False

    def blind_fix(self, state: Any, seat: int, action: Any) -> Any:
        """A choice made while blind that turns out illegal on the real field, made legal (the
        same way on every peer)."""
        raise NotImplementedError(f"{self.name} has no blindness")

    def claim_shaped(self, view: Mapping[str, Plain]) -> bool:
        """Whether a blindness claim has the shape of this game's view."""
        return False

    # -- hidden cards that are flipped open ----------------------------------------------------

    def flipped_pile(self, action: Mapping[str, Plain] | Plain) -> int | None:
        """The pile ``action`` flips, if it is a flip."""
        if self.flip_type and isinstance(action, Mapping) and action.get("type") == self.flip_type:
            pile = action.get("pile")
            return pile if type(pile) is int else None
        return None

    def lays_on_pile(self, action: Mapping[str, Plain] | Plain) -> bool:
        """Whether ``action`` lays a hidden card on its seat's pile."""
        return False

    def pile(self, state: Any, seat: int) -> tuple[int, int]:
        """(cards on ``seat``'s pile, of which face up) in ``state``."""
        return (0, 0)

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

    def flip_with(self, pile: int, opened: Plain) -> Plain:
        """The flip of ``pile`` as applied, with the card its owner opened (``opened``: the
        opened hidden action)."""
        card = opened.get("card") if isinstance(opened, Mapping) else None
        return {"type": self.flip_type, "pile": pile, "card": card}

    def warm(self) -> None:
        """Load once what the engine would otherwise load the first time it is asked (a table,
        an index): a networked peer calls this in a worker thread before play, so that nothing
        on its event loop takes long. By default there is nothing to load."""

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

    # -- the end -------------------------------------------------------------------------------

    def audit(
        self, setup: Mapping[str, Any], options: Mapping[str, Any], log: list[tuple[int, Any]], state: Any
    ) -> Outcome | None:
        """Replay the whole match with every hidden card open (``log``: (seat, parsed action));
        the outcome instead of the game's if a seat played a card it did not hold, else None."""
        return None


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
