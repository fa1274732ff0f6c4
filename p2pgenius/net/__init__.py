"""The I/O layer: keys and transcripts on disk, and (with trio) the network."""

from typing import Final

DEFAULT_GRACE_S: Final = 120.0
"""How long a peer may stay silent while the match waits on it before it forfeits."""
