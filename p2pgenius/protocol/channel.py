"""The secure channel, sans-IO: a Noise XX handshake that authenticates long-term Ed25519
identities, then length-prefixed, AEAD-encrypted frames.

Each side's Noise static key is its identity's own scalar on Curve25519 (identity.agreement_key),
so the handshake's Diffie-Hellman proves the identity: no signature, no second key.

Bytes from the network go in with :meth:`SecureChannel.receive_data`, which returns events;
bytes to send come out of :meth:`SecureChannel.data_to_send`. Nothing here touches a socket.

Wire format (protocol/SPEC.md, "Channel"): every record is a 4-byte big-endian length and that
many bytes, at most 65535. The three handshake messages come first; after them every record is one
ChaCha20-Poly1305 ciphertext under the Noise transport keys, with its own nonce counter.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.protocol.identity import Identity, IdentityError, agreement_key, agreement_public
from p2pgenius.protocol.noise import MAX_MESSAGE, CipherState, KeyPair, NoiseError, XXHandshake

PROTOCOL_VERSION: Final = 4  # of the channel; match messages have their own (messages.VERSION)
PROLOGUE: Final = b"p2pgenius/4"
LENGTH_BYTES: Final = 4
MAX_RECORD: Final = MAX_MESSAGE
HELLO_TAG: Final = "p2pgenius-hello"


class ChannelError(P2PGeniusError):
    """The peer broke the channel protocol (bad framing, a failed decryption, a key that is not
    the identity it claims, another channel version)."""


@dataclass(frozen=True, slots=True)
class Established:
    """The handshake is done: the peer proved it holds ``peer_key``; ``peer_hello`` is its hello."""

    peer_key: bytes
    peer_hello: Mapping[str, Any]
    binding: bytes  # the final handshake hash: unique to this channel


@dataclass(frozen=True, slots=True)
class Received:
    """One application message (already decrypted and authenticated)."""

    payload: bytes


Event = Established | Received


@functools.lru_cache(maxsize=16)
def _static_for(identity: Identity) -> KeyPair:
    """The Noise static key pair of an identity (worked out once per process)."""
    return KeyPair.from_private(agreement_key(identity))


class SecureChannel:
    """One end of a channel. The initiator (the joining peer) writes first."""

    def __init__(
        self,
        *,
        initiator: bool,
        identity: Identity,
        hello: Mapping[str, Any],
        ephemeral: KeyPair | None = None,
        written: bytes | None = None,
    ) -> None:
        """``written``: the initiator's first record, already on the wire (written early with
        ``ephemeral``: ``net/early.py``); it must be the very one this channel writes first."""
        self.initiator = initiator
        self.identity = identity
        self.hello = dict(hello)
        self.handshake = XXHandshake(
            initiator=initiator,
            static=_static_for(identity),
            prologue=PROLOGUE,
            ephemeral=ephemeral,
        )
        self._in = bytearray()
        self._out = bytearray()
        self._send: CipherState | None = None
        self._recv: CipherState | None = None
        self.peer_key: bytes | None = None
        self.broken: str | None = None
        if initiator:
            self._record(self.handshake.write(encode([HELLO_TAG, PROTOCOL_VERSION])))
            if written is not None:
                if bytes(self._out) != written:
                    raise ChannelError("the first handshake message already written is not this channel's")
                self._out.clear()

    # -- output ------------------------------------------------------------------------------

    def _record(self, body: bytes) -> None:
        self._out += len(body).to_bytes(LENGTH_BYTES, "big") + body

    def data_to_send(self) -> bytes:
        """Everything waiting to be written to the network (and forget it)."""
        data = bytes(self._out)
        self._out.clear()
        return data

    def send(self, payload: bytes) -> None:
        """Queue one application message (the channel must be established)."""
        if self._send is None:
            raise ChannelError("the channel is not established yet")
        if len(payload) + 16 > MAX_RECORD:
            raise ChannelError(f"a message of {len(payload)} bytes is over the frame limit")
        self._record(self._send.encrypt(b"", payload))

    # -- input -------------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> list[Event]:
        """Feed bytes from the network; returns the events they complete.

        Raises ChannelError (and stays broken) on any violation; the caller should close."""
        if self.broken is not None:
            raise ChannelError(f"the channel is already broken: {self.broken}")
        self._in += data
        events: list[Event] = []
        try:
            while len(self._in) >= LENGTH_BYTES:
                length = int.from_bytes(self._in[:LENGTH_BYTES], "big")
                if length == 0 or length > MAX_RECORD:
                    raise ChannelError(f"a frame of {length} bytes (the limit is {MAX_RECORD})")
                if len(self._in) < LENGTH_BYTES + length:
                    break
                body = bytes(self._in[LENGTH_BYTES : LENGTH_BYTES + length])
                del self._in[: LENGTH_BYTES + length]
                events += self._on_record(body)
        except (NoiseError, EncodingError) as exc:
            self.broken = str(exc)
            raise ChannelError(str(exc)) from None
        except ChannelError as exc:
            self.broken = str(exc)
            raise
        return events

    def _on_record(self, body: bytes) -> list[Event]:
        if self._recv is not None:
            return [Received(self._recv.decrypt(b"", body))]
        hs = self.handshake
        if hs.message == 0:  # the responder reads the initiator's clear hello
            hello = decode(hs.read(body))
            if not (isinstance(hello, list) and len(hello) == 2 and hello[0] == HELLO_TAG):
                raise ChannelError("the peer does not speak the p2pgenius protocol")
            if hello[1] != PROTOCOL_VERSION:
                raise ChannelError(
                    f"the peer speaks channel version {hello[1]!r} of the p2pgenius protocol; "
                    f"this program speaks {PROTOCOL_VERSION}: upgrade the older one"
                )
            self._record(hs.write(self._payload()))
            return []
        if hs.message == 1:  # the initiator reads the responder's identity
            key, hello = self._check_payload(hs.read(body))
            self._record(hs.write(self._payload()))
        else:  # the responder reads the initiator's identity, in the last message
            key, hello = self._check_payload(hs.read(body))
        self._send, self._recv = hs.split()
        return [Established(key, hello, hs.handshake_hash)]

    def _payload(self) -> bytes:
        # Noise encrypts and authenticates this under keys that only the holder of our static
        # key (our identity's scalar) can have made, so the claim needs no signature.
        return encode([self.identity.public, self.hello])

    def _check_payload(self, payload: bytes) -> tuple[bytes, dict[str, Any]]:
        value = decode(payload)
        if not (
            isinstance(value, list)
            and len(value) == 2
            and isinstance(value[0], bytes)
            and isinstance(value[1], dict)
        ):
            raise ChannelError("malformed handshake payload")
        key, hello = value
        remote = self.handshake.rs
        assert remote is not None  # read() has just decrypted it
        try:
            expected = agreement_public(key)
        except IdentityError as exc:
            raise ChannelError(f"the peer's identity key is malformed: {exc}") from None
        if not hmac.compare_digest(expected, remote):
            raise ChannelError(
                "the peer's handshake key is not its identity's: it does not hold the key it claims"
            )
        self.peer_key = key
        return key, hello
