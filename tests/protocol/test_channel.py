"""The secure channel: identities proven in the handshake, framing limits, tampering."""

from __future__ import annotations

import nacl.bindings
import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import encode
from p2pgenius.protocol.channel import (
    ChannelError,
    Established,
    Received,
    SecureChannel,
)
from p2pgenius.protocol.identity import (
    Identity,
    agreement_key,
    agreement_public,
    fingerprint,
    verify,
)
from p2pgenius.protocol.noise import KeyPair


def pair(
    hello_a: dict[str, object] | None = None, hello_b: dict[str, object] | None = None
) -> tuple[SecureChannel, SecureChannel, Identity, Identity]:
    a_id, b_id = Identity.generate(), Identity.generate()
    a = SecureChannel(initiator=True, identity=a_id, hello=hello_a or {"name": "ann"})
    b = SecureChannel(initiator=False, identity=b_id, hello=hello_b or {"name": "bob"})
    return a, b, a_id, b_id


def handshake(a: SecureChannel, b: SecureChannel) -> tuple[list[object], list[object]]:
    got_b = b.receive_data(a.data_to_send())
    got_a = a.receive_data(b.data_to_send())
    got_b += b.receive_data(a.data_to_send())
    return list(got_a), list(got_b)


def test_both_sides_learn_and_prove_each_others_identity() -> None:
    a, b, a_id, b_id = pair()
    got_a, got_b = handshake(a, b)
    assert got_a == [Established(b_id.public, {"name": "bob"}, got_a[0].binding)]  # type: ignore[attr-defined]
    assert isinstance(got_b[0], Established)
    assert got_b[0].peer_key == a_id.public
    assert got_b[0].binding == got_a[0].binding  # type: ignore[attr-defined]
    a.send(b"over to you")
    assert b.receive_data(a.data_to_send()) == [Received(b"over to you")]


def test_bytes_may_arrive_one_at_a_time() -> None:
    a, b, _, _ = pair()
    handshake(a, b)
    a.send(b"x" * 1000)
    a.send(b"y")
    events: list[object] = []
    for byte in a.data_to_send():
        events += b.receive_data(bytes([byte]))
    assert events == [Received(b"x" * 1000), Received(b"y")]


def test_an_oversized_frame_is_refused_before_it_is_buffered() -> None:
    a, b, _, _ = pair()
    handshake(a, b)
    with pytest.raises(ChannelError, match="limit"):
        b.receive_data((70000).to_bytes(4, "big") + b"\x00" * 10)
    with pytest.raises(ChannelError, match="already broken"):
        b.receive_data(b"")


def test_a_tampered_or_replayed_frame_is_refused() -> None:
    a, b, _, _ = pair()
    handshake(a, b)
    a.send(b"first")
    frame = a.data_to_send()
    b.receive_data(frame)
    with pytest.raises(ChannelError, match="authentication"):
        b.receive_data(frame)  # the same bytes again: wrong nonce


def test_garbage_instead_of_a_handshake_is_refused() -> None:
    _, b, _, _ = pair()
    with pytest.raises(ChannelError):
        b.receive_data(b"\x00\x00\x00\x05hello")


class Impostor(SecureChannel):
    """Claims someone else's identity key; its Noise key can only be its own."""

    claimed: bytes = b""

    def _payload(self) -> bytes:
        return encode([self.claimed, self.hello])


def refusal(first: SecureChannel, second: SecureChannel) -> tuple[SecureChannel, ChannelError]:
    """Run a handshake (``first`` initiates) until one side refuses: (that side, its error)."""
    for reader, writer in ((second, first), (first, second), (second, first)):
        try:
            reader.receive_data(writer.data_to_send())
        except ChannelError as exc:
            return reader, exc
    raise AssertionError("the handshake went through")


@pytest.mark.parametrize("initiator", [True, False], ids=["joiner", "host"])
def test_a_peer_claiming_a_key_it_does_not_hold_is_refused(initiator: bool) -> None:
    honest = SecureChannel(initiator=not initiator, identity=Identity.generate(), hello={"name": "ann"})
    mallory = Impostor(initiator=initiator, identity=Identity.generate(), hello={"name": "bob"})
    mallory.claimed = Identity.generate().public  # the real Bob's key
    side, error = refusal(mallory, honest) if initiator else refusal(honest, mallory)
    assert side is honest
    assert "does not hold the key it claims" in str(error)
    assert honest.peer_key is None


NEUTRAL = b"\x01" + bytes(31)  # y = 1: the neutral point, which has no Montgomery u
MINUS_ONE = b"\xec" + b"\xff" * 30 + b"\x7f"  # y = -1: a point of order 2 (u = 0)
ZERO = bytes(32)  # y = 0: a point of order 4 (u = 1)
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
NOT_A_POINT = (2).to_bytes(32, "little")  # y = 2 is on no point of the curve


@pytest.mark.parametrize(
    "claimed",
    [NEUTRAL, MINUS_ONE, ZERO, ORDER_8, NOT_A_POINT, bytes(31), (2**255 - 19 + 3).to_bytes(32, "little")],
    ids=["neutral", "order-2", "order-4", "order-8", "not-a-point", "too-short", "non-canonical"],
)
def test_a_malformed_identity_key_is_refused_with_a_clear_error(claimed: bytes) -> None:
    honest = SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "ann"})
    mallory = Impostor(initiator=False, identity=Identity.generate(), hello={"name": "bob"})
    mallory.claimed = claimed
    side, error = refusal(honest, mallory)
    assert side is honest
    assert "identity key is malformed" in str(error)


def test_a_key_of_mixed_order_is_refused() -> None:
    # A + T, with T of order 8: its u differs from A's, but X25519 clamps every scalar to a
    # multiple of 8, so the holder of A's scalar computes every shared secret with it. Were such
    # keys accepted, one secret would answer to 16 identities.
    identity = Identity.generate()
    mixed = nacl.bindings.crypto_core_ed25519_add(identity.public, ORDER_8)
    u = nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(identity.public)
    mixed_u = (
        (1 + int.from_bytes(mixed, "little") & ((1 << 255) - 1))
        * pow(1 - (int.from_bytes(mixed, "little") & ((1 << 255) - 1)), -1, 2**255 - 19)
        % (2**255 - 19)
    )
    assert mixed_u.to_bytes(32, "little") != u
    honest = SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "ann"})
    mallory = Impostor(initiator=False, identity=identity, hello={"name": "bob"})
    mallory.claimed = mixed
    mallory.handshake.s = KeyPair(agreement_key(identity), mixed_u.to_bytes(32, "little"))  # shows A + T
    side, error = refusal(honest, mallory)
    assert side is honest
    assert "identity key is malformed" in str(error)


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_an_identitys_noise_key_is_its_own_point_on_the_twin_curve(seed: bytes) -> None:
    # Two ways to the same u: X25519 scalar multiplication with the identity's scalar, and the
    # birational map from the Ed25519 public point.
    identity = Identity.from_seed(seed)
    scalar = X25519PrivateKey.from_private_bytes(agreement_key(identity))  # OpenSSL's X25519
    assert scalar.public_key().public_bytes_raw() == agreement_public(identity.public)


def test_a_different_protocol_version_is_refused_clearly() -> None:
    from p2pgenius.protocol.noise import XXHandshake

    _, b, _, _ = pair()
    old = XXHandshake(initiator=True, static=KeyPair.generate(), prologue=b"p2pgenius/1")
    message = old.write(encode(["p2pgenius-hello", 99]))
    with pytest.raises(ChannelError, match="version 99"):
        b.receive_data(len(message).to_bytes(4, "big") + message)


def test_a_fingerprint_is_four_groups_of_four() -> None:
    assert len(fingerprint(Identity.generate().public)) == 19


L = 2**252 + 27742317777372353535851937790883648493  # the order of edwards25519's base point


def test_signatures_are_checked_by_the_strict_rules() -> None:
    identity = Identity.generate()
    signature = identity.sign(b"message")
    assert verify(identity.public, signature, b"message")
    assert not verify(identity.public, signature, b"massage")
    # The same signature with S + L satisfies the equation but is not canonical: refused.
    s = int.from_bytes(signature[32:], "little") + L
    assert not verify(identity.public, signature[:32] + s.to_bytes(32, "little"), b"message")
    # The neutral point as a key, R the neutral point and S = 0: the equation holds for every
    # message, so such a "signature" would prove nothing. Plain RFC 8032 verification (OpenSSL's)
    # accepts it; ours refuses small-order keys.
    neutral = b"\x01" + bytes(31)
    assert not verify(neutral, neutral + bytes(32), b"any message at all")


def test_a_static_key_of_small_order_breaks_the_handshake() -> None:
    # u = 0 makes every X25519 result zero, whatever the scalar: a "shared" secret anyone knows.
    honest = SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "ann"})
    mallory = SecureChannel(initiator=False, identity=Identity.generate(), hello={"name": "bob"})
    mallory.handshake.s = KeyPair(agreement_key(mallory.identity), bytes(32))
    side, error = refusal(honest, mallory)
    assert side is honest
    assert "small order" in str(error)
