"""The host's side of a match: the lobby, the terms, and the door kept open for the players.

A :class:`Host` holds the lobby (``lobby``) until its table is full and every player is ready,
seats them, makes the session and proposes the terms, then plays the match through its
:class:`~p2pgenius.net.party.Party`, with its door open for players coming back and its
spectators fed. The session exists only from there on: nothing after the lobby asks whether
there is one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from functools import partial

import trio

from p2pgenius.errors import PeerGoneError
from p2pgenius.net.events import Listening, TableShown
from p2pgenius.net.lobby import Hosted, Lobby, Member, Seating
from p2pgenius.net.party import Doors, Party, warm_soon
from p2pgenius.net.spectators import Spectators
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.session import Session

__all__ = ["Host", "Hosted", "Seating"]


class Host:
    """The host's side of one match, over ``party`` (what it shares with a joiner's side)."""

    def __init__(self, party: Party, seating: Seating) -> None:
        self.party = party
        self.seating = seating
        self.lobby: Lobby | None = None  # while it gathers players
        self.session: Session | None = None  # once its players are seated (for its spectators)

    async def run(self, listener: trio.abc.Listener[trio.abc.Stream], hosted: Hosted) -> None:
        """Hold the lobby until ``peers - 1`` players have joined and said they are ready, then
        propose the match and play it."""
        party = self.party
        async with trio.open_nursery() as watching:
            spectators = Spectators(
                nursery=watching,
                allowed=hosted.get("spectators", False),
                session=lambda: self.session,
                say=party.say,
            )
            # The players' connections write in ``watching`` from the lobby on: their writers go
            # on into the match (each connection's own: see net/connection.py).
            lobby = Lobby(party.player, hosted, self.seating, spectators=spectators, writers=watching)
            self.lobby = lobby
            warmed = warm_soon(watching, lobby.game)  # (while the players come)
            try:
                party.tell(Listening(party.address, again=False), quiet=True)
                members = await lobby.gather(listener)
            finally:
                self.lobby = None
            session = await self._seat(lobby, members, warmed)
            # Pinning writes (and syncs) the pins file: in a worker thread, beside the match, once
            # the terms are on their way (they need not wait for it, nor share the interpreter).
            pin = partial(party.admit, list(session.keys), list(session.names))
            await party.play(session, Doors(listener=listener, spectators=spectators, beside=[pin]))
            await spectators.finish()
            watching.cancel_scope.cancel()

    async def _seat(self, lobby: Lobby, members: Sequence[Member], warmed: trio.Event) -> Session:
        """Send every player the start, make the session and propose the terms (the table's
        options and setup, everyone's claims and signed readies)."""
        party = self.party
        keys = [party.identity.public] + [m.key for m in members]
        names = [party.player.name] + [m.name for m in members]
        claims = [list(lobby.seats)] + [m.claim or [] for m in members]
        for index, member in enumerate(members, start=1):
            # A player whose connection died this instant is bound by its signed ready: it may
            # come back (the door stays open to the match's players) or forfeit its coin share.
            # (Queued: its writer sends it at once, and the start waits for nobody.)
            with contextlib.suppress(PeerGoneError):
                member.connection.post(wire.lobby(lobby.view(index, start=True)))
            party.links.add(member.connection, index)
        party.tell(TableShown(lobby.view(0, start=True)), quiet=True)  # (the host's board: all here)
        await party.links.handed_over()
        await warmed.wait()
        session = self.session = Session(keys=keys, me=0, identity=party.identity, names=names)
        # A resumed host admits spectators as this one did (SPEC 4b): its header says whether.
        watched = lobby.spectators is not None and lobby.spectators.allowed
        await party.began(session, "host", {"spectators": True} if watched else {})
        session.setup.propose(
            lobby.game,
            options=lobby.options,
            setup=lobby.setup,
            claims=claims,
            salt=lobby.salt,
            readies=[None] + [m.ready for m in members],
        )
        return session
