"""Write every game's golden playthrough again: ``python -m tests.playthroughs``."""

from __future__ import annotations

from p2pgenius.games import catalog
from tests.games.rps import ENTRY
from tests.playthroughs import path_of, playthrough

if ENTRY.name not in catalog.names():
    catalog.add(ENTRY)
for game in catalog.names():
    path_of(game).write_text(playthrough(game), encoding="utf-8")
    print(f"wrote {path_of(game)}")
