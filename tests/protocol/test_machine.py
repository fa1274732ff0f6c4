"""The match machine (protocol/machine.py) with no event loop at all: two peers' machines, a clock
the test moves by hand, messages carried by hand. Whole matches are played through its one entry
per input; a silent seat is claimed, and a silent peer forfeited, at the times its inputs say;
refused decisions and lost connections are told, and the caller's outputs come in the order the
pump must carry them out."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from p2pgenius.bots.driver import BotDriver
from p2pgenius.bots.registry import plain
from p2pgenius.errors import IllegalActionError
from p2pgenius.inmemory import play as play_in_memory
from p2pgenius.protocol.clocks import LAG_FLOOR_S, Clocks
from p2pgenius.protocol.events import (
    ConnectionLost,
    DecisionRefused,
    FaultKind,
    MatchOver,
    Notice,
    OutOfTime,
    TimeoutClaimSent,
)
from p2pgenius.protocol.machine import MAX_REFUSED, MatchMachine, Step
from p2pgenius.protocol.records import frame, header
from p2pgenius.protocol.session import play as play_module
from p2pgenius.protocol.transcript import verify

from .test_clocks import Pair
from .test_clocks_without_trio import Hand

GRACE_S = 60.0


class Table:
    """Two machines over a :class:`Pair`'s sessions, and what each was told and sent."""

    def __init__(self, game: str, options: dict[str, Any], setup: dict[str, Any] | None = None) -> None:
        self.pair, self.hand = Pair(game, options, setup), Hand()
        self.machines = [MatchMachine(s, Clocks(self.hand), GRACE_S) for s in self.pair.s]
        self.told: list[list[Any]] = [[], []]
        self.wire: list[list[bytes]] = [[], []]  # messages on their way to each peer
        self.records = self.pair.records  # (the terms and the coin flip, kept by the pair)
        for i, machine in enumerate(self.machines):
            self.take(i, machine.start())

    def take(self, i: int, step: Step) -> None:
        self.told[i] += step.told
        self.records[i] += step.records
        self.wire[1 - i] += step.messages
        for due in step.verdicts:  # (judged at once here: a pump judges it off its loop)
            self.take(i, self.machines[i].concluded(due, due.judge()))

    def deliver(self) -> None:
        while any(self.wire):
            for i in (0, 1):
                while self.wire[i]:
                    payload = self.wire[i].pop(0)
                    self.take(i, self.machines[i].received(payload, self.hand.t))

    def decide_all(self, bots: BotDriver) -> None:
        """Every decision the machines want now, by ``bots``, each through ``decided``."""
        for i, machine in enumerate(self.machines):
            wanted, _ = machine.follow()
            for number, seat in sorted(wanted):
                view = machine.session.view
                if view.stage is None or view.stage.number != number:
                    continue
                action = bots.choose(view.game_name or "", view.state, seat)
                self.take(i, machine.decided(number, seat, None if action is None else plain(action)))


@pytest.mark.parametrize(
    ("game", "options", "setup"),
    [
        ("duel", {"fast": True}, {"hp": [5, 5]}),
        ("magic-square", {}, {"colours": [0, 1] * 8, "first_lead": 0}),
    ],
)
def test_a_whole_match_through_the_machines_one_entry_and_no_event_loop(
    game: str, options: dict[str, Any], setup: dict[str, Any]
) -> None:
    table, bots = Table(game, options, setup), BotDriver("random", 5)
    for _ in range(2000):
        if all(m.over for m in table.machines):
            break
        table.hand.t += 1.0
        table.decide_all(bots)
        table.deliver()
    assert all(m.session.finished for m in table.machines)
    first, second = (m.session for m in table.machines)
    assert first.outcome == second.outcome and first.log == second.log
    assert [type(e) for e in table.told[0] if isinstance(e, MatchOver)] == [MatchOver]
    # What the machine gave to persist is the whole transcript: it verifies on its own.
    for i, session in enumerate((first, second)):
        kept = header(session.keys, session.me, role="test") + b"".join(frame(r) for r in table.records[i])
        report = verify(kept)
        assert report.ok and session.outcome is not None, report.summary
        assert report.outcome == session.outcome.to_plain(), report.summary


def test_a_silent_seat_is_claimed_at_its_clock_and_lag_a_silent_peer_forfeited_after_grace() -> None:
    table = Table("duel", {"fast": True, "turn_seconds": 60}, {"hp": [5, 5]})
    first, second = table.machines
    (mine,), (theirs,) = first.session.my_seats, second.session.my_seats
    for machine in table.machines:
        machine.follow()
    start = table.hand.t
    assert first.wake_at() == start and first.tick().ping  # (the first ping is due at once)
    number = first.session.stage.number  # type: ignore[union-attr]
    table.take(0, first.decided(number, mine, {"type": "gestures", "left": "-", "right": "-"}))
    table.wire[1].clear()  # (the second peer hears nothing from now on: it is cut off)
    # Woken at each ping (every 10 s) and at the other seat's minute and the lag allowance, it
    # sends nothing until then, and then the signed claim.
    for _ in range(10):
        assert first.wake_at() > table.hand.t
        table.hand.t = first.wake_at()
        step = first.tick()
        if step.messages:
            break
        assert step.ping and not step.told
    assert table.hand.t == start + 60 + LAG_FLOOR_S
    assert [(type(e), getattr(e, "seat", None)) for e in step.told] == [(TimeoutClaimSent, theirs)]
    # Nobody answers: the claim stands the grace period, then the silent seat forfeits.
    for _ in range(100):
        if first.over:
            break
        table.hand.t = max(table.hand.t, first.wake_at())
        table.take(0, first.tick())
    fault = first.session.fault
    assert fault is not None and fault.kind is FaultKind.FORFEIT and fault.peer == second.session.me
    assert table.hand.t <= start + 60 + LAG_FLOOR_S + GRACE_S + 1


def test_a_seat_past_its_own_clock_plays_its_timeout_and_refused_decisions_are_told_then_timed_out() -> None:
    table = Table("duel", {"fast": True, "turn_seconds": 60}, {"hp": [5, 5]})
    first = table.machines[0]
    (mine,) = first.session.my_seats
    wanted, began = first.follow()
    number = first.session.stage.number  # type: ignore[union-attr]
    assert wanted == {(number, mine)} and began == (number, 0.0)
    for attempt in range(1, MAX_REFUSED + 1):
        step = first.decided(number, mine, {"type": "gestures", "left": "no such gesture"})
        assert isinstance(step.told[0], DecisionRefused) and first.refusals((number, mine)) == attempt
        if attempt < MAX_REFUSED:
            assert step.ask_again == [(number, mine)] and not step.messages
    # The fifth refusal in a row: the rules' timeout is played for it (and sent).
    assert any(isinstance(e, Notice) and "refused in a row" in e.text for e in step.told)
    assert step.messages and mine not in first.session.awaiting()
    # Another match: a decision that comes after its clock ran out is its timeout.
    table = Table("duel", {"fast": True, "turn_seconds": 60}, {"hp": [5, 5]})
    first = table.machines[0]
    (mine,) = first.session.my_seats
    first.follow()
    number = first.session.stage.number  # type: ignore[union-attr]
    table.hand.t += 61
    step = first.decided(number, mine, {"type": "gestures", "left": "-", "right": "-"})
    assert isinstance(step.told[0], OutOfTime) and step.messages


def test_a_lost_connection_is_told_and_its_peer_waited_for_not_claimed_for_the_route() -> None:
    table = Table("duel", {"fast": True, "turn_seconds": 60}, {"hp": [5, 5]})
    host, joiner = table.machines
    step = joiner.gone(None, "it answered no ping")
    assert [type(e) for e in step.told] == [Notice, ConnectionLost]
    assert step.told[0] == Notice("the connection to the host was given up: it answered no ping")
    # Each side says it from where it stands: a joiner lost its host; a host, one of its players.
    lost = ConnectionLost(0, joiner.session.names[0], to_host=True)
    assert step.told[1] == lost and lost.text == "lost the connection to the host; reconnecting"
    name = host.session.names[1]
    lost = ConnectionLost(1, name)
    assert host.gone(1).told == [lost]
    assert lost.text == f"{name}'s connection closed; waiting for {name} to come back"
    assert host.clocks.away == {1: table.hand.t} and joiner.clocks.away == {0: table.hand.t}
    assert not step.messages and not step.records  # (nothing is sent or kept for a lost route)


def test_an_input_that_raised_leaves_nothing_half_done_for_the_next() -> None:
    table = Table("duel", {"fast": True, "turn_seconds": 60}, {"hp": [5, 5]})
    first = table.machines[0]
    first.follow()

    class BrokenClockError(Exception):
        pass

    def act_then_fail(*args: Any) -> bool:
        args[-1](Notice("half of a tick"))  # (told, then the input fails)
        raise BrokenClockError

    first.clocks.act = act_then_fail  # type: ignore[method-assign,assignment]
    with pytest.raises(BrokenClockError):
        first.tick()
    assert first.chat("gg").told == [] and first.chat("gg").messages  # (nothing of the tick)


def test_no_peer_checks_one_act_twice_its_own_acts_included(monkeypatch: pytest.MonkeyPatch) -> None:
    """A local act is parsed and checked as it is made, and not again when its own message is
    handled (every other peer checks it once, as it arrives)."""
    checked: list[tuple[int, int, int, str]] = []
    real_check = play_module.check_legal
    sessions: list[Any] = []

    def counted(match: Any, seat: int, action: Any, state: Any = None) -> None:
        index = next(i for i, s in enumerate(sessions) if s.play is not None and s.played.match is match)
        number = sessions[index].stage.number
        checked.append((index, number, seat, repr(action.to_plain())))
        real_check(match, seat, action, state)

    monkeypatch.setattr(play_module, "check_legal", counted)
    table = play_in_memory("magic-square", seed=5, on_start=lambda t: sessions.extend(t.sessions))
    assert table.faults() == [] and all(s.finished for s in table.sessions)
    assert len(checked) > 40, "the match was played with its acts checked"
    twice = [key for key in set(checked) if checked.count(key) > 1]
    assert twice == [], twice


def test_an_optional_seat_is_refused_a_kind_of_action_its_window_does_not_take() -> None:
    """Checked as the choice is made (its own message is not checked again: see above)."""
    match: Any = SimpleNamespace(spec=SimpleNamespace(optional_types=("challenge",)))
    stage: Any = SimpleNamespace(optional=(1,))
    place: Any = SimpleNamespace(to_plain=lambda: {"type": "place", "cell": 3})
    challenge: Any = SimpleNamespace(to_plain=lambda: {"type": "challenge"})
    with pytest.raises(IllegalActionError, match="only challenge is allowed here"):
        play_module.check_optional(match, stage, 1, place)
    play_module.check_optional(match, stage, 1, challenge)
    play_module.check_optional(match, stage, 0, place)  # (a seat the stage waits on: not a window)
