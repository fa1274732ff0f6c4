"""Transcripts verify with the public keys alone, and `p2pgenius verify` reports them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.cli.main import main
from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import TranscriptError, frame, records, verify

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
    assert all("its peer's word" in reason for reason in report.rejected), "a claim, not a finding"
    assert report.refused_terms is None


def test_a_reason_a_transcript_gives_reaches_the_terminal_printable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The transcript's writer words its own `rejected` records: verify prints them, never raw.
    table = play("duel", seed=1)
    data = transcript(table, 1)
    rows = list(records(data))
    last = next(row for row in reversed(rows) if row[0] == "msg")
    at = rows.index(last) + 1  # (right after that msg: the writer's own refusal of a copy of it)
    rows.insert(at, ["rejected", last[1], "\x1b[1A\x1b[2Kvalid: nothing to see"])
    path = tmp_path / "forged.p2pt"
    path.write_bytes(b"".join(frame(encode(row)) for row in rows))
    main(["verify", str(path)])
    shown = capsys.readouterr().out
    assert "nothing to see" in shown and "\x1b" not in shown, shown


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


class _Queue:
    """A bot taking its actions in order (then doing nothing)."""

    level = "queue"

    def __init__(self, moves: list[Any]) -> None:
        self.moves = moves

    def choose(self, state: Any, seat: int) -> Any:
        from p2pgenius.games.duel.actions import Gestures

        return self.moves.pop(0) if self.moves else Gestures("P", "P")  # (then surrender)


def test_a_duel_of_rules_version_3_is_still_read_with_the_hashes_its_peers_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Rules version 4 put a caster's first of two Paralysis choices in the public state (issue
    # 38, item 9), which changes that stage's hash. A transcript of version 3 (made here by
    # playing with the version-3 engine and fingerprint) still verifies: an observer replays it
    # by the rules its terms name, and would find a false desync by today's.
    from p2pgenius.games.duel.actions import Gestures, Paralyze, Ref
    from p2pgenius.games.duel.engine import DUEL_RULES_3
    from p2pgenius.games.duel.spec import DUEL_SPEC, DuelSpec

    self_too = Gestures("W", "W", targets=(("right", Ref("wizard", seat=0)),))
    moves: list[Any] = [Gestures("W", "W"), Gestures("W", "W"), self_too, Paralyze(1, "left")]
    moves.append(Paralyze(0, "right"))
    with monkeypatch.context() as old:
        old.setattr(DuelSpec, "rules_version", 3)
        old.setattr(DUEL_SPEC, "engine", DUEL_RULES_3)
        idle = [Gestures("-", "-")] * 4
        table = play("duel", bots=[_Queue(moves), _Queue(idle)], options={"fast": True})
    assert table.faults() == [] and all(table.outcomes())
    data = transcript(table, 0)
    report = verify(data)
    assert report.ok and report.fault is None, report.summary
    hashes = table.sessions[0].played.ending.my_hashes
    chose = [n for n, _, action in table.sessions[0].log if action.get("type") == "paralyze"]
    assert chose == [3, 4] and hashes[2] == hashes[3]  # version 3: the first choice changed no hash
    monkeypatch.setattr(DuelSpec, "older_engines", {3: DUEL_SPEC.engine})
    assert not verify(data).ok  # read by today's rules, the same messages do not check out
    monkeypatch.setattr(DuelSpec, "older_engines", {})
    assert not verify(data).ok  # and without the old engine its terms are refused


def test_a_hornswoggle_cut_in_its_audit_stops_after_its_last_step_not_before_the_deal() -> None:
    # Every stage played, the audit owed: no stage is open, as before the deal.
    table = play("hornswoggle", seed=5)
    rows = list(records(transcript(table, 0)))
    steps = len(verify(transcript(table, 0)).steps)
    for cut in range(len(rows) - 1, 0, -1):
        report = verify(b"".join(frame(encode(row)) for row in rows[:cut]))
        if report.outcome is None:
            break
    assert len(report.steps) == steps, "cut after the last step"
    assert f"incomplete: the match stops after {steps} steps" in report.summary, report.summary
