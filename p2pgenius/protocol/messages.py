"""Signed, chained match messages and the commitments they carry (protocol/SPEC.md, "Messages").

Every message is a canonical msgpack array, an *envelope*::

    ["p2pg/2", match_id, author, seq, prev, body, signature]

``author`` is the peer's index in the match, ``seq`` counts that author's messages from 0, ``prev``
is the hash of that author's previous envelope (32 zero bytes for the first), ``body`` is the
message itself (an array whose first element names its kind), and ``signature`` is the author's
Ed25519 signature of ``b"p2pgenius/1 message" + encode([tag, match_id, author, seq, prev, body])``.
A message's hash, for chaining and for reference, is SHA-256 of the whole envelope's bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Final

from p2pgenius.canonical import Plain, decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.protocol.bodies import Body, BodyError, is_text, parse_body
from p2pgenius.protocol.identity import Identity, verify

TAG: Final = "p2pg/2"
SIGN_DOMAIN: Final = b"p2pgenius/1 message"
COMMIT_DOMAIN: Final = "p2pgenius/1 commitment"
COIN_DOMAIN: Final = "p2pgenius/2 coin"
READY_DOMAIN: Final = b"p2pgenius/2 ready"
ZERO_HASH: Final = b"\x00" * 32
NONCE_LEN: Final = 32
MAX_MESSAGE_BYTES: Final = 60_000
_SIX: Final = b"\x96"  # msgpack's fixarray headers of 6 and 7 elements
_SEVEN: Final = b"\x97"


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
    prev: bytes
    body: tuple[Any, ...]
    raw: bytes
    msg: Body  # the body, typed and checked (bodies.py)
    hash: bytes = field(init=False)
    """SHA-256 of the envelope's bytes (taken once: the chain, the archive and the transcript
    each ask for it)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hash", hashlib.sha256(self.raw).digest())

    @property
    def kind(self) -> str:
        """The message kind (the body's first element)."""
        return str(self.body[0])


def seal(identity: Identity, match_id: bytes, author: int, seq: int, prev: bytes, body: list[Plain]) -> bytes:
    """Sign a body into envelope bytes."""
    unsigned = encode([TAG, match_id, author, seq, prev, body])
    signature = identity.sign(SIGN_DOMAIN + unsigned)
    # The 7-array's encoding is the 6-array's with one more element: no second encoding pass.
    return _SEVEN + unsigned[1:] + encode(signature)


def open_envelope(raw: bytes, keys: list[bytes]) -> Envelope:
    """Decode and check an envelope: canonical bytes, known author, valid signature, well-formed
    body. Chain and sequence are the session's to check. Raises MessageError."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise MessageError(f"a message of {len(raw)} bytes (the limit is {MAX_MESSAGE_BYTES})")
    try:
        value = decode(raw)
    except EncodingError as exc:
        raise MessageError(f"not a canonical message: {exc}") from None
    if not (isinstance(value, list) and len(value) == 7 and value[0] == TAG):
        raise MessageError("not a p2pgenius/1 message envelope")
    _, match_id, author, seq, prev, body, signature = value
    if not (
        isinstance(match_id, bytes)
        and len(match_id) == 32
        and isinstance(prev, bytes)
        and len(prev) == 32
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
    # The signed bytes are the envelope's own, as a 6-array without the signature (canonical
    # bytes, checked above, make this exact): cheaper than encoding the fields again.
    signed = _SIX + raw[1 : len(raw) - len(encode(signature))]
    if not verify(keys[author], signature, SIGN_DOMAIN + signed):
        raise MessageError(f"the signature of peer {author}'s message does not verify (forged)")
    try:
        msg = parse_body(body)
    except BodyError as exc:
        raise MessageError(str(exc)) from None
    return Envelope(match_id, author, seq, prev, tuple(body), raw, msg)


def commitment(match_id: bytes, stage: int, seat: int, nonce: bytes, payload: Plain) -> bytes:
    """The commitment to a hidden choice: SHA-256 of the canonical
    ``[COMMIT_DOMAIN, match_id, stage, seat, nonce, payload]``."""
    return hashlib.sha256(encode([COMMIT_DOMAIN, match_id, stage, seat, nonce, payload])).digest()


def coin_commitment(salt: bytes, key: bytes, nonce: bytes) -> bytes:
    """The commitment to one peer's share of the coin flip: bound to the table (the terms'
    ``salt``, which the host shows in its lobby) and to the author's identity ``key``, so that
    nobody can copy another peer's commitment, nor reuse one at another table."""
    return hashlib.sha256(encode([COIN_DOMAIN, salt, key, nonce])).digest()
