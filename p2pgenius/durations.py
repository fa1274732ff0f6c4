"""Lengths of time as people write and read them: a number of seconds (``90``, as the command line
always took), or a number and a unit, ``90s``, ``5m``, ``12h``, ``1d``, and such parts together
in decreasing units, ``1h30m``, ``2d12h``. Letters in either case; no spaces (a duration is one
word on a command line: ``1h30m``, not ``1h 30m``); every unit at most once, the larger first;
never zero. :func:`words` writes a length back the same way, so what a person types and what the
program shows (the lobby, the help, the table) read alike.

Pure (no I/O, no clock): the command line parses with it, the screens show with it.
"""

from __future__ import annotations

import re

from p2pgenius.errors import LocalMisuseError, shown

TYPE_CHECKING = False  # (no typing at run time: every command's start imports this)
if TYPE_CHECKING:
    from typing import Final

UNITS: Final = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
"""The units, largest first: a day, an hour, a minute, a second."""

ACCEPTED: Final = "a duration is like 90s, 5m, 12h, 1d or 1h30m"
"""What a duration looks like, as every refusal says it."""

_MAX_CHARS: Final = 40
"""The longest text read (far longer than any real duration; a number of thousands of digits is
not converted)."""

_SPELLED: Final = re.compile("".join(rf"(?:(\d+){unit})?" for unit, _ in UNITS), re.ASCII)
"""The parts of a duration, each unit at most once and in decreasing order (``1h30m``)."""


class DurationError(LocalMisuseError):
    """A text that is no duration (its message says what one is like)."""


def parse(text: str) -> int:
    """The seconds ``text`` says: ``90`` or ``90s``, ``5m``, ``12h``, ``1d``, ``1h30m``, ... (see
    the module). Refuses anything else, zero among it, with one line saying what is accepted."""
    lowered = text.lower()
    spelled = _SPELLED.fullmatch(lowered) if len(lowered) <= _MAX_CHARS else None
    if lowered.isascii() and lowered.isdigit() and len(lowered) <= _MAX_CHARS:
        seconds = int(lowered)
    elif spelled is not None and any(spelled.groups()):
        seconds = sum(int(n) * size for n, (_, size) in zip(spelled.groups(), UNITS, strict=True) if n)
    else:
        raise DurationError(f"{shown(text)}: {ACCEPTED}")
    if seconds <= 0:
        raise DurationError(f"{shown(text)}: a duration is more than nothing, like 90s, 5m, 12h or 1d")
    return seconds


def words(seconds: int) -> str:
    """``seconds`` written as :func:`parse` reads it, in the fewest parts, each unit at most
    once: 86400 is "1d", 5400 "1h30m", 90 "1m30s", 45 "45s". ``seconds`` is a positive whole
    number (a length of time the program shows is never zero)."""
    if seconds <= 0:
        raise ValueError(f"a duration is more than nothing, not {seconds}")
    parts = []
    for unit, size in UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
