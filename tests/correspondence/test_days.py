"""Correspondence time over days, on a fake wall clock that jumps hours between visits (the
relays are real; only the letters' Nostr times are today's). A duel of a day a turn with a day's
grace period: a player who visits once a day is never claimed against, however often the other
visits; a player who stops visiting is claimed against and then forfeits, the forfeit reaches it
at its next visit, both transcripts verify and the record shows the forfeit."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from p2pgenius.net.correspondence import Carrier, Offer, peek
from p2pgenius.protocol.events import TimeoutClaimSent
from p2pgenius.protocol.session import TimeoutClaimed
from p2pgenius.protocol.transcript import verify
from p2pgenius.record.matches import STOPPED, read
from tests.correspondence.tables import Game, RealRelay, Side, check_finished, mailbox, table
from tests.nostr.relays import local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing()))

DAY = 86400.0
HOUR = 3600.0
START = 1_800_000_000.0  # (a Friday in 2027, 08:00 UTC: any time will do)


@dataclass
class FakeClock:
    """The wall clock the visits read (``Visit.now``): moved by the test only."""

    at: float = START

    def __call__(self) -> float:
        return self.at


def duel(folder: Path, relay: str) -> list[Side]:
    """A duel of a day a turn (wizard bots, 12 turns)."""
    return table(
        folder, Game(Offer("duel", {"turn_seconds": 86400}), ["ann", "bob"], "wizard", seed=42), [relay]
    )


async def days(
    sides: Sequence[Side],
    hours: Sequence[Sequence[float]],
    clock: FakeClock,
    *,
    grace_s: float,
    span: range,
) -> int:
    """Each side visits at its hours of each day of ``span`` (none once a side has stopped: no
    hours), in the order of the times, until the match is over or the span: the day it stopped."""
    for day in span:
        if all(side.over for side in sides):
            return day
        visits = sorted((START + day * DAY + hour * HOUR, i) for i, its in enumerate(hours) for hour in its)
        for at, i in visits:
            clock.at = at
            if not sides[i].over:
                await sides[i].run(now=clock, grace_s=grace_s)
    return span.stop


def claims(side: Side) -> list[object]:
    """The claims this side's visits made (said in a line) or saw made against it."""
    made = [line for line in side.lines if "claimed, signed" in line]
    return [*made, *(event for event in side.told if isinstance(event, TimeoutClaimSent | TimeoutClaimed))]


def test_a_player_who_visits_once_a_day_is_never_claimed_against(tmp_path: Path) -> None:
    relay = RealRelay(tmp_path)
    sides = duel(tmp_path, relay.url)
    clock = FakeClock()
    rng = random.Random(3)
    # ann looks in three times a day, at hours of her own each day; bob once a day, at 05:00.
    hours = [[rng.uniform(6, 23) for _ in range(3)], [5.0]]
    try:
        took = trio.run(lambda: days(sides, hours, clock, grace_s=DAY, span=range(40)))
    finally:
        relay.stop()
    check_finished(sides)
    assert not claims(sides[0]) and not claims(sides[1]), [s.lines[-3:] for s in sides]
    print(f"over in {took} days; visits {[s.visits for s in sides]}")


def test_a_grace_of_hours_does_not_forfeit_a_player_who_visits_once_a_day(tmp_path: Path) -> None:
    relay = RealRelay(tmp_path)
    sides = duel(tmp_path, relay.url)
    try:
        trio.run(lambda: days(sides, [[2, 8, 20], [5]], FakeClock(), grace_s=6 * HOUR, span=range(40)))
    finally:
        relay.stop()
    assert not claims(sides[1]), sides[0].lines[-3:]
    check_finished(sides)


async def stop_visiting(sides: Sequence[Side], clock: FakeClock) -> int:
    """ann and bob visit once a day for three days, then bob stops and ann goes on alone until
    the match is over for her: the days that took."""
    await days(sides, [[8], [20]], clock, grace_s=DAY, span=range(3))
    assert not any(side.over for side in sides)
    return await days(sides, [[8], []], clock, grace_s=DAY, span=range(3, 10))


def forfeited(side: Side) -> None:
    """``side``'s transcript verifies, proving bob's forfeit (a match stopped by a proven fault:
    ``ok`` is for a match played to its end), and the record shows it: ann wins."""
    report = verify(side.path.read_bytes())
    bob = report.names.index("bob")
    assert report.fault is not None and (report.fault.kind, report.fault.peer) == ("forfeit", bob), (
        report.summary
    )
    assert not report.rejected, report.rejected
    line = read(side.path)
    assert (line.kind, line.fault_kind, line.fault_peer) == (STOPPED, "forfeit", bob), (
        side.name,
        line.reason,
    )
    assert line.proves and line.winners and set(line.winners).isdisjoint(line.players[bob].seats), line


def test_a_player_who_stops_visiting_is_claimed_against_then_forfeits(tmp_path: Path) -> None:
    relay = RealRelay(tmp_path)
    sides = duel(tmp_path, relay.url)
    clock = FakeClock()
    try:
        trio.run(stop_visiting, sides, clock)
    finally:
        relay.stop()
    assert sides[0].over and not sides[1].over
    assert claims(sides[0]), sides[0].lines[-5:]
    forfeited(sides[0])
    print(
        f"ann's forfeit of bob: {(sides[0].state.visited - START) / DAY:.1f} days in: {sides[0].lines[-2:]}"
    )


def test_the_forfeit_reaches_the_player_who_stopped_at_its_next_visit(tmp_path: Path) -> None:
    relay = RealRelay(tmp_path)
    sides = duel(tmp_path, relay.url)
    clock = FakeClock()
    try:
        trio.run(stop_visiting, sides, clock)
        clock.at += 3 * DAY  # (bob comes back days later)
        trio.run(lambda: sides[1].run(now=clock, grace_s=DAY))
    finally:
        relay.stop()
    # bob is told at once, and his side is over; he signs nothing more (ann's copy is the proof,
    # his stops before it: the record judges the copies together).
    assert sides[1].over, (sides[1].lines[-3:], sides[1].told[-2:])
    assert any("ann forfeited you" in line for line in sides[1].lines), sides[1].lines[-3:]
    assert sides[1].state.result.startswith("you forfeited"), sides[1].state.result
    forfeited(sides[0])
    bob = verify(sides[1].path.read_bytes())
    assert bob.fault is None and not bob.rejected, bob.summary


def test_a_player_who_vanishes_owing_the_move_on_its_clock_forfeits(tmp_path: Path) -> None:
    # ann stops after a visit of hers: bob, reading it, moves and opens at once, so what ann then
    # owes is the next turn's move on her clock (the other kind of debt than above). Her
    # deadline runs from when bob saw the turn begin, across his visits (not from each visit).
    relay = RealRelay(tmp_path)
    sides = duel(tmp_path, relay.url)
    clock = FakeClock()
    try:

        async def ann_stops() -> int:
            await days(sides, [[8], [20]], clock, grace_s=DAY, span=range(3))
            return await days(sides, [[], [20]], clock, grace_s=DAY, span=range(3, 12))

        trio.run(ann_stops)
    finally:
        relay.stop()
    assert sides[1].over and not sides[0].over, sides[1].lines[-3:]
    report = verify(sides[1].path.read_bytes())
    ann = report.names.index("ann")
    assert report.fault is not None and (report.fault.kind, report.fault.peer) == ("forfeit", ann), (
        report.summary
    )


def test_a_player_back_past_its_clock_concedes_a_forfeit_made_with_a_shorter_grace(tmp_path: Path) -> None:
    # Each side's grace period is its own. bob looks in, sees his turn begin, and leaves without
    # moving (`later`); ann, who looks in every hour with a grace of an hour, claims his move a
    # day later and forfeits him an hour after that. bob comes back hours past his day (his
    # clock counted from when he saw the turn begin), well inside his own grace of a day: he was
    # late all the same, and is told he was forfeited, not left playing a match ann has ended.
    from p2pgenius.net.correspondence import PostponedError

    relay = RealRelay(tmp_path)
    ann, bob = sides = duel(tmp_path, relay.url)
    clock = FakeClock()

    async def later(*_: object) -> object:
        raise PostponedError("later")

    async def play() -> None:
        await days(sides, [[8], [20]], clock, grace_s=DAY, span=range(2))
        clock.at = START + 2 * DAY + 8 * HOUR
        await ann.run(now=clock, grace_s=HOUR)
        clock.at = START + 2 * DAY + 20 * HOUR
        visit = bob.visit(now=clock, grace_s=DAY)
        visit.decide = later  # type: ignore[assignment]
        try:
            await visit.run()
        finally:
            visit.files.close()
            visit.files.release()
        assert not bob.over and bob.state.next.mine, bob.lines[-3:]
        for hour in range(1, 30):  # (ann, every hour from then on, until the match is over for her)
            clock.at = START + 2 * DAY + (20 + hour) * HOUR
            if not ann.over:
                await ann.run(now=clock, grace_s=HOUR)
        assert ann.over, (ann.lines[-6:], ann.state.next, bob.lines[-4:])
        # `games` (a peek: nothing written) tells bob before he visits, in his words.
        state = bob.state
        carrier = Carrier(bob.identity, mailbox(bob), state.relays, wait_s=10)
        said = await peek(carrier, bob.path, state)
        assert said is not None and "ann says you forfeited" in said, said
        assert "ann claims your time ran out" in said, said
        clock.at = START + 3 * DAY + 23 * HOUR  # (bob: hours past his clock, under his grace)
        await bob.run(now=clock, grace_s=DAY)

    try:
        trio.run(play)
    finally:
        relay.stop()
    forfeited(ann)
    assert bob.over and any("ann forfeited you" in line for line in bob.lines), bob.lines[-3:]
    assert bob.state.result.startswith("you forfeited"), bob.state.result


def test_a_player_back_soon_from_a_turn_that_opened_while_it_was_away_refuses_and_says_so(
    tmp_path: Path,
) -> None:
    # bob stops visiting after his move; the turn that then opens (by ann's letter) he never
    # saw open, so when it opened is ann's word alone: he concedes only after an absence his own
    # grace makes long (twice his grace and the turn's clock since his last visit). Back sooner,
    # he refuses ann's forfeit, plays on, and is told why in words.
    relay = RealRelay(tmp_path)
    ann, bob = sides = duel(tmp_path, relay.url)
    clock = FakeClock()
    try:
        trio.run(stop_visiting, sides, clock)
        forfeited_at, last_seen = ann.state.visited, bob.state.visited
        back = forfeited_at + HOUR  # (bob keeps a grace of two days: he concedes after five)
        assert ann.over and back < last_seen + 2 * 2 * DAY + DAY, (forfeited_at - START, last_seen - START)
        clock.at = back
        trio.run(lambda: bob.run(now=clock, grace_s=2 * DAY))
    finally:
        relay.stop()
    assert not bob.over, bob.lines[-3:]
    said = [line for line in bob.lines if "ann says you forfeited" in line]
    assert said and "refused, and the match goes on here" in said[0], bob.lines[-4:]


def test_a_larger_grace_given_on_the_return_does_not_undo_a_forfeit_earned(tmp_path: Path) -> None:
    # (a newcomer's try: back past the bar his kept grace sets, bob ran `resume --grace 30m`
    # and refused the forfeit the kept one concedes: the grace in force while he was away rules)
    relay = RealRelay(tmp_path)
    _, bob = sides = duel(tmp_path, relay.url)
    clock = FakeClock()

    async def back_with_a_larger_grace() -> None:
        visit = bob.visit(now=clock, grace_s=10 * DAY)
        visit.away_grace_s = DAY  # (what he kept while away: cli/correspondence passes it so)
        try:
            await visit.run()
        finally:
            visit.files.close()
            visit.files.release()

    try:
        trio.run(stop_visiting, sides, clock)
        clock.at += 3 * DAY
        trio.run(back_with_a_larger_grace)
    finally:
        relay.stop()
    assert bob.over and any("ann forfeited you" in line for line in bob.lines), bob.lines[-3:]


def test_later_ends_a_staying_visit_for_the_next_one(tmp_path: Path) -> None:
    # (a second newcomer's try: under --stay, `later` asked the same question again at once)
    from p2pgenius.net.correspondence import PostponedError

    relay = RealRelay(tmp_path)
    ann, _ = sides = duel(tmp_path, relay.url)
    clock = FakeClock()
    asked: list[int] = []

    async def later(*_: object) -> object:
        asked.append(1)
        raise PostponedError("later")

    async def play() -> None:
        await days(sides, [[8], [20]], clock, grace_s=DAY, span=range(2))
        clock.at = START + 2 * DAY + 8 * HOUR  # (ann's next look: bob's choice in, hers to make)
        visit = ann.visit(now=clock, grace_s=DAY)
        visit.decide = later  # type: ignore[assignment]
        try:
            with trio.fail_after(30):
                await visit.run(stay=True, poll_s=0.05)
        finally:
            visit.files.close()
            visit.files.release()
        assert visit.postponed and len(asked) == 1, asked

    try:
        trio.run(play)
    finally:
        relay.stop()
    assert not ann.over and ann.state.next.mine, ann.lines[-3:]
