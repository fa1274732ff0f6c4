"""The in-memory table (p2pgenius.bots.local), as the protocol tests use it."""

from p2pgenius.bots.local import Table, Tamper, play, transcript

__all__ = ["Table", "Tamper", "play", "transcript"]
