"""Transcripts verify with the public keys alone, and `p2pgenius verify` reports them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import TranscriptError, verify

from .harness import play, transcript


@pytest.mark.parametrize(
    ("game", "peers"), [("duel", 2), ("magic-square", 2), ("hornswoggle", 2), ("hornswoggle", 4)]
)
def test_every_peers_transcript_verifies_to_the_same_result(game: str, peers: int) -> None:
    table = play(game, peers=peers, seed=5)
    reports = [verify(transcript(table, i)) for i in range(peers)]
    assert all(r.ok for r in reports), [r.summary for r in reports]
    assert all(r.outcome == table.outcomes()[0] for r in reports)
    assert reports[0].messages > 10


def test_a_cut_transcript_is_incomplete_not_valid() -> None:
    table = play("magic-square", seed=2)
    data = transcript(table, 0)
    records = table.transcripts[0]
    from p2pgenius.protocol.transcript import frame, header

    keys = [i.public for i in table.identities]
    half = header(keys, 0) + b"".join(frame(r) for r in records[: len(records) // 2])
    report = verify(half)
    assert not report.ok
    assert report.summary.startswith("incomplete")
    # In steps, as replay and export count them, not the protocol's stages.
    assert re.match(
        r"incomplete: the match stops (after \d+ steps?|before the deal) with no result", report.summary
    )
    assert "stage" not in report.summary, report.summary
    with pytest.raises(TranscriptError, match=r"damaged|cut short"):
        verify(data[:-3])


def test_verify_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = play("duel", seed=1)
    path = tmp_path / "match.p2pt"
    path.write_bytes(transcript(table, 1))
    assert main(["verify", str(path)]) == 0
    assert capsys.readouterr().out.startswith("valid: duel")
    path.write_bytes(b"junk")
    assert main(["verify", str(path)]) == 1
    assert capsys.readouterr().err.startswith("error: ")


def test_terms_the_joiner_refused_are_said_refused_and_their_names_never_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A host that puts another name in the terms than the lobby showed: the joiner refuses them.
    # Its transcript then proves no match, and verify and export say so, naming nobody by the
    # refused terms' names.
    from p2pgenius.protocol.session import Session, start_table
    from p2pgenius.protocol.transcript import REFUSED, frame, header

    ids = [Identity.from_seed(bytes([41, i]) * 16) for i in range(2)]
    keys = [i.public for i in ids]
    host = Session(keys=keys, me=0, identity=ids[0], names=["Mallory the Great", "bob"])
    joiner = Session(keys=keys, me=1, identity=ids[1], expected={"names": ["ann", "bob"]})
    start_table([host, joiner], "duel", options={}, setup={})
    for raw in host.flush().messages:
        joiner.receive(raw)
    records = joiner.flush().records
    data = header(keys, 1, role="join") + b"".join(frame(r) for r in records)
    report = verify(data)
    assert report.standing == REFUSED and not report.ok
    assert report.summary.startswith("refused: peer 1, whose transcript this is, refused the host's terms")
    assert not report.names and report.terms is None, "no player is named by refused terms"
    path = tmp_path / "refused.p2pt"
    path.write_bytes(data)
    assert main(["verify", str(path)]) == 1
    assert main(["export", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "refused" in shown
    # The refused name appears only as what was refused, never as a player's.
    assert all("differ from the lobby" in line for line in shown.splitlines() if "Mallory" in line), shown


def test_a_message_that_came_twice_in_a_row_is_listed_refused_by_verify() -> None:
    # A replay that arrives right after its original is recorded as a `rejected` record of the
    # bytes of the `msg` just before it, as a refused content would be: verify must still list it.
    from p2pgenius.canonical import decode
    from p2pgenius.protocol.session import Session, start_table
    from p2pgenius.protocol.transcript import frame, header

    ids = [Identity.from_seed(bytes([43, i]) * 16) for i in range(2)]
    keys = [i.public for i in ids]
    host = Session(keys=keys, me=0, identity=ids[0], names=["ann", "bob"])
    joiner = Session(keys=keys, me=1, identity=ids[1])
    start_table([host, joiner], "duel", options={}, setup={})
    for raw in host.flush().messages:
        joiner.receive(raw)
    host.chat("hello")  # (a message the joiner answers nothing to)
    for raw in host.flush().messages:
        joiner.receive(raw)
        joiner.receive(raw)  # (again, at once)
    records = joiner.flush().records
    last, again = (decode(record) for record in records[-2:])
    assert isinstance(last, list) and isinstance(again, list)
    assert (last[0], again[0]) == ("msg", "rejected") and last[1] == again[1]
    report = verify(header(keys, 1, role="join") + b"".join(frame(r) for r in records))
    assert report.rejected and all("replayed" in reason for reason in report.rejected), report.rejected
    assert report.refused_terms is None


OLD = Path(__file__).parent / "data" / "version-2-duel.p2pt"
"""A whole duel as match messages version 2 made it (the vector of that version, kept as it was)."""


def test_a_version_2_transcript_is_read_and_proves_no_result() -> None:
    from p2pgenius.protocol.session import Session
    from p2pgenius.protocol.transcript import UNCONFIRMED, records
    from p2pgenius.record.matches import UNCONFIRMED as NOT_COUNTED
    from p2pgenius.record.matches import read

    data = OLD.read_bytes()
    report = verify(data)
    # Every message checks as version 2 had it (signatures, chains, moves, hashes)...
    assert report.version == 2 and report.outcome is not None and report.fault is None
    assert not report.rejected and len(report.steps) > 3
    # ... and none of it binds one peer to another's messages: no result.
    assert report.standing == UNCONFIRMED and not report.ok
    assert "version 2" in report.summary and report.summary.startswith("unconfirmed:")
    line = read(OLD)
    assert line.kind == NOT_COUNTED and not line.counts and not line.proves
    assert "older transcript" in line.reason
    # It is read (verify, export) but not resumed.
    assert main(["verify", str(OLD)]) == 1
    assert main(["export", str(OLD)]) == 0
    items = list(records(data))
    with pytest.raises(P2PGeniusError, match="can be read, not resumed"):
        Session.restore(identity=Identity.generate(), transcript=items, secrets=[])
