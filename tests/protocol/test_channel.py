"""The secure channel: identities proven in the handshake, framing limits, tampering."""

from __future__ import annotations

import pytest

from p2pgenius.protocol.channel import (
    ChannelError,
    Established,
    Received,
    SecureChannel,
)
from p2pgenius.protocol.identity import Identity, IdentityError, check_pin, fingerprint


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
    """Claims someone else's public key but can only sign with its own."""

    claimed: bytes = b""

    def _signed_payload(self, h: bytes) -> bytes:
        from p2pgenius.canonical import decode, encode

        _, hello, signature = decode(super()._signed_payload(h))
        return encode([self.claimed, hello, signature])


def test_a_forged_identity_signature_is_refused() -> None:
    a = SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "ann"})
    mallory = Impostor(initiator=False, identity=Identity.generate(), hello={"name": "bob"})
    mallory.claimed = Identity.generate().public  # the real Bob's key
    mallory.receive_data(a.data_to_send())
    with pytest.raises(ChannelError, match="does not hold the key"):
        a.receive_data(mallory.data_to_send())


def test_a_different_protocol_version_is_refused_clearly() -> None:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    from p2pgenius.canonical import encode
    from p2pgenius.protocol.noise import XXHandshake

    _, b, _, _ = pair()
    old = XXHandshake(initiator=True, static=X25519PrivateKey.generate(), prologue=b"p2pgenius/1")
    message = old.write(encode(["p2pgenius-hello", 99]))
    with pytest.raises(ChannelError, match="version 99"):
        b.receive_data(len(message).to_bytes(4, "big") + message)


def test_trust_on_first_use_pins_and_refuses_a_changed_key() -> None:
    ann, other = Identity.generate(), Identity.generate()
    assert check_pin({}, "ann", ann.public) is True
    assert check_pin({"ann": ann.public}, "ann", ann.public) is False
    with pytest.raises(IdentityError, match="has changed"):
        check_pin({"ann": ann.public}, "ann", other.public)
    assert len(fingerprint(ann.public)) == 19
