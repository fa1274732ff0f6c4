"""Time never wrongs an honest player (protocol/SPEC.md, section 6, "What is owed"), proven by
exhaustion over real peers on an in-memory network and trio's autojump clock.

For every game in the table (rps included), with 2 and the most peers, fast turns and not, each
game's clocks at 1 s, their default, 600 s and a week, and a grace period shorter and longer than
them: players who think a share of their clock drawn anywhere inside it (hypothesis), over a
network with a one-way delay below the lag allowance, a joiner's connection cut and come back
inside the grace period. No claim, no dispute, no forfeit, no disputed time in any transcript, and
`verify` finds every match finished. And the converse: a seat that really stays silent past its
clock (or keeps back what it owes without one) is claimed and forfeited, by every peer alike, the
bystanders of 3 and 4 peers included, with evidence `verify` backs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgenius.bots.driver import BotDriver
from p2pgenius.games.registry import get_spec
from tests.games.rps import ENTRY
from tests.hostile.villain import Chain, Lie, Villain
from tests.test_every_game import GAMES, most_peers

from . import timing
from .timing import TIME_KINDS, Mute, Network, NeverTimesOut, Person, play_match

pytestmark = pytest.mark.usefixtures("rps_in_the_table")

SETUPS: dict[str, dict[str, Any]] = {
    "duel": {"hp": [3, 3]},
    "magic-square": {"colours": [0, 1] * 4 + [1, 0] * 4, "first_lead": 0},
    "hornswoggle": {"hands": [[1, 1], [1, 1], [1, 1], [1, 1]]},
}
"""Short matches: every decision is still on its clock."""
WEEK = 7 * 24 * 3600
CLOCKS = ("1", "default", "600", "week")
GRACES = (5.0, 3600.0)


def options(game: str, clock: str, fast: bool) -> dict[str, Any]:
    spec = get_spec(game)
    seconds = {"1": 1, "600": 600, "week": WEEK}
    out: dict[str, Any] = {t.name: seconds.get(clock, t.seconds) for t in spec.time_options}
    if spec.sealed:
        out["fast"] = fast
    return out


def tables() -> list[tuple[str, int, bool]]:
    out = []
    for game in GAMES:
        sealed = (ENTRY.load_spec() if game == ENTRY.name else get_spec(game)).sealed
        for peers in sorted({2, most_peers(game)}):
            for fast in (True, False) if sealed else (True,):
                out.append((game, peers, fast))
    return out


def honest(  # noqa: PLR0913  (one match's every knob, by name)
    game: str,
    peers: int,
    fast: bool,
    clock: str,
    grace: float,
    shares: list[list[float]],
    delay: float,
    cut: float | None,
) -> Any:
    async def main() -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            deciders = [Person("random", index + 1, shares[index % len(shares)]) for index in range(peers)]
            return await play_match(
                Path(tmp),
                game,
                peers=peers,
                options=options(game, clock, fast),
                setup=SETUPS.get(game, {}),
                deciders=list(deciders),
                grace_s=grace,
                network=Network(delay_s=delay, cut_s=cut),
                settle=[fast] * peers,  # (a person's sealed choice stands at the end of its minute)
                ping_s={"600": 60.0, "week": 86400.0}.get(clock),  # (fewer pings for long clocks)
            )

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.mark.parametrize(("game", "peers", "fast"), tables())
@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("grace", GRACES)
@settings(max_examples=1, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    # (Even the simplest example draws: each player's shares come from a seed, and the first of
    # each list below is a delay and a cut: the suite's one example a cell tries them.)
    shares=st.integers(0, 2**32 - 1).map(lambda seed: [timing.shares(seed + p) for p in range(4)]),
    delay=st.sampled_from([0.05, 0.2, 0.0]),
    cut=st.sampled_from([3.0, None]),
)
def test_no_honest_player_is_claimed_whatever_it_thinks_inside_its_clock(  # noqa: PLR0913
    game: str,
    peers: int,
    fast: bool,
    clock: str,
    grace: float,
    shares: list[list[float]],
    delay: float,
    cut: float | None,
) -> None:
    inside = cut if cut is None or cut < grace else None  # (a cut and a return inside the grace)
    played = honest(game, peers, fast, clock, grace, shares, delay, inside)
    for index, report in enumerate(played.reports):
        kinds = played.kinds(index)
        assert not set(kinds) & set(TIME_KINDS), (index, [k for k in kinds if k in TIME_KINDS])
        assert report.ok and not report.disputed_time, report.summary


def silent(game: str, peers: int, which: int, grace: float, how: str) -> Any:
    """A match in which peer ``which`` keeps back what it owes: ``clock``, its decision (its seat
    never decides, and its peer never plays its timeout); ``grace``, its signed result."""

    async def main() -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            deciders: list[BotDriver] = [BotDriver("random", i + 1, thread=False) for i in range(peers)]
            make: Any = NeverTimesOut
            if how == "clock":
                deciders[which] = Mute("random", 9, thread=False)
            else:

                def make(*args: Any, **kwargs: Any) -> Villain:  # (its end never leaves)
                    villain = Villain(*args, **kwargs)
                    villain.rewrite = Chain(Lie("end", nth=0, mode="drop"))
                    return villain

            return await play_match(
                Path(tmp),
                game,
                peers=peers,
                options=options(game, "default", True),
                setup=SETUPS.get(game, {}),
                deciders=deciders,
                grace_s=grace,
                make=make,
                silent=which,
            )

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.mark.parametrize(("game", "peers"), sorted({(g, p) for g in GAMES for p in (2, most_peers(g))}))
@pytest.mark.parametrize("how", ["clock", "grace"])
def test_a_seat_that_stays_silent_is_claimed_and_forfeited_by_every_peer(
    game: str, peers: int, how: str
) -> None:
    played = silent(game, peers, peers - 1, 30.0, how)  # a joiner: with 3 and 4, bystanders too
    which = played.silent
    assert which is not None and which > 0
    for peer, report in zip(played.peers, played.reports, strict=True):
        if peer.session is None or peer.session.me == which:
            continue
        fault = report.fault
        assert fault is not None and fault.kind == "forfeit" and fault.peer == which, report.summary
        assert fault.evidence.get("claimed_by") != which  # (an honest peer's claim, signed)


@pytest.mark.parametrize(("game", "peers"), [("duel", 2), ("hornswoggle", 4)])
@settings(max_examples=2, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(shares=st.lists(st.lists(st.floats(0.0, 0.95), min_size=1, max_size=6), min_size=1, max_size=4))
def test_a_player_cut_off_for_an_hour_of_a_week_long_turn_is_not_gone(
    game: str, peers: int, shares: list[list[float]]
) -> None:
    # A grace period of 5 s, a joiner that cannot reach the host for an hour: what it owes without
    # a clock waits as long as one of its decisions may (a week); it keeps trying, comes back, and
    # the match goes on to its end as if nothing happened.
    async def main() -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            return await play_match(
                Path(tmp),
                game,
                peers=peers,
                options=options(game, "week", True),
                setup=SETUPS.get(game, {}),
                deciders=[Person("random", i + 1, shares[i % len(shares)]) for i in range(peers)],
                grace_s=5.0,
                network=Network(delay_s=0.05, cut_s=30.0, away_s=3600.0),
                ping_s=86400.0,
            )

    played = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    for index, report in enumerate(played.reports):
        assert not set(played.kinds(index)) & set(TIME_KINDS), index
        assert report.ok, report.summary


@pytest.mark.parametrize(("away", "claimed"), [(3600.0, False), (2 * WEEK, True)])
def test_what_a_player_cut_off_owes_without_a_clock_waits_as_long_as_a_decision_may(
    away: float, claimed: bool
) -> None:
    # The joiner chooses at once and is cut off; the host chooses ten minutes later: the joiner's
    # opening is due, and it cannot send it. With a grace period of 5 s it is still waited for
    # as long as one of its decisions may take (a week): back within the hour, it opens its
    # choice and the match goes on; away for longer than that, it is claimed and forfeits.
    async def main() -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            return await play_match(
                Path(tmp),
                "duel",
                peers=2,
                options=options("duel", "week", True),
                setup=SETUPS["duel"],
                deciders=[Person("random", 1, [600 / WEEK]), Person("random", 2, [0.0])],
                grace_s=5.0,
                network=Network(cut_s=30.0, away_s=away),
                ping_s=86400.0,
            )

    played = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    host = played.reports[0]
    if claimed:
        assert host.fault is not None and host.fault.kind == "forfeit" and host.fault.peer == 1, host.summary
    else:
        assert not set(played.kinds(0)) & set(TIME_KINDS) and host.ok, host.summary
