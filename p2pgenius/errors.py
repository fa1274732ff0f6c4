"""The one exception tree of p2pgenius.

Every error a user or a peer can cause is a :class:`P2PGeniusError`; the command line turns it into a
single line on standard error. Anything else escaping is a bug.
"""

from __future__ import annotations


class P2PGeniusError(Exception):
    """Root of every error this package raises on purpose."""


class IllegalActionError(P2PGeniusError):
    """An action the rules do not allow in this state (or that is not a well-formed action)."""


class LocalMisuseError(P2PGeniusError):
    """The caller (this program or its user) asked for something impossible, e.g. a bad setup."""


class EncodingError(P2PGeniusError):
    """Data that has no canonical encoding, or bytes that are not canonical."""
