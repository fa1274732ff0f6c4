"""A fault's kind is a FaultKind member however it was built, and its string on the record."""

from __future__ import annotations

import pytest

from p2pgenius.canonical import decode, encode
from p2pgenius.protocol.events import Fault, FaultKind


@pytest.mark.parametrize("kind", list(FaultKind))
def test_a_kind_given_as_its_string_becomes_its_member(kind: FaultKind) -> None:
    fault = Fault(str(kind), 1, 3, "why", {})  # type: ignore[arg-type]
    assert fault.kind is kind


def test_a_fault_of_no_known_kind_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match="tilt"):
        Fault("tilt", 1, 3, "why", {})  # type: ignore[arg-type]


def test_the_record_holds_the_kind_as_its_plain_string() -> None:
    fault = Fault(FaultKind.DESYNC, 1, 3, "why", {})
    assert encode(["fault", fault.kind]) == encode(["fault", "desync"])
    assert decode(encode([fault.kind])) == ["desync"] and f"{fault.kind}" == "desync"
