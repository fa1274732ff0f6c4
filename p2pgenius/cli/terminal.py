"""The one way text reaches the terminal from the command line: every character that could drive
it (escape sequences, other control characters, bidirectional overrides, line and paragraph
separators) is shown as ``?``. Text from a peer or a file (names, chat, reasons, a transcript's
fields) may hold anything; the command line writes only through :class:`Sanitizing` (standard
output) and :func:`error` (standard error). The full-screen UI draws through prompt_toolkit, which
shows control characters as ``^X``, and takes peers' text through ``wording.printable`` too.

One escape sequence is sent on purpose, by :func:`to_clipboard`: OSC 52, which asks the terminal
to put a host's invite on the clipboard.
"""

from __future__ import annotations

import io
import os
import sys

TYPE_CHECKING = False  # (no typing at run time: every command's start imports this)
if TYPE_CHECKING:
    from typing import Final, TextIO

NO_CLIPBOARD: Final = "P2PGENIUS_NO_CLIPBOARD"
"""Set (to anything but the empty string), p2pgenius never asks the terminal to set the clipboard."""


def clean(text: str) -> str:
    """``text`` with every character but printable ones and the line break shown as ``?``."""
    return "".join(c if c.isprintable() or c == "\n" else "?" for c in text)


class Sanitizing(io.TextIOBase):
    """A text stream that writes to ``stream`` through :func:`clean` (and says what it is: a
    terminal or not, its encoding), so a command can be handed it as its standard output."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(clean(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"

    def writable(self) -> bool:
        return True


def error(text: str) -> None:
    """``error: TEXT`` on standard error: one line, and any list the error offers (the matches
    ``resume`` could take up, say) on lines of its own below it, indented."""
    first, *rest = clean(text).split("\n")
    sys.stderr.write(
        "".join([f"error: {first}\n", *(f"  {line.strip()}\n" for line in rest if line.strip())])
    )


def to_clipboard(text: str, stream: TextIO | Sanitizing | None = None) -> bool:
    """Ask the terminal on ``stream`` (default: standard output; a :class:`Sanitizing` one is
    gone around, as it would spoil the sequence) to put ``text`` on the clipboard: OSC 52,
    ``ESC ] 52 ; c ; BASE64 BEL``. Only a terminal is asked: not a pipe or a file (so never a
    test's captured output), not ``TERM=dumb``, and not when ``P2PGENIUS_NO_CLIPBOARD`` is set.
    Returns whether it was asked; a terminal may ignore it (many do unless allowed, and tmux
    passes it on only with ``set-clipboard on``)."""
    stream = sys.stdout if stream is None else stream
    stream = stream.stream if isinstance(stream, Sanitizing) else stream
    if os.environ.get(NO_CLIPBOARD) or os.environ.get("TERM") == "dumb" or not stream.isatty():
        return False
    import base64  # noqa: PLC0415  (only here: it imports struct and binascii, at every start-up)

    data = base64.b64encode(clean(text).encode("utf-8")).decode("ascii")
    stream.write(f"\x1b]52;c;{data}\x07")
    stream.flush()
    return True


def interactive() -> bool:
    """Whether a person can answer questions here."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size`` gives it: ``COLUMNS`` when it is a
    positive number, else standard output's terminal, else 80. Here rather than through shutil,
    which imports the compression modules (3 ms of every command's start, for this one number;
    argparse asks for it at every argument added)."""
    try:
        wanted = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        wanted = 0
    if wanted > 0:
        return wanted
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80
