"""The records of a transcript file, framed, and read once into types (protocol/SPEC.md section 7).

A transcript is a sequence of records, each a 4-byte big-endian length and a canonical msgpack
array whose first element names it:

* ``["p2pgenius-transcript", 3, {"peers": [keys], "me": index | null, ...}]``: the header, first
  (:class:`Header`);
* ``["msg", envelope]``: a message as sent or accepted, its exact bytes (:class:`MsgRecord`);
* ``["rejected", bytes, reason]``: something a peer sent that was refused (:class:`RejectedRecord`);
* ``["fault", kind, peer, stage, reason, evidence]``: why this peer stopped (:class:`FaultRecord`);
* ``["desync_state", author, stage, state]``: another peer's state in its desync (:class:`DesyncRecord`).

:func:`read` decodes and checks every record once, against the field types of :data:`FIELDS`
(SPEC's table), so that nothing above reads a record by position; a record that does not fit is
a :class:`TranscriptError` naming its place. A secrets file (the same framing, no header) holds
:class:`CoinSecret` and :class:`ChoiceSecret` records, read by :func:`secrets_of`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any, Final

from p2pgenius.canonical import Plain, bin_head, decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.protocol.messages import VERSION

MAGIC: Final = "p2pgenius-transcript"
MAX_RECORD: Final = 1 << 20
_STRANGER: Final = "not a p2pgenius transcript (it does not start with one's header)"
"""What a file whose first record is no transcript's header is (another kind of file)."""


class TranscriptError(P2PGeniusError):
    """A transcript file that cannot be read."""


def header(keys: list[bytes], me: int | None, **extra: Plain) -> bytes:
    """The framed header record (``extra``: what a peer needs to resume, e.g. its address)."""
    return frame(encode([MAGIC, VERSION, {**extra, "peers": keys, "me": me}]))


def frame(record: bytes) -> bytes:
    """One record with its length prefix."""
    return len(record).to_bytes(4, "big") + record


def records(data: bytes, *, headed: bool = True) -> Iterator[list[Any]]:
    """The decoded records of a transcript, untyped (``headed`` False: of a secrets file, which
    has no header); raises TranscriptError on damage. :func:`read` gives them typed."""
    offset = 0
    while offset < len(data):
        # A transcript's header comes first: a first record that is not one is another kind of
        # file (a text file, say), not a damaged transcript.
        first = headed and offset == 0
        if offset + 4 > len(data):
            raise TranscriptError(_STRANGER if first else f"the transcript is cut short at byte {offset}")
        length = int.from_bytes(data[offset : offset + 4], "big")
        if length > MAX_RECORD or offset + 4 + length > len(data):
            raise TranscriptError(
                _STRANGER if first else f"a damaged record at byte {offset} (a crash mid-write?)"
            )
        try:
            value = _message(data, offset + 4, length) or decode(data[offset + 4 : offset + 4 + length])
        except EncodingError as exc:
            if first:
                raise TranscriptError(_STRANGER) from None
            raise TranscriptError(f"a record at byte {offset} is not canonical: {exc}") from None
        if not isinstance(value, list) or not value or (first and value[0] != MAGIC):
            raise TranscriptError(_STRANGER if first else f"a record at byte {offset} is not a list")
        yield value
        offset += 4 + length


_MESSAGE_HEAD: Final = b"\x92\xa3msg"
"""The canonical bytes of a ``msg`` record before its envelope's: an array of two, "msg"."""


def _message(data: bytes, start: int, length: int) -> list[Any] | None:
    """The ``msg`` record of ``length`` bytes at ``start``, read straight from its bytes (what
    :func:`decode` gives of them: nothing in them to normalise) where they are its canonical
    encoding, the envelope's length in the smallest form; None for any other record, which is
    decoded in full (a message in any other form is refused there, as it always was). Only from
    ``bytes``: a slice of another buffer would be a buffer, where :func:`decode` gives bytes."""
    if type(data) is not bytes or data[start : start + 5] != _MESSAGE_HEAD or length < 6:
        return None
    head = _BIN_HEADS.get(data[start + 5], 0)  # (bin 8, 16, 32: their tags differ)
    size = length - 5 - head
    if head and size >= 0 and data[start + 5 : start + 5 + head] == bin_head(size):
        return ["msg", data[start + 5 + head : start + length]]
    return None


_BIN_HEADS: Final = {0xC4: 2, 0xC5: 3, 0xC6: 5}
"""msgpack's bin 8, 16 and 32 tags, and the length of the head each begins: the tag, then the
length in 1, 2 or 4 bytes."""


@dataclass(frozen=True)
class Header:
    """A transcript's first record: the match messages' version and the header map (SPEC 7,
    "The header"), the keys a reader needs read out of it."""

    version: int
    peers: tuple[bytes, ...]
    me: int | None
    """This peer's index in ``peers``; None in an observer's (a spectator's) transcript."""
    meta: Mapping[str, Any]
    """The whole header map as written (a reader ignores keys it does not know)."""

    @property
    def expected(self) -> dict[str, Any] | None:
        """What a joiner agreed to in the lobby (terms to come), if this is a joiner's."""
        expected = self.meta.get("expected")
        return expected if isinstance(expected, dict) else None


@dataclass(frozen=True)
class MsgRecord:
    """A match message this peer sent or accepted, as its exact bytes."""

    raw: bytes


@dataclass(frozen=True)
class RejectedRecord:
    """Bytes a peer sent that were refused (evidence), and why (for people)."""

    raw: bytes
    reason: str


@dataclass(frozen=True)
class FaultRecord:
    """Why this peer stopped the match: read, never trusted (``verify`` finds faults itself)."""

    kind: str
    peer: int | None
    stage: int
    reason: str
    evidence: Mapping[str, Plain]


@dataclass(frozen=True)
class DesyncRecord:
    """The public state peer ``author`` sent in its desync about ``stage``."""

    author: int
    stage: int
    state: Mapping[str, Plain]


Record = MsgRecord | RejectedRecord | FaultRecord | DesyncRecord

FIELDS: Final[Mapping[str, tuple[type[Record], tuple[tuple[type, ...], ...]]]] = {
    "msg": (MsgRecord, ((bytes,),)),
    "rejected": (RejectedRecord, ((bytes,), (str,))),
    "fault": (FaultRecord, ((str,), (int, type(None)), (int,), (str,), (dict,))),
    "desync_state": (DesyncRecord, ((int,), (int,), (dict,))),
}
"""Each kind of record after the header: its type and the types of its fields, in order (SPEC
section 7's table; ``bool`` is no ``int`` here)."""
_SHAPES: Final = {kind: frozenset(product(*types)) for kind, (_, types) in FIELDS.items()}
"""Each kind's fields' exact types as a record may hold them, every combination (a record's are
looked up at once, not field by field)."""


@dataclass(frozen=True)
class Transcript:
    """A transcript read: its header and every record after it, typed."""

    header: Header
    records: tuple[Record, ...]

    @property
    def messages(self) -> tuple[bytes, ...]:
        """Every match message it holds (its ``msg`` records), in order."""
        return tuple(record.raw for record in self.records if isinstance(record, MsgRecord))


def read(data: bytes) -> Transcript:
    """A transcript file, decoded and checked record by record; raises TranscriptError on damage
    and on a record that is not one SPEC section 7 describes."""
    return typed(records(data))


def read_header(data: bytes) -> Header:
    """A transcript file's header alone (the records after it not read)."""
    first = next(records(data), None)
    if first is None:
        raise TranscriptError("not a p2pgenius transcript (no header)")
    return header_of(first)


def typed(items: Iterable[list[Any]]) -> Transcript:
    """Decoded records, header first (what :func:`records` yields), checked and typed."""
    values = iter(items)
    first = next(values, None)
    if first is None:
        raise TranscriptError("not a p2pgenius transcript (no header)")
    return Transcript(
        header_of(first), tuple(record_of(value, index) for index, value in enumerate(values, start=1))
    )


def header_of(value: list[Any]) -> Header:
    """The header record, checked: the version an int, the peers' keys (at least two), ``me``."""
    if not (len(value) == 3 and value[0] == MAGIC):
        raise TranscriptError("not a p2pgenius transcript (no header)")
    _, version, meta = value
    meta = meta if isinstance(meta, dict) else {}
    if type(version) is not int:
        raise TranscriptError(f"the header's version is {version!r}, not a number")
    keys = meta.get("peers")
    if not isinstance(keys, list) or not all(isinstance(k, bytes) for k in keys) or len(keys) < 2:
        raise TranscriptError("the header does not list the peers' keys")
    me = meta.get("me")
    if me is not None and not (type(me) is int and 0 <= me < len(keys)):
        raise TranscriptError(f"the header's me is {me!r}: not one of its {len(keys)} peers")
    return Header(version, tuple(keys), me, meta)


def record_of(value: list[Any], index: int) -> Record:
    """Record ``index`` (the header is record 0), decoded, checked against :data:`FIELDS`."""
    if len(value) == 2 and value[0] == "msg" and type(value[1]) is bytes:
        return MsgRecord(value[1])  # (most records: what the lines below make of it, in fewer steps)
    kind = value[0] if value else None
    if not isinstance(kind, str) or kind not in FIELDS:
        raise TranscriptError(f"record {index} is of no kind a transcript holds ({kind!r})")
    cls = FIELDS[kind][0]
    fields = value[1:]
    if tuple(map(type, fields)) not in _SHAPES[kind]:
        shape = ", ".join(type(f).__name__ for f in fields)
        raise TranscriptError(f"record {index}, a {kind!r} record, holds ({shape}): not its fields")
    return cls(*fields)


@dataclass(frozen=True)
class CoinSecret:
    """This peer's share of the coin flip (the nonce it committed to in its ready)."""

    nonce: bytes


@dataclass(frozen=True)
class ChoiceSecret:
    """A sealed choice of one of this peer's seats, and the nonce that opens its commitment."""

    stage: int
    seat: int
    action: Plain
    nonce: bytes


def secrets_of(items: Iterable[list[Any]]) -> Iterator[CoinSecret | ChoiceSecret]:
    """A secrets file's decoded records (``records(data, headed=False)``), typed; raises
    TranscriptError on one that is neither a coin share nor a sealed choice."""
    for index, value in enumerate(items):
        match value:
            case ["coin", bytes() as nonce]:
                yield CoinSecret(nonce)
            case ["secret", int() as stage, int() as seat, action, bytes() as nonce]:
                yield ChoiceSecret(stage, seat, action, nonce)
            case _:
                raise TranscriptError(f"secrets record {index} is neither a coin share nor a sealed choice")
