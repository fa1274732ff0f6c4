"""A config directory whose matches/ holds real transcripts of bot matches: finished matches of
every game between the same two keys, a match stopped by a proven cheat, one that stops short, a
copy of a finished match cut short, a spectator's transcript, a damaged transcript and a foreign
file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import frame, header, records
from tests.protocol.test_attacks import attacked

SEED = 5  # (the same two keys in every match: the identities come from the seed)


def cut(data: bytes, count: int) -> bytes:
    return b"".join(frame(encode(record)) for record in list(records(data))[:count])


def spectator(data: bytes) -> bytes:
    """A peer's transcript as a spectator's: the same messages, the header's ``me`` none."""
    items = list(records(data))
    keys = items[0][2]["peers"]
    return header(keys, None, role="watch") + b"".join(frame(encode(r)) for r in items[1:])


def illegal(body: list[Any]) -> list[Any]:
    """A Magic Square action with a cell no square has (the liar's message, properly signed)."""
    return [body[0], body[1], body[2], {"type": "place", "cell": 99}, body[4]]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config directory with a matches/ folder of transcripts; returns the folder."""
    folder = account_of(tmp_path, monkeypatch, SEED)  # (this account: peer 0 of the matches)
    made: dict[str, bytes] = {}
    for number, game in enumerate(["duel", "duel", "duel", "magic-square", "hornswoggle", "duel"]):
        table = play(game, seed=SEED, levels=None, setup={"hp": [3, 3]} if game == "duel" else None)
        name = f"20261201-1200{number:02d}-00000{number}-{game}-host.p2pt"
        made[name] = transcript(table, 0)
    for name, data in made.items():
        (folder / name).write_bytes(data)
    duel = made["20261201-120000-000000-duel-host.p2pt"]
    # A match this account holds only cut short (another match between the same two keys).
    other = transcript(play("duel", seed=SEED, setup={"hp": [3, 3]}), 0)
    (folder / "20261201-130000-000000-duel-join.p2pt").write_bytes(cut(other, len(list(records(other))) // 2))
    (folder / "20261201-130000-000000-duel-join.secrets").write_bytes(b"")
    # A copy of the first duel cut short: judged with the whole one, it is that match.
    (folder / "20261201-130500-000000-duel-join.p2pt").write_bytes(cut(duel, len(list(records(duel))) // 2))
    (folder / "20261201-140000-000000-duel-watch.p2pt").write_bytes(spectator(duel))
    (folder / "20261201-150000-000000-duel-host.p2pt").write_bytes(duel[: len(duel) // 2] + b"\xff" * 7)
    cheat = attacked("magic-square", 1, "act", illegal, seed=SEED)  # (its liar: peer 1, the other)
    (folder / "20261201-160000-000000-magic-square-host.p2pt").write_bytes(transcript(cheat, 0))
    (folder / "notes.txt").write_text("not a transcript\n", encoding="utf-8")
    (folder / "20261201-120000-000000-duel-host.p2pt.stage").write_text("3 0\n", encoding="ascii")
    return folder


@pytest.fixture
def account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Path:
    """A config directory whose account is peer 0 of the matches the requesting module plays
    with its ``SEED`` (the in-memory table's identities come from the seed); returns its
    matches/ folder."""
    return account_of(tmp_path, monkeypatch, int(request.module.SEED))


def account_of(home: Path, monkeypatch: pytest.MonkeyPatch, seed: int, peer: int = 0) -> Path:
    """``home`` as the config directory of the account that is ``peer`` of the in-memory table's
    matches of ``seed`` (their identities come from the seed); returns its empty matches/."""
    monkeypatch.setenv("P2PGENIUS_HOME", str(home))
    key = home / "identity.key"
    key.write_text(Identity.from_seed(bytes([seed % 256, peer]) * 16).seed.hex() + "\n", encoding="ascii")
    key.chmod(0o600)
    folder = home / "matches"
    folder.mkdir()
    return folder
