"""The in-memory table: a whole match between sessions wired back to back in memory, with bots in
every seat.

No network: each peer's messages go straight to every other peer, in order. Used by the tests
(which may tamper with the messages), by the protocol test vectors, and by benchmarks. Each peer is
the same :class:`~p2pgenius.protocol.machine.MatchMachine` as over the network (on a clock that
never moves: nobody is ever late here), and the bots are driven by the same
:class:`~p2pgenius.bots.driver.BotDriver`.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pgenius.bots import Bot
from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.clocks import Clocks
from p2pgenius.protocol.events import SAID, DecisionRefused, Event, Fault, MatchOver, YourTurn
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.machine import MatchMachine, Step
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
    secrets, the events each one saw, and its *visits*: the rounds in which it read or decided
    anything (each peer in turn reads all that waits for it, then decides all it can: as a
    player by correspondence opens the program, so ``bench/visits.py`` counts them per turn)."""

    sessions: list[Session]
    identities: list[Identity]
    transcripts: list[list[bytes]] = field(default_factory=list)
    secrets: list[list[bytes]] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    dealing: list[int] = field(default_factory=list)  # of the visits, those before the deal

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
    early: bool = False,
    on_start: Callable[[MemoryTable], None] | None = None,
) -> MemoryTable:
    """Play a whole match between ``peers`` sessions with bots. Messages are delivered to every
    other peer in the order sent (a ``tamper`` function may change, drop or add them). With
    ``early``, bots choose for the next stage whenever the game allows it (``Session.early``).
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
        sessions,
        identities,
        [[] for _ in sessions],
        [[] for _ in sessions],
        [[] for _ in sessions],
        [0 for _ in sessions],
        [0 for _ in sessions],
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
    wires.carry(0, wires.machines[0].start())
    for _ in range(max_rounds):
        if not wires.round(early=early):
            break
    return table


def _never() -> float:
    """The in-memory table's clock: it never moves (nobody is ever late, nothing is claimed)."""
    return 0.0


@dataclass
class _Wires:
    """A match being played on a :class:`MemoryTable`: each peer's machine, what waits in its
    inbox, the turns its bots are still to take, and the bots."""

    table: MemoryTable
    game: str
    driver: BotDriver
    tamper: Tamper | None
    before_submit: Callable[[MemoryTable, int, int, Any], Any] | None
    machines: list[MatchMachine] = field(default_factory=list)
    inboxes: list[list[bytes]] = field(default_factory=list)
    pending: list[list[YourTurn]] = field(default_factory=list)

    def __post_init__(self) -> None:
        sessions = self.table.sessions
        # (No clocks here: a sealed choice stands at once, as a bot's does over the network.)
        self.machines = [MatchMachine(s, Clocks(_never), math.inf, settle_at_once=True) for s in sessions]
        self.inboxes = [[] for _ in sessions]
        self.pending = [[] for _ in sessions]

    def round(self, *, early: bool) -> bool:
        """Each peer in turn reads its inbox, then chooses early (with ``early``), then takes its
        turns; whether the match goes on (something moved, or something is still to do)."""
        progressed = False
        for index in range(len(self.table.sessions)):
            dealt = self.table.sessions[index].play is not None
            did = self.read(index)
            if early:
                did |= self.choose_early(index)
            did |= self.take_turns(index)
            self.table.visits[index] += did
            self.table.dealing[index] += did and not dealt
            progressed |= did
        sessions = self.table.sessions
        idle = not progressed or all(s.finished or s.fault for s in sessions)
        return not (idle and not any(self.inboxes) and not any(self.pending))

    def carry(self, index: int, step: Step) -> None:
        """Carry out what peer ``index``'s machine gave: keep its records and secrets, deliver
        its messages to every other peer, note its events (a refused decision of a bot is a bug
        of the bot or of the table's caller: it stops the match with the reason)."""
        table = self.table
        table.transcripts[index] += step.records
        table.secrets[index] += step.secrets
        for raw in step.messages:
            for other in range(len(table.sessions)):
                if other != index:
                    self.inboxes[other] += self.tamper(index, other, raw) if self.tamper else [raw]
        events: list[Event] = []
        for told in step.told:  # (one pass: every input gives a few; nothing noted if one is refused)
            if isinstance(told, DecisionRefused):
                raise LocalMisuseError(f"a decision was refused: {told.text}")
            if not isinstance(told, SAID):
                events.append(told)
        self.table.events[index] += events
        self.pending[index] += [event for event in events if isinstance(event, YourTurn)]
        for due in step.verdicts:
            self.carry(index, self.machines[index].concluded(due, due.judge()))

    def read(self, index: int) -> bool:
        """Peer ``index`` receives everything in its inbox, in order (whether there was any)."""
        read = False
        while self.inboxes[index]:
            self.carry(index, self.machines[index].received(self.inboxes[index].pop(0), 0.0))
            read = True
        return read

    def choose_early(self, index: int) -> bool:
        """Peer ``index``'s bots choose for every seat that may choose early (whether any did)."""
        session = self.table.sessions[index]
        chose = False
        for seat in session.early():
            assert session.stage is not None  # (a seat chooses early only while a stage is open)
            action = plain(self.driver.choose(self.game, session.early_state(), seat))
            self.carry(index, self.machines[index].decided(session.stage.number + 1, seat, action))
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
        """The bot of ``seat`` (at peer ``index``) decides, and its machine takes the decision."""
        session = self.table.sessions[index]
        action = self.driver.choose(self.game, session.state, seat)
        if self.before_submit is not None:
            action = self.before_submit(self.table, index, seat, action)
        assert session.stage is not None  # (asked only for the current stage's seats)
        decision = None if action is None else plain(action)
        self.carry(index, self.machines[index].decided(session.stage.number, seat, decision))


def transcript(table: MemoryTable, index: int) -> bytes:
    """Peer ``index``'s transcript file, as the I/O layer would have written it."""
    keys = [ident.public for ident in table.identities]
    return header(keys, index) + b"".join(frame(r) for r in table.transcripts[index])
