"""What a match session tells its driver: typed events, and what to persist and send (Flush).

The session (``p2pgenius.protocol.session``) is sans-IO: each call returns or queues these, and the
I/O layer (``p2pgenius.net``) and the UI act on them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from p2pgenius.canonical import Plain


@dataclass(frozen=True, slots=True)
class SeatsDealt:
    """The coin flip is done: ``owner[seat]`` is the peer holding each seat."""

    owner: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class YourTurn:
    """The game waits on (or allows) these local seats to act at ``stage``."""

    stage: int
    seats: tuple[int, ...]
    optional: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Applied:
    """A stage was applied: the actions in order, and what the engine said happened."""

    stage: int
    actions: tuple[tuple[int, Plain], ...]
    events: tuple[Plain, ...]
    state: Any = field(default=None, compare=False, repr=False)  # the engine state after it


@dataclass(frozen=True, slots=True)
class VerdictDue:
    """Every peer's disclosure is in: the driver calls ``judge`` (off its event loop if it has
    one: it reads only, and replays the whole match) and gives what it returns to ``conclude``, on
    the loop. Only with the session's ``defer_verdict`` set."""

    judge: Callable[[], Any] = field(compare=False)
    conclude: Callable[[Any], None] = field(compare=False)


@dataclass(frozen=True, slots=True)
class ViewClaimed:
    """While a local seat is kept in the dark: the signed claim of what it may know after ``stage``."""

    stage: int
    seat: int
    view: Mapping[str, Plain]


@dataclass(frozen=True, slots=True)
class TimeoutClaimed:
    """Peer ``author`` says ``seat`` ran out of time at ``stage``: ``observed_ms`` had passed on
    its machine. The seat's own peer accepts (sends its timeout) or disputes (sends its decision,
    declaring the time it measured); either way both messages stay in the transcript."""

    stage: int
    seat: int
    observed_ms: int
    author: int
    kind: str = ""
    """What the seat owed (a debt's name: "decision", "reveal", ...; "" if nothing was due)."""


@dataclass(frozen=True, slots=True)
class ClaimDisputed:
    """The peer holding ``seat`` says its clock at ``stage`` had not run out: ``left_ms`` were
    still left by its own measure. The timeout claims about that seat no longer stand."""

    stage: int
    seat: int
    left_ms: int
    author: int


@dataclass(frozen=True, slots=True)
class Decided:
    """Another peer's decision for ``seat`` at ``stage`` arrived, declaring ``declared_ms``: the
    driver compares it with the time it saw pass, and records a larger one (``note_observed``)."""

    stage: int
    seat: int
    declared_ms: int
    author: int


@dataclass(frozen=True, slots=True)
class TimeObserved:
    """Peer ``author`` saw ``observed_ms`` pass before ``seat``'s decision at ``stage``, more than
    the decision declared (``declared_ms``): a dispute of the declared time, on the record."""

    stage: int
    seat: int
    observed_ms: int
    declared_ms: int
    author: int


@dataclass(frozen=True, slots=True)
class Hashed:
    """Peer ``author``'s state hash of ``stage`` was taken: it had applied the stage by then (the
    clocks time how long a peer's machine takes to apply one)."""

    author: int
    stage: int


@dataclass(frozen=True, slots=True)
class ForfeitVoided:
    """Peer ``author`` signed that ``seat`` (a peer, at stage -2) forfeited at ``stage``, and the
    seat answered before this peer saw its silence for itself: the forfeit did not stand here, and
    stays on the record as contested."""

    stage: int
    seat: int
    author: int


@dataclass(frozen=True, slots=True)
class ClockView:
    """One seat's clock at the current stage: ``left_ms`` at the stage's start if it is running
    (the driver subtracts the time since), else what the seat's decision left on it."""

    kind: str
    key: int
    left_ms: int
    running: bool


@dataclass(frozen=True, slots=True)
class ChatReceived:
    """A chat line from a peer (signed, in the transcript, outside the game state)."""

    author: int
    text: str


@dataclass(frozen=True, slots=True)
class Rejected:
    """A peer's message was refused (recorded as evidence; the match goes on)."""

    author: int | None
    reason: str


class FaultKind(StrEnum):
    """Why a match stopped. A StrEnum: the transcript records the kind as its string, and a
    kind read back (or compared) as that string is the same member."""

    CHEAT = "cheat"  # a peer broke the rules, and its signed messages prove it
    DESYNC = "desync"  # the states diverged: one of the programs is wrong or altered
    FORFEIT = "forfeit"  # a peer stopped answering (a claim of its silence went unanswered)
    CONTESTED = "contested"  # an observer's only: a forfeit and its answer crossed (nobody lost)


@dataclass(frozen=True, slots=True)
class Fault:
    """The match is stopped, for the reason its ``kind`` says; ``evidence`` names the messages
    that prove it."""

    kind: FaultKind
    peer: int | None
    stage: int
    reason: str
    evidence: Mapping[str, Plain]

    def __post_init__(self) -> None:
        # A kind given as its string (a record read back) becomes its member; an unknown one is
        # refused here (ValueError), not shown later as a stop for no known reason.
        object.__setattr__(self, "kind", FaultKind(self.kind))


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The game is over, with this result, and every check passed here. It stands for every peer
    once each has signed it: :class:`Confirmed`."""

    outcome: Mapping[str, Plain]


@dataclass(frozen=True, slots=True)
class Confirmed:
    """Every peer has signed the result (its ``end``): the match is over for the record."""

    outcome: Mapping[str, Plain]


# -- what this peer's clocks tell its player (protocol/clocks.py) -------------------------------


def minutes(seconds: int) -> str:
    """A time left, in words: "5 minutes", "1 minute", "30 s"."""
    return f"{seconds // 60} minute{'s' if seconds != 60 else ''}" if seconds >= 60 else f"{seconds} s"


@dataclass(frozen=True, slots=True)
class ClockWarning:
    """``seat``'s clock of kind ``kind`` has ``left_ms`` left (one of the game's warning marks)."""

    seat: int
    left_ms: int
    kind: str = "round"

    @property
    def words(self) -> str:
        return f"{minutes(self.left_ms // 1000)} left on the {self.kind} clock"

    @property
    def text(self) -> str:
        return f"p{self.seat}: {self.words}"


@dataclass(frozen=True, slots=True)
class OutOfTime:
    """One of this peer's seats ran out of time (``timeout_played``: its clock ran out while the
    match waited on it, so the rules' timeout is sent; else a decision came too late). ``who``:
    the seat's player in words, "bob (p3)" (as a claim names it)."""

    seat: int
    timeout_played: bool = False
    who: str = ""

    @property
    def text(self) -> str:
        return f"{self.who or f'p{self.seat}'}: out of time" + (
            "; the rules' timeout is played" if self.timeout_played else ""
        )


@dataclass(frozen=True, slots=True)
class TimeoutClaimSent:
    """Another peer's seat is late, as measured here (``observed_ms`` since the stage began):
    claimed. ``who``: the seat's player in words; ``what``: what it owes."""

    seat: int
    observed_ms: int
    who: str = ""
    what: str = ""

    @property
    def text(self) -> str:
        who, what = self.who or f"p{self.seat}", self.what or "its decision"
        return f"{who} is late with {what} ({self.observed_ms / 1000:.1f} s here): claimed, signed"


@dataclass(frozen=True, slots=True)
class TimeUnderDeclared:
    """A decision of another seat declared less time than passed here before it."""

    seat: int
    declared_ms: int
    seen_ms: int

    @property
    def text(self) -> str:
        return (
            f"p{self.seat}'s decision declared {self.declared_ms / 1000:.1f} s; "
            f"{self.seen_ms / 1000:.1f} s passed here (lag allowed for): disputed on the record"
        )


@dataclass(frozen=True, slots=True)
class TimeoutDisputed:
    """``claimant`` claims one of our seats ran out of time; our own clock says otherwise."""

    seat: int
    claimant: str
    observed_ms: int
    here_ms: int
    left_ms: int = 0

    @property
    def text(self) -> str:
        left = f"; {self.left_ms / 1000:.1f} s left by ours" if self.left_ms else ""
        return (
            f"{self.claimant} claims your clock ran out ({self.observed_ms / 1000:.1f} s by its measure, "
            f"{self.here_ms / 1000:.1f} s by ours{left}): disputed, signed"
        )


# -- what a match machine tells the person besides (p2pgenius.protocol.machine) ----------------


@dataclass(frozen=True, slots=True)
class ConnectionLost:
    """A connection closed mid-match; the match waits for it. Said from this peer's side: a
    joiner lost its host (``to_host``) and calls it again; a host lost ``peer`` (its player's
    ``name``, if known) and waits for it to come back."""

    peer: int | None = None
    name: str | None = None
    to_host: bool = False

    @property
    def text(self) -> str:
        if self.to_host:
            return "lost the connection to the host; reconnecting"
        if self.name:
            return f"{self.name}'s connection closed; waiting for {self.name} to come back"
        return "a player's connection closed; waiting for it to come back"


@dataclass(frozen=True, slots=True)
class DecisionRefused:
    """A local seat's decision was refused (``reason``): the seat is asked again (or, one that came
    after its stage had ended, for the stage being played)."""

    seat: int
    reason: str

    @property
    def text(self) -> str:
        return f"p{self.seat}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Notice:
    """Anything else worth a line: a chat line refused, a stray message ignored."""

    message: str

    @property
    def text(self) -> str:
        return self.message


ClockEvent = ClockWarning | OutOfTime | TimeoutClaimSent | TimeUnderDeclared | TimeoutDisputed
"""What the clocks tell the player (:class:`p2pgenius.protocol.clocks.Clocks`)."""

Said = ClockEvent | ConnectionLost | DecisionRefused | Notice
"""What a match machine tells the person running its peer, besides the session's events."""
SAID: Final = (
    ClockWarning,
    OutOfTime,
    TimeoutClaimSent,
    TimeUnderDeclared,
    TimeoutDisputed,
    ConnectionLost,
    DecisionRefused,
    Notice,
)
"""The types of :data:`Said` (``isinstance(told, SAID)``: said, not reported)."""

Tell = Callable[[ClockEvent], None]
"""Takes what the clocks tell (the network layer's ``Notify`` does)."""


Event = (
    SeatsDealt
    | YourTurn
    | Applied
    | VerdictDue
    | Confirmed
    | ViewClaimed
    | TimeoutClaimed
    | ClaimDisputed
    | Decided
    | TimeObserved
    | Hashed
    | ForfeitVoided
    | ChatReceived
    | Rejected
    | Fault
    | MatchOver
)


@dataclass(slots=True)
class Flush:
    """What the I/O layer must do now: append ``records`` to the transcript and ``secrets`` to
    the secrets file (durably), *then* send ``messages`` to every other peer."""

    records: list[bytes] = field(default_factory=list)
    secrets: list[bytes] = field(default_factory=list)
    messages: list[bytes] = field(default_factory=list)
