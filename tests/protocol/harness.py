"""The in-memory table (p2pgenius.inmemory), as the protocol tests use it."""

from p2pgenius.inmemory import MemoryTable, Tamper, play, transcript

__all__ = ["MemoryTable", "Tamper", "play", "transcript"]
