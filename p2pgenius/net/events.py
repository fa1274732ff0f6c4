"""What the network layer tells the person running a peer, as data.

:class:`~p2pgenius.net.peer.Peer` hands each of these to its ``notify`` callback (a screen keeps
its connection status and clock warnings from them) and says its ``text`` through its ``say``
callback (the line the command line prints and the screen logs). The session's own events (seats,
moves, the outcome) come separately, through ``report``. None of these name a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from p2pgenius import durations
from p2pgenius.protocol.events import (
    ClockWarning,
    ConnectionLost,
    DecisionRefused,
    Notice,
    OutOfTime,
    TimeoutClaimSent,
    TimeoutDisputed,
    TimeUnderDeclared,
)
from p2pgenius.protocol.identity import fingerprint


def lobby_text(lobby: Mapping[str, Any]) -> str:
    """The lobby in one line."""
    options = ", ".join(_option(k, v) for k, v in sorted(lobby["options"].items())) or "default options"
    if lobby.get("setup"):
        options += "; setup " + ", ".join(f"{k}={v}" for k, v in sorted(lobby["setup"].items()))
    people = []
    for index, (name, key) in enumerate(zip(lobby["names"], lobby["keys"], strict=True)):
        claim = lobby["claims"][index] if index < len(lobby.get("claims", [])) else []
        ready = lobby["ready"][index] if index < len(lobby.get("ready", [])) else False
        tags = [t for t in ("host" if index == 0 else "", "you" if index == lobby["you"] else "") if t]
        if claim:
            tags.append("seats " + " ".join(f"p{s}" for s in claim))
        if not ready:
            tags.append("not ready")
        short = fingerprint(key)[:9]
        who = name if name == short else f"{name} {short}"  # (a default name is that already)
        people.append(who + (f" ({', '.join(tags)})" if tags else ""))
    waiting = f"; waiting for {lobby['needed']} more" if lobby["needed"] else ""
    start = "; spectators may watch" if lobby.get("spectators") else ""
    start += "; starting" if lobby["start"] else ""
    return f"lobby: {lobby['game']} ({options}): {'; '.join(people)}{waiting}{start}"


def _option(name: str, value: object) -> str:
    """One option of the terms as people read it: ``fast``, ``no fast``, ``turn_seconds 30``."""
    if value is True or value is False:
        return name if value else f"no {name}"
    return f"{name} {value}"


# -- the lobby -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Listening:
    """A host's door is open at ``address`` (``again``: a restarted host of a match under way).
    The caller that opened the door says where; this event says it to a screen."""

    address: str
    again: bool = False
    invite: str = ""  # the line a joiner runs (an invite: addresses and this host's key), if any
    saved: str = ""  # a file holding the invite (easier to copy than a line wider than a screen)
    local_only: bool = False  # listening on loopback: only this machine can join

    @property
    def text(self) -> str:
        return f"listening {'again ' if self.again else ''}on {self.address}"


@dataclass(frozen=True, slots=True)
class LobbyShown:
    """A joiner: the host's lobby, as it stands now (who is there, the terms, whether it starts)."""

    lobby: Mapping[str, Any]

    @property
    def text(self) -> str:
        return lobby_text(self.lobby)


@dataclass(frozen=True, slots=True)
class TableShown:
    """A host: its table as the joiners are shown it (who is at it, who is ready, how many places
    are still free), whenever it changes (told quietly: the joins and readies have lines of
    their own)."""

    lobby: Mapping[str, Any]

    @property
    def text(self) -> str:
        return lobby_text(self.lobby)


@dataclass(frozen=True, slots=True)
class PeerJoined:
    """A host: a player came into the lobby (``key``: its public key)."""

    name: str
    key: bytes
    bot: str | None = None  # the level of the bot that plays its seats, as its hello said

    @property
    def text(self) -> str:
        short = fingerprint(self.key)[:9]
        said = "" if self.name == short else f" ({short})"
        return f"{self.name} joined{said}" + (f", a bot: {self.bot}" if self.bot is not None else "")


@dataclass(frozen=True, slots=True)
class PeerReady:
    """A host: a player in the lobby agreed to the terms and claimed its seats."""

    name: str

    @property
    def text(self) -> str:
        return f"{self.name} is ready"


@dataclass(frozen=True, slots=True)
class OptionsProposed:
    """A host: a player in the lobby proposes options (fast turns), for the host to take up."""

    name: str
    options: Mapping[str, Any]

    @property
    def text(self) -> str:
        command = "fast" if self.options.get("fast") else "fast off"
        return (
            f"{self.name} proposes {options_words(self.options)}: type `{command}` to take it up, "
            "or `keep` to keep the options"
        )


@dataclass(frozen=True, slots=True)
class ProposalsIgnored:
    """A host: a player keeps proposing options already put to the host; this is said once, and
    its proposals are ignored from then on (protocol/SPEC.md section 4a, "Proposals")."""

    name: str
    options: Mapping[str, Any]

    @property
    def text(self) -> str:
        return f"{self.name} keeps proposing {options_words(self.options)}: ignored from now on"


@dataclass(frozen=True, slots=True)
class OptionsChanged:
    """The lobby's options changed (a proposal taken up): every player says again whether it is
    ready to play with them."""

    options: Mapping[str, Any]

    @property
    def text(self) -> str:
        return f"the table now plays with {options_words(self.options)}: every player agrees again"


def options_words(options: Mapping[str, Any]) -> str:
    """The options a player may propose, in words."""
    return "fast turns" if options.get("fast") else "the whole minute for each turn"


@dataclass(frozen=True, slots=True)
class PeerLeft:
    """A host: a player left the lobby before the match began."""

    name: str

    @property
    def text(self) -> str:
        return f"{self.name} left the lobby"


@dataclass(frozen=True, slots=True)
class Refused:
    """A host turned a caller away (``name``: who it said it was, None if it never got that far)."""

    reason: str
    name: str | None = None

    @property
    def text(self) -> str:
        return f"refused {self.name if self.name is not None else 'a connection'}: {self.reason}"


# -- connections during the match --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reconnecting:
    """A joiner is on its way back to the host at ``address`` (``reason``: why the last try
    failed; None on setting out): ``attempt`` tries so far, away for ``away_s`` seconds (trio's
    clock). A status, updated in place at each try: its line is no log's (the log says when the
    absence began, :class:`~p2pgenius.protocol.events.ConnectionLost`, and when it ended,
    :class:`Reconnected`)."""

    address: str
    reason: str | None = None
    attempt: int = 0
    away_s: float = 0.0

    @property
    def text(self) -> str:
        if self.reason is None:
            return f"reconnecting to the host at {self.address}"
        away = f", away {away_words(self.away_s)}" if self.away_s >= 1 else ""
        return f"lost the connection to the host; reconnecting (attempt {self.attempt}{away}): {self.reason}"


@dataclass(frozen=True, slots=True)
class Reconnected:
    """A joiner is connected to its host again, and caught up, after ``away_s`` seconds and
    ``attempts`` tries (0: not counted, a restarted joiner's first call)."""

    away_s: float = 0.0
    attempts: int = 0

    @property
    def text(self) -> str:
        if not self.attempts:
            return "reconnected to the host"
        tries = f"{self.attempts} attempt{'s' if self.attempts != 1 else ''}"
        return f"reconnected to the host after {away_words(self.away_s)} away ({tries})"


@dataclass(frozen=True, slots=True)
class PeerBack:
    """A host: a player of the match came back (after a lost connection or a restart), away for
    ``away_s`` seconds if this host saw it go (None: it did not, a restarted host)."""

    name: str
    away_s: float | None = None

    @property
    def text(self) -> str:
        away = f" after {away_words(self.away_s)} away" if self.away_s is not None else ""
        return f"{self.name} is back{away}"


@dataclass(frozen=True, slots=True)
class ChatClosed:
    """After the match's end, every other player has left the table: a chat line reaches nobody
    any more (the screen's prompt and chat box say so)."""

    @property
    def text(self) -> str:
        return "everyone else has left: the chat has closed"


def away_words(seconds: float) -> str:
    """How long someone was away, as the program writes lengths of time ("3m12s"; "0s" for
    less than half a second)."""
    whole = round(seconds)
    return durations.words(whole) if whole > 0 else "0s"


NetEvent = (
    Listening
    | LobbyShown
    | TableShown
    | PeerJoined
    | PeerReady
    | OptionsProposed
    | ProposalsIgnored
    | OptionsChanged
    | PeerLeft
    | Refused
    | ConnectionLost
    | Reconnecting
    | Reconnected
    | PeerBack
    | ChatClosed
    | ClockWarning
    | OutOfTime
    | TimeoutClaimSent
    | TimeoutDisputed
    | TimeUnderDeclared
    | DecisionRefused
    | Notice
)
"""Everything :class:`~p2pgenius.net.peer.Peer` tells its ``notify`` callback."""

Notify = Callable[[NetEvent], None]
"""Takes the network layer's events (a screen's status line)."""


class Tell(Protocol):
    """Tells the person running a peer: the event as data, and its line unless ``quiet`` (the
    caller says that line itself)."""

    def __call__(self, event: NetEvent, *, quiet: bool = False) -> None: ...


def ignore(event: NetEvent) -> None:
    """A ``notify`` for a peer that only prints lines."""
    del event
