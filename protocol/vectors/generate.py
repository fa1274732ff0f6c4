"""Regenerate the p2pgenius protocol test vectors in this folder.

    .venv/bin/python protocol/vectors/generate.py

Every input is fixed (keys from fixed seeds; nonces and coin shares from a counter hashed with
SHA-256, see ``p2pgenius.inmemory.randomness``), so the output is byte-for-byte reproducible; the
test suite regenerates everything and compares it with the files, and separately re-checks the
files with independent code (hashlib, msgpack, cryptography and the noiseprotocol package).

Every game in the games' table gets a transcript vector, and the stages of it that stages.json
shows follow from its spec's traits (:func:`shown_stages`): a new game needs no edit here. What
stays here by name is data a trait cannot give: how to keep a match short (:data:`SHORT`), the
bots that made the Magic Square's (:data:`PLAYERS`), and the duel scripted to blind a wizard.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError
from p2pgenius.games.base import state_hash
from p2pgenius.games.magic_square.bots import ExactPlacementBot, HeuristicSquareBot
from p2pgenius.games.registry import get_game, get_spec, names
from p2pgenius.games.spec import GameSpec
from p2pgenius.inmemory import MemoryTable, play, randomness, transcript
from p2pgenius.net import transit
from p2pgenius.net.invite import CHECK_LABEL, PREFIX, Invite, InviteError, MailInvite, parse
from p2pgenius.protocol import channel_messages, nostr
from p2pgenius.protocol import mailbox as mail
from p2pgenius.protocol.channel import PROLOGUE, PROTOCOL_VERSION, SecureChannel
from p2pgenius.protocol.events import Applied
from p2pgenius.protocol.identity import Identity, agreement_public, fingerprint
from p2pgenius.protocol.messages import SIGN_DOMAIN, TAG, commitment, seal
from p2pgenius.protocol.noise import KeyPair
from p2pgenius.protocol.observer import observer_of
from p2pgenius.protocol.observer import replay as replay_transcript
from p2pgenius.protocol.records import MsgRecord, RejectedRecord
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.session.setup import agreement, make_ready
from p2pgenius.protocol.transcript import frame, header, judge, read, verify
from p2pgenius.protocol.union import union
from p2pgenius.record import bundle
from p2pgenius.record.matches import once

HERE = Path(__file__).parent


def as_json(value: Any) -> Any:
    """Plain data as the JSON vectors write it: a byte string becomes ``{"bin": "<hex>"}`` (no
    map in the protocol has a "bin" key, so this cannot be mistaken for data)."""
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    if isinstance(value, list | tuple):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    return value


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
    # One channel message each way (SPEC section 4a): the initiator pings, the responder answers.
    messages = {"initiator": ["ping", 1], "responder": ["pong", 1]}
    init.send(encode(messages["initiator"]))
    resp.send(encode(messages["responder"]))
    return {
        "prologue": PROLOGUE.decode(),
        "description": f"p2pgenius channel, version {PROTOCOL_VERSION}: "
        f"Noise_XX_25519_ChaChaPoly_SHA256 with prologue '{PROLOGUE.decode()}'; identity and "
        "ephemeral keys are raw 32-byte seeds (hex); each static key is the first half of SHA-512 "
        "of its identity seed, its public half the identity key's Montgomery u; records are the "
        "exact bytes on the wire (4-byte length prefix included); each transport record carries "
        "one canonical channel message (message: its plain form, plaintext: its canonical bytes)",
        "keys": keys,
        "hellos": hellos,
        "records": [r.hex() for r in records],
        "handshake_hash": init.handshake.handshake_hash.hex(),
        "transport": {
            "initiator": {
                "message": messages["initiator"],
                "plaintext": encode(messages["initiator"]).hex(),
                "record": init.data_to_send().hex(),
            },
            "responder": {
                "message": messages["responder"],
                "plaintext": encode(messages["responder"]).hex(),
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
    """Signed, chained envelopes from peer 1 of a match of two: each names its own previous
    message and the newest of peer 0's it held (none at first, then one, then a later one)."""
    author_seed = seed("envelope author")
    ident = Identity.from_seed(author_seed)
    match_id = seed("match id")
    bodies: list[tuple[list[Any], bytes]] = [
        (["chat", "good luck"], bytes(32)),
        (["hash", 4, seed("state")], seed("peer 0's message 3")),
        (["commit", 5, 1, seed("commit"), 1500], seed("peer 0's message 7")),
    ]
    out, prev = [], b"\x00" * 32
    for seq, (body, other) in enumerate(bodies):
        heads = [other, prev]
        raw = seal(ident, match_id, 1, seq, heads, body)
        signed = SIGN_DOMAIN + encode([TAG, match_id, 1, seq, heads, body])
        out.append(
            {
                "author_seed": author_seed.hex(),
                "public_key": ident.public.hex(),
                "match_id": match_id.hex(),
                "author": 1,
                "peers": 2,
                "seq": seq,
                "heads": [head.hex() for head in heads],
                "body": as_json(body),
                "body_bytes": encode(body).hex(),
                "signed": signed.hex(),
                "signature": decode(raw)[6].hex(),
                "envelope": raw.hex(),
                "hash": hashlib.sha256(raw).hexdigest(),
            }
        )
        prev = hashlib.sha256(raw).digest()
    return out


def canonical() -> dict[str, Any]:
    """Values with their one canonical encoding, and encodings a receiver must refuse."""
    values: list[tuple[str, Any]] = [
        (
            "keys sort by their UTF-8 bytes: 'aa' before 'b' (not shorter encoded keys first)",
            {"b": 1, "aa": 2},
        ),
        ("U+FF61 (ef bd a1) before U+1F600 (f0 9f 98 80): UTF-8, not UTF-16, order", {"😀": 1, "｡": 2}),
        (
            "the terms' keys in canonical order",
            {
                "game": "duel",
                "salt": b"",
                "names": [],
                "peers": [],
                "setup": {},
                "claims": [],
                "engine": "",
                "groups": [],
                "options": {},
            },
        ),
        ("a prefix sorts first", {"ab": 0, "a": 1, "": 2}),
        ("positive fixint", 127),
        ("uint 8", 128),
        ("uint 8, largest", 255),
        ("uint 16", 256),
        ("uint 32", 65536),
        ("uint 64", 2**32),
        ("uint 64, largest", 2**64 - 1),
        ("negative fixint", -32),
        ("int 8", -33),
        ("int 16", -129),
        ("int 64, smallest", -(2**63)),
        ("nil, false, true", [None, False, True]),
        ("fixstr of 31 bytes", "x" * 31),
        ("str 8 from 32 bytes", "x" * 32),
        ("text is str, UTF-8", "José ♞"),
        ("empty bin", b""),
        ("bin 8 of 32 bytes", bytes(range(32))),
        ("fixarray of 15", list(range(15))),
        ("array 16 from 16 elements", list(range(16))),
        ("fixmap of 15", {f"k{i:02}": i for i in range(15)}),
        ("map 16 from 16 pairs", {f"k{i:02}": i for i in range(16)}),
    ]
    refused: list[tuple[str, bytes]] = [
        ("map keys in the order of their encoded bytes ('b' before 'aa')", bytes.fromhex("82a16201a2616102")),
        ("map keys out of order ('b' before 'a')", bytes.fromhex("82a16201a16102")),
        ("a duplicate key", bytes.fromhex("82a16101a16102")),
        ("an integer not in its shortest form (uint 8 for 5)", bytes.fromhex("cc05")),
        ("a negative integer not in its shortest form (int 8 for -1)", bytes.fromhex("d0ff")),
        ("a positive integer in a signed type (int 8 for 5)", bytes.fromhex("d005")),
        ("a string not in its shortest form (str 8 for 1 byte)", bytes.fromhex("d90161")),
        ("a byte string not in its shortest form (bin 16 for 1 byte)", bytes.fromhex("c5000161")),
        ("an array not in its shortest form (array 16 of 1)", bytes.fromhex("dc000101")),
        ("a float 64", bytes.fromhex("cb3ff0000000000000")),
        ("a float 32", bytes.fromhex("ca3f800000")),
        ("an extension type", bytes.fromhex("d40100")),
        ("an integer map key", bytes.fromhex("810102")),
        ("a byte-string map key", bytes.fromhex("81c4016101")),
        ("a str that is not UTF-8", bytes.fromhex("a1ff")),
        ("a trailing byte", bytes.fromhex("c0c0")),
        ("cut short", bytes.fromhex("92a161")),
        ("an int 64 for -129, which fits an int 16", bytes.fromhex("d3ffffffffffffff7f")),
        ("a uint 16 for 200, which fits a uint 8", bytes.fromhex("cd00c8")),
    ]
    cases = []
    for note, value in values:
        data = encode(value)
        assert decode(data) == value, note
        cases.append({"note": note, "value": as_json(value), "bytes": data.hex()})
    refusals = []
    for note, data in refused:
        try:
            decode(data)
        except EncodingError:
            refusals.append({"note": note, "bytes": data.hex()})
            continue
        raise AssertionError(f"the decoder accepts {note}")
    return {
        "description": "canonical msgpack (SPEC section 3): each value's one encoding (values in "
        'JSON, byte strings as {"bin": hex}), and byte strings a decoder must refuse',
        "values": cases,
        "refused": refusals,
    }


INVITES: list[tuple[str, int, tuple[str, ...], str, tuple[tuple[str, int], ...]]] = [
    (
        "version 2: a seat token, and one address of each kind",
        7780,
        ("192.0.2.10", "2001:db8::10", "host.example.org"),
        "invite token",
        (),
    ),
    ("version 1: no seat token (still read)", 7780, ("198.51.100.7",), "", ()),
    (
        "version 2: the largest port; loopback addresses; a name ending in a dot",
        65535,
        ("::1", "127.0.0.1", "localhost."),
        "invite token",
        (),
    ),
    (
        "version 3: a relay by its host name, on the transit relay's customary port",
        7780,
        ("192.0.2.10",),
        "invite token",
        (("relay.example.org", 4001),),
    ),
    (
        "version 3: another seat token; an IPv4 and an IPv6 relay, on other ports",
        7781,
        ("2001:db8::10", "192.0.2.10"),
        "another invite token",
        (("198.51.100.7", 14001), ("2001:db8::7", 65535)),
    ),
]
"""Each invite's note, port, addresses, the seed label of its seat token ("": none, version 1)
and its relays (none: version 1 or 2)."""
RELAY_SIDE = seed("relay side")[:8].hex()
"""The side the relay token vectors' request lines name (16 hex digits)."""


LONG_URL = "wss://relays.example.org:65535/" + "/".join(
    ["p2pgenius", "mail~box", "%2Fslash", "a!$&'()*+,;=:@b", "x" * 125]
)
"""A relay URL of exactly the most bytes (200), with every kind of character a path may have."""
MAIL_INVITES: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "version 4, a player's: one relay; its mailbox is mailbox.json's",
        "invite token",
        ("wss://relay.example.org",),
    ),
    ("version 4, the spectators' invite of the same match: seats nobody (no token)", "", ()),
    (
        "version 4, a player's: several relays, in the order to try them: by name with a port and a "
        "path, by IPv4 address, by IPv6 address in brackets (with a port and the path '/')",
        "another invite token",
        ("wss://nostr.example.net:4430/p2pgenius/mail", "ws://192.0.2.10:7777", "ws://[2001:db8::7]:8080/"),
    ),
    (
        "version 4, a spectators' invite with the most relays (8), one of the longest URL (200 bytes)",
        "",
        (LONG_URL, *(f"wss://relay{n}.example.org" for n in range(1, 7)), "ws://localhost:7777/"),
    ),
]
"""Each correspondence invite's note, the seed label of its seat token ("": a watch-only invite)
and its relays (none: the previous invite's, for the spectators' invite of the same match)."""


def _mail_invite(note: str, invite: MailInvite) -> dict[str, Any]:
    """One correspondence invite's vector: its fields (each relay with its bytes), body, check and text."""
    text = invite.text()
    written = text[len(PREFIX) :]
    raw = base64.b32decode(written.upper() + "=" * (-len(written) % 8))
    body = raw[:-4]
    assert raw[-4:] == _check(body) and parse(text) == invite, note
    at = 2 + 32 + len(invite.token) + 32
    assert body[:at] == bytes([4, 1 if invite.token else 0]) + invite.key + invite.token + invite.mailbox
    assert body[at] == len(invite.relays), note
    at += 1
    relays = []
    for url in invite.relays:
        relays.append({"url": url, "bytes": body[at : at + 1 + body[at]].hex()})
        assert body[at + 1 : at + 1 + body[at]] == url.encode("ascii"), note
        at += 1 + body[at]
    assert at == len(body), note
    return {
        "note": note,
        "version": body[0],
        "seats": body[1],
        "key": invite.key.hex(),
        "token": invite.token.hex(),
        "mailbox": invite.mailbox.hex(),
        "count": len(invite.relays),
        "relays": relays,
        "body": body.hex(),
        "check": raw[-4:].hex(),
        "text": text,
        "fingerprint": fingerprint(invite.key),
    }


def mail_invites(key: bytes) -> list[dict[str, Any]]:
    """The correspondence invites (version 4) of the host ``key``: one match's player and
    spectator invites, and two more (several relays; the most relays, the longest URL)."""
    made: list[dict[str, Any]] = []
    relays: tuple[str, ...] = ()
    for note, token_label, listed in MAIL_INVITES:
        token = seed(token_label)[:16] if token_label else b""
        relays = listed or relays
        mailbox = seed("mailbox") if len(made) < 2 else seed(f"mailbox {len(made)}")
        made.append(_mail_invite(note, MailInvite(key, token, mailbox, relays)))
    assert len(LONG_URL) == 200
    return made


def _unreadable_mail(players: bytes) -> list[tuple[str, bytes, str]]:
    """Version-4 bodies whose check holds but whose fields do not read (made from ``players``, the
    first correspondence invite's body), each with its note and the step that refuses it."""
    head = players[: 2 + 32 + 16 + 32]  # version, seats, key, token, mailbox (and no relay count)
    watch = bytes([4, 0]) + head[2:34] + head[50:] + players[len(head) :]  # the same, seating nobody

    def one(url: bytes, at: bytes = head) -> bytes:
        return at + bytes([1, len(url)]) + url

    good = b"wss://relay.example.org"
    urls = [
        ("a relay of another scheme (https)", b"https://relay.example.org"),
        ("a relay whose scheme is in upper case", b"WSS://relay.example.org"),
        ("a relay whose host is in upper case", b"wss://Relay.example.org"),
        ("a relay URL of 201 bytes (at most 200)", LONG_URL.encode("ascii") + b"x"),
        ("a relay URL with a user name and password", b"wss://user:pw@relay.example.org"),
        ("a relay URL with a query", b"wss://relay.example.org/?key=x"),
        ("a relay URL with a fragment", b"wss://relay.example.org#x"),
        ("a relay URL with port 0", b"wss://relay.example.org:0"),
        ("a relay URL with port 65536", b"wss://relay.example.org:65536"),
        ("a relay URL with a port with a leading 0", b"wss://relay.example.org:0443"),
        ("a relay URL with an empty port", b"wss://relay.example.org:"),
        ("a relay URL without a host", b"wss:///relay"),
        ("a relay URL whose host name has a label starting with '-'", b"wss://-relay.example.org"),
        ("a relay URL with an IPv6 address not in brackets", b"ws://2001:db8::7"),
        ("a relay URL with an IPv6 address in upper case", b"ws://[2001:DB8::7]"),
        ("a relay URL with an IPv6 zone", b"ws://[fe80::1%25eth0]"),
        ("a relay URL with a space in its path", b"wss://relay.example.org/a b"),
        ("a relay URL with a broken escape in its path ('%zz')", b"wss://relay.example.org/%zz"),
        ("a relay URL that is not ASCII", "wss://relé.example.org".encode()),
        ("a relay URL ending in a line feed", good + b"\n"),
    ]
    return [
        ("version 4 cut short after its version byte", bytes([4]), "malformed"),
        ("a seats byte of 2 (only 0 and 1)", bytes([4, 2]) + players[2:], "malformed"),
        (
            "a players' invite without its token (seats 1, the token left out)",
            bytes([4, 1]) + watch[2:],
            "malformed",
        ),
        (
            "a watch-only invite that carries a token anyway (seats 0)",
            bytes([4, 0]) + players[2:],
            "malformed",
        ),
        ("cut short inside its mailbox secret", head[:70], "malformed"),
        ("no relay section (the body ends after the mailbox)", head, "malformed"),
        ("no relay (relay count 0)", head + bytes([0]), "malformed"),
        (
            "9 relays (at most 8)",
            head + bytes([9]) + b"".join(bytes([len(good) + 1]) + good + bytes([48 + n]) for n in range(9)),
            "malformed",
        ),
        ("a relay count but no relay", head + bytes([1]), "malformed"),
        ("a relay of length 0", head + bytes([1, 0]), "malformed"),
        ("a relay URL longer than the bytes left", head + bytes([1, len(good) + 1]) + good, "malformed"),
        ("a byte after the last relay", one(good) + bytes([0]), "malformed"),
        ("the same relay twice", head + bytes([2]) + (bytes([len(good)]) + good) * 2, "malformed"),
        *[(note, one(url), "malformed") for note, url in urls],
    ]


def _b32(raw: bytes) -> str:
    return base64.b32encode(raw).decode("ascii").rstrip("=").lower()


def _check(body: bytes) -> bytes:
    return hashlib.sha256(CHECK_LABEL + body).digest()[:4]


def _listed(body: bytes, at: int, address: str) -> tuple[dict[str, Any], int]:
    """The address written at ``body[at:]`` as the vector lists it, and where the next field starts."""
    kind = body[at]
    end = at + 1 + {4: 4, 6: 16}.get(kind, body[at + 1] + 1 if kind == ord("N") else 0)
    kinds = {4: "ipv4", 6: "ipv6", ord("N"): "name"}
    return {"kind": kinds[kind], "address": address, "bytes": body[at:end].hex()}, end


def _invite(note: str, invite: Invite) -> dict[str, Any]:
    """One invite's vector: its fields (each address and relay with its bytes), body, check and text."""
    key, token, relays = invite.key, invite.token, invite.relays
    text = invite.text()
    written = text[len(PREFIX) :]
    raw = base64.b32decode(written.upper() + "=" * (-len(written) % 8))
    body = raw[:-4]
    assert raw[-4:] == _check(body) and parse(text) == invite, note
    assert body[0] == (3 if relays else 2 if token else 1), note
    listed, at = [], 4 + 32 + len(token)
    for address in invite.addresses:
        entry, at = _listed(body, at, address)
        listed.append(entry)
    waits: list[dict[str, Any]] = []
    if relays:
        assert body[at] == len(relays), note
        at += 1
    for address, relay_port in relays:
        entry, at = _listed(body, at, address)
        assert int.from_bytes(body[at : at + 2], "big") == relay_port, note
        waits.append({**entry, "port": relay_port, "bytes": entry["bytes"] + body[at : at + 2].hex()})
        at += 2
    assert at == len(body), note
    return {
        "note": note,
        "version": body[0],
        "port": invite.port,
        "key": key.hex(),
        "token": token.hex(),
        "count": len(invite.addresses),
        "addresses": listed,
        "relays": waits,
        "body": body.hex(),
        "check": raw[-4:].hex(),
        "text": text,
        "fingerprint": fingerprint(key),
    }


def _unreadable(v2: bytes) -> list[tuple[str, bytes, str]]:
    """Bodies whose check holds but which this version cannot read (made from ``v2``, the first
    invite's body), each with its note and the step that refuses it."""
    head = v2[: 1 + 2 + 32 + 16]  # version, port, key, token (and no count)
    one = bytes([4]) + bytes([192, 0, 2, 10])
    name = "host.example.org".encode("ascii")
    v3 = bytes([3]) + head[1:] + bytes([1]) + one  # version 3 up to its relay section
    relay = one + (4001).to_bytes(2, "big")
    return [
        ("version 5 (a newer p2pgenius)", bytes([5]) + v2[1:], "version"),
        ("version 0", bytes([0]) + v2[1:], "version"),
        ("no address (count 0)", head + bytes([0]), "malformed"),
        ("17 addresses (at most 16)", head + bytes([17]) + one * 17, "malformed"),
        ("port 0", head[:1] + bytes(2) + head[3:] + bytes([1]) + one, "malformed"),
        ("an unknown address kind (5)", head + bytes([1, 5, 192, 0, 2, 10]), "malformed"),
        ("an IPv6 address cut short (15 bytes)", head + bytes([1, 6]) + bytes(15), "malformed"),
        (
            "a host name longer than the bytes left",
            head + bytes([1, ord("N"), len(name) + 1]) + name,
            "malformed",
        ),
        ("a host name in upper case", head + bytes([1, ord("N"), len(name)]) + name.upper(), "malformed"),
        ("a host name with '_'", head + bytes([1, ord("N"), 5]) + b"a_b.c", "malformed"),
        (
            "a host name with a label starting with '-'",
            head + bytes([1, ord("N"), 5]) + b"-a.bc",
            "malformed",
        ),
        ("an empty host name", head + bytes([1, ord("N"), 0]), "malformed"),
        ("a byte after the last address", head + bytes([1]) + one + bytes([0]), "malformed"),
        ("a count but no address", head + bytes([1]), "malformed"),
        ("version 2 cut short inside its token", head[:40], "malformed"),
        (
            "version 1 whose body holds a token (read as a count and addresses)",
            bytes([1]) + v2[1:],
            "malformed",
        ),
        (
            "version 2 followed by a relay section (bytes after the last address)",
            head + bytes([1]) + one + bytes([1]) + relay,
            "malformed",
        ),
        ("version 3 with no relay section (the body ends after the addresses)", v3, "malformed"),
        ("version 3 with no relay (relay count 0)", v3 + bytes([0]), "malformed"),
        ("version 3 with 5 relays (at most 4)", v3 + bytes([5]) + relay * 5, "malformed"),
        ("a relay's port 0", v3 + bytes([1]) + one + bytes(2), "malformed"),
        ("a relay cut short (its address without its port)", v3 + bytes([1]) + one, "malformed"),
        ("a relay's port cut short (1 byte)", v3 + bytes([1]) + one + bytes([15]), "malformed"),
        ("a relay count but no relay", v3 + bytes([1]), "malformed"),
        ("a relay of an unknown address kind (5)", v3 + bytes([1, 5]) + relay[1:], "malformed"),
        ("a byte after the last relay", v3 + bytes([1]) + relay + bytes([0]), "malformed"),
    ]


def invites() -> dict[str, Any]:
    """Invites made from fixed inputs, other spellings of one that read the same, damaged or
    malformed ones a reader must refuse (SPEC section 4c), and the relay tokens of those with
    relays (SPEC section 4d)."""
    host = Identity.from_seed(seed("invite host"))
    made: list[dict[str, Any]] = []
    relay_tokens: list[dict[str, Any]] = []
    for note, port, addresses, token_label, relays in INVITES:
        token = seed(token_label)[:16] if token_label else b""
        if relays:
            relay_token = transit.relay_token(host.public, token)
            assert relay_token == hashlib.sha256(transit.TOKEN_LABEL + host.public + token).hexdigest()
            request = transit.request(relay_token, RELAY_SIDE).decode("ascii")
            relay_tokens.append(
                {"invite": len(made), "token": relay_token, "side": RELAY_SIDE, "request": request}
            )
        made.append(_invite(note, Invite(host.public, port, addresses, token, relays)))
    first, code = made[0]["text"], made[0]["text"][len(PREFIX) :]
    spellings = [
        ("upper case", first.upper()),
        ("mixed case, as a chat program may change it", PREFIX.upper() + code),
        ("in angle brackets, as mail writes links", f"<{first}>"),
        ("in quotes, with spaces around", f'  "{first}"\n'),
        ("with a trailing slash", first + "/"),
        (
            "a space inside, as a shell splits words",
            PREFIX + code[: len(code) // 2] + " " + code[len(code) // 2 :],
        ),
        (
            "wrapped by a terminal: a line break and the next line indented",
            first[:40] + "\n   " + first[40:],
        ),
        (
            "a no-break space (U+00A0) and a tab inside",
            first[:30] + "\u00a0" + first[30:50] + "\t" + first[50:],
        ),
    ]
    for note, text in spellings:
        assert parse(text) == parse(first), note
    # Refused: damaged in transit (the check, or the base32 itself, fails) ...
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    assert (len(bytes.fromhex(made[0]["body"])) + 4) % 5, "its last character has unused bits"
    spare = alphabet[alphabet.index(code[-1]) | 1]  # (the lowest bit is never used)
    assert spare != code[-1]
    middle = len(code) // 2
    changed = code[:middle] + ("b" if code[middle] != "b" else "c") + code[middle + 1 :]
    damaged = [
        ("not an invite: another scheme", "https://" + code, "not an invite"),
        ("not an invite: no scheme", code, "not an invite"),
        ("a character no invite has ('1')", PREFIX + code[:middle] + "1" + code[middle + 1 :], "character"),
        (
            "base32 padding ('=') is not written, and not read",
            first + "=" * (-len(code) % 8 or 8),
            "character",
        ),
        (
            "a zero-width space (U+200B) inside: not white space",
            PREFIX + code[:middle] + "\u200b" + code[middle:],
            "character",
        ),
        ("one character changed", PREFIX + changed, "damaged"),
        ("one character lost", PREFIX + code[:middle] + code[middle + 1 :], "damaged"),
        ("one character added", PREFIX + code[:middle] + "a" + code[middle:], "damaged"),
        ("the last character lost", first[:-1], "damaged"),
        (
            "the same bytes with an unused low bit of the last character set (not canonical base32)",
            PREFIX + code[:-1] + spare,
            "damaged",
        ),
        ("nothing after the scheme", PREFIX, "damaged"),
        ("only 4 bytes (a check and no body)", PREFIX + _b32(_check(b"")), "damaged"),
    ]
    # ... and bodies whose check holds but which this version cannot read.
    bodies = _unreadable(bytes.fromhex(made[0]["body"]))
    mail = mail_invites(host.public)
    bodies += _unreadable_mail(bytes.fromhex(mail[0]["body"]))
    refused = [{"note": note, "why": why, "text": text} for note, text, why in damaged]
    refused += [
        {"note": note, "why": why, "body": body.hex(), "text": PREFIX + _b32(body + _check(body))}
        for note, body, why in bodies
    ]
    said = {  # what the reference reader says at each step
        "not an invite": "not an invite",
        "character": "which no invite has",
        "damaged": "the invite is damaged",
        "version": "for another version of p2pgenius",
        "malformed": "the invite is malformed",
    }
    for case in refused:
        try:
            parse(case["text"])
        except InviteError as exc:
            message = str(exc)
        else:
            raise AssertionError(f"an invite that should be refused is read: {case['note']}")
        assert said[case["why"]] in message, (case["note"], message)
    return {
        "description": "invites (SPEC section 4c): 'p2pgenius://' and the lower-case base32 (RFC 4648, "
        "no padding) of body || check, where check is the first 4 bytes of SHA-256('p2pgenius invite' "
        "|| body); 'invites' gives each invite's fields (each address, and each relay with its port, "
        "as its kind, its text and its bytes), its body and check in hex, its text and the host key's "
        "fingerprint; 'spellings' read as the invite they name; 'refused' must each be refused, 'why' "
        "saying at which step: 'not an invite' (the scheme), 'character' (one outside a-z and 2-7), "
        "'damaged' (bad base32, not canonical, too short, or the check fails), 'version' (a version "
        "this reader does not read), 'malformed' (the check holds, the fields do not); those whose "
        "check holds give their body; 'relay_tokens' (SPEC section 4d) gives, for each invite with "
        "relays, its relay token (the lower-case hex of SHA-256('p2pgenius relay token' || key || "
        "token)) and the line that asks a relay to pair a connection of the given side; "
        "'mail_invites' gives correspondence invites (version 4): each one's fields (seats: 1, a "
        "player's, with its token; 0, a spectator's, without), each relay URL with its bytes (a "
        "length byte and the URL), body, check, text and the host key's fingerprint; the refused "
        "bodies of version 4 follow those of versions 1 to 3",
        "check_label": CHECK_LABEL.decode("ascii"),
        "prefix": PREFIX,
        "invites": made,
        "spellings": [{"note": note, "text": text, "invite": 0} for note, text in spellings],
        "refused": refused,
        "relay_token_label": transit.TOKEN_LABEL.decode("ascii"),
        "relay_tokens": relay_tokens,
        "mail_invites": mail,
    }


SHORT: dict[str, dict[str, Any]] = {
    "duel": {"setup": {"hp": [3, 3]}},
    "magic-square": {},
    "hornswoggle": {"setup": {"hands": [[1, 1], [1, 1], [1, 1], [1, 1]]}},
}
"""How to keep each game's vector match short (a game without an entry plays from its defaults).
The Magic Square's bots are named (:data:`PLAYERS`), not taken by level, so that a stronger bot
(a level's play changing) does not change the vectors: these two played it when they were made."""
PLAYERS: dict[str, Callable[[], list[Any]]] = {
    "magic-square": lambda: [ExactPlacementBot(seed=110), HeuristicSquareBot(seed=111)],
}
"""The bots of a game's vector match, made afresh for each (a bot keeps what it saw)."""
STAGE_KINDS = ("act", "commit", "final", "reveal", "decline", "hash", "blind")


class Script:
    """A bot that plays a fixed list of duel gestures ("LR": left and right) or whole actions,
    then nothing."""

    level = "script"

    def __init__(self, moves: list[str] | list[str | dict[str, Any]]) -> None:
        self.moves = list(moves)

    def choose(self, state: Any, seat: int) -> Any:
        """The next move of the script."""
        move = self.moves.pop(0) if self.moves else "--"
        return move if isinstance(move, dict) else {"type": "gestures", "left": move[0], "right": move[1]}


# p0 blinds p1 on turn 5 (p1 is blind on turns 6 to 8, stages 5 to 7), then stabs it to death.
BLIND_SETUP: dict[str, Any] = {"hp": [15, 2]}
BLIND_SCRIPT: list[list[str]] = [
    ["D-", "W-", "S-", "W-", "CC", "-W", "-S", "--", ">-", ">-"],
    ["--"] * 10,
]


# p0 paralyses both wizards on turn 3 (its left hand at p1, its right at itself) and owes two
# choices of hand, made in stages 3 and 4 (p1's, then its own); then it stabs p1 to death.
PARALYSIS_SETUP: dict[str, Any] = {"hp": [15, 1]}
PARALYSIS_SCRIPT: list[list[str | dict[str, Any]]] = [
    [
        "WW",
        "WW",
        {"type": "gestures", "left": "W", "right": "W", "targets": {"right": "p0"}},
        {"type": "paralyze", "target": "p1", "hand": "left"},
        {"type": "paralyze", "target": "p0", "hand": "right"},
        ">-",
    ],
    ["--"] * 4,
]
PARALYSIS_STAGES: tuple[tuple[int, str], ...] = (
    (
        3,
        "a duel caster's first of two Paralysis choices of hand (p0 paralysed both wizards): one "
        "commitment, made final, one reveal, two hashes; the state changes: that entry of "
        "paralysis_choices gets its hand",
    ),
    (4, "the same caster's second choice: both hands are held and paralysis_choices is empty"),
)
"""The stages of transcript-duel-paralysis.p2pt that stages.json shows."""


def matches() -> dict[str, tuple[MemoryTable, int]]:
    """The matches behind the transcript vectors: each table and the peer whose transcript it is."""
    out = {}
    for game in names():  # every game in the table
        players: dict[str, Any] = {"bots": PLAYERS[game]()} if game in PLAYERS else {}
        out[game] = (play(game, seed=11, deterministic=True, **SHORT.get(game, {}), **players), 0)
    blind = _scripted_duel(BLIND_SETUP, BLIND_SCRIPT)
    out["duel-blind"] = (blind, blind.sessions[0].owner[1])  # the blinded wizard's peer
    out["duel-paralysis"] = (_scripted_duel(PARALYSIS_SETUP, PARALYSIS_SCRIPT), 0)
    return out


def _scripted_duel(setup: dict[str, Any], script: Any) -> MemoryTable:
    """A duel from ``setup`` whose two wizards play ``script``'s two move lists."""
    return play("duel", seed=11, deterministic=True, setup=setup, bots=[Script(script[0]), Script(script[1])])


def transcripts(tables: dict[str, tuple[MemoryTable, int]]) -> dict[str, bytes]:
    """A short, complete match of each game as peer 0's transcript, and a duel with a blinded
    wizard as its peer's."""
    return {f"transcript-{name}.p2pt": transcript(table, peer) for name, (table, peer) in tables.items()}


Message = tuple[bytes, int | None, int]
"""A message of a transcript: its bytes, the stage being played when it came, its record's index."""


@functools.cache
def replay(data: bytes) -> tuple[dict[str, Any], list[Message], dict[int, Any]]:
    """A transcript read by an observer: the terms, every message with the stage that was being
    played when it came, and per stage (public state before, actions applied, public after)."""
    file = read(data)
    observer = observer_of(file.header)
    messages: list[Message] = []
    applied: list[Applied] = []
    for step in replay_transcript(file, observer):
        messages.append((step.record.raw, step.stage, step.index))
        applied += [e for e in step.events if isinstance(e, Applied)]
    assert observer.terms is not None and observer.finished, "the match must end cleanly"
    terms = observer.terms
    spec = get_spec(terms["game"])
    game = spec.engine
    state = spec.perspective(game.initial(terms["setup"], terms["options"]), ())
    stages = {}
    for event in applied:
        before = game.public(state)
        for seat, action in event.actions:
            state = game.apply(state, seat, game.parse_action(action))
        stages[event.stage] = (before, event.actions, game.public(state), state_hash(game, state))
    return terms, messages, stages


def stage_messages(messages: list[Message], number: int, sealed: bool) -> list[dict[str, Any]]:
    """The messages of stage ``number``: those naming it, except that in a game that is not
    ``sealed`` a reveal opens a flipped card, laid at an earlier stage, and belongs to the stage
    it came in. ``record``: the message's place in the transcript (the header is record 0)."""
    out = []
    for raw, current, index in messages:
        envelope = decode(raw)
        body = envelope[5]
        if body[0] not in STAGE_KINDS:
            continue
        flip_opening = body[0] == "reveal" and not sealed
        if (current if flip_opening else body[1]) == number:
            out.append(
                {
                    "record": index,
                    "author": envelope[2],
                    "seq": envelope[3],
                    "body": as_json(body),
                    "envelope": raw.hex(),
                }
            )
    return out


def stage_vector(data: bytes, number: int, note: str) -> dict[str, Any]:
    """One whole stage of the match in transcript ``data``."""
    terms, messages, stages = replay(data)
    before, actions, after, digest = stages[number]
    found = stage_messages(messages, number, get_spec(terms["game"]).sealed)
    hashes = [m for m in found if m["body"][0] == "hash"]
    assert hashes and all(m["body"][2] == {"bin": digest.hex()} for m in hashes), note
    return {
        "note": note,
        "game": terms["game"],
        "peers": [key.hex() for key in terms["peers"]],
        "match_id": decode(messages[0][0])[1].hex(),
        "stage": number,
        "public_before": as_json(before),
        "messages": found,
        "applied": [[seat, as_json(action)] for seat, action in actions],
        "public_after": as_json(after),
        "hash": digest.hex(),
    }


def first_stage(data: bytes, found: Any) -> int:
    """The first stage one of whose messages' bodies satisfies ``found``."""
    terms, messages, stages = replay(data)
    sealed = get_spec(terms["game"]).sealed
    for number in sorted(stages):
        if any(found(m["body"]) for m in stage_messages(messages, number, sealed)):
            return number
    raise AssertionError("no such stage")


Chosen = Callable[[list[Any]], bool] | None
"""Which stage of a game's vector match a stage vector shows: the first with a message whose body
passes the test (None: stage 0)."""
COUNTS = ("no", "one", "two", "three", "four")


def shown_stages(spec: GameSpec, seats: int) -> list[tuple[Chosen, str]]:
    """The stages of a game's vector match that stages.json shows, from its traits (never its
    name): a sealed game's first turn, a pass on an optional action, cards laid face down, a flip;
    each with its note (``seats``: how many decide a turn)."""
    shown: list[tuple[Chosen, str]] = []
    if spec.sealed:
        count = COUNTS[seats]
        each = f"{count} commitments, each made final, {count} reveals, {count} hashes"
        shown.append((None, f"a {spec.name} turn: {each}"))
    for optional in spec.optional_types[:1]:
        note = f"a public act while the other seat lets its {optional} pass (decline)"
        shown.append((lambda body: body[0] == "decline", note))
    if spec.cards is not None:
        note = "cards laid face down at once: commitments, applied as hidden cards"
        shown.append((lambda body: body[0] == "commit", note))
    if spec.piles is not None:
        flip = spec.flip_type
        note = f"a {flip} (act) and its opening by the pile's owner (a reveal)"
        shown.append((lambda body: body[0] == "act" and body[3].get("type") == flip, note))
    return shown


def stages(files: dict[str, bytes]) -> list[dict[str, Any]]:
    """The stages of every game's vector match that its traits call for (:func:`shown_stages`),
    in the games' table's order."""
    out = []
    for game in names():
        data = files[f"transcript-{game}.p2pt"]
        seats = len(replay(data)[2][0][1])  # (the actions applied at stage 0)
        for chosen, note in shown_stages(get_spec(game), seats):
            out.append(stage_vector(data, 0 if chosen is None else first_stage(data, chosen), note))
    for number, note in PARALYSIS_STAGES:
        out.append(stage_vector(files["transcript-duel-paralysis.p2pt"], number, note))
    return out


def blindness(files: dict[str, bytes], tables: dict[str, tuple[MemoryTable, int]]) -> dict[str, Any]:
    """The stages of a duel played while a wizard was blind, as its peer received them: the claims
    exactly as sent, and the withheld reveals and hashes that came after."""
    table, blinded_peer = tables["duel-blind"]
    data = files["transcript-duel-blind.p2pt"]
    terms, messages, stage_states = replay(data)
    claims = [decode(raw) for raw, _, _ in messages if decode(raw)[5][0] == "blind"]
    blind_stages = sorted({envelope[5][1] for envelope in claims})
    assert blind_stages == [5, 6, 7], blind_stages  # as the description says
    out = []
    for number in blind_stages:
        envelope = next(e for e in claims if e[5][1] == number)
        _, _, seat, claim = envelope[5]
        out.append(
            {
                "stage": number,
                "seat": seat,
                "author": envelope[2],
                "claim": as_json(claim),
                "claim_bytes": encode(claim).hex(),
                "messages": stage_messages(messages, number, True),
                "applied": [[s, as_json(a)] for s, a in stage_states[number][1]],
                "hash": stage_states[number][3].hex(),
            }
        )
    return {
        "description": "a duel in which p0 blinds p1 (turns 6 to 8 are stages 5 to 7), from the "
        "transcript of p1's peer (transcript-duel-blind.p2pt): for each stage played while p1 was "
        "blind, the claim exactly as the sighted peer sent it (the blind message's map), the stage's "
        "messages in the order the blinded peer received them (the sighted peer's reveal and hash "
        "come only after the last claim), the actions applied and the state hash",
        "setup": BLIND_SETUP,
        "gestures": BLIND_SCRIPT,
        "peers": [key.hex() for key in terms["peers"]],
        "match_id": decode(messages[0][0])[1].hex(),
        "owner": list(table.sessions[0].owner),
        "blinded_peer": blinded_peer,
        "stages": out,
    }


def forge_module() -> Any:
    """forge.py, beside this file."""
    spec = importlib.util.spec_from_file_location("vectors_forge", HERE / "forge.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def forgeries(tables: dict[str, tuple[MemoryTable, int]]) -> dict[str, Any]:
    """Transcripts the losing peer of the duel vector's match could write alone, each with its
    verdict."""
    table, _ = tables["duel"]
    real = verify(transcript(table, 0))
    assert real.ok and real.outcome is not None, real.summary
    loser = table.sessions[0].owner[1 - int(str(real.outcome["winner"]))]
    forge = forge_module().Forger(table.identities[loser], transcript(table, loser))
    chosen = [
        next(f for f in forge.old_attack() if _blind_outcome(forge, f) not in (None, real.outcome)),
        next(f for f in forge.forgeries() if "signed another result" in f.note and "cut there" in f.note),
        next(f for f in forge.forgeries() if f.note.startswith("its end") and "dropped; cut" in f.note),
        next(iter(forge.claims())),
    ]
    out = []
    for forgery in chosen:
        data = forge.write(forgery)
        report = verify(data)
        assert not report.ok, forgery.note
        out.append({"note": forgery.note, "transcript": data.hex(), **verdict_of(report)})
    return {
        "description": "transcripts the losing peer ('forger') of transcript-duel.p2pt's match could "
        "write alone, from its own keys and every message it received (SPEC section 7, 'What a "
        "transcript proves'): "
        "'note' says what it did; 'verdict' is what a verifier must find ('incomplete', "
        "'unconfirmed', 'stopped' with 'fault' naming its kind and the peer at fault); 'outcome' "
        "the result its messages yield, if any (never a result that every peer signed); "
        "'real' is the match's result",
        "real": as_json(real.outcome),
        "forger": loser,
        "peers": [key.hex() for key in real.meta["peers"]],
        "forgeries": out,
    }


def copies(tables: dict[str, tuple[MemoryTable, int]]) -> dict[str, Any]:
    """Copies of the duel vector's match placed side by side (SPEC section 7, "Several copies of
    one match"), each set with its union: the order of its messages, its twins and its verdict."""
    table, _ = tables["duel"]
    walked, forger = _walked_away(table)
    last = forger.last_own()
    padded = next(f for f in forger.claims(chat=3, at=range(last, len(forger.messages))) if "chat" in f.note)
    rewritten = next(f for f in forger.forgeries() if "the rest kept" in f.note)
    cases = [
        (
            "the winner's copy of a match the loser walked away from at its end, and the loser's copy "
            "padded with its own claim, forfeit and chat lines",
            [walked, forger.write(padded)],
        ),
        (
            "the winner's copy and the loser's with one of its messages rewritten (a second history)",
            [walked, forger.write(rewritten)],
        ),
        ("a whole copy and the same match cut short", [transcript(table, 0), cut_copy(transcript(table, 1))]),
    ]
    out = []
    for note, made in cases:
        whole = union([read(data) for data in made])
        kept = [r for r in whole.records if isinstance(r, MsgRecord | RejectedRecord)]
        hashes = [(type(r), hashlib.sha256(r.raw).hexdigest()) for r in kept]
        out.append(
            {
                "note": note,
                "copies": [data.hex() for data in made],
                "order": [digest for kind, digest in hashes if kind is MsgRecord],
                "twins": [digest for kind, digest in hashes if kind is RejectedRecord],
                **verdict_of(judge(whole)),
            }
        )
    return {
        "description": "copies of transcript-duel.p2pt's match judged whole (SPEC section 7, 'Several "
        "copies of one match'): for each case, the transcripts ('copies', hex), the union's messages "
        "in its canonical order ('order': SHA-256 of each envelope), the twins replayed after it "
        "('twins'), and the verdict a verifier must reach from the union ('verdict', 'fault', "
        "'outcome')",
        "peers": [key.hex() for key in verify(transcript(table, 0)).meta["peers"]],
        "cases": out,
    }


def _walked_away(table: MemoryTable) -> tuple[bytes, Any]:
    """The winner's copy of the duel's match as if its loser had walked away owing its signed
    result (the winner claimed it and forfeited it), and the loser as a forger holding what it
    had read of that history, in its own order, and the claim and forfeit last."""
    real = verify(transcript(table, 0))
    assert real.outcome is not None
    owner = table.sessions[0].owner
    loser = owner[1 - int(str(real.outcome["winner"]))]
    honest = forge_module().Forger(table.identities[1 - loser], transcript(table, 1 - loser))
    walk = [c for c in honest.claims() if owner[decode(c.messages[-1])[5][2]] == loser][-1]
    held = set(walk.messages)
    seen = forge_module().Forger(table.identities[loser], transcript(table, loser)).messages
    theirs = [raw for raw in seen if raw in held] + list(walk.messages[-2:])
    head = read_header_bytes(transcript(table, loser))
    forger = forge_module().Forger(table.identities[loser], head + b"".join(frame_msg(raw) for raw in theirs))
    return honest.write(walk), forger


def verdict_of(report: Any) -> dict[str, Any]:
    """What a verifier must find, as a vector says it: the verdict, the fault, the outcome."""
    fault = report.fault
    return {
        "verdict": report.standing,
        "fault": None if fault is None else {"kind": fault.kind, "peer": fault.peer},
        "outcome": as_json(report.outcome),
    }


def read_header_bytes(data: bytes) -> bytes:
    """A transcript file's header record, framed, as it is."""
    return data[: 4 + int.from_bytes(data[:4], "big")]


def frame_msg(raw: bytes) -> bytes:
    """A ``msg`` record of ``raw``, framed."""
    body = encode(["msg", raw])
    return len(body).to_bytes(4, "big") + body


def cut_copy(data: bytes) -> bytes:
    """The transcript cut after half of its records."""
    at, ends = 0, []
    while at < len(data):
        at += 4 + int.from_bytes(data[at : at + 4], "big")
        ends.append(at)
    return data[: ends[len(ends) // 2]]


def _blind_outcome(forge: Any, forgery: Any) -> Any:
    """The result an observer blind to the heads (version 2's rule) reaches from a forgery."""
    observer = Session(keys=forge.keys, me=None)
    observer.chain.binding = False
    for raw in forgery.messages:
        observer.receive(raw)
    return None if observer.outcome is None else observer.outcome.to_plain()


BUNDLED = ("duel", "duel", "hornswoggle", "magic-square")
"""The games of the bundle vector's transcripts, in its order: the duel twice, as peer 0 and as
peer 1 wrote it (one match: it counts once), under one name (names may repeat)."""


def table_signed_twice() -> dict[str, Any]:
    """Two sets of terms a host signed with one joiner's ``ready`` (SPEC section 7a, "One ready,
    one match"): terms that differ in a name alone, each followed by the host's claim that the
    joiner never opened its coin share and the joiner's forfeit."""
    ids = [Identity.from_seed(bytes([48, peer]) * 16) for peer in range(2)]
    keys = [identity.public for identity in ids]
    salt = hashlib.sha256(b"vector table signed twice").digest()
    joiner = Session(keys=keys, me=1, identity=ids[1], randomness=randomness(48, 1))
    ready = joiner.setup.ready(salt, "duel", options={}, setup={}, host_claim=(), claim=())
    made = []
    for index, named in enumerate((["ann", "bob"], ["ann", "bob again"])):
        host = Session(keys=keys, me=0, identity=ids[0], names=named, randomness=randomness(48, 10 + index))
        host.setup.propose("duel", options={}, setup={}, salt=salt, readies=[None, ready])
        signed = list(host.flush().records)
        host.referee.claim_walkaway(1, 121_000)
        signed += host.flush().records
        host.referee.forfeit(1, "no answer to a timeout claim")
        signed += host.flush().records
        made.append(header(keys, 0) + b"".join(frame(r) for r in signed))
    alone = [verify(data) for data in made]
    assert all(r.fault is not None and r.fault.peer == 1 and r.fault.stage == -2 for r in alone)
    lines, tallies = bundle.prove([(f"terms-{n}.p2pt", data) for n, data in enumerate(made)])
    assert all(line.fault_kind == "cheat" and line.fault_peer == 0 for line in lines)
    assert len(once(lines)) == 1
    return {
        "description": "two sets of terms its host signed with one joiner's ready (SPEC section "
        "7a, 'One ready, one match'): 'transcripts' (hex) are the host's, each its terms (the same "
        "ready, the same salt, the players' names differing), its claim that the joiner did not "
        "open its coin share and the joiner's forfeit; 'ready' is the joiner's signature both terms "
        "carry; 'alone' is what each proves by itself (a forfeit before the deal by peer 1); "
        "'together' what they prove read together: a cheat by peer 0 (the host), counted as one "
        "match; 'record' the matches won, lost and drawn per key",
        "ready": ready["signature"].hex(),
        "transcripts": [data.hex() for data in made],
        "terms": [hashlib.sha256(encode(r.terms)).hexdigest() for r in alone],
        "alone": [{"fault": "forfeit", "peer": 1, "before_the_deal": True} for _ in alone],
        "together": {"fault": "cheat", "peer": 0, "counted": 1},
        "record": [
            {
                "key": key.hex(),
                "games": {
                    g: dict(zip(("won", "lost", "drawn"), n, strict=True)) for g, n in tally.games.items()
                },
            }
            for key, tally in sorted(tallies.items())
        ],
    }


def bundles(tables: dict[str, tuple[MemoryTable, int]]) -> tuple[bytes, dict[str, Any]]:
    """A bundle (SPEC section 7a) of the games' vector matches, and what it proves per player."""
    entries, seen = [], dict.fromkeys(BUNDLED, 0)
    for game in BUNDLED:
        table, _ = tables[game]
        entries.append((f"transcript-{game}.p2pt", transcript(table, seen[game])))
        seen[game] += 1
    data = bundle.write(entries)
    assert bundle.read(data) == entries
    assert decode(data) == [bundle.MAGIC, bundle.VERSION, [list(entry) for entry in entries]]
    lines, tallies = bundle.prove(entries)
    counted = {id(line) for line in once(lines)}
    listed = []
    for (name, raw), line in zip(entries, lines, strict=True):
        terms = verify(raw).terms
        assert terms is not None and line.match_id == hashlib.sha256(encode(terms)).hexdigest()
        listed.append(
            {
                "name": name,
                "sha256": hashlib.sha256(raw).hexdigest(),
                "me": decode(raw[4 : 4 + int.from_bytes(raw[:4], "big")])[2]["me"],
                "game": line.game,
                "match": line.match_id,
                "proves": line.proves,
                "counted": id(line) in counted,
            }
        )
    record = [
        {
            "key": key.hex(),
            "games": {g: dict(zip(("won", "lost", "drawn"), n, strict=True)) for g, n in tally.games.items()},
        }
        for key, tally in sorted(tallies.items())
    ]
    return data, {
        "description": "a bundle (SPEC section 7a): bundle.bin is the bare canonical msgpack of "
        "['p2pgenius bundle', 1, [[NAME, TRANSCRIPT], ...]] (no length prefix, no header), each NAME a "
        "transcript file's base name (two entries here share one), each TRANSCRIPT its bytes unchanged; "
        "'entries' gives each transcript's SHA-256, its header's 'me', its game, 'match' (the "
        "lowercase hex of SHA-256(encode(terms)), one for every copy of one match), whether it proves "
        "a result and whether it is the copy counted; 'record' gives, per key and game, the matches "
        "won, lost and drawn (a Hornswoggle team's result is each of its peers')",
        "file": "bundle.bin",
        "entries": listed,
        "record": record,
    }


def _gestures(move: str, **extra: Any) -> dict[str, Any]:
    """A duel submission from "LR" (left and right gestures) and its optional maps."""
    return {"type": "gestures", "left": move[0], "right": move[1], **extra}


def _turns(*turns: tuple[str | dict[str, Any], str | dict[str, Any]]) -> list[list[Any]]:
    """Duel turns (p0's move, p1's) as [seat, action] pairs, p0 first."""
    return [
        [seat, _gestures(move) if isinstance(move, str) else move]
        for pair in turns
        for seat, move in enumerate(pair)
    ]


_PARALYZE_P1_LEFT: Final = [0, {"type": "paralyze", "target": "p1", "hand": "left"}]
GAME_STEPS: Final[list[tuple[str, str, dict[str, Any], list[list[Any]]]]] = [
    (
        "duel",
        "a turn's events in the documented order: casts in cast order, summons, then step 10's spells,"
        " stabs and monsters by number, then deaths before hp",
        {},
        _turns(
            ("W-", "W-"),
            ("WS", "W-"),
            (_gestures("SD", targets={"right": "p1.left"}), _gestures("S>", targets={"right": "p0.left"})),
        ),
    ),
    (
        "duel",
        "Paralysis on a hand already held: a plain enchant at step 9, the held enchant last; the"
        " held hand's rewrite says paralysed",
        {},
        [
            *_turns(("W-", "--"), ("W-", "--"), ("W-", "S-")),
            _PARALYZE_P1_LEFT,
            *_turns(("W-", "D-"), ("--", "W-")),
        ],
    ),
    (
        "duel",
        "both wizards knocked out: hp says the HP before the revival, then revive",
        {"hp": [2, 2]},
        _turns(("S>", "S>"), ("D>", "D>")),
    ),
    (
        "duel",
        "a clap of both hands completes a Blindness on the left, which takes the right hand's target (a"
        " goblin: destroyed at step 7); a Charm Monster at a wizard misses",
        {},
        _turns(
            ("D-", "W-"),
            ("W-", "WP"),
            ("S-", "SW"),
            ("W-", "-W"),
            (_gestures("CC", targets={"right": "m1"}), _gestures("-D", targets={"right": "p0"})),
        ),
    ),
    (
        "duel",
        "Fire Storm over the beings in order, none for a counter-spell's subject; Fear at a monster"
        " says nothing after its cast",
        {},
        _turns(
            ("SS", "W-"),
            ("WW", "WD"),
            (_gestures("WD", targets={"right": "p1.left"}), "SP"),
            ("CC", "-P"),
        ),
    ),
    (
        "magic-square",
        "the state between phases: first_lead 0 while the order is awaited, a colouring timeout,"
        " swaps then swaps_done, a challenge stage's events, the board cleared at the end",
        {},
        [
            [1, {"type": "order", "first": 0}],
            [0, {"type": "colour", "cell": 0}],
            [1, {"type": "colour", "cell": 1}],
            [0, {"type": "timeout"}],
            [0, {"type": "swap", "red": 0, "blue": 1}],
            [0, {"type": "swaps_done"}],
            [0, {"type": "order", "first": 0}],
            [0, {"type": "place", "cell": 5}],
            [1, {"type": "challenge"}],
            [0, {"type": "concede"}],
        ],
    ),
]
"""Scripted matches of the engines alone (protocol/games.md sections 5 and 6), each fixed here by
hand so that its steps show the facts its note names."""


def _game_step(game: Any, state: Any, seat: int | None, action: Any) -> dict[str, Any]:
    """One step of :func:`game_steps`: the action and what it left."""
    return {
        "seat": seat,
        "action": action,
        "state": game.public(state),
        "hash": state_hash(game, state).hex(),
        "events": list(game.events(state)),
    }


def game_steps() -> dict[str, Any]:
    """Each :data:`GAME_STEPS` match, action by action: the public state, its hash and the events
    (the duel's as a sighted seat's view shows them)."""
    made = []
    for name, note, setup, actions in GAME_STEPS:
        game = get_game(name)
        state = game.initial(setup, {})
        steps = [_game_step(game, state, None, None)]
        for seat, action in actions:
            state = game.apply(state, seat, game.parse_action(action))
            steps.append(_game_step(game, state, seat, action))
        made.append({"game": name, "note": note, "setup": setup, "steps": steps})
    return {
        "about": "protocol/games.md: engine steps; each step is one action applied, with the public"
        " state after it, H(encode({game, state})) and the events of the last action",
        "matches": made,
    }


def mailbox_letters() -> dict[str, Any]:
    """Letters to a match's mailbox on Nostr relays (SPEC section 4e), from fixed inputs: the
    mailbox (its secret, its address key and address), then each letter's author, messages, time
    and 96 random bytes, with every step between: the event's key, the signed part and its
    signature, the plaintext, the conversation key and the event exactly as relays carry it."""
    box = mail.Mailbox(seed("mailbox"))
    letters = []
    # The third is a joiner's lobby letter (SPEC 4f): its hello (its name, its proof of the
    # invite's seat token) and its ready, signed over a host's table as section 4a says.
    bob = Identity.from_seed(seed("bob"))
    table = agreement(Identity.from_seed(seed("ann")).public, "duel", {"fast": True}, {}, [])
    ready = make_ready(bob, seed("bob's coin"), salt=seed("table salt"), agreed=table, claim=[])
    lobby = [mail.hello("bob", seed("seat token")[:16], bob.public), channel_messages.ready(ready)]
    for index, (who, messages) in enumerate(
        [
            ("ann", [b"\x01first message"]),
            ("bob", [seed("m1"), seed("m2")[:7], b"\x93\x00\x01\x02"]),
            ("bob", lobby),
        ]
    ):
        author = Identity.from_seed(seed(who))
        randomness = b"".join(seed(f"letter {index} {part}") for part in ("key", "nonce", "aux"))
        event = mail.write(box, author, messages, 1_780_000_000 + index, randomness)
        sender = mail.secret_key(randomness[:32])
        key = nostr.conversation_key(sender, box.key.public)
        plaintext = nostr.decrypt(event.content, key)
        signed = encode([mail.TAG, mail.VERSION, box.key.public, sender.public, author.public, messages])
        letters.append(
            {
                "author_seed": author.seed.hex(),
                "author": author.public.hex(),
                "messages": [m.hex() for m in messages],
                "created_at": event.created_at,
                "randomness": randomness.hex(),
                "event_secret_key": sender.secret.hex(),
                "signed": signed.hex(),
                "signature": author.sign(signed).hex(),
                "letter": base64.b64decode(plaintext).hex(),
                "plaintext": plaintext,
                "conversation_key": key.hex(),
                "event": event.to_json(),
                "items": [_item_words(m) for m in messages],
            }
        )
    return {
        "secret": box.secret.hex(),
        "address_secret_key": box.key.secret.hex(),
        "address": box.address,
        "letters": letters,
        "refused": refused_letters(box),
    }


def _item_words(message: bytes) -> str:
    """What a letter's message is (SPEC 4f): "hello", "ready", "lobby", "match" or "ignored"."""
    read = mail.item(message)
    if read is None:
        return "ignored"
    return {mail.Hello: "hello", mail.Signed: "match"}.get(type(read)) or str(
        getattr(read, "KIND", "ignored")
    )


def refused_letters(box: mail.Mailbox) -> list[dict[str, Any]]:
    """Events (each a well-signed NIP-01 event) that a reader of ``box`` must refuse, each with
    the step of SPEC 4e's reading that refuses it and what is wrong."""
    ann, bob = Identity.from_seed(seed("ann")), Identity.from_seed(seed("bob"))
    other = mail.Mailbox(seed("another mailbox"))

    def rand(n: int) -> bytes:
        return b"".join(seed(f"refused {n} {part}") for part in ("key", "nonce", "aux"))

    def sealed(n: int, letter: Any, seal: mail.Mailbox = box, kind: int = mail.LETTER_KIND) -> nostr.Event:
        """``letter`` (a plaintext, or a value encoded into one) as a letter to ``box``, sealed
        for ``seal``'s address key."""
        sender, randomness = mail.secret_key(rand(n)[:32]), rand(n)
        plaintext = letter if isinstance(letter, str) else base64.b64encode(encode(letter)).decode()
        content = nostr.encrypt(plaintext, nostr.conversation_key(sender, seal.key.public), randomness[32:64])
        draft = nostr.Draft.of(1_780_000_100 + n, kind, [["p", box.address]], content)
        return nostr.sign_event(sender, draft, randomness[64:])

    def signed(
        n: int, author: Identity, signer: Identity, version: Any = 1, move: bytes = b"move"
    ) -> list[Any]:
        """A letter of ``author`` whose signature is ``signer``'s, for the key ``sealed(n)`` uses."""
        sender = mail.secret_key(rand(n)[:32]).public
        part = encode([mail.TAG, 1, box.key.public, sender, author.public, [move]])
        return [mail.TAG, version, author.public, [move], signer.sign(part)]

    padded = base64.b64encode(encode(signed(5, ann, ann, move=b"moves"))).decode()
    assert padded.endswith("="), "the unpadded case needs a letter whose base64 is padded"

    moved = mail.write(box, ann, [b"move"], 1_780_000_100, rand(0))
    opened = nostr.decrypt(moved.content, nostr.conversation_key(box.key, bytes.fromhex(moved.pubkey)))
    cases = [
        ("p tag", "addressed to another mailbox", mail.write(other, ann, [b"move"], 1_780_000_100, rand(1))),
        ("kind", "of kind 1060, not 1059", sealed(2, signed(2, ann, ann), kind=1060)),
        (
            "seal",
            "sealed for another mailbox's key (its MAC fails)",
            sealed(3, signed(3, ann, ann), seal=other),
        ),
        ("base64", "not base64", sealed(4, "not base64 at all!")),
        ("base64", "base64 without its padding", sealed(5, padded.rstrip("="))),
        ("shape", "version true, not the integer 1", sealed(6, signed(6, ann, ann, version=True))),
        ("shape", "version 2", sealed(7, signed(7, ann, ann, version=2))),
        ("shape", "no message", sealed(8, [mail.TAG, 1, ann.public, [], bytes(64)])),
        ("signature", "signed by another identity than its author", sealed(9, signed(9, ann, bob))),
        ("signature", "a player's letter sent again under another key", sealed(10, opened)),
    ]
    return [{"step": step, "why": why, "event": event.to_json()} for step, why, event in cases]


def everything() -> dict[str, bytes]:
    """Every vector file's name and exact bytes."""

    def dump(value: Any) -> bytes:
        return (json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()

    tables = matches()
    files = {
        "handshake.json": dump(handshake()),
        "canonical.json": dump(canonical()),
        "commitments.json": dump(commitments()),
        "envelopes.json": dump(envelopes()),
        "invite.json": dump(invites()),
    }
    files.update(transcripts(tables))
    files["stages.json"] = dump(stages(files))
    files["blindness.json"] = dump(blindness(files, tables))
    files["forgeries.json"] = dump(forgeries(tables))
    files["copies.json"] = dump(copies(tables))
    files["bundle.bin"], proven = bundles(tables)
    files["bundle.json"] = dump(proven)
    files["tables.json"] = dump(table_signed_twice())
    files["game-steps.json"] = dump(game_steps())
    files["mailbox.json"] = dump(mailbox_letters())
    return files


if __name__ == "__main__":
    for name, data in everything().items():
        (HERE / name).write_bytes(data)
        print(f"wrote {name} ({len(data)} bytes)", file=sys.stderr)
