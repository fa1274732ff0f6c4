"""A match's mailbox on Nostr relays: letters of signed messages, sealed so that only the holders
of the match's mailbox secret can read them, and bound to the player who wrote them
(protocol/SPEC.md, section 4e).

Correspondence play moves a match's signed messages through untrusted relays, as the transit
relay moves a live match's bytes. Each *letter* is one Nostr event (NIP-01) under a key used for
that event alone, addressed (its one ``p`` tag) to the *mailbox address*: the public key derived
from the match's 32-byte mailbox secret, which the invite carries. Its content is a NIP-44 v2
payload between the event's key and the address, so whoever holds the secret reads every letter
and nobody else reads any; inside, the author's Ed25519 identity signs the messages together with
the event's key, so that neither a relay nor another holder of the secret can post a letter in
a player's name. A relay learns that some key wrote to some address, when (the time the event
claims), and how much (NIP-44 pads lengths to coarse steps); never who, nor what.

Pure: the time a letter claims and every random byte it needs are the caller's (a vector passes
fixed ones and gets the same event every time).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.identity import Identity, verify
from p2pgenius.protocol.messages import TAG as ENVELOPE_TAG
from p2pgenius.protocol.nostr import (
    KEY_LEN,
    Draft,
    Event,
    NostrError,
    SecretKey,
    conversation_key,
    decrypt,
    encrypt,
    sign_event,
)

LETTER_KIND: Final = 1059
"""A letter's event kind: NIP-59's gift wrap (an event under a key of its own, addressed by its
one ``p`` tag, its content NIP-44), which public relays store and serve by ``#p``; what it wraps
is ours, not NIP-59's seal."""
TAG: Final = "p2pgenius-letter"
VERSION: Final = 1
BOX_SALT: Final = b"p2pgenius-mailbox-v1"
"""The HKDF salt that turns a mailbox secret into its address key."""
_ORDER: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
MAX_LETTER_BYTES: Final = 30_000
"""The most a letter's canonical encoding may take, so that the whole event stays under 64 kB
(its base64, padded and sealed, is a content of at most 54,704 characters), which many public
relays take at most; well within one NIP-44 plaintext."""


class MailError(NostrError):
    """A letter refused: not addressed to this mailbox, not sealed for it, malformed, or not
    signed by the identity it names."""


def secret_key(raw: bytes) -> SecretKey:
    """32 bytes as a secp256k1 secret key: reduced into [1, n - 1] (``1 + raw mod (n - 1)``), so
    that any 32 random or derived bytes make one, the same way in every implementation."""
    if len(raw) != KEY_LEN:
        raise MailError(f"a key is made from {KEY_LEN} bytes")
    return SecretKey((1 + int.from_bytes(raw, "big") % (_ORDER - 1)).to_bytes(KEY_LEN, "big"))


@dataclass(frozen=True, slots=True)
class Mailbox:
    """A match's mailbox: its ``secret`` (the invite's), and what is derived from it once:
    ``key``, the address's secret key (HKDF-SHA256 of the secret, salt ``BOX_SALT``, info
    ``address``, 32 bytes, made a key by :func:`secret_key`), and ``address``, that key's x-only
    public key in hex: every letter's ``p`` tag (what a reader asks the relays for:
    ``{"kinds": [1059], "#p": [address]}``)."""

    secret: bytes = field(repr=False)  # (no traceback or log line shows it)
    key: SecretKey = field(init=False, repr=False)
    address: str = field(init=False)

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_LEN:
            raise MailError(f"a mailbox secret is {KEY_LEN} bytes")
        key = secret_key(HKDF(hashes.SHA256(), KEY_LEN, BOX_SALT, b"address").derive(self.secret))
        object.__setattr__(self, "key", key)  # (frozen: set once, here)
        object.__setattr__(self, "address", key.public.hex())


@dataclass(frozen=True, slots=True)
class Letter:
    """What a letter said, once read and checked: its ``author`` (an Ed25519 identity key), the
    ``messages`` it carried in their order, and the event it came in (its id, the time it
    claims)."""

    author: bytes
    messages: tuple[bytes, ...]
    event: Event


def _signed_part(box: Mailbox, sender: str, author: bytes, messages: Sequence[bytes]) -> bytes:
    """What the author signs: the letter's tag and version, the address, the event's key, the
    author and the messages, canonically encoded (so the key a letter travels under is bound
    to the identity that wrote it)."""
    return encode([TAG, VERSION, bytes.fromhex(box.address), bytes.fromhex(sender), author, list(messages)])


def write(
    box: Mailbox, identity: Identity, messages: Sequence[bytes], created_at: int, randomness: bytes
) -> Event:
    """One letter of ``messages`` from ``identity`` to ``box``, claiming ``created_at``.
    ``randomness``: 96 fresh random bytes (the event's one-time key, the NIP-44 nonce, the
    signature's auxiliary bytes), never reused."""
    if len(randomness) != 3 * KEY_LEN:
        raise MailError("a letter takes 96 random bytes: its key, its nonce, its signature's")
    if not messages or not all(isinstance(m, bytes) and m for m in messages):
        raise MailError("a letter carries one message or more, each of bytes")
    sender = secret_key(randomness[:KEY_LEN])
    sender_hex = sender.public.hex()
    signature = identity.sign(_signed_part(box, sender_hex, identity.public, messages))
    letter = encode([TAG, VERSION, identity.public, list(messages), signature])
    if len(letter) > MAX_LETTER_BYTES:
        raise MailError(f"a letter of {len(letter)} bytes (at most {MAX_LETTER_BYTES}: send fewer messages)")
    plaintext = base64.b64encode(letter).decode("ascii")
    content = encrypt(plaintext, conversation_key(sender, box.key.public), randomness[KEY_LEN : 2 * KEY_LEN])
    draft = Draft.of(created_at, LETTER_KIND, [["p", box.address]], content)
    return sign_event(sender, draft, randomness[2 * KEY_LEN :])


def in_letters(messages: Sequence[bytes]) -> list[tuple[bytes, ...]]:
    """``messages`` in order, as few letters' worth as fit (each within :data:`MAX_LETTER_BYTES`
    once written): what one visit posts. A message too large for any letter is refused (a
    signed match message is at most 60,000 bytes; one over 29,900 or so cannot travel by mail)."""
    letters: list[tuple[bytes, ...]] = []
    current: list[bytes] = []
    for message in messages:
        if _letter_size([*current, message]) <= MAX_LETTER_BYTES:
            current.append(message)
            continue
        if not current:
            raise MailError(f"a message of {len(message)} bytes is too large for a letter")
        letters.append(tuple(current))
        current = [message]
        if _letter_size(current) > MAX_LETTER_BYTES:
            raise MailError(f"a message of {len(message)} bytes is too large for a letter")
    if current:
        letters.append(tuple(current))
    return letters


def _letter_size(messages: Sequence[bytes]) -> int:
    """How many bytes the letter of ``messages`` encodes to (the author and signature as long as
    any are)."""
    return len(encode([TAG, VERSION, bytes(KEY_LEN), list(messages), bytes(64)]))


def read(box: Mailbox, event: Event) -> Letter:
    """The letter ``event`` carries (an event already checked by ``nostr.parse_event``),
    refused with one line unless it is a letter addressed to ``box``, sealed for it, well formed,
    and signed by the identity it names together with the event's key."""
    if event.kind != LETTER_KIND or event.tags != (("p", box.address),):
        raise MailError("not a letter to this mailbox (its kind or its one p tag)")
    plaintext = decrypt(event.content, conversation_key(box.key, bytes.fromhex(event.pubkey)))
    try:
        raw = base64.b64decode(plaintext.encode("ascii"), validate=True)
        value = decode(raw)
    except (UnicodeEncodeError, binascii.Error, EncodingError):
        raise MailError("a letter that is not canonical base64 of a canonical encoding") from None
    if base64.b64encode(raw).decode("ascii") != plaintext:
        raise MailError("a letter in other than its one base64 form")
    author, messages, signature = _fields(value)
    if not verify(author, signature, _signed_part(box, event.pubkey, author, messages)):
        raise MailError("a letter not signed by the identity it names, under the key it came with")
    return Letter(author, tuple(messages), event)


def _fields(value: object) -> tuple[bytes, list[bytes], bytes]:
    """A letter's author, messages and signature, its shape checked."""
    # (The version is the integer 1: msgpack's true would pass for it in Python, not elsewhere.)
    if not (isinstance(value, list) and len(value) == 5 and value[0] == TAG and type(value[1]) is int):
        raise MailError(f"not a {TAG} of version {VERSION}")
    if value[1] != VERSION:
        raise MailError(f"not a {TAG} of version {VERSION}")
    _, _, author, messages, signature = value
    if not (isinstance(author, bytes) and len(author) == KEY_LEN and isinstance(signature, bytes)):
        raise MailError("a letter's author is a 32-byte key and its signature bytes")
    if not (isinstance(messages, list) and messages and all(isinstance(m, bytes) and m for m in messages)):
        raise MailError("a letter carries one message or more, each of bytes")
    return author, list(messages), signature


# -- what a letter's messages are (SPEC 4f) -------------------------------------------------------

HELLO: Final = "hello"


@dataclass(frozen=True, slots=True)
class Hello:
    """``["hello", {"name": str, "token": bytes}]``, a joiner's first letter: its name at the
    table and its proof of the invite's seat token (:func:`seat_proof`: bound to its key, for
    the mailbox's readers, spectators too, see it)."""

    name: str
    token: bytes


@dataclass(frozen=True, slots=True)
class Signed:
    """A signed match message (section 5), whole."""

    raw: bytes
    author: int


Item = Signed | Hello | wire.Lobby | wire.Ready
"""What one message of a letter is, read (anything else in a letter is ignored)."""


SEAT_PROOF: Final = b"p2pgenius-seat"


def seat_proof(token: bytes, author: bytes) -> bytes:
    """What a joiner's hello carries for the invite's seat ``token``: the first 16 bytes of
    HMAC-SHA256 keyed with the token, of ``SEAT_PROOF`` followed by the joiner's identity key
    (``author``). The host, holding the token, checks it for the letter's author; every other
    reader of the mailbox (a spectator holds the mailbox too) learns nothing it could seat
    another key with."""
    return hmac.new(token, SEAT_PROOF + author, hashlib.sha256).digest()[:16]


def hello(name: str, token: bytes, author: bytes) -> bytes:
    """A joiner's hello (see :class:`Hello`): its name and its :func:`seat_proof` of ``token``
    for its identity key ``author``."""
    return encode([HELLO, {"name": name, "token": seat_proof(token, author)}])


def item(message: bytes) -> Item | None:
    """What ``message`` is: a signed match message (its author's index read, not checked: the
    session checks it whole), a hello, the host's table or a joiner's ready; None otherwise."""
    try:
        value: Any = decode(message)
    except EncodingError:
        return None
    if not (isinstance(value, list) and value):
        return None
    if value[0] == ENVELOPE_TAG:
        author = value[2] if len(value) == 7 else None
        return Signed(message, author) if type(author) is int and author >= 0 else None
    if value[0] == HELLO:
        said = value[1] if len(value) == 2 else None
        if (
            isinstance(said, dict)
            and isinstance(said.get("name"), str)
            and isinstance(said.get("token"), bytes)
        ):
            return Hello(said["name"], said["token"])
        return None
    parsed = wire.parse(message)
    return parsed if isinstance(parsed, wire.Lobby | wire.Ready) else None
