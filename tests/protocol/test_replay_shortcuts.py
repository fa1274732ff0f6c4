"""What a verification leaves out or takes once (issue 48) changes nothing it finds: an observer
that keeps no record judges as one that does, an act checked and then applied is applied from the
state its check found, and a signature's place in its envelope is measured without encoding it."""

from __future__ import annotations

from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.games.registry import get_game
from p2pgenius.protocol.messages import _bin_size
from p2pgenius.protocol.observer import observer_of, replay
from p2pgenius.protocol.records import read
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import verify

from .harness import play, transcript


@pytest.mark.parametrize("length", [0, 1, 64, 255, 256, 65535, 65536, 70000])
def test_a_signatures_encoded_size_is_its_encodings(length: int) -> None:
    assert _bin_size(b"s" * length) == len(encode(b"s" * length))


def test_an_observer_that_keeps_no_record_finds_the_same() -> None:
    data = transcript(play("magic-square", seed=3), 0)
    held = read(data)
    kept, unkept = observer_of(held.header), observer_of(held.header, recording=False)
    both = zip(replay(held, kept, evidence=True), replay(held, unkept, evidence=True), strict=True)
    assert all(a.events == b.events and a.index == b.index for a, b in both)
    assert kept.phase is unkept.phase and kept.outcome == unkept.outcome
    assert kept.flush().records and not unkept.flush().records
    assert verify(data).ok


def test_an_act_is_applied_once_from_the_state_its_check_found(monkeypatch: pytest.MonkeyPatch) -> None:
    data = transcript(play("magic-square", seed=4), 0)
    held = read(data)
    observer: Session = observer_of(held.header, recording=False)
    engine = type(get_game("magic-square"))
    applied = engine.apply
    calls: list[Any] = []

    def counted(self: Any, state: Any, seat: int, action: Any) -> Any:
        calls.append(action)
        return applied(self, state, seat, action)

    monkeypatch.setattr(engine, "apply", counted)
    for _ in replay(held, observer):
        pass
    assert observer.outcome is not None
    assert len(calls) == len(observer.played.match.log) > 10  # (each act once: its check)
    monkeypatch.undo()
    assert verify(data).ok
