"""A ``msg`` record that fails the envelope checks (protocol/SPEC.md section 7, "A msg record that
fails the checks"): no author's chain holds it, so it proves nothing and changes nothing. The
verdict, the result, the fault and the signed history are those of the transcript without it, in
``verify`` and in a bundle alike; only the report names it. (Whoever holds a copy can add such a
record, no key needed: if it could change a verdict, one peer alone could.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import decode, encode
from p2pgenius.cli.main import main
from p2pgenius.cli.verify import FIRST_SHOWN, REFUSALS_SHOWN
from p2pgenius.protocol.transcript import Report, frame, records, spans, verify
from p2pgenius.record import bundle

VECTORS = Path(__file__).parents[2] / "protocol" / "vectors"
TRANSCRIPTS = ["transcript-duel.p2pt", "transcript-magic-square.p2pt", "transcript-duel-blind.p2pt"]


def written(rows: list[list[Any]]) -> bytes:
    return b"".join(frame(encode(row)) for row in rows)


def forged(row: list[Any]) -> list[Any]:
    """A ``msg`` record with one bit of its envelope's signature changed."""
    envelope = decode(row[1])
    signature = bytearray(envelope[6])
    signature[0] ^= 1
    return ["msg", encode([*envelope[:6], bytes(signature)])]


def verdict(report: Report) -> tuple[Any, ...]:
    fault = None if report.fault is None else (report.fault.kind, report.fault.peer, report.fault.stage)
    return (report.ok, report.standing, report.outcome, fault, report.messages, report.chains, report.winners)


def msg_rows(rows: list[list[Any]]) -> list[int]:
    return [index for index, row in enumerate(rows) if row[0] == "msg"]


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_a_forged_copy_of_any_message_added_anywhere_changes_no_verdict(name: str) -> None:
    rows = list(records((VECTORS / name).read_bytes()))
    clean = verify(written(rows))
    assert clean.ok and clean.unchained == []
    indexes = msg_rows(rows)
    for at in indexes[:: max(1, len(indexes) // 12)] + indexes[-3:]:  # (the ends among them)
        report = verify(written([*rows[:at], forged(rows[at]), *rows[at:]]))
        assert verdict(report) == verdict(clean), at
        assert report.unchained == [at]
        assert "1 msg record(s) (record" in report.summary and report.summary.startswith("valid")


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_a_message_replaced_by_a_forged_copy_is_as_if_it_were_cut_out(name: str) -> None:
    rows = list(records((VECTORS / name).read_bytes()))
    for at in msg_rows(rows)[-4:]:  # (the last hashes and ends: a result hangs on each)
        replaced = verify(written([*rows[:at], forged(rows[at]), *rows[at + 1 :]]))
        cut = verify(written([*rows[:at], *rows[at + 1 :]]))
        assert verdict(replaced) == verdict(cut), at
        assert at in replaced.unchained and not replaced.ok  # (every peer's end is needed)


def test_a_bundle_counts_a_transcript_with_a_forged_record_as_the_clean_one_and_names_it() -> None:
    rows = list(records((VECTORS / "transcript-duel.p2pt").read_bytes()))
    at = msg_rows(rows)[-1]
    tampered = written([*rows[:at], forged(rows[at]), *rows[at:]])
    clean_matches, clean_tallies = bundle.prove([("a.p2pt", written(rows))])
    matches, tallies = bundle.prove([("a.p2pt", tampered)])
    assert [m.proves for m in matches] == [m.proves for m in clean_matches] == [True]
    assert {k: t.games for k, t in tallies.items()} == {k: t.games for k, t in clean_tallies.items()}
    assert sum(sum(t.games["duel"]) for t in tallies.values()) == 2  # (one win, one loss)
    assert (matches[0].unchained, clean_matches[0].unchained) == (1, 0)


def test_numbers_are_told_in_runs() -> None:
    assert spans([]) == "" and spans([7]) == "7"
    assert spans([3, 7, 8, 9, 12]) == "3, 7 to 9, 12"
    assert spans(list(range(206, 415))) == "206 to 414"


@pytest.mark.parametrize("name", TRANSCRIPTS[:1])
def test_a_copy_damaged_at_one_message_is_told_in_a_few_lines(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file damaged at one record has every later one refused after it: the summary names the
    records as a run, and verify lists the first refusals and how many more (a newcomer's try:
    one line per record, hundreds of them, and every number in the summary)."""
    rows = list(records((VECTORS / name).read_bytes()))
    at = msg_rows(rows)[len(msg_rows(rows)) // 3]
    report = verify(written([*rows[:at], forged(rows[at]), *rows[at + 1 :]]))
    assert report.unchained[0] == at and len(report.unchained) > REFUSALS_SHOWN
    assert f"(records {at} to " in report.summary and f", {at + 1}, " not in report.summary
    path = tmp_path / "damaged.p2pt"
    path.write_bytes(written([*rows[:at], forged(rows[at]), *rows[at + 1 :]]))  # (as verified above)
    assert main(["verify", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    refused = [line for line in lines if line.startswith("  refused: ")]
    assert len(refused) == FIRST_SHOWN and refused[0].startswith(f"  refused: record {at}: the signature")
    more = len(report.rejected) - FIRST_SHOWN
    assert lines[-1] == f"  ... and {more} more refused (p2pgenius verify --json lists every one)"
    assert main(["verify", "--json", str(path)]) == 1
    assert len(json.loads(capsys.readouterr().out)["rejected"]) == len(report.rejected)
