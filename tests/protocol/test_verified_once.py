"""Each signature is checked once (issue 48): ``identity.verify`` remembers the signatures that
held, by key, signature and the hash of the signed bytes, so that a message read again (merging
copies, resuming, replaying) costs no second Ed25519 verification; and whatever differs from what
held, in any byte, is still checked, and refused where it does not hold."""

from __future__ import annotations

from collections.abc import Iterator

import nacl.bindings
import pytest

from p2pgenius.canonical import decode, encode
from p2pgenius.protocol import identity
from p2pgenius.protocol.events import Rejected
from p2pgenius.protocol.identity import VERIFIED, Identity, verify
from p2pgenius.protocol.messages import MessageError, open_envelope
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import frame, header, verify_copies
from p2pgenius.protocol.transcript import verify as verify_transcript

from .harness import play, transcript


class Count:
    """The Ed25519 verifications libsodium makes (each a real one)."""

    def __init__(self) -> None:
        self.calls = 0

    def start(self) -> None:
        """Count from here, in a process that has verified nothing (as ``p2pgenius verify``
        starts: playing the match in this process verified its messages)."""
        VERIFIED.clear()
        self.calls = 0


@pytest.fixture
def count(monkeypatch: pytest.MonkeyPatch) -> Iterator[Count]:
    counted = Count()
    library = nacl.bindings.crypto_sign_open

    def opened(signed: bytes, public: bytes) -> bytes:
        counted.calls += 1
        result: bytes = library(signed, public)
        return result

    monkeypatch.setattr(nacl.bindings, "crypto_sign_open", opened)
    VERIFIED.clear()  # (as a process starts: other tests verified these very messages)
    yield counted
    VERIFIED.clear()


def test_a_signature_that_held_is_checked_once(count: Count) -> None:
    signer = Identity.from_seed(b"\x01" * 32)
    signature = signer.sign(b"some bytes")
    assert verify(signer.public, signature, b"some bytes")
    assert verify(signer.public, signature, b"some bytes")
    assert count.calls == 1


def test_anything_else_than_what_held_is_checked_again_and_refused(count: Count) -> None:
    signer, other = Identity.from_seed(b"\x01" * 32), Identity.from_seed(b"\x02" * 32)
    signature = signer.sign(b"some bytes")
    assert verify(signer.public, signature, b"some bytes")  # held, and remembered
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    assert not verify(signer.public, signature, b"some bytez")  # other bytes
    assert not verify(signer.public, signature, b"some bytes\x00")  # one byte more
    assert not verify(signer.public, flipped, b"some bytes")  # another signature
    assert not verify(other.public, signature, b"some bytes")  # another key, a proper one
    assert not verify(bytearray(signer.public), signature, b"some bytes")  # type: ignore[arg-type]
    assert not verify(signer.public, bytearray(signature), b"some bytes")  # type: ignore[arg-type]
    assert count.calls == 5  # each checked afresh (the wrong types are refused before)
    assert not verify(signer.public, flipped, b"some bytes")  # a refusal is never remembered
    assert count.calls == 6


def test_a_forgotten_signature_is_checked_again(count: Count, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(identity, "VERIFIED_KEPT", 2)
    signer = Identity.from_seed(b"\x01" * 32)
    texts = [b"a", b"b", b"c"]
    for text in texts:
        assert verify(signer.public, signer.sign(text), text)
    assert count.calls == 3
    assert verify(signer.public, signer.sign(b"c"), b"c")  # among the newest two
    assert verify(signer.public, signer.sign(b"a"), b"a")  # the oldest, forgotten: checked
    assert count.calls == 4


def test_a_transcript_is_verified_at_one_signature_check_per_message(count: Count) -> None:
    table = play("hornswoggle", peers=4, seed=5)
    count.start()
    report = verify_transcript(transcript(table, 0))
    assert report.ok, report.summary
    # One per message, and each peer's signed readiness (the coin's), checked once.
    assert count.calls <= report.messages + 4


def test_every_peers_copies_merged_cost_one_signature_check_per_message(count: Count) -> None:
    table = play("hornswoggle", peers=4, seed=5)
    count.start()
    report = verify_copies([transcript(table, peer) for peer in range(4)])
    assert report.ok, report.summary
    # The merge opens each distinct envelope and the replay of the merged transcript opens it
    # again: the second is the same key, signature and bytes.
    assert count.calls <= report.messages + 4


def test_a_restored_session_checks_each_message_once(count: Count) -> None:
    table = play("duel", seed=7)
    keys = [ident.public for ident in table.identities]
    records = [decode(header(keys, 1)[4:])] + [decode(raw) for raw in table.transcripts[1]]
    count.start()
    restored = Session.restore(
        identity=table.identities[1], transcript=records, secrets=[decode(s) for s in table.secrets[1]]
    )
    messages = sum(record[0] == "msg" for record in records[1:])
    assert restored.finished
    assert count.calls <= messages + 2  # (it opened each message up to three times)


def test_a_tampered_copy_of_a_verified_transcript_is_still_refused(count: Count) -> None:
    table = play("duel", seed=7)
    genuine = transcript(table, 0)
    count.start()
    assert verify_transcript(genuine).ok  # every signature of it remembered
    checked = count.calls
    records = list(table.transcripts[0])
    index = [i for i, r in enumerate(records) if decode(r)[0] == "msg"][10]  # one in the middle
    raw = decode(records[index])[1]
    forged = raw[:-5] + bytes([raw[-5] ^ 0xFF]) + raw[-4:]  # its signature, one byte changed
    records[index] = encode(["msg", forged])
    keys = [ident.public for ident in table.identities]
    report = verify_transcript(header(keys, 0) + b"".join(frame(r) for r in records))
    assert not report.ok
    assert index + 1 in report.unchained
    assert count.calls == checked + 1  # that one checked afresh; the others were known to hold


def test_a_message_known_to_hold_is_refused_out_of_its_context(count: Count) -> None:
    table = play("duel", seed=7)
    keys = [ident.public for ident in table.identities]
    raw = next(decode(r)[1] for r in table.transcripts[0] if decode(r)[0] == "msg")
    assert open_envelope(raw, keys).author == 0  # held, and remembered
    with pytest.raises(MessageError, match="forged"):
        open_envelope(raw, keys[::-1])  # the same bytes and signature, under the other peer's key
    # Another match, of the same players: the signature holds, the match does not.
    other = play("duel", seed=7, salt=b"another match".ljust(32, b"."))
    assert [ident.public for ident in other.identities] == keys
    later = [decode(r)[1] for r in table.transcripts[0] if decode(r)[0] == "msg"][2]
    assert open_envelope(later, keys)  # held, and remembered
    observer = Session(keys=keys, me=None)
    observer.receive(next(decode(r)[1] for r in other.transcripts[0] if decode(r)[0] == "msg"))
    events = observer.receive(later)
    assert any(isinstance(event, Rejected) and "another match" in event.reason for event in events), events
    # The same message twice in its own match: the second is a replay.
    observer = Session(keys=keys, me=None)
    assert not any(isinstance(event, Rejected) for event in observer.receive(raw))
    assert any(isinstance(event, Rejected) and "replayed" in event.reason for event in observer.receive(raw))


def test_the_other_encoding_of_a_signature_that_held_is_refused(count: Count) -> None:
    # Ed25519's S and S + L verify alike by RFC 8032's letter; libsodium refuses the second
    # (SPEC section 5), and a memo of the first must not let it by.
    order = 2**252 + 27742317777372353535851937790883648493
    signer = Identity.from_seed(b"\x03" * 32)
    signature = signer.sign(b"some bytes")
    assert verify(signer.public, signature, b"some bytes")
    s = int.from_bytes(signature[32:], "little")
    malleated = signature[:32] + (s + order).to_bytes(32, "little")
    assert not verify(signer.public, malleated, b"some bytes")
    assert count.calls == 2
