"""The in-memory table (p2pgenius.inmemory), as the protocol tests use it."""

from p2pgenius.inmemory import Table, Tamper, play, transcript

__all__ = ["Table", "Tamper", "play", "transcript"]
