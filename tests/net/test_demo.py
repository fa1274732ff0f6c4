"""``p2pgenius demo``: every game's match at once, shown one after another."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.cli import demo
from p2pgenius.cli.play import Printer
from p2pgenius.games.registry import names


async def test_the_matches_run_at_once_and_show_one_after_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    played = demo.demo_match

    async def timed(game: str, *args: Any, **kwargs: Any) -> Any:
        order.append(f"start {game}")
        peers = await played(game, *args, **kwargs)
        order.append(f"end {game}")
        return peers

    monkeypatch.setattr(demo, "demo_match", timed)
    games = names()
    out = io.StringIO()
    assert await demo.demo_matches(games, tmp_path, Printer(out, moves=True)) == 0
    # Every match started before any ended: they were played at once, not one after another.
    assert sorted(order[: len(games)]) == sorted(f"start {game}" for game in games), order
    lines = out.getvalue().splitlines()
    # Each game's lines come whole and in the games' order: its start, its moves, its result and
    # its transcript verified, before the next game's first line.
    starts = [lines.index(next(line for line in lines if line.startswith(f"{game}: host"))) for game in games]
    verdicts = [i for i, line in enumerate(lines) if line.startswith("verified: ")]
    assert len(verdicts) == len(games)
    for game, start, verdict, after in zip(games, starts, verdicts, starts[1:] + [len(lines)], strict=True):
        assert start < verdict < after, (game, start, verdict, after)
        assert lines[verdict].startswith(f"verified: valid: {game},"), lines[verdict]
        block = lines[start:verdict]
        assert any(line.startswith("result: ") for line in block)
        others = [other for other in games if other != game]
        assert not any(line.startswith(f"{other}: host") for other in others for line in block)
