"""Agreed time (protocol/SPEC.md, section 6, "Time"): declared milliseconds, clocks that every
peer computes alike, timeouts, timeout claims, the duel's minute, and seat claims in the terms."""

from __future__ import annotations

from typing import Any

import pytest

from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.bodies import Act
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import (
    Applied,
    ClockView,
    Event,
    MatchOver,
    Rejected,
    Session,
    TimeoutClaimed,
    start_table,
)


class Pair:
    """Two sessions whose messages are delivered by hand, so tests choose when."""

    def __init__(self, game: str, options: dict[str, Any], setup: dict[str, Any] | None = None, **kw: Any):
        ids = [Identity.from_seed(bytes([77, i]) * 16) for i in range(2)]
        keys = [i.public for i in ids]
        self.s = [Session(keys=keys, me=i, identity=ids[i], **kw.get(f"kw{i}", {})) for i in range(2)]
        self.events: list[list[Event]] = [[], []]
        self.wire: list[list[bytes]] = [[], []]  # messages on their way to each peer
        self.records: list[list[bytes]] = [[], []]  # what each session gave to persist
        start_table(self.s, game, options=options, setup=setup or {}, claims=kw.get("claims"))
        self.pump()

    def pump(self) -> None:
        """Deliver everything until quiet."""
        moved = True
        while moved:
            moved = False
            for i in (0, 1):
                out = self.s[i].flush()
                self.records[i] += out.records
                self.wire[1 - i] += out.messages
                self.events[i] += self.s[i].take_events()
            for i in (0, 1):
                while self.wire[i]:
                    self.events[i] += self.s[i].receive(self.wire[i].pop(0))
                    moved = True

    def seat_peer(self, seat: int) -> Session:
        return next(s for s in self.s if seat in s.my_seats)


def ms_setup() -> dict[str, Any]:
    return {"colours": [0, 1] * 8, "first_lead": 0}


def test_declared_time_is_charged_alike_on_both_peers_and_the_round_clock_adds_up() -> None:
    pair = Pair("magic-square", {"round_seconds": 60}, ms_setup())
    lead = pair.seat_peer(0)
    assert {v.kind for v in lead.clocks().values()} == {"round"}
    lead.submit(0, {"type": "order", "first": 0}, ms=7_000)
    pair.pump()
    # Both peers charge exactly the declared 7 s to p0's round clock.
    for session in pair.s:
        assert session.played.clockbook.spent == {(0, "round", 0): 7_000}
    placer = pair.s[0].state.actor
    peer = pair.seat_peer(placer)
    peer.submit(placer, {"type": "place", "cell": 0}, ms=2_500)
    pair.pump()
    assert pair.s[0].clocks() == pair.s[1].clocks()
    assert pair.s[0].played.clockbook.spent == pair.s[1].played.clockbook.spent
    assert sum(pair.s[0].played.clockbook.spent.values()) == 9_500


def test_a_decision_declaring_more_than_its_clock_had_is_refused() -> None:
    pair = Pair("magic-square", {"round_seconds": 60}, ms_setup())
    lead = pair.seat_peer(0)
    with pytest.raises(LocalMisuseError, match="time out instead"):
        lead.submit(0, {"type": "order", "first": 0}, ms=60_001)
    # A peer that lies anyway is refused by the other side, with the reason on record.
    other = pair.s[1 - lead.me]  # type: ignore[operator]
    original = lead.played.clockbook.check_declared
    lead.played.clockbook.check_declared = lambda *a: None  # type: ignore[method-assign]
    lead.courier.send(Act(0, 0, {"type": "order", "first": 0}, 90_000))
    lead.played.clockbook.check_declared = original  # type: ignore[method-assign]
    pair.pump()
    refused = [e for e in pair.events[other.me] if isinstance(e, Rejected)]  # type: ignore[index]
    assert refused and "declares 90000 ms" in refused[0].reason
    assert other.played.clockbook.spent == {}


def test_running_out_sends_the_games_timeout_and_loses_the_round_everywhere() -> None:
    pair = Pair("magic-square", {"round_seconds": 60}, ms_setup())
    lead = pair.seat_peer(0)
    lead.choices.time_out(0)
    pair.pump()
    for session in pair.s:
        assert session.state.last_round["reason"] == "timeout"
        assert session.state.last_round["winner"] == 1
        assert session.played.clockbook.spent[(0, "round", 0)] == 60_000
    # The next round's clocks are fresh.
    assert all(v.left_ms == 60_000 for v in pair.s[0].clocks().values())


def colour_all(pair: Pair, ms: dict[int, int]) -> None:
    """Colour the grid, each seat declaring ``ms[seat]`` per cell (first free cell each time)."""
    while pair.s[0].state.phase == "colouring":
        seat = pair.s[0].state.colourer
        cell = pair.s[0].state.colours.index(None)
        pair.seat_peer(seat).submit(seat, {"type": "colour", "cell": cell}, ms=ms[seat])
        pair.pump()


def test_colouring_time_is_charged_to_the_first_rounds_round_clock() -> None:
    pair = Pair("magic-square", {"round_seconds": 60})  # no colours in the setup: round 1 colours
    for session in pair.s:
        assert session.clocks()[1] == ClockView("round", 0, 60_000, True)
    pair.seat_peer(1).submit(1, {"type": "order", "first": 0}, ms=5_000)
    pair.pump()
    colour_all(pair, {0: 4_000, 1: 3_000})
    for session in pair.s:
        assert session.state.phase == "lead"
        # One clock per player for the whole of round 1: colouring and placements add up.
        assert session.played.clockbook.spent == {(0, "round", 0): 32_000, (1, "round", 0): 29_000}
        assert session.clocks()[1] == ClockView("round", 0, 31_000, True)  # p1 coloured second: it leads
    lead = pair.seat_peer(1)
    with pytest.raises(LocalMisuseError, match="only 31000 ms"):
        lead.submit(1, {"type": "order", "first": 0}, ms=31_001)
    lead.submit(1, {"type": "order", "first": 0}, ms=1_000)
    pair.pump()
    pair.seat_peer(0).submit(0, {"type": "place", "cell": 0}, ms=500)
    pair.pump()
    for session in pair.s:
        assert session.played.clockbook.spent == {(0, "round", 0): 32_500, (1, "round", 0): 30_000}
        assert session.clocks()[1].left_ms == 30_000


def test_running_the_round_clock_out_while_colouring_loses_round_1() -> None:
    pair = Pair("magic-square", {"round_seconds": 60})
    pair.seat_peer(1).submit(1, {"type": "order", "first": 0}, ms=1_000)
    pair.pump()
    pair.seat_peer(0).submit(0, {"type": "colour", "cell": 0}, ms=58_000)  # p0 thinks long
    pair.pump()
    pair.seat_peer(1).submit(1, {"type": "colour", "cell": 1}, ms=1_000)
    pair.pump()
    assert pair.s[0].clocks()[0] == ClockView("round", 0, 2_000, True)
    pair.seat_peer(0).choices.time_out(0)
    pair.pump()
    for session in pair.s:
        assert session.state.last_round["reason"] == "timeout"
        assert session.state.last_round["winner"] == 1
        assert session.played.clockbook.spent[(0, "round", 0)] == 60_000
        assert None not in session.state.colours  # kept for round 2, the blank cells filled in
        assert (session.state.round, session.state.phase) == (2, "swap")
    # Round 2's clocks are fresh; the loser swaps first.
    assert pair.s[0].clocks() == {0: ClockView("round", pair.s[0].played.clockbook.round_key, 60_000, True)}
    assert (
        pair.s[0].played.clockbook.round_key > 0
        and pair.s[0].played.ending.my_hashes == pair.s[1].played.ending.my_hashes
    )


def test_terms_offering_a_colouring_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(LocalMisuseError, match="unknown option 'colour_seconds'"):
        Pair("magic-square", {"colour_seconds": 60})
    # A host that still offers it (an older version): the joiner refuses the terms, saying why.
    from p2pgenius.games.magic_square import engine

    monkeypatch.setattr(engine, "check_options", lambda options: None)  # the host's old engine
    monkeypatch.setattr(Pair, "pump", lambda self: None)  # nothing reaches the joiner yet
    pair = Pair("magic-square", {"colour_seconds": 60})
    monkeypatch.undo()
    pair.pump()
    refused = [e for e in pair.events[1] if isinstance(e, Rejected)]
    assert refused and "unknown option 'colour_seconds'" in refused[0].reason
    assert pair.s[1].terms is None


def test_a_timeout_claim_is_shown_to_the_accused_and_a_claim_on_ones_own_seat_is_refused() -> None:
    pair = Pair("hornswoggle", {"decision_seconds": 5})
    waiting = pair.s[0].owed()
    seat = waiting[0]
    accuser = next(s for s in pair.s if seat not in s.my_seats)
    with pytest.raises(LocalMisuseError):
        accuser.referee.claim_timeout(accuser.my_seats[0], 6_000)
    accuser.referee.claim_timeout(seat, 6_200)
    pair.pump()
    accused = pair.seat_peer(seat)
    claims = [e for e in pair.events[accused.me] if isinstance(e, TimeoutClaimed)]  # type: ignore[index]
    assert claims == [TimeoutClaimed(0, seat, 6_200, accuser.me, "decision")]  # type: ignore[arg-type]
    accused.choices.time_out(seat)  # accepting the claim: the pirate passes or plays its first legal card
    pair.pump()
    assert pair.s[0].stage is not None and pair.s[0].stage.number == 1
    assert pair.s[0].played.ending.my_hashes == pair.s[1].played.ending.my_hashes


def test_without_fast_a_duel_choice_may_change_until_its_minute_is_up() -> None:
    pair = Pair("duel", {"turn_seconds": 60})
    a, b = pair.seat_peer(0), pair.seat_peer(1)
    a.submit(0, {"type": "gestures", "left": "S", "right": "W"}, ms=1_000)
    b.submit(1, {"type": "gestures", "left": "P", "right": "W"}, ms=2_000)
    pair.pump()
    # Both are in, but nothing is revealed: the minute runs on.
    assert pair.s[0].stage is not None and pair.s[0].stage.number == 0
    assert all(v.running for v in a.clocks().values())
    a.submit(0, {"type": "gestures", "left": "D", "right": "W"}, ms=30_000)  # a change of mind
    a.choices.finalize(0)
    with pytest.raises(LocalMisuseError):
        a.submit(0, {"type": "gestures", "left": "W", "right": "W"}, ms=40_000)
    pair.pump()
    assert pair.s[1].stage is not None and pair.s[1].stage.number == 0
    b.choices.time_out(1)  # its minute is up: its last choice stands
    pair.pump()
    applied = [e for e in pair.events[1] if isinstance(e, Applied)]
    assert applied[0].actions[0][1] == {"type": "gestures", "left": "D", "right": "W"}
    assert pair.s[0].played.ending.my_hashes == pair.s[1].played.ending.my_hashes


def test_with_fast_the_first_commitments_are_revealed_at_once() -> None:
    pair = Pair("duel", {"fast": True})
    pair.seat_peer(0).submit(0, {"type": "gestures", "left": "S", "right": "W"}, ms=10)
    pair.seat_peer(1).submit(1, {"type": "gestures", "left": "P", "right": "W"}, ms=10)
    pair.pump()
    assert pair.s[0].stage is not None and pair.s[0].stage.number == 1


def test_seat_claims_are_granted_and_checked_against_the_lobby() -> None:
    pair = Pair("duel", {"fast": True}, claims=[[], [0]])
    assert pair.s[1].my_seats == (0,)
    assert pair.s[0].my_seats == (1,)
    with pytest.raises(LocalMisuseError, match="both claim"):
        Pair("duel", {}, claims=[[1], [1]])
    # A joiner refuses terms that differ from what its lobby showed.
    pair = Pair("duel", {"fast": True}, kw1={"expected": {"options": {"fast": False}}})
    refused = [e for e in pair.events[1] if isinstance(e, Rejected)]
    assert refused and "differ from the lobby" in refused[0].reason
    assert pair.s[1].terms is None


def test_a_whole_match_with_declared_times_verifies_and_ends_the_same() -> None:
    from p2pgenius.bots import make_bot

    pair = Pair("hornswoggle", {})
    bots = [make_bot("hornswoggle", "pirate", seed=s) for s in range(4)]
    for _ in range(5000):
        moved = False
        for session in pair.s:
            for seat in session.awaiting():
                session.submit(seat, bots[seat].choose(session.state, seat).to_plain(), ms=1_234)
                moved = True
        pair.pump()
        if not moved:
            break
    outcomes = [next(e.outcome for e in evs if isinstance(e, MatchOver)) for evs in pair.events]
    assert outcomes[0] == outcomes[1]
    assert (
        pair.s[0].played.clockbook.spent == pair.s[1].played.clockbook.spent
        and pair.s[0].played.clockbook.spent
    )


def _window_stage(pair: Pair) -> Any:
    """Play until a stage has a challenge window beside the next mover; returns the stage."""
    for _ in range(40):
        stage = pair.s[0].stage
        assert stage is not None
        if stage.optional:
            return stage
        for session in pair.s:
            for seat in session.awaiting():
                action = session.played.match.game.legal_actions(session.state, seat)[0]
                session.submit(seat, action.to_plain(), ms=100)
        pair.pump()
    raise AssertionError("no challenge window beside the next mover")


def test_a_challenge_window_lapses_at_the_next_action_and_costs_no_time() -> None:
    # The rules: a challenge only "before the next action". Once the mover acts, the window's
    # holder declines at once (its peer does it, nobody types "pass"), and the window took
    # nothing off its clock.
    pair = Pair("magic-square", {"round_seconds": 600}, ms_setup())
    stage = _window_stage(pair)
    (window,) = stage.optional
    (actor,) = stage.waiting
    for session in pair.s:
        # The window is open until the mover acts, but nothing of it is owed meanwhile: its
        # holder may challenge, and cannot be claimed for not yet having.
        assert window not in session.owed() and actor in session.owed()
        assert not session.clocks()[window].running  # and not on its holder's clock
    holder = pair.seat_peer(window)
    left_before = holder.clocks()[window].left_ms
    mover = pair.seat_peer(actor)
    mover.submit(actor, mover.played.match.game.legal_actions(mover.state, actor)[0].to_plain(), ms=100)
    pair.pump()
    for session in pair.s:
        assert session.stage is not None and session.stage.number > stage.number
    assert holder.clocks()[window].left_ms == left_before


def test_a_challenge_sent_before_the_next_action_still_counts() -> None:
    pair = Pair("magic-square", {"round_seconds": 600}, ms_setup())
    stage = _window_stage(pair)
    (window,) = stage.optional
    (actor,) = stage.waiting
    holder, mover = pair.seat_peer(window), pair.seat_peer(actor)
    holder.submit(window, {"type": "challenge"})  # crosses the mover's action on the wire
    mover.submit(actor, mover.played.match.game.legal_actions(mover.state, actor)[0].to_plain(), ms=100)
    pair.pump()
    for session in pair.s:
        assert session.state.phase == "challenge"  # the same on both sides: the challenge won


def test_an_under_declared_decision_is_disputed_on_the_record_and_verify_reports_it() -> None:
    from p2pgenius.canonical import encode
    from p2pgenius.protocol.session import TimeObserved
    from p2pgenius.protocol.transcript import frame, header, verify

    pair = Pair("magic-square", {"round_seconds": 600}, ms_setup())
    lead = pair.seat_peer(0)
    other = pair.s[1 - lead.me]  # type: ignore[operator]
    lead.submit(0, {"type": "order", "first": 0}, ms=0)  # it says 0 ms; the other saw 28 s pass
    pair.pump()
    with pytest.raises(LocalMisuseError, match="nothing to dispute"):
        other.referee.note_observed(0, 0, 0)  # not more than declared
    other.referee.note_observed(0, 0, 28_000)
    pair.pump()
    seen = [e for e in pair.events[lead.me] if isinstance(e, TimeObserved)]  # type: ignore[index]
    assert [(e.seat, e.observed_ms, e.declared_ms) for e in seen] == [(0, 28_000, 0)]
    assert (
        lead.played.clockbook.spent == other.played.clockbook.spent
    )  # the charge stays the declared time: the clocks agree
    with pytest.raises(LocalMisuseError):
        lead.referee.note_observed(0, 0, 30_000)  # nobody disputes its own time
    records = [header(lead.keys, lead.me)] + [frame(encode(["msg", raw])) for _, _, raw in lead.chain.archive]
    report = verify(b"".join(records))
    assert report.disputed_time and "saw 28.0 s" in report.disputed_time[0]


def test_a_seat_that_flipped_its_own_pile_is_off_its_clock_while_it_owes_the_opening() -> None:
    # A Hornswoggle challenger flips its own pile first: it has decided (its flip), and owes the
    # opening of its card, a debt on the grace period. Its clock showed as still running, so its
    # own peer, had the opening not gone at once, played its timeout again and again (refused
    # each time: its loop spun), and the others claimed the opening on its decision's clock.
    from p2pgenius.games.spec import Period
    from p2pgenius.protocol.session.stage import Stage
    from p2pgenius.protocol.session.timing import ClockBook

    stage = Stage(7, waiting=(2,), optional=(1,), acts={2: {"type": "flip", "pile": 2}})
    stage.clocks = {2: (Period("decision", 7, 60_000), 60_000), 1: (Period("decision", 7, 60_000), 60_000)}
    stage.ms[2] = 4_000
    views = ClockBook.views(stage, whole_period=False)
    assert views[2] == ClockView("decision", 7, 56_000, False)  # (its declared time is shown spent)
    assert not views[1].running  # (an optional seat: never on the clock)
    stage.acts.clear()
    assert ClockBook.views(stage, whole_period=False)[2].running  # deciding: it runs


def test_a_choice_declared_short_in_a_duel_of_the_minute_does_not_bring_its_final_claim_forward() -> None:
    # (a review's find) bob commits at 50 s declaring 0 ms: we saw 49 s more than he said, taken
    # off his clock as we judge it. But his clock still runs (his choice may change until his
    # minute is up), and those 49 s are in the time since the turn began already: his final is
    # claimed once his minute is up (and the lag allowance), never 40 s before it.
    from p2pgenius.bots.driver import BotDriver, plain
    from p2pgenius.protocol.clocks import Clocks, Due

    pair = Pair("duel", {"fast": False, "turn_seconds": 60})
    ann = pair.seat_peer(0)
    bob = pair.s[1 - (ann.me or 0)]
    mine, theirs = ann.my_seats[0], bob.my_seats[0]
    now = [0.0]
    clocks = Clocks(now=lambda: now[0])
    clocks.start(ann)
    clocks.follow(ann.stage.number if ann.stage is not None else 0)
    clocks.deadlines(ann, 10.0)  # (the clocks it keeps: bob's is running)
    ann.submit(mine, plain(BotDriver("random", 1).choose("duel", ann.state, mine)), ms=1000)
    for raw in ann.flush().messages:
        bob.receive(raw)
    now[0] = 50.0
    bob.submit(theirs, plain(BotDriver("random", 2).choose("duel", bob.state, theirs)), ms=0)
    for raw in bob.flush().messages:
        for event in ann.receive(raw):
            clocks.check_declared(ann, event, lambda said: None, at=50.0)
    assert clocks.under, "the short declaration is seen"
    claim = next(d for d in clocks.deadlines(ann, 10.0) if d.what is Due.CLAIM and d.seat == theirs)
    assert claim.when >= 60.0, claim
