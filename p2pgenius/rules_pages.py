"""The games' rules pages, shipped in the package as ``p2pgenius/rules/GAME.md`` (the same text
as docs/rules/): ``p2pgenius rules GAME`` prints one as it is; the terminal UI shows one over the
board as text for reading on a screen (:func:`rules_page`: headings, paragraphs, lists and tables
without Markdown's marks, and without the asides that point into the source tree)."""

from __future__ import annotations

import os
import re

from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.catalog import find

TYPE_CHECKING = False  # (``rules`` is a quick command: neither typing nor dataclasses at run time)
if TYPE_CHECKING:
    from typing import Final

HEADING: Final = "heading"
SUBHEADING: Final = "subheading"
TEXT: Final = "text"
TABLE: Final = "table"
"""The kinds of the lines of :func:`rules_page`."""


def rules_text(game: str) -> str:
    """The rules page of ``game`` (the games' table names it); raises LocalMisuseError for an
    unknown game, or if this installation has no such page."""
    page = os.path.join(os.path.dirname(__file__), "rules", find(game).rules_file)  # (an absolute path stays)
    try:
        with open(page, encoding="utf-8") as file:  # (the package is a folder: pip unpacks it)
            return file.read()
    except OSError as exc:
        raise LocalMisuseError(f"the rules of {game} are missing from this installation: {exc}") from None


def rules_page(game: str, *, ascii_only: bool = False) -> list[tuple[str, str]]:
    """The rules of ``game`` as lines to read on a screen, each with its kind (``HEADING``,
    ``SUBHEADING``, ``TEXT``, ``TABLE``): a paragraph or a list item is one line (the screen
    wraps it), tables are aligned, and asides naming files of the source tree are left out."""
    return render(rules_text(game), ascii_only=ascii_only)


def render(markdown: str, *, ascii_only: bool = False) -> list[tuple[str, str]]:
    """Markdown (the subset the rules pages use) as readable lines; see :func:`rules_page`."""
    page = _Page(bullet="- " if ascii_only else "\u2022 ")
    for raw in _without_source_asides(markdown).splitlines():
        page.add(raw.rstrip())
    return page.finished()


class _Page:
    """The lines so far, and the paragraph or table being gathered (a line of either may follow)."""

    def __init__(self, bullet: str) -> None:
        self.bullet = bullet
        self.out: list[tuple[str, str]] = []
        self.paragraph: list[str] = []
        self.table: list[list[str]] = []

    def add(self, line: str) -> None:
        """One line of Markdown (right-stripped)."""
        stripped = line.strip()
        if stripped.startswith("|"):
            self._table_row(stripped)
            return
        if self.table:
            self._flush()
        if not stripped:
            self._blank()
        elif heading := re.match(r"(#+)\s+(.*)", stripped):
            self._flush()
            level = len(heading.group(1))
            title = inline(heading.group(2))
            self.out.append((HEADING if level <= 2 else SUBHEADING, title.upper() if level == 1 else title))
        elif item := re.match(r"(\s*)([*-]|\d+\.)\s+(.*)", line):
            self._flush()
            depth = len(item.group(1)) // 2
            mark = self.bullet if item.group(2) in "*-" else item.group(2) + " "
            self.paragraph.append("  " * depth + mark + item.group(3))
        else:
            self.paragraph.append(stripped)

    def finished(self) -> list[tuple[str, str]]:
        """Every line, without blank ones at the end."""
        self._flush()
        while self.out and self.out[-1] == (TEXT, ""):
            self.out.pop()
        return self.out

    def _table_row(self, stripped: str) -> None:
        if self.paragraph:
            self._flush()
        cells = [inline(cell.strip()) for cell in stripped.strip("|").split("|")]
        if not all(re.fullmatch(r":?-+:?", cell.replace(" ", "")) for cell in cells if cell):
            self.table.append(cells)

    def _blank(self) -> None:
        """A paragraph ends; one blank line, however many there were."""
        self._flush()
        if self.out and self.out[-1] != (TEXT, ""):
            self.out.append((TEXT, ""))

    def _flush(self) -> None:
        if self.paragraph:
            self.out.append((TEXT, inline(" ".join(self.paragraph))))
            self.paragraph.clear()
        if self.table:
            self.out.extend((TABLE, row) for row in _table(self.table))
            self.out.append((TEXT, ""))
            self.table.clear()


def inline(text: str) -> str:
    """A line without Markdown's inline marks: emphasis, code, links."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # [words](where) -> words
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return text.replace("`", "")


def _table(rows: list[list[str]]) -> list[str]:
    """Rows of cells as aligned text (the last column is not padded: it may wrap)."""
    count = max(len(row) for row in rows)
    rows = [row + [""] * (count - len(row)) for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(count)]
    out = []
    for index, row in enumerate(rows):
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        out.append("  ".join(cells).rstrip())
        if index == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def _without_source_asides(text: str) -> str:
    """``text`` without the parenthesised asides that send a reader to a file of the source tree
    ("(protocol/SPEC.md, section 6)", "(see `squares.py`)"): a player has no such files."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "(":
            end = _closing(text, index)
            if end is not None and re.search(r"[\w/-]+\.(?:md|py)\b", text[index:end]):
                while out and out[-1] in " \t":
                    out.pop()
                index = end + 1
                continue
        out.append(char)
        index += 1
    return "".join(out)


def _closing(text: str, start: int) -> int | None:
    """The index of the parenthesis closing the one at ``start`` (None if none does)."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return None
