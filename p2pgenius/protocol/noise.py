"""The Noise Protocol Framework's XX handshake: X25519 from libsodium (PyNaCl), the ciphers from
the cryptography package, the hashes from hashlib.

This follows the Noise specification (revision 34) sections 5 (processing rules) and 7.5 (the XX
pattern) to the letter, for DH 25519 with the ChaChaPoly or AESGCM cipher and the SHA256, SHA512,
BLAKE2s or BLAKE2b hash; p2pgenius itself uses ``Noise_XX_25519_ChaChaPoly_SHA256``. It is checked
against the published cacophony test vectors and against an independent implementation. Unlike
the specification, which allows it, an all-zero X25519 result is never used: it breaks the
handshake (see :func:`dh`).

XX:
    -> e
    <- e, ee, s, es
    -> s, se
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Final

import nacl.bindings
import nacl.exceptions
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

from p2pgenius.errors import P2PGeniusError

DH_LEN: Final = 32
TAG_LEN: Final = 16
MAX_MESSAGE: Final = 65535
MAX_NONCE: Final = 2**64 - 1
PROTOCOL_NAME: Final = "Noise_XX_25519_ChaChaPoly_SHA256"

_HASHES: Final = {"SHA256": "sha256", "SHA512": "sha512", "BLAKE2s": "blake2s", "BLAKE2b": "blake2b"}


class NoiseError(P2PGeniusError):
    """A handshake or transport message that does not decrypt or is malformed."""


@dataclass(frozen=True, slots=True)
class KeyPair:
    """An X25519 key pair as raw bytes. The private half is taken as RFC 7748 takes it (clamped
    when used), so any 32 bytes will do. libsodium does the arithmetic: making a key pair costs
    half what the cryptography package's key objects cost, which counts in a handshake."""

    private: bytes
    public: bytes

    @classmethod
    def from_private(cls, private: bytes) -> KeyPair:
        """The key pair of 32 private bytes."""
        if len(private) != DH_LEN:
            raise ValueError(f"an X25519 private key is {DH_LEN} bytes")
        return cls(private, nacl.bindings.crypto_scalarmult_base(private))

    @classmethod
    def generate(cls) -> KeyPair:
        """A fresh key pair from the operating system's randomness."""
        return cls.from_private(secrets.token_bytes(DH_LEN))


def dh(private: bytes, public: bytes) -> bytes:
    """X25519. Raises NoiseError for a public key of the wrong size, or one of small order (the
    result would be all zeros, a secret anyone knows: Noise lets this go unchecked, we do not)."""
    if len(public) != DH_LEN:
        raise NoiseError(f"malformed handshake message: a public key of {len(public)} bytes")
    try:
        shared: bytes = nacl.bindings.crypto_scalarmult(private, public)
    except nacl.exceptions.RuntimeError:  # libsodium refuses an all-zero result
        raise NoiseError("malformed handshake message: a public key of small order") from None
    return shared


@dataclass(slots=True)
class CipherState:
    """Noise's CipherState: a key and a 64-bit nonce counter."""

    cipher: str
    key: bytes | None = None
    nonce: int = 0

    def _aead(self, nonce: int) -> tuple[ChaCha20Poly1305 | AESGCM, bytes]:
        assert self.key is not None
        if self.cipher == "ChaChaPoly":
            return ChaCha20Poly1305(self.key), b"\x00" * 4 + nonce.to_bytes(8, "little")
        return AESGCM(self.key), b"\x00" * 4 + nonce.to_bytes(8, "big")

    def encrypt(self, ad: bytes, plaintext: bytes) -> bytes:
        """Encrypt with the next nonce (or pass through before a key exists)."""
        if self.key is None:
            return plaintext
        if self.nonce >= MAX_NONCE:
            raise NoiseError("nonce exhausted: the session must be rekeyed or ended")
        aead, nonce = self._aead(self.nonce)
        self.nonce += 1
        return aead.encrypt(nonce, plaintext, ad)

    def decrypt(self, ad: bytes, ciphertext: bytes) -> bytes:
        """Decrypt and authenticate with the next nonce; raises NoiseError if it fails."""
        ciphertext = bytes(ciphertext)
        if self.key is None:
            return ciphertext
        if self.nonce >= MAX_NONCE:
            raise NoiseError("nonce exhausted: the session must be rekeyed or ended")
        aead, nonce = self._aead(self.nonce)
        try:
            plaintext = aead.decrypt(nonce, ciphertext, ad)
        except InvalidTag:
            raise NoiseError("a message failed authentication (tampered, replayed or out of order)") from None
        self.nonce += 1
        return plaintext


@dataclass(slots=True)
class SymmetricState:
    """Noise's SymmetricState: the chaining key and the handshake hash."""

    cipher: str
    hash_name: str
    ck: bytes = b""
    h: bytes = b""
    state: CipherState = field(init=False)

    def __post_init__(self) -> None:
        self.state = CipherState(self.cipher)

    def _hash(self, data: bytes) -> bytes:
        return hashlib.new(_HASHES[self.hash_name], data).digest()

    @property
    def hash_len(self) -> int:
        """HASHLEN of the chosen hash."""
        return hashlib.new(_HASHES[self.hash_name]).digest_size

    def initialize(self, protocol_name: bytes) -> None:
        """InitializeSymmetric."""
        if len(protocol_name) <= self.hash_len:
            self.h = protocol_name + b"\x00" * (self.hash_len - len(protocol_name))
        else:
            self.h = self._hash(protocol_name)
        self.ck = self.h

    def hkdf(self, ikm: bytes, outputs: int) -> list[bytes]:
        """Noise's HKDF over HMAC-HASH."""
        digest = _HASHES[self.hash_name]
        temp = hmac.digest(self.ck, ikm, digest)  # (the one-shot C function: no HMAC objects)
        out = [hmac.digest(temp, b"\x01", digest)]
        out.append(hmac.digest(temp, out[0] + b"\x02", digest))
        if outputs == 3:
            out.append(hmac.digest(temp, out[1] + b"\x03", digest))
        return out

    def mix_key(self, ikm: bytes) -> None:
        """MixKey."""
        self.ck, temp_k = self.hkdf(ikm, 2)
        self.state = CipherState(self.cipher, temp_k[:32])

    def mix_hash(self, data: bytes) -> None:
        """MixHash."""
        self.h = self._hash(self.h + data)

    def encrypt_and_hash(self, plaintext: bytes) -> bytes:
        """EncryptAndHash."""
        ciphertext = self.state.encrypt(self.h, plaintext)
        self.mix_hash(ciphertext)
        return ciphertext

    def decrypt_and_hash(self, ciphertext: bytes) -> bytes:
        """DecryptAndHash."""
        plaintext = self.state.decrypt(self.h, ciphertext)
        self.mix_hash(ciphertext)
        return plaintext

    def split(self) -> tuple[CipherState, CipherState]:
        """Split into the two transport cipher states (initiator to responder first)."""
        k1, k2 = self.hkdf(b"", 2)
        return CipherState(self.cipher, k1[:32]), CipherState(self.cipher, k2[:32])


class XXHandshake:
    """One side of a Noise XX handshake. Call write/read in turn; after the third message,
    ``split()`` gives (send, receive) cipher states for this side."""

    def __init__(
        self,
        *,
        initiator: bool,
        static: KeyPair,
        prologue: bytes = b"",
        ephemeral: KeyPair | None = None,
        protocol_name: str = PROTOCOL_NAME,
    ) -> None:
        parts = protocol_name.split("_")
        if (
            len(parts) != 5
            or parts[:3] != ["Noise", "XX", "25519"]
            or parts[4] not in _HASHES
            or parts[3] not in ("ChaChaPoly", "AESGCM")
        ):
            raise ValueError(f"unsupported Noise protocol {protocol_name!r}")
        self.initiator = initiator
        self.symmetric = SymmetricState(parts[3], parts[4])
        self.symmetric.initialize(protocol_name.encode())
        self.symmetric.mix_hash(prologue)
        self.s = static
        self.e = ephemeral
        self.re: bytes | None = None
        self.rs: bytes | None = None
        self.message = 0  # how many handshake messages have been processed

    @property
    def handshake_hash(self) -> bytes:
        """h: the hash of the handshake so far (at the end, the channel binding)."""
        return self.symmetric.h

    @property
    def done(self) -> bool:
        """Whether all three messages have been processed."""
        return self.message == 3

    @staticmethod
    def _dh(mine: KeyPair | None, theirs: bytes | None) -> bytes:
        assert mine is not None
        assert theirs is not None
        return dh(mine.private, theirs)

    def _writes(self) -> bool:
        return (self.message % 2 == 0) == self.initiator

    def write(self, payload: bytes = b"") -> bytes:
        """Produce the next handshake message (ours to send)."""
        if self.done or not self._writes():
            raise NoiseError("not this side's turn to write a handshake message")
        sym = self.symmetric
        out = b""
        if self.message == 0:
            self.e = self.e or KeyPair.generate()
            out += self.e.public
            sym.mix_hash(out)
        elif self.message == 1:
            self.e = self.e or KeyPair.generate()
            sym.mix_hash(self.e.public)
            out += self.e.public
            sym.mix_key(self._dh(self.e, self.re))
            out += sym.encrypt_and_hash(self.s.public)
            sym.mix_key(self._dh(self.s, self.re))
        else:
            out += sym.encrypt_and_hash(self.s.public)
            sym.mix_key(self._dh(self.s, self.re))
        out += sym.encrypt_and_hash(payload)
        self.message += 1
        if len(out) > MAX_MESSAGE:
            raise NoiseError("handshake message too large")
        return out

    def read(self, message: bytes) -> bytes:
        """Process the peer's next handshake message; returns its payload."""
        if self.done or self._writes():
            raise NoiseError("not this side's turn to read a handshake message")
        sym = self.symmetric
        message = bytes(message)
        needed = {0: DH_LEN, 1: 2 * DH_LEN + TAG_LEN, 2: DH_LEN + TAG_LEN}[self.message] + (
            TAG_LEN if self.message else 0  # the payload's tag, once a key is in use
        )
        if len(message) < needed:
            raise NoiseError(f"malformed handshake message: {len(message)} bytes, too short")
        if self.message == 0:
            self.re = message[:DH_LEN]
            sym.mix_hash(self.re)
            rest = message[DH_LEN:]
        elif self.message == 1:
            self.re = message[:DH_LEN]
            sym.mix_hash(self.re)
            sym.mix_key(self._dh(self.e, self.re))
            self.rs = sym.decrypt_and_hash(message[DH_LEN : DH_LEN + DH_LEN + TAG_LEN])
            sym.mix_key(self._dh(self.e, self.rs))
            rest = message[DH_LEN + DH_LEN + TAG_LEN :]
        else:
            self.rs = sym.decrypt_and_hash(message[: DH_LEN + TAG_LEN])
            sym.mix_key(self._dh(self.e, self.rs))
            rest = message[DH_LEN + TAG_LEN :]
        payload = sym.decrypt_and_hash(rest)
        self.message += 1
        return payload

    def split(self) -> tuple[CipherState, CipherState]:
        """(send, receive) transport cipher states for this side."""
        if not self.done:
            raise NoiseError("the handshake is not finished")
        first, second = self.symmetric.split()
        return (first, second) if self.initiator else (second, first)
