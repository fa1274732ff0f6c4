"""The screen's text: pure functions from what this machine knows to styled lines.

A board is drawn by the game's front end (``p2pgenius.ui.frontends``) from the engine's ``view``
for the player's seat (so hidden information is exactly what that seat may know: the session
already keeps the rest off this machine); a game without one is drawn by the generic front end.
Lines are prompt_toolkit fragments ``(style, text)``. Nothing here touches the terminal, so the
tests read the same text the player sees. ``ascii`` swaps every non-ASCII glyph for a plain one.
"""

from __future__ import annotations

from collections.abc import Mapping

from p2pgenius.ui.frontends import BoardRequest
from p2pgenius.ui.lines import Fragment, Glyphs, Line, plain, seat_name, width_of

__all__ = [
    "BoardRequest",
    "Fragment",
    "Glyphs",
    "Line",
    "clock_text",
    "clocks_line",
    "plain",
    "seat_name",
]


# -- clocks ---------------------------------------------------------------------------------------


def clock_text(seconds: float) -> str:
    """12:00, 0:09; 1:05:00 past an hour; 6d 23:59 past a day (a turn of a week)."""
    whole = max(int(seconds + 0.999), 0)
    minutes, second = divmod(whole, 60)
    hours, minute = divmod(minutes, 60)
    if hours >= 24:
        return f"{hours // 24}d {hours % 24}:{minute:02d}"
    if hours:
        return f"{hours}:{minute:02d}:{second:02d}"
    return f"{minutes}:{second:02d}"


def clocks_line(
    readings: Mapping[int, tuple[str, float, bool]],
    names: Mapping[int, str],
    glyphs: Glyphs,
    width: int = 200,
) -> Line:
    """Every seat's clock: time left, and a mark on the running ones; their kind ("turn",
    "round") once if all share it. When that does not fit in ``width``, the names go without
    the kind; when that does not either, the names are cut short (to 8 letters, then 5, then 3:
    never so short that two names read alike, "captain 2" and "captain 3"), and left out only
    when even those do not fit."""
    kinds = {kind for kind, _, _ in readings.values()}
    shared = next(iter(kinds)) if len(kinds) == 1 else ""
    for kind_said, cut in ((True, None), (False, None), (False, 8), (False, 5), (False, 3), (False, 0)):
        line: Line = [("class:label", f" {shared} clocks " if shared and kind_said else " clocks ")]
        short = {seat: name[:cut] if cut is not None else name for seat, name in names.items()}
        if cut and len(set(short.values())) < len(set(names.values())):
            continue  # (cut this short, two players would read as one)
        for seat, (kind, left, running) in sorted(readings.items()):
            style = "class:clock.low" if left < 60 else ("class:clock.running" if running else "class:clock")
            mark = glyphs.running if running else glyphs.stopped
            who = seat_name(short, seat)
            line.append((style, f" {mark}{who}{'' if shared else ' ' + kind} {clock_text(left)} "))
        if len(line) == 1:
            line.append(("class:dim", " (no clock running)"))
        if width_of(line) <= width:
            break
    return line
