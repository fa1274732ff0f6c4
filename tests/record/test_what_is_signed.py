"""The record counts what is signed (docs/security.md, "What a transcript proves"): a forger's copy
dropped into the real winner's record moves nothing, a truncated copy with a later date hides
nothing, and a forfeit is a loss for the seat that forfeited, everywhere a result is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.cli.main import main
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import frame, header, records, verify
from p2pgenius.record import bundle
from tests.protocol.test_forger import FORGE

SEED = 31
VECTORS = Path(__file__).parents[2] / "protocol" / "vectors"


def dated(data: bytes, date: str) -> bytes:
    """The same transcript under a header with another (unsigned) date."""
    items = list(records(data))
    meta = dict(items[0][2])
    keys, me = meta.pop("peers"), meta.pop("me")
    meta["date"] = date
    return header(keys, me, **meta) + b"".join(frame(encode(r)) for r in items[1:])


def record(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["history", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def mine(listed: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in listed["ratings"]["duel"] if r["you"])


def test_a_forgers_copy_in_the_winners_record_moves_nothing(
    account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Find a duel this account (peer 0) won; the other peer forges its copy every way it can
    # and drops each, dated earlier, beside the real one: the rating and the record stay.
    for salt in range(20):
        table = play("duel", seed=SEED, setup={"hp": [3, 3]}, salt=bytes([salt]) * 32)
        report = verify(transcript(table, 0))
        assert report.ok
        if table.sessions[0].owner[report.outcome["winner"]] == 0:  # type: ignore[index]
            break
    real = account / "20261201-120000-000000-duel-host.p2pt"
    real.write_bytes(transcript(table, 0))
    before = record(capsys)
    assert [m["result"] for m in before["matches"]] == ["won"]
    forge = FORGE.Forger(table.identities[1], transcript(table, 1))
    forgeries = [*forge.old_attack(), *forge.forgeries()][:40]
    assert forgeries
    for number, forgery in enumerate(forgeries):
        path = account / f"20261130-1200{number % 60:02d}-{number:06d}-duel-join.p2pt"
        path.write_bytes(dated(forge.write(forgery), "2026-11-30 12:00:00 UTC"))
    after = record(capsys)
    assert mine(after) == mine(before), "the forgeries moved the winner's rating"
    # Every copy is judged with the others: each rewrite beside the real history is a second
    # message under one of the forger's numbers, signed by it (its cheat), and the account won;
    # none is a loss of this account's, none counts against it.
    lines = {Path(m["path"]).name: m for m in after["matches"]}
    assert lines[real.name]["result"] == "won: peer 1 cheated"
    assert not any(m["result"] == "lost" for m in after["matches"]), [m["result"] for m in after["matches"]]
    against = record(capsys, "--against", fingerprint(table.identities[1].public))["against"]
    assert against == {"duel": [1, 0, 0]}


def test_a_truncated_copy_dated_later_hides_no_result(
    account: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = play("duel", seed=SEED, setup={"hp": [3, 3]})
    data = transcript(table, 0)
    items = list(records(data))
    (account / "20261201-120000-000000-duel-host.p2pt").write_bytes(data)
    cut = b"".join(frame(encode(r)) for r in items[: len(items) // 2])
    (account / "20261202-120000-000000-duel-host.p2pt").write_bytes(dated(cut, "2099-01-01 00:00:00 UTC"))
    listed = record(capsys)
    them = fingerprint(table.identities[1].public)
    against = record(capsys, "--against", them)["against"]
    assert sum(sum(n) for n in against.values()) == 1, "the match counts once, from the copy that proves it"
    assert mine(listed)["matches"] == 1
    out = tmp_path / "mine.bundle"
    assert main(["export", "--bundle", str(out)]) == 0, capsys.readouterr().err
    entries = bundle.read(out.read_bytes())
    assert [name for name, _ in entries] == ["20261201-120000-000000-duel-host.p2pt"]


def test_a_forfeit_is_a_loss_for_the_seat_that_forfeited_and_a_cut_match_counts_for_nobody(
    account: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    table = play("duel", seed=SEED, setup={"hp": [3, 3]})
    # This account (peer 0) walked away mid-match: the other's copy, cut where the account owed
    # its move, then its claim and its forfeit (what an honest peer writes after its grace).
    forge = FORGE.Forger(table.identities[1], transcript(table, 1))
    claims = list(forge.claims())
    assert claims
    walked = forge.write(claims[len(claims) // 2])
    report = verify(walked)
    assert report.fault is not None and report.fault.kind == "forfeit" and report.fault.peer == 0
    (account / "20261201-120000-000000-duel-join.p2pt").write_bytes(walked)
    other = play("duel", seed=SEED, setup={"hp": [3, 3]}, salt=bytes([99]) * 32)  # (another match)
    cut = list(records(transcript(other, 0)))[:9]  # and one cut short: no evidence either way
    (account / "20261201-130000-000000-duel-host.p2pt").write_bytes(b"".join(frame(encode(r)) for r in cut))
    listed = record(capsys)
    lines = {Path(m["path"]).name: m for m in listed["matches"]}
    assert lines["20261201-120000-000000-duel-join.p2pt"]["result"] == "lost: you forfeited"
    assert lines["20261201-130000-000000-duel-host.p2pt"]["result"] == "unfinished"
    assert "no evidence either way" in lines["20261201-130000-000000-duel-host.p2pt"]["ending"]
    rating = mine(listed)
    assert rating["matches"] == 1 and rating["rating"] < 1500, "the forfeit counts, as a loss"
    against = record(capsys, "--against", fingerprint(table.identities[1].public))["against"]
    assert against == {"duel": [0, 1, 0]}


def test_one_ready_makes_one_match_however_many_terms_its_host_signs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # One joiner's ready, two sets of terms made with it (a name changed: a ready does not sign
    # the names), each a forfeit of the joiner at the coin flip: protocol/vectors/tables.json,
    # whose host is this account. Alone, each proves the forfeit (the documented limit: a
    # forfeit is its claimant's word); together, the host's signed terms with one ready prove its
    # cheat, and they count as one match, a loss for the host, wherever they are read.
    from tests.record.conftest import account_of

    vector = json.loads((VECTORS / "tables.json").read_text())
    forged = [bytes.fromhex(data) for data in vector["transcripts"]]
    (tmp_path / "home").mkdir()
    account = account_of(tmp_path / "home", monkeypatch, 48)  # (the vector's host: peer 0 of seed 48)
    assert all(verify(data).fault is not None and verify(data).fault.peer == 1 for data in forged)  # type: ignore[union-attr]
    (account / "20260101-120000-000000-duel-host.p2pt").write_bytes(forged[0])
    alone = record(capsys)
    assert [m["result"] for m in alone["matches"]] == ["won: bob forfeited"], alone["matches"]
    (account / "20260102-120000-000000-duel-host.p2pt").write_bytes(forged[1])
    listed = record(capsys)
    assert {m["result"] for m in listed["matches"]} == {"lost: you cheated"}, listed["matches"]
    assert mine(listed)["matches"] == 1 and mine(listed)["rating"] < 1500
    host = fingerprint(next(iter(records(forged[0])))[2]["peers"][0])
    # A bundle of one of them names who won the forfeit at the coin flip (no seat was dealt),
    # as its tally counts it, not "nobody won".
    one = tmp_path / "one.bundle"
    one.write_bytes(bundle.write([("one.p2pt", forged[0])]))
    assert main(["verify", str(one)]) == 0
    said = capsys.readouterr().out
    assert f"duel: ann ({host}) won (by a fault: forfeit" in said, said
    # A third party's bundle of both, and the account's own (which carries every set: one alone
    # proves no cheat): one match, the host's loss.
    both = tmp_path / "both.bundle"
    both.write_bytes(bundle.write([(f"{n}.p2pt", data) for n, data in enumerate(forged)]))
    own = tmp_path / "own.bundle"
    assert main(["export", "--bundle", str(own)]) == 0
    capsys.readouterr()
    assert len(bundle.read(own.read_bytes())) == 2
    for made in (both, own):
        assert main(["verify", str(made), "--json"]) == 0
        tallies = {
            p["fingerprint"]: p["games"]["duel"] for p in json.loads(capsys.readouterr().out)["record"]
        }
        assert tallies[host] == {"won": 0, "lost": 1, "drawn": 0}, tallies
