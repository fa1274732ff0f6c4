"""Conformance: every vector in protocol/vectors/ replayed through the decoder alone.

This is what an independent implementation of protocol/SPEC.md checks, and nothing more: the
canonical decoder (decode, then re-encode to the same bytes), envelopes (their fields, signatures
and chains), commitments and coin shares recomputed from their openings, state hashes as the
hashes of the states the vectors give, blindness claims as the exact maps sent, and the Noise
handshake replayed message by message, and invites read and written by code of its own (hashlib,
base64 and the standard library: section 4c), with their relay tokens (section 4d). No Session
and no rules engine runs here: the transcripts are read record by record as section 7 lays them
out. Every file in the folder must have a check (a new vector file without one fails the last
test). protocol/games.md is read the same way: its worked examples and fingerprints are checked
from the document alone.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import coincurve
import msgpack
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError
from p2pgenius.protocol import nostr
from p2pgenius.protocol.identity import Identity, agreement_public, verify
from p2pgenius.protocol.messages import Envelope, open_envelope
from p2pgenius.protocol.noise import KeyPair, XXHandshake
from tests.nostr import test_nip44_vectors as nip44_vectors

from . import test_games_doc as games_doc
from .test_noise import replay_cacophony

VECTORS = Path(__file__).parents[2] / "protocol" / "vectors"
ZERO = bytes(32)
SIGN_DOMAIN = b"p2pgenius/1 message"  # SPEC section 5, written out: not taken from the code
MATCH_DOMAIN = b"p2pgenius/1 match"
COMMIT_DOMAIN = "p2pgenius/1 commitment"
COIN_DOMAIN = "p2pgenius/2 coin"
READY_DOMAIN = b"p2pgenius/2 ready"
GAMES_MD = games_doc.TEXT
NOT_GENERATED = {"noise-xx-25519-cacophony.json", "nip44.vectors.json"}  # published vectors, kept as they are


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def from_json(value: Any) -> Any:
    """A vector's JSON value as plain data: ``{"bin": hex}`` is a byte string."""
    if isinstance(value, dict):
        if set(value) == {"bin"}:
            return bytes.fromhex(value["bin"])
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


def canonical(data: bytes) -> Any:
    """Decode ``data`` and insist that it is the one encoding of its value."""
    value = decode(data)
    assert encode(value) == data
    return value


def commitment(match_id: bytes, stage: int, seat: int, nonce: bytes, payload: Any) -> bytes:
    return h(encode([COMMIT_DOMAIN, match_id, stage, seat, nonce, payload]))


def state_hash(game: str, state: Any) -> bytes:
    return h(encode({"game": game, "state": state}))


# -- section 3: the canonical encoding ---------------------------------------------------------


def test_canonical_values_decode_and_encode_to_exactly_their_bytes() -> None:
    vector = load("canonical.json")
    assert vector["values"] and vector["refused"]
    for case in vector["values"]:
        data = bytes.fromhex(case["bytes"])
        assert canonical(data) == from_json(case["value"]), case["note"]
        assert encode(from_json(case["value"])) == data, case["note"]


def test_non_canonical_bytes_are_refused() -> None:
    for case in load("canonical.json")["refused"]:
        with pytest.raises(EncodingError):
            decode(bytes.fromhex(case["bytes"]))


# -- section 4: the channel ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "vector",
    load("noise-xx-25519-cacophony.json")["vectors"],
    ids=lambda v: str(v["protocol_name"]),
)
def test_the_cacophony_noise_vectors_replay(vector: dict[str, Any]) -> None:
    replay_cacophony(vector)


def test_the_p2pgenius_handshake_replays_record_by_record() -> None:
    vector = load("handshake.json")
    keys = {name: bytes.fromhex(value) for name, value in vector["keys"].items()}
    for role in ("initiator", "responder"):
        # The static key is the identity's own scalar (section 4), derived here from the seed.
        seed = keys[f"{role} identity"]
        assert Identity.from_seed(seed).public == keys[f"{role} identity public"]
        assert hashlib.sha512(seed).digest()[:32] == keys[f"{role} static"]
        assert agreement_public(keys[f"{role} identity public"]) == keys[f"{role} static public"]
        assert KeyPair.from_private(keys[f"{role} static"]).public == keys[f"{role} static public"]

    def side(role: str) -> XXHandshake:
        return XXHandshake(
            initiator=role == "initiator",
            static=KeyPair.from_private(keys[f"{role} static"]),
            ephemeral=KeyPair.from_private(keys[f"{role} ephemeral"]),
            prologue=vector["prologue"].encode(),
        )

    init, resp = side("initiator"), side("responder")
    payloads = []
    for index, text in enumerate(vector["records"]):
        record = bytes.fromhex(text)
        length = int.from_bytes(record[:4], "big")
        assert 1 <= length <= 65535 and length == len(record) - 4  # one whole record
        writer, reader = (init, resp) if index % 2 == 0 else (resp, init)
        payload = reader.read(record[4:])
        assert writer.write(payload) == record[4:]  # the same bytes, recomputed
        payloads.append(canonical(payload))
    hello, version = payloads[0]
    assert hello == "p2pgenius-hello" and type(version) is int
    assert vector["prologue"] == f"p2pgenius/{version}"
    for role, payload in (("responder", payloads[1]), ("initiator", payloads[2])):
        assert payload == [keys[f"{role} identity public"], vector["hellos"][role]]
    assert init.handshake_hash.hex() == resp.handshake_hash.hex() == vector["handshake_hash"]
    _, init_recv = init.split()
    _, resp_recv = resp.split()
    for role, recv in (("initiator", resp_recv), ("responder", init_recv)):
        case = vector["transport"][role]
        record = bytes.fromhex(case["record"])
        assert int.from_bytes(record[:4], "big") == len(record) - 4
        plaintext = recv.decrypt(b"", record[4:])  # the first record each way: nonce 0
        assert plaintext.hex() == case["plaintext"]
        message = canonical(plaintext)  # one channel message: a canonical array, its kind first
        assert message == case["message"] and isinstance(message, list) and isinstance(message[0], str)


# -- section 4c: invites, by code of our own (not p2pgenius.net.invite) --------------------------

INVITE_PREFIX = "p2pgenius://"
INVITE_LABEL = b"p2pgenius invite"
RELAY_TOKEN_LABEL = b"p2pgenius relay token"  # section 4d
BASE32 = "abcdefghijklmnopqrstuvwxyz234567"
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
HOST_NAME = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*\.?\Z")


def invite_check(body: bytes) -> bytes:
    return hashlib.sha256(INVITE_LABEL + body).digest()[:4]


def read_invite(text: str) -> dict[str, Any] | str:
    """An invite's fields, read step by step as section 4c says, or the step that refuses it."""
    spaces = "\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    spaces += "".join(map(chr, range(0x2000, 0x200B)))  # (Unicode's 25 White_Space, step 1)
    clean = "".join(char for char in text if char not in spaces).strip("<>\"'`")
    if not clean.lower().startswith(INVITE_PREFIX):
        return "not an invite"
    code = clean[len(INVITE_PREFIX) :].rstrip("/").lower()
    if any(char not in BASE32 for char in code):
        return "character"
    if len(code) % 8 in (1, 3, 6):  # no whole number of bytes has this many characters
        return "damaged"
    raw = base64.b32decode(code.upper() + "=" * (-len(code) % 8))
    if base64.b32encode(raw).decode("ascii").rstrip("=").lower() != code:
        return "damaged"  # unused low bits set: not the one spelling of these bytes
    if len(raw) <= 4 or invite_check(raw[:-4]) != raw[-4:]:
        return "damaged"
    body = raw[:-4]
    if body[0] not in (1, 2, 3, 4):
        return "version"
    if body[0] == 4:
        return read_mail_invite(body)
    at = 3 + 32 + (16 if body[0] >= 2 else 0)
    if len(body) < at + 1:
        return "malformed"
    port, count = int.from_bytes(body[1:3], "big"), body[at]
    fields = {"version": body[0], "port": port, "key": body[3:35], "token": body[35:at], "count": count}
    if port == 0 or not 1 <= count <= 16:
        return "malformed"
    at += 1
    addresses, relays = [], []
    for _ in range(count):
        address = read_address(body, at)
        if address is None:
            return "malformed"
        addresses.append(address)
        at += len(address["bytes"])
    if body[0] == 3:  # the relay section: a count of 1 to 4, then each relay's address and port
        if at >= len(body) or not 1 <= body[at] <= 4:
            return "malformed"
        at += 1
        for _ in range(body[at - 1]):
            address = read_address(body, at)
            if address is None:
                return "malformed"
            at += len(address["bytes"])
            relay_port = int.from_bytes(body[at : at + 2], "big")
            if at + 2 > len(body) or relay_port == 0:
                return "malformed"
            relays.append({**address, "port": relay_port, "bytes": address["bytes"] + body[at : at + 2]})
            at += 2
    if at != len(body):
        return "malformed"
    return {**fields, "addresses": addresses, "relays": relays}


RELAY_URL = re.compile(
    r"wss?://(?:(?P<name>[a-z0-9.-]+)|\[(?P<ipv6>[0-9a-f:.]+)\])(?::(?P<port>[1-9][0-9]{0,4}))?"
    r"(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*)*\Z"
)
"""Section 4c's relay URL of a correspondence invite: scheme, host, optional port, path-abempty."""


def relay_url_ok(url: str) -> bool:
    """Whether ``url`` is a relay URL as section 4c defines it (its length checked apart)."""
    found = RELAY_URL.match(url)
    if found is None or (found["port"] is not None and int(found["port"]) > 65535):
        return False
    if found["name"] is not None:
        return HOST_NAME.match(found["name"]) is not None
    try:
        ipaddress.IPv6Address(found["ipv6"])
    except ValueError:
        return False
    return True


def read_mail_invite(body: bytes) -> dict[str, Any] | str:
    """A version-4 body's fields, read as section 4c's step 7 says, or "malformed"."""
    if len(body) < 2 or body[1] not in (0, 1):
        return "malformed"
    token_end = 2 + 32 + 16 * body[1]
    at = token_end + 32
    if len(body) <= at or not 1 <= body[at] <= 8:
        return "malformed"
    count, at = body[at], at + 1
    relays: list[dict[str, Any]] = []
    for _ in range(count):
        if at >= len(body):
            return "malformed"
        size, chunk = body[at], body[at + 1 : at + 1 + body[at]]
        if not 1 <= size <= 200 or len(chunk) != size or not chunk.isascii():
            return "malformed"
        if not relay_url_ok(chunk.decode("ascii")):
            return "malformed"
        relays.append({"url": chunk.decode("ascii"), "bytes": body[at : at + 1 + size]})
        at += 1 + size
    urls = [relay["url"] for relay in relays]
    if at != len(body) or len(set(urls)) != len(urls):
        return "malformed"
    return {
        "version": 4,
        "seats": body[1],
        "key": body[2:34],
        "token": body[34:token_end],
        "mailbox": body[token_end : token_end + 32],
        "count": count,
        "relays": relays,
    }


def write_mail_invite(case: dict[str, Any]) -> bytes:
    """A version-4 body from its fields (``seats``, ``key``, ``token``, ``mailbox``, ``relays``)."""
    body = bytes([4, case["seats"]]) + bytes.fromhex(case["key"] + case["token"] + case["mailbox"])
    body += bytes([len(case["relays"])])
    for relay in case["relays"]:
        url = relay["url"].encode("ascii")
        body += bytes([len(url)]) + url
    return body


def check_mail_invites(vector: dict[str, Any]) -> None:
    """Section 4c's version 4: every correspondence invite written and read as it says."""
    assert {case["version"] for case in vector["mail_invites"]} == {4}
    assert {case["seats"] for case in vector["mail_invites"]} == {0, 1}  # players' and spectators'
    for case in vector["mail_invites"]:
        # The writer's rule: seats 1 exactly when there is a token (16 bytes), else 0 and none.
        assert len(bytes.fromhex(case["token"])) == 16 * case["seats"], case["note"]
        body = write_mail_invite(case)
        assert body.hex() == case["body"] and invite_check(body).hex() == case["check"], case["note"]
        text = INVITE_PREFIX + base64.b32encode(body + invite_check(body)).decode("ascii").rstrip("=").lower()
        assert text == case["text"]
        read = read_invite(text)
        assert isinstance(read, dict), (case["note"], read)
        assert {**read, "relays": [{**r, "bytes": r["bytes"].hex()} for r in read["relays"]]} == {
            "version": 4,
            "seats": case["seats"],
            "key": bytes.fromhex(case["key"]),
            "token": bytes.fromhex(case["token"]),
            "mailbox": bytes.fromhex(case["mailbox"]),
            "count": case["count"],
            "relays": case["relays"],
        }, case["note"]
        assert fingerprint_of(bytes.fromhex(case["key"])) == case["fingerprint"]
    refused = [case for case in vector["refused"] if case.get("body", "").startswith("04")]
    assert len(refused) >= 20 and {case["why"] for case in refused} == {"malformed"}


def read_address(body: bytes, at: int) -> dict[str, Any] | None:
    """The address written at ``body[at:]`` (its kind, its text and its bytes), or None if there
    is none that section 4c allows."""
    if at >= len(body):
        return None
    kind, start = body[at], at + 1
    if kind == 4:
        size = 4
    elif kind == 6:
        size = 16
    elif kind == ord("N") and at + 1 < len(body):
        size, start = body[at + 1], at + 2
    else:
        return None
    chunk = body[start : start + size]
    if len(chunk) != size:
        return None
    if kind == ord("N"):
        name = chunk.decode("ascii", errors="replace")
        if not HOST_NAME.match(name):
            return None
        return {"kind": "name", "address": name, "bytes": body[at : start + size]}
    return {
        "kind": f"ipv{kind}",
        "address": str(ipaddress.ip_address(chunk)),
        "bytes": body[at : start + size],
    }


def address_bytes(address: str) -> bytes:
    """An address as section 4c writes it: an IP address as its kind, anything else as a name."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return bytes([ord("N"), len(address)]) + address.encode("ascii")
    return bytes([ip.version]) + ip.packed


def write_invite(case: dict[str, Any]) -> bytes:
    """An invite's body from its fields (``version``, ``port``, ``key``, ``token``, ``addresses``,
    ``relays``, as invite.json gives them), as section 4c lays it out."""
    version, port = int(case["version"]), int(case["port"])
    addresses = [a["address"] for a in case["addresses"]]
    body = bytes([version]) + port.to_bytes(2, "big") + bytes.fromhex(case["key"] + case["token"])
    body += bytes([len(addresses)]) + b"".join(map(address_bytes, addresses))
    if version == 3:
        body += bytes([len(case["relays"])])
        body += b"".join(
            address_bytes(r["address"]) + int(r["port"]).to_bytes(2, "big") for r in case["relays"]
        )
    return body


def fingerprint_of(key: bytes) -> str:
    """Section 4: base32 of H("p2pgenius fingerprint" || key), 16 characters in groups of four."""
    text = base64.b32encode(h(b"p2pgenius fingerprint" + key)).decode("ascii")[:16]
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def test_invites_read_and_write_as_section_4c_says() -> None:
    vector = load("invite.json")
    assert vector["prefix"] == INVITE_PREFIX and vector["check_label"].encode() == INVITE_LABEL
    assert {case["version"] for case in vector["invites"]} == {1, 2, 3}
    for case in vector["invites"]:
        key, token = bytes.fromhex(case["key"]), bytes.fromhex(case["token"])
        relays = [(r["address"], r["port"]) for r in case["relays"]]
        assert len(key) == 32 and len(token) == (16 if case["version"] >= 2 else 0)
        # The writer's rule: version 3 when there are relays, else 2 with a token, else 1.
        assert case["version"] == (3 if relays else 2 if token else 1), case["note"]
        body = write_invite(case)
        assert body.hex() == case["body"], case["note"]
        assert invite_check(body).hex() == case["check"]
        text = INVITE_PREFIX + base64.b32encode(body + invite_check(body)).decode("ascii").rstrip("=").lower()
        assert text == case["text"]
        read = read_invite(case["text"])
        assert isinstance(read, dict), read
        assert (read["version"], read["port"], read["key"], read["token"], read["count"]) == (
            case["version"],
            case["port"],
            key,
            token,
            len(case["addresses"]),
        )
        assert [{**a, "bytes": a["bytes"].hex()} for a in read["addresses"]] == case["addresses"]
        assert [{**r, "bytes": r["bytes"].hex()} for r in read["relays"]] == case["relays"]
        assert fingerprint_of(key) == case["fingerprint"]
    for case in vector["spellings"]:
        same = vector["invites"][case["invite"]]["text"]
        assert read_invite(case["text"]) == read_invite(same), case["note"]
    assert {case["why"] for case in vector["refused"]} == {
        "not an invite",
        "character",
        "damaged",
        "version",
        "malformed",
    }
    for case in vector["refused"]:
        assert read_invite(case["text"]) == case["why"], case["note"]
        if "body" in case:  # well sealed: its check holds, so only its fields are wrong
            body = bytes.fromhex(case["body"])
            code = base64.b32encode(body + invite_check(body)).decode("ascii").rstrip("=").lower()
            assert case["text"] == INVITE_PREFIX + code
    check_mail_invites(vector)
    # Section 4d: the relay token of every invite with relays, and the line that asks a relay for it.
    assert vector["relay_token_label"].encode() == RELAY_TOKEN_LABEL
    with_relays = [n for n, case in enumerate(vector["invites"]) if case["relays"]]
    assert with_relays and [case["invite"] for case in vector["relay_tokens"]] == with_relays
    for case in vector["relay_tokens"]:
        invite = vector["invites"][case["invite"]]
        key, token = bytes.fromhex(invite["key"]), bytes.fromhex(invite["token"])
        relay_token = hashlib.sha256(RELAY_TOKEN_LABEL + key + token).hexdigest()
        assert case["token"] == relay_token and re.fullmatch("[0-9a-f]{64}", relay_token)
        assert re.fullmatch("[0-9a-f]{16}", case["side"])
        assert case["request"] == f"please relay {relay_token} for side {case['side']}\n"


# -- section 5: envelopes and commitments -------------------------------------------------------


def test_commitments_recompute_from_their_openings() -> None:
    for case in load("commitments.json"):
        match_id, nonce = bytes.fromhex(case["match_id"]), bytes.fromhex(case["nonce"])
        preimage = encode([COMMIT_DOMAIN, match_id, case["stage"], case["seat"], nonce, case["payload"]])
        assert preimage.hex() == case["preimage"]
        assert canonical(preimage)[5] == case["payload"]
        assert h(preimage).hex() == case["commitment"]


def test_envelopes_parse_verify_and_chain() -> None:
    prev = ZERO
    for case in load("envelopes.json"):
        raw = bytes.fromhex(case["envelope"])
        key = bytes.fromhex(case["public_key"])
        assert Identity.from_seed(bytes.fromhex(case["author_seed"])).public == key
        fields = canonical(raw)
        assert len(fields) == 7 and fields[0] == "p2pg/3"
        _, match_id, author, seq, heads, body, signature = fields
        assert (match_id.hex(), author, seq) == (case["match_id"], case["author"], case["seq"])
        assert len(heads) == case["peers"] and all(len(head) == 32 for head in heads)
        assert heads[author] == prev  # its own chain; the others': the newest it held of theirs
        assert body == from_json(case["body"]) and encode(body).hex() == case["body_bytes"]
        signed = SIGN_DOMAIN + encode(fields[:6])
        assert signed.hex() == case["signed"] and signature.hex() == case["signature"]
        assert verify(key, signature, signed)
        assert not verify(key, signature, signed + b"x")
        envelope = open_envelope(raw, [key] * case["peers"])
        assert (envelope.author, envelope.seq, list(envelope.body)) == (author, seq, body)
        assert h(raw).hex() == case["hash"] == envelope.hash.hex()
        prev = h(raw)


# -- section 7: transcripts, read as the section lays them out ----------------------------------


def frames(data: bytes) -> list[Any]:
    """A transcript file's records: each a 4-byte big-endian length and a canonical array."""
    out, offset = [], 0
    while offset < len(data):
        length = int.from_bytes(data[offset : offset + 4], "big")
        assert 0 < length <= 1 << 20 and offset + 4 + length <= len(data), f"a damaged record at {offset}"
        record = canonical(data[offset + 4 : offset + 4 + length])
        assert isinstance(record, list) and record and isinstance(record[0], str)
        out.append(record)
        offset += 4 + length
    return out


DECISIONS = (
    *("terms", "accept", "coin_reveal"),
    *("act", "commit", "reveal", "decline", "final", "blind", "audit"),
)
"""The messages a match's result depends on (every other kind is talk, checks or evidence)."""


class Match:
    """One match's messages, checked as they are read: envelopes, chains, the match id, the coin
    flip, commitments (and their openings) and every peer's state hashes."""

    def __init__(self, keys: list[bytes]) -> None:
        self.keys = keys
        self.match_id = b""
        self.terms: dict[str, Any] = {}
        self.next_seq = [0] * len(keys)
        self.last = [ZERO] * len(keys)
        self.commits: dict[tuple[int, int], bytes] = {}  # (stage, seat) -> the latest commitment
        self.opened: dict[tuple[int, int], Any] = {}  # (stage, seat) -> the action opened
        self.coins: dict[int, bytes] = {}  # author -> coin commitment
        self.shares: dict[int, bytes] = {}  # author -> its opened coin share
        self.hashes: dict[int, dict[int, bytes]] = {}  # stage -> author -> hash
        self.claims: dict[int, Any] = {}  # stage -> the blind claim's map
        self.kinds: list[str] = []
        self.numbers: dict[bytes, tuple[int, int]] = {}  # a message's hash -> (author, seq)
        self.named = [[-1] * len(keys) for _ in keys]  # author -> peer -> newest of it named
        self.ends: dict[int, Any] = {}  # author -> the result it signed
        self.decided = [-1] * len(keys)  # author -> the number of its last decision (or opening)

    def read(self, raw: bytes) -> Envelope:
        envelope = open_envelope(raw, self.keys)  # canonical, a known author, a true signature
        author = envelope.author
        fields = canonical(raw)
        heads = fields[4]
        assert isinstance(heads, list) and len(heads) == len(self.keys), "one head per peer"
        assert (envelope.seq, heads[author]) == (self.next_seq[author], self.last[author]), "chain"
        for peer, head in enumerate(heads):  # section 5: what it names is held, and no older
            if peer != author:
                number = -1 if head == ZERO else self.numbers[head][1]
                assert head == ZERO or self.numbers[head][0] == peer, "a head names that peer's message"
                assert number >= self.named[author][peer], "a head never goes back"
                self.named[author][peer] = number
        self.numbers[h(raw)] = (author, envelope.seq)
        self.next_seq[author] += 1
        self.last[author] = h(raw)
        body = list(envelope.body)
        kind = body[0]
        self.kinds.append(kind)
        if kind == "terms":
            self.terms = body[1]
            self.match_id = h(MATCH_DOMAIN + encode(self.terms))
            assert author == 0 and self.terms["peers"] == self.keys
            self.check_readies()
        assert envelope.match_id == self.match_id, "every message names the match"
        if kind == "accept":
            assert body[1] == self.match_id  # the match id, not a hash of the terms alone
        elif kind == "coin_reveal":
            self.coin(author, body[1])
        elif kind == "commit":
            self.commits[(body[1], body[2])] = body[3]  # a sealed choice may be replaced
        elif kind == "reveal":
            self.open(*body[1:])
        elif kind == "audit":
            for opening in body[1]:
                self.open(*opening)
        elif kind == "hash":
            self.hashes.setdefault(body[1], {})[author] = body[2]
        elif kind == "blind":
            assert isinstance(body[3], dict) and body[3]["next"], "a claim names who acts next"
            self.claims[body[1]] = body[3]
        elif kind == "end":
            assert author not in self.ends, "one end from each peer"
            self.ends[author] = body[1]
            others = [peer for peer in range(len(self.keys)) if peer != author]
            assert all(self.named[author][peer] >= self.decided[peer] for peer in others), "signed blind"
        if kind in DECISIONS:
            self.decided[author] = envelope.seq
        return envelope

    def check_readies(self) -> None:
        """Section 4a, "The lobby": the terms carry every peer's coin commitment; each joiner's
        with its signature of the table it said ready to (salt, game, options, setup, the host's
        claim, its own claim, its commitment)."""
        terms = self.terms
        assert len(terms["coins"]) == len(terms["readies"]) == len(self.keys)
        assert terms["readies"][0] == b""
        for peer in range(1, len(self.keys)):
            statement = READY_DOMAIN + encode(
                [
                    terms["salt"],
                    terms["peers"][0],
                    terms["game"],
                    terms["options"],
                    terms["setup"],
                    terms["claims"][0],
                    terms["claims"][peer],
                    terms["coins"][peer],
                ]
            )
            assert verify(self.keys[peer], terms["readies"][peer], statement), f"peer {peer}'s ready"
        self.coins = dict(enumerate(terms["coins"]))

    def coin(self, author: int, value: bytes) -> None:
        """The coin flip (section 6, "Set-up"): each peer's share opens its commitment."""
        assert len(value) == 32
        key = self.keys[author]
        assert h(encode([COIN_DOMAIN, self.terms["salt"], key, value])) == self.coins[author]
        self.shares[author] = value

    def open(self, stage: int, seat: int, action: Any, nonce: bytes) -> None:
        assert len(nonce) == 32
        assert commitment(self.match_id, stage, seat, nonce, action) == self.commits[(stage, seat)]
        self.opened[(stage, seat)] = action


def read_transcript(data: bytes) -> tuple[dict[str, Any], Match, list[list[Any]]]:
    records = frames(data)
    magic, version, meta = records[0]
    assert (magic, version) == ("p2pgenius-transcript", 3)
    assert isinstance(meta["peers"], list) and all(len(key) == 32 for key in meta["peers"])
    assert meta["me"] is None or 0 <= meta["me"] < len(meta["peers"])
    match = Match(meta["peers"])
    for record in records[1:]:
        assert record[0] in ("msg", "rejected", "fault", "desync_state"), record[0]
        if record[0] == "msg":
            assert isinstance(record[1], bytes)
            match.read(record[1])
    return meta, match, records


TRANSCRIPTS = sorted(path.name for path in VECTORS.glob("transcript-*.p2pt"))


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_a_transcript_reads_record_by_record_and_every_check_holds(name: str) -> None:
    meta, match, records = read_transcript((VECTORS / name).read_bytes())
    # A clean match: nothing refused, no fault; terms, accepts and the coin flip come first.
    assert [r[0] for r in records[1:]] == ["msg"] * (len(records) - 1)
    peers = len(meta["peers"])
    assert match.kinds[0] == "terms" and match.kinds.count("accept") == peers - 1
    assert len(match.shares) == peers  # every share of the coin flip opened, and checked
    # Every commitment was opened (a sealed choice by its reveal; a hidden card by a flip or at the
    # audit), and every peer that hashed a stage agrees on it.
    assert set(match.opened) == set(match.commits)
    for stage, by_author in match.hashes.items():
        assert len(set(by_author.values())) == 1, f"stage {stage}"
    assert set(match.hashes) == set(range(len(match.hashes)))  # stages are numbered from 0
    if match.terms["game"] == "hornswoggle":  # audited: every peer opens what it still hides
        assert match.kinds.count("audit") == peers
    if match.terms["game"] == "duel":  # sealed: every choice travels as a commitment
        assert match.commits and "act" not in match.kinds
    # Finished (section 7, "What a transcript proves"): every peer signed one result, the last
    # of its decisions behind it: its end names every other peer's audit or last decision.
    assert sorted(match.ends) == list(range(peers)) and len({repr(o) for o in match.ends.values()}) == 1


# -- whole stages and blindness claims -----------------------------------------------------------


def transcript_of(match_id: str) -> Match:
    """The transcript vector of the match ``match_id`` (for openings of earlier commitments)."""
    for name in TRANSCRIPTS:
        _, match, _ = read_transcript((VECTORS / name).read_bytes())
        if match.match_id.hex() == match_id:
            return match
    raise AssertionError(f"no transcript vector of match {match_id}")


def test_each_stage_vector_reproduces_its_messages_and_its_hash() -> None:
    cases = load("stages.json")
    assert sorted({case["game"] for case in cases}) == ["duel", "hornswoggle", "magic-square"]
    paralysis = [case for case in cases if case["applied"][0][1]["type"] == "paralyze"]
    assert len(paralysis) == 2 and paralysis[1]["public_before"] == paralysis[0]["public_after"]
    assert [c["hand"] for c in paralysis[1]["public_before"]["paralysis_choices"]] == [None, "left"]
    for case in cases:
        keys = [bytes.fromhex(key) for key in case["peers"]]
        match = transcript_of(case["match_id"])
        assert match.keys == keys
        digest = state_hash(case["game"], from_json(case["public_after"]))
        assert digest.hex() == case["hash"], case["note"]
        # What a stage decided is in the state it leaves (SPEC section 6), so in its hash: a duel
        # caster's first of two Paralysis choices too (issue 38, item 9).
        assert state_hash(case["game"], from_json(case["public_before"])) != digest, case["note"]
        kinds = set()
        for message in case["messages"]:
            envelope = open_envelope(bytes.fromhex(message["envelope"]), keys)
            assert envelope.match_id.hex() == case["match_id"]
            assert (envelope.author, envelope.seq) == (message["author"], message["seq"])
            body = list(envelope.body)
            assert body == from_json(message["body"])
            kinds.add(body[0])
            if body[0] == "hash":
                assert body[1:] == [case["stage"], digest]
            elif body[0] == "reveal":  # the commitment it opens is in the match's transcript
                _, stage, seat, action, nonce = body
                assert commitment(match.match_id, stage, seat, nonce, action) == match.commits[(stage, seat)]
            elif body[0] != "final":
                assert body[1] == case["stage"]
        assert {"hash"} < kinds, case["note"]
        applied = [seat for seat, _ in case["applied"]]
        assert applied == sorted(applied)  # in ascending seat order
        if case["game"] == "duel":  # sealed: what is applied is what was revealed
            reveals = {
                b[2]: b[3] for b in (from_json(m["body"]) for m in case["messages"]) if b[0] == "reveal"
            }
            assert [[seat, reveals[seat]] for seat in applied] == from_json(case["applied"])


def test_each_blindness_claim_is_the_map_sent_and_the_withheld_messages_come_after() -> None:
    vector = load("blindness.json")
    keys = [bytes.fromhex(key) for key in vector["peers"]]
    match = transcript_of(vector["match_id"])
    blinded_peer, owner = vector["blinded_peer"], vector["owner"]
    last_claim = max(
        m["record"] for case in vector["stages"] for m in case["messages"] if m["body"][0] == "blind"
    )
    for case in vector["stages"]:
        claim = from_json(case["claim"])
        assert encode(claim).hex() == case["claim_bytes"]
        assert match.claims[case["stage"]] == claim
        assert claim["seat"] == case["seat"] and owner[case["seat"]] == blinded_peer
        assert claim["next"] == [0, 1]
        digest = bytes.fromhex(case["hash"])
        for message in case["messages"]:
            envelope = open_envelope(bytes.fromhex(message["envelope"]), keys)
            body = list(envelope.body)
            assert body == from_json(message["body"])
            if body[0] == "blind":
                assert envelope.author == case["author"] != blinded_peer
                assert body == ["blind", case["stage"], case["seat"], claim]
            if body[0] == "hash":
                assert body[2] == digest
            if envelope.author != blinded_peer and body[0] in ("reveal", "hash"):
                assert message["record"] > last_claim, "withheld until the blindness ended"


# -- every file is checked ------------------------------------------------------------------------


def held(taken: dict[bytes, tuple[int, int]], head: bytes, peer: int) -> int | None:
    """The number of ``peer``'s message ``head`` names, if it was taken (None: it was not)."""
    found = taken.get(head)
    return found[1] if found is not None and found[0] == peer else None


def signed_result(data: bytes) -> Any:
    """The result every peer signed in a transcript, read as section 7 says, or None: each message
    is taken if its chain and heads fit what was taken before it (else it is refused, and so is
    everything after it from its author), and a result stands only if every peer's end is taken
    and all say the same. (What the replay of the engines adds, this reader does not need: a
    forgery must fail here already.)"""
    records = frames(data)
    keys = records[0][2]["peers"]
    taken: dict[bytes, tuple[int, int]] = {}
    last, count = [ZERO] * len(keys), [0] * len(keys)
    named = [[-1] * len(keys) for _ in keys]
    ends: dict[int, Any] = {}
    for record in records[1:]:
        if record[0] != "msg":
            continue
        fields = canonical(record[1])
        _, _, author, seq, heads, body, _ = fields
        if (seq, heads[author]) != (count[author], last[author]):
            continue
        numbers = [-1 if head == ZERO else held(taken, head, peer) for peer, head in enumerate(heads)]
        if any(n is None or (peer != author and n < named[author][peer]) for peer, n in enumerate(numbers)):
            continue  # (a head naming nothing taken, or going back)
        assert verify(keys[author], fields[6], SIGN_DOMAIN + encode(fields[:6]))
        named[author] = [-1 if n is None else n for n in numbers]
        taken[h(record[1])] = (author, seq)
        last[author], count[author] = h(record[1]), count[author] + 1
        if body[0] == "end":
            ends.setdefault(author, body[1])
    outcomes = {encode(outcome) for outcome in ends.values()}
    return canonical(outcomes.pop()) if len(ends) == len(keys) and len(outcomes) == 1 else None


def test_only_every_peers_end_makes_a_result_and_no_forgery_has_one() -> None:
    for name in TRANSCRIPTS:  # every real match: the result every peer signed
        assert signed_result((VECTORS / name).read_bytes()) is not None, name
    vector = load("forgeries.json")
    real = from_json(vector["real"])
    for case in vector["forgeries"]:  # one peer alone signs no result but the real one
        assert signed_result(bytes.fromhex(case["transcript"])) in (None, real), case["note"]


def union_of(copies: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    """Section 7, "Several copies of one match", steps 1 to 3, as the text says them: the hashes
    of the union's messages in its order, and of its twins."""
    keys = frames(copies[0])[0][2]["peers"]
    gathered: dict[bytes, list[Any]] = {}
    match_id = None
    for data in copies:  # 1. every msg and rejected record's envelope whose signature holds
        for record in frames(data)[1:]:
            if record[0] not in ("msg", "rejected") or h(record[1]) in gathered:
                continue
            try:
                fields = canonical(record[1])
            except EncodingError:
                continue
            if not (isinstance(fields, list) and len(fields) == 7 and fields[0] == "p2pg/3"):
                continue
            author = fields[2]
            if not (type(author) is int and 0 <= author < len(keys)):
                continue
            if not verify(keys[author], fields[6], SIGN_DOMAIN + encode(fields[:6])):
                continue
            match_id = fields[1] if match_id is None else match_id
            if fields[1] == match_id:
                gathered[h(record[1])] = fields
    named: set[bytes] = set()  # 2. chains: the branch other authors' messages name, directly or not
    for fields in gathered.values():
        for peer, head in enumerate(fields[4]):
            while peer != fields[2] and head in gathered and head not in named:
                named.add(head)
                head = gathered[head][4][peer]
    chains: list[list[bytes]] = []
    twins: list[bytes] = []
    for author in range(len(keys)):
        chain: list[bytes] = []
        while True:
            numbered = [k for k, f in gathered.items() if f[2] == author and f[3] == len(chain)]
            numbered.sort(key=lambda k: (k not in named, k))
            tip = chain[-1] if chain else ZERO
            fitting = [k for k in numbered if gathered[k][4][author] == tip]
            if not fitting:
                break
            chain.append(fitting[0])
            twins += [k for k in numbered if k != fitting[0]]
        chains.append(chain)
    order: list[bytes] = []  # 3. the lowest author whose next message names only what is taken
    at = [0] * len(keys)
    while True:
        ready = [
            a
            for a in range(len(keys))
            if at[a] < len(chains[a]) and all(x == ZERO or x in order for x in gathered[chains[a][at[a]]][4])
        ]
        if not ready:
            return order, twins
        order.append(chains[ready[0]][at[ready[0]]])
        at[ready[0]] += 1


def test_copies_of_one_match_merge_into_the_union_the_vector_gives() -> None:
    vector = load("copies.json")
    verdicts = set()
    for case in vector["cases"]:
        order, twins = union_of([bytes.fromhex(copy) for copy in case["copies"]])
        assert [k.hex() for k in order] == case["order"], case["note"]
        assert [k.hex() for k in twins] == case["twins"], case["note"]
        verdicts.add(case["verdict"])
    assert {"stopped", "finished"} <= verdicts  # (a forfeit and a cheat stand; a cut copy hides nothing)


# -- section 7a: bundles --------------------------------------------------------------------------


def deal(terms: dict[str, Any], shares: dict[int, bytes]) -> list[int]:
    """Section 6, "Set-up": the peer holding each seat, from the opened coin shares."""
    peers = len(terms["peers"])
    shared = encode([shares[peer] for peer in range(peers)])
    order = sorted(range(peers), key=lambda peer: h(shared + bytes([peer])))
    groups = [list(group) for group in terms["groups"]]
    holder: dict[int, int] = {}  # group index -> peer
    for peer in range(peers):  # claimed groups first, to their claimants
        if terms["claims"][peer]:
            holder[next(i for i, g in enumerate(groups) if terms["claims"][peer][0] in g)] = peer
    free = iter(peer for peer in order if not terms["claims"][peer])
    for index in range(len(groups)):
        if index not in holder:
            holder[index] = next(free)
    owner = [-1] * sum(len(group) for group in groups)
    for index, group in enumerate(groups):
        for seat in group:
            owner[seat] = holder[index]
    return owner


def tally(raw: bytes, record: dict[str, dict[str, list[int]]]) -> None:
    """Section 7a, "The record": what one counted transcript adds (a finished match's result)."""
    _, match, _ = read_transcript(raw)
    outcome = signed_result(raw)
    owner = deal(match.terms, match.shares)
    winners = outcome.get("winning_seats") or ([] if outcome["winner"] is None else [outcome["winner"]])
    for peer, key in enumerate(match.keys):
        seats = {seat for seat, holder in enumerate(owner) if holder == peer}
        if seats:
            column = 2 if not winners else 0 if seats & set(winners) else 1
            record.setdefault(key.hex(), {}).setdefault(match.terms["game"], [0, 0, 0])[column] += 1


def test_a_bundle_reads_as_section_7a_says_and_proves_its_record() -> None:
    vector = load("bundle.json")
    magic, version, entries = canonical((VECTORS / vector["file"]).read_bytes())  # bare: one value
    assert (magic, version) == ("p2pgenius bundle", 1) and len(entries) == len(vector["entries"])
    assert len({name for name, _ in entries}) < len(entries)  # (names may repeat)
    record: dict[str, dict[str, list[int]]] = {}
    seen: set[str] = set()
    for (name, raw), case in zip(entries, vector["entries"], strict=True):
        assert isinstance(name, str) and "/" not in name and name == case["name"]
        assert h(raw).hex() == case["sha256"]
        meta, match, _ = read_transcript(raw)
        assert meta["me"] == case["me"] and match.terms["game"] == case["game"]
        assert h(encode(match.terms)).hex() == case["match"] != match.match_id.hex()
        proves = signed_result(raw) is not None
        counted = proves and case["match"] not in seen  # (these copies prove alike: the first)
        assert (proves, counted) == (case["proves"], case["counted"]), name
        seen.add(case["match"])
        if counted:
            tally(raw, record)
    expected = {
        entry["key"]: {game: [n["won"], n["lost"], n["drawn"]] for game, n in entry["games"].items()}
        for entry in vector["record"]
    }
    assert record == expected


def test_one_ready_in_two_sets_of_terms_is_one_match_and_its_hosts_cheat() -> None:
    # Section 7a, "One ready, one match": each transcript alone is a forfeit before the deal by
    # the joiner; read together, the joiner's one ready in two different terms proves the host's
    # cheat, and they count as one match: the host (peer 0) alone lost.
    vector = load("tables.json")
    terms_ids, keys, forfeits = [], None, []
    for raw in (bytes.fromhex(data) for data in vector["transcripts"]):
        _, match, _ = read_transcript(raw)
        keys = keys or match.keys
        assert match.keys == keys and bytes.fromhex(vector["ready"]) in match.terms["readies"]
        terms_ids.append(h(encode(match.terms)).hex())
        forfeits.append(match.kinds[-1] == "forfeit" and 1 not in match.shares)  # (never dealt)
    assert terms_ids == vector["terms"] and len(set(terms_ids)) == 2 and all(forfeits)
    assert [case["peer"] for case in vector["alone"]] == [1, 1]
    assert keys is not None and vector["together"] == {"fault": "cheat", "peer": 0, "counted": 1}
    record = {key.hex(): [0, 0, 0] for key in keys}  # before the deal, the one at fault alone lost
    for peer, key in enumerate(keys):
        record[key.hex()][1 if peer == vector["together"]["peer"] else 0] += 1
    expected = {
        entry["key"]: [entry["games"]["duel"][n] for n in ("won", "lost", "drawn")]
        for entry in vector["record"]
    }
    assert record == expected


# -- protocol/games.md: every worked example, read out of the document ---------------------------
# Only the document is read here: its marked blocks, its schemas (a validator of the subset of JSON
# Schema it uses) and the encoding its section 4 describes, written without p2pgenius.canonical. No
# engine runs, so a number or a byte in the document that drifts from what it says fails here.


def worked_example_prose(game: str) -> str:
    """The text of ``game``'s section from its "### Worked example" heading to its example block."""
    start = GAMES_MD.index(f"(`{game}`)")
    heading = GAMES_MD.index("### Worked example", start)
    return GAMES_MD[heading : GAMES_MD.index(f"<!-- example: {game} -->", heading)]


@pytest.mark.parametrize("game", sorted(name for marker, name in games_doc.blocks() if marker == "example"))
def test_each_games_md_worked_example_hashes_and_counts_as_the_document_says(game: str) -> None:
    example = games_doc.block_json("example", game)
    valid = games_doc.schemas()
    for _, action in example["actions"]:
        assert valid.valid(games_doc.urn(game, "action"), action), action
    assert valid.valid(games_doc.urn(game, "state"), example["state"])
    data = games_doc.canonical({"game": game, "state": example["state"]})
    assert h(data).hex() == example["hash"]
    prose = " ".join(worked_example_prose(game).split())
    written = games_doc.blocks().get(("bytes", game))
    if written is None:
        assert "of them" not in prose
        return
    assert bytes.fromhex("".join(written.split())) == data
    counts = re.findall(r"(\d+) of them", prose)
    assert counts == [str(len(data))], f"{game}: the prose counts {counts} bytes; the block holds {len(data)}"
    # "Read from the start: `82` a map of two entries; `a4 67616d65` the key ..." walks the first
    # bytes in order.
    after = GAMES_MD[GAMES_MD.index("Read from the start:", GAMES_MD.index(f"<!-- bytes: {game} -->")) :]
    walk = after[: after.index("\n\n")]
    pieces = [p for p in re.findall(r"`([^`]+)`", walk) if re.fullmatch(r"[0-9a-f]{2}( ?[0-9a-f]{2})*", p)]
    assert pieces and data.startswith(bytes.fromhex("".join(pieces).replace(" ", "")))


def test_each_games_md_engine_fingerprint_is_the_hash_the_document_defines() -> None:
    version = re.search(r"with package version (\d+\.\d+\.\d+)", GAMES_MD)
    assert version is not None
    for game, traits in games_doc.block_json("games").items():
        made = h(games_doc.canonical([game, traits["rules_version"], version[1]]))[:16].hex()
        assert made == traits["engine"], game


# -- game-steps.json: the engines' steps, held to games.md sections 5 and 6 ------------------------

CLEARED = {"turn": 1, "grid": [0] * 16, "scores": [0, 0], "placers": []}
EVENT_SCHEMA = {
    "duel": "urn:p2pgenius:duel:view#/$defs/event",
    "magic-square": "urn:p2pgenius:magic-square:view#/properties/events/items",
}


def valid_event(game: str, event: dict[str, Any]) -> bool:
    valid = games_doc.schemas()
    schema, root = valid.resolve(EVENT_SCHEMA[game], {})
    return not valid.check(schema, event, root, "$")


def check_duel_step(state: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """Section 5, "The order of a turn's events" and the facts after it."""
    places = [games_doc.duel_event_place(event) for event in events]
    assert places == sorted(places), [event["type"] for event in events]
    for event in events:
        assert event["type"] != "hp" or event["hp"] != event["was"]
        assert event["type"] != "rewrite" or event["submitted"] != event["counted"]
    if state["outcome"] is not None:
        assert all(wizard["paralysed"] is None for wizard in state["wizards"])
        assert state["paralysis_choices"] == [] and not [e for e in events if e.get("why") == "held"]


def check_square_step(state: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """Section 6, "Phase by phase", and the view's events."""
    phase = state["phase"]
    assert state["swaps_left"] == 0 or phase == "swap"
    if phase == "colour_order":
        assert state["first_lead"] == 0 and state["to_move"] == state["opponent"]
    if phase in ("colour_order", "colouring", "swap", "over"):
        assert {key: state[key] for key in CLEARED} == CLEARED and state["lead"] is None
    if phase == "over":
        assert (state["to_move"], state["challenger"], state["challenge_window"]) == (None, None, None)
        assert state["round"] == state["last_round"]["round"]
    for event in events:
        if event["type"] == "next_round":
            assert event["round"] == state["last_round"]["round"] == state["round"] - 1
    if phase == "challenge" and events[-1]["type"] == "challenge":
        placed, challenge = events[-2:]
        assert placed["type"] == "place" and (placed["number"], placed["cell"]) == (
            challenge["number"],
            challenge["cell"],
        )


def test_each_game_step_hashes_validates_and_keeps_the_documented_order_and_phases() -> None:
    vector = load("game-steps.json")
    assert {match["game"] for match in vector["matches"]} == {"duel", "magic-square"}
    valid = games_doc.schemas()
    seen: set[str] = set()
    for match in vector["matches"]:
        game = match["game"]
        assert valid.valid(games_doc.urn(game, "setup"), match["setup"])
        for step in match["steps"]:
            if step["action"] is not None:
                assert valid.valid(games_doc.urn(game, "action"), step["action"])
            assert valid.valid(games_doc.urn(game, "state"), step["state"]), match["note"]
            assert h(games_doc.canonical({"game": game, "state": step["state"]})).hex() == step["hash"]
            assert all(valid_event(game, event) for event in step["events"])
            (check_duel_step if game == "duel" else check_square_step)(step["state"], step["events"])
            seen |= {str(event.get(key)) for event in step["events"] for key in ("type", "why")}
    # The vector shows what its notes say: these events come up in it.
    assert {"held", "revive", "destroyed", "no_monster", "paralysed", "challenge", "swaps_done"} <= seen


SECP256K1_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def pack(value: Any) -> bytes:
    """Canonical encoding by plain msgpack (no maps in a letter, so no key order to keep)."""
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


def secp_key(raw: bytes) -> bytes:
    """Section 4e: 32 bytes made a secp256k1 secret key, ``1 + raw mod (n - 1)``."""
    return (1 + int.from_bytes(raw, "big") % (SECP256K1_ORDER - 1)).to_bytes(32, "big")


def test_mailbox_letters_read_as_section_4e_says() -> None:
    """Each letter taken apart step by step with coincurve, cryptography, hmac, hashlib, msgpack
    and json (and NIP-44's decryption, checked against NIP-44's own vectors)."""
    vector = load("mailbox.json")
    okm = HKDF(hashes.SHA256(), 32, b"p2pgenius-mailbox-v1", b"address").derive(
        bytes.fromhex(vector["secret"])
    )
    address_key = secp_key(okm)
    assert address_key.hex() == vector["address_secret_key"]
    assert coincurve.PublicKeyXOnly.from_secret(address_key).format().hex() == vector["address"]
    for letter in vector["letters"]:
        event, randomness = letter["event"], bytes.fromhex(letter["randomness"])
        sender = secp_key(randomness[:32])
        assert sender.hex() == letter["event_secret_key"]
        assert coincurve.PublicKeyXOnly.from_secret(sender).format().hex() == event["pubkey"]
        # NIP-01: the id hashes the serialised fields; the signature is the event key's (BIP-340).
        fields = [0, event["pubkey"], event["created_at"], 1059, [["p", vector["address"]]], event["content"]]
        serialised = json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode()
        assert event["kind"] == 1059 and event["tags"] == [["p", vector["address"]]]
        assert event["created_at"] == letter["created_at"] and h(serialised).hex() == event["id"]
        signer = coincurve.PublicKeyXOnly(bytes.fromhex(event["pubkey"]))
        assert signer.verify(bytes.fromhex(event["sig"]), bytes.fromhex(event["id"]))
        # NIP-44 between the event's key and the address: the same key from the reader's side.
        shared_x = coincurve.PublicKey(b"\x02" + bytes.fromhex(event["pubkey"])).multiply(address_key)
        key = hmac.new(b"nip44-v2", shared_x.format()[1:], hashlib.sha256).digest()
        assert key.hex() == letter["conversation_key"]
        plaintext = nostr.decrypt(event["content"], key)
        assert plaintext == letter["plaintext"] and base64.b64decode(plaintext).hex() == letter["letter"]
        # The letter: [tag, 1, author, messages, signature]; the author signs the address and
        # the event's key with the messages.
        author, messages = bytes.fromhex(letter["author"]), [bytes.fromhex(m) for m in letter["messages"]]
        assert Identity.from_seed(bytes.fromhex(letter["author_seed"])).public == author
        signature = bytes.fromhex(letter["signature"])
        assert bytes.fromhex(letter["letter"]) == pack(["p2pgenius-letter", 1, author, messages, signature])
        signed = pack(
            [
                "p2pgenius-letter",
                1,
                bytes.fromhex(vector["address"]),
                bytes.fromhex(event["pubkey"]),
                author,
                messages,
            ]
        )
        assert signed.hex() == letter["signed"]
        Ed25519PublicKey.from_public_bytes(author).verify(signature, signed)  # (raises if it does not)
        # The 96 random bytes: the letter's key, then the NIP-44 nonce, then BIP-340's aux bytes.
        assert base64.b64decode(event["content"])[1:33] == randomness[32:64]
        schnorr = coincurve.PrivateKey(sender).sign_schnorr(bytes.fromhex(event["id"]), randomness[64:])
        assert schnorr.hex() == event["sig"]
        # What each message is (section 4f), read with msgpack alone.
        assert [letter_item(m) for m in messages] == letter["items"]
    assert ["hello", "ready"] in [letter["items"] for letter in vector["letters"]]
    for letter in vector["letters"]:
        assert refusing_step(vector["address"], address_key, letter["event"]) is None
    for case in vector["refused"]:
        assert refusing_step(vector["address"], address_key, case["event"]) == case["step"], case["why"]


def letter_item(message: bytes) -> str:
    """Section 4f: a signed match message ("p2pg/3" first), a joiner's ``["hello", {"name": str,
    "token": bin}]``, a ``["ready", map]`` or the host's ``["lobby", map]``; else ignored."""
    try:
        value = msgpack.unpackb(message, raw=False, strict_map_key=False)
    except (ValueError, msgpack.exceptions.ExtraData):
        return "ignored"
    if not (isinstance(value, list) and value):
        return "ignored"
    if value[0] == "p2pg/3" and len(value) == 7:
        return "match"
    said = value[1] if len(value) >= 2 else None
    if value[0] == "hello" and len(value) == 2 and isinstance(said, dict):
        name, token = said.get("name"), said.get("token")
        return "hello" if isinstance(name, str) and isinstance(token, bytes) else "ignored"
    if value[0] in ("ready", "lobby") and isinstance(said, dict):
        return str(value[0])
    return "ignored"


def refusing_step(address: str, address_key: bytes, event: dict[str, Any]) -> str | None:
    """The step of section 4e's reading that refuses ``event`` (a well-signed NIP-01 event), by
    the section's words alone (None: a letter)."""
    if event["kind"] != 1059:
        return "kind"
    if event["tags"] != [["p", address]]:
        return "p tag"
    shared_x = coincurve.PublicKey(b"\x02" + bytes.fromhex(event["pubkey"])).multiply(address_key)
    try:
        plaintext = nostr.decrypt(
            event["content"], hmac.new(b"nip44-v2", shared_x.format()[1:], hashlib.sha256).digest()
        )
    except nostr.NostrError:
        return "seal"
    try:
        raw = base64.b64decode(plaintext, validate=True)
        value = msgpack.unpackb(raw, raw=False)
    except Exception:  # (not base64, or not msgpack)
        return "base64"
    if base64.b64encode(raw).decode() != plaintext or pack(value) != raw:
        return "base64"
    if not (isinstance(value, list) and len(value) == 5):
        return "shape"
    tag, version, author, messages, signature = value
    shaped = tag == "p2pgenius-letter" and type(version) is int and version == 1
    shaped = shaped and isinstance(author, bytes) and len(author) == 32 and isinstance(signature, bytes)
    if not (
        shaped and isinstance(messages, list) and messages and all(type(m) is bytes and m for m in messages)
    ):
        return "shape"
    signed = pack(
        ["p2pgenius-letter", 1, bytes.fromhex(address), bytes.fromhex(event["pubkey"]), author, messages]
    )
    try:
        Ed25519PublicKey.from_public_bytes(author).verify(signature, signed)
    except Exception:  # (cryptography's InvalidSignature)
        return "signature"
    return None


CHECKED: dict[str, Callable[..., None]] = {
    "canonical.json": test_canonical_values_decode_and_encode_to_exactly_their_bytes,
    "noise-xx-25519-cacophony.json": test_the_cacophony_noise_vectors_replay,
    "nip44.vectors.json": nip44_vectors.test_the_vectors_are_the_file_the_nip_publishes,  # (and tests/nostr)
    "handshake.json": test_the_p2pgenius_handshake_replays_record_by_record,
    "commitments.json": test_commitments_recompute_from_their_openings,
    "envelopes.json": test_envelopes_parse_verify_and_chain,
    "invite.json": test_invites_read_and_write_as_section_4c_says,
    "stages.json": test_each_stage_vector_reproduces_its_messages_and_its_hash,
    "blindness.json": test_each_blindness_claim_is_the_map_sent_and_the_withheld_messages_come_after,
    "forgeries.json": test_only_every_peers_end_makes_a_result_and_no_forgery_has_one,
    "copies.json": test_copies_of_one_match_merge_into_the_union_the_vector_gives,
    "bundle.json": test_a_bundle_reads_as_section_7a_says_and_proves_its_record,
    "bundle.bin": test_a_bundle_reads_as_section_7a_says_and_proves_its_record,
    "tables.json": test_one_ready_in_two_sets_of_terms_is_one_match_and_its_hosts_cheat,
    "game-steps.json": test_each_game_step_hashes_validates_and_keeps_the_documented_order_and_phases,
    "mailbox.json": test_mailbox_letters_read_as_section_4e_says,
}


def test_every_vector_file_has_a_conformance_check() -> None:
    present = {path.name for path in VECTORS.iterdir() if path.is_file()} - {"generate.py", "forge.py"}
    unchecked = present - set(CHECKED) - set(TRANSCRIPTS)
    assert not unchecked, f"vector files with no conformance check: {sorted(unchecked)}"
    assert set(CHECKED) <= present, f"missing vector files: {sorted(set(CHECKED) - present)}"
    assert TRANSCRIPTS
    assert present >= NOT_GENERATED
