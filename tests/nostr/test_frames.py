"""NIP-01's client and relay messages: the frames we send, filters, and every relay frame read
into its type or refused, never raising."""

from __future__ import annotations

import json
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgenius.protocol import nostr
from p2pgenius.protocol.nostr import Draft, NostrError, SecretKey
from p2pgenius.protocol.nostr_frames import (
    Closed,
    EndOfStored,
    Filter,
    Flaw,
    Malformed,
    Notice,
    Ok,
    Received,
    close_message,
    event_message,
    matches_any,
    parse_relay_message,
    req_message,
)

KEY: Final = SecretKey((9).to_bytes(32, "big"))
OTHER: Final = SecretKey((10).to_bytes(32, "big"))
PEER: Final = "cd" * 32
EVENT: Final = nostr.sign_event(KEY, Draft(1000, 1059, (("p", PEER), ("t", "p2pgenius")), "x"), bytes(32))


def test_the_client_frames_are_nip01s() -> None:
    assert json.loads(event_message(EVENT)) == ["EVENT", EVENT.to_json()]
    wanted = Filter(kinds=(1059,), authors=(KEY.public.hex(),), tags={"p": (PEER,), "t": ("p2pgenius",)})
    assert json.loads(req_message("s1", [wanted, Filter(since=5, limit=10)])) == [
        "REQ",
        "s1",
        {"authors": [KEY.public.hex()], "kinds": [1059], "#p": [PEER], "#t": ["p2pgenius"]},
        {"since": 5, "limit": 10},
    ]
    assert close_message("s1") == '["CLOSE","s1"]'
    for bad in ("", "x" * 65):
        with pytest.raises(NostrError, match="subscription id"):
            close_message(bad)
    with pytest.raises(NostrError, match="one filter or more"):
        req_message("s1", [])


@pytest.mark.parametrize(
    ("wanted", "matches"),
    [
        (Filter(), True),
        (Filter(kinds=(1059, 1)), True),
        (Filter(kinds=(1,)), False),
        (Filter(authors=(OTHER.public.hex(),)), False),
        (Filter(ids=(EVENT.id,)), True),
        (Filter(tags={"p": (PEER, "ab" * 32)}), True),
        (Filter(tags={"p": ("ab" * 32,)}), False),
        (Filter(tags={"t": ("p2pgenius",), "p": (PEER,)}), True),
        (Filter(tags={"e": (EVENT.id,)}), False),
        (Filter(since=1000, until=1000), True),
        (Filter(since=1001), False),
        (Filter(until=999), False),
        (Filter(limit=1), True),
    ],
)
def test_filters_match_as_nip01_says(wanted: Filter, matches: bool) -> None:
    assert wanted.matches(EVENT) is matches
    assert matches_any([Filter(kinds=(7,)), wanted], EVENT) is matches


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"authors": ("AB" * 32,)}, "lowercase hex"),
        ({"ids": ()}, "1 to 256 values"),
        ({"kinds": (70000,)}, "kinds are whole numbers"),
        ({"tags": {"pp": ("x",)}}, "one letter"),
        ({"tags": {"p": ("not hex",)}}, "#p are 64 lowercase hex"),
        ({"since": -1}, "since is a whole number"),
        ({"limit": 1.5}, "limit is a whole number"),
    ],
)
def test_a_filter_nip01_does_not_allow_is_refused(fields: dict[str, object], reason: str) -> None:
    with pytest.raises(NostrError, match=reason):
        Filter(**fields)  # type: ignore[arg-type]


def test_each_relay_message_reads_into_its_type() -> None:
    event = EVENT.to_json()
    assert parse_relay_message(json.dumps(["EVENT", "s1", event])) == Received("s1", EVENT)
    assert parse_relay_message(json.dumps(["OK", EVENT.id, True, ""])) == Ok(EVENT.id, True, "")
    refused = parse_relay_message(json.dumps(["OK", EVENT.id, False, "rate-limited: slow down"]))
    assert isinstance(refused, Ok) and not refused.accepted and refused.reason == "rate-limited"
    assert parse_relay_message('["EOSE","s1"]') == EndOfStored("s1")
    assert parse_relay_message('["CLOSED","s1","error: shutting down"]') == Closed(
        "s1", "error: shutting down"
    )
    assert parse_relay_message(b'["NOTICE","hello"]') == Notice("hello")
    assert parse_relay_message(json.dumps(["NOTICE", "x" * 10_000])) == Notice("x" * 512)


FORGED_EVENT: Final = {**EVENT.to_json(), "content": "y"}
REFUSED: Final = [
    ("not json", "{", Flaw.NOT_JSON),
    ("nan", '["NOTICE", NaN]', Flaw.NOT_JSON),
    ("duplicate key", json.dumps(["EVENT", "s1", {}])[:-2] + '{"id":1,"id":2}]', Flaw.NOT_JSON),
    ("an object", "{}", Flaw.SHAPE),
    ("empty", "[]", Flaw.SHAPE),
    ("type a number", "[1]", Flaw.SHAPE),
    ("auth", '["AUTH","challenge"]', Flaw.UNKNOWN),
    ("count", '["COUNT","s1",{"count":1}]', Flaw.UNKNOWN),
    ("ok short", json.dumps(["OK", EVENT.id, True]), Flaw.SHAPE),
    ("ok 1 not true", json.dumps(["OK", EVENT.id, 1, ""]), Flaw.SHAPE),
    ("ok not an id", '["OK","abc",true,""]', Flaw.SHAPE),
    ("eose number", '["EOSE",1]', Flaw.SHAPE),
    ("eose empty id", '["EOSE",""]', Flaw.SHAPE),
    ("closed no message", '["CLOSED","s1"]', Flaw.SHAPE),
    ("notice extra", '["NOTICE","a","b"]', Flaw.SHAPE),
    ("event no subscription", json.dumps(["EVENT", EVENT.to_json()]), Flaw.SHAPE),
    ("event long subscription", json.dumps(["EVENT", "s" * 65, EVENT.to_json()]), Flaw.SHAPE),
    ("event forged", json.dumps(["EVENT", "s1", FORGED_EVENT]), Flaw.FORGED),
    ("event not an event", '["EVENT","s1",[]]', Flaw.FORGED),
]


@pytest.mark.parametrize(("text", "flaw"), [(t, f) for _, t, f in REFUSED], ids=[n for n, _, _ in REFUSED])
def test_each_bad_frame_is_refused_with_its_flaw(text: str, flaw: Flaw) -> None:
    found = parse_relay_message(text)
    assert isinstance(found, Malformed) and found.flaw is flaw, found
    assert "\n" not in found.reason


@given(st.one_of(st.text(), st.binary()))
def test_no_frame_makes_the_parser_raise(text: str | bytes) -> None:
    parse_relay_message(text)


@given(
    st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=70),
            lambda inner: (
                st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
            ),
            max_leaves=12,
        ),
        max_size=4,
    ),
    st.sampled_from(["EVENT", "OK", "EOSE", "CLOSED", "NOTICE"]),
)
def test_no_message_of_a_known_type_makes_the_parser_raise(rest: list[object], kind: str) -> None:
    parse_relay_message(json.dumps([kind, *rest]))
