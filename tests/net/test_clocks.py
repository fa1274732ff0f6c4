"""Clocks over the network (protocol/SPEC.md, "Time"), on trio's autojump clock and in-memory
streams: a player's own peer times it out, a peer that does not is claimed against and loses
after the grace period, a hung peer loses, and both sides show the same clocks."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode
from p2pgenius.errors import LocalMisuseError
from p2pgenius.net.inbox import Inbox
from p2pgenius.net.match_loop import MatchLoop
from p2pgenius.net.party import Doors
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.clocks import MAX_ALLOWANCE_S, Deadline, Due
from p2pgenius.protocol.machine import MatchMachine
from p2pgenius.protocol.session import Fault, SessionView, TimeoutClaimed
from p2pgenius.protocol.transcript import verify

from .test_network import OneStream, Silent, peer

SQUARE = {"colours": [0, 1] * 8, "first_lead": 0}


class Thinks(BotDriver):
    """A bot that takes ``seconds`` (of the fake clock) per decision, or forever."""

    def __init__(self, level: str | None, seed: int, seconds: float) -> None:
        super().__init__(level, seed, thread=False)
        self.seconds = seconds

    async def decide(self, session: SessionView, seat: int) -> Any:
        await trio.sleep(self.seconds)
        return await super().decide(session, seat)


class Freezable(trio.abc.Stream):
    """A stream that can hang like a stopped process: the connection stays open, nothing moves."""

    def __init__(self, inner: trio.abc.Stream, after: int) -> None:
        self.inner = inner
        self.frozen = False
        self.sends_left = after  # it hangs after this many writes

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.sends_left -= 1
        self.frozen = self.frozen or self.sends_left < 0
        if not self.frozen:
            await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        while self.frozen:
            await trio.sleep_forever()
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass(frozen=True)
class Terms:
    """The match the host offers: ``game``, its ``options`` and its ``setup``."""

    game: str
    options: dict[str, Any]
    setup: dict[str, Any]


async def match(
    host: Peer,
    guest: Peer,
    terms: Terms,
    *,
    watch: Callable[[], Any] | None = None,
    guest_stream: Callable[[trio.abc.Stream], trio.abc.Stream] = lambda s: s,
) -> None:
    """``host`` and ``guest`` play the match of ``terms`` to its end (``watch``: a task run
    beside it; ``guest_stream``: the guest's end of the connection, as it sees it)."""
    game, options, setup = terms.game, terms.options, terms.setup
    host_end, guest_end = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(guest.join, guest_stream(guest_end))
        if watch is not None:
            nursery.start_soon(watch)
        with trio.fail_after(100_000):  # fake seconds
            await host.host(OneStream(host_end), game=game, options=options, setup=setup, peers=2, seats=[0])
        with trio.move_on_after(30):
            while guest.session is None or not (guest.session.finished or guest.session.fault):
                await trio.sleep(1)
        nursery.cancel_scope.cancel()


async def test_a_player_who_runs_out_is_timed_out_by_its_own_peer(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    host_log, guest_log = Silent(), Silent()
    host = peer(tmp_path, "host", BotDriver("heuristic", 1, thread=False), host_log)
    guest = peer(tmp_path, "guest", Thinks("heuristic", 2, 10**6), guest_log)
    await match(host, guest, Terms("magic-square", {"round_seconds": 30}, SQUARE))
    assert host.session is not None and guest.session is not None
    outcome = host.session.outcome
    assert outcome is not None and outcome == guest.session.outcome
    assert outcome.winner == 0
    assert host.session.state.last_round["reason"] == "timeout"
    # The line names the player as well as the seat (it said "p1: out of time").
    assert any(line.startswith("guest (p1): out of time") for line in guest_log.lines), guest_log.lines
    # Two rounds of 30 s each (plus the lead decisions), on the fake clock.
    assert 60 <= trio.current_time() < 200
    for side in (host, guest):
        assert verify(side.files.transcript.read_bytes()).ok


class NoOwnTimeouts(MatchMachine):
    """The rules of time of :class:`NeverTimesOut`."""

    def _deadlines(self) -> list[Deadline]:
        return [d for d in super()._deadlines() if d.what is not Due.EXPIRE]


class NeverTimesOut(Peer):
    """A dishonest or broken peer: it never enforces its own clock."""

    machine_type = NoOwnTimeouts


def sent_kinds(peer: Peer) -> list[str]:
    kinds = []
    for record in decode_records(peer.files.transcript.read_bytes()):
        if record[0] == "msg":
            kinds.append(decode(record[1])[5][0])
    return kinds


def decode_records(data: bytes) -> list[Any]:
    from p2pgenius.protocol.transcript import records

    return list(records(data))[1:]


async def test_a_timeout_claim_is_accepted_by_the_late_peer(tmp_path: Path, autojump_clock: Any) -> None:
    del autojump_clock
    host = peer(tmp_path, "host", BotDriver("heuristic", 1, thread=False), Silent())
    guest_log = Silent()
    guest = NeverTimesOut(**vars(peer(tmp_path, "guest", Thinks("heuristic", 2, 10**6), guest_log)))
    await match(host, guest, Terms("magic-square", {"round_seconds": 20}, SQUARE))
    assert host.session is not None and host.session.outcome is not None
    assert host.session.outcome.winner == 0
    kinds = sent_kinds(host)
    assert kinds.count("timeout") >= 2  # the host claimed, in each round
    assert host.session.state.last_round["reason"] == "timeout"
    assert verify(host.files.transcript.read_bytes()).ok


class NoClaimsAnswered(NoOwnTimeouts):
    """The rules of time of :class:`IgnoresClaims`."""

    def _on_clock_event(self, event: Any, at: float | None = None) -> None:
        del event, at


class IgnoresClaims(NeverTimesOut):
    """Worse: it neither times itself out nor answers a claim."""

    machine_type = NoClaimsAnswered


async def test_a_peer_that_answers_no_claim_forfeits_after_the_grace_period(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    host_log = Silent()
    host = peer(tmp_path, "host", BotDriver("heuristic", 1, thread=False), host_log, grace=40)
    guest = IgnoresClaims(**vars(peer(tmp_path, "guest", Thinks("heuristic", 2, 10**6), Silent())))
    await match(host, guest, Terms("magic-square", {"round_seconds": 20}, SQUARE))
    faults = [e for e in host_log.events if isinstance(e, Fault)]
    assert faults and faults[0].kind == "forfeit"
    assert "timeout claim" in faults[0].reason
    assert trio.current_time() >= 20 + 1 + 40
    assert verify(host.files.transcript.read_bytes()).fault is not None


async def test_a_hung_peer_loses_after_the_grace_period(tmp_path: Path, autojump_clock: Any) -> None:
    del autojump_clock
    host_log = Silent()
    host = peer(tmp_path, "host", BotDriver("random", 1), host_log, grace=30)
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent(), grace=10**6)
    streams: list[Freezable] = []

    def freezable(stream: trio.abc.Stream) -> trio.abc.Stream:
        streams.append(Freezable(stream, after=20))  # mid-match: a few turns in
        return streams[0]

    await match(host, guest, Terms("duel", {"fast": True}, {"hp": [60, 60]}), guest_stream=freezable)
    assert streams[0].frozen
    faults = [e for e in host_log.events if isinstance(e, Fault)]
    assert faults and faults[0].kind == "forfeit"
    assert "no answer" in faults[0].reason
    assert trio.current_time() >= 30
    assert verify(host.files.transcript.read_bytes()).fault is not None


async def test_both_sides_show_the_same_clocks(tmp_path: Path, autojump_clock: Any) -> None:
    del autojump_clock
    host = peer(tmp_path, "host", Thinks("heuristic", 1, 7.3), Silent())
    guest = peer(tmp_path, "guest", Thinks("heuristic", 2, 4.1), Silent())
    samples: list[tuple[dict[int, Any], dict[int, Any]]] = []
    spent: list[tuple[Any, Any]] = []

    async def watch() -> None:
        while len(samples) < 150:  # about four minutes of play
            await trio.sleep(1.7)
            await trio.testing.wait_all_tasks_blocked()
            samples.append((host.clock_readings(), guest.clock_readings()))
            assert host.session is not None and guest.session is not None
            spent.append(
                (dict(host.session.played.clockbook.spent), dict(guest.session.played.clockbook.spent))
            )
        enough.cancel()  # stop the match here

    with trio.CancelScope() as enough:
        await match(host, guest, Terms("magic-square", {"round_seconds": 600}, SQUARE), watch=watch)
    assert len(samples) == 150
    compared = 0
    for ours, theirs in samples:
        for seat in set(ours) & set(theirs):
            kind, left, running = ours[seat]
            assert theirs[seat][0] == kind and theirs[seat][2] == running
            assert abs(theirs[seat][1] - left) < 1.0, (seat, ours, theirs)
            compared += 1
    assert compared > 100
    # Between stages they agree to the millisecond.
    assert all(a == b for a, b in spent) and spent[-1][0]


async def test_a_duel_turn_lasts_its_minute_and_a_missed_turn_repeats(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock

    class Misses(BotDriver):
        """Chooses in the first two turns, then never again: its clock must answer for it."""

        async def decide(self, session: SessionView, seat: int) -> Any:
            if session.stage is not None and session.stage.number >= 2:
                await trio.sleep_forever()
            return await super().decide(session, seat)

    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    guest = peer(tmp_path, "guest", Misses("random", 2), Silent())
    await match(host, guest, Terms("duel", {"turn_seconds": 60}, {}))
    assert host.session is not None and guest.session is not None
    assert host.session.outcome is not None and host.session.outcome == guest.session.outcome
    turns = len(host.session.played.ending.my_hashes)
    # Not "fast": every turn lasted its whole minute, though the bots chose at once.
    assert trio.current_time() >= 60 * turns
    guest_moves = [a for _, seat, a in host.session.log if seat == 1]
    assert turns > 2  # from the third turn on, the guest timed out: its last gestures repeated
    assert all(a == {"type": "timeout"} for a in guest_moves[2:])
    for side in (host, guest):
        assert verify(side.files.transcript.read_bytes()).ok


class DeclaresNothing(Peer):
    """A dishonest peer: every decision declares 0 ms, however long it took."""

    async def _start_transcript(self, role: str) -> None:
        await super()._start_transcript(role)
        session = self.session
        assert session is not None
        submit, decline = session.submit, session.decline
        session.submit = lambda seat, action, *, ms=0, early=False: submit(  # type: ignore[method-assign]
            seat, action, ms=0, early=early
        )
        session.decline = lambda seat, *, ms=0: decline(seat, ms=0)  # type: ignore[method-assign]


async def test_a_peer_declaring_no_time_is_disputed_decision_by_decision(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    host = peer(tmp_path, "host", BotDriver("wizard", 1, thread=False), Silent())
    liar = DeclaresNothing(**vars(peer(tmp_path, "guest", Thinks("wizard", 2, 3.0), Silent())))
    await match(host, liar, Terms("duel", {"fast": True}, {}))
    assert host.session is not None and liar.session is not None
    assert (
        liar.session.played.clockbook.spent == host.session.played.clockbook.spent
    )  # the clocks still agree...
    liar_seats = liar.session.my_seats
    assert all(
        ms == 0 for (seat, _, _), ms in host.session.played.clockbook.spent.items() if seat in liar_seats
    )
    disputes = [(n, s) for (n, s, by), ms in host.session.time.observed.items() if by == 0 and ms >= 1_500]
    assert len(disputes) >= 5  # ...and each 3-second decision declared as 0 ms is on the record
    report = verify(host.files.transcript.read_bytes())
    assert report.ok and len(report.disputed_time) == len(host.session.time.observed)
    assert "disputed on the record" in report.summary


async def test_a_round_clock_is_bounded_by_the_time_seen_pass_not_by_the_sum_declared(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # A 10 s Magic Square round clock; the liar thinks 3 s a decision and declares 0 ms each time.
    # Its declared clock never runs down, but the host judges the round by what it saw pass: it
    # claims the liar's timeout once about 10 s of the round have gone by, though not one
    # decision's declared time was over (before, 28 s went by with no claim at all). Claims and
    # the liar's disputes are signed, on the record.
    del autojump_clock
    from p2pgenius.canonical import decode
    from p2pgenius.protocol.transcript import records

    host = peer(tmp_path, "host", BotDriver("perfect", 1, thread=False), Silent())
    liar = DeclaresNothing(**vars(peer(tmp_path, "guest", Thinks("random", 2, 3.0), Silent())))
    with trio.move_on_after(60):
        await match(host, liar, Terms("magic-square", {"round_seconds": 10}, {}))
    assert host.session is not None and liar.session is not None
    liar_seat = liar.session.my_seats[0]
    assert all(
        ms == 0 for (seat, _, _), ms in host.session.played.clockbook.spent.items() if seat == liar_seat
    )
    claims = []
    for record in records(host.files.transcript.read_bytes()):
        if record[0] == "msg":
            envelope = decode(record[1])
            body = envelope[5]
            if envelope[2] == 0 and body[0] == "timeout" and body[2] == liar_seat:
                claims.append(body)
    assert claims, "the host never claimed the liar's round clock"
    assert min(observed for *_, observed in claims) <= 14_000  # the first claim: about 10 s in
    # The liar's own peer answers each claim with a dispute from its declared clock, and plays on
    # for as long as its grace past the clock lasts (the next test: then it forfeits); each claim
    # and dispute is signed, on the record, beside every under-declared decision.
    disputes = [
        decode(r[1])[5]
        for r in records(host.files.transcript.read_bytes())
        if r[0] == "msg" and decode(r[1])[2] == 1 and decode(r[1])[5][0] == "dispute"
    ]
    assert len(disputes) >= 1
    report = verify(host.files.transcript.read_bytes())
    assert len(report.disputed_time) >= 10 and "disputed on the record" in report.summary


async def test_a_hornswoggle_seat_out_of_time_is_named_by_its_player_and_seat(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # Hornswoggle's line said only "p3: out of time": which pirate, of four, was it?
    del autojump_clock
    host_log, guest_log = Silent(), Silent()
    host = peer(tmp_path, "host", BotDriver("pirate", 1, thread=False), host_log)
    guest = peer(tmp_path, "guest", Thinks("pirate", 2, 10**6), guest_log)
    await match(host, guest, Terms("hornswoggle", {"decision_seconds": 30}, {}))
    assert guest.session is not None
    owner = guest.session.owner
    said = [line for line in guest_log.lines if "out of time" in line]
    assert said, guest_log.lines
    for line in said:
        seat = int(line.split("(p", 1)[1].split(")", 1)[0])
        assert owner[seat] == 1 and line.startswith(f"guest (p{seat}): out of time"), line


def test_a_peers_processing_allowance_is_capped() -> None:
    # The limit, at its extent: a peer that sends its hashes late to look slow gains at most
    # MAX_ALLOWANCE_S of lateness a decision, however late it sends them.
    from p2pgenius.protocol.clocks import MAX_ALLOWANCE_S, Clocks

    clocks = Clocks(trio.current_time)
    clocks.opened[5] = 100.0
    clocks.hashed(1, 4, 100.0 + 60.0)  # its hash of stage 4 came a minute after stage 5 opened
    assert clocks.processing[1] == [60.0]
    assert clocks.allowance(1) == MAX_ALLOWANCE_S
    assert clocks.allowance(0) < MAX_ALLOWANCE_S  # (another peer's own allowance is unaffected)


class SlowLoop(MatchLoop):
    """The loop of :class:`SlowMachine`."""

    async def _on_payload(self, connection: Any, payload: bytes, now: float, message: Any) -> None:
        await trio.sleep(2.0)
        await super()._on_payload(connection, payload, now, message)


class SlowMachine(Peer):
    """An honest peer on a slow machine: every message takes it 2 s to take in (as a peer that
    runs another program for each stage would; its connections still read, and answer pings, as
    the bytes come)."""

    loop_type = SlowLoop


async def test_a_slow_peers_processing_is_not_taken_for_lateness(tmp_path: Path, autojump_clock: Any) -> None:
    # Its decisions reach a fast host 2 s after the host opened each stage, though it declared
    # its thinking truly: the host allows for the time it takes the peer to apply a stage (as
    # its hashes show), and puts no "observed" dispute on the record (it used to, every time).
    del autojump_clock
    host = peer(tmp_path, "host", BotDriver("random", 1, thread=False), Silent())
    slow = SlowMachine(**vars(peer(tmp_path, "guest", BotDriver("random", 2, thread=False), Silent())))
    await match(host, slow, Terms("duel", {"fast": True}, {"hp": [30, 30]}))
    assert host.session is not None and host.session.outcome is not None
    assert max(host._clocks.processing.get(1, [0.0])) >= 1.5  # it measured the slow machine
    late = [(n, seat) for (n, seat, by), ms in host.session.time.observed.items() if by == 0]
    assert late == [], late
    assert verify(host.files.transcript.read_bytes()).disputed_time == []


class Stubborn(BotDriver):
    """A broken bot: it always chooses the same illegal move."""

    async def decide(self, session: SessionView, seat: int) -> Any:
        await trio.sleep(0)
        return {"type": "gestures", "left": "Q", "right": "-"}


async def test_a_decider_that_keeps_choosing_illegal_moves_gets_the_timeout_not_a_busy_loop(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    host = peer(tmp_path, "host", BotDriver("wizard", 1, thread=False), Silent())
    log = Silent()
    broken = peer(tmp_path, "guest", Stubborn("wizard", 2), log)
    await match(host, broken, Terms("duel", {"fast": True}, {}))
    assert host.session is not None and host.session.outcome is not None  # the duel was played out
    assert any("choices refused in a row" in line for line in log.lines)
    assert sum("refused" in line for line in log.lines) <= 6 * host.session.state.turn
    assert verify(host.files.transcript.read_bytes()).ok


async def test_a_resumed_peer_counts_the_time_it_was_away_on_its_own_clock(
    tmp_path: Path, monkeypatch: Any, autojump_clock: Any
) -> None:
    # The stage's start is noted beside the transcript (wall clock). A player who stops 20 s into
    # a 60 s duel turn and comes back 15 s later has 25 s left, as the other peer counts: before,
    # the resumed peer's clock began the turn afresh and the player had bought 35 s.
    del autojump_clock
    from types import SimpleNamespace

    import p2pgenius.net.match_loop as loop_module

    monkeypatch.setattr(loop_module, "time", SimpleNamespace(time=lambda: 10_000.0 + trio.current_time()))
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    guest = peer(tmp_path, "guest", Thinks("random", 2, 10**6), Silent())
    with trio.move_on_after(20):  # then both processes stop dead, mid-turn
        await match(host, guest, Terms("duel", {"turn_seconds": 60}, {}))
    assert guest.session is not None and guest.session.stage is not None
    stage = guest.session.stage.number
    assert guest.files.stage_began() is not None and guest.files.stage_began()[0] == stage  # type: ignore[index]
    seat = guest.session.my_seats[0]
    assert 39 <= guest.clock_readings()[seat][1] <= 41, (
        guest.clock_readings(),
        guest.session.stage,
        trio.current_time(),
        guest._clocks.stage_at,
    )

    await trio.sleep(15)  # away
    again = peer(tmp_path, "guest", Thinks("random", 2, 10**6), Silent())
    again.identity = guest.identity
    again.resume(guest.files.transcript.read_bytes(), guest.files.secrets.read_bytes())
    assert again.session is not None
    async with trio.open_nursery() as nursery:
        loop = again._make_party().match_loop(
            again.session, nursery, Inbox[Any](nursery), Doors(), again._resumed_stage
        )
        loop._resume()  # (its stage had run 35 s: any other stage begins when it is reached)
        assert loop.machine.resumed is not None and loop.machine.resumed[0] == stage
        assert 34 <= loop.machine.resumed[1] <= 36
        loop._follow_stage()
        left = again.clock_readings()[seat][1]
        # Only its own seats: the others' clocks (and its judgement of their time) start now.
        assert again._clocks.elapsed() == 0 and 34 <= again._clocks.own_elapsed() <= 36
        nursery.cancel_scope.cancel()
    assert 24 <= left <= 26, left
    guest.files.stage_note.write_text("3 garbage")
    assert guest.files.stage_began() is None


def test_a_new_match_on_a_used_path_drops_the_old_stage_note(tmp_path: Path) -> None:
    from p2pgenius.net.files import Files

    files = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")
    files.note_stage(7, 1234.5)
    assert files.stage_began() == (7, 1234.5)
    files.start(b"header")  # a new match, same path
    assert files.stage_began() is None


@pytest.mark.parametrize("began", ["nan", "-inf", "inf", "1e999", "-5.0"])
def test_a_stage_note_that_is_not_a_finite_time_is_no_note(tmp_path: Path, began: str) -> None:
    # "nan" in the note made resume stop with an internal error (and the seat then forfeited).
    from p2pgenius.net.files import Files

    files = Files(tmp_path / "m.p2pt", tmp_path / "m.secrets")
    files.stage_note.write_text(f"{3:>11} {began:>20}\n", encoding="ascii")
    assert files.stage_began() is None
    files.stage_note.write_text(f"{-3:>11} {1234.5:>20.3f}\n", encoding="ascii")
    assert files.stage_began() is None
    files.note_stage(3, 1234.5)
    assert files.stage_began() == (3, 1234.5)


async def test_a_resumed_peer_does_not_charge_the_time_it_was_away_to_the_other_player(
    tmp_path: Path, monkeypatch: Any, autojump_clock: Any
) -> None:
    # The guest decides at once and is killed while the host still thinks (20 s); it comes back
    # 60 s later and the host's decision reaches it. Judged from the stage's start before the
    # crash, the host would seem to have under-declared by a minute, on the record, wrongly.
    del autojump_clock
    from types import SimpleNamespace

    import p2pgenius.net.match_loop as loop_module
    from p2pgenius.net.latency import MemoryListener

    monkeypatch.setattr(loop_module, "time", SimpleNamespace(time=lambda: 10_000.0 + trio.current_time()))
    listener = MemoryListener(0.01)
    guest_log, again_log = Silent(), Silent()
    host = peer(tmp_path, "host", Thinks("random", 1, 20), Silent(), grace=600)
    guest = peer(tmp_path, "guest", Thinks("random", 2, 0.5), guest_log, grace=600)
    host.address = guest.address = "memory"
    options = {"fast": True, "turn_seconds": 120}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host.host(listener, game="duel", options=options, setup={}, peers=2))
        async with trio.open_nursery() as process:  # the guest's process, killed mid-stage
            process.start_soon(guest.join, listener.connect())
            while guest.session is None or guest.session.stage is None or guest.session.stage.number < 3:
                await trio.sleep(0.01)
            await trio.sleep(2)  # it has decided; the host is thinking
            process.cancel_scope.cancel()
        assert guest.session.stage.number == 3
        for connection in guest.connections:
            await connection.aclose()
        await trio.sleep(60)
        again = peer(tmp_path, "guest", Thinks("random", 2, 0.5), again_log, grace=600)
        again.identity = guest.identity

        async def back() -> trio.abc.Stream:
            return listener.connect()

        again.reconnect = back
        again.resume(guest.files.transcript.read_bytes(), guest.files.secrets.read_bytes())
        nursery.start_soon(again.play)

        def went_on() -> bool:  # two stages past the one it was killed in, or the match's end
            session = again.session
            return session is not None and (
                session.finished or (session.stage is not None and session.stage.number >= 5)
            )

        with trio.fail_after(600):  # fake seconds
            while not went_on():
                await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
    assert not any("disputed on the record" in line for line in again_log.lines), again_log.lines
    assert again.session is not None and again.session.fault is None


async def test_a_clock_liar_is_forfeited_once_its_round_and_a_grace_period_past_it_are_spent(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # A 10 s round clock and a grace period of 20 s. The liar takes 5 s a decision, declares 0 ms
    # each time and disputes every claim (its declared clock always has time). Before, it was
    # claimed again and again and never forfeited: a dispute stopped each first claim, its next
    # decision answered the second, and so every decision past its round's time could take up
    # to a grace period. Now the time it keeps the match waiting past its clock (as the host saw
    # it pass) comes out of one grace period for the round, which no decision or dispute renews:
    # once that is spent, the claim that stands is a forfeit.
    del autojump_clock
    from p2pgenius.canonical import decode
    from p2pgenius.protocol.transcript import records

    host = peer(tmp_path, "host", BotDriver("random", 1, thread=False), Silent(), grace=20)
    liar = DeclaresNothing(**vars(peer(tmp_path, "guest", Thinks("random", 2, 5.0), Silent())))
    stopped: list[float] = []

    async def watch() -> None:
        while host.session is None or host.session.fault is None:
            await trio.sleep(0.1)
        stopped.append(trio.current_time())

    with trio.move_on_after(600):
        await match(host, liar, Terms("magic-square", {"round_seconds": 10}, {}), watch=watch)
    assert host.session is not None and liar.session is not None
    fault = host.session.fault
    assert fault is not None and fault.kind == "forfeit" and fault.peer == 1, fault
    assert "its clock and its 20 seconds past it spent" in fault.reason
    assert host.session.played.clockbook.round_key == 0  # (in its first round)
    sent = [decode(r[1]) for r in records(host.files.transcript.read_bytes()) if r[0] == "msg"]
    liar_seat = liar.session.my_seats[0]
    decisions = [e for e in sent if e[2] == 1 and e[5][0] in ("act", "decline") and e[5][2] == liar_seat]
    assert all(e[5][-1] == 0 for e in decisions)  # (every one declared 0 ms)
    assert any(e[2] == 1 and e[5][0] == "dispute" for e in sent)  # (and it disputed)
    # The round's 10 s and the grace period's 20 s, and a lag allowance for each decision it made
    # (each is judged after that, as an honest one's is; the first, before its peer's speed is
    # known from a hash, after the whole cap), no more: 43 s here.
    allowance = host._clocks.allowance(1)
    bound = 10 + 20 + len(decisions) * allowance + MAX_ALLOWANCE_S
    assert stopped and stopped[0] <= bound, (stopped, len(decisions), allowance)
    report = verify(host.files.transcript.read_bytes())
    assert report.fault is not None and report.fault.kind == "forfeit" and report.fault.peer == 1


class DisputesEverything(NoOwnTimeouts):
    """The rules of time of :class:`StretchesEveryTurn`."""

    def _on_clock_event(self, event: Any, at: float | None = None) -> None:
        session, stage = self.session, self.session.stage
        if isinstance(event, TimeoutClaimed) and event.seat in session.my_seats:
            if stage is not None and stage.number == event.stage:  # its whole clock, it says
                with contextlib.suppress(LocalMisuseError):
                    session.referee.dispute(event.seat, stage.clocks[event.seat][1])
            return
        super()._on_clock_event(event, at)


class StretchesEveryTurn(Peer):
    """A peer that never times itself out and answers every claim with a dispute saying its whole
    turn is still left (as much as a dispute may say)."""

    machine_type = DisputesEverything


async def test_a_peer_that_overruns_every_turn_and_disputes_has_one_grace_period_a_match(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # Duel turns of 10 s and a grace period of 30 s; the liar takes 20 s a turn. Each claim, at
    # 11 s, it disputes saying its whole turn is left, and its decision answers the next claim.
    # Before, that bought it 10 s more a turn for ever (a fresh clock each turn, a fresh dispute,
    # a fresh grace period). Now a clock that is fresh each stage renews nothing past it: the
    # time it overruns (9 s a turn past the lag allowance) comes out of one grace period for the
    # match, and the claim standing once that is spent is a forfeit, in its fourth turn.
    del autojump_clock
    host = peer(tmp_path, "host", BotDriver("random", 1, thread=False), Silent(), grace=30)
    liar = StretchesEveryTurn(**vars(peer(tmp_path, "guest", Thinks("random", 2, 20.0), Silent())))
    with trio.move_on_after(3600):
        await match(host, liar, Terms("duel", {"fast": True, "turn_seconds": 10}, {"hp": [60, 60]}))
    assert host.session is not None and liar.session is not None
    fault = host.session.fault
    assert fault is not None and fault.kind == "forfeit" and fault.peer == 1, fault
    assert "its clock and its 30 seconds past it spent" in fault.reason
    turns = fault.stage  # (the turns it played before, each 10 s, the allowance, and its overrun)
    assert 3 <= turns <= 4, turns
    kinds = sent_kinds(host)
    assert kinds.count("dispute") >= turns  # (it disputed each turn, on the record)
    assert verify(host.files.transcript.read_bytes()).fault is not None
