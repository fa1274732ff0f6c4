"""Regression tests for holes a review found: well-signed but malicious content must be refused
or convicted, never crash the honest side, and honest matches must always finish."""

from __future__ import annotations

from typing import Any

from p2pgenius.protocol.session import Fault, Rejected

from .harness import play
from .test_attacks import SEED, attacked


def refused_or_convicted(table: Any, honest: int) -> bool:
    return any(isinstance(e, Rejected | Fault) for e in table.events[honest])


def test_a_commitment_where_nothing_is_committed_is_refused() -> None:
    table = attacked("magic-square", 1, "act", lambda b: ["commit", b[1], b[2], bytes(32)])
    assert refused_or_convicted(table, 0)


def test_a_forfeit_of_a_seat_that_owes_nothing_is_refused() -> None:
    table = attacked("duel", 1, "hash", lambda b: ["forfeit", 999, 0, "no answer"], host_seats=[0])
    assert not any(isinstance(e, Fault) and e.kind == "forfeit" for e in table.events[0])
    assert any(isinstance(e, Rejected) and "here and answering" in e.reason for e in table.events[0])


def test_a_malformed_blind_claim_is_refused_not_raised() -> None:
    table = attacked("duel", 1, "commit", lambda b: ["blind", b[1], 0, {"next": ["x"]}], host_seats=[0])
    assert refused_or_convicted(table, 0)


def test_a_malformed_audit_opening_is_refused_not_raised() -> None:
    table = attacked(
        "hornswoggle", 1, "audit", lambda b: ["audit", [[0, 99, {}, bytes(32)]]], deterministic=True
    )
    assert refused_or_convicted(table, 0)


def test_terms_with_nonsense_fields_are_refused_not_raised() -> None:
    import hashlib

    from p2pgenius.canonical import decode, encode
    from p2pgenius.protocol.messages import seal
    from p2pgenius.protocol.session import MATCH_DOMAIN

    from .test_attacks import identity

    def odd_terms(author: int, to: int, raw: bytes) -> list[bytes]:
        del to
        body = decode(raw)[5]
        if body[0] != "terms":
            return [raw]
        terms = dict(body[1])
        terms["game"] = ["duel"]
        match_id = hashlib.sha256(MATCH_DOMAIN + encode(terms)).digest()
        return [seal(identity(author), match_id, author, 0, decode(raw)[4], ["terms", terms])]

    table = play("duel", seed=SEED, tamper=odd_terms)
    assert any(isinstance(e, Rejected) for e in table.events[1])


def test_a_duel_that_ends_during_a_blindness_finishes_for_both() -> None:
    from .test_blindness import P0, P1, Script

    table = play("duel", bots=[Script(P0[:6] + ["PP"]), Script(P1)], max_rounds=200)
    assert table.faults() == []
    outcomes = table.outcomes()
    assert outcomes[0] is not None
    assert outcomes[0] == outcomes[1]
