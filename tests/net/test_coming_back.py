"""Coming back buys no time (protocol/SPEC.md, section 6, "What is owed"), on trio's autojump
clock and an in-memory network: a debtor that keeps back what it owes on the grace period (its
coin share, a challenge window's answer, the opening of its sealed choice or of a flipped card,
its audit, its signed result) and drops and comes back every few seconds is claimed and forfeited
as if it had stayed: within two grace periods of the debt falling due when it comes back at once,
and within two grace periods and the patience bound (one allowance per debt for the time it was
away) when it stays away most of the time. Before, each return gave it a new grace period, and
the match went on for ever."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.bodies import SETUP, Body
from p2pgenius.protocol.clocks import MAX_ALLOWANCE_S, patience
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.session.debts import GRACE as ON_GRACE
from p2pgenius.protocol.session.debts import OBLIGATIONS

from .timing import Network, play_match

GRACE = 10.0
LIMIT = 20  # every time option of the match, in seconds: the patience bound is then 20 s
POLL_S = 0.25


@dataclass(frozen=True)
class Debtor:
    """A match in which the joiner keeps back what pays a debt of ``kind``: ``game``, the
    messages it never sends (``withholds``) and its setup."""

    kind: str
    game: str
    withholds: tuple[str, ...]
    setup: dict[str, Any] = field(default_factory=dict)


DEBTORS = [
    Debtor("coin", "duel", ("coin_reveal",)),
    Debtor("window", "magic-square", ("decline",), {"colours": [0, 1] * 4 + [1, 0] * 4, "first_lead": 0}),
    Debtor("reveal", "duel", ("reveal",)),
    Debtor("opening", "hornswoggle", ("reveal",)),
    Debtor("audit", "hornswoggle", ("audit",)),
    Debtor("end", "duel", ("end",)),
]
"""One for every debt on the grace period (the owed-table: debts.py)."""


def test_every_debt_on_the_grace_period_has_its_reconnecting_debtor() -> None:
    assert sorted(d.kind for d in DEBTORS) == sorted(o.name for o in OBLIGATIONS if o.deadline == ON_GRACE)


def withholding(kinds: tuple[str, ...]) -> type[Peer]:
    """A peer whose session never sends messages of ``kinds``: they are never signed, so no
    resync after a return can bring them either."""

    class Withholds(Peer):
        async def _start_transcript(self, role: str) -> None:
            await super()._start_transcript(role)
            assert self.session is not None
            courier = self.session.courier
            send = courier.send

            def send_but(msg: Body) -> None:
                if msg.kind not in kinds:
                    send(msg)

            courier.send = send_but  # type: ignore[method-assign]

    return Withholds


class NeverChallenges(BotDriver):
    """Lets every challenge window pass (so that its answer is the decline it keeps back)."""

    async def decide(self, session: SessionView, seat: int) -> Any:
        if session.stage is not None and seat in session.stage.optional:
            return None
        return await super().decide(session, seat)


@dataclass
class Seen:
    """What the watch saw at the host: when each of the debtor's debts was first owed (and how
    many connections the debtor had made by then), what it owed last before the match stopped,
    and when it stopped (and the debtor's connections by then)."""

    first_due: dict[str, tuple[float, int]] = field(default_factory=dict)
    owed_last: set[str] = field(default_factory=set)
    stopped_at: tuple[float, int] | None = None


def watching(seen: Seen, debtor: int, network: Network) -> Any:
    async def watch(peers: list[Peer]) -> None:
        host = peers[0]
        while seen.stopped_at is None:
            session = host.session
            if session is not None and session.fault is not None:
                seen.stopped_at = (trio.current_time(), len(network.calls))
            elif session is not None:
                owner = session.owner
                kinds = {
                    d.kind
                    for d in session.debts()
                    if (d.seat if d.stage == SETUP else owner[d.seat]) == debtor
                    and d.rule.deadline == ON_GRACE
                }
                for kind in kinds:
                    seen.first_due.setdefault(kind, (trio.current_time(), len(network.calls)))
                seen.owed_last = kinds
            await trio.sleep(POLL_S)

    return watch


def options(game: str) -> dict[str, Any]:
    out: dict[str, Any] = {"fast": True} if game == "duel" else {}
    names = {"duel": ["turn_seconds"], "hornswoggle": ["decision_seconds"]}
    for name in names.get(game, ["round_seconds", "challenge_seconds"]):
        out[name] = LIMIT
    return out


def reconnecting(debtor: Debtor, network: Network) -> tuple[Any, Seen]:
    seen = Seen()

    async def main() -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            level = "random" if debtor.game != "hornswoggle" else "pirate"
            deciders = [BotDriver(level, 1, thread=False), NeverChallenges(level, 2, thread=False)]
            return await play_match(
                Path(tmp),
                debtor.game,
                peers=2,
                options=options(debtor.game),
                setup=debtor.setup,
                deciders=deciders,
                grace_s=GRACE,
                network=network,
                make=withholding(debtor.withholds),
                silent=1,
                within_s=20 * (2 * GRACE + LIMIT),  # (before: it never ended; fake seconds)
                watch=watching(seen, debtor=1, network=network),
            )

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)), seen


WAYS = {
    "back-at-once": (3.0, 0.0, 0.0),  # cut every 3 s, back at once: it is never away for long
    "mostly-away": (1.0, 5.0, float(LIMIT)),  # on for 1 s of every 6: away, up to the bound
}
"""How the debtor keeps dropping: (seconds on each connection, then down), and the most the time
it is away adds to its deadline (the patience bound: LIMIT, the match's every time limit)."""


@pytest.mark.parametrize("debtor", DEBTORS, ids=[d.kind for d in DEBTORS])
@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_debtor_that_keeps_coming_back_is_claimed_and_forfeited_in_time(debtor: Debtor, way: str) -> None:
    on_s, down_s, extra = WAYS[way]
    network = Network(cut_s=on_s, away_s=down_s, every=True)
    played, seen = reconnecting(debtor, network)
    host = played.reports[0]
    assert host.fault is not None and host.fault.kind == "forfeit" and host.fault.peer == 1, host.summary
    assert debtor.kind in seen.first_due and debtor.kind in seen.owed_last, (seen, way)
    assert seen.stopped_at is not None
    session = played.peers[0].session
    assert session is not None and patience(session, GRACE) == LIMIT
    (due, calls_then), (stopped, calls) = seen.first_due[debtor.kind], seen.stopped_at
    took = stopped - due
    # Claimed a grace period after it fell due, plus the time it was away (at most the patience
    # bound, once), and forfeited a grace period after the claim (the watch looks every POLL_S).
    assert took <= 2 * GRACE + extra + 2 * POLL_S, (took, way)
    # Meanwhile it dropped and came back all along (each return: a new connection).
    assert calls - calls_then >= took / (on_s + down_s + 1) - 1 >= 1, (calls - calls_then, took)


def test_a_clock_liar_away_whenever_a_stage_opens_still_spends_its_round() -> None:
    # A 10 s Magic Square round clock, a grace period of 20 s. The liar declares 0 ms for every
    # decision while taking 5 s, and is connected 1 s of every 5 or 6: each stage opens while it
    # is away, and its decision arrives as it comes back. Judged from each return (it may not have
    # seen the stage open), it was never seen to spend anything: it played whole matches, 5 s a
    # decision on a 10 s round, with no claim and nothing on the record. Now what a return
    # excuses comes out of its grace, and past that counts on its round's clock.
    from tests.net.test_clocks import DeclaresNothing, Thinks

    seen = Seen()
    network = Network(cut_s=1.0, away_s=4.0, every=True)

    async def main() -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            return await play_match(
                Path(tmp),
                "magic-square",
                peers=2,
                options={"round_seconds": 10},
                setup={},
                deciders=[BotDriver("random", 1, thread=False), Thinks("random", 2, 5.0)],
                grace_s=20.0,
                network=network,
                make=DeclaresNothing,
                silent=1,
                within_s=900,
                watch=watching(seen, debtor=1, network=network),
            )

    played = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    host = played.reports[0]
    assert host.fault is not None and host.fault.kind == "forfeit" and host.fault.peer == 1, host.summary
    assert "its clock and its 20 seconds past it spent" in host.fault.reason
    session = played.peers[0].session
    assert session is not None and session.played.clockbook.round_key == 0  # (its first round)
    assert seen.stopped_at is not None and seen.stopped_at[1] >= 5  # (it kept dropping)
    # The round's 10 s and the grace period's 20 s, and a lag allowance for each decision (the
    # whole cap for the first, before its peer's speed is known), as for a liar that stays: 38 s.
    liar = session.owner.index(1)
    decisions = sum(1 for _, seat, _ in session.log if seat == liar) + 1  # (and the one it owed)
    allowance = played.peers[0]._clocks.allowance(1)
    assert seen.stopped_at[0] <= 10 + 20 + decisions * allowance + MAX_ALLOWANCE_S, (seen, decisions)
