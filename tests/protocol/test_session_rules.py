"""Promises beyond the game moves: chat, the fair coin flip, matching engines, and robustness to
any bytes a peer may send."""

from __future__ import annotations

import hashlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import decode, encode
from p2pgenius.protocol.channel import ChannelError, SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import seal
from p2pgenius.protocol.session import MATCH_DOMAIN, ChatReceived, Fault, Rejected, Session

from .harness import play
from .test_attacks import SEED, attacked, identity


def test_chat_travels_signed_outside_the_game_state() -> None:
    said: list[bool] = []

    def chatty(table: Any, peer: int, seat: int, action: Any) -> Any:
        if peer == 0 and not said:
            said.append(True)
            table.sessions[0].chat("nice square")
        return action

    table = play("magic-square", seed=3, before_submit=chatty)
    heard = [e for e in table.events[1] if isinstance(e, ChatReceived)]
    assert heard == [ChatReceived(0, "nice square")]
    assert table.faults() == []
    assert table.sessions[0].played.ending.my_hashes == table.sessions[1].played.ending.my_hashes


def test_a_coin_share_opened_to_another_value_is_cheating() -> None:
    table = attacked("duel", 1, "coin_reveal", lambda b: [b[0], bytes(32)])
    faults = [e for e in table.events[0] if isinstance(e, Fault)]
    assert faults
    assert (faults[0].kind, faults[0].peer) == ("cheat", 1)
    assert "coin" in faults[0].reason
    assert table.sessions[0].owner == ()  # no seat was ever dealt


def test_terms_for_another_rules_engine_are_refused_clearly() -> None:
    def other_engine(author: int, to: int, raw: bytes) -> list[bytes]:
        del to
        body = decode(raw)[5]
        if body[0] != "terms":
            return [raw]
        terms = dict(body[1])
        terms["engine"] = "0" * 32
        match_id = hashlib.sha256(MATCH_DOMAIN + encode(terms)).digest()
        return [seal(identity(author), match_id, author, 0, decode(raw)[4], ["terms", terms])]

    table = play("duel", seed=SEED, tamper=other_engine)
    refused = [e for e in table.events[1] if isinstance(e, Rejected)]
    assert refused
    assert "different duel rules engine" in refused[0].reason
    assert table.sessions[1].terms is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=5))
def test_any_bytes_from_a_peer_are_refused_never_raised(blobs: list[bytes]) -> None:
    keys = [Identity.from_seed(bytes([i]) * 32).public for i in range(2)]
    session = Session(keys=keys, me=0, identity=Identity.from_seed(bytes(32)))
    for blob in blobs:
        events = session.receive(blob)
        assert all(isinstance(e, Rejected) for e in events)
    assert session.fault is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=5))
def test_any_bytes_on_the_channel_are_a_channel_error_or_nothing(blobs: list[bytes]) -> None:
    channel = SecureChannel(initiator=False, identity=Identity.generate(), hello={"name": "x"})
    try:
        for blob in blobs:
            channel.receive_data(blob)
    except ChannelError:
        assert channel.broken is not None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_the_decoder_refuses_anything_non_canonical_without_crashing(blob: bytes) -> None:
    from p2pgenius.errors import EncodingError

    try:
        value = decode(blob)
    except EncodingError:
        return
    assert encode(value) == blob


def test_the_host_may_claim_its_seat_and_the_coin_deals_the_rest() -> None:
    for seed in range(4):
        table = play("duel", seed=seed, host_seats=[1])
        assert all(session.owner == (1, 0) for session in table.sessions)
        assert table.outcomes()[0] is not None
    table = play("hornswoggle", peers=4, seed=2, host_seats=[3])
    assert all(session.owner[3] == 0 for session in table.sessions)
    assert table.faults() == []
