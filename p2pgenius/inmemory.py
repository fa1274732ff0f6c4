"""The in-memory table: a whole match between sessions wired back to back in memory, with bots in
every seat.

No network: each peer's messages go straight to every other peer, in order. Used by the tests
(which may tamper with the messages), by the protocol test vectors, and by benchmarks. The bots are
driven by the same :class:`~p2pgenius.bots.driver.BotDriver` as over the network.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pgenius.bots import Bot
from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.protocol.events import Event, Fault, MatchOver, YourTurn
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session, start_table
from p2pgenius.protocol.transcript import frame, header

Tamper = Callable[[int, int, bytes], list[bytes]]

_urandom = secrets.token_bytes


def randomness(seed: int, peer: int) -> Callable[[int], bytes]:
    """A deterministic stand-in for the entropy source (test vectors only: never for play)."""
    counter = [0]

    def draw(size: int) -> bytes:
        counter[0] += 1
        material = hashlib.sha256(f"vector {seed} {peer} {counter[0]}".encode()).digest()
        return material[:size]

    return draw


"""(author, recipient, message) -> the messages actually delivered (for hostile tests)."""


@dataclass
class MemoryTable:
    """A table of sessions wired back to back in memory: the peers, their sessions, transcripts and
    secrets, and the events each one saw."""

    sessions: list[Session]
    identities: list[Identity]
    transcripts: list[list[bytes]] = field(default_factory=list)
    secrets: list[list[bytes]] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)

    def faults(self) -> list[Fault]:
        return [e for evs in self.events for e in evs if isinstance(e, Fault)]

    def outcomes(self) -> list[Any]:
        return [next((e.outcome for e in evs if isinstance(e, MatchOver)), None) for evs in self.events]


def play(
    game: str,
    *,
    peers: int = 2,
    seed: int = 0,
    levels: list[str] | None = None,
    options: dict[str, Any] | None = None,
    setup: dict[str, Any] | None = None,
    tamper: Tamper | None = None,
    max_rounds: int = 20000,
    before_submit: Callable[[MemoryTable, int, int, Any], Any] | None = None,
    bots: list[Bot] | None = None,
    salt: bytes | None = None,
    deterministic: bool = False,
    host_seats: Sequence[int] = (),
    ahead: bool = False,
    on_start: Callable[[MemoryTable], None] | None = None,
) -> MemoryTable:
    """Play a whole match between ``peers`` sessions with bots. Messages are delivered to every
    other peer in the order sent (a ``tamper`` function may change, drop or add them). With
    ``ahead``, bots choose for the next stage whenever the game allows it (``Session.ahead``).
    ``on_start`` is given the table before anything is sent (a hostile test's liar keeps it)."""
    identities = [Identity.from_seed(bytes([seed % 256, i]) * 16) for i in range(peers)]
    keys = [ident.public for ident in identities]
    sessions = [
        Session(
            keys=keys,
            me=i,
            identity=identities[i],
            randomness=randomness(seed, i) if deterministic else _urandom,
        )
        for i in range(peers)
    ]
    table = MemoryTable(
        sessions, identities, [[] for _ in sessions], [[] for _ in sessions], [[] for _ in sessions]
    )
    if on_start is not None:
        on_start(table)
    driver = BotDriver("random", seed, levels=levels or (), bots=bots)  # levels, bots: by seat
    wires = _Wires(table, game, driver, tamper, before_submit)
    start_table(
        sessions,
        game,
        options=options or {},
        setup=setup or {},
        salt=salt or bytes([seed % 256]) * 32,
        seats=host_seats,
    )
    wires.pump(0)
    for _ in range(max_rounds):
        if not wires.round(ahead=ahead):
            break
    return table


@dataclass
class _Wires:
    """A match being played on a :class:`MemoryTable`: what waits in each peer's inbox, the turns each
    peer's bots are still to take, and the bots."""

    table: MemoryTable
    game: str
    driver: BotDriver
    tamper: Tamper | None
    before_submit: Callable[[MemoryTable, int, int, Any], Any] | None
    inboxes: list[list[bytes]] = field(default_factory=list)
    pending: list[list[YourTurn]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.inboxes = [[] for _ in self.table.sessions]
        self.pending = [[] for _ in self.table.sessions]

    def round(self, *, ahead: bool) -> bool:
        """Each peer in turn reads its inbox, then chooses ahead (with ``ahead``), then takes its
        turns; whether the match goes on (something moved, or something is still to do)."""
        progressed = False
        for index in range(len(self.table.sessions)):
            progressed |= self.read(index)
            if ahead:
                progressed |= self.choose_ahead(index)
            progressed |= self.take_turns(index)
        sessions = self.table.sessions
        idle = not progressed or all(s.finished or s.fault for s in sessions)
        return not (idle and not any(self.inboxes) and not any(self.pending))

    def pump(self, index: int) -> None:
        """Take what peer ``index`` has to send, keep and deliver it; note its events."""
        out = self.table.sessions[index].flush()
        self.table.transcripts[index] += out.records
        self.table.secrets[index] += out.secrets
        for raw in out.messages:
            for other in range(len(self.table.sessions)):
                if other != index:
                    self.inboxes[other] += self.tamper(index, other, raw) if self.tamper else [raw]
        self.note(index, self.table.sessions[index].take_events())

    def note(self, index: int, events: list[Event]) -> None:
        self.table.events[index] += events
        self.pending[index] += [e for e in events if isinstance(e, YourTurn)]

    def read(self, index: int) -> bool:
        """Peer ``index`` receives everything in its inbox, in order (whether there was any)."""
        read = False
        while self.inboxes[index]:
            self.note(index, self.table.sessions[index].receive(self.inboxes[index].pop(0)))
            self.pump(index)
            read = True
        return read

    def choose_ahead(self, index: int) -> bool:
        """Peer ``index``'s bots choose for every seat that may choose ahead (whether any did)."""
        session = self.table.sessions[index]
        chose = False
        for seat in session.ahead():
            session.submit(
                seat, plain(self.driver.choose(self.game, session.ahead_state(), seat)), ahead=True
            )
            self.pump(index)
            chose = True
        return chose

    def take_turns(self, index: int) -> bool:
        """Peer ``index``'s bots take the turns it was given, those of a stage long gone
        skipped (whether any was still current)."""
        took = False
        while self.pending[index]:
            turn = self.pending[index].pop(0)
            session = self.table.sessions[index]
            if session.stage is None or session.stage.number != turn.stage:
                continue
            for seat in turn.seats:
                if seat in session.awaiting():
                    self.decide(index, seat)
            took = True
        return took

    def decide(self, index: int, seat: int) -> None:
        """The bot of ``seat`` (at peer ``index``) decides, and the decision is sent."""
        session = self.table.sessions[index]
        action = self.driver.choose(self.game, session.state, seat)
        if self.before_submit is not None:
            action = self.before_submit(self.table, index, seat, action)
        if action is None:
            session.decline(seat)
        else:
            session.submit(seat, plain(action))
        if seat in session.unsettled():  # no clocks here: the minute is up at once
            session.finalize(seat)
        self.pump(index)


def transcript(table: MemoryTable, index: int) -> bytes:
    """Peer ``index``'s transcript file, as the I/O layer would have written it."""
    keys = [ident.public for ident in table.identities]
    return header(keys, index) + b"".join(frame(r) for r in table.transcripts[index])
