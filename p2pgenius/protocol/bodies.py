"""A match message's body, as one frozen type per kind (protocol/SPEC.md, section 5).

A body travels as a msgpack array, ``[kind, field, ...]``. :func:`parse_body` turns it into its
type, checking every field once, where the envelope is opened: the session then reads named,
typed fields (``msg.stage``, ``msg.ms``), never a list by position, and whatever passed this check
is the peer's well-formed message, so a failure further in is either a rule the peer broke (its
fault) or a bug of ours (never blamed on the peer). :meth:`Body.to_body` is the exact inverse.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import P2PGeniusError, shown

HASH_LEN: Final = 32
"""Bytes of a SHA-256 digest (a match id, a commitment, a state hash)."""
NONCE_LEN: Final = 32
MAX_TEXT: Final = 500
"""The longest chat line or forfeit reason (characters)."""
SETUP: Final = -2
"""The stage number of a timeout claim or forfeit before the seats are dealt (the coin flip), whose
"seat" field then names a peer: there are no seats yet."""


class BodyError(P2PGeniusError):
    """A body that is not a well-formed message of its kind."""


def is_text(text: object, limit: int = MAX_TEXT) -> bool:
    """Whether ``text`` is a line people may be shown: printable characters only (no escape or
    other control character, no bidirectional override, no line break), at most ``limit``."""
    return isinstance(text, str) and len(text) <= limit and text.isprintable()


@dataclass(frozen=True, slots=True)
class Body:
    """A message body. Subclasses name their ``kind`` and declare their fields in wire order."""

    kind: ClassVar[str] = ""

    def to_body(self) -> list[Plain]:
        """The body as it travels: ``[kind, field, ...]``."""
        names = _NAMES.get(type(self))
        if names is None:  # (a kind of body not in KINDS: its fields read here)
            names = tuple(f.name for f in fields(self))
        return [self.kind, *[getattr(self, name) for name in names]]

    def check(self) -> None:
        """Refuse (BodyError) what the field types alone allow but no such message may hold."""


# -- the match's set-up ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Terms(Body):
    """The host's proposal: game, options, setup, engine, peers, names, groups, claims, salt,
    coins, readies (section 5; checked against the lobby by the session)."""

    kind: ClassVar[str] = "terms"
    terms: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Accept(Body):
    """A joiner accepts the terms whose hash is ``match_id``."""

    kind: ClassVar[str] = "accept"
    match_id: bytes

    def check(self) -> None:
        _length(self.match_id, HASH_LEN, "match id")


@dataclass(frozen=True, slots=True)
class CoinReveal(Body):
    """The opening of the author's committed coin share."""

    kind: ClassVar[str] = "coin_reveal"
    nonce: bytes

    def check(self) -> None:
        _length(self.nonce, NONCE_LEN, "coin share")


# -- a stage's decisions ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Act(Body):
    """A public action of ``seat`` at ``stage`` that took ``ms`` of its clock."""

    kind: ClassVar[str] = "act"
    stage: int
    seat: int
    action: dict[str, Any]
    ms: int

    def check(self) -> None:
        _stage_seat(self.stage, self.seat)
        _ms(self.ms)


@dataclass(frozen=True, slots=True)
class Commit(Body):
    """A commitment to a hidden choice of ``seat`` at ``stage``."""

    kind: ClassVar[str] = "commit"
    stage: int
    seat: int
    commitment: bytes
    ms: int

    def check(self) -> None:
        _stage_seat(self.stage, self.seat)
        _length(self.commitment, HASH_LEN, "commitment")
        _ms(self.ms)


@dataclass(frozen=True, slots=True)
class Reveal(Body):
    """The opening of a commitment: the action and its nonce."""

    kind: ClassVar[str] = "reveal"
    stage: int
    seat: int
    action: dict[str, Any]
    nonce: bytes

    def check(self) -> None:
        _stage_seat(self.stage, self.seat)
        # (A nonce of another length simply fails to open the commitment: that convicts.)


@dataclass(frozen=True, slots=True)
class Decline(Body):
    """``seat`` lets an optional action pass."""

    kind: ClassVar[str] = "decline"
    stage: int
    seat: int
    ms: int

    def check(self) -> None:
        _stage_seat(self.stage, self.seat)
        _ms(self.ms)


@dataclass(frozen=True, slots=True)
class FinalChoice(Body):
    """``seat``'s last commitment at ``stage`` stands (a sealed game without "fast")."""

    kind: ClassVar[str] = "final"
    stage: int
    seat: int

    def check(self) -> None:
        _stage_seat(self.stage, self.seat)


# -- time ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimeoutClaim(Body):
    """The author says ``seat`` ran out of time at ``stage``: ``observed_ms`` passed on its machine
    (at ``SETUP``, ``seat`` is a peer that has not opened its coin share)."""

    kind: ClassVar[str] = "timeout"
    stage: int
    seat: int
    observed_ms: int

    def check(self) -> None:
        _stage_seat(self.stage, self.seat, setup=True)
        _ms(self.observed_ms)


@dataclass(frozen=True, slots=True)
class Dispute(Body):
    """``seat``'s own peer says its clock at ``stage`` had ``left_ms`` left."""

    kind: ClassVar[str] = "dispute"
    stage: int
    seat: int
    left_ms: int

    def check(self) -> None:
        _stage_seat(self.stage, self.seat, setup=True)
        _ms(self.left_ms)


@dataclass(frozen=True, slots=True)
class Observed(Body):
    """The author saw ``ms`` pass before ``seat``'s decision at ``stage``, more than it declared."""

    kind: ClassVar[str] = "observed"
    stage: int
    seat: int
    ms: int

    def check(self) -> None:
        _stage_seat(self.stage, self.seat)
        _ms(self.ms)


# -- checking and ending --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hash(Body):
    """The author's hash of the public state after ``stage``."""

    kind: ClassVar[str] = "hash"
    stage: int
    digest: bytes

    def check(self) -> None:
        _stage_seat(self.stage, 0)
        _length(self.digest, HASH_LEN, "state hash")


@dataclass(frozen=True, slots=True)
class ViewClaim(Body):
    """A sighted peer's claim of what ``seat``, kept in the dark, may know after ``stage`` (SPEC
    section 6, "Sight"; its kind, the name the wire fixes, is the duel's word)."""

    kind: ClassVar[str] = "blind"
    stage: int
    seat: int
    claim: dict[str, Any]

    def check(self) -> None:
        _stage_seat(self.stage, self.seat)


@dataclass(frozen=True, slots=True)
class Disclosure(Body):
    """At the end of a game with hidden choices (the game's ``spec.audited``): every opening of the
    author's commitments that it had not made."""

    kind: ClassVar[str] = "audit"
    openings: list[Any]

    def check(self) -> None:
        for opening in self.openings:
            if not (
                isinstance(opening, list)
                and len(opening) == 4
                and type(opening[0]) is int
                and type(opening[1]) is int
                and opening[1] >= 0
                and isinstance(opening[2], dict)
                and isinstance(opening[3], bytes)
            ):
                raise BodyError(f"a malformed {self.kind} opening")


@dataclass(frozen=True, slots=True)
class Forfeit(Body):
    """The author's claim about ``seat`` at ``stage`` went unanswered: ``seat`` forfeits."""

    kind: ClassVar[str] = "forfeit"
    stage: int
    seat: int
    reason: str

    def check(self) -> None:
        _stage_seat(self.stage, self.seat, setup=True)
        if not is_text(self.reason):
            # Refused where it enters: a verifier would print it (text that drives a terminal).
            raise BodyError(f"a forfeit whose reason is not printable text of at most {MAX_TEXT} characters")


@dataclass(frozen=True, slots=True)
class End(Body):
    """The author's signed word that the match ended with ``outcome`` (the engine's, after the
    disclosure where there is one): with the envelope's heads, on every message it had. A result
    stands once every peer has sent its own."""

    kind: ClassVar[str] = "end"
    outcome: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Desync(Body):
    """The author's state after ``stage``, sent when the hashes differ (evidence)."""

    kind: ClassVar[str] = "desync"
    stage: int
    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Chat(Body):
    """A line of table talk."""

    kind: ClassVar[str] = "chat"
    text: str

    def check(self) -> None:
        if not self.text or not is_text(self.text):
            # Refused where it enters: text that could drive a reader's terminal reaches none.
            raise BodyError(f"a chat line has 1 to {MAX_TEXT} printable characters (no control characters)")


@dataclass(frozen=True, slots=True)
class Invalid(Body):
    """A message of ``of`` whose fields have the right types but not an allowed value (a chat
    line with control characters, a negative time): refused, with ``reason``, once accepted into
    its author's chain. Never sent."""

    kind: ClassVar[str] = "invalid"
    of: str
    reason: str


KINDS: Final[dict[str, type[Body]]] = {
    cls.kind: cls
    for cls in (
        Terms,
        Accept,
        CoinReveal,
        Act,
        Commit,
        Reveal,
        Decline,
        FinalChoice,
        TimeoutClaim,
        Dispute,
        Observed,
        Hash,
        ViewClaim,
        Disclosure,
        Forfeit,
        End,
        Desync,
        Chat,
    )
}
"""Every message kind, by its name on the wire."""

_TYPES: Final = {"int": int, "bytes": bytes, "str": str, "dict[str, Any]": dict, "list[Any]": list}
_SHAPES: Final = {kind: tuple(_TYPES[str(f.type)] for f in fields(cls)) for kind, cls in KINDS.items()}
"""Each kind's field types, in wire order (read once from its class: a message is parsed by them)."""
_NAMES: Final[dict[type[Body], tuple[str, ...]]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in (*KINDS.values(), Invalid)
}
"""Each kind's field names, in wire order (read once from its class, not at every message)."""


def parse_body(body: object) -> Body:
    """The typed message a body carries; raises BodyError if it is no message of a known kind
    with fields of the right types, and is :class:`Invalid` if a field's value is not allowed."""
    if not isinstance(body, list) or not body:
        raise BodyError("malformed envelope fields")
    kind = body[0]
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BodyError(f"unknown message kind {shown(kind)}")
    declared = _SHAPES[kind]
    values = body[1:]
    # (The exact types declared, the common case, are matched at once; a subclass of one, or
    # a bool for an int, is looked at field by field.)
    if tuple(map(type, values)) != declared and (
        len(values) != len(declared)
        or not all(_is(value, wanted) for value, wanted in zip(values, declared, strict=True))
    ):
        raise BodyError(f"malformed {kind} message")
    message = cls(*values)
    try:
        message.check()
    except BodyError as exc:
        # Well formed, but holding what no such message may: it still takes its place in its
        # author's chain (what the author sends next chains to it), and is refused there.
        return Invalid(kind, str(exc))
    return message


def _is(value: object, kind: type) -> bool:
    return type(value) is int if kind is int else isinstance(value, kind)


def _length(value: bytes, length: int, what: str) -> None:
    if len(value) != length:
        raise BodyError(f"a {what} of {len(value)} bytes (it has {length})")


def _stage_seat(stage: int, seat: int, *, setup: bool = False) -> None:
    """A stage is 0 or more; a claim, a dispute or a forfeit may also name the coin flip
    (``SETUP``) or the end of the match (-1: the disclosure)."""
    if stage < (SETUP if setup else 0):
        raise BodyError(f"no stage {stage}")
    if seat < 0:
        raise BodyError(f"no seat {seat}")


def _ms(ms: int) -> None:
    if ms < 0:
        raise BodyError(f"a negative time ({ms} ms)")
