"""A transcript reads once into typed records, and one observer replay walks its messages."""

from __future__ import annotations

from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.protocol.events import Applied, Rejected
from p2pgenius.protocol.observer import replay
from p2pgenius.protocol.records import (
    ChoiceSecret,
    CoinSecret,
    DesyncRecord,
    FaultRecord,
    MsgRecord,
    RejectedRecord,
    TranscriptError,
    frame,
    header,
    read,
    read_header,
    records,
    secrets_of,
)

from .harness import play, transcript

KEYS = [bytes([1]) * 32, bytes([2]) * 32]


def framed(*values: Any) -> bytes:
    return b"".join(frame(encode(value)) for value in values)


def test_every_kind_of_record_reads_into_its_type_with_its_fields() -> None:
    data = header(KEYS, 1, role="join", expected={"game": "duel"}) + framed(
        ["msg", b"envelope"],
        ["rejected", b"junk", "not canonical"],
        ["fault", "desync", 0, 4, "the hashes differ", {"ours": "ab"}],
        ["desync_state", 0, 4, {"hp": [1, 2]}],
    )
    read_back = read(data)
    assert read_back.header.version == 3
    assert read_back.header.peers == tuple(KEYS)
    assert read_back.header.me == 1
    assert read_back.header.meta["role"] == "join"
    assert read_back.header.expected == {"game": "duel"}
    assert read_back.records == (
        MsgRecord(b"envelope"),
        RejectedRecord(b"junk", "not canonical"),
        FaultRecord("desync", 0, 4, "the hashes differ", {"ours": "ab"}),
        DesyncRecord(0, 4, {"hp": [1, 2]}),
    )
    assert read_back.messages == (b"envelope",)


def test_an_observers_header_has_no_me_and_expects_nothing() -> None:
    read_back = read(header(KEYS, None, role="watch"))
    assert read_back.header.me is None and read_back.header.expected is None
    assert read_back.records == ()


@pytest.mark.parametrize(
    ("record", "words"),
    [
        (["msg", 5], "record 1, a 'msg' record, holds (int)"),
        (["msg", b"a", b"b"], "record 1, a 'msg' record, holds (bytes, bytes)"),
        (["rejected", b"x"], "record 1, a 'rejected' record"),
        (["fault", "cheat", True, 0, "why", {}], "record 1, a 'fault' record"),  # (a bool is no peer)
        (["desync_state", 0, 1, [1]], "record 1, a 'desync_state' record"),
        (["note", "hello"], "record 1 is of no kind a transcript holds ('note')"),
        ([7], "record 1 is of no kind a transcript holds (7)"),
    ],
)
def test_a_record_that_is_not_one_spec_describes_is_refused_by_its_place(
    record: list[Any], words: str
) -> None:
    with pytest.raises(TranscriptError) as caught:
        read(header(KEYS, 0) + framed(record))
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (["p2pgenius-transcript", 3, {"peers": KEYS[:1], "me": 0}], "does not list the peers' keys"),
        (["p2pgenius-transcript", 3, {"peers": [b"k", 3], "me": 0}], "does not list the peers' keys"),
        (["p2pgenius-transcript", 3, {"peers": KEYS, "me": 2}], "not one of its 2 peers"),
        (["p2pgenius-transcript", "3", {"peers": KEYS, "me": 0}], "version is '3'"),
        (["p2pgenius-transcript", 3], "no header"),
    ],
)
def test_a_header_without_its_keys_or_with_another_peer_is_refused(value: list[Any], words: str) -> None:
    with pytest.raises(TranscriptError, match=words):
        read(framed(value))


def test_secrets_read_into_coin_shares_and_sealed_choices() -> None:
    items: list[list[Any]] = [["coin", b"n" * 32], ["secret", 3, 1, {"type": "x"}, b"s" * 32]]
    assert list(secrets_of(items)) == [CoinSecret(b"n" * 32), ChoiceSecret(3, 1, {"type": "x"}, b"s" * 32)]
    with pytest.raises(TranscriptError, match="secrets record 1"):
        list(secrets_of([*items[:1], ["secret", 3, 1]]))


def test_the_replay_feeds_each_message_once_in_order_and_says_what_it_found() -> None:
    data = transcript(play("duel", seed=3), 0)
    raw = [r[1] for r in list(records(data))[1:]]
    steps = list(replay(read(data)))
    assert [step.record.raw for step in steps] == raw
    assert [step.index for step in steps] == list(range(1, len(raw) + 1))
    observer = steps[-1].observer
    assert all(step.observer is observer for step in steps)
    assert observer.finished and observer.terms is not None and observer.terms["game"] == "duel"
    applied = [e for step in steps for e in step.events if isinstance(e, Applied)]
    assert [e.stage for e in applied] == list(range(len(applied))) and applied
    # The stage open as each message came: none before the deal, then each stage in turn.
    assert steps[0].stage is None
    stages = [step.stage for step in steps if step.stage is not None]
    assert stages == sorted(stages) and stages[-1] == applied[-1].stage


def test_with_evidence_the_rejected_records_are_judged_again_and_a_repeat_is_not() -> None:
    data = transcript(play("duel", seed=3), 0)
    last = read(data).messages[-1]
    evidence = framed(["rejected", last, "its content refused"], ["rejected", b"\x00junk", "junk"])
    plain = list(replay(read(data + evidence)))
    assert all(isinstance(step.record, MsgRecord) for step in plain)
    judged = list(replay(read(data + evidence), evidence=True))
    assert len(judged) == len(plain) + 2
    repeat, junk = judged[-2:]
    assert repeat.repeat and repeat.events == () and repeat.index == len(plain) + 1
    assert isinstance(repeat.record, RejectedRecord) and repeat.record.raw == last
    assert not junk.repeat and [type(e) for e in junk.events] == [Rejected]


def test_the_header_alone_reads_from_a_transcript_cut_short_after_it() -> None:
    data = header(KEYS, 0, role="host") + framed(["msg", b"envelope"])
    with pytest.raises(TranscriptError, match="damaged"):
        read(data[:-2])
    assert read_header(data[:-2]) == read(data).header
    with pytest.raises(TranscriptError, match="not a p2pgenius transcript"):
        read_header(b"")
