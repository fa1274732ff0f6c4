"""The read-only view of a session that screens, bots and reports are given."""

from __future__ import annotations

import pytest

from p2pgenius.inmemory import play
from p2pgenius.protocol.session import Session, SessionView, StageView


def test_the_view_follows_the_session_and_cannot_change_it() -> None:
    match = play("duel", seed=3, max_rounds=3)
    session = match.sessions[0]
    view = session.view
    assert isinstance(view, SessionView)
    assert view.keys == tuple(session.keys) and view.names == tuple(session.names)
    assert view.me == 0 and view.my_seats == session.my_seats and view.owner == session.owner
    assert view.game_name == "duel" and view.engine is session.played.match.game
    assert view.state is session.state and view.played == len(session.log)
    with pytest.raises(AttributeError):
        view.state = None  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        view.terms["game"] = "hornswoggle"  # type: ignore[index]
    with pytest.raises(TypeError):
        view.names[0] = "mallory"  # type: ignore[index]
    assert session.terms is not None and session.terms["game"] == "duel"
    # Live: what the session learns later, the same view shows.
    before = view.played
    session.played.match.log.append((99, 0, {"type": "gestures"}))
    assert view.played == before + 1


def test_the_stage_is_a_frozen_snapshot_of_who_has_chosen() -> None:
    match = play("duel", seed=5, max_rounds=2)
    session = match.sessions[1]
    stage = session.view.stage
    assert session.stage is not None and isinstance(stage, StageView)  # (one chose; not the other)
    assert len(stage.chosen) == 1 and stage.chosen < set(stage.waiting)
    assert stage.number == session.stage.number and stage.waiting == session.stage.waiting
    assert stage.chosen == frozenset(session.stage.commits) | frozenset(session.stage.acts) | frozenset(
        session.stage.declined
    )
    with pytest.raises(AttributeError):
        stage.number = 0  # type: ignore[misc]


def test_views_of_one_session_are_equal_and_of_two_are_not() -> None:
    match = play("magic-square", seed=1, max_rounds=1)
    a, b = match.sessions
    assert a.view == a.view and hash(a.view) == hash(a.view)
    assert a.view != b.view
    observer = Session(keys=list(a.keys), me=None)
    assert observer.view.me is None and observer.view.terms is None and observer.view.stage is None
    assert observer.view.game_name is None and observer.view.engine is None and not observer.view.in_dark
