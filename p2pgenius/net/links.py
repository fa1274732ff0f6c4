"""A peer's connections in a match, and the host's relaying between them.

A joiner has one link, to its host. The host has one per other player, knows which player each
one carries (``index_of``), relays each player's match messages to the others (every message is
signed by its author and checked by each receiver: relaying needs no trust) and, when a player
comes back on a new connection, puts it in the old one's place. Nothing here waits for a peer:
each connection has its own queue and writer (``connection``), so one that does not read holds up
nobody else.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import trio

from p2pgenius.errors import PeerGoneError
from p2pgenius.net.connection import SEND_S, Connection, flush_all


class Links:
    """The connections of one peer's match."""

    def __init__(self) -> None:
        self.connections: list[Connection] = []
        self.via: dict[int, Connection] = {}  # the host's: peer index -> its connection

    def __iter__(self) -> Iterator[Connection]:
        return iter(list(self.connections))

    def __len__(self) -> int:
        return len(self.connections)

    def add(self, connection: Connection, index: int | None = None) -> None:
        """A connection joins the match (``index``: the player it carries, at the host). A
        player's earlier connection, if any, is dropped: it comes back on the new one."""
        if index is not None:
            old = self.via.get(index)
            if old is not None and old is not connection:
                self.drop(old)
            self.via[index] = connection
        if connection not in self.connections:
            self.connections.append(connection)

    def drop(self, connection: Connection) -> bool:
        """The connection is no longer the match's (closed, or replaced); False if it was not."""
        if connection not in self.connections:
            return False
        self.connections.remove(connection)
        return True

    def index_of(self, connection: Connection) -> int | None:
        """The player a connection carries, at the host (None: not known, or not the host)."""
        return next((index for index, known in self.via.items() if known is connection), None)

    def broadcast(self, payload: bytes) -> None:
        """Queue ``payload`` on every connection (one given up: its reader says so)."""
        for connection in self:
            with contextlib.suppress(PeerGoneError):
                connection.post(payload)

    def relay(self, payload: bytes, source: Connection) -> None:
        """Pass a player's message on to every other player (the host's job)."""
        for connection in self:
            if connection is not source:
                with contextlib.suppress(PeerGoneError):
                    connection.post(payload)

    def ping(self, stalled_after: int | None = None) -> None:
        """Ping every connection (each times its own round trips); one whose other side answered
        none of our last ``stalled_after`` pings is dropped instead (its reader then says it is
        gone): its route is dead, or the peer does not read what we send, which its own bytes
        would not show. Pings, not seconds: a loop that was busy, or a match that just began,
        sent none meanwhile."""
        for connection in self:
            if stalled_after is not None and connection.unanswered >= stalled_after:
                connection.drop(f"it answered none of our last {stalled_after} pings")
                continue
            with contextlib.suppress(PeerGoneError):
                connection.ping()

    async def handed_over(self) -> None:
        """Let every connection's writer take what was queued for it (never waiting for a write
        under way): see :meth:`Connection.handed_over`."""
        for connection in self:
            await connection.handed_over()

    async def flush(self, within: float = SEND_S) -> None:
        """Let every connection write what is queued for it (at most ``within`` seconds in all):
        a match's last messages leave before its connections close."""
        await flush_all(self, within)

    async def aclose(self, within: float = 1.0) -> None:
        """Close every connection (each given ``within`` seconds)."""
        for connection in self:
            with trio.move_on_after(within):
                await connection.aclose()
