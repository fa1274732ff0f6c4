"""Signed, chained match messages and the commitments they carry (protocol/SPEC.md, "Messages").

Every message is a canonical msgpack array, an *envelope*::

    ["p2pg/3", match_id, author, seq, heads, body, signature]

``author`` is the peer's index in the match, ``seq`` counts that author's messages from 0, ``heads``
has one hash per peer of the match: at the author's own index the hash of its previous envelope
(32 zero bytes for the first), at every other peer's the hash of the newest message of that peer
the author held when it wrote this one (32 zero bytes for none). ``body`` is the message itself
(an array whose first element names its kind), and ``signature`` is the author's Ed25519
signature of ``b"p2pgenius/1 message" + encode([tag, match_id, author, seq, heads, body])``. A
message's hash, for chaining and for reference, is SHA-256 of the whole envelope's bytes.

So each signature binds not only its author's own history but every other peer's, as far as the
author had seen it: nobody can rewrite a message that another peer has acknowledged without that
peer's later messages failing to fit (protocol/SPEC.md, "What a transcript proves").

Version 2 envelopes (tag ``"p2pg/2"``, a single ``prev`` hash in place of ``heads``) are still
opened, for reading old transcripts: their ``heads`` are the author's ``prev`` alone, and they
bind nothing of the others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgpack

from p2pgenius.canonical import Plain, bin_head, decode, encode, encodes
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.protocol.bodies import Body, BodyError, is_text, parse_body
from p2pgenius.protocol.identity import Identity, verify

MATCH_DOMAIN: Final = b"p2pgenius/1 match"


def match_id(terms: Mapping[str, Any]) -> bytes:
    """The match id: H("p2pgenius/1 match" || encode(terms)) (every envelope of the match carries it)."""
    return hashlib.sha256(MATCH_DOMAIN + encode(dict(terms))).digest()


VERSION: Final = 3
"""The match messages' version (protocol/SPEC.md, section 8): every message names the newest
message of every peer its author held, and a result stands once every peer has signed it."""
OLD_VERSION: Final = 2
"""The version before: its transcripts are still read, and prove no result (nothing in them binds
one peer's signature to another peer's messages)."""
TAG: Final = "p2pg/3"
OLD_TAG: Final = "p2pg/2"
"""The envelope tag of match messages version 2 (read, never written)."""
SIGN_DOMAIN: Final = b"p2pgenius/1 message"
COMMIT_DOMAIN: Final = "p2pgenius/1 commitment"
COIN_DOMAIN: Final = "p2pgenius/2 coin"
READY_DOMAIN: Final = b"p2pgenius/2 ready"
ZERO_HASH: Final = b"\x00" * 32
MAX_MESSAGE_BYTES: Final = 60_000
_BYTES: Final = frozenset((bytes,))
_HASH_LENGTH: Final = frozenset((32,))
_SIX: Final = b"\x96"  # msgpack's fixarray headers of 6 and 7 elements
_SEVEN: Final = b"\x97"
_FIELD_TYPES: Final = (str, bytes, int, int, list, list, bytes)
"""The exact types of a version 3 envelope's fields, in order, as decoded."""


NAME_LIMIT: Final = 32
"""The longest player name (characters)."""


def printable(text: str) -> str:
    """``text`` with every character that is not printable (escape and other control characters,
    bidirectional overrides, line separators) shown as "?": what a peer sent, made harmless."""
    return "".join(c if c.isprintable() else "?" for c in text)


def is_name(name: object) -> bool:
    """Whether ``name`` is a player name: 1 to NAME_LIMIT printable characters, no space at
    either end."""
    return isinstance(name, str) and is_text(name, NAME_LIMIT) and bool(name) and name == name.strip()


class MessageError(P2PGeniusError):
    """A message that is malformed, oversized, badly signed or out of its author's chain."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """A decoded, signature-checked message."""

    match_id: bytes
    author: int
    seq: int
    heads: tuple[bytes, ...]
    """Per peer, the newest message of it the author held (its own: its previous message)."""
    body: tuple[Any, ...]
    raw: bytes
    msg: Body  # the body, typed and checked (bodies.py)
    version: int = VERSION
    """The match messages' version of the envelope (2: an old transcript's, whose ``heads`` name
    nothing of the other peers)."""
    hash: bytes = field(init=False)
    """SHA-256 of the envelope's bytes (taken once: the chain, the archive and the transcript
    each ask for it)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hash", hashlib.sha256(self.raw).digest())

    @property
    def prev(self) -> bytes:
        """The hash of the author's previous message (zeros for its first)."""
        return self.heads[self.author]

    @property
    def kind(self) -> str:
        """The message kind (the body's first element)."""
        return str(self.body[0])


def seal(
    identity: Identity, match_id: bytes, author: int, seq: int, heads: Sequence[bytes], body: list[Plain]
) -> bytes:
    """Sign a body into envelope bytes (``heads``: one hash per peer, see the module's doc)."""
    unsigned = encode([TAG, match_id, author, seq, list(heads), body])
    signature = identity.sign(SIGN_DOMAIN + unsigned)
    # The 7-array's encoding is the 6-array's with one more element: no second encoding pass.
    return _SEVEN + unsigned[1:] + encode(signature)


def open_envelope(raw: bytes, keys: Sequence[bytes], *, version: int = VERSION) -> Envelope:
    """Decode and check an envelope of match messages ``version`` (3, or 2 for an old
    transcript): canonical bytes, known author, one head per peer, valid signature, well-formed
    body. Chain, sequence and what the heads name are the session's to check. Raises
    MessageError."""
    fields = _well_formed(raw, keys) if version == VERSION else None
    if fields is None:  # (anything else, refused or an old envelope: every check, in its order)
        fields = _fields_checked(raw, keys, version)
    match_id, author, seq, heads, body, signature = fields
    # (the bytes were proved canonical: what _signed takes of them is exact)
    if not verify(keys[author], signature, _signed(raw, signature)):
        raise MessageError(f"the signature of peer {author}'s message does not verify (forged)")
    try:
        msg = parse_body(body)
    except BodyError as exc:
        raise MessageError(str(exc)) from None
    return _envelope(match_id, author, seq, tuple(heads), tuple(body), raw, msg, version)


_SETTERS: Final = tuple(
    getattr(Envelope, name).__set__
    for name in ("match_id", "author", "seq", "heads", "body", "raw", "msg", "version", "hash")
)
"""Each field's setter, through its slot (the frozen class's own ``__setattr__`` refuses)."""
_NEW: Final = object.__new__


def _envelope(
    match_id: bytes,
    author: int,
    seq: int,
    heads: tuple[bytes, ...],
    body: tuple[Any, ...],
    raw: bytes,
    msg: Body,
    version: int,
) -> Envelope:
    """``Envelope(match_id, author, seq, heads, body, raw, msg, version)``, made with fewer steps:
    the frozen class's ``__init__`` sets each field by a call of ``object.__setattr__`` and
    then its hash by ``__post_init__``, most of the cost of making one (a match makes one a
    message); here each field is set through its slot. A test compares the two."""
    envelope = _NEW(Envelope)
    set_id, set_author, set_seq, set_heads, set_body, set_raw, set_msg, set_version, set_hash = _SETTERS
    set_id(envelope, match_id)
    set_author(envelope, author)
    set_seq(envelope, seq)
    set_heads(envelope, heads)
    set_body(envelope, body)
    set_raw(envelope, raw)
    set_msg(envelope, msg)
    set_version(envelope, version)
    set_hash(envelope, hashlib.sha256(raw).digest())
    return envelope


Fields = tuple[bytes, int, int, list[bytes], list[Any], bytes]
"""An envelope's fields after its tag, checked: match id, author, number, heads, body, signature."""


def _well_formed(raw: bytes, keys: Sequence[bytes]) -> Fields | None:
    """The fields of ``raw`` where it is a canonical version 3 envelope whose every field has its
    exact type and range (a match's every message): what :func:`_fields_checked` gives of it,
    found with fewer steps (no field but the body can hold a map or a float to look for); None
    for anything else, which that longer path reads, or refuses in its words."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return None
    try:
        value = msgpack.unpackb(raw, raw=False, strict_map_key=True, use_list=True)
    except Exception:  # (msgpack raises a zoo of types for bad input: the longer path says why)
        return None
    if type(value) is not list or tuple(map(type, value)) != _FIELD_TYPES:
        return None
    tag, match_id, author, seq, heads, body, signature = value
    if not (
        tag == TAG
        and len(match_id) == 32
        and len(heads) == len(keys)
        and _BYTES.issuperset(map(type, heads))
        and _HASH_LENGTH.issuperset(map(len, heads))
        and seq >= 0
        and 0 <= author < len(keys)
        and body
    ):
        return None
    # (the body is where a map, a float or an extension can be: every other field is a leaf or a
    # list of leaves)
    if not encodes(value, raw, inside=5):
        return None
    return match_id, author, seq, heads, body, signature


def _fields_checked(raw: bytes, keys: Sequence[bytes], version: int) -> Fields:
    """The fields of the envelope ``raw`` of match messages ``version``, every check made in its
    order (size, canonical bytes, tag, fields, author); raises MessageError, saying which failed."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise MessageError(f"a message of {len(raw)} bytes (the limit is {MAX_MESSAGE_BYTES})")
    try:
        value = decode(raw)
    except EncodingError as exc:
        raise MessageError(f"not a canonical message: {exc}") from None
    tag = TAG if version == VERSION else OLD_TAG
    if not (isinstance(value, list) and len(value) == 7 and value[0] == tag):
        if isinstance(value, list) and value and value[0] in (TAG, OLD_TAG):
            raise MessageError(f"a message of another version of the protocol ({value[0]!r}, not {tag!r})")
        raise MessageError(f"not a {tag} message envelope")
    _, match_id, author, seq, heads, body, signature = value
    old = version == OLD_VERSION and isinstance(heads, bytes) and type(author) is int
    if old and 0 <= author < len(keys):  # (its one ``prev``: it names nothing of the others)
        heads = [heads if peer == author else ZERO_HASH for peer in range(len(keys))]
    if not (
        isinstance(match_id, bytes)
        and len(match_id) == 32
        and isinstance(heads, list)
        and len(heads) == len(keys)
        and _BYTES.issuperset(map(type, heads))  # (decoded: bytes of no subclass; looked at in C)
        and _HASH_LENGTH.issuperset(map(len, heads))
        and type(author) is int
        and type(seq) is int
        and seq >= 0
        and isinstance(signature, bytes)
        and isinstance(body, list)
        and body
    ):
        raise MessageError("malformed envelope fields")
    if not 0 <= author < len(keys):
        raise MessageError(f"unknown author {author}")
    return match_id, author, seq, heads, body, signature


def signature_check(raw: bytes, keys: Sequence[bytes]) -> tuple[bytes, bytes, bytes] | None:
    """The signature check :func:`open_envelope` would make of ``raw`` (key, signature, signed
    bytes), read loosely and cheaply, so that it can be made first (elsewhere, at once) and
    remembered by :func:`~p2pgenius.protocol.identity.verify`; None where ``raw`` is plainly no
    envelope of these ``keys``. Nothing is judged by it: a check made first only remembers a
    signature that held over exactly these bytes, and :func:`open_envelope` still makes every
    check of its own, in its order."""
    if len(raw) > MAX_MESSAGE_BYTES or raw[:1] != _SEVEN:
        return None
    try:
        value = msgpack.unpackb(raw, raw=False, strict_map_key=True, use_list=True)
    except Exception:  # (msgpack raises a zoo of types for bad input: open_envelope says why)
        return None
    tag, author, signature = value[0], value[2], value[6]
    if tag not in (TAG, OLD_TAG) or type(author) is not int or not 0 <= author < len(keys):
        return None
    if type(signature) is not bytes:
        return None
    return keys[author], signature, _signed(raw, signature)


def _signed(raw: bytes, signature: bytes) -> bytes:
    """What the ``signature`` of the envelope ``raw`` signs: the domain, then the envelope's own
    bytes as a 6-array without the signature (canonical bytes make this exact, and cheaper than
    encoding the fields again)."""
    return SIGN_DOMAIN + _SIX + raw[1 : len(raw) - _bin_size(signature)]


def _bin_size(value: bytes) -> int:
    """The length of ``value``'s msgpack encoding, as ``len(encode(value))``."""
    return len(bin_head(len(value))) + len(value)


def commitment(match_id: bytes, stage: int, seat: int, nonce: bytes, payload: Plain) -> bytes:
    """The commitment to a hidden choice: SHA-256 of the canonical
    ``[COMMIT_DOMAIN, match_id, stage, seat, nonce, payload]``."""
    return hashlib.sha256(encode([COMMIT_DOMAIN, match_id, stage, seat, nonce, payload])).digest()


def coin_commitment(salt: bytes, key: bytes, nonce: bytes) -> bytes:
    """The commitment to one peer's share of the coin flip: bound to the table (the terms'
    ``salt``, which the host shows in its lobby) and to the author's identity ``key``, so that
    nobody can copy another peer's commitment, nor reuse one at another table."""
    return hashlib.sha256(encode([COIN_DOMAIN, salt, key, nonce])).digest()
