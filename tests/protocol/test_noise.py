"""Our Noise XX against the published cacophony vectors and against the noiseprotocol package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.protocol.noise import KeyPair, NoiseError, XXHandshake

VECTORS = json.loads(
    (Path(__file__).parents[2] / "protocol" / "vectors" / "noise-xx-25519-cacophony.json").read_text(
        encoding="utf-8"
    )
)["vectors"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["protocol_name"] for v in VECTORS])
def test_cacophony_vectors_byte_for_byte(vector: dict[str, Any]) -> None:
    replay_cacophony(vector)


def replay_cacophony(vector: dict[str, Any]) -> None:
    """One cacophony vector, handshake and transport messages, byte for byte."""

    def side(prefix: str, initiator: bool) -> XXHandshake:
        return XXHandshake(
            initiator=initiator,
            static=KeyPair.from_private(bytes.fromhex(vector[f"{prefix}_static"])),
            ephemeral=KeyPair.from_private(bytes.fromhex(vector[f"{prefix}_ephemeral"])),
            prologue=bytes.fromhex(vector[f"{prefix}_prologue"]),
            protocol_name=vector["protocol_name"],
        )

    init, resp = side("init", True), side("resp", False)
    messages = vector["messages"]
    for index, message in enumerate(messages[:3]):
        writer, reader = (init, resp) if index % 2 == 0 else (resp, init)
        wire = writer.write(bytes.fromhex(message["payload"]))
        assert wire.hex() == message["ciphertext"]
        assert reader.read(wire).hex() == message["payload"]
    assert init.handshake_hash.hex() == vector["handshake_hash"]
    assert resp.handshake_hash.hex() == vector["handshake_hash"]
    init_send, init_recv = init.split()
    resp_send, resp_recv = resp.split()
    for index, message in enumerate(messages[3:], start=3):
        send, recv = (init_send, resp_recv) if index % 2 == 0 else (resp_send, init_recv)
        wire = send.encrypt(b"", bytes.fromhex(message["payload"]))
        assert wire.hex() == message["ciphertext"]
        assert recv.decrypt(b"", wire).hex() == message["payload"]


def test_a_tampered_handshake_message_is_refused() -> None:
    init = XXHandshake(initiator=True, static=KeyPair.from_private(b"\x01" * 32))
    resp = XXHandshake(initiator=False, static=KeyPair.from_private(b"\x02" * 32))
    resp.read(init.write(b"hello"))
    second = bytearray(resp.write(b"payload"))
    second[40] ^= 1
    with pytest.raises(NoiseError):
        init.read(bytes(second))


@pytest.mark.parametrize("we_initiate", [True, False])
def test_interoperates_with_the_noiseprotocol_package(we_initiate: bool) -> None:
    noise_module = pytest.importorskip("noise.connection")
    theirs = noise_module.NoiseConnection.from_name(b"Noise_XX_25519_ChaChaPoly_SHA256")
    theirs.set_keypair_from_private_bytes(noise_module.Keypair.STATIC, KeyPair.generate().private)
    theirs.set_prologue(b"p2pgenius")
    if we_initiate:
        theirs.set_as_responder()
    else:
        theirs.set_as_initiator()
    theirs.start_handshake()
    ours = XXHandshake(initiator=we_initiate, static=KeyPair.generate(), prologue=b"p2pgenius")
    for index in range(3):
        ours_writes = (index % 2 == 0) == we_initiate
        if ours_writes:
            assert theirs.read_message(ours.write(b"m%d" % index)) == b"m%d" % index
        else:
            assert ours.read(theirs.write_message(b"t%d" % index)) == b"t%d" % index
    assert ours.handshake_hash == theirs.get_handshake_hash()
    send, recv = ours.split()
    assert theirs.decrypt(send.encrypt(b"", b"to them")) == b"to them"
    assert recv.decrypt(b"", theirs.encrypt(b"to us")) == b"to us"


@pytest.mark.parametrize("small", [bytes(32), (1).to_bytes(32, "little")], ids=["u=0", "u=1"])
def test_an_ephemeral_key_of_small_order_breaks_the_handshake_on_either_side(small: bytes) -> None:
    # Such a key makes every X25519 result all zeros, a "secret" anyone knows. The side that meets
    # it refuses with a NoiseError: the responder while writing its reply (a bare ValueError here
    # once escaped and stopped a hosting peer), the initiator while reading the reply.
    bad = KeyPair(KeyPair.generate().private, small)
    init = XXHandshake(initiator=True, static=KeyPair.generate(), ephemeral=bad)
    resp = XXHandshake(initiator=False, static=KeyPair.generate())
    resp.read(init.write(b""))
    with pytest.raises(NoiseError, match="small order"):
        resp.write(b"")
    init = XXHandshake(initiator=True, static=KeyPair.generate())
    resp = XXHandshake(initiator=False, static=KeyPair.generate(), ephemeral=bad)
    resp.read(init.write(b""))
    reply = resp.write(b"")
    with pytest.raises(NoiseError, match="small order"):
        init.read(reply)


def test_a_short_handshake_message_is_refused_cleanly() -> None:
    init = XXHandshake(initiator=True, static=KeyPair.generate())
    resp = XXHandshake(initiator=False, static=KeyPair.generate())
    with pytest.raises(NoiseError, match="too short"):
        resp.read(init.write(b"")[:31])
