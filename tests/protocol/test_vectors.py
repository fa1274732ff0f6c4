"""The protocol test vectors in protocol/vectors/, checked in both directions: our code makes
exactly these bytes, and independent code (hashlib, msgpack, cryptography, noiseprotocol) agrees."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pgenius.games.catalog import names
from p2pgenius.net.invite import Invite, InviteError, MailInvite, parse, parse_live
from p2pgenius.protocol.transcript import verify

VECTORS = Path(__file__).parents[2] / "protocol" / "vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate", VECTORS / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_our_code_makes_exactly_the_vector_files() -> None:
    for name, data in generator().everything().items():
        assert (VECTORS / name).read_bytes() == data, name


def sorted_maps(value: Any) -> Any:
    """An independent canonical form: maps sorted by the UTF-8 bytes of their keys, recursively."""
    if isinstance(value, dict):
        return {k: sorted_maps(value[k]) for k in sorted(value, key=lambda k: k.encode())}
    if isinstance(value, list):
        return [sorted_maps(v) for v in value]
    return value


def from_json(value: Any) -> Any:
    """A vector's JSON value as plain data: ``{"bin": hex}`` is a byte string."""
    if isinstance(value, dict):
        if set(value) == {"bin"}:
            return bytes.fromhex(value["bin"])
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


def pack(value: Any) -> bytes:
    """Canonical msgpack by independent code: msgpack with sorted maps."""
    packed: bytes = msgpack.packb(sorted_maps(value), use_bin_type=True)
    return packed


def plainly_canonical(data: bytes) -> bool:
    """Whether ``data`` is canonical by independent code: msgpack of plain types (no floats, no
    extension types, string keys) that packs back to the same bytes."""
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:  # not msgpack at all (cut short, bad UTF-8, trailing bytes)
        return False

    def plain(item: Any) -> bool:
        if isinstance(item, dict):
            return all(isinstance(k, str) and plain(v) for k, v in item.items())
        if isinstance(item, list):
            return all(plain(v) for v in item)
        return item is None or isinstance(item, bool | int | str | bytes)

    return plain(value) and pack(value) == data


def test_canonical_encodings_match_plain_msgpack_with_sorted_maps() -> None:
    vector = load("canonical.json")
    for case in vector["values"]:
        assert pack(from_json(case["value"])).hex() == case["bytes"], case["note"]
        assert plainly_canonical(bytes.fromhex(case["bytes"])), case["note"]
    for case in vector["refused"]:
        assert not plainly_canonical(bytes.fromhex(case["bytes"])), case["note"]


def test_commitments_match_an_independent_computation() -> None:
    for case in load("commitments.json"):
        preimage = msgpack.packb(
            [
                "p2pgenius/1 commitment",
                bytes.fromhex(case["match_id"]),
                case["stage"],
                case["seat"],
                bytes.fromhex(case["nonce"]),
                sorted_maps(case["payload"]),
            ],
            use_bin_type=True,
        )
        assert preimage.hex() == case["preimage"]
        assert hashlib.sha256(preimage).hexdigest() == case["commitment"]


def test_envelopes_verify_with_plain_ed25519_and_chain_by_hash() -> None:
    prev = bytes(32)
    for case in load("envelopes.json"):
        raw = bytes.fromhex(case["envelope"])
        tag, match_id, author, seq, heads, body, signature = msgpack.unpackb(raw, raw=False)
        assert (tag, author, seq) == ("p2pg/3", case["author"], case["seq"])
        # One head per peer: the author's own is its previous message's hash.
        assert len(heads) == case["peers"] and heads[author] == prev
        assert [head.hex() for head in heads] == case["heads"]
        assert body == from_json(case["body"])
        assert pack(body).hex() == case["body_bytes"]
        unsigned = msgpack.packb([tag, match_id, author, seq, heads, body], use_bin_type=True)
        assert (b"p2pgenius/1 message" + unsigned).hex() == case["signed"]
        assert signature.hex() == case["signature"]
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(case["public_key"]))
        key.verify(signature, b"p2pgenius/1 message" + unsigned)  # raises if it does not
        assert hashlib.sha256(raw).hexdigest() == case["hash"]
        prev = hashlib.sha256(raw).digest()


def test_each_stage_hashes_its_public_state_as_plain_msgpack_says() -> None:
    for case in load("stages.json"):
        state = from_json(case["public_after"])
        digest = hashlib.sha256(pack({"game": case["game"], "state": state})).hexdigest()
        assert digest == case["hash"], case["note"]
        hashes = [m["body"][2] for m in case["messages"] if m["body"][0] == "hash"]
        assert hashes and all(from_json(h).hex() == digest for h in hashes)
        for message in case["messages"]:
            assert msgpack.unpackb(bytes.fromhex(message["envelope"]), raw=False)[5] == from_json(
                message["body"]
            )


def test_every_blindness_claim_is_the_engines_view_and_next_exactly() -> None:
    # Replayed with the engine alone from the setup and the scripted gestures: after each blind
    # stage the claim is view(state, blinded seat) with "next" (to_act), byte for byte.
    from p2pgenius.games.duel.engine import DUEL

    vector = load("blindness.json")
    state = DUEL.initial(vector["setup"], {})
    claims = {case["stage"]: case for case in vector["stages"]}
    for stage in range(max(claims) + 1):
        for seat in (0, 1):
            move = vector["gestures"][seat][stage]
            action = DUEL.parse_action({"type": "gestures", "left": move[0], "right": move[1]})
            state = DUEL.apply(state, seat, action)
        if stage in claims:
            case = claims[stage]
            expected = {**DUEL.view(state, case["seat"]), "next": list(DUEL.to_act(state))}
            assert pack(expected).hex() == case["claim_bytes"]
            assert from_json(case["claim"]) == expected
            assert [s for s, _ in case["applied"]] == [0, 1]
    assert [c["seat"] for c in claims.values()] == [1, 1, 1]
    assert claims[5]["claim"]["wizards"][0]["hp"] is None  # blind: not even the opponent's HP


@pytest.mark.filterwarnings("ignore:One of ephemeral keypairs is already set")
def test_the_handshake_is_byte_for_byte_noise_xx_per_an_independent_implementation() -> None:
    noise = pytest.importorskip("noise.connection")
    vector = load("handshake.json")
    keys = {k: bytes.fromhex(v) for k, v in vector["keys"].items()}

    def connection(role: str) -> Any:
        conn = noise.NoiseConnection.from_name(b"Noise_XX_25519_ChaChaPoly_SHA256")
        conn.set_keypair_from_private_bytes(noise.Keypair.STATIC, keys[f"{role} static"])
        conn.set_keypair_from_private_bytes(noise.Keypair.EPHEMERAL, keys[f"{role} ephemeral"])
        conn.set_prologue(vector["prologue"].encode())
        if role == "initiator":
            conn.set_as_initiator()
        else:
            conn.set_as_responder()
        conn.start_handshake()
        return conn

    init, resp = connection("initiator"), connection("responder")
    bodies = [bytes.fromhex(r)[4:] for r in vector["records"]]
    payloads = []
    for index, body in enumerate(bodies):
        assert int.from_bytes(bytes.fromhex(vector["records"][index])[:4], "big") == len(body)
        writer, reader = (init, resp) if index % 2 == 0 else (resp, init)
        payload = reader.read_message(body)
        payloads.append(msgpack.unpackb(bytes(payload), raw=False))
        assert bytes(writer.write_message(bytes(payload))) == body  # the same bytes, recomputed
    # Messages 2 and 3 carry [identity key, hello] and nothing else: Noise itself proves the key.
    for role, payload in (("responder", payloads[1]), ("initiator", payloads[2])):
        assert payload == [bytes.fromhex(vector["keys"][f"{role} identity public"]), vector["hellos"][role]]
    assert init.get_handshake_hash().hex() == vector["handshake_hash"]
    transport = vector["transport"]
    record = bytes.fromhex(transport["initiator"]["record"])[4:]
    assert resp.decrypt(record).hex() == transport["initiator"]["plaintext"]
    record = bytes.fromhex(transport["responder"]["record"])[4:]
    assert init.decrypt(record).hex() == transport["responder"]["plaintext"]
    for role in ("initiator", "responder"):  # each a canonical channel message (SPEC section 4a)
        assert pack(transport[role]["message"]).hex() == transport[role]["plaintext"]


@pytest.mark.parametrize("name", [*names(), "duel-blind"])  # (every game has its vector)
def test_the_transcript_vectors_verify(name: str) -> None:
    report = verify((VECTORS / f"transcript-{name}.p2pt").read_bytes())
    assert report.ok, report.summary
    assert report.game == name.removesuffix("-blind")
    assert report.rejected == []


def test_each_static_key_is_its_identitys_scalar_by_an_independent_computation() -> None:
    # The Ed25519 scalar is the first half of SHA-512 of the seed (RFC 8032); X25519 of that
    # scalar must land on the u the vector gives, and the identity key must be the seed's.
    keys = {k: bytes.fromhex(v) for k, v in load("handshake.json")["keys"].items()}
    for role in ("initiator", "responder"):
        seed = keys[f"{role} identity"]
        identity = Ed25519PrivateKey.from_private_bytes(seed).public_key()
        assert identity.public_bytes_raw() == keys[f"{role} identity public"]
        assert hashlib.sha512(seed).digest()[:32] == keys[f"{role} static"]
        static = X25519PrivateKey.from_private_bytes(keys[f"{role} static"]).public_key()
        assert static.public_bytes_raw() == keys[f"{role} static public"]


def test_our_invite_reader_agrees_with_every_invite_vector() -> None:
    vector = load("invite.json")
    for case in vector["invites"]:
        invite = parse_live(case["text"])
        fields = (invite.key.hex(), invite.token.hex(), invite.port)
        assert fields == (case["key"], case["token"], case["port"])
        assert list(invite.addresses) == [a["address"] for a in case["addresses"]]
        assert invite.text() == case["text"] and invite.fingerprint == case["fingerprint"]
    for case in vector["mail_invites"]:  # version 4: correspondence invites
        mail = parse(case["text"])
        assert isinstance(mail, MailInvite) and mail.seats == (case["seats"] == 1), case["note"]
        mine = (mail.key.hex(), mail.token.hex(), mail.mailbox.hex(), list(mail.relays))
        assert mine == (case["key"], case["token"], case["mailbox"], [r["url"] for r in case["relays"]])
        assert mail.text() == case["text"] and mail.fingerprint == case["fingerprint"]
        with pytest.raises(InviteError, match="a correspondence invite"):
            parse_live(case["text"])
    for case in vector["spellings"]:
        assert parse(case["text"]) == parse(vector["invites"][case["invite"]]["text"]), case["note"]
    for case in vector["refused"]:
        with pytest.raises(InviteError):
            parse(case["text"])
    # Made from the same fields, the same text (the writer picks version 2 exactly when there is a token).
    first = vector["invites"][0]
    made = Invite(
        bytes.fromhex(first["key"]),
        first["port"],
        tuple(a["address"] for a in first["addresses"]),
        bytes.fromhex(first["token"]),
    )
    assert made.text() == first["text"]


def test_the_forgeries_prove_nothing() -> None:
    # What one peer wrote alone (SPEC section 7, "What a transcript proves"): never a finished
    # match, each exactly the verdict the file gives, and a fault only ever the forger's own, or
    # the forfeit path of its own claim.
    vector = load("forgeries.json")
    assert len(vector["forgeries"]) >= 4
    for case in vector["forgeries"]:
        report = verify(bytes.fromhex(case["transcript"]))
        assert not report.ok and report.standing == case["verdict"] != "finished", case["note"]
        fault, found = case["fault"], report.fault
        assert (None if found is None else {"kind": found.kind, "peer": found.peer}) == fault
        if fault is not None and fault["kind"] == "cheat":
            assert fault["peer"] == vector["forger"], case["note"]
        assert report.outcome == from_json(case["outcome"]), case["note"]
