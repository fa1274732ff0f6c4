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
from typing import Any, Final

import msgpack

from p2pgenius.errors import EncodingError

# Plain data as this module accepts it. Kept loose because JSON-shaped values nest arbitrarily.
Plain = Any

# msgpack refuses to nest deeper than this; far above anything we produce.
_MAX_DEPTH = 64

_LEAVES: Final = frozenset((str, bytes, bool, type(None), int))
"""The exact types that are their own canonical form (subclasses take the general path; the
range of an int is msgpack's to refuse, the one this format has)."""
_SEQUENCES: Final = frozenset((list, tuple))
_STR: Final = frozenset((str,))
_TOO_DEEP: Final = "value nests too deeply"
_INT_RANGE: Final = "integer out of range (the canonical form holds -2**63 to 2**64 - 1)"

# One packer for the process, rather than one made per value (most of the cost of packing a small
# value): packing runs in C from start to end, holding the interpreter (no Python hook is given),
# so no thread can meet it half-way, and it empties its buffer after every value, refused or not.
_PACKER: Final = msgpack.Packer(use_bin_type=True)


def normalise(value: Plain, _depth: int = 0) -> Plain:
    """Return ``value`` with every map sorted by key and every tuple made a list.

    Raises EncodingError for floats, non-string map keys and types with no canonical form.
    """
    if _depth > _MAX_DEPTH:
        raise EncodingError(_TOO_DEEP)
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind in _SEQUENCES:
        return _sequence(value, _depth + 1)
    if kind is dict and _STR.issuperset(map(type, value)):  # (every key an exact str: looked at in C)
        return _mapping(value, sorted(value), _depth + 1)
    return _subclassed(value, _depth)


# The containers' items are normalised in line where they are leaves (most are: hashes, names,
# numbers), a call per item being most of the cost. A leaf one level too deep is refused all the
# same, as when each item was normalised by its own call.


def _sequence(items: list[Plain] | tuple[Plain, ...], depth: int) -> list[Plain]:
    if depth > _MAX_DEPTH and items:
        raise EncodingError(_TOO_DEEP)
    if _LEAVES.issuperset(map(type, items)):  # (leaves alone, the common case: looked at in C)
        return list(items)
    return [item if type(item) in _LEAVES else normalise(item, depth) for item in items]


def _mapping(value: Mapping[str, Plain], keys: list[str], depth: int) -> dict[str, Plain]:
    if depth > _MAX_DEPTH and keys:
        raise EncodingError(_TOO_DEEP)
    out = {}
    for key in keys:
        item = value[key]
        kind = type(item)
        if kind in _LEAVES:
            out[key] = item
        elif kind in _SEQUENCES and depth < _MAX_DEPTH and _LEAVES.issuperset(map(type, item)):
            out[key] = list(item)  # (a list of leaves, as _sequence makes it: a call less each)
        else:
            out[key] = normalise(item, depth)
    return out


def _subclassed(value: Plain, depth: int) -> Plain:
    """The general path: subclasses of the plain types, any mapping, and what is refused."""
    if isinstance(value, bool | str | bytes):
        return value
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise EncodingError(_INT_RANGE)
        return value
    if isinstance(value, list | tuple):
        return _sequence(value, depth + 1)
    if isinstance(value, Mapping):
        keys = list(value)
        for key in keys:
            if not isinstance(key, str):
                raise EncodingError(f"map key must be a string, got {type(key).__name__}")
        return _mapping(value, sorted(keys), depth + 1)
    raise EncodingError(f"{type(value).__name__} has no canonical encoding")


def encode(value: Plain) -> bytes:
    """Encode plain data to its canonical msgpack bytes."""
    kind = type(value)
    if kind in _LEAVES or (kind is list and _LEAVES.issuperset(map(type, value))):
        return pack_shaped(value)  # (its own canonical form, as normalise returns it: a record, a signature)
    return pack_shaped(normalise(value))


def bin_head(size: int) -> bytes:
    """The head of the canonical encoding of bytes of ``size``: msgpack's bin 8, 16 or 32 tag, then
    the length in 1, 2 or 4 bytes (the smallest form that holds it)."""
    if size < 1 << 8:
        return b"\xc4" + size.to_bytes(1, "big")
    if size < 1 << 16:
        return b"\xc5" + size.to_bytes(2, "big")
    return b"\xc6" + size.to_bytes(4, "big")


def pack_shaped(value: Plain) -> bytes:
    """The canonical bytes of ``value`` already in canonical shape (as :func:`normalise` returns
    it: every map's keys in order, lists, the exact plain types), packed as it is; what a value
    out of msgpack's range or a string it cannot encode raise is an EncodingError here too."""
    try:
        packed: bytes = _PACKER.pack(value)
    except OverflowError:
        raise EncodingError(_INT_RANGE) from None
    except (ValueError, TypeError) as exc:  # a string with lone surrogates; a type msgpack lacks
        raise EncodingError(f"cannot encode: {exc}") from exc
    return packed


def decode(data: bytes) -> Plain:
    """Decode canonical msgpack bytes strictly: anything that would not re-encode identically fails."""
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)
    except Exception as exc:  # msgpack raises a zoo of types for bad input
        raise EncodingError(f"not valid msgpack: {exc}") from exc
    try:
        # What msgpack decodes is already of the exact plain types, lists and maps in the order
        # they came: it is canonical if it holds nothing refused, every map's keys are in order,
        # and packing it again gives the same bytes (the smallest forms, no duplicate key).
        in_order = _canonical_shape(value, 0)
        again = pack_shaped(value) if in_order else b""
    except EncodingError as exc:
        raise EncodingError(f"not canonical: {exc}") from exc
    if again != data:
        raise EncodingError("not canonical: the bytes differ from the canonical encoding")
    return value


def encodes(value: list[Plain], data: bytes, *, inside: int) -> bool:
    """Whether ``data`` is the canonical encoding of ``value``, a list :func:`decode` would give
    of it, each item a leaf or a list of leaves but ``value[inside]``: decode's proof, looking
    into that one item alone. False too where decode would refuse them (it says why)."""
    try:
        return _canonical_shape(value[inside], 1) and pack_shaped(value) == data
    except EncodingError:
        return False


def _canonical_shape(value: Plain, depth: int) -> bool:
    """Whether every map in the decoded ``value`` has its keys in order. What :func:`normalise`
    refuses is refused here too, the first found in the same order (maps by sorted key), with
    the same words: a peer whose message is refused is told why, and it is written down."""
    if depth > _MAX_DEPTH:
        raise EncodingError(_TOO_DEEP)
    kind = type(value)
    if kind in _LEAVES:
        return True
    if kind is list:
        items, in_order = value, True
    elif kind is dict:
        for key in value:
            if type(key) is not str:
                raise EncodingError(f"map key must be a string, got {type(key).__name__}")
        keys = list(value)
        ordered = sorted(keys)
        in_order = keys == ordered
        items = [value[key] for key in ordered]
    else:  # an extension type: refused, or (as a list) not what was sent
        normalise(value, depth)
        return False
    if depth >= _MAX_DEPTH and items:
        raise EncodingError(_TOO_DEEP)
    for item in items:
        if type(item) not in _LEAVES and not _canonical_shape(item, depth + 1):
            in_order = False
    return in_order


def digest(value: Plain) -> bytes:
    """SHA-256 of the canonical encoding of ``value``."""
    return hashlib.sha256(encode(value)).digest()
