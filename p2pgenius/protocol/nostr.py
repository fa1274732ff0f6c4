"""Nostr without the network: NIP-01 events and NIP-44 v2 encrypted payloads.

Correspondence play carries each signed match message as a Nostr event stored on public relays.
The relays are untrusted carriers: an event read from one is checked here field by field, its id
recomputed and its BIP-340 signature verified, before anything above looks at it; what it carries
is then checked again by the match's own signatures and chains. Nothing here does I/O, reads a
clock or draws randomness: the time an event claims and the random bytes a signature or a payload
needs are the caller's (a test passes fixed ones, and gets the same bytes every time).

secp256k1 (x-only keys, Schnorr signatures, ECDH) is libsecp256k1's, through ``coincurve``;
HKDF, HMAC-SHA256 and ChaCha20 are the ``cryptography`` package's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import coincurve
from cryptography.hazmat.primitives import constant_time, hashes
from cryptography.hazmat.primitives import hmac as crypto_hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.kdf.hkdf import HKDF, HKDFExpand

from p2pgenius.errors import P2PGeniusError, shown

KEY_LEN: Final = 32
SIGNATURE_LEN: Final = 64
_ORDER: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
"""secp256k1's group order n: a secret key is a scalar in [1, n - 1] (BIP-340)."""

MAX_KIND: Final = 65535
MAX_CREATED_AT: Final = 2**53 - 1
"""The latest time an event may claim: beyond it, JavaScript's numbers (most clients') lose digits."""
MAX_CONTENT_CHARS: Final = 131_072
"""The longest content taken: our largest NIP-44 payload (87,472 characters) with room to spare;
public relays refuse events much over 64 to 128 kB anyway."""
MAX_TAGS: Final = 256
MAX_TAG_ITEMS: Final = 16
MAX_TAG_CHARS: Final = 1024
FIELDS: Final = frozenset({"id", "pubkey", "created_at", "kind", "tags", "content", "sig"})

_HEX64: Final = re.compile(r"[0-9a-f]{64}")
_HEX128: Final = re.compile(r"[0-9a-f]{128}")
_ESCAPES: Final = {"\n": "\\n", '"': '\\"', "\\": "\\\\", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_SPECIAL: Final = re.compile(r'[\x00-\x1f"\\]')


class NostrError(P2PGeniusError):
    """An event, key or payload refused: malformed, forged, or not decryptable by us."""


def _is_hex(text: object, pattern: re.Pattern[str]) -> bool:
    """Whether ``text`` is a string of exactly the lowercase hex ``pattern`` asks for."""
    return isinstance(text, str) and pattern.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class SecretKey:
    """A Nostr secret key: the scalar that signs events and opens the payloads sent to us (kept
    out of its ``repr``, so that no traceback or log line shows it)."""

    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_LEN or not 0 < int.from_bytes(self.secret, "big") < _ORDER:
            raise NostrError("a secp256k1 secret key is 32 bytes, a number from 1 to the group order less 1")

    @property
    def public(self) -> bytes:
        """The 32-byte x-only public key (BIP-340): who signed an event."""
        return bytes(coincurve.PublicKeyXOnly.from_secret(self.secret).format())

    def sign(self, digest: bytes, aux_random: bytes) -> bytes:
        """A BIP-340 signature of a 32-byte ``digest``, with the caller's 32 fresh random bytes
        (BIP-340's auxiliary randomness: never left to the library, which would read the OS)."""
        if len(digest) != KEY_LEN or len(aux_random) != KEY_LEN:
            raise NostrError("a Schnorr signature takes a 32-byte digest and 32 random bytes")
        return bytes(coincurve.PrivateKey(self.secret).sign_schnorr(digest, aux_random))


def verify_signature(public: bytes, digest: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public``'s BIP-340 signature of ``digest`` (False for a key
    that is not on the curve, rather than an error: a relay's bytes are not our mistake)."""
    if len(public) != KEY_LEN or len(digest) != KEY_LEN or len(signature) != SIGNATURE_LEN:
        return False
    try:
        return bool(coincurve.PublicKeyXOnly(public).verify(signature, digest))
    except (ValueError, TypeError):
        return False


# --- NIP-01 events -----------------------------------------------------------------------------


Tags = tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Event:
    """A NIP-01 event whose fields were checked and whose id and signature hold (only
    :func:`sign_event` and :func:`parse_event` make one)."""

    id: str
    pubkey: str
    created_at: int
    kind: int
    tags: Tags
    content: str
    sig: str

    def to_json(self) -> dict[str, object]:
        """The event as NIP-01 puts it on the wire (the value of a client's ``EVENT``)."""
        return {
            "id": self.id,
            "pubkey": self.pubkey,
            "created_at": self.created_at,
            "kind": self.kind,
            "tags": [list(tag) for tag in self.tags],
            "content": self.content,
            "sig": self.sig,
        }

    def tag_values(self, name: str) -> list[str]:
        """The values (second items) of this event's tags called ``name``: what a relay indexes."""
        return [tag[1] for tag in self.tags if len(tag) > 1 and tag[0] == name]


def json_string(text: str) -> str:
    """``text`` as a JSON string the way NIP-01 serialises it: the seven escapes it lists, any
    other control character as ``\\u00XX`` (JSON allows no other way), everything else verbatim."""

    def escape(match: re.Match[str]) -> str:
        char = match.group(0)
        return _ESCAPES.get(char) or f"\\u{ord(char):04x}"

    return '"' + _SPECIAL.sub(escape, text) + '"'


def serialise(pubkey: str, created_at: int, kind: int, tags: Tags, content: str) -> bytes:
    """NIP-01's serialisation, ``[0,pubkey,created_at,kind,tags,content]`` in UTF-8 with no
    whitespace: the bytes whose sha256 is the event's id (the fields are checked first)."""
    _check_fields(pubkey, created_at, kind, tags, content)
    tag_text = ",".join("[" + ",".join(json_string(item) for item in tag) + "]" for tag in tags)
    text = f"[0,{json_string(pubkey)},{created_at},{kind},[{tag_text}],{json_string(content)}]"
    return text.encode("utf-8")


def event_id(pubkey: str, created_at: int, kind: int, tags: Tags, content: str) -> str:
    """The id of an event with these fields: the hex sha256 of its serialisation."""
    return hashlib.sha256(serialise(pubkey, created_at, kind, tags, content)).hexdigest()


@dataclass(frozen=True, slots=True)
class Draft:
    """What an event will say before it is signed: the time it claims (the caller's clock: nobody
    else trusts it), its kind, its tags and its content."""

    created_at: int
    kind: int
    tags: Tags
    content: str

    @classmethod
    def of(cls, created_at: int, kind: int, tags: Sequence[Sequence[str]], content: str) -> Draft:
        """A draft from tags given as any sequences of strings (frozen here)."""
        return cls(created_at, kind, tuple(tuple(tag) for tag in tags), content)


def sign_event(key: SecretKey, draft: Draft, aux_random: bytes) -> Event:
    """The event ``draft`` says, by ``key``, signed with the caller's 32 random bytes."""
    pubkey = key.public.hex()
    ident = event_id(pubkey, draft.created_at, draft.kind, draft.tags, draft.content)
    sig = key.sign(bytes.fromhex(ident), aux_random).hex()
    return Event(ident, pubkey, draft.created_at, draft.kind, draft.tags, draft.content, sig)


def parse_event(value: object) -> Event:
    """The event a relay sent (a JSON value already decoded), refused with one line unless each
    field has NIP-01's type and our bounds, its id is the hash of its fields and its signature
    is its author's."""
    if not isinstance(value, dict):
        raise NostrError(f"an event is a JSON object, not {type(value).__name__}")
    if set(value) != FIELDS:
        odd = sorted(set(value) ^ FIELDS)
        raise NostrError(f"an event has exactly NIP-01's seven fields (wrong: {shown(odd)})")
    ident, sig, tags = value["id"], value["sig"], _tags(value["tags"])
    if not _is_hex(ident, _HEX64):
        raise NostrError(f"an event id is 64 lowercase hex digits, not {shown(ident)}")
    if not _is_hex(sig, _HEX128):
        raise NostrError(f"an event signature is 128 lowercase hex digits, not {shown(sig)}")
    pubkey, created_at, kind, content = value["pubkey"], value["created_at"], value["kind"], value["content"]
    if event_id(pubkey, created_at, kind, tags, content) != ident:
        raise NostrError(f"event {ident[:16]}...: its id is not the hash of its fields")
    if not verify_signature(bytes.fromhex(pubkey), bytes.fromhex(ident), bytes.fromhex(sig)):
        raise NostrError(f"event {ident[:16]}...: its signature is not its author's")
    return Event(ident, pubkey, created_at, kind, tags, content, sig)


def verify_event(event: Event) -> None:
    """Check an event made elsewhere in this process, as :func:`parse_event` checks a relay's."""
    parse_event(event.to_json())


def _tags(value: object) -> Tags:
    """An event's tags as received: a list of lists of strings, each tag one string or more."""
    if not isinstance(value, list) or len(value) > MAX_TAGS:
        raise NostrError(f"an event's tags are a list of at most {MAX_TAGS} tags")
    tags = []
    for tag in value:
        if not isinstance(tag, list) or not 0 < len(tag) <= MAX_TAG_ITEMS:
            raise NostrError(f"a tag is a list of 1 to {MAX_TAG_ITEMS} strings, not {shown(tag)}")
        tags.append(tuple(tag))
    return tuple(tags)


def _check_fields(pubkey: object, created_at: object, kind: object, tags: object, content: object) -> None:
    """The signed fields' types and bounds (NIP-01's, and ours against a flood)."""
    if not _is_hex(pubkey, _HEX64):
        raise NostrError(f"an event's pubkey is 64 lowercase hex digits, not {shown(pubkey)}")
    if type(created_at) is not int or not 0 <= created_at <= MAX_CREATED_AT:
        raise NostrError(f"an event's created_at is a whole number of seconds, not {shown(created_at)}")
    if type(kind) is not int or not 0 <= kind <= MAX_KIND:
        raise NostrError(f"an event's kind is a whole number from 0 to {MAX_KIND}, not {shown(kind)}")
    if not isinstance(content, str) or len(content) > MAX_CONTENT_CHARS:
        raise NostrError(f"an event's content is a string of at most {MAX_CONTENT_CHARS} characters")
    _check_text(content, "content")
    if not isinstance(tags, tuple) or len(tags) > MAX_TAGS:
        raise NostrError(f"an event's tags are at most {MAX_TAGS}")
    for tag in tags:
        if not isinstance(tag, tuple) or not 0 < len(tag) <= MAX_TAG_ITEMS:
            raise NostrError(f"a tag is 1 to {MAX_TAG_ITEMS} strings, not {shown(tag)}")
        for item in tag:
            if not isinstance(item, str) or len(item) > MAX_TAG_CHARS:
                raise NostrError(f"a tag's items are strings of at most {MAX_TAG_CHARS} characters")
            _check_text(item, "tag")


def _check_text(text: str, what: str) -> None:
    """Refuse a string with no UTF-8 form (a lone surrogate, which JSON's ``\\ud800`` can carry):
    its serialisation, hence its id, would not be defined."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise NostrError(f"an event's {what} is not valid Unicode (a lone surrogate)") from None


def read_json(text: str | bytes) -> object:
    """Strict JSON, as a relay's frames are read: no NaN or Infinity, no key twice in an object,
    no nesting past Python's stack, a number of at most 4300 digits; one line on anything else."""

    def no_constant(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        found = dict(items)
        if len(found) != len(items):
            raise ValueError("a key appears twice in an object")
        return found

    try:
        return json.loads(text, parse_constant=no_constant, object_pairs_hook=pairs)
    except (ValueError, RecursionError) as error:  # (JSONDecodeError and UnicodeDecodeError are ValueErrors)
        raise NostrError(f"not JSON: {shown(str(error))}") from None


def write_json(value: object) -> str:
    """JSON with no whitespace and every character verbatim (ASCII escapes would only grow it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# --- NIP-44 version 2 --------------------------------------------------------------------------

NIP44_VERSION: Final = 2
MIN_PLAINTEXT: Final = 1
MAX_PLAINTEXT: Final = 65535
"""The longest plaintext: NIP-44 v2 as first published and as its official vectors test it (2 bytes of
length). A later amendment of the NIP adds a 6-byte prefix for longer ones; a match message is
far shorter, so we neither make nor accept it."""
MIN_PAYLOAD_CHARS: Final = 132
MAX_PAYLOAD_CHARS: Final = 87_472
"""The longest payload of the longest plaintext: base64 of 1 + 32 + 2 + 65,536 + 32 bytes. A longer
one is refused before it is decoded."""
MIN_DECODED: Final = 99
_SALT: Final = b"nip44-v2"


@dataclass(frozen=True, slots=True)
class MessageKeys:
    """The per-message keys NIP-44 derives from a conversation key and a nonce."""

    chacha_key: bytes
    chacha_nonce: bytes
    hmac_key: bytes


def conversation_key(secret: SecretKey, public: bytes) -> bytes:
    """The key two players share, the same from either side: HKDF-extract (salt "nip44-v2") of
    the unhashed x coordinate of ``secret`` times the point whose x-only key is ``public``."""
    try:
        point = coincurve.PublicKey(b"\x02" + public) if len(public) == KEY_LEN else None
    except ValueError:
        point = None
    if point is None:
        raise NostrError(f"not an x-only secp256k1 public key: {public.hex()[:16]}...")
    shared_x = point.multiply(secret.secret).format(compressed=True)[1:]
    return HKDF.extract(hashes.SHA256(), _SALT, shared_x)


def message_keys(key: bytes, nonce: bytes) -> MessageKeys:
    """The ChaCha20 key and nonce and the HMAC key of one message (HKDF-expand, 76 bytes)."""
    if len(key) != KEY_LEN or len(nonce) != KEY_LEN:
        raise NostrError("NIP-44 takes a 32-byte conversation key and a 32-byte nonce")
    keys = HKDFExpand(hashes.SHA256(), 76, nonce).derive(key)
    return MessageKeys(keys[:32], keys[32:44], keys[44:])


def padded_length(length: int) -> int:
    """How long NIP-44 pads a plaintext of ``length`` bytes: 32 at least, then in chunks of an
    eighth of the next power of two (32 up to 256), so that lengths leak only coarsely."""
    if length <= 32:
        return 32
    next_power = 1 << (length - 1).bit_length()
    chunk = 32 if next_power <= 256 else next_power // 8
    return chunk * ((length - 1) // chunk + 1)


def _chacha20(keys: MessageKeys, data: bytes) -> bytes:
    """ChaCha20 (RFC 8439) from block counter 0: ``cryptography`` takes the 32-bit little-endian
    counter and the 12-byte nonce as one 16-byte value."""
    cipher = Cipher(algorithms.ChaCha20(keys.chacha_key, b"\x00" * 4 + keys.chacha_nonce), mode=None)
    return cipher.encryptor().update(data)


def _mac(keys: MessageKeys, nonce: bytes, ciphertext: bytes) -> bytes:
    """HMAC-SHA256 over the nonce (the additional data) and the ciphertext."""
    mac = crypto_hmac.HMAC(keys.hmac_key, hashes.SHA256())
    mac.update(nonce + ciphertext)
    return mac.finalize()


def encrypt(plaintext: str, key: bytes, nonce: bytes) -> str:
    """``plaintext`` as a NIP-44 v2 payload under conversation ``key``, with the caller's 32
    random bytes as its nonce (never reused: NIP-44 requires a fresh one for every message)."""
    try:
        data = plaintext.encode("utf-8")
    except UnicodeEncodeError:
        raise NostrError("a NIP-44 plaintext is valid Unicode (no lone surrogate)") from None
    if not MIN_PLAINTEXT <= len(data) <= MAX_PLAINTEXT:
        raise NostrError(f"a NIP-44 plaintext is {MIN_PLAINTEXT} to {MAX_PLAINTEXT} bytes, not {len(data)}")
    keys = message_keys(key, nonce)
    padded = len(data).to_bytes(2, "big") + data + bytes(padded_length(len(data)) - len(data))
    ciphertext = _chacha20(keys, padded)
    raw = bytes([NIP44_VERSION]) + nonce + ciphertext + _mac(keys, nonce, ciphertext)
    return base64.b64encode(raw).decode("ascii")


def decrypt(payload: str, key: bytes) -> str:
    """The plaintext of a NIP-44 v2 ``payload`` under conversation ``key``, with every check the
    NIP lists, in its order: version, lengths, the MAC (compared in constant time), padding."""
    nonce, ciphertext, mac = _decode_payload(payload)
    keys = message_keys(key, nonce)
    if not constant_time.bytes_eq(_mac(keys, nonce, ciphertext), mac):
        raise NostrError("NIP-44 payload: invalid MAC (not sealed with our conversation key)")
    return _unpad(_chacha20(keys, ciphertext))


def _decode_payload(payload: str) -> tuple[bytes, bytes, bytes]:
    """A payload's nonce, ciphertext and MAC, its version and sizes checked before and after
    base64 (a payload too long for any plaintext is refused before it is decoded)."""
    if not isinstance(payload, str):
        raise NostrError("NIP-44 payload: not a string")
    if payload[:1] == "#":
        raise NostrError("NIP-44 payload: unknown encryption version (not base64)")
    if not MIN_PAYLOAD_CHARS <= len(payload) <= MAX_PAYLOAD_CHARS:
        raise NostrError(f"NIP-44 payload: invalid size ({len(payload)} characters)")
    try:
        data = base64.b64decode(payload.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error):
        data = b""
    if not data or base64.b64encode(data).decode("ascii") != payload:
        raise NostrError("NIP-44 payload: invalid base64 (not canonical RFC 4648 with padding)")
    if len(data) < MIN_DECODED:
        raise NostrError(f"NIP-44 payload: invalid data size ({len(data)} bytes)")
    if data[0] != NIP44_VERSION:
        raise NostrError(f"NIP-44 payload: unknown encryption version {data[0]}")
    return data[1:33], data[33:-32], data[-32:]


def _unpad(padded: bytes) -> str:
    """The plaintext inside NIP-44's padding, whose length prefix and zeros must be exactly what
    :func:`padded_length` makes."""
    length = int.from_bytes(padded[:2], "big")
    plain = padded[2 : 2 + length]
    if length == 0 or len(plain) != length or len(padded) != 2 + padded_length(length):
        raise NostrError("NIP-44 payload: invalid padding")
    if any(padded[2 + length :]):
        raise NostrError("NIP-44 payload: invalid padding (not zeros)")
    try:
        return plain.decode("utf-8")
    except UnicodeDecodeError:
        raise NostrError("NIP-44 payload: the plaintext is not UTF-8") from None
