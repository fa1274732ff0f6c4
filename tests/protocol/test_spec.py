"""protocol/SPEC.md's tables and worked examples are the code's."""

from __future__ import annotations

import hashlib
from dataclasses import fields
from pathlib import Path

from p2pgenius import __version__
from p2pgenius.canonical import encode
from p2pgenius.games.catalog import names
from p2pgenius.games.registry import engine_fingerprint, get_spec
from p2pgenius.protocol.bodies import KINDS

SPEC = Path(__file__).parents[2] / "protocol" / "SPEC.md"
NAMES = {"int": "int", "bytes": "bin", "dict[str, Any]": "map", "str": "str", "list[Any]": "array"}


def between(start: str, end: str) -> str:
    text = SPEC.read_text(encoding="utf-8")
    return text.split(start)[1].split(end)[0]


def rows(table: str) -> list[list[str]]:
    """The cells of a markdown table's body rows (backticks stripped)."""
    return [
        [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        for line in table.strip().splitlines()[2:]
    ]


def test_the_spec_lists_every_message_kind_with_its_field_types() -> None:
    table = between("<!-- message-table -->", "<!-- /message-table -->")
    cells = [line.split("|")[1:3] for line in table.strip().splitlines()[2:]]
    documented = {kind.strip().strip("`"): fields.strip() for kind, fields in cells}
    expected = {kind: ", ".join(NAMES[str(f.type)] for f in fields(cls)) for kind, cls in KINDS.items()}
    assert documented == expected


def test_the_spec_gives_each_games_engine_fingerprint_as_the_code_computes_it() -> None:
    documented = {
        game: (int(version), package, encoded.replace(" ", ""), engine)
        for game, version, package, encoded, engine in rows(
            between("<!-- engine-fingerprints -->", "<!-- /engine-fingerprints -->")
        )
    }
    expected = {}
    for game in names():
        version = get_spec(game).rules_version
        encoded = encode([game, version, __version__])
        # The formula as the SPEC states it, computed here, and the code's own fingerprint.
        assert hashlib.sha256(encoded).digest()[:16].hex() == engine_fingerprint(game)
        expected[game] = (version, __version__, encoded.hex(), engine_fingerprint(game))
    assert documented == expected


def test_the_spec_lists_every_earlier_rules_version_an_observer_still_reads() -> None:
    documented = {
        (game, int(version)): (package, engine)
        for game, version, package, engine, _how in rows(
            between("<!-- older-engines -->", "<!-- /older-engines -->")
        )
    }
    expected = {
        (game, version): (__version__, engine_fingerprint(game, version))
        for game in names()
        for version in get_spec(game).older_engines
    }
    assert documented == expected
    for game, version in expected:
        # An earlier version is earlier, and its engine is a different one of the same game.
        spec = get_spec(game)
        assert version < spec.rules_version and spec.older_engines[version] is not spec.engine
        assert spec.older_engines[version].name == game


def test_the_key_order_example_is_the_canonical_encoding() -> None:
    section = between("## 3. Encoding", "## 4. The channel")
    assert "`82 a2 61 61 02 a1 62 01`" in section
    assert encode({"b": 1, "aa": 2}).hex(" ") == "82 a2 61 61 02 a1 62 01"
    terms_keys = "claims, engine, game, groups, names, options, peers, salt, setup"
    assert f"`{terms_keys}`" in section.replace("\n  ", " ")
    keys = terms_keys.split(", ")
    # Whatever order a map is built in, its keys are written in exactly the order the SPEC gives.
    written = b"\x89" + b"".join(encode(key) + b"\x00" for key in keys)
    assert encode(dict.fromkeys(reversed(keys), 0)) == written


def test_the_spec_lists_everything_owed_as_the_session_reads_it() -> None:
    from p2pgenius.protocol.session.debts import OBLIGATIONS

    documented = rows(between("<!-- owed-table -->", "<!-- /owed-table -->"))
    expected = [
        [
            o.name,
            o.owed.replace("`", ""),
            o.by,
            o.due,
            o.deadline,
            o.answer.replace("`", ""),
            "yes" if o.disputable else "no",
        ]
        for o in OBLIGATIONS
    ]
    assert [[cell.replace("`", "") for cell in row] for row in documented] == expected


def test_the_spec_lists_every_games_bot_levels_and_shows_an_unknown_one_by_its_name() -> None:
    from p2pgenius.bots.registry import level_words, levels
    from p2pgenius.net.events import PeerJoined
    from p2pgenius.net.lobby import bot_of
    from p2pgenius.net.lobby import level_words as lobby_words
    from p2pgenius.protocol.identity import fingerprint

    documented = rows(between("<!-- bot-levels -->", "<!-- /bot-levels -->"))
    expected = [
        [game, "`, `".join(levels(game)), ", ".join(level_words(game, level) for level in levels(game))]
        for game in names()
    ]
    assert documented == expected
    # A well-formed level no game has: shown as its name alone; a malformed one: no bot said.
    assert bot_of({"bot": "grandmaster"}) == "grandmaster"
    assert lobby_words("duel", "grandmaster") == "grandmaster"
    assert [bot_of({"bot": b}) for b in ("x" * 33, "a b", 7, "é")] == [None] * 4
    key = bytes(32)
    joined = PeerJoined("eve", key, lobby_words("duel", "grandmaster")).text
    assert joined == f"eve joined ({fingerprint(key)[:9]}), a bot: grandmaster"
    example = between("**Bot levels.**", "<!-- bot-levels -->") + between("<!-- /bot-levels -->", "## 4a. ")
    assert "`eve joined (ABCD-EFGH), a bot: grandmaster`" in example.replace("\n", " ")
