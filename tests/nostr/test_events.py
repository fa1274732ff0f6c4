"""NIP-01 events: the serialisation, ids and signatures, and every way a relay's event is refused."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgenius.protocol import nostr
from p2pgenius.protocol.nostr import Draft, Event, NostrError, SecretKey

ALICE: Final = SecretKey((7).to_bytes(32, "big"))
BOB: Final = SecretKey((11).to_bytes(32, "big"))
AUX: Final = bytes(range(32))


def an_event(content: str = "hello", tags: tuple[tuple[str, ...], ...] = (("t", "p2pgenius"),)) -> Event:
    return nostr.sign_event(ALICE, Draft(1_700_000_000, 1059, tags, content), AUX)


def wire(event: Event, **changes: Any) -> dict[str, Any]:
    value = event.to_json()
    value.update(changes)
    return value


def test_the_serialisation_is_nip01s_to_the_byte() -> None:
    # Written out by hand from NIP-01: no spaces, the seven escapes, other characters verbatim.
    pubkey = "ab" * 32
    text = nostr.serialise(pubkey, 1, 2, (("p", "x\ty"),), 'a\n"\\\r\t\b\f\x01é🦄\u2028\x7f')
    expected = f'[0,"{pubkey}",1,2,[["p","x\\ty"]],"a\\n\\"\\\\\\r\\t\\b\\f\\u0001é🦄\u2028\x7f"]'
    assert text == expected.encode("utf-8")
    assert (
        nostr.event_id(pubkey, 1, 2, (("p", "x\ty"),), "")
        == hashlib.sha256(f'[0,"{pubkey}",1,2,[["p","x\\ty"]],""]'.encode()).hexdigest()
    )


def valid_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@given(st.text().filter(valid_unicode))
def test_strings_serialise_as_a_json_encoder_writes_them_unescaped(text: str) -> None:
    # JSON.stringify, serde_json and Python's json agree on this form; a lone surrogate has none.
    assert nostr.json_string(text) == json.dumps(text, ensure_ascii=False)


@given(
    content=st.text(max_size=200),
    tags=st.lists(st.lists(st.text(max_size=20), min_size=1, max_size=4), max_size=5),
    created_at=st.integers(0, nostr.MAX_CREATED_AT),
    kind=st.integers(0, nostr.MAX_KIND),
)
def test_a_signed_event_survives_the_wire(
    content: str, tags: list[list[str]], created_at: int, kind: int
) -> None:
    if any(not valid_unicode(text) for text in [content, *(item for tag in tags for item in tag)]):
        with pytest.raises(NostrError, match="surrogate"):
            nostr.sign_event(ALICE, Draft.of(created_at, kind, tags, content), AUX)
        return
    event = nostr.sign_event(ALICE, Draft.of(created_at, kind, tags, content), AUX)
    text = nostr.write_json(event.to_json())
    assert nostr.parse_event(nostr.read_json(text)) == event
    assert event.pubkey == ALICE.public.hex()


def test_keys_and_signatures() -> None:
    # BIP-340's first test vector: secret key 3, its x-only key and (with zero auxiliary
    # randomness) its signature of the zero message.
    three = SecretKey((3).to_bytes(32, "big"))
    assert three.public.hex() == "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
    signature = three.sign(bytes(32), bytes(32))
    assert signature.hex().upper() == (
        "E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA8215"
        "25F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0"
    )
    assert nostr.verify_signature(three.public, bytes(32), signature)
    assert not nostr.verify_signature(three.public, bytes(31) + b"\x01", signature)
    assert not nostr.verify_signature(bytes(32), bytes(32), signature)  # not a point


def test_a_secret_key_does_not_show_itself() -> None:
    assert ALICE.secret.hex() not in repr(ALICE) and "07" not in repr(ALICE)


@pytest.mark.parametrize("secret", [bytes(32), b"\xff" * 32, bytes(31), (nostr._ORDER).to_bytes(32, "big")])
def test_secret_keys_out_of_range_are_refused(secret: bytes) -> None:
    with pytest.raises(NostrError, match="secret key is 32 bytes"):
        SecretKey(secret)


def test_a_conversation_key_is_the_same_from_either_side() -> None:
    assert nostr.conversation_key(ALICE, BOB.public) == nostr.conversation_key(BOB, ALICE.public)
    payload = nostr.encrypt("move 7", nostr.conversation_key(ALICE, BOB.public), AUX)
    assert nostr.decrypt(payload, nostr.conversation_key(BOB, ALICE.public)) == "move 7"
    with pytest.raises(NostrError, match="invalid MAC"):
        nostr.decrypt(payload, nostr.conversation_key(ALICE, ALICE.public))


REFUSED: Final[list[tuple[str, Any, str]]] = [
    ("not an object", ["EVENT"], "is a JSON object"),
    ("a field missing", "drop:sig", "seven fields"),
    ("a field more", "add:seen_on", "seven fields"),
    ("id upper case", "id:upper", "id is 64 lowercase hex"),
    ("id short", ("id", "ab"), "id is 64 lowercase hex"),
    ("sig short", ("sig", "00"), "signature is 128 lowercase hex"),
    ("pubkey a number", ("pubkey", 5), "pubkey is 64 lowercase hex"),
    ("created_at a float", ("created_at", 1.0), "created_at is a whole number"),
    ("created_at a bool", ("created_at", True), "created_at is a whole number"),
    ("created_at negative", ("created_at", -1), "created_at is a whole number"),
    ("created_at huge", ("created_at", 2**64), "created_at is a whole number"),
    ("kind too big", ("kind", 65536), "kind is a whole number"),
    ("kind a string", ("kind", "1"), "kind is a whole number"),
    ("content a list", ("content", ["x"]), "content is a string"),
    ("content too long", ("content", "x" * (nostr.MAX_CONTENT_CHARS + 1)), "content is a string"),
    ("content a lone surrogate", ("content", "\ud800"), "lone surrogate"),
    ("tags an object", ("tags", {}), "tags are a list"),
    ("too many tags", ("tags", [["t"]] * (nostr.MAX_TAGS + 1)), "tags are a list"),
    ("an empty tag", ("tags", [[]]), "a tag is a list of 1"),
    ("a tag of a number", ("tags", [["t", 1]]), "a tag's items are strings"),
    ("a null in a tag", ("tags", [["t", None]]), "a tag's items are strings"),
    ("a tag too long", ("tags", [["t", "x" * 1025]]), "a tag's items are strings"),
    ("content changed", ("content", "hello!"), "id is not the hash"),
    ("tags changed", ("tags", []), "id is not the hash"),
    ("signature of another", "sig:other", "signature is not its author's"),
    ("pubkey swapped", "pubkey:bob", "id is not the hash"),
]


def forged(how: Any) -> object:
    """The event of :func:`an_event`, changed as ``how`` says."""
    event = an_event()
    value: dict[str, Any] = wire(event)
    if isinstance(how, tuple):
        value[how[0]] = how[1]
    elif how == "drop:sig":
        del value["sig"]
    elif how == "add:seen_on":
        value["seen_on"] = "wss://x"
    elif how == "id:upper":
        value["id"] = event.id.upper()
    elif how == "sig:other":
        value["sig"] = an_event("other").sig
    elif how == "pubkey:bob":
        value["pubkey"] = BOB.public.hex()
    else:
        return how
    return value


@pytest.mark.parametrize(("how", "reason"), [(h, r) for _, h, r in REFUSED], ids=[n for n, _, _ in REFUSED])
def test_every_malformed_or_forged_event_is_refused_with_one_line(how: Any, reason: str) -> None:
    with pytest.raises(NostrError, match=reason) as caught:
        nostr.parse_event(forged(how))
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_a_valid_signature_on_a_pubkey_off_the_curve_is_refused() -> None:
    value = wire(an_event())
    value["pubkey"] = "00" * 32  # x = 0 is on no point of secp256k1
    value["id"] = nostr.event_id(
        value["pubkey"], value["created_at"], value["kind"], (("t", "p2pgenius"),), "hello"
    )
    with pytest.raises(NostrError, match="signature is not its author's"):
        nostr.parse_event(value)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), st.lists))
def test_no_json_value_crashes_the_event_parser(value: object) -> None:
    with pytest.raises(NostrError):
        nostr.parse_event(value)


@pytest.mark.parametrize(
    "text",
    ["", "[", "NaN", "[Infinity]", '{"a":1,"a":2}', "[" * 100_000 + "]" * 100_000, "1" * 5000, b"\xff"],
)
def test_strict_json_refuses_what_a_relay_should_not_send(text: str | bytes) -> None:
    with pytest.raises(NostrError, match="not JSON"):
        nostr.read_json(text)


def test_sign_refuses_bad_randomness() -> None:
    with pytest.raises(NostrError, match="32 random bytes"):
        nostr.sign_event(ALICE, Draft(1, 1, (), "x"), b"short")


@given(st.text(min_size=1, max_size=100).filter(valid_unicode), st.data())
def test_any_byte_of_a_payload_changed_is_refused(plaintext: str, data: st.DataObject) -> None:
    key = nostr.conversation_key(ALICE, BOB.public)
    raw = bytearray(base64.b64decode(nostr.encrypt(plaintext, key, AUX)))
    where = data.draw(st.integers(0, len(raw) - 1))
    raw[where] ^= data.draw(st.integers(1, 255))
    with pytest.raises(NostrError, match=r"version|MAC"):
        nostr.decrypt(base64.b64encode(bytes(raw)).decode(), key)


def test_a_payload_in_other_than_canonical_base64_is_refused() -> None:
    key = nostr.conversation_key(ALICE, BOB.public)
    payload = nostr.encrypt("x" * 40, key, AUX)  # (131 bytes: base64 ends in "=")
    assert payload.endswith("=") and not payload.endswith("==")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    loose = payload[:-2] + alphabet[alphabet.index(payload[-2]) ^ 1] + "="  # (a bit the decoder ignores)
    assert base64.b64decode(loose) == base64.b64decode(payload)
    for other in (loose, payload.rstrip("="), payload + "==", payload[:-2] + "\n" + payload[-2:], "é" * 200):
        with pytest.raises(NostrError, match=r"base64|size"):
            nostr.decrypt(other, key)
    with pytest.raises(NostrError, match="invalid size"):
        nostr.decrypt("A" * (nostr.MAX_PAYLOAD_CHARS + 4), key)
