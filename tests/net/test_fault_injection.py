"""Connections cut at every step of a match in turn (handshake, lobby, terms, coin flip, every
stage): each match resumes and finishes, both transcripts verify, nothing is lost."""

from __future__ import annotations

from pathlib import Path

from .faults import cut_after


async def test_a_cut_at_every_step_of_a_duel_is_survived(tmp_path: Path) -> None:
    outcomes = []
    for writes in range(40):  # the short duel's joiner writes fewer than this many times
        outcomes.append(await cut_after(tmp_path / str(writes), writes))
    cuts = [o for o in outcomes if o.cut]
    assert len(cuts) >= 10, "the sweep must reach into the match, not only the handshake"
    assert any(o.before_match for o in cuts) and any(not o.before_match for o in cuts)
    failed = [o for o in outcomes if not (o.finished and o.verified)]
    assert failed == []
