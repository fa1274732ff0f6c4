"""The Noise Protocol Framework's XX handshake, built from the cryptography package's primitives.

This follows the Noise specification (revision 34) sections 5 (processing rules) and 7.5 (the XX
pattern) to the letter, for DH 25519 with the ChaChaPoly or AESGCM cipher and the SHA256, SHA512,
BLAKE2s or BLAKE2b hash; p2pgenius itself uses ``Noise_XX_25519_ChaChaPoly_SHA256``. It is checked
against the published cacophony test vectors and against an independent implementation.

XX:
    -> e
    <- e, ee, s, es
    -> s, se
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
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


def _raw_public(key: X25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def private_key(raw: bytes) -> X25519PrivateKey:
    """An X25519 private key from its 32 raw bytes."""
    return X25519PrivateKey.from_private_bytes(raw)


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
        static: X25519PrivateKey,
        prologue: bytes = b"",
        ephemeral: X25519PrivateKey | None = None,
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
        self.re: X25519PublicKey | None = None
        self.rs: X25519PublicKey | None = None
        self.message = 0  # how many handshake messages have been processed

    @property
    def handshake_hash(self) -> bytes:
        """h: the hash of the handshake so far (at the end, the channel binding)."""
        return self.symmetric.h

    @property
    def done(self) -> bool:
        """Whether all three messages have been processed."""
        return self.message == 3

    def _dh(self, private: X25519PrivateKey | None, public: X25519PublicKey | None) -> bytes:
        assert private is not None
        assert public is not None
        return private.exchange(public)

    def _writes(self) -> bool:
        return (self.message % 2 == 0) == self.initiator

    def write(self, payload: bytes = b"") -> bytes:
        """Produce the next handshake message (ours to send)."""
        if self.done or not self._writes():
            raise NoiseError("not this side's turn to write a handshake message")
        sym = self.symmetric
        out = b""
        if self.message == 0:
            self.e = self.e or X25519PrivateKey.generate()
            out += _raw_public(self.e.public_key())
            sym.mix_hash(out)
        elif self.message == 1:
            self.e = self.e or X25519PrivateKey.generate()
            e_pub = _raw_public(self.e.public_key())
            sym.mix_hash(e_pub)
            out += e_pub
            sym.mix_key(self._dh(self.e, self.re))
            out += sym.encrypt_and_hash(_raw_public(self.s.public_key()))
            sym.mix_key(self._dh(self.s, self.re))
        else:
            out += sym.encrypt_and_hash(_raw_public(self.s.public_key()))
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
        try:
            if self.message == 0:
                self.re = X25519PublicKey.from_public_bytes(message[:DH_LEN])
                sym.mix_hash(message[:DH_LEN])
                rest = message[DH_LEN:]
            elif self.message == 1:
                self.re = X25519PublicKey.from_public_bytes(message[:DH_LEN])
                sym.mix_hash(message[:DH_LEN])
                sym.mix_key(self._dh(self.e, self.re))
                encrypted_s = message[DH_LEN : DH_LEN + DH_LEN + TAG_LEN]
                self.rs = X25519PublicKey.from_public_bytes(sym.decrypt_and_hash(encrypted_s))
                sym.mix_key(self._dh(self.e, self.rs))
                rest = message[DH_LEN + DH_LEN + TAG_LEN :]
            else:
                encrypted_s = message[: DH_LEN + TAG_LEN]
                self.rs = X25519PublicKey.from_public_bytes(sym.decrypt_and_hash(encrypted_s))
                sym.mix_key(self._dh(self.e, self.rs))
                rest = message[DH_LEN + TAG_LEN :]
        except ValueError as exc:  # a short message or a bad public key
            raise NoiseError(f"malformed handshake message: {exc}") from None
        payload = sym.decrypt_and_hash(rest)
        self.message += 1
        return payload

    def split(self) -> tuple[CipherState, CipherState]:
        """(send, receive) transport cipher states for this side."""
        if not self.done:
            raise NoiseError("the handshake is not finished")
        first, second = self.symmetric.split()
        return (first, second) if self.initiator else (second, first)
