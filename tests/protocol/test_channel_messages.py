"""The channel messages of SPEC sections 4a and 4b (protocol/channel_messages.py): each built as
it always went on the wire, read back into its type, and every malformed shape the SPEC names
refused with a reason."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.channel_messages import (
    Flaw,
    Lobby,
    Malformed,
    MatchMessage,
    Ping,
    Pong,
    Propose,
    Ready,
    Refused,
    Sync,
    Watching,
    parse,
)

SPEC = Path(__file__).parents[2] / "protocol" / "SPEC.md"
KEY, OTHER = b"k" * 32, b"o" * 32
READY = {"seats": [1], "coin": b"c" * 32, "signature": b"s" * 64}
TABLE = {"game": "duel", "names": ["ann", "bob"], "keys": [KEY, OTHER], "you": 1, "start": False}

# Each builder beside the record as net/ built it by hand before, and what it reads back as.
CASES: list[tuple[bytes, list[Any], wire.ChannelMessage]] = [
    (wire.lobby(TABLE), ["lobby", TABLE], Lobby(TABLE)),
    (wire.ready(READY), ["ready", READY], Ready(READY)),
    (wire.ready(READY, {"fast": True}), ["ready", READY, {"fast": True}], Ready(READY, {"fast": True})),
    (wire.ready(READY, {}), ["ready", READY], Ready(READY)),  # (an empty proposal: none)
    (wire.propose({"fast": True}), ["propose", {"fast": True}], Propose({"fast": True})),
    (
        wire.watching([KEY, OTHER], ["ann", "bob"]),
        ["watching", {"keys": [KEY, OTHER], "names": ["ann", "bob"]}],
        Watching((KEY, OTHER), ("ann", "bob")),
    ),
    (wire.refused("the table is full"), ["refused", "the table is full"], Refused("the table is full")),
    (wire.match_message(b"an envelope"), ["m", b"an envelope"], MatchMessage(b"an envelope")),
    (wire.sync([3, 0, 7]), ["sync", [3, 0, 7]], Sync((3, 0, 7))),
    (wire.sync(()), ["sync", []], Sync(())),
    (wire.ping(2**32 - 1), ["ping", 2**32 - 1], Ping(2**32 - 1)),
    (wire.pong(0), ["pong", 0], Pong(0)),
]


@pytest.mark.parametrize(("built", "by_hand", "message"), CASES)
def test_each_message_is_built_as_before_and_read_back_as_its_type(
    built: bytes, by_hand: list[Any], message: wire.ChannelMessage
) -> None:
    assert built == encode(by_hand)  # (byte for byte: the wire does not change)
    assert parse(built) == message
    assert parse(built).kind == by_hand[0] == message.KIND


def test_every_kind_of_the_spec_table_has_a_type_and_a_builder() -> None:
    table = SPEC.read_text(encoding="utf-8").split("## 4a.")[1].split("Which of these may come")[0]
    documented = re.findall(r'`\["([a-z]+)", ', table)
    assert sorted(documented) == sorted(wire.KINDS)
    assert {message.KIND for _, _, message in CASES} == set(wire.KINDS)


def test_the_spec_examples_are_the_builders_bytes() -> None:
    text = SPEC.read_text(encoding="utf-8")
    examples = {
        '["refused", "this match does not admit spectators"]': wire.refused(
            "this match does not admit spectators"
        ),
        '["propose", {"fast": true}]': wire.propose({"fast": True}),
    }
    for example, built in examples.items():
        assert example in text, example
        assert encode(json.loads(example)) == built
        assert parse(built).kind == json.loads(example)[0]


MALFORMED: list[tuple[bytes, Flaw, str | None]] = [
    # Not canonical msgpack (SPEC section 3): an unused byte, an over-long integer, trailing bytes.
    (b"\xc1", Flaw.BYTES, None),
    (b"\x92\xa4ping\xcd\x00\x01", Flaw.BYTES, None),
    (encode(["ping", 1]) + b"\x00", Flaw.BYTES, None),
    # Not an array of two or more elements whose first names its kind.
    (encode({"ping": 1}), Flaw.FRAME, None),
    (encode("ping"), Flaw.FRAME, None),
    (encode([]), Flaw.FRAME, None),
    (encode(["sync"]), Flaw.FRAME, "sync"),
    (encode(["pong"]), Flaw.FRAME, "pong"),
    # A kind that is none of these, or not a string.
    (encode(["hello", 1]), Flaw.BODY, "hello"),
    (encode([1, 2]), Flaw.BODY, None),
    # Each kind's body of the wrong shape or length.
    (encode(["lobby", "the table"]), Flaw.BODY, "lobby"),
    (encode(["lobby", TABLE, 1]), Flaw.BODY, "lobby"),
    (encode(["ready", [1]]), Flaw.BODY, "ready"),  # (not a map)
    (encode(["ready", {**READY, "seats": [1, 2, 3, 4, 5]}]), Flaw.BODY, "ready"),  # (more than 4)
    (encode(["ready", {**READY, "seats": [True]}]), Flaw.BODY, "ready"),  # (not integers)
    (encode(["ready", {**READY, "seats": 1}]), Flaw.BODY, "ready"),
    (encode(["ready", {k: v for k, v in READY.items() if k != "seats"}]), Flaw.BODY, "ready"),
    (encode(["ready", {**READY, "coin": b"c" * 31}]), Flaw.BODY, "ready"),  # (not 32 bytes)
    (encode(["ready", {**READY, "signature": "s"}]), Flaw.BODY, "ready"),
    (encode(["ready", READY, {"fast": True}, 1]), Flaw.BODY, "ready"),
    (encode(["propose", True]), Flaw.BODY, "propose"),  # (SPEC: a ["propose", x], x not a map)
    (encode(["propose", {"fast": True}, 1]), Flaw.BODY, "propose"),
    (encode(["watching", [1, 2]]), Flaw.BODY, "watching"),
    (encode(["watching", {"keys": [KEY]}]), Flaw.BODY, "watching"),  # (fewer than 2)
    (encode(["watching", {"keys": [KEY] * 5}]), Flaw.BODY, "watching"),  # (more than 4)
    (encode(["watching", {"keys": [KEY, "o"]}]), Flaw.BODY, "watching"),  # (not byte strings)
    (encode(["watching", {"keys": [KEY, OTHER], "names": ["ann"]}]), Flaw.BODY, "watching"),
    (encode(["watching", {"keys": [KEY, OTHER], "names": ["ann", " bob"]}]), Flaw.BODY, "watching"),
    (encode(["watching", {"keys": [KEY, OTHER], "names": 7}]), Flaw.BODY, "watching"),
    (encode(["refused", "why", "more"]), Flaw.BODY, "refused"),
    (encode(["m", "not bytes"]), Flaw.BODY, "m"),
    (encode(["m", b"raw", b"more"]), Flaw.BODY, "m"),
    (encode(["sync", [1, -1]]), Flaw.BODY, "sync"),
    (encode(["sync", [1, True]]), Flaw.BODY, "sync"),
    (encode(["sync", 3]), Flaw.BODY, "sync"),
    (encode(["ping", "x"]), Flaw.BODY, "ping"),
    (encode(["ping", True]), Flaw.BODY, "ping"),
    (encode(["pong", 1, 2]), Flaw.BODY, "pong"),
]


@pytest.mark.parametrize(("payload", "flaw", "kind"), MALFORMED)
def test_every_malformed_shape_is_refused_with_a_reason(payload: bytes, flaw: Flaw, kind: str | None) -> None:
    parsed = parse(payload)
    assert isinstance(parsed, Malformed), parsed
    assert (parsed.flaw, parsed.kind) == (flaw, kind)
    assert parsed.reason and "\n" not in parsed.reason


def test_what_the_spec_lets_through_is_read_as_it_says() -> None:
    # A refusal whose reason is not text is a refusal all the same (with no reason).
    assert parse(encode(["refused", 5])) == Refused("")
    # A ready's third element that is not a map stands as a ready without it.
    assert parse(encode(["ready", READY, 5])) == Ready(READY)
    # Keys a reader does not know are kept in a ready (the terms carry it) and ignored elsewhere.
    assert parse(encode(["ready", {**READY, "extra": 1}])) == Ready({**READY, "extra": 1})
    assert parse(encode(["watching", {"keys": [KEY, OTHER], "x": 1}])) == Watching((KEY, OTHER), None)
    assert parse(encode(["watching", {"keys": [KEY, OTHER], "names": None}])) == Watching((KEY, OTHER), None)
    # A proposal of anything is a proposal message (what a host may take up of it is another
    # matter, below); a ready is seats, coin and signature, with no claim at all allowed.
    assert parse(encode(["propose", {}])) == Propose({})
    assert parse(encode(["ready", {**READY, "seats": []}])) == Ready({**READY, "seats": []})


def test_what_a_host_may_take_up_of_a_proposal() -> None:
    assert wire.proposal({"fast": True}, sealed=True) == {"fast": True}
    assert wire.proposal({"fast": False}, sealed=True) == {"fast": False}
    for ignored in ({}, {"turn_seconds": 5}, {"fast": "yes"}, {"fast": 1}, {"fast": True, "x": True}, None):
        assert wire.proposal(ignored, sealed=True) is None
    assert wire.proposal({"fast": True}, sealed=False) is None  # (a game without sealed turns)


def test_a_proposal_rides_alone_with_a_ready_or_with_a_malformed_one() -> None:
    assert wire.proposed(parse(wire.propose({"fast": True}))) == {"fast": True}
    assert wire.proposed(parse(wire.ready(READY, {"fast": True}))) == {"fast": True}
    assert wire.proposed(parse(encode(["ready", 5, {"fast": True}]))) == {"fast": True}
    assert wire.proposed(parse(wire.ready(READY))) is None
    assert wire.proposed(parse(encode(["propose", True]))) is None
    assert wire.proposed(parse(wire.ping(1))) is None
