"""The canonical encoding: one byte form per value, strict decoding."""

from __future__ import annotations

import threading
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgenius.canonical import decode, digest, encode, pack_shaped
from p2pgenius.errors import EncodingError

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text() | st.binary(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@given(plain)
def test_decode_inverts_encode(value: Any) -> None:
    assert decode(encode(value)) == value


def test_map_order_does_not_change_the_bytes() -> None:
    assert encode({"b": 1, "a": 2}) == encode({"a": 2, "b": 1})
    assert digest({"b": 1, "a": [1, 2]}) == digest({"a": (1, 2), "b": 1})


def test_equal_but_different_values_encode_differently() -> None:
    assert encode(1) != encode(True)


@pytest.mark.parametrize("value", [1.5, {1: "x"}, {"a": {2.0}}, object()])
def test_values_without_a_canonical_form_are_refused(value: Any) -> None:
    with pytest.raises(EncodingError):
        encode(value)


@pytest.mark.parametrize(
    "data",
    [
        msgpack.packb({"b": 1, "a": 2}),  # keys out of order
        b"\xcd\x00\x01",  # the integer 1 in three bytes instead of one
        b"\x82\xa1a\x01\xa1a\x02",  # a duplicate key
        msgpack.packb(1.0),  # a float
        b"\xc1",  # never used
        b"\x92\x01",  # truncated
        encode([1]) + b"\x00",  # trailing bytes
    ],
)
def test_non_canonical_bytes_are_refused(data: bytes) -> None:
    with pytest.raises(EncodingError):
        decode(data)


def test_a_leaf_nested_too_deep_is_refused_and_str_subclass_keys_still_encode() -> None:
    # The fast path for leaves must not skip the depth limit (a review finding): what one version
    # refuses, every version must refuse, or peers would disagree on which bytes are canonical.
    deep: Any = 1
    for _ in range(66):
        deep = [deep]
    with pytest.raises(EncodingError, match="nests too deeply"):
        encode(deep)

    class Key(str):
        pass

    assert encode({Key("a"): 1}) == encode({"a": 1})


def test_integers_beyond_the_format_are_refused_and_its_ends_encode() -> None:
    assert decode(encode([-(2**63), 2**64 - 1])) == [-(2**63), 2**64 - 1]
    for value in (2**64, -(2**63) - 1, [1, {"a": 2**70}]):
        with pytest.raises(EncodingError, match="integer out of range"):
            encode(value)


def test_non_canonical_bytes_are_refused_for_the_first_problem_in_key_order() -> None:
    # Decoding checks in the order encoding does (a map by its sorted keys), so the reason a
    # peer's message is refused (written down, and told) is the same on every version.
    data = msgpack.packb({"b": [1.5], "a": {b"k": 1}}, use_bin_type=True)
    with pytest.raises(EncodingError, match="map key must be a string, got bytes"):
        decode(data)
    with pytest.raises(EncodingError, match="the bytes differ"):
        decode(msgpack.packb({"b": [1], "a": {"k": [2]}}, use_bin_type=True))
    with pytest.raises(EncodingError, match="float has no canonical encoding"):
        decode(msgpack.packb({"a": [1], "b": {"k": 2.5}}, use_bin_type=True))


def test_values_encoded_from_many_threads_at_once_keep_their_own_bytes() -> None:
    # One packer serves the process: no thread may see another's half-packed value.
    values = [[n, "x" * n, {"k": bytes(n)}] for n in range(8)]
    expected = [msgpack.packb([n, "x" * n, {"k": bytes(n)}], use_bin_type=True) for n in range(8)]
    wrong: list[int] = []

    def work(n: int) -> None:
        for _ in range(3000):
            if encode(values[n]) != expected[n]:
                wrong.append(n)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


@pytest.mark.parametrize("levels", [62, 63, 64, 65])
def test_a_list_of_leaves_in_a_map_is_refused_at_the_depth_a_list_of_lists_is(levels: int) -> None:
    # A map's list of leaves is normalised in line (issue 48): at every depth around the limit it
    # is refused exactly where the same list, nested in lists alone, is.
    in_map: Any = {"a": [1, 2]}
    in_lists: Any = [[1, 2]]
    for _ in range(levels):
        in_map, in_lists = [in_map], [in_lists]
    refused = []
    for value in (in_map, in_lists):
        try:
            encode(value)
        except EncodingError:
            refused.append(True)
        else:
            refused.append(False)
    assert refused[0] == refused[1]
    assert refused[0] == (levels >= 63)  # (where it always was)


@pytest.mark.parametrize("value", [object(), {"a": [1, object()]}, "\ud800"])
def test_packing_a_value_msgpack_cannot_pack_is_an_encoding_error(value: object) -> None:
    """A form packed as it is (a game's state in canonical shape) that holds what msgpack
    cannot pack is refused as every other value with no canonical encoding is."""
    with pytest.raises(EncodingError, match="cannot encode"):
        pack_shaped(value)
