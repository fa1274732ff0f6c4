"""protocol/SPEC.md's message table is the code's table."""

from __future__ import annotations

from pathlib import Path

from p2pgenius.protocol.messages import BODY_FIELDS

SPEC = Path(__file__).parents[2] / "protocol" / "SPEC.md"
NAMES = {int: "int", bytes: "bin", dict: "map", str: "str", list: "array"}


def test_the_spec_lists_every_message_kind_with_its_field_types() -> None:
    text = SPEC.read_text(encoding="utf-8")
    table = text.split("<!-- message-table -->")[1].split("<!-- /message-table -->")[0]
    rows = [line.split("|")[1:3] for line in table.strip().splitlines()[2:]]
    documented = {kind.strip().strip("`"): fields.strip() for kind, fields in rows}
    expected = {kind: ", ".join(NAMES[t] for t in types) for kind, types in BODY_FIELDS.items()}
    assert documented == expected
