"""Issue 48, the message's own path: each shortcut a message takes on its way out and in gives
the bytes, the values and the refusals (the same words) of the longer path it stands in for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgenius import canonical
from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.protocol.bodies import KINDS, Body, BodyError, Invalid, parse_body
from p2pgenius.protocol.records import TranscriptError, frame, records

Outcome = tuple[str, Any]


def outcome(run: Callable[[], Any]) -> Outcome:
    """What ``run`` gives, or the type and words of what it raises."""
    try:
        return "value", run()
    except P2PGeniusError as exc:
        return type(exc).__name__, str(exc)


class Text(str):
    """A subclass of a plain type: it takes the general path."""


class Blob(bytes):
    """A subclass of a plain type: it takes the general path."""


leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**65)  # (some out of the canonical range)
    | st.text()
    | st.sampled_from(["\ud800", "a\udfffb"])  # (lone surrogates: no UTF-8 form)
    | st.binary()
    | st.floats(allow_nan=False)
    | st.builds(Text, st.text(max_size=3))
    | st.builds(Blob, st.binary(max_size=3))
)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


@given(values | st.lists(leaves))
def test_encode_gives_the_bytes_and_refusals_of_normalising_first(value: Any) -> None:
    shaped_first = outcome(lambda: canonical.pack_shaped(canonical.normalise(value)))
    assert outcome(lambda: encode(value)) == shaped_first


odd_keys = st.one_of(st.text(max_size=3), st.integers(), st.builds(Text, st.text(max_size=3)))


@given(st.dictionaries(odd_keys, st.integers(-5, 5) | st.binary(max_size=3)))
def test_a_map_of_odd_keys_is_refused_or_sorted_as_before(value: dict[Any, Any]) -> None:
    got = outcome(lambda: encode(value))
    first_odd = next((key for key in value if not isinstance(key, str)), None)
    if first_odd is not None:
        assert got == ("EncodingError", f"map key must be a string, got {type(first_odd).__name__}")
    else:
        assert got[0] == "value" and decode(got[1]) == dict(sorted(value.items()))


# Sizes around msgpack's forms: fixstr / str 8 / str 16 / str 32, bin 8 / bin 16 / bin 32.
SIZES = [0, 1, 31, 32, 255, 256, 257, 65_535, 65_536, 70_000]


@pytest.mark.parametrize("size", SIZES)
def test_a_message_record_is_read_as_decoding_reads_it(size: int) -> None:
    for payload in (b"\x07" * size, "e" * size):
        record = encode(["msg", payload])
        assert record == canonical.pack_shaped(canonical.normalise(["msg", payload]))
        assert list(records(frame(record), headed=False)) == [decode(record)] == [["msg", payload]]


def _refusal(record: bytes) -> Outcome:
    try:
        decode(record)
    except EncodingError as exc:
        return "TranscriptError", f"a record at byte 0 is not canonical: {exc}"
    return "value", [decode(record)]


def _non_canonical_messages(size: int) -> list[bytes]:
    """``["msg", bytes of size]`` in every form msgpack reads, the canonical one among them,
    and with the wrong length: each is read, or refused, as decode reads or refuses it."""
    payload = b"\x01" * size
    forms = [b"\xc4" + size.to_bytes(1, "big")] if size < 256 else []
    forms += [b"\xc5" + size.to_bytes(2, "big")] if size < 65_536 else []
    forms += [b"\xc6" + size.to_bytes(4, "big")]
    found = [b"\x92\xa3msg" + form + payload for form in forms]
    found += [b"\x92\xd9\x03msg" + forms[0] + payload]  # ("msg" as a str 8)
    found += [b"\x92\xa3msg" + forms[0] + payload[:-1]] if size else []  # (a byte short)
    found += [b"\x92\xa3msg" + forms[0] + payload + b"\x00"]  # (a byte more)
    found += [b"\x93\xa3msg" + forms[0] + payload + b"\xc0"]  # (an array of three)
    return found


@pytest.mark.parametrize("size", [0, 1, 200, 255, 256, 65_535, 65_536])
def test_a_message_record_in_any_other_form_is_refused_as_before(size: int) -> None:
    for record in _non_canonical_messages(size):
        assert _read(record) == _refusal(record)


def _read(record: bytes) -> Outcome:
    return outcome(lambda: list(records(frame(record), headed=False)))


_WIRE_TYPES = {"int": int, "bytes": bytes, "str": str, "dict[str, Any]": dict, "list[Any]": list}


def _old_parse_body(body: list[Any]) -> Body:
    """parse_body before issue 48's shortcut: every field's type looked at one by one."""
    cls = KINDS[body[0]]
    wanted = [_WIRE_TYPES[str(f.type)] for f in fields(cls)]
    values = body[1:]
    if len(values) != len(wanted) or not all(
        type(value) is int if kind is int else isinstance(value, kind)
        for value, kind in zip(values, wanted, strict=True)
    ):
        raise BodyError(f"malformed {body[0]} message")
    message = cls(*values)
    try:
        message.check()
    except BodyError as exc:
        return Invalid(body[0], str(exc))
    return message


field_values = st.one_of(
    st.integers(-3, 3),
    st.booleans(),
    st.binary(min_size=31, max_size=33),
    st.builds(Blob, st.binary(min_size=32, max_size=32)),
    st.text(max_size=3),
    st.builds(Text, st.text(min_size=1, max_size=3)),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2),
)


@given(st.sampled_from(sorted(KINDS)), st.lists(field_values, max_size=5))
def test_a_body_is_typed_and_refused_as_before(kind: str, values: list[Any]) -> None:
    body = [kind, *values]
    assert outcome(lambda: parse_body(body)) == outcome(lambda: _old_parse_body(body))


class Map(dict[str, Any]):
    """A subclass of a plain type, as a field's value."""


def _of(wanted: type) -> st.SearchStrategy[Any]:
    """A value of the ``wanted`` field type: itself, a subclass of it, or (for an int) a bool."""
    return {
        int: st.integers(-3, 3) | st.booleans(),
        bytes: st.binary(min_size=31, max_size=33) | st.builds(Blob, st.binary(min_size=32, max_size=32)),
        str: st.text(max_size=3) | st.builds(Text, st.text(min_size=1, max_size=3)),
        dict: st.dictionaries(st.text(max_size=2), st.integers(), max_size=2) | st.builds(Map),
        list: st.lists(st.integers(), max_size=2),
    }[wanted]


@st.composite
def well_typed(draw: st.DrawFn) -> list[Any]:
    """A body whose every field has its declared type, or a subclass of it, or a bool."""
    kind = draw(st.sampled_from(sorted(KINDS)))
    return [kind, *(draw(_of(_WIRE_TYPES[str(f.type)])) for f in fields(KINDS[kind]))]


@given(well_typed())
def test_a_well_typed_body_or_one_of_subclasses_is_typed_as_before(body: list[Any]) -> None:
    assert outcome(lambda: parse_body(body)) == outcome(lambda: _old_parse_body(body))


@given(st.sampled_from(sorted(KINDS)), st.lists(field_values, min_size=1, max_size=5))
def test_a_body_travels_as_its_fields_in_order(kind: str, values: list[Any]) -> None:
    try:
        message = parse_body([kind, *values])
    except BodyError:
        return
    assert message.to_body() == [message.kind, *(getattr(message, f.name) for f in fields(message))]
    if not isinstance(message, Invalid):
        assert message.to_body() == [kind, *values]


def test_a_transcript_s_records_of_every_kind_read_as_decoding_reads_them() -> None:
    from p2pgenius.inmemory import play

    for game in ("duel", "magic-square"):
        table = play(game, seed=3)
        for record in table.transcripts[0]:
            assert list(records(frame(record), headed=False)) == [decode(record)]


def test_a_damaged_transcript_is_refused_with_the_same_words() -> None:
    record = encode(["msg", b"\x05" * 300])
    with pytest.raises(TranscriptError, match="a damaged record at byte 0"):
        list(records(frame(record)[:-1], headed=False))


@pytest.mark.parametrize("buffer", [bytearray, memoryview])
def test_a_transcript_in_another_buffer_is_read_as_from_bytes(buffer: Callable[[bytes], Any]) -> None:
    # (the record read straight from its bytes is read so only from bytes: a slice of another
    # buffer would be that buffer, where decoding gives bytes)
    data = b"".join(frame(encode(["msg", bytes([size % 256]) * size])) for size in (0, 255, 256, 70_000))
    assert list(records(buffer(data), headed=False)) == list(records(data, headed=False))
    assert all(type(record[1]) is bytes for record in records(buffer(data), headed=False))
