"""The lobby: before a match, the host greets players as they come, shows everyone who is there
and takes their seat claims; a joiner follows the host's lobby, agrees to the terms once and
waits for the start.

The host's lobby message (section 8 of the SPEC) lists every peer's key and name, their claims
and readiness, the terms, and ``you`` (the receiver's index); a joiner checks all of it.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.errors import EncodingError, LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import get_spec, names
from p2pgenius.net.connection import Connection, PeerGoneError
from p2pgenius.net.door import Door
from p2pgenius.net.events import LobbyShown, Notify, PeerJoined, PeerLeft, PeerReady, Refused
from p2pgenius.net.keystore import check_name
from p2pgenius.protocol.session import claims_problem

if TYPE_CHECKING:
    from p2pgenius.net.peer import Peer

LOBBY_FIELDS: Final = (
    "game",
    "options",
    "setup",
    "names",
    "keys",
    "claims",
    "ready",
    "you",
    "needed",
    "start",
)


@dataclass
class Member:
    """A player in the host's lobby: its connection and key, its name, its seat claim (None until
    it says it is ready)."""

    connection: Connection
    key: bytes
    name: str
    claim: list[int] | None = None


def ready_claim(payload: bytes) -> list[int] | None:
    """The seats a ``ready`` message claims (None if it is not a well-formed ready)."""
    try:
        value = decode(payload)
    except EncodingError:
        return None
    if not (isinstance(value, list) and len(value) == 2 and value[0] == "ready"):
        return None
    seats = value[1].get("seats") if isinstance(value[1], dict) else None
    if not (isinstance(seats, list) and len(seats) <= 4 and all(type(s) is int for s in seats)):
        return None
    return sorted(seats)


class Lobby:
    """The host's lobby for one match: ``peers`` peers (the host included) to play ``game``."""

    def __init__(
        self,
        peer: Peer,
        *,
        game: str,
        options: Mapping[str, Any],
        setup: Mapping[str, Any],
        peers: int,
        seats: Sequence[int],
    ) -> None:
        self.peer = peer
        self.game = game
        self.options = dict(options)
        self.setup = dict(setup)
        self.peers = peers
        self.seats = sorted(seats)  # the host's own claim
        self.members: list[Member] = []

    def view(self, you: int, *, start: bool = False) -> dict[str, Any]:
        """The lobby message for peer ``you``."""
        members = self.members
        return {
            "game": self.game,
            "options": dict(self.options),
            "setup": self.setup,
            "names": [self.peer.name] + [m.name for m in members],
            "keys": [self.peer.identity.public] + [m.key for m in members],
            "claims": [list(self.seats)] + [m.claim or [] for m in members],
            "ready": [True] + [m.claim is not None for m in members],
            "you": you,
            "needed": self.peers - 1 - len(members),
            "start": start,
        }

    async def gather(self, listener: trio.abc.Listener[trio.abc.Stream]) -> list[Member]:
        """Greet players as they come, show everyone who is there, and take their seat claims
        and readiness; returns the members once the table is full and everyone is ready."""
        peer, members, tell = self.peer, self.members, self.peer.tell
        send, said = trio.open_memory_channel[tuple[str, Connection, Any]](math.inf)
        groups = get_spec(self.game).seat_groups(self.peers)

        async def greet(stream: trio.abc.Stream, shown_key: Callable[[], None]) -> None:
            connection = Connection(
                stream, peer.channel(initiator=False, hello={"name": peer.name, "game": self.game})
            )
            try:
                established = await connection.handshake()
                shown_key()
                name = peer.pin(established)
            except (P2PGeniusError, trio.TooSlowError) as exc:
                tell(Refused(str(exc)))
                await connection.aclose()
                return
            send.send_nowait(("joined", connection, (established.peer_key, name)))
            try:
                while True:
                    for payload in await connection.receive():
                        send.send_nowait(("said", connection, payload))
            except PeerGoneError:
                send.send_nowait(("left", connection, None))

        async def doors(nursery: trio.Nursery) -> None:
            await Door(listener).serve(nursery, greet)

        async def refuse(connection: Connection, reason: str) -> None:
            with contextlib.suppress(PeerGoneError):
                await connection.send(encode(["refused", reason]))
            await connection.aclose()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(doors, nursery)
            while len(members) < self.peers - 1 or any(m.claim is None for m in members):
                what, connection, data = await said.receive()
                member = next((m for m in members if m.connection is connection), None)
                if what == "joined":
                    key, name = data
                    if key == peer.identity.public or any(m.key == key for m in members):
                        tell(Refused("already at the table", name))
                        await refuse(connection, "you are already at this table")
                        continue
                    if len(members) >= self.peers - 1:
                        tell(Refused("the table is full", name))
                        await refuse(connection, "the table is full")
                        continue
                    members.append(Member(connection, key, name))
                    tell(PeerJoined(name, key))
                elif what == "left" and member is not None:
                    members.remove(member)
                    tell(PeerLeft(member.name))
                elif what == "said" and member is not None:
                    claim = ready_claim(data)
                    taken = [self.seats] + [m.claim or [] for m in members if m is not member]
                    problem = (
                        "a malformed ready message"
                        if claim is None
                        else claims_problem(groups, [*taken, claim])
                    )
                    if problem:
                        tell(Refused(problem, member.name))
                        members.remove(member)
                        await refuse(member.connection, problem)
                        continue
                    member.claim = claim
                    tell(PeerReady(member.name))
                else:
                    continue
                for index, other in enumerate(members, start=1):
                    with contextlib.suppress(PeerGoneError):
                        await other.connection.send(encode(["lobby", self.view(index)]))
            nursery.cancel_scope.cancel()
        return members


def check_lobby(payload: bytes, host_key: bytes, me: bytes) -> dict[str, Any]:
    """A lobby message from the host (``host_key``) to us (``me``), checked; raises
    PeerGoneError on a refusal or junk."""
    try:
        value = decode(payload)
    except EncodingError as exc:
        raise PeerGoneError(f"the host sent a malformed lobby: {exc}") from None
    if isinstance(value, list) and len(value) == 2 and value[0] == "refused":
        raise PeerGoneError(f"the host refused us: {value[1]}")
    lobby = value[1] if isinstance(value, list) and len(value) == 2 and value[0] == "lobby" else None
    if not (isinstance(lobby, dict) and set(LOBBY_FIELDS) <= set(lobby)):
        raise PeerGoneError("the host did not send the lobby")
    keys, peer_names, you = lobby["keys"], lobby["names"], lobby["you"]
    if not (
        isinstance(keys, list)
        and isinstance(peer_names, list)
        and len(peer_names) == len(keys)
        and all(isinstance(k, bytes) for k in keys)
        and all(_good_name(n) for n in peer_names)
        and type(you) is int
        and 0 < you < len(keys)
        and keys[you] == me
        and keys[0] == host_key
        and lobby["game"] in names()
        and isinstance(lobby["options"], dict)
        and all(isinstance(k, str) and type(v) in (int, bool) for k, v in lobby["options"].items())
        and isinstance(lobby["setup"], dict)
        and isinstance(lobby["start"], bool)
        and type(lobby["needed"]) is int
        and isinstance(lobby["claims"], list)
        and len(lobby["claims"]) == len(keys)
        and all(isinstance(c, list) and all(type(x) is int for x in c) for c in lobby["claims"])
        and isinstance(lobby["ready"], list)
        and len(lobby["ready"]) == len(keys)
        and all(type(r) is bool for r in lobby["ready"])
    ):
        raise PeerGoneError("the host sent a malformed lobby (or one that does not list us)")
    return lobby


async def await_start(
    connection: Connection,
    *,
    host_key: bytes,
    me: bytes,
    seats: Sequence[int],
    confirm: Callable[[Mapping[str, Any]], Awaitable[bool]] | None,
    tell: Notify,
) -> tuple[dict[str, Any], dict[str, Any], list[bytes]]:
    """A joiner follows the host's lobby until the match starts: it shows each new lobby, agrees
    to the terms of the first (``confirm``; or leaves) by saying it is ready (claiming ``seats``),
    and holds the host to them. Returns the starting lobby, what was agreed (with our claim), and
    whatever came in the same read right behind the start (the terms, often)."""
    shown = None
    agreed: dict[str, Any] | None = None  # what the player said yes to
    while True:
        payloads = await connection.receive()
        for position, payload in enumerate(payloads):
            lobby = check_lobby(payload, host_key, me)
            if lobby != shown:
                shown = lobby
                tell(LobbyShown(lobby))
            if agreed is None:  # the first lobby shows the terms: agree to them, or leave
                if confirm is not None and not await confirm(lobby):
                    raise PeerGoneError("left the lobby")
                await connection.send(encode(["ready", {"seats": sorted(seats)}]))
                agreed = {key: lobby[key] for key in ("game", "options", "setup")}
                agreed["host claim"] = lobby["claims"][0]
            now = {
                **{key: lobby[key] for key in ("game", "options", "setup")},
                "host claim": lobby["claims"][0],
            }
            changed = [key for key in agreed if now[key] != agreed[key]]
            if changed:
                raise PeerGoneError(f"the host changed the {' and '.join(changed)} after we agreed")
            if lobby["start"]:
                # The terms must carry exactly the seat claims this lobby showed: the host's, ours
                # and everyone's (else the host could sit where it likes while we read "coin flip").
                expected = {key: agreed[key] for key in ("game", "options", "setup")}
                expected["claims"] = [sorted(c) for c in lobby["claims"]]
                return lobby, {**expected, "claim": sorted(seats)}, payloads[position + 1 :]


def _terms_shown(lobby: Mapping[str, Any]) -> dict[str, Any]:
    """What a joiner agrees to: the game, options, setup, and the host's own seat claim."""
    return {**{key: lobby[key] for key in ("game", "options", "setup")}, "host claim": lobby["claims"][0]}


def _good_name(name: object) -> bool:
    try:
        check_name(name)
    except LocalMisuseError:
        return False
    return True
