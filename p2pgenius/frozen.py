"""Small frozen records without ``dataclasses``, for the modules every command's start imports.

Building a dataclass at import costs a millisecond or two (it compiles its methods), and the
first one imports ``inspect`` with ``ast``, ``dis`` and ``tokenize``: 10 ms that ``--help``,
``rules`` and a joiner's first handshake message (``net/early.py``) would otherwise wait for. A
:class:`Frozen` subclass names its fields in ``_fields`` (in its ``__init__``'s order), sets them
once with :meth:`Frozen._set`, and is compared, hashed, copied and shown by them.
"""

from __future__ import annotations


class Frozen:
    """Set once in ``__init__``; equal, hashed and shown by the fields of ``_fields`` (those of
    ``_hidden`` are left out of what it shows)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _hidden: tuple[str, ...] = ()

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: {name} cannot be set")

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:  # (a copy, a pickle: built anew)
        return type(self), self._key()

    def __repr__(self) -> str:
        shown = [name for name in self._fields if name not in self._hidden]
        said = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__name__}({said})"
