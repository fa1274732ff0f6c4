"""The session says when another peer's state hash is taken (``Hashed``): the clocks time how
long each peer's machine takes to apply a stage from it, and no layer above peeks into envelopes."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pgenius.canonical import decode
from p2pgenius.protocol.events import Hashed
from p2pgenius.protocol.observer import replay
from p2pgenius.protocol.records import MsgRecord, read

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


@pytest.mark.parametrize("name", ["transcript-duel.p2pt", "transcript-hornswoggle.p2pt"])
def test_every_hash_taken_is_told_once_with_its_author_and_stage(name: str) -> None:
    transcript = read((VECTORS / name).read_bytes())
    hashes = []
    for record in transcript.records:
        if isinstance(record, MsgRecord):
            _, _, author, _, _, body, _ = decode(record.raw)
            if body[0] == "hash":
                hashes.append((author, body[1]))
    told = [(e.author, e.stage) for step in replay(transcript) for e in step.events if isinstance(e, Hashed)]
    assert hashes, "the transcript holds state hashes: the test would prove nothing"
    assert told == hashes
