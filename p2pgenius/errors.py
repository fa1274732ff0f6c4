"""The one exception tree of p2pgenius.

Every error a user or a peer can cause is a :class:`P2PGeniusError`; the command line turns it into a
single line on standard error. Anything else escaping is a bug.
"""

from __future__ import annotations

import reprlib

TYPE_CHECKING = False  # (no typing at run time: every command's start imports this)
if TYPE_CHECKING:
    from typing import Final


class P2PGeniusError(Exception):
    """Root of every error this package raises on purpose."""


class IllegalActionError(P2PGeniusError):
    """An action the rules do not allow in this state (or that is not a well-formed action)."""


class LocalMisuseError(P2PGeniusError):
    """The caller (this program or its user) asked for something impossible, e.g. a bad setup."""


class EncodingError(P2PGeniusError):
    """Data that has no canonical encoding, or bytes that are not canonical."""


_QUOTE: Final = reprlib.Repr()
_QUOTE.maxlevel, _QUOTE.maxdict, _QUOTE.maxlist = 2, 3, 3
_QUOTE.maxstring = _QUOTE.maxlong = _QUOTE.maxother = 24
_QUOTED_CHARS: Final = 60


def shown(value: object) -> str:
    """``value`` as a message may quote it, whatever a peer sent: on one line, printable (every
    control character escaped, as ``repr`` does) and short (a long text, number, list or map is
    cut with "...", never echoed whole, so a 60 kB value cannot fill a transcript's reasons)."""
    text = _QUOTE.repr(value)
    return text if len(text) <= _QUOTED_CHARS else text[: _QUOTED_CHARS - 3] + "..."


class PeerGoneError(P2PGeniusError):
    """The other side closed the connection or broke the channel (or, in a match, never came:
    the clocks say so when the match did not start)."""
