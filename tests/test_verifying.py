"""A transcript's signatures checked first, on every core (``p2pgenius.record.verifying``): the same
verdict as the replay alone, on honest transcripts and on forged ones, with the checks made on
other threads first, and none first where they would cost more than they save."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import nacl.bindings
import pytest

from p2pgenius.canonical import decode, encode
from p2pgenius.protocol import transcript as plain
from p2pgenius.protocol.identity import VERIFIED
from p2pgenius.protocol.messages import signature_check
from p2pgenius.protocol.records import MsgRecord, read
from p2pgenius.protocol.transcript import frame, header
from p2pgenius.record import index, verifying
from tests.protocol.harness import play, transcript

DATA = Path(__file__).parent / "protocol" / "data"


class Calls:
    """libsodium's Ed25519 verifications, and the thread each was made on."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def start(self) -> None:
        """Count from here, in a process that has verified nothing (as ``p2pgenius verify``
        starts: playing the match in this process verified its messages)."""
        VERIFIED.clear()
        self.threads.clear()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    made = Calls()
    library = nacl.bindings.crypto_sign_open

    def opened(signed: bytes, public: bytes) -> bytes:
        made.threads.append(threading.get_ident())
        result: bytes = library(signed, public)
        return result

    monkeypatch.setattr(nacl.bindings, "crypto_sign_open", opened)
    VERIFIED.clear()  # (as a process starts: playing the match verified these very messages)
    yield made
    VERIFIED.clear()


def _forgeries(game: str, peers: int, seed: int) -> list[bytes]:
    """An honest transcript of peer 0, then copies of it with one message changed: its signature
    (one byte), its body (one byte before the signature), its author (the other peer's key does
    not hold), and bytes that are no envelope at all."""
    table = play(game, peers=peers, seed=seed)
    keys = [ident.public for ident in table.identities]
    records = list(table.transcripts[0])
    messages = [i for i, record in enumerate(records) if decode(record)[0] == "msg"]
    copies = [transcript(table, 0)]
    for at, change in (
        (messages[10], lambda raw: raw[:-5] + bytes([raw[-5] ^ 0xFF]) + raw[-4:]),
        (messages[len(messages) // 2], lambda raw: raw[:-70] + bytes([raw[-70] ^ 0x01]) + raw[-69:]),
        (messages[-3], lambda raw: raw[:1] + b"\xa6p2pg/3" + raw[8:]),
        (messages[5], lambda raw: b"\x97" + b"\xc0" * 7),
    ):
        changed = list(records)
        changed[at] = encode(["msg", change(decode(records[at])[1])])
        copies.append(header(keys, 0) + b"".join(frame(record) for record in changed))
    return copies


@pytest.mark.parametrize(("game", "peers"), [("duel", 2), ("magic-square", 2), ("hornswoggle", 4)])
def test_the_verdict_is_the_replays_alone(game: str, peers: int, calls: Calls) -> None:
    for data in _forgeries(game, peers, seed=3):
        VERIFIED.clear()
        alone = plain.verify(data)
        VERIFIED.clear()
        first = verifying.verify(data, threads=2)
        assert first == alone
    assert not alone.ok  # (the last forgery: the test holds forged copies, not only honest ones)


def test_copies_merged_get_the_verdict_of_the_replay_alone(calls: Calls) -> None:
    table = play("hornswoggle", peers=4, seed=5)
    copies = [transcript(table, peer) for peer in range(4)]
    calls.start()
    alone = plain.verify_copies(copies)
    checked = len(calls.threads)
    calls.start()
    assert verifying.verify_copies(copies, threads=3) == alone
    assert alone.ok, alone.summary
    assert len(set(calls.threads)) == 3  # checked first, before the merge opened every envelope
    assert len(calls.threads) == checked  # each envelope once, though four copies hold it


def test_the_signatures_are_checked_on_other_threads_first_and_the_replay_checks_none_again(
    calls: Calls,
) -> None:
    data = transcript(play("magic-square", seed=7), 0)
    calls.start()
    verifying.check_first([read(data)], threads=2)
    first = len(calls.threads)
    assert len(set(calls.threads)) == 2  # the calling thread and one more
    report = plain.verify(data)
    assert report.ok, report.summary
    assert first == report.messages  # every message's, each once
    assert len(calls.threads) - first <= 2  # the replay: the two peers' signed readiness alone


def test_a_forged_signature_checked_first_is_checked_again_and_refused(calls: Calls) -> None:
    forged = _forgeries("magic-square", 2, seed=7)[1]
    calls.start()
    verifying.check_first([read(forged)], threads=2)
    first = len(calls.threads)
    report = plain.verify(forged)
    assert not report.ok
    assert report.unchained  # the forged message joins no chain
    assert len(calls.threads) - first >= 1  # what failed first was not remembered


def test_the_check_first_is_the_one_the_envelope_makes() -> None:
    table = play("duel", seed=7)
    keys = [ident.public for ident in table.identities]
    raws = [record.raw for record in read(transcript(table, 0)).records if isinstance(record, MsgRecord)]
    for raw in raws:
        check = signature_check(raw, keys)
        assert check is not None
        key, signature, signed = check
        assert key == keys[decode(raw)[2]] and signature == decode(raw)[6]
        assert nacl.bindings.crypto_sign_open(signature + signed, key)
    assert signature_check(b"\x96" + raws[0][1:], keys) is None  # no 7-array
    assert signature_check(raws[0][:-1], keys) is None  # cut short
    assert signature_check(raws[0], keys[:0]) is None  # an author of no known peer


def test_none_first_on_one_core_nor_for_a_short_transcript(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = transcript(play("magic-square", seed=7), 0)
    calls.start()
    verifying.check_first([read(data)], threads=1)
    monkeypatch.setattr(verifying, "_chosen", [1])  # (a worker process of the history's index)
    verifying.check_first([read(data)])
    monkeypatch.setattr(verifying, "FEWEST", 10**6)
    verifying.check_first([read(data)], threads=2)
    assert calls.threads == []


def test_at_most_so_many_first_and_the_rest_by_the_replay(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verifying, "AT_MOST", 70)
    monkeypatch.setattr(verifying, "FEWEST", 10)
    data = transcript(play("magic-square", seed=7), 0)
    calls.start()
    verifying.check_first([read(data)], threads=2)
    assert len(calls.threads) == 70
    VERIFIED.clear()
    report = verifying.verify(data, threads=2)
    assert report.ok, report.summary
    assert report.messages > 70


def test_forged_messages_cost_at_most_one_check_more_a_thread(calls: Calls) -> None:
    table = play("magic-square", seed=7)
    keys = [ident.public for ident in table.identities]
    records = []
    for record in table.transcripts[0]:
        kind, *fields = decode(record)
        if kind == "msg":  # every signature, one byte changed
            raw = fields[0]
            record = encode(["msg", raw[:-5] + bytes([raw[-5] ^ 0xFF]) + raw[-4:]])
        records.append(record)
    forged = header(keys, 0) + b"".join(frame(record) for record in records)
    calls.start()
    alone = plain.verify(forged)
    checked = len(calls.threads)
    calls.start()
    assert verifying.verify(forged, threads=2) == alone
    assert not alone.ok
    assert checked <= len(calls.threads) <= checked + 2


def test_a_version_2_transcript_gets_the_verdict_of_the_replay_alone(calls: Calls) -> None:
    data = (DATA / "version-2-duel.p2pt").read_bytes()
    calls.start()
    alone = plain.verify(data)
    calls.start()
    assert verifying.verify(data, threads=2) == alone
    assert len(set(calls.threads)) == 2


def test_a_thread_that_cannot_start_leaves_its_share_to_the_replay(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = transcript(play("magic-square", seed=7), 0)
    calls.start()
    alone = plain.verify(data)

    def refused(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refused)
    calls.start()
    assert verifying.verify(data, threads=4) == alone
    assert len(set(calls.threads)) == 1


def test_an_index_worker_checks_on_its_share_of_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verifying, "_chosen", [])
    monkeypatch.setattr(signal, "signal", lambda *_: None)
    assert verifying.threads_to_use() == verifying.cores()
    index._worker_begins(1)
    assert verifying.threads_to_use() == 1
