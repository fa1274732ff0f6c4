"""Choosing early: the Hornswoggle opening cards may be committed while the Death Match Opponent
still picks who begins (the game's trait, ``GameSpec.ahead``); every peer holds them until that
stage opens."""

from __future__ import annotations

from typing import Any

import pytest

from p2pgenius.canonical import decode, encode
from p2pgenius.cli.export import record
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.registry import get_spec, names
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session, start_table
from p2pgenius.protocol.transcript import frame, header, records, verify
from p2pgenius.ui.replay import Replay


def bodies(data: bytes) -> list[list[Any]]:
    """Every message body in a transcript, in the order it was accepted."""
    return [decode(r[1])[5] for r in records(data) if r[0] == "msg"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_opening_cards_chosen_early_come_before_the_pick_and_the_match_verifies(seed: int) -> None:
    table = play("hornswoggle", peers=4, seed=seed, early=True)
    assert not table.faults() and table.outcomes()[0] is not None
    assert all(o == table.outcomes()[0] for o in table.outcomes())
    for index in range(4):
        data = transcript(table, index)
        report = verify(data)
        assert report.ok, report.summary
        order = [b for b in bodies(data) if b[:2] == ["act", 0]]
        assert len(order) == 1 and order[0][3]["type"] == "order"
        where = bodies(data).index(order[0])
        early = [b for b in bodies(data)[:where] if b[:2] == ["commit", 1]]
        # Opening cards committed before the pick (here, p1's own: the others had not yet
        # opened stage 0 when its peer picked), held by every peer until the stage opened.
        assert early and {b[2] for b in early} <= {0, 1, 2, 3}
        # What a third party reads of it is the match as it was applied: the pick, then the cards.
        assert record(report).count("\n") > 3
        replay = Replay(report, ascii_only=True)
        replay.last()


def _table(game: str) -> list[Session]:
    identities = [Identity.from_seed(bytes([7, i]) * 16) for i in range(2)]
    keys = [i.public for i in identities]
    sessions = [Session(keys=keys, me=i, identity=identities[i]) for i in range(2)]
    start_table(sessions, game, options={}, setup={})
    for _ in range(10):  # terms, accepts, coins: until both are at stage 0
        for i in (0, 1):
            for raw in sessions[i].flush().messages:
                sessions[1 - i].receive(raw)
    assert all(s.stage is not None and s.stage.number == 0 for s in sessions)
    return sessions


def test_an_early_choice_is_refused_where_the_game_allows_none_and_when_illegal_or_made_twice() -> None:
    square = _table("magic-square")
    assert square[0].early() == () and square[0].early_state() is None
    with pytest.raises(LocalMisuseError, match="cannot choose early"):
        square[0].submit(0, {"type": "order", "first": 0}, early=True)
    horn = _table("hornswoggle")
    peer = next(s for s in horn if 0 in s.my_seats)
    assert set(peer.early()) == set(peer.my_seats)  # every seat lays an opening card
    with pytest.raises(LocalMisuseError, match="travels as a commitment"):
        peer.submit(0, {"type": "bid", "count": 1}, early=True)  # public: it would tell the picker
    with pytest.raises(IllegalActionError):
        peer.submit(0, {"type": "discard", "card": "skull"}, early=True)  # not what the opening allows
    with pytest.raises(IllegalActionError):
        peer.submit(0, {"type": "place", "card": "garnet"}, early=True)
    peer.submit(0, {"type": "place", "card": "skull"}, early=True)
    assert 0 not in peer.early()  # once
    with pytest.raises(LocalMisuseError, match="cannot choose early"):
        peer.submit(0, {"type": "place", "card": "doubloon"}, early=True)
    out = peer.flush()
    assert [decode(raw)[5][:3] for raw in out.messages] == [["commit", 1, 0]]
    assert decode(out.secrets[0])[:3] == ["secret", 1, 0]  # on disk before it is sent


def test_a_peer_that_crashed_after_choosing_early_resumes_with_its_choice_held() -> None:
    horn = _table("hornswoggle")
    chooser = next(s for s in horn if 1 not in s.my_seats)  # the peer that does not pick
    other = horn[1 - horn.index(chooser)]
    for seat in chooser.early():
        chooser.submit(seat, {"type": "place", "card": "doubloon"}, early=True)
    out = chooser.flush()
    for raw in out.messages:
        other.receive(raw)
    # It dies now; its disk holds every message it accepted (its own choices too) and its secrets.
    disk = header(chooser.keys, horn.index(chooser)) + b"".join(
        frame(encode(["msg", raw])) for _, _, raw in chooser.chain.archive
    )
    assert chooser.identity is not None
    restored = Session.restore(
        identity=chooser.identity, transcript=list(records(disk)), secrets=[decode(s) for s in out.secrets]
    )
    assert restored.early() == ()  # its choices are made: it is not asked again
    assert restored.stage is not None and restored.stage.number == 0
    # The Opponent picks; the stage of the opening cards opens and takes the held choices.
    picker = other
    picker.submit(1, {"type": "order", "first": 0})
    for raw in picker.flush().messages:
        restored.receive(raw)
    assert restored.stage is not None and restored.stage.number == 1
    assert set(restored.stage.commits) >= set(restored.my_seats)
    assert restored.awaiting() == ()


def test_the_spec_says_ahead_only_where_nothing_done_now_changes_the_next_stage() -> None:
    spec = get_spec("hornswoggle")
    engine = spec.engine
    state = engine.initial({}, {})
    early = spec.ahead(state)
    assert state.phase == "order" and early is not None and early.phase == "opening"
    for first in range(4):  # whoever the pick names, the same seats lay, from the same cards
        picked = engine.apply(state, state.opponent, engine.parse_action({"type": "order", "first": first}))
        assert engine.waiting_on(picked) == engine.waiting_on(early)
        for seat in engine.waiting_on(early):
            assert engine.legal_actions(picked, seat) == engine.legal_actions(early, seat)
    assert spec.ahead(early) is None  # (the opening itself: the turns that follow depend on it)
    for game in (name for name in names() if name != "hornswoggle"):  # (no other game looks ahead)
        other = get_spec(game)
        assert other.ahead(other.engine.initial({}, {})) is None
