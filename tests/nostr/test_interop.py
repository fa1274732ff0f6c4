"""Our events and NIP-44 payloads against an independent implementation: rust-nostr's (the
``nostr-sdk`` wheel of the test extra). Each side reads and checks what the other made."""

from __future__ import annotations

from typing import Any, Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.protocol import nostr
from p2pgenius.protocol.nostr import Draft, SecretKey
from tests.nostr.relays import local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=local_relay_missing() or "")

OURS: Final = SecretKey((51).to_bytes(32, "big"))
THEIRS: Final = SecretKey((52).to_bytes(32, "big"))
TEXT: Final = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=300)
"""Text Rust can hold (no lone surrogate)."""


def sdk() -> Any:
    import nostr_sdk

    return nostr_sdk


def their_keys() -> Any:
    n = sdk()
    return n.Keys(n.SecretKey.from_bytes(THEIRS.secret))


@settings(max_examples=40)
@given(content=TEXT, tag=TEXT, created_at=st.integers(0, 2**32), kind=st.integers(0, 65535))
def test_their_events_pass_our_checks(content: str, tag: str, created_at: int, kind: int) -> None:
    n = sdk()
    builder = n.EventBuilder(n.Kind(kind), content).tags([n.Tag.parse(["t", tag])])
    theirs = builder.custom_created_at(n.Timestamp.from_secs(created_at)).finalize(their_keys())
    event = nostr.parse_event(nostr.read_json(theirs.as_json()))
    assert (event.id, event.content, event.tags) == (theirs.id().to_hex(), content, (("t", tag),))
    assert event.pubkey == THEIRS.public.hex()


@settings(max_examples=40)
@given(content=TEXT, tag=TEXT, created_at=st.integers(0, 2**32), kind=st.integers(0, 65535))
def test_our_events_pass_theirs(content: str, tag: str, created_at: int, kind: int) -> None:
    ours = nostr.sign_event(OURS, Draft(created_at, kind, (("p", tag),), content), bytes(32))
    theirs = sdk().Event.from_json(nostr.write_json(ours.to_json()))
    assert theirs.verify() and theirs.id().to_hex() == ours.id


@settings(max_examples=40)
@given(plaintext=TEXT, nonce=st.binary(min_size=32, max_size=32))
def test_nip44_payloads_open_on_either_side(plaintext: str, nonce: bytes) -> None:
    n = sdk()
    keys = their_keys()
    payload = nostr.encrypt(plaintext, nostr.conversation_key(OURS, THEIRS.public), nonce)
    assert keys.nip44_decrypt(n.PublicKey.parse(OURS.public.hex()), payload) == plaintext
    back = keys.nip44_encrypt(n.PublicKey.parse(OURS.public.hex()), plaintext)
    assert nostr.decrypt(back, nostr.conversation_key(OURS, THEIRS.public)) == plaintext
