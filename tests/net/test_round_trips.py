"""How many round trips a joiner waits, from its first handshake byte to knowing its seats and to
its first move: measured over in-memory links that hold every byte 50 ms each way, under trio's
autojump clock (only the delays take time, so the count is exact)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.net.files import Files
from p2pgenius.net.latency import DelayedStream, MemoryListener
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.events import SeatsDealt
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Event, SessionView

DELAY = 0.05  # each way
ROUND_TRIP = 2 * DELAY


class Watch:
    """When a peer learnt its seats and when it first decided (the decision leaves at once)."""

    def __init__(self, level: str, seed: int) -> None:
        self.driver = BotDriver(level, seed)
        self.dealt: float | None = None
        self.first_move: float | None = None
        self.lines: list[str] = []

    def event(self, session: SessionView, event: Event) -> None:
        if isinstance(event, SeatsDealt) and self.dealt is None:
            self.dealt = trio.current_time()

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        assert session.terms is not None
        # On the loop, not in a thread: the autojump clock must not jump while a bot thinks.
        action = self.driver.choose(session.terms["game"], session.state, seat)
        if self.first_move is None:
            self.first_move = trio.current_time()
        return None if action is None else plain(action)


def player(tmp: Path, name: str, watch: Watch, *, early: bool = False) -> Peer:
    return Peer(
        Identity.generate(),
        name,
        Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets"),
        watch.decide,
        watch.event,
        watch.lines.append,
        pin_dir=tmp / "pins" / name,
        decide_early=early,
    )


@dataclass(frozen=True)
class Offer:
    """The match a host offers: ``game`` with its ``options`` for ``peers`` peers, and the seats
    each claims (``claims``, the host's first; none: seats dealt by lot)."""

    game: str
    peers: int
    options: dict[str, Any] = field(default_factory=dict)
    claims: tuple[tuple[int, ...], ...] = ()


async def measure(tmp: Path, offer: Offer, *, early: bool = False) -> list[tuple[float, float]]:
    """For each joiner: (round trips to its seats, round trips to its first move), counted from
    its first handshake byte. The joiners come one after another, each once the one before is in
    (``early``: bots choose early where the game allows)."""
    listener = MemoryListener(DELAY)
    game, peers, options = offer.game, offer.peers, offer.options
    claims = offer.claims or ((),) * peers
    host = player(tmp, "host", Watch("random", 1), early=early)
    watches = [Watch("random", 10 + i) for i in range(1, peers)]
    joiners = [player(tmp, f"joiner{i}", w, early=early) for i, w in enumerate(watches, start=1)]
    streams: list[DelayedStream] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: host.host(listener, game=game, options=options, setup={}, peers=peers, seats=claims[0])
        )
        for joiner, claim in zip(joiners, claims[1:], strict=True):
            stream = listener.connect()
            streams.append(stream)
            nursery.start_soon(partial(joiner.join, stream, seats=claim))
            await trio.sleep(1.0)  # well after it is in the lobby
        while any(w.first_move is None for w in watches):
            await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    results = []
    for stream, watch in zip(streams, watches, strict=True):
        start = stream.sent_at[0]
        assert watch.dealt is not None and watch.first_move is not None
        results.append(((watch.dealt - start) / ROUND_TRIP, (watch.first_move - start) / ROUND_TRIP))
    return results


async def test_a_joiner_moves_two_round_trips_after_its_first_byte(
    autojump_clock: Any, tmp_path: Path
) -> None:
    # Hello; the host's answer carries the table; our last handshake message carries our signed
    # ready and coin commitment; the host's terms carry its opened share: two round trips.
    [(dealt, first_move)] = await measure(tmp_path, Offer("duel", 2, {"fast": True}))
    assert dealt <= 2.05, dealt
    assert first_move <= 2.5, first_move


async def test_the_last_of_four_joiners_knows_its_seats_within_three_and_a_half_round_trips(
    autojump_clock: Any, tmp_path: Path
) -> None:
    # With four, the other joiners' shares are opened to the host and relayed: one more round trip.
    results = await measure(tmp_path, Offer("hornswoggle", 4))
    last_dealt = results[-1][0]
    assert last_dealt <= 3.05, results


@pytest.mark.parametrize("picker", [0, 1, 2, 3])
async def test_with_four_every_joiner_is_asked_within_three_and_a_half_round_trips_whoever_picks(
    picker: int, autojump_clock: Any, tmp_path: Path
) -> None:
    # p1 (held by peer ``picker``) picks who begins; the others lay their opening cards
    # meanwhile (committed early), so a pick that travels through the host keeps nobody waiting.
    # Without choosing early, a joiner other than the last at p1 kept the others past 4.
    seats = [0, 2, 3]
    claims = tuple((1,) if peer == picker else (seats.pop(0),) for peer in range(4))
    results = await measure(tmp_path, Offer("hornswoggle", 4, claims=claims), early=True)
    last_dealt, last_move = results[-1]
    assert last_dealt <= 3.05 and last_move <= 3.5, results
