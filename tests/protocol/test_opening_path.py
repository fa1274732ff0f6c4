"""Issue 48, a message opened and a transcript replayed for less: each shortcut gives what the
longer path it stands in for gives, the refusals in the same words. An envelope opened
(``open_envelope``'s shortcut for a well-formed version 3 envelope) against the function as it
was, on every message of matches of all three games, changed, and on envelopes of every shape
(hypothesis); a transcript's ``msg`` record typed at once against the record checked field by
field; the actions a verification's report shows opened, taken from the verdict, against those
worked out again."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgenius.canonical import decode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol import messages
from p2pgenius.protocol.bodies import BodyError, parse_body
from p2pgenius.protocol.identity import Identity, verify
from p2pgenius.protocol.messages import (
    MAX_MESSAGE_BYTES,
    OLD_TAG,
    OLD_VERSION,
    SIGN_DOMAIN,
    TAG,
    VERSION,
    ZERO_HASH,
    Envelope,
    MessageError,
    open_envelope,
)
from p2pgenius.protocol.observer import observer_of, replay
from p2pgenius.protocol.records import FIELDS, MsgRecord, TranscriptError, read, record_of

Outcome = tuple[str, Any]


def outcome(run: Callable[..., Any], *args: Any, **options: Any) -> Outcome:
    """What ``run(*args, **options)`` gives, or the type and words of what it raises."""
    try:
        return "value", run(*args, **options)
    except P2PGeniusError as exc:
        return type(exc).__name__, str(exc)


def old_open_envelope(raw: bytes, keys: Sequence[bytes], *, version: int = VERSION) -> Envelope:
    """``open_envelope`` before issue 48's shortcut: every check, in its order, of every envelope."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise MessageError(f"a message of {len(raw)} bytes (the limit is {MAX_MESSAGE_BYTES})")
    try:
        value = decode(raw)
    except EncodingError as exc:
        raise MessageError(f"not a canonical message: {exc}") from None
    tag = TAG if version == VERSION else OLD_TAG
    if not (isinstance(value, list) and len(value) == 7 and value[0] == tag):
        if isinstance(value, list) and value and value[0] in (TAG, OLD_TAG):
            raise MessageError(f"a message of another version of the protocol ({value[0]!r}, not {tag!r})")
        raise MessageError(f"not a {tag} message envelope")
    _, match_id, author, seq, heads, body, signature = value
    old = version == OLD_VERSION and isinstance(heads, bytes) and type(author) is int
    if old and 0 <= author < len(keys):
        heads = [heads if peer == author else ZERO_HASH for peer in range(len(keys))]
    if not (
        isinstance(match_id, bytes)
        and len(match_id) == 32
        and isinstance(heads, list)
        and len(heads) == len(keys)
        and all(type(head) is bytes for head in heads)
        and all(len(head) == 32 for head in heads)
        and type(author) is int
        and type(seq) is int
        and seq >= 0
        and isinstance(signature, bytes)
        and isinstance(body, list)
        and body
    ):
        raise MessageError("malformed envelope fields")
    if not 0 <= author < len(keys):
        raise MessageError(f"unknown author {author}")
    if not verify(keys[author], signature, messages._signed(raw, signature)):
        raise MessageError(f"the signature of peer {author}'s message does not verify (forged)")
    try:
        msg = parse_body(body)
    except BodyError as exc:
        raise MessageError(str(exc)) from None
    return Envelope(match_id, author, seq, tuple(heads), tuple(body), raw, msg, version)


def opened_as_before(raw: bytes, keys: Sequence[bytes]) -> None:
    for version in (VERSION, OLD_VERSION):
        now = outcome(open_envelope, raw, keys, version=version)
        assert now == outcome(old_open_envelope, raw, keys, version=version)


def _messages(game: str, seed: int) -> list[tuple[bytes, tuple[bytes, ...]]]:
    """Every message of peer 0's transcript of a seeded match, with the match's keys."""
    read_back = read(transcript(play(game, seed=seed), 0))
    keys = read_back.header.peers
    return [(record.raw, keys) for record in read_back.records if isinstance(record, MsgRecord)]


@pytest.mark.parametrize("game", ["duel", "magic-square", "hornswoggle"])
def test_every_message_of_a_match_opens_as_before_and_so_does_each_changed(game: str) -> None:
    found = _messages(game, 1)
    for index, (raw, keys) in enumerate(found):
        opened_as_before(raw, keys)
        assert open_envelope(raw, keys).raw == raw  # (a match's messages open)
        at = index * 7 % len(raw)
        opened_as_before(raw[:at] + bytes([raw[at] ^ 1 << index % 8]) + raw[at + 1 :], keys)
        opened_as_before(raw[:-1], keys)
        opened_as_before(raw, keys[:-1])


def test_an_envelope_opened_is_the_one_its_class_makes() -> None:
    for raw, keys in _messages("magic-square", 2):
        opened = open_envelope(raw, keys)
        made = Envelope(*(getattr(opened, f.name) for f in dataclasses.fields(Envelope) if f.init))
        assert type(opened) is Envelope
        assert [getattr(opened, name) for name in Envelope.__slots__] == [
            getattr(made, name) for name in Envelope.__slots__
        ]
        assert opened == made and repr(opened) == repr(made)
        with pytest.raises(dataclasses.FrozenInstanceError):
            opened.seq = 1  # type: ignore[misc]


def packed(value: Any) -> bytes:
    """``value`` as msgpack packs it (maps in their order, floats, the smallest forms)."""
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


IDENTITIES = [Identity.from_seed(bytes([n]) * 32) for n in range(3)]
KEYS = tuple(identity.public for identity in IDENTITIES)

bodies = st.sampled_from(
    [
        ["hash", 3, b"\x01" * 32],
        ["chat", "hello"],
        ["chat", "\x1b[2J"],  # (well formed, not allowed: Invalid)
        ["act", 0, 1, {"type": "pass"}, 5],
        ["act", 0, 1, {"z": 1, "a": 2}, 5],  # (a map out of order)
        ["act", 0, 1, {"type": 1.5}, 5],  # (a float)
        ["act", 0, True, {}, 5],
        ["nothing", 1],
        [],
        [[[[1]]]],
    ]
) | st.lists(st.none() | st.integers(-1, 300) | st.text(max_size=3) | st.binary(max_size=3), max_size=3)
heads = st.lists(
    st.binary(min_size=32, max_size=32) | st.binary(max_size=33) | st.text(max_size=2), max_size=4
)


@st.composite
def envelopes(draw: st.DrawFn) -> bytes:
    """Envelope bytes of every shape: fields of the right types and ranges or not, packed as
    msgpack packs them (a map out of order, a float, a bool for an int), signed by the author's
    key, by another's or not at all, changed, cut or lengthened."""
    tag = draw(st.sampled_from([TAG, TAG, OLD_TAG, "p2pg/9", 3]))
    match_id = draw(st.binary(min_size=32, max_size=32) | st.binary(max_size=33) | st.text(max_size=1))
    author = draw(st.integers(-1, 3) | st.booleans() | st.none())
    seq = draw(st.integers(-2, 5) | st.integers(2**32, 2**64 - 1) | st.booleans() | st.floats(0, 1))
    fields = [tag, match_id, author, seq, draw(heads | st.binary(min_size=32, max_size=32)), draw(bodies)]
    unsigned = packed(fields)
    signer = draw(st.sampled_from(IDENTITIES))
    signature = draw(
        st.just(signer.sign(SIGN_DOMAIN + unsigned)) | st.binary(max_size=65) | st.integers(-9, 9)
    )
    raw = b"\x97" + unsigned[1:] + packed(signature)
    change = draw(st.sampled_from(["none", "none", "cut", "more", "byte", "array"]))
    if change == "cut":
        raw = raw[: draw(st.integers(0, len(raw) - 1))]
    elif change == "more":
        raw += draw(st.binary(min_size=1, max_size=3))
    elif change == "byte":
        at = draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] + bytes([draw(st.integers(0, 255))]) + raw[at + 1 :]
    elif change == "array":
        raw = packed([*fields, signature, draw(st.integers(0, 3))][: draw(st.integers(0, 8))])
    return raw


@given(envelopes(), st.integers(2, 3))
def test_an_envelope_of_any_shape_opens_or_is_refused_as_before(raw: bytes, peers: int) -> None:
    opened_as_before(raw, KEYS[:peers])


DEEP: list[Any] = []
for _ in range(70):  # (deeper than a canonical value may nest)
    DEEP = [DEEP]
WELL_FORMED_BODIES = [["hash", 3, b"\x01" * 32], ["chat", "hello"], ["act", 0, 1, {"type": "pass"}, 5]]
MUTATIONS = [
    "none",
    "seq -1",
    "seq bool",
    "seq wide",  # (a number in a longer form than the smallest: not canonical)
    "author out",
    "author -1",
    "author bool",
    "head short",
    "head str",
    "head wide",
    "heads fewer",
    "heads more",
    "match id short",
    "body empty",
    "body float",
    "body unsorted",
    "body deep",
    "tag old",
    "signature short",
    "signature other",
    "signature str",
]


@st.composite
def nearly_well_formed(draw: st.DrawFn, peers: int) -> tuple[str, bytes]:
    """A well-formed envelope of ``peers`` peers, signed by its author, with at most one thing
    wrong with it (each field's type, range and form, the body's, the signature's): re-signed
    after the change, so that the check that refuses it is the one that tells the change."""
    mutation = draw(st.sampled_from(MUTATIONS))
    author = draw(st.integers(0, peers - 1))
    seq = draw(st.integers(0, 300))
    heads: list[Any] = [draw(st.binary(min_size=32, max_size=32)) for _ in range(peers)]
    body = draw(st.sampled_from(WELL_FORMED_BODIES))
    match_id, tag = draw(st.binary(min_size=32, max_size=32)), TAG
    seq = {"seq -1": -1, "seq bool": True}.get(mutation, seq)
    author = {"author out": peers, "author -1": -1, "author bool": bool(author)}.get(mutation, author)
    heads[0] = {"head short": heads[0][:31], "head str": "h"}.get(mutation, heads[0])
    heads = {"heads fewer": heads[1:], "heads more": [*heads, ZERO_HASH]}.get(mutation, heads)
    match_id = match_id[:31] if mutation == "match id short" else match_id
    body = {
        "body empty": [],
        "body float": ["act", 0, 1, {"type": 0.5}, 5],
        "body unsorted": ["act", 0, 1, {"type": "pass", "a": 1}, 5],
        "body deep": ["act", 0, 1, {"type": DEEP}, 5],
    }.get(mutation, body)
    tag = OLD_TAG if mutation == "tag old" else tag

    encoded = [packed(value) for value in (tag, match_id, author, seq)]
    if mutation == "seq wide":
        encoded[3] = b"\xce" + seq.to_bytes(4, "big")  # (a uint 32: the smallest below 2**16 is shorter)
    head_bytes = [packed(head) for head in heads]
    if mutation == "head wide":
        head_bytes[0] = b"\xc5\x00\x20" + heads[0]
    encoded.append(bytes([0x90 + len(heads)]) + b"".join(head_bytes))
    unsigned = b"\x96" + b"".join(encoded) + packed(body)
    signer = IDENTITIES[
        ((author if type(author) is int and 0 <= author < 3 else 0) + (mutation == "signature other")) % 3
    ]
    signature: Any = signer.sign(SIGN_DOMAIN + unsigned)
    signature = {"signature short": signature[:63], "signature str": "s"}.get(mutation, signature)
    return mutation, b"\x97" + unsigned[1:] + packed(signature)


@given(st.integers(2, 3).flatmap(lambda peers: st.tuples(nearly_well_formed(peers), st.just(peers))))
def test_a_well_formed_envelope_changed_in_one_way_opens_or_is_refused_as_before(
    case: tuple[tuple[str, bytes], int],
) -> None:
    (mutation, raw), peers = case
    opened_as_before(raw, KEYS[:peers])
    assert (outcome(open_envelope, raw, KEYS[:peers])[0] == "value") == (mutation == "none")


def test_an_envelope_over_the_limit_is_refused_as_before() -> None:
    raw, keys = _messages("duel", 0)[5]
    opened_as_before(raw + b"\x00" * MAX_MESSAGE_BYTES, keys)


def old_record_of(value: list[Any], index: int) -> Any:
    """``record_of`` before issue 48's shortcut for a ``msg`` record."""
    kind = value[0] if value else None
    if not isinstance(kind, str) or kind not in FIELDS:
        raise TranscriptError(f"record {index} is of no kind a transcript holds ({kind!r})")
    cls, types = FIELDS[kind]
    fields = value[1:]
    if len(fields) != len(types) or not all(
        type(f) in allowed for f, allowed in zip(fields, types, strict=True)
    ):
        shape = ", ".join(type(f).__name__ for f in fields)
        raise TranscriptError(f"record {index}, a {kind!r} record, holds ({shape}): not its fields")
    return cls(*fields)


class Blob(bytes):
    """A subclass of bytes: no field of a record."""


record_fields: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 2),
    st.text(max_size=2),
    st.binary(max_size=2),
    st.builds(Blob, st.binary(max_size=2)),
    st.dictionaries(st.text(max_size=1), st.integers()),
)


@given(
    st.sampled_from(["msg", "msg", "rejected", "fault", "desync_state", "other"]),
    st.lists(record_fields, max_size=6),
)
def test_a_record_is_typed_or_refused_as_before(kind: str, fields: list[Any]) -> None:
    value = [kind, *fields]
    now, before = outcome(lambda: record_of(value, 4)), outcome(lambda: old_record_of(value, 4))
    assert now == before
    if now[0] == "value":
        assert [type(field) for field in vars(now[1]).values()] == [type(f) for f in fields]


@pytest.mark.parametrize("peers", [2, 3, 4])
@pytest.mark.parametrize("seed", range(3))
def test_the_actions_a_report_shows_opened_are_those_worked_out_again(peers: int, seed: int) -> None:
    # (the verdict's, taken by the report, against with_openings asked again at the replay's
    # end: of whole transcripts, and of transcripts cut before their disclosures or during them)
    data = transcript(play("hornswoggle", peers=peers, seed=seed), seed % peers)
    whole = read(data)
    judged = 0
    for records in (whole.records, whole.records[:-1], whole.records[: -peers - 2], whole.records[:-12]):
        observer = observer_of(whole.header, recording=False, ledger=False)
        for _ in replay(type(whole)(whole.header, records), observer, evidence=True):
            pass
        match, ending = observer.played.match, observer.played.ending
        again, _ = match.cards.with_openings(match.spec, match.log, ending.disclosures.values())
        if ending.judged is not None:
            judged += 1
            assert ending.judged.opened == tuple(again)
    assert judged >= 1  # (the whole transcript was judged)
