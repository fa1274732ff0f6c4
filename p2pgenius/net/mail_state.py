"""A correspondence match's own file beside its transcript (its name plus ``.mail``): how to reach
the match's mailbox and what the last visit left to do.

It holds the mailbox's secret (so it is private, mode 0600, written whole and renamed into
place: a crash mid-write leaves the old one), the relays, this side's role and, before the
match has a transcript of its own, the lobby as this side left it (a host's table; a joiner's
signed ready and coin share). After each visit it says what the visit left: whose move it is and
until when, how many relays took this side's last letters, and whether the match is over. The
transcript and its secrets stay the one source of the match itself; this file only says where the
letters are and what was last seen (a lost or damaged one is written again by the next visit
from the invite).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from p2pgenius.errors import LocalMisuseError
from p2pgenius.local_files import PRIVATE, TooLargeError, read_within, replace

SUFFIX: Final = ".mail"
MAX_STATE_BYTES: Final = 1 << 20
VERSION: Final = 1

PLAYING: Final = "playing"
"""The phases of a correspondence match as this side last left it: in the lobby (before the
terms), playing, over."""
LOBBY: Final = "lobby"
OVER: Final = "over"


def state_path(transcript: Path) -> Path:
    """Beside the transcript: its name plus ``.mail``."""
    return transcript.with_name(transcript.name + SUFFIX)


@dataclass
class Next:
    """What the last visit left: who is to move (names; ``mine``: this side is among them), the
    deadline (seconds since the epoch, as this side keeps it; None: none running) and a line for
    people (``"Ann's move next (deadline Tue 18:00)"``)."""

    who: list[str] = field(default_factory=list)
    mine: bool = False
    deadline: float | None = None
    words: str = ""


@dataclass
class MailState:
    """One correspondence match as this side keeps it (see the module's docstring)."""

    invite: str  # the correspondence invite (version 4): key, token (a host's, a player's), mailbox, relays
    role: str  # "host" or "join"
    game: str
    relays: list[str]
    phase: str = LOBBY
    lobby: dict[str, Any] = field(default_factory=dict)  # before the terms (plain JSON: bytes as hex)
    next: Next = field(default_factory=Next)
    visited: float = 0.0  # when the last visit ended (seconds since the epoch)
    sent: list[int] = field(default_factory=lambda: [0, 0])  # relays that took the last letters, of how many
    posted: int = 0  # how many of this side's own messages are on at least one relay
    result: str = ""  # once over: the result in words
    grace: float = 0.0  # the grace period this side chose (--grace; 0: the default by mail)
    identity: int = 0  # which of the account's identities plays it (0: its own key; see keystore)
    version: int = VERSION

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True, indent=1).encode("utf-8") + b"\n"

    def save(self, transcript: Path) -> None:
        """Written whole, then renamed over the old one (private: it holds the mailbox)."""
        replace(state_path(transcript), self.to_json(), PRIVATE, sync=True)


def load(transcript: Path) -> MailState | None:
    """The state beside ``transcript``; None if there is none. LocalMisuseError, in one line, if it
    is damaged or not one."""
    path = state_path(transcript)
    if not path.exists():
        return None
    try:
        data = json.loads(read_within(path, MAX_STATE_BYTES))
        nxt = data.pop("next", {})
        state = MailState(**data, next=Next(**nxt))
    except (OSError, TooLargeError, ValueError, TypeError) as exc:
        raise LocalMisuseError(f"{path} is not a correspondence match's state ({exc})") from None
    known = state.role in ("host", "join") and state.phase in (LOBBY, PLAYING, OVER)
    if state.version != VERSION or not known:
        raise LocalMisuseError(f"{path} is not a correspondence match's state this program reads")
    return state
