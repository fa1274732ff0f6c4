"""The I/O layer: keys and transcripts on disk, and (with trio) the network."""

from __future__ import annotations

TYPE_CHECKING = False  # (no typing at run time: every command's start imports this)
if TYPE_CHECKING:
    from typing import Final


DEFAULT_GRACE_S: Final = 120.0
"""How long a peer may stay silent while the match waits on it before it forfeits."""
