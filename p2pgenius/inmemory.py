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
class Table:
    """Peers, their sessions, transcripts and secrets, and the events each one saw."""

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
    before_submit: Callable[[Table, int, int, Any], Any] | None = None,
    bots: list[Bot] | None = None,
    salt: bytes | None = None,
    deterministic: bool = False,
    host_seats: Sequence[int] = (),
    ahead: bool = False,
    on_start: Callable[[Table], None] | None = None,
) -> Table:
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
    table = Table(
        sessions, identities, [[] for _ in sessions], [[] for _ in sessions], [[] for _ in sessions]
    )
    if on_start is not None:
        on_start(table)
    driver = BotDriver("random", seed, levels=levels or (), bots=bots)  # levels, bots: by seat
    inboxes: list[list[bytes]] = [[] for _ in sessions]
    pending: list[list[YourTurn]] = [[] for _ in sessions]

    def pump(index: int) -> None:
        session = sessions[index]
        out = session.flush()
        table.transcripts[index] += out.records
        table.secrets[index] += out.secrets
        for raw in out.messages:
            for other in range(peers):
                if other != index:
                    delivered = tamper(index, other, raw) if tamper else [raw]
                    inboxes[other] += delivered
        events = session.take_events()
        table.events[index] += events
        pending[index] += [e for e in events if isinstance(e, YourTurn)]

    start_table(
        sessions,
        game,
        options=options or {},
        setup=setup or {},
        salt=salt or bytes([seed % 256]) * 32,
        seats=host_seats,
    )
    pump(0)
    for _ in range(max_rounds):
        progressed = False
        for index in range(peers):
            while inboxes[index]:
                raw = inboxes[index].pop(0)
                events = sessions[index].receive(raw)
                table.events[index] += events
                pending[index] += [e for e in events if isinstance(e, YourTurn)]
                pump(index)
                progressed = True
            session = sessions[index]
            for seat in session.ahead() if ahead else ():
                session.submit_ahead(seat, plain(driver.choose(game, session.ahead_state(), seat)))
                pump(index)
                progressed = True
            while pending[index]:
                turn = pending[index].pop(0)
                session = sessions[index]
                if session.stage is None or session.stage.number != turn.stage:
                    continue
                for seat in turn.seats:
                    if seat not in session.awaiting():
                        continue
                    action = driver.choose(game, session.state, seat)
                    if before_submit is not None:
                        action = before_submit(table, index, seat, action)
                    if action is None:
                        session.decline(seat)
                    else:
                        session.submit(seat, plain(action))
                    if seat in session.unsettled():  # no clocks here: the minute is up at once
                        session.finalize(seat)
                    pump(index)
                progressed = True
        idle = not progressed or all(s.finished or s.fault for s in sessions)
        if idle and not any(inboxes) and not any(pending):
            break
    return table


def transcript(table: Table, index: int) -> bytes:
    """Peer ``index``'s transcript file, as the I/O layer would have written it."""
    keys = [ident.public for ident in table.identities]
    return header(keys, index) + b"".join(frame(r) for r in table.transcripts[index])
