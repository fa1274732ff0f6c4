"""The small interface every rules engine implements.

A game is a set of pure functions over immutable states. Nothing here reads the clock, the network or
global randomness: the same setup and the same actions give byte-identical states everywhere, which
is what lets two peers run the same engine and compare state hashes.

Hidden information and simultaneous moves are part of the interface from the start:

* ``to_act`` may name several seats at once (simultaneous moves). Their actions may be applied in
  any order; the engine resolves the step once every named seat has acted. Over the network each of
  those actions travels as a commitment and is applied only after all are opened.
* ``public`` is what every peer can know, and therefore what peers hash and compare; ``full`` is
  everything (what ``p2pgenius sim`` prints); ``view`` is what one seat may know.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import types
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Generic, Protocol, TypeVar

from p2pgenius.canonical import Plain, digest, pack_shaped
from p2pgenius.errors import IllegalActionError, shown

S = TypeVar("S")
A = TypeVar("A")
T = TypeVar("T")


class Ending(StrEnum):
    """How a match ended: each game's closed set of endings is a subclass with a member for each
    (``DuelEnding.SURRENDER``), whose value is the snake_case ``reason`` its outcomes carry on the
    wire and in transcripts ("surrender")."""

    @property
    def words(self) -> str:
        """The ending as people read it: "knocked out"."""
        return self.value.replace("_", " ")


TEAM: Final = "winning_seats"
"""The plain form's field for a winning team's seats."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended: the seat that won (``winner``; None: a draw) and how (``reason``, one
    of its game's endings; being a string enum, it equals its plain word too: ``"surrender"``).
    In a game won by a team, ``team`` holds every seat of it and ``winner`` the one its rules
    name (Hornswoggle's Death Match player); ``details`` are what else the game records of the
    result (the rounds won, a transfer of garnets), as they travel.

    Its plain form (:meth:`to_plain`, :meth:`from_plain`) is what travels in a peer's ``end``,
    lies in the state once the match is over, and is hashed and signed:
    ``{"winning_seats": [...], ...details, "winner": ..., "reason": ...}``, the team's field
    only for a team. Each game words it in its spec (``GameSpec.outcome_words``)."""

    winner: int | None
    reason: Ending
    team: tuple[int, ...] = field(default=(), kw_only=True)
    details: Mapping[str, Plain] = field(default_factory=dict, kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.reason, Ending):
            raise TypeError(f"how a match ended is one of its game's endings, not {self.reason!r}")
        if self.team and self.winner not in self.team:
            raise ValueError(f"the winner p{self.winner} is not of the winning team {list(self.team)}")
        taken = {"winner", "reason", TEAM} & set(self.details)
        if taken:
            raise ValueError(f"an outcome's details cannot hold {sorted(taken)[0]!r}")

    @property
    def winners(self) -> tuple[int, ...]:
        """Every winning seat, in seat order (a team's every seat; none for a draw)."""
        if self.team:
            return tuple(sorted(self.team))
        return () if self.winner is None else (self.winner,)

    def to_plain(self) -> dict[str, Plain]:
        """The contract form: {"winner": ..., "reason": ..., ...game-specific fields}, byte for
        byte as peers sign it."""
        team: dict[str, Plain] = {TEAM: list(self.team)} if self.team else {}
        return {**team, **self.details, "winner": self.winner, "reason": self.reason.value}

    @classmethod
    def from_plain(cls, plain: Mapping[str, Plain], endings: type[Ending]) -> Outcome:
        """The outcome whose plain form is ``plain``, of a game that ends as ``endings`` says
        (``from_plain(o.to_plain(), endings) == o``); ValueError for anything else: a reason
        that is not one of ``endings``, a winner that is no seat, a team that is no list of them."""
        winner, reason, team = plain.get("winner"), plain.get("reason"), plain.get(TEAM, [])
        if "winner" not in plain or (winner is not None and type(winner) is not int):
            raise ValueError(f"an outcome's winner is a seat or null, not {shown(winner)}")
        if TEAM in plain and not (isinstance(team, list) and team and all(type(s) is int for s in team)):
            raise ValueError(f"an outcome's winning seats are a list of seats, not {shown(team)}")
        try:
            ending = endings(reason) if isinstance(reason, str) else None
        except ValueError:
            ending = None
        if ending is None:
            raise ValueError(f"{shown(reason)} is not how a match of this game ends")
        details = {key: value for key, value in plain.items() if key not in ("winner", "reason", TEAM)}
        return cls(winner, ending, team=tuple(team), details=details)


class Action(Protocol):
    """An action value: immutable and convertible to its one plain-data form."""

    def to_plain(self) -> dict[str, Plain]:
        """The action's JSON/msgpack form, as in docs/sim.md."""
        ...


class Game(Protocol, Generic[S, A]):
    """A rules engine. Every method is pure; states and actions are immutable values."""

    name: str

    def initial(self, setup: Mapping[str, Any], options: Mapping[str, Any]) -> S:
        """The state before the first action. Raises LocalMisuseError for a bad setup."""
        ...

    def seats(self, state: S) -> int:
        """How many seats play."""
        ...

    def to_act(self, state: S) -> tuple[int, ...]:
        """The seats that may act now (several at once for simultaneous moves; none when over)."""
        ...

    def waiting_on(self, state: S) -> tuple[int, ...]:
        """The seats the game cannot go on without (a subset of ``to_act``); the others in
        ``to_act`` hold an optional action, such as the Magic Square's challenge."""
        ...

    def legal_actions(self, state: S, seat: int) -> Sequence[A]:
        """Every legal action of ``seat`` in a stable order (for games with huge action spaces, a
        representative stable subset documented by the game, e.g. default targets only)."""
        ...

    def parse_action(self, data: Any) -> A:
        """Build an action from its plain form. Total: any value a peer may send (any msgpack
        tree, in any field) is an action or an IllegalActionError saying which field was wrong
        and what came (:func:`p2pgenius.errors.shown`), never another error. Every engine takes
        ``{"type": "timeout"}``: what its rules play when a seat's time runs out (checked when the
        game enters the games' table)."""
        ...

    def apply(self, state: S, seat: int, action: A) -> S:
        """The state after ``seat`` takes ``action``. Raises IllegalActionError, never mutates."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """The result once the match is over, else None."""
        ...

    def full(self, state: S) -> dict[str, Plain]:
        """Everything, hidden things included (what ``p2pgenius sim`` prints)."""
        ...

    def public(self, state: S) -> dict[str, Plain]:
        """What every peer knows after a complete step; the data behind the state hash."""
        ...

    def view(self, state: S, seat: int) -> dict[str, Plain]:
        """What ``seat`` may know."""
        ...

    def events(self, state: S) -> tuple[dict[str, Plain], ...]:
        """What the last step did, in words and data, for players and the UI."""
        ...


def state_hash(game: Game[Any, Any], state: Any) -> bytes:
    """The SHA-256 over the canonical encoding of the public state: what peers compare.

    A game may give its public state already in canonical shape, as ``canonical.normalise``
    would make it (every map's keys in order, lists, the exact plain types), through a method
    ``public_canonical``: that form is packed as it is, the same bytes without the walk that
    normalises it (each peer hashes every state; each game's tests compare the two). Packed as it
    is, that form is not checked: it must hold nothing ``normalise`` would change or refuse (no
    tuple, no float)."""
    shaped = getattr(game, "public_canonical", None)
    if shaped is None:
        return digest({"game": game.name, "state": game.public(state)})
    return hashlib.sha256(pack_shaped({"game": game.name, "state": shaped(state)})).digest()


def action_type(data: Any, types: Collection[str], game: str) -> str:
    """The ``type`` of an action's plain form ``data``, one of ``types``; IllegalActionError,
    saying what came, for anything else a peer may send: ``data`` not a map, or its ``type``
    missing, not a string (a list is not even hashable) or not one of ``game``'s."""
    if not isinstance(data, Mapping):
        raise IllegalActionError(f'action must be an object with a "type", got {shown(data)}')
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in types:
        raise IllegalActionError(f"unknown action type {shown(kind)} for {game}")
    return kind


def only_fields(data: Mapping[str, Any], *fields: str) -> None:
    """Refuse an action whose plain form has fields beyond ``type`` and ``fields`` (its ``type``
    already known to be one of the game's)."""
    unknown = set(data) - {"type", *fields}
    if unknown:
        first = sorted(unknown, key=str)[0]  # (the same one for string keys; any keys sort)
        raise IllegalActionError(f"{data.get('type')}: unknown field {shown(first)}")


def expect(action: Action, kind: type[Any], name: str, what: str) -> Any:
    """``action`` if it is a ``kind``; else an IllegalActionError saying what was expected."""
    if not isinstance(action, kind):
        raise IllegalActionError(f"expected {name} ({what}), got {action.to_plain()['type']}")
    return action


def replace(state: T, /, **changes: Any) -> T:
    """``dataclasses.replace``, for the engines' states: a copy of ``state`` with ``changes``.

    The same copy, made three times faster: an engine makes one for each step of each action (a
    transcript's check makes hundreds), and ``dataclasses.replace`` runs the class's ``__init__``
    through checks that hold for every state. A frozen dataclass with slots, each field set by
    ``__init__`` and no ``__post_init__`` (every state of the games here), is copied by code made
    once for its class that copies every field, then sets the changed ones; any other class,
    and a change naming no field, go to ``dataclasses.replace`` (its copy, or its TypeError)."""
    cls = type(state)
    try:
        copier = _COPIERS[cls]
    except KeyError:
        copier = _COPIERS[cls] = _copier(cls)
    if copier is None:
        return dataclasses.replace(state, **changes)  # type: ignore[type-var]
    return copier(state, changes)  # type: ignore[no-any-return]


_COPIERS: Final[dict[type, Callable[[Any, dict[str, Any]], Any] | None]] = {}
"""The copier of each class :func:`replace` has copied (None: ``dataclasses.replace`` copies it)."""


def _copier(cls: type) -> Callable[[Any, dict[str, Any]], Any] | None:
    """The copier of ``cls``: code that sets each of its fields (as dataclasses makes its own
    ``__init__``), through the field's slot; None for a class that is not as it needs."""
    setters = _slot_setters(cls)
    if setters is None:
        return None
    names = list(setters)
    lines = [f"    set_{i}(new, state.{name})" for i, name in enumerate(names)]
    source = "\n".join(
        [
            "def copy(state, changes):",
            "    if not changes.keys() <= known:",
            "        return replace(state, **changes)",
            "    new = make(cls)",
            *lines,
            "    for name, value in changes.items():",
            "        setters[name](new, value)",
            "    return new",
        ]
    )
    # (by name for the changes; each field's own setter is also bound to a name of its own,
    # set_i, which the lines above read as a global rather than a dictionary's item)
    scope: dict[str, Any] = {"known": frozenset(names), "make": object.__new__, "cls": cls}
    scope["replace"] = dataclasses.replace
    scope.update({"setters": setters, **{f"set_{i}": setters[name] for i, name in enumerate(names)}})
    exec(source, scope)  # (code made from the class's own field names, as dataclasses makes its own)
    copy: Callable[[Any, dict[str, Any]], Any] = scope["copy"]
    return copy


def maker(cls: Callable[..., T]) -> Callable[..., T]:
    """A function that builds a ``cls`` as its ``__init__`` does (the same parameters, by name
    or in order, the same defaults), twice as fast: a frozen dataclass's ``__init__`` sets each
    field through ``object.__setattr__``, this code made once for the class through its slot (the
    duel builds two wizards and a state a turn on each peer). ``cls`` itself for a class that is
    not as :func:`replace`'s copier needs, or whose fields have a default factory."""
    setters = _slot_setters(cls)
    fields = dataclasses.fields(cls) if setters is not None else ()  # type: ignore[arg-type]
    # (a field named as the code's own names, maker_*, would hide one of them as a parameter)
    if (
        setters is None
        or any(f.default_factory is not dataclasses.MISSING for f in fields)
        or any(f.name.startswith("maker_") for f in fields)
    ):
        return cls
    scope: dict[str, Any] = {"maker_make": object.__new__, "maker_cls": cls}
    params = []
    for i, f in enumerate(fields):
        scope[f"maker_set_{i}"] = setters[f.name]
        scope[f"maker_default_{i}"] = f.default
        params.append(f.name if f.default is dataclasses.MISSING else f"{f.name}=maker_default_{i}")
    lines = [f"    maker_set_{i}(maker_new, {f.name})" for i, f in enumerate(fields)]
    head = [f"def build({', '.join(params)}):", "    maker_new = maker_make(maker_cls)"]
    source = "\n".join([*head, *lines, "    return maker_new"])
    exec(source, scope)  # (code made from the class's own field names, as dataclasses makes its own)
    build: Callable[..., T] = scope["build"]
    return build


def _slot_setters(cls: Any) -> dict[str, Callable[[Any, Any], None]] | None:
    """The setter of each field of ``cls`` by name, through its slot, in the fields' order; None
    unless ``cls`` is a frozen dataclass with slots and no ``__post_init__``, whose ``__init__``
    is the one dataclasses made for it (not one of a base class, nor its own), taking every
    field, in order, by name or by place, and nothing else (no keyword-only field, no
    ``InitVar``): every state of the games here."""
    if not dataclasses.is_dataclass(cls) or not isinstance(cls, type) or hasattr(cls, "__post_init__"):
        return None
    params = vars(cls).get("__dataclass_params__")
    if params is None or not params.frozen or not params.init or "__init__" not in vars(cls):
        return None
    fields = dataclasses.fields(cls)
    taken = list(inspect.signature(cls.__init__).parameters.values())[1:]
    if [p.name for p in taken] != [f.name for f in fields] or any(
        p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in taken
    ):
        return None
    slots = {f.name: inspect.getattr_static(cls, f.name, None) for f in fields}
    if not all(isinstance(slot, types.MemberDescriptorType) for slot in slots.values()):
        return None
    return {name: slot.__set__ for name, slot in slots.items()}
