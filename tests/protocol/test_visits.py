"""A duel by correspondence costs each player one visit a turn (issue 46): commit-reveal needs no
second visit. With fast turns a commitment stands at once, so the second to move commits and
reveals in one visit, and the first, reading that, reveals (the turn resolves) and commits the
next turn in the same visit. The in-memory table counts visits as a correspondence player makes
them (``MemoryTable.visits``; bench/visits.py prints the figures)."""

from __future__ import annotations

import pytest

from p2pgenius.inmemory import play


@pytest.mark.parametrize("seed", range(6))
def test_each_player_of_a_duel_visits_once_a_turn_and_once_more_to_sign_the_result(seed: int) -> None:
    table = play("duel", seed=seed, options={"fast": True})
    assert all(session.finished for session in table.sessions)
    turns = table.sessions[0].played.match.state.turn - 1
    after_the_deal = [total - before for total, before in zip(table.visits, table.dealing, strict=True)]
    assert turns >= 3 and all(visits <= turns + 1 for visits in after_the_deal), (turns, after_the_deal)
    assert all(before <= 1 for before in table.dealing), table.dealing
