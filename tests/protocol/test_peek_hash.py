"""``peek_hash``: the network layer's look at a message's body, beside the envelope code."""

from __future__ import annotations

from p2pgenius.canonical import encode
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import ZERO_HASH, peek_hash, seal

SIGNER = Identity.from_seed(b"\x07" * 32)
MATCH = b"\x01" * 32


def sealed(author: int, body: list[object]) -> bytes:
    return seal(SIGNER, MATCH, author, 0, [ZERO_HASH, ZERO_HASH], body)


def test_a_hash_message_gives_its_author_and_stage() -> None:
    assert peek_hash(sealed(1, ["hash", 4, b"\x02" * 32])) == (1, 4)
    assert peek_hash(sealed(0, ["hash", 0, b"\x02" * 32])) == (0, 0)


def test_any_other_message_or_junk_gives_none() -> None:
    assert peek_hash(sealed(1, ["chat", "gg"])) is None
    assert peek_hash(sealed(1, ["hash", "4", b"\x02" * 32])) is None  # (a stage that is no int)
    assert peek_hash(sealed(1, ["hash", True, b"\x02" * 32])) is None  # (nor a bool)
    assert peek_hash(sealed(-1, ["hash", 4, b"\x02" * 32])) is None  # (no such author)
    assert peek_hash(encode(["m", b"not an envelope"])) is None
    assert peek_hash(b"\xc1 not msgpack") is None
