"""Regenerate the p2pgenius protocol test vectors in this folder.

    .venv/bin/python protocol/vectors/generate.py

Every input is fixed (keys from fixed seeds; nonces and coin shares from a counter hashed with
SHA-256, see ``p2pgenius.inmemory.randomness``), so the output is byte-for-byte reproducible; the
test suite regenerates everything and compares it with the files, and separately re-checks the
files with independent code (hashlib, msgpack, cryptography and the noiseprotocol package).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from p2pgenius.canonical import encode
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity, agreement_public
from p2pgenius.protocol.messages import commitment, seal
from p2pgenius.protocol.noise import KeyPair

HERE = Path(__file__).parent


def seed(label: str) -> bytes:
    """A fixed 32-byte seed named by ``label``."""
    return hashlib.sha256(label.encode()).digest()


def handshake() -> dict[str, Any]:
    """A full p2pgenius channel handshake and one message each way, with fixed keys."""
    keys = {
        name: seed(name).hex()
        for name in ("initiator identity", "responder identity", "initiator ephemeral", "responder ephemeral")
    }
    for role in ("initiator", "responder"):
        identity = Identity.from_seed(bytes.fromhex(keys[f"{role} identity"]))
        # Not a free choice: the Noise static key is the identity's own scalar (SPEC section 4).
        keys[f"{role} identity public"] = identity.public.hex()
        keys[f"{role} static"] = hashlib.sha512(identity.seed).digest()[:32].hex()
        keys[f"{role} static public"] = agreement_public(identity.public).hex()
    hellos = {
        "initiator": {"name": "ann"},
        "responder": {"name": "bob", "game": "duel"},
    }

    def side(role: str) -> SecureChannel:
        return SecureChannel(
            initiator=role == "initiator",
            identity=Identity.from_seed(bytes.fromhex(keys[f"{role} identity"])),
            hello=hellos[role],
            ephemeral=KeyPair.from_private(bytes.fromhex(keys[f"{role} ephemeral"])),
        )

    init, resp = side("initiator"), side("responder")
    records = [init.data_to_send()]
    resp.receive_data(records[0])
    records.append(resp.data_to_send())
    init.receive_data(records[1])
    records.append(init.data_to_send())
    resp.receive_data(records[2])
    init.send(b"first message from the initiator")
    resp.send(b"first message from the responder")
    return {
        "description": "p2pgenius channel, version 2: Noise_XX_25519_ChaChaPoly_SHA256 with prologue "
        "'p2pgenius/2'; identity and ephemeral keys are raw 32-byte seeds (hex); each static "
        "key is the first half of SHA-512 of its identity seed, its public half the identity "
        "key's Montgomery u; records are the exact bytes on the wire (4-byte length prefix included)",
        "keys": keys,
        "hellos": hellos,
        "records": [r.hex() for r in records],
        "handshake_hash": init.handshake.handshake_hash.hex(),
        "transport": {
            "initiator": {
                "plaintext": b"first message from the initiator".hex(),
                "record": init.data_to_send().hex(),
            },
            "responder": {
                "plaintext": b"first message from the responder".hex(),
                "record": resp.data_to_send().hex(),
            },
        },
    }


def commitments() -> list[dict[str, Any]]:
    """Commitments to a few hidden choices."""
    cases = [
        (0, 0, {"type": "gestures", "left": "D", "right": "-"}),
        (3, 1, {"type": "gestures", "left": "P", "right": ">", "targets": {"right": "p0"}}),
        (7, 2, {"type": "place", "card": "skull"}),
        (9, 3, {"type": "discard", "card": "doubloon"}),
    ]
    match_id = seed("match id")
    out = []
    for index, (stage, seat, payload) in enumerate(cases):
        nonce = seed(f"nonce {index}")
        preimage = encode(["p2pgenius/1 commitment", match_id, stage, seat, nonce, payload])
        out.append(
            {
                "match_id": match_id.hex(),
                "stage": stage,
                "seat": seat,
                "nonce": nonce.hex(),
                "payload": payload,
                "preimage": preimage.hex(),
                "commitment": commitment(match_id, stage, seat, nonce, payload).hex(),
            }
        )
    return out


def envelopes() -> list[dict[str, Any]]:
    """Signed, chained envelopes from one author."""
    author_seed = seed("envelope author")
    ident = Identity.from_seed(author_seed)
    match_id = seed("match id")
    bodies: list[list[Any]] = [
        ["chat", "good luck"],
        ["hash", 4, seed("state")],
        ["commit", 5, 1, seed("commit"), 1500],
    ]
    out, prev = [], b"\x00" * 32
    for seq, body in enumerate(bodies):
        raw = seal(ident, match_id, 1, seq, prev, body)
        out.append(
            {
                "author_seed": author_seed.hex(),
                "public_key": ident.public.hex(),
                "match_id": match_id.hex(),
                "author": 1,
                "seq": seq,
                "prev": prev.hex(),
                "envelope": raw.hex(),
                "hash": hashlib.sha256(raw).hexdigest(),
            }
        )
        prev = hashlib.sha256(raw).digest()
    return out


TRANSCRIPTS: list[tuple[str, dict[str, Any]]] = [
    ("duel", {"setup": {"hp": [3, 3]}}),
    ("magic-square", {"levels": ["perfect", "heuristic"]}),
    ("hornswoggle", {"setup": {"hands": [[1, 1], [1, 1], [1, 1], [1, 1]]}}),
]


def transcripts() -> dict[str, bytes]:
    """A short, complete match of each game, as peer 0's transcript."""
    out = {}
    for game, extra in TRANSCRIPTS:
        table = play(game, seed=11, deterministic=True, **extra)
        out[f"transcript-{game}.p2pt"] = transcript(table, 0)
    return out


def everything() -> dict[str, bytes]:
    """Every vector file's name and exact bytes."""

    def as_json(value: Any) -> bytes:
        return (json.dumps(value, indent=1, sort_keys=True) + "\n").encode()

    files = {
        "handshake.json": as_json(handshake()),
        "commitments.json": as_json(commitments()),
        "envelopes.json": as_json(envelopes()),
    }
    files.update(transcripts())
    return files


if __name__ == "__main__":
    for name, data in everything().items():
        (HERE / name).write_bytes(data)
        print(f"wrote {name} ({len(data)} bytes)", file=sys.stderr)
