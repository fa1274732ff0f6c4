"""Long-term Ed25519 identities, their fingerprints, and trust on first use.

Keys live in memory here; storing them (with safe file permissions) is the I/O layer's job.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

import nacl.bindings
import nacl.exceptions
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pgenius.errors import P2PGeniusError

PUBLIC_LEN: Final = 32
SIGNATURE_LEN: Final = 64
_P: Final = 2**255 - 19  # the field of Curve25519 and of its twin, edwards25519


class IdentityError(P2PGeniusError):
    """A key that is malformed, or that does not match the one pinned for a peer."""


@functools.lru_cache(maxsize=64)
def _public_bytes(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes_raw()


def fingerprint(public: bytes) -> str:
    """A short, human-comparable name for a public key: 16 base32 letters in groups of four."""
    text = base64.b32encode(hashlib.sha256(b"p2pgenius fingerprint" + public).digest()).decode()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


@dataclass(frozen=True, slots=True)
class Identity:
    """A player's long-term signing key."""

    private: Ed25519PrivateKey

    @classmethod
    def generate(cls) -> Identity:
        """A fresh identity."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The identity with this 32-byte seed (how keys are stored, and how vectors are made)."""
        if len(seed) != 32:
            raise IdentityError("an identity seed is 32 bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @property
    def seed(self) -> bytes:
        """The 32-byte private seed (the first half of libsodium's form of the key, kept)."""
        return _secret_key(self)[:32]

    @property
    def public(self) -> bytes:
        """The 32-byte public key."""
        return _public_bytes(self.private)

    @property
    def fingerprint(self) -> str:
        """This identity's fingerprint."""
        return fingerprint(self.public)

    def sign(self, data: bytes) -> bytes:
        """An Ed25519 signature of ``data`` (RFC 8032: deterministic, so any implementation
        makes the same bytes; libsodium's is the fastest to hand, see docs/profiling.md)."""
        signed: bytes = nacl.bindings.crypto_sign(data, _secret_key(self))
        return signed[:SIGNATURE_LEN]


@functools.lru_cache(maxsize=64)
def _secret_key(identity: Identity) -> bytes:
    """libsodium's form of the private key: the seed followed by the public key."""
    return identity.private.private_bytes_raw() + identity.public


def agreement_key(identity: Identity) -> bytes:
    """The X25519 private key that goes with an identity (32 bytes): the same secret scalar.

    An Ed25519 secret scalar is the first half of SHA-512 of the seed, clamped (RFC 8032, 5.1.5);
    X25519 clamps its 32 bytes the same way (RFC 7748, 5). So this key's public half is the
    identity's public point on the twin curve (:func:`agreement_public`), and a Noise handshake
    with it proves the identity without a signature. (libsodium's ``sk_to_curve25519`` returns
    the same bytes, clamped.)"""
    return hashlib.sha512(identity.seed).digest()[:32]


@functools.lru_cache(maxsize=256)
def agreement_public(public: bytes) -> bytes:
    """The X25519 public key of an Ed25519 public key: the Montgomery ``u = (1 + y) / (1 - y)``
    of its point (RFC 7748, 4.1), by libsodium's ``crypto_sign_ed25519_pk_to_curve25519``.

    Raises IdentityError unless ``public`` is a proper identity: a canonical encoding of a point
    on the curve, in the prime-order subgroup (so neither of small nor of mixed order; a key
    ``A + T`` with ``T`` of small order would let the holder of ``A`` answer to 16 keys). The x
    sign bit is not in ``u``, so ``A`` and ``-A`` share it; whoever holds the scalar of one holds
    the other's (its negation), so this lets nobody claim a key it does not hold."""
    if type(public) is not bytes or len(public) != PUBLIC_LEN:
        raise IdentityError(f"an identity key is {PUBLIC_LEN} bytes")
    if int.from_bytes(public, "little") & ((1 << 255) - 1) >= _P:  # libsodium would reduce y
        raise IdentityError("not a canonical Ed25519 public key")
    try:
        u: bytes = nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(public)
    except (nacl.exceptions.RuntimeError, nacl.exceptions.ValueError):
        raise IdentityError("not an Ed25519 public key of prime order") from None
    return u


VERIFIED_KEPT: Final = 8192
"""How many signatures :func:`verify` remembers as checked: a few matches' messages (a transcript
of a long match holds a few hundred; merging copies and replaying them checks each twice). A
verification may fill half of it at once (``record/verifying.py`` checks signatures first), which
can only cost a live match's messages, pushed out, a second check."""


class Verified(OrderedDict[tuple[bytes, bytes, bytes], None]):
    """The signatures found to hold, each as (key, signature, SHA-256 of the signed bytes), the
    newest :data:`VERIFIED_KEPT` of them: what a match, a resumption or a verification checks
    again need not cost a second Ed25519 verification (``VERIFIED.clear()`` forgets them all,
    as a fresh process starts: for the benchmarks, and for tests that count verifications).

    Only what held is kept, and under everything the signature covers: other bytes, another
    signature or another key are another entry, checked afresh. What a message means where it
    comes (its match, its author's chain, its number) is never the signature's to say, and the
    callers check it every time. Verification is a function of these three alone, so keeping its
    answer changes no result (nothing here is hashed or ordered into a result). Each step is one
    operation of the ordered dict, so a thread that verifies beside another loses at most an
    entry, never a check."""

    def held(self, entry: tuple[bytes, bytes, bytes]) -> bool:
        """Whether ``entry`` held before (it becomes the newest)."""
        if entry not in self:  # (a new signature: no exception raised and caught, the common case)
            return False
        try:
            self.move_to_end(entry)
        except KeyError:  # (forgotten since, by another thread)
            return False
        return True

    def add(self, entry: tuple[bytes, bytes, bytes]) -> None:
        """Remember that ``entry`` held (the oldest forgotten past :data:`VERIFIED_KEPT`)."""
        self[entry] = None
        while len(self) > VERIFIED_KEPT:
            try:
                self.popitem(last=False)
            except KeyError:
                break


VERIFIED: Final = Verified()
"""The signatures this process has found to hold (see :class:`Verified`)."""


def verify(public: bytes, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``public``'s signature of ``data`` (malformed input: False).

    By libsodium's rules (``crypto_sign_verify_detached``; SPEC section 5), stricter than RFC 8032
    demands, and only under a proper identity key (:func:`agreement_public`). An honest signer is
    never refused; a signature crafted to pass one library and fail another is refused.

    A signature that held once, by the same key over the same bytes, is not checked again (the
    newest :data:`VERIFIED_KEPT` are remembered: see :class:`Verified`)."""
    # These checks guard libsodium too: crypto_sign_open reads 32 bytes of key unchecked (the
    # key's own are agreement_public's).
    if (
        type(public) is not bytes
        or type(signature) is not bytes
        or len(signature) != SIGNATURE_LEN
        or type(data) is not bytes
    ):
        return False
    entry = (public, signature, hashlib.sha256(data).digest())
    if VERIFIED.held(entry):
        return True
    if not _signature_holds(public, signature, data):
        return False
    VERIFIED.add(entry)
    return True


def _signature_holds(public: bytes, signature: bytes, data: bytes) -> bool:
    """The Ed25519 verification itself (libsodium's), under a proper identity key."""
    try:
        agreement_public(public)  # remembered: a match checks hundreds of messages per key
        nacl.bindings.crypto_sign_open(signature + data, public)
    except (IdentityError, nacl.exceptions.BadSignatureError):
        return False
    return True
