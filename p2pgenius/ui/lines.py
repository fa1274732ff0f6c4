"""Styled text lines, the stuff every board is made of: prompt_toolkit fragments ``(style, text)``,
the few glyphs boards use (in Unicode and in ASCII), and seat names. Pure: no terminal, no game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Fragment = tuple[str, str]
Line = list[Fragment]


@dataclass(frozen=True)
class Glyphs:
    """The few symbols the boards use, in Unicode and in ASCII."""

    bar: str
    gap: str
    running: str
    stopped: str
    sep: str
    hidden: str

    @classmethod
    def pick(cls, ascii_only: bool) -> Glyphs:
        if ascii_only:
            return cls(bar="#", gap=".", running=">", stopped=" ", sep="|", hidden="?")
        return cls(bar="\u2588", gap="\u00b7", running="\u25b6", stopped=" ", sep="\u2502", hidden="\u25a0")


def plain(lines: Sequence[Line]) -> str:
    """The text of some lines, without styles (for tests and the ASCII check)."""
    return "\n".join("".join(text for _, text in line) for line in lines)


def seat_name(names: Mapping[int, str], seat: int) -> str:
    """ "alice (p0)"."""
    name = names.get(seat)
    return f"{name} (p{seat})" if name else f"p{seat}"
