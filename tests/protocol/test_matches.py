"""Sessions wired back to back play whole matches of every game."""

from __future__ import annotations

import pytest

from .harness import play


@pytest.mark.parametrize(
    ("game", "peers"),
    [("duel", 2), ("magic-square", 2), ("hornswoggle", 2), ("hornswoggle", 4), ("hornswoggle", 3)],
)
def test_whole_match_ends_with_the_same_outcome_everywhere(game: str, peers: int) -> None:
    levels = {"magic-square": ["heuristic", "random"]}.get(game)
    table = play(game, peers=peers, seed=3, levels=levels)
    assert table.faults() == []
    outcomes = table.outcomes()
    assert outcomes[0] is not None
    assert all(o == outcomes[0] for o in outcomes)
    hashes = [s.played.ending.my_hashes for s in table.sessions]
    assert all(h == hashes[0] for h in hashes)
