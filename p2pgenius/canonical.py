"""The one canonical byte encoding of plain data, and the hash taken over it.

Game states, actions and (later) protocol messages are plain data: ``None``, ``bool``, ``int``,
``str``, ``bytes``, lists/tuples and string-keyed dicts. Their canonical form is msgpack with maps
sorted by key and the smallest encoding of every value (msgpack-python already picks the smallest
integer and length forms). Floats are refused: they do not round-trip identically across languages.
The same bytes are hashed, signed, sent and stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgpack

from p2pgenius.errors import EncodingError

# Plain data as this module accepts it. Kept loose because JSON-shaped values nest arbitrarily.
Plain = Any

# msgpack refuses to nest deeper than this; far above anything we produce.
_MAX_DEPTH = 64


def normalise(value: Plain, _depth: int = 0) -> Plain:
    """Return ``value`` with every map sorted by key and every tuple made a list.

    Raises EncodingError for floats, non-string map keys and types with no canonical form.
    """
    if _depth > _MAX_DEPTH:
        raise EncodingError("value nests too deeply")
    kind = type(value)
    if kind is str or kind is bytes or kind is bool or value is None:  # the common leaves, first
        return value
    if kind is int:
        if not -(2**63) <= value < 2**64:
            raise EncodingError(f"integer out of range: {value}")
        return value
    if kind is list or kind is tuple:
        return [normalise(item, _depth + 1) for item in value]
    if kind is dict and all(type(key) is str for key in value):
        return {key: normalise(value[key], _depth + 1) for key in sorted(value)}
    if isinstance(value, bool | str | bytes):  # subclasses: the general path below
        return value
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise EncodingError(f"integer out of range: {value}")
        return value
    if isinstance(value, list | tuple):
        return [normalise(item, _depth + 1) for item in value]
    if isinstance(value, Mapping):
        keys = list(value)
        for key in keys:
            if not isinstance(key, str):
                raise EncodingError(f"map key must be a string, got {type(key).__name__}")
        return {key: normalise(value[key], _depth + 1) for key in sorted(keys)}
    raise EncodingError(f"{type(value).__name__} has no canonical encoding")


def encode(value: Plain) -> bytes:
    """Encode plain data to its canonical msgpack bytes."""
    try:
        packed: bytes = msgpack.packb(normalise(value), use_bin_type=True)
    except (ValueError, OverflowError) as exc:  # e.g. a string with lone surrogates
        raise EncodingError(f"cannot encode: {exc}") from exc
    return packed


def decode(data: bytes) -> Plain:
    """Decode canonical msgpack bytes strictly: anything that would not re-encode identically fails."""
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)
    except Exception as exc:  # msgpack raises a zoo of types for bad input
        raise EncodingError(f"not valid msgpack: {exc}") from exc
    try:
        again = encode(value)
    except EncodingError as exc:
        raise EncodingError(f"not canonical: {exc}") from exc
    if again != data:
        raise EncodingError("not canonical: the bytes differ from the canonical encoding")
    return value


def digest(value: Plain) -> bytes:
    """SHA-256 of the canonical encoding of ``value``."""
    return hashlib.sha256(encode(value)).digest()
