"""A joiner's side of a match: the handshake with the host, the lobby followed to the start, and
the way back to the host if the connection is lost.

A :class:`Joiner` checks the host (the key an invite or an announcement names, the pins, the
name), follows its lobby (``joining``) until the start, makes the session it was seated in, and
plays the match through its :class:`~p2pgenius.net.party.Party`. The session exists only from
there on: nothing after the lobby asks whether there is one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import trio

from p2pgenius.canonical import encode
from p2pgenius.errors import PeerGoneError
from p2pgenius.net import early
from p2pgenius.net.connection import Connection
from p2pgenius.net.lobby import Joining
from p2pgenius.net.party import Doors, Party, warm
from p2pgenius.net.reconnect import WayBack
from p2pgenius.protocol.channel import Established, SecureChannel
from p2pgenius.protocol.identity import IdentityError, fingerprint
from p2pgenius.protocol.noise import KeyPair
from p2pgenius.protocol.session import Session


class WrongHostError(IdentityError):
    """The host that answered at an address has another key than the invite (or announcement)
    names: a joiner says so and tries the invite's other addresses."""


@dataclass(frozen=True)
class Expected:
    """What a joiner knows of its host in advance: its key (an invite's; pinned exactly), where
    that came from in words ("the invite", "the announcement"), and its name as an announcement
    gave it (None: any)."""

    key: bytes | None = None
    source: str = "the invite"
    name: str | None = None

    def check_key(self, key: bytes) -> None:
        """Refuse a host whose key is not the one expected (WrongHostError)."""
        if self.key is not None and key != self.key:
            raise WrongHostError(
                f"the host's key is not the one {self.source} names: {self.source} names "
                f"{fingerprint(self.key)}, the host at this address has {fingerprint(key)}. "
                "Someone may be in the middle; do not play, and ask your friend for a fresh invite"
            )


class Joiner:
    """A joiner's side of one match, over ``party`` (what it shares with the host's side):
    ``expected``, what it knows of the host; ``token``, the invite's seat token to show;
    ``confirm``, who agrees to the lobby (None: agreed at once); ``way_back``, how to find the
    host again (None: no way)."""

    def __init__(
        self,
        party: Party,
        expected: Expected,
        *,
        token: bytes | None,
        confirm: Callable[[Mapping[str, Any]], Awaitable[bool]] | None,
        way_back: WayBack | None,
    ) -> None:
        self.party = party
        self.expected = expected
        self.token = token
        self.confirm = confirm
        self.way_back = way_back
        self.joining: Joining | None = None  # until the start

    def hello(self) -> dict[str, Any]:
        """Our hello: our name, the invite's seat token if we have one (it leaves only once the
        host has proved it holds the key the invite names), and our bot's level if a bot plays
        our seats."""
        player = self.party.player
        hello: dict[str, Any] = {"name": player.name}
        if self.token is not None:
            hello["token"] = self.token
        if player.bot is not None:  # (informative: shown beside the name in the lobby)
            hello["bot"] = player.bot
        return hello

    def check_host(self, host: Established) -> None:
        """The host, as soon as its hello is read: the invite's key, if any, and the pins."""
        self.expected.check_key(host.peer_key)
        name = self.party.player.pins.name_of(host)
        if self.expected.name is not None and name != self.expected.name:
            raise PeerGoneError(
                f"the host calls itself {name!r}, but its announcement said {self.expected.name!r}: "
                "not joining"
            )

    async def run(self, stream: trio.abc.Stream, seats: Sequence[int]) -> None:
        """Handshake with the host, say we are ready (claiming ``seats``), follow the lobby until
        the match starts, and play. The host's table comes in its handshake message; a joiner
        that need not ask anyone (no ``confirm``) says it is ready with its last one."""
        party = self.party
        joining = self.joining = Joining(
            party.player, seats, confirm=self.confirm, check_host=self.check_host
        )
        begun = early.begun_on(stream)  # (its first message written while the program started)
        channel = SecureChannel(
            initiator=True,
            identity=party.identity,
            hello=self.hello(),
            ephemeral=None if begun is None else KeyPair.from_private(begun.private),
            written=None if begun is None else begun.record,
        )
        connection = Connection(stream, channel)
        try:
            established = await connection.handshake(prepare=partial(joining.greeted, connection))
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        party.links.add(connection)
        # The game is in the host's hello: warm it up now, while the host's answer to our ready
        # is on its way (it waits in the socket meanwhile).
        hello_game = established.peer_hello.get("game")
        await warm(str(hello_game))
        try:
            lobby, expected, behind = await joining.await_start(connection)
        finally:
            self.joining = None
        if lobby["game"] != hello_game:
            await warm(lobby["game"])
        session = Session(
            keys=lobby["keys"],
            me=lobby["you"],
            identity=party.identity,
            names=lobby["names"],
            expected=expected,
            coin=joining.nonce,
        )
        await party.began(session, "join", {"expected": expected})
        # Our coin share is committed (in our ready) before the terms come: on disk now, so that a
        # crash before the terms does not leave us unable to open it (and so forfeit).
        party.files.append(party.files.secrets, [encode(["coin", joining.nonce])])
        host = ([established.peer_key], [str(established.peer_hello.get("name"))])
        doors = Doors(way_back=self.way_back, beside=[partial(party.admit, *host)])
        # Whatever came in the same read as the start (the terms, often) goes first.
        await party.play(session, doors, first=[(connection, extra) for extra in behind])
