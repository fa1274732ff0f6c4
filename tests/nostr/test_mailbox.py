"""A match's mailbox (protocol/SPEC.md, section 4e): a letter written by a player is read back by
whoever holds the mailbox secret, through a real relay too; nobody else reads it, and nobody, a
holder of the secret included, can make a letter in a player's name, nor move one under another
key. Every malformed letter is refused with one line."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgenius.canonical import Plain, encode
from p2pgenius.net import nostr_relay
from p2pgenius.protocol import mailbox
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.mailbox import LETTER_KIND, Mailbox, MailError, read, write
from p2pgenius.protocol.nostr import (
    Draft,
    Event,
    NostrError,
    conversation_key,
    decrypt,
    encrypt,
    parse_event,
    read_json,
    sign_event,
    write_json,
)
from p2pgenius.protocol.nostr_frames import Filter
from tests.nostr.relays import local_relay, local_relay_missing
from tests.patience import HANG_S

BOX: Final = Mailbox(bytes(range(32)))
ANN: Final = Identity.from_seed(b"\x0a" * 32)
BOB: Final = Identity.from_seed(b"\x0b" * 32)
NOW: Final = 1_780_000_000


def fresh(n: int) -> bytes:
    """96 bytes that stand for fresh random ones (a different ``n`` for every letter)."""
    return b"".join(bytes([n, part]) * 16 for part in range(3))


def relayed(event: Event) -> Event:
    """``event`` as a reader gets it from a relay: JSON, parsed and checked again."""
    return parse_event(read_json(write_json(event.to_json())))


def sealed(letter: Plain, n: int = 1, box: Mailbox = BOX) -> Event:
    """An event carrying ``letter`` (a plaintext, or a value to encode as one) to ``box``, as a
    letter is sealed."""
    sender = mailbox.secret_key(fresh(n)[:32])
    plaintext = letter if isinstance(letter, str) else base64.b64encode(encode(letter)).decode()
    content = encrypt(plaintext, conversation_key(sender, box.key.public), fresh(n)[32:64])
    return sign_event(sender, Draft.of(NOW, LETTER_KIND, [["p", box.address]], content), fresh(n)[64:])


def test_a_letter_is_read_back_by_the_mailbox_with_its_author_and_messages() -> None:
    event = relayed(write(BOX, ANN, [b"first", b"\x93\x01\x02\x03"], NOW, fresh(1)))
    assert event.kind == 1059 and event.tags == (("p", BOX.address),) and event.created_at == NOW
    letter = read(BOX, event)
    assert letter.author == ANN.public and letter.messages == (b"first", b"\x93\x01\x02\x03")
    assert event.pubkey != BOX.address and event.pubkey != write(BOX, ANN, [b"first"], NOW, fresh(2)).pubkey


@given(st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=8), st.integers(0, 255))
def test_any_messages_travel_whole_and_in_order(messages: list[bytes], n: int) -> None:
    assert read(BOX, relayed(write(BOX, BOB, messages, NOW + n, fresh(n)))).messages == tuple(messages)


def test_another_mailbox_reads_nothing_of_it() -> None:
    event = write(BOX, ANN, [b"secret move"], NOW, fresh(1))
    other = Mailbox(bytes(32))
    with pytest.raises(MailError, match="not a letter to this mailbox"):
        read(other, event)
    # Addressed to the other box, but sealed for this one: its payload does not open.
    with pytest.raises(NostrError, match="invalid MAC"):
        read(other, sealed_to_wrong_key(other))


def sealed_to_wrong_key(other: Mailbox) -> Event:
    sender = mailbox.secret_key(fresh(7)[:32])
    content = encrypt("x" * 40, conversation_key(sender, BOX.key.public), fresh(7)[32:64])
    return sign_event(sender, Draft.of(NOW, LETTER_KIND, [["p", other.address]], content), fresh(7)[64:])


def test_a_holder_of_the_secret_cannot_move_a_players_letter_under_another_key() -> None:
    # A spectator (or a relay that learned the secret) reads Ann's letter and sends its very
    # plaintext again, under a key of its own: the signature binds Ann's messages to her key.
    original = write(BOX, ANN, [b"ann's move"], NOW, fresh(1))
    plaintext = decrypt(original.content, conversation_key(BOX.key, bytes.fromhex(original.pubkey)))
    with pytest.raises(MailError, match="not signed by the identity it names"):
        read(BOX, sealed(plaintext, n=9))


def test_a_letter_in_a_players_name_not_signed_by_that_player_is_refused() -> None:
    sender = mailbox.secret_key(fresh(1)[:32]).public  # (the key sealed() sends it under)
    part = encode([mailbox.TAG, mailbox.VERSION, bytes.fromhex(BOX.address), sender, ANN.public, [b"m"]])
    assert (
        read(BOX, sealed([mailbox.TAG, mailbox.VERSION, ANN.public, [b"m"], ANN.sign(part)])).author
        == ANN.public
    )
    forged = [mailbox.TAG, mailbox.VERSION, ANN.public, [b"m"], BOB.sign(part)]  # Bob, in Ann's name
    with pytest.raises(MailError, match="not signed by the identity it names"):
        read(BOX, sealed(forged))


@pytest.mark.parametrize(
    ("letter", "why"),
    [
        ("not base64 at all!", "canonical base64"),
        (base64.b64encode(encode([mailbox.TAG, 1])).decode().rstrip("="), "canonical base64"),
        (base64.b64encode(b"\xc1").decode(), "canonical base64"),
        (["another-letter", 1, ANN.public, [b"m"], bytes(64)], "not a p2pgenius-letter of version 1"),
        ([mailbox.TAG, 2, ANN.public, [b"m"], bytes(64)], "not a p2pgenius-letter of version 1"),
        ([mailbox.TAG, True, ANN.public, [b"m"], bytes(64)], "not a p2pgenius-letter of version 1"),
        ([mailbox.TAG, 1, ANN.public[:31], [b"m"], bytes(64)], "a 32-byte key"),
        ([mailbox.TAG, 1, ANN.public, [], bytes(64)], "one message or more"),
        ([mailbox.TAG, 1, ANN.public, [b""], bytes(64)], "one message or more"),
        ([mailbox.TAG, 1, ANN.public, ["text"], bytes(64)], "one message or more"),
        ([mailbox.TAG, 1, ANN.public, [b"m"], "sig"], "signature bytes"),
    ],
)
def test_every_malformed_letter_is_refused_with_one_line(letter: Plain, why: str) -> None:
    with pytest.raises(MailError, match=why):
        read(BOX, sealed(letter))


def test_the_largest_letter_makes_an_event_public_relays_take() -> None:
    """Many public relays refuse an event over 64 kB: the largest letter's event stays under."""
    overhead = len(encode([mailbox.TAG, mailbox.VERSION, ANN.public, [b""], bytes(64)]))
    largest = write(BOX, ANN, [bytes(mailbox.MAX_LETTER_BYTES - overhead - 2)], NOW, fresh(1))
    assert len(write_json(largest.to_json()).encode()) < 65_536
    assert read(BOX, relayed(largest)).author == ANN.public


def test_what_cannot_be_a_letter_is_refused_when_written() -> None:
    with pytest.raises(MailError, match="96 random bytes"):
        write(BOX, ANN, [b"m"], NOW, bytes(32))
    with pytest.raises(MailError, match="one message or more"):
        write(BOX, ANN, [], NOW, fresh(1))
    with pytest.raises(MailError, match="send fewer messages"):
        write(BOX, ANN, [bytes(15_000), bytes(15_000)], NOW, fresh(1))
    with pytest.raises(MailError, match="a mailbox secret is 32 bytes"):
        Mailbox(b"short")


@pytest.fixture(scope="module")
def relay_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if (why := local_relay_missing()) is not None:
        pytest.skip(why)
    with local_relay(tmp_path_factory.mktemp("mailbox-relay")) as url:
        yield url


async def test_a_real_relay_keeps_letters_and_serves_them_by_the_mailbox_address(relay_url: str) -> None:
    letters = [
        write(BOX, ANN, [b"turn 1"], NOW, fresh(1)),
        write(BOX, BOB, [b"turn 1 too"], NOW + 5, fresh(2)),
    ]
    elsewhere = write(Mailbox(bytes(32)), ANN, [b"another match"], NOW, fresh(3))
    async with nostr_relay.connect(relay_url, timeout_s=HANG_S) as relay:
        for event in [*letters, elsewhere]:
            assert (await relay.publish(event, timeout_s=HANG_S)).accepted
        fetched = await relay.fetch(
            [Filter(kinds=(LETTER_KIND,), tags={"p": (BOX.address,)})], timeout_s=HANG_S
        )
    assert fetched.complete
    read_back = sorted((read(BOX, event).author, read(BOX, event).messages) for event in fetched.events)
    assert read_back == sorted([(ANN.public, (b"turn 1",)), (BOB.public, (b"turn 1 too",))])


REFUSED_BY: Final = {
    "p tag": "not a letter to this mailbox",
    "kind": "not a letter to this mailbox",
    "seal": "invalid MAC",
    "base64": "not canonical base64",
    "shape": "(version 1|one message or more)",
    "signature": "not signed by the identity it names",
}


def test_every_refused_letter_of_the_vectors_is_refused_at_its_step() -> None:
    vector = json.loads((Path(__file__).parents[2] / "protocol" / "vectors" / "mailbox.json").read_text())
    box = Mailbox(bytes.fromhex(vector["secret"]))
    assert {case["step"] for case in vector["refused"]} == set(REFUSED_BY)
    for case in vector["refused"]:
        with pytest.raises(NostrError, match=REFUSED_BY[case["step"]]):
            read(box, parse_event(case["event"]))


@given(st.lists(st.binary(min_size=1, max_size=12_000), min_size=1, max_size=12))
def test_messages_go_in_as_few_letters_as_fit_in_order(messages: list[bytes]) -> None:
    letters = mailbox.in_letters(messages)
    assert [m for letter in letters for m in letter] == messages
    for n, letter in enumerate(letters):
        assert read(BOX, write(BOX, ANN, list(letter), NOW, fresh(n % 256))).messages == letter
        if n + 1 < len(letters):  # (full: the next letter's first message would not have fit)
            with pytest.raises(MailError, match="send fewer messages"):
                write(BOX, ANN, [*letter, letters[n + 1][0]], NOW, fresh(0))


def test_a_message_too_large_for_any_letter_is_refused_before_anything_is_written() -> None:
    with pytest.raises(MailError, match="a message of 40000 bytes is too large for a letter"):
        mailbox.in_letters([b"small", bytes(40_000)])
    assert mailbox.in_letters([]) == []
