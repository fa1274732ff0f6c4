"""The channel messages (protocol/SPEC.md sections 4a and 4b): what the two ends of one connection
say to each other outside the signed match messages, the lobby, resync and liveness.

Each is a canonical msgpack array whose first element names its kind. There is a builder for each
(its canonical bytes, as they go on the wire) and one parser, :func:`parse`, which reads a
received record once into one frozen type per kind, or into :class:`Malformed` with a one-line
reason. The parser applies the shape rules of the SPEC that need nothing but the record; what
needs the connection's context (a lobby that lists us, a sync as long as the match has peers, a
ready's signature over the table as it stands, the host's key in a ``watching``) is the reader's
to check on the typed value. What a reader does with a malformed record (ignores it, refuses its
sender, leaves) depends on where it comes, and stays the reader's: :class:`Malformed` says how far
the record got (:class:`Flaw`) and the kind it names, so each reader keeps its own rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError
from p2pgenius.protocol.messages import is_name

MAX_SEATS: Final = 4
"""The most seats a ``ready`` may claim."""
COIN_LEN: Final = 32
"""A ``ready``'s coin commitment: a SHA-256 hash."""
WATCHED_PEERS: Final = (2, 4)
"""How many players a ``watching`` may list, fewest and most."""
PROPOSABLE: Final = ("fast",)
"""The options a player may propose in the lobby (a game with sealed turns: whether a turn
resolves as soon as every choice is in)."""


# -- the messages ------------------------------------------------------------------------------


class _Kinded:
    """A channel message of a known kind: its ``kind`` is its class's ``KIND``."""

    __slots__ = ()
    KIND: ClassVar[str]

    @property
    def kind(self) -> str:
        return self.KIND


@dataclass(frozen=True, slots=True)
class Lobby(_Kinded):
    """``["lobby", map]``, host to joiner: the table (its map's fields are the reader's to check,
    against who it is and whom it met: ``net/lobby.checked_lobby``)."""

    KIND: ClassVar[str] = "lobby"
    table: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Ready(_Kinded):
    """``["ready", map]`` or ``["ready", map, proposal]``, joiner to host: its seat claim
    (``seats``, at most 4 integers), its coin commitment (``coin``, 32 bytes) and its signature
    (bytes: whether it verifies over the table is the host's to check). ``fields`` is the map as
    it came (its keys the reader does not know included: the terms carry it). ``proposal``: the
    third element, if it is a map (anything else there stands as a ready without it)."""

    KIND: ClassVar[str] = "ready"
    fields: dict[str, Any]
    proposal: dict[str, Any] | None = None

    @property
    def seats(self) -> list[int]:
        seats: list[int] = self.fields["seats"]
        return seats


@dataclass(frozen=True, slots=True)
class Propose(_Kinded):
    """``["propose", map]``, joiner to host: options it proposes, whatever the map holds (what a
    host may take up of it: :func:`proposal`)."""

    KIND: ClassVar[str] = "propose"
    options: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Watching(_Kinded):
    """``["watching", {"keys": [...], "names": [...]}]``, host to spectator: the players' keys (2
    to 4 byte strings) in peer order and their names (each a valid name, one per key; None: the
    map has none). Unknown keys of the map are ignored."""

    KIND: ClassVar[str] = "watching"
    keys: tuple[bytes, ...]
    names: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Refused(_Kinded):
    """``["refused", str]``, host to caller: why it is turned away (for people; "" if the host
    gave no reason, or a reason that is not text: the refusal stands all the same)."""

    KIND: ClassVar[str] = "refused"
    reason: str


@dataclass(frozen=True, slots=True)
class MatchMessage(_Kinded):
    """``["m", bin]``, either way: one match message (section 5), its envelope's bytes."""

    KIND: ClassVar[str] = "m"
    raw: bytes


@dataclass(frozen=True, slots=True)
class Sync(_Kinded):
    """``["sync", [n_0, ...]]``, either way on reconnecting: how many messages of each author
    this side holds (each a non-negative integer; one per peer is the reader's to check)."""

    KIND: ClassVar[str] = "sync"
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Ping(_Kinded):
    """``["ping", int]``, either way: answered with a pong of the same number."""

    KIND: ClassVar[str] = "ping"
    number: int


@dataclass(frozen=True, slots=True)
class Pong(_Kinded):
    """``["pong", int]``, either way: the answer to the ping of that number."""

    KIND: ClassVar[str] = "pong"
    number: int


class Flaw(StrEnum):
    """How far a malformed record got."""

    BYTES = "bytes"  # not canonical msgpack
    FRAME = "frame"  # canonical, but not an array of two or more elements
    BODY = "body"  # an array of two or more elements: its kind unknown, or its body not its kind's


@dataclass(frozen=True, slots=True)
class Malformed:
    """A record that is no channel message: ``reason`` in one line, ``flaw`` how far it got, and
    ``kind``, the kind it names (its first element, if it is an array that begins with a string;
    None otherwise). ``proposal``: a malformed ``ready``'s third element, if that is a map (a host
    hears a proposal even where the ready around it is refused or ignored, as it always did)."""

    reason: str
    flaw: Flaw = Flaw.BODY
    kind: str | None = None
    proposal: dict[str, Any] | None = None


ChannelMessage = Lobby | Ready | Propose | Watching | Refused | MatchMessage | Sync | Ping | Pong
"""A well-formed channel message."""
Parsed = ChannelMessage | Malformed
"""What :func:`parse` gives."""

KINDS: Final = tuple(
    kind.KIND for kind in (Lobby, Ready, Propose, Watching, Refused, MatchMessage, Sync, Ping, Pong)
)
"""Every channel message kind of sections 4a and 4b."""


# -- builders: the canonical bytes of each -----------------------------------------------------


def lobby(table: Mapping[str, Any]) -> bytes:
    return encode(["lobby", table])


def ready(fields: Mapping[str, Any], proposal: Mapping[str, Any] | None = None) -> bytes:
    """A ready, with the options it proposes as its third element (none if ``proposal`` is
    empty or None)."""
    if proposal:
        return encode(["ready", fields, proposal])
    return encode(["ready", fields])


def propose(options: Mapping[str, Any]) -> bytes:
    return encode(["propose", options])


def watching(keys: Sequence[bytes], names: Sequence[str]) -> bytes:
    return encode(["watching", {"keys": list(keys), "names": list(names)}])


def refused(reason: str) -> bytes:
    return encode(["refused", reason])


def match_message(raw: bytes) -> bytes:
    return encode(["m", raw])


def sync(counts: Sequence[int]) -> bytes:
    return encode(["sync", list(counts)])


def ping(number: int) -> bytes:
    return encode(["ping", number])


def pong(number: int) -> bytes:
    return encode(["pong", number])


# -- the parser --------------------------------------------------------------------------------


def parse(payload: bytes) -> Parsed:
    """A received record, read once: its message, or why it is none (never raises)."""
    try:
        value = decode(payload)
    except EncodingError as exc:
        return Malformed(str(exc), Flaw.BYTES)
    if not (isinstance(value, list) and value):
        return Malformed("not an array whose first element names its kind", Flaw.FRAME)
    kind = value[0] if isinstance(value[0], str) else None
    if len(value) < 2:
        return Malformed("an array of one element: a kind with nothing said", Flaw.FRAME, kind)
    reader = _READERS.get(kind) if kind is not None else None
    if reader is None:
        return Malformed("no channel message of this kind", Flaw.BODY, kind)
    return reader(value)


def _one(value: list[Any]) -> str | None:
    """Why ``value`` is not a kind with exactly one element after it (None if it is)."""
    return None if len(value) == 2 else f"a {value[0]!r} message has one element after its kind"


def _lobby(value: list[Any]) -> Parsed:
    if (why := _one(value)) or not isinstance(value[1], dict):
        return Malformed(why or "a lobby that is not a map", kind="lobby")
    return Lobby(value[1])


def _ready(value: list[Any]) -> Parsed:
    third = value[2] if len(value) == 3 and isinstance(value[2], dict) else None
    if len(value) > 3:
        return Malformed("a ready has its map and at most a proposal after its kind", kind="ready")
    fields = value[1]
    if not isinstance(fields, dict):
        return Malformed("a ready that is not a map", kind="ready", proposal=third)
    seats, coin = fields.get("seats"), fields.get("coin")
    if not (isinstance(seats, list) and len(seats) <= MAX_SEATS and all(type(s) is int for s in seats)):
        why = f"a ready whose seats are not an array of at most {MAX_SEATS} integers"
        return Malformed(why, kind="ready", proposal=third)
    if not (isinstance(coin, bytes) and len(coin) == COIN_LEN and isinstance(fields.get("signature"), bytes)):
        why = f"a ready whose coin is not {COIN_LEN} bytes, or whose signature is not bytes"
        return Malformed(why, kind="ready", proposal=third)
    return Ready(fields, third)


def _propose(value: list[Any]) -> Parsed:
    if (why := _one(value)) or not isinstance(value[1], dict):
        return Malformed(why or "a proposal that is not a map", kind="propose")
    return Propose(value[1])


def _watching(value: list[Any]) -> Parsed:
    if why := _one(value):
        return Malformed(why, kind="watching")
    body = value[1]
    keys = body.get("keys") if isinstance(body, dict) else None
    names = body.get("names") if isinstance(body, dict) else None
    low, high = WATCHED_PEERS
    if not (
        isinstance(keys, list)
        and all(isinstance(k, bytes) for k in keys)
        and low <= len(keys) <= high
        and (names is None or (isinstance(names, list) and len(names) == len(keys)))
        and all(is_name(n) for n in names or ())
    ):
        return Malformed("a malformed list of players", kind="watching")
    return Watching(tuple(keys), tuple(names) if names else None)


def _refused(value: list[Any]) -> Parsed:
    if why := _one(value):
        return Malformed(why, kind="refused")
    return Refused(value[1] if isinstance(value[1], str) else "")


def _match_message(value: list[Any]) -> Parsed:
    if (why := _one(value)) or not isinstance(value[1], bytes):
        return Malformed(why or "a match message that is not bytes", kind="m")
    return MatchMessage(value[1])


def _sync(value: list[Any]) -> Parsed:
    counts = value[1]
    counted = isinstance(counts, list) and all(type(n) is int and n >= 0 for n in counts)
    if (why := _one(value)) or not counted:
        return Malformed(why or "a sync whose counts are not non-negative integers", kind="sync")
    return Sync(tuple(counts))


def _ping(value: list[Any]) -> Parsed:
    if (why := _one(value)) or type(value[1]) is not int:
        return Malformed(why or "a ping whose number is not an integer", kind="ping")
    return Ping(value[1])


def _pong(value: list[Any]) -> Parsed:
    if (why := _one(value)) or type(value[1]) is not int:
        return Malformed(why or "a pong whose number is not an integer", kind="pong")
    return Pong(value[1])


_READERS: Final = {
    "lobby": _lobby,
    "ready": _ready,
    "propose": _propose,
    "watching": _watching,
    "refused": _refused,
    "m": _match_message,
    "sync": _sync,
    "ping": _ping,
    "pong": _pong,
}


# -- what a message proposes -------------------------------------------------------------------


def proposed(message: Parsed) -> dict[str, Any] | None:
    """The map a message proposes: a ``propose``'s, or a ``ready``'s third element (even where
    the ready is malformed); None if it proposes nothing."""
    if isinstance(message, Propose):
        return message.options
    if isinstance(message, Ready | Malformed):
        return message.proposal
    return None


def proposal(options: Mapping[str, Any] | None, *, sealed: bool) -> dict[str, bool] | None:
    """What a host may take up of ``options`` proposed in a game with sealed turns or not (None:
    nothing: an empty map, a key other than the proposable ones, a value that is not a boolean,
    or a game without sealed turns; SPEC section 4a, "Proposals")."""
    if not (options and set(options) <= set(PROPOSABLE) and sealed):
        return None
    if not all(type(v) is bool for v in options.values()):
        return None
    return dict(options)
