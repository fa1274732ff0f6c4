"""What the layers above may read of a session: a live, read-only view.

The network layer (:mod:`p2pgenius.net`) owns a session and is the only one to change it (it feeds
messages in, asks for moves, keeps the clocks). A screen, a bot or a command that reports a match
gets a :class:`SessionView`: every question it may ask, and nothing that changes the match. It is
live (it reads the session when asked, so it never lags behind), it has no setters, and what it
hands out is immutable (tuples, a read-only mapping, frozen stage snapshots).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from p2pgenius.canonical import Plain
from p2pgenius.games.base import Game, Outcome
from p2pgenius.protocol.events import ClockView, Fault
from p2pgenius.protocol.session.match import DealtMatch
from p2pgenius.protocol.session.stage import Stage


class Readable(Protocol):
    """What a view reads of a session (the session itself imports this module)."""

    @property
    def me(self) -> int | None: ...
    @property
    def keys(self) -> Sequence[bytes]: ...
    @property
    def names(self) -> Sequence[str]: ...
    @property
    def owner(self) -> tuple[int, ...]: ...
    @property
    def my_seats(self) -> tuple[int, ...]: ...
    @property
    def terms(self) -> dict[str, Any] | None: ...
    @property
    def match(self) -> DealtMatch | None: ...
    @property
    def state(self) -> Any: ...
    @property
    def log(self) -> list[tuple[int, int, Plain]]: ...
    @property
    def fast(self) -> bool: ...
    @property
    def stage(self) -> Stage | None: ...
    @property
    def behind(self) -> list[Stage]: ...
    @property
    def finished(self) -> bool: ...
    @property
    def outcome(self) -> Outcome | None: ...
    @property
    def fault(self) -> Fault | None: ...
    def awaiting(self) -> tuple[int, ...]: ...
    def committed(self, seat: int) -> Plain | None: ...
    def early(self) -> tuple[int, ...]: ...
    def early_state(self) -> Any: ...
    def unsettled(self) -> tuple[int, ...]: ...
    def owed(self) -> tuple[int, ...]: ...
    def unconfirmed(self) -> tuple[int, ...]: ...
    def clocks(self) -> dict[int, ClockView]: ...


@dataclass(frozen=True, slots=True)
class StageView:
    """The stage being played, as it stood when asked."""

    number: int
    waiting: tuple[int, ...]
    """The seats asked to act."""
    optional: tuple[int, ...]
    """The seats that may act or let it pass (a challenge window)."""
    chosen: frozenset[int]
    """The seats whose choice (or commitment to one) is in."""
    settled: frozenset[int] = frozenset()
    """The seats whose sealed choice stands (it may no longer change: the turn resolves once all
    do)."""


class SessionView:
    """A session, read only (see the module's doc)."""

    __slots__ = ("_session",)

    def __init__(self, session: Readable) -> None:
        self._session = session

    def __eq__(self, other: object) -> bool:
        """Two views are equal when they show the same session."""
        return isinstance(other, SessionView) and other._session is self._session

    def __hash__(self) -> int:
        return id(self._session)

    def __repr__(self) -> str:
        return f"SessionView(me={self.me}, game={self.game_name!r}, stage={self.stage})"

    # -- who plays -------------------------------------------------------------------------------

    @property
    def me(self) -> int | None:
        """This peer's index (None: an observer, such as a spectator)."""
        return self._session.me

    @property
    def keys(self) -> tuple[bytes, ...]:
        """Every peer's public key, by index."""
        return tuple(self._session.keys)

    @property
    def names(self) -> tuple[str, ...]:
        """Every peer's name, by index."""
        return tuple(self._session.names)

    @property
    def owner(self) -> tuple[int, ...]:
        """The peer holding each seat (empty before the deal)."""
        return self._session.owner

    @property
    def my_seats(self) -> tuple[int, ...]:
        """The seats this peer holds (none for an observer, or before the deal)."""
        return self._session.my_seats

    # -- what is played ----------------------------------------------------------------------

    @property
    def terms(self) -> Mapping[str, Any] | None:
        """The agreed terms (None before they are proposed)."""
        terms = self._session.terms
        return None if terms is None else MappingProxyType(terms)

    @property
    def game_name(self) -> str | None:
        """The game's name, once the terms are in."""
        terms = self._session.terms
        return None if terms is None else str(terms["game"])

    @property
    def engine(self) -> Game[Any, Any] | None:
        """The game's engine, once the seats are dealt."""
        match = self._session.match
        return None if match is None else match.game

    @property
    def state(self) -> Any:
        """The engine state as this peer knows it (None before the deal). Engine states are
        immutable values."""
        return self._session.state

    @property
    def played(self) -> int:
        """How many actions have been applied here (a resumed session: those before the crash)."""
        return len(self._session.log)

    @property
    def fast(self) -> bool:
        """A sealed stage closes as soon as every commitment is in (no minute to change one's mind)."""
        return self._session.fast

    @property
    def stage(self) -> StageView | None:
        """The stage being played, now (None between stages and after the end)."""
        stage = self._session.stage
        if stage is None:
            return None
        chosen = frozenset(stage.acts) | frozenset(stage.commits) | frozenset(stage.declined)
        return StageView(stage.number, stage.waiting, stage.optional, chosen, frozenset(stage.finals))

    def awaiting(self) -> tuple[int, ...]:
        """This peer's seats the current stage waits for."""
        return self._session.awaiting()

    def unsettled(self) -> tuple[int, ...]:
        """This peer's seats whose sealed choice may still change."""
        return self._session.unsettled()

    def committed(self, seat: int) -> Plain | None:
        """What this peer chose for ``seat`` at the current stage, sealed (None: nothing yet)."""
        return self._session.committed(seat)

    def owed(self) -> tuple[int, ...]:
        """Every seat the current stage still waits for."""
        return self._session.owed()

    def clocks(self) -> dict[int, ClockView]:
        """Every seat's clock at the current stage."""
        return self._session.clocks()

    # -- sight ---------------------------------------------------------------------------------

    @property
    def in_dark(self) -> bool:
        """This peer's seat is kept in the dark now: its state lags, the peers' view claims
        describe the field."""
        return bool(self._session.behind)

    @property
    def view_claim(self) -> Mapping[str, Any] | None:
        """The latest view claim a peer made about what this peer, in the dark, sees (None if it
        is not in the dark)."""
        behind = self._session.behind
        claim = behind[-1].claim if behind else None
        return None if claim is None else MappingProxyType(dict(claim.view))

    # -- the end ---------------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """The match is over, every check passed and every peer signed its result."""
        return self._session.finished

    @property
    def unconfirmed(self) -> tuple[int, ...]:
        """Once the result is known here: the peers whose signed word of it has not come yet."""
        return self._session.unconfirmed()

    @property
    def outcome(self) -> Outcome | None:
        """The result, once the match is over."""
        return self._session.outcome

    @property
    def fault(self) -> Fault | None:
        """Why the match stopped, if a check failed or a peer cheated."""
        return self._session.fault

    # -- choosing early ------------------------------------------------------------------------

    def early(self) -> tuple[int, ...]:
        """This peer's seats that may already choose for the next stage (see :meth:`next`)."""
        return self._session.early()

    def next(self) -> SessionView | None:
        """The next stage as this peer's seats may already choose in it, while the current one
        is still open (the Hornswoggle opening cards while the Opponent picks who begins), or
        None. Its ``state`` is the one they choose from, its ``stage`` the next, ``awaiting()``
        the seats of :meth:`early`."""
        state = self._session.early_state()
        stage = self._session.stage
        if state is None or stage is None:
            return None
        waiting = self._session.early()
        return _Early(self._session, state, StageView(stage.number + 1, waiting, (), frozenset()))


class _Early(SessionView):
    """A view of the next stage, chosen in early (:meth:`SessionView.next`)."""

    __slots__ = ("_stage", "_state")

    def __init__(self, session: Readable, state: Any, stage: StageView) -> None:
        super().__init__(session)
        self._state = state
        self._stage = stage

    @property
    def state(self) -> Any:
        return self._state

    @property
    def stage(self) -> StageView | None:
        return self._stage

    def awaiting(self) -> tuple[int, ...]:
        stage = self._session.stage
        if stage is not None and stage.number == self._stage.number:  # (it has opened since)
            return self._session.awaiting()
        return self._session.early()

    def unsettled(self) -> tuple[int, ...]:
        return ()

    def next(self) -> SessionView | None:
        return None
