"""The phase is the one source of where a match stands, and moves only as MOVES says: every
transition real matches take is in the table, on the message that took it, and the table holds
no move that no match takes."""

from __future__ import annotations

import pytest

from p2pgenius.games import catalog
from p2pgenius.games.registry import get_spec
from p2pgenius.inmemory import play
from p2pgenius.protocol import bodies
from p2pgenius.protocol.session import courier as courier_module
from p2pgenius.protocol.session.phase import (
    ACCEPTED,
    MOVES,
    TRANSITIONS,
    Local,
    Phase,
    PhaseError,
    Trigger,
    advance,
)

from .test_blindness import P0, P1, Script

Move = tuple[Phase, Phase, Trigger | None]


@pytest.fixture
def moves(monkeypatch: pytest.MonkeyPatch) -> set[Move]:
    """Every phase change the sessions make while the test runs: (from, to, trigger)."""
    seen: set[Move] = set()

    def noted(current: Phase, to: Phase, trigger: Trigger | None) -> Phase:
        if to is not current:
            seen.add((current, to, trigger))
        return advance(current, to, trigger)

    monkeypatch.setattr(courier_module, "advance", noted)
    return seen


def test_every_move_of_real_matches_is_in_the_table_and_every_entry_is_taken(moves: set[Move]) -> None:
    for game in catalog.names():
        by_peers = get_spec(game).groups_by_peers
        for peers in sorted({min(by_peers), max(by_peers)}):
            for seed in range(4):
                assert play(game, peers=peers, seed=seed).faults() == [], game
    play("duel", bots=[Script(P0), Script(P1)], max_rounds=60)  # a blindness, caught up
    stopped = {move for move in moves if move[1] is Phase.FAULT}
    assert stopped == set()  # (honest matches: nothing stops them)
    for current, to, trigger in moves:
        assert trigger is not None, (current, to)
        assert to in MOVES[current].get(trigger, frozenset()), (current, to, trigger)
    taken = {(current, trigger) for current, _, trigger in moves}
    # What no honest match above takes, each for its reason: a result known after every other
    # peer's ``end`` is in (the order of a three- or four-peer table, or a deferred verdict), a
    # driver's verdict (``defer_verdict``), or a stage completed by a commitment or a final whose
    # reveal is withheld from a blinded peer, or a challenge let pass (declined) right after the
    # game's last move.
    rare = {
        (Phase.ENDING, kind)
        for kind in (
            bodies.Act,
            bodies.Commit,
            bodies.FinalChoice,
            bodies.Reveal,
            bodies.Decline,
            bodies.Disclosure,
        )
    } | {
        (Phase.ENDING, Local.VERDICT),
        (Phase.DISCLOSURE, Local.VERDICT),
        (Phase.PLAYING, bodies.Commit),
        (Phase.PLAYING, bodies.FinalChoice),
        (Phase.PLAYING, bodies.Decline),
    }
    listed = {(current, trigger) for current, row in MOVES.items() for trigger in row}
    assert listed - taken <= rare
    assert rare <= listed


def test_a_message_moves_the_match_only_from_a_phase_that_accepts_it() -> None:
    for current, row in MOVES.items():
        first = {trigger for trigger in row if not isinstance(trigger, Local)}
        if current is Phase.ENDING:  # (the result became known within the same message's handling)
            first = {bodies.End}
        for trigger in first:
            assert issubclass(trigger, ACCEPTED[current]), (current, trigger)


def test_advance_refuses_what_the_table_does_not_list() -> None:
    assert advance(Phase.TERMS, Phase.COIN_REVEAL, bodies.Terms) is Phase.COIN_REVEAL
    with pytest.raises(PhaseError, match="from terms to playing on Terms"):
        advance(Phase.TERMS, Phase.PLAYING, bodies.Terms)
    with pytest.raises(PhaseError, match="on Chat"):
        advance(Phase.PLAYING, Phase.ENDING, bodies.Chat)
    with pytest.raises(PhaseError, match="on nothing"):
        advance(Phase.DISCLOSURE, Phase.ENDING, None)
    assert advance(Phase.DISCLOSURE, Phase.ENDING, Local.VERDICT) is Phase.ENDING
    for phase in Phase:  # any trigger may stop a match, once
        if phase is Phase.FAULT:
            with pytest.raises(PhaseError):
                advance(phase, Phase.PLAYING, bodies.Act)
        else:
            assert advance(phase, Phase.FAULT, None) is Phase.FAULT
    assert TRANSITIONS[Phase.FAULT] == frozenset()
    assert all(Phase.FAULT in TRANSITIONS[phase] for phase in Phase if phase is not Phase.FAULT)
