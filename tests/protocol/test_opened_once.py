"""A Hornswoggle transcript's report takes its opened states from the audit's replay (issue 48):
the report is the one it was when it replayed the opened match a second time itself, for finished
matches of two to four peers, for matches whose audit convicts a seat, and for transcripts cut
before every card was opened (the states then stay as seen); and the opened match is replayed
once, not twice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.hornswoggle.actions import HornAction
from p2pgenius.games.hornswoggle.engine import Hornswoggle
from p2pgenius.games.hornswoggle.state import HornState, Pirate, full, public
from p2pgenius.protocol import transcript as transcripts
from p2pgenius.protocol.records import records
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import Report, Step, frame, verify

from .harness import play, transcript


def replayed_again(observer: Session, initial: Any, steps: list[Step]) -> list[Step]:
    """The report's opened steps as ``transcript._opened`` found them before issue 48: the opened
    match replayed again from the start, on its own."""
    match, disclosed = observer.played.match, observer.played.ending.disclosures
    if not any(match.spec.unopened(action) for _, _, action in match.log):
        return steps
    opened, _ = match.cards.with_openings(match.spec, match.log, disclosed.values())
    by_stage: dict[int, list[tuple[int, Plain]]] = {}
    for (number, _, _), (seat, action) in zip(observer.log, opened, strict=True):
        by_stage.setdefault(number, []).append((seat, action))
    after: dict[int, Any] = {}
    if not any(match.spec.unopened(action) for _, action in opened):
        game, state = match.game, initial
        try:
            for (number, _, _), (seat, action) in zip(observer.log, opened, strict=True):
                state = game.apply(state, seat, game.parse_action(action))
                after[number] = state
        except P2PGeniusError:
            after = {}
    return [
        Step(
            step.stage,
            tuple(by_stage.get(step.stage, step.actions)),
            step.events,
            after.get(step.stage, step.state),
        )
        for step in steps
    ]


def plain(report: Report) -> bytes:
    """Everything a report says, states by their full and public forms."""
    steps = [
        [
            s.stage,
            list(s.actions),
            list(s.events),
            None if s.state is None else [full(s.state), public(s.state)],
        ]
        + [list(s.dark), s.seen]
        for s in report.steps
    ]
    said = [report.ok, report.summary, report.standing, report.outcome, list(report.winners), report.messages]
    return encode([steps, said, report.rejected, report.disputed_time, str(report.fault)])


def cheating(seed: int) -> bytes:
    """A transcript whose peers lay cards they do not hold (each seat's hand believed to hold every
    card while it plays): the audit at the end convicts one."""
    holds = Pirate.holds
    try:
        Pirate.holds = lambda self, card: True  # type: ignore[method-assign]
        table = play("hornswoggle", seed=seed, deterministic=True)
    finally:
        Pirate.holds = holds  # type: ignore[method-assign]
    return transcript(table, 0)


def cut(data: bytes) -> Iterator[bytes]:
    """``data`` cut short at the end of its match: before every peer's disclosure was in."""
    rows = list(records(data))
    for end in range(len(rows) - 1, len(rows) - 12, -1):
        yield b"".join(frame(encode(row)) for row in rows[:end])


def transcripts_to_check() -> Iterator[tuple[str, bytes]]:
    for peers in (2, 3, 4):
        for seed in range(3):
            yield f"{peers} peers, seed {seed}", transcript(play("hornswoggle", peers=peers, seed=seed), 0)
    for seed in range(2):
        yield f"cheat, seed {seed}", cheating(seed)
    for index, data in enumerate(cut(transcript(play("hornswoggle", seed=7), 1))):
        yield f"cut {index}", data


def test_the_report_is_the_one_a_second_replay_made(monkeypatch: pytest.MonkeyPatch) -> None:
    kinds: set[str] = set()
    for name, data in transcripts_to_check():
        report = verify(data)
        with monkeypatch.context() as patched:
            patched.setattr(transcripts, "_opened", replayed_again)
            before = verify(data)
        assert plain(report) == plain(before), name
        kinds.add(report.standing)
    assert {"finished", "stopped", "incomplete"} <= kinds  # (each kind of ending met)


def test_the_opened_match_is_replayed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    data = transcript(play("hornswoggle", seed=2), 0)
    applied = Hornswoggle.apply
    calls: list[int] = []

    def counted(self: Hornswoggle, state: HornState, seat: int, action: HornAction) -> HornState:
        calls.append(seat)
        return applied(self, state, seat, action)

    monkeypatch.setattr(Hornswoggle, "apply", counted)
    report = verify(data)
    once = len(calls)
    with monkeypatch.context() as patched:
        patched.setattr(transcripts, "_opened", replayed_again)
        verify(data)
    twice = len(calls) - once
    actions = sum(len(step.actions) for step in report.steps)
    assert report.ok and actions > 100 and twice - once == actions
