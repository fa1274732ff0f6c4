"""Styled text lines, the stuff every board is made of: prompt_toolkit fragments ``(style, text)``,
the few glyphs boards use (in Unicode and in ASCII), seat names, and the fitting of lines to a
width (wrapped at spaces, never cut). Pure: no terminal, no game."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from prompt_toolkit.utils import get_cwidth

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
    rule: str = "-"

    @classmethod
    def pick(cls, ascii_only: bool) -> Glyphs:
        if ascii_only:
            return cls(bar="#", gap=".", running=">", stopped=" ", sep="|", hidden="?", rule="-")
        return cls(
            bar="\u2588",
            gap="\u00b7",
            running="\u25b6",
            stopped=" ",
            sep="\u2502",
            hidden="\u25a0",
            rule="\u2500",
        )


def plain(lines: Sequence[Line]) -> str:
    """The text of some lines, without styles (for tests and the ASCII check)."""
    return "\n".join("".join(text for _, text in line) for line in lines)


def seat_name(names: Mapping[int, str], seat: int) -> str:
    """ "alice (p0)"."""
    name = names.get(seat)
    return f"{name} (p{seat})" if name else f"p{seat}"


def namer(names: Mapping[int, str]) -> Callable[[int], str]:
    """How a screen says a seat in an event's words: "Hana (p1)". The seat always stays: names
    are the players' own choice, and one could be another's look-alike (in Cyrillic letters, or
    "p0"); one peer's two seats share a name. A seat with no name, or only a session's placeholder
    ("peer 0": a peer's number, not a seat's), stays "p2"."""

    def who(seat: int) -> str:
        name = names.get(seat, "")
        return f"p{seat}" if not name or re.fullmatch(r"peer \d+", name) else seat_name(names, seat)

    return who


def width_of(line: Line | str) -> int:
    """How many terminal columns ``line`` takes (wide characters count twice)."""
    if isinstance(line, str):
        return sum(get_cwidth(c) for c in line)
    return sum(get_cwidth(c) for _, text in line for c in text)


def wrap(line: Line, width: int, indent: int | None = None) -> list[Line]:
    """``line`` as lines of at most ``width`` columns, broken at spaces where it can be (a word
    longer than a whole line is broken where it must). Continuation lines start with ``indent``
    spaces (default: the line's own leading spaces, plus one)."""
    if width <= 0 or width_of(line) <= width:
        return [line]
    if indent is None:
        text = "".join(t for _, t in line)
        indent = min(len(text) - len(text.lstrip(" ")) + 1, width // 3)
    filling = _Filling(width, indent)
    for style, piece in _pieces(line):
        filling.add(style, piece)
    return filling.done()


def _pieces(line: Line) -> list[Fragment]:
    """``line``'s fragments cut into words and runs of spaces, each keeping its style."""
    pieces: list[Fragment] = []
    for style, text in line:
        piece = ""
        for char in text:
            if piece and (char == " ") != (piece[-1] == " "):
                pieces.append((style, piece))
                piece = ""
            piece += char
        if piece:
            pieces.append((style, piece))
    return pieces


class _Filling:
    """Lines being filled, piece by piece, up to ``width`` columns, each after the first starting
    with ``indent`` spaces (what :func:`wrap` does)."""

    def __init__(self, width: int, indent: int) -> None:
        self.width, self.indent = width, indent
        self.out: list[Line] = []
        self.current: Line = []
        self.used = self.start = 0  # columns used on this line; how many of them are the indent

    def add(self, style: str, piece: str) -> None:
        """A word or a run of spaces: on this line if it fits, else on the next (spaces at a break
        vanish; a word longer than a whole line is broken where it must)."""
        size = width_of(piece)
        if self.used + size <= self.width:
            self.current.append((style, piece))
            self.used += size
            return
        if piece.startswith(" "):
            self.new_line()
            return
        if self.used > self.start:
            self.new_line()
        while self.used + width_of(piece) > self.width:
            cut = self._room_for(piece)
            self.current.append((style, piece[:cut]))
            self.new_line()
            piece = piece[cut:]
        self.current.append((style, piece))
        self.used += width_of(piece)

    def _room_for(self, piece: str) -> int:
        """How many of ``piece``'s characters fit on this line (at least one: a line takes one
        character even when it is wider than the room, or the wrapping would never end)."""
        cut, taken = 0, 0
        while cut < len(piece) and self.used + taken + get_cwidth(piece[cut]) <= self.width:
            taken += get_cwidth(piece[cut])
            cut += 1
        return max(cut, 1)

    def new_line(self) -> None:
        while len(self.current) > 1 and not self.current[-1][1].strip():
            self.current.pop()  # no trailing spaces
        self.out.append(self.current)
        self.current, self.used, self.start = [("", " " * self.indent)], self.indent, self.indent

    def done(self) -> list[Line]:
        """The lines filled (one empty line for nothing at all)."""
        if self.used > self.start:
            self.out.append(self.current)
        return self.out or [[]]


def wrap_all(lines: Sequence[Line], width: int) -> list[Line]:
    """Every line wrapped to ``width`` (see :func:`wrap`)."""
    return [piece for line in lines for piece in wrap(line, width)]


def pad(line: Line, width: int) -> Line:
    """``line`` filled with spaces to ``width`` columns (or cut to it, for side-by-side columns
    whose content was already fitted)."""
    used = width_of(line)
    if used <= width:
        return [*line, ("", " " * (width - used))]
    out: Line = []
    left = width
    for style, text in line:
        if left <= 0:
            break
        piece = ""
        for char in text:
            if get_cwidth(char) > left:
                break
            piece += char
            left -= get_cwidth(char)
        out.append((style, piece))
    return out + [("", " " * left)] if left > 0 else out


def side_by_side(columns: Sequence[Sequence[Line]], widths: Sequence[int], gap: int = 2) -> list[Line]:
    """Columns of lines next to each other, each wrapped to its width."""
    fitted = [wrap_all(list(column), width) for column, width in zip(columns, widths, strict=True)]
    rows = max((len(column) for column in fitted), default=0)
    out: list[Line] = []
    for row in range(rows):
        line: Line = []
        for index, (column, width) in enumerate(zip(fitted, widths, strict=True)):
            last = index == len(fitted) - 1
            cell = column[row] if row < len(column) else []
            line += cell if last else pad(cell, width) + [("", " " * gap)]
        out.append(line)
    return out


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """ "1 card", "2 cards", "0 cards"."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"
