"""protocol/games.md stays true: its games block, JSON Schemas, stage tables and worked examples
are read out of the document and checked against the registry, the parsers and many seeded
matches of every game, played stage by stage as protocol/SPEC.md plays them.

jsonschema is not a dependency, so the subset of JSON Schema (draft 2020-12) that the document
uses is validated here; a keyword outside that subset fails the test rather than being ignored.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import random
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest

from p2pgenius.bots import make_bot
from p2pgenius.canonical import encode
from p2pgenius.errors import IllegalActionError, P2PGeniusError
from p2pgenius.games.base import state_hash
from p2pgenius.games.duel.actions import Gestures
from p2pgenius.games.duel.engine import target_choices
from p2pgenius.games.duel.spells import HANDS, completions
from p2pgenius.games.registry import engine_fingerprint, get_game, get_spec, names

DOC = Path(__file__).parents[2] / "protocol" / "games.md"
TEXT = DOC.read_text(encoding="utf-8")
GAMES = names()  # every game in the table
PARTS = ("options", "setup", "action", "state", "view")

# -- reading the document --------------------------------------------------------------------

_BLOCK = re.compile(r"<!-- (\w+)(?:: ([\w/-]+))? -->\n```\w*\n(.*?)\n```", re.S)
_TABLE = re.compile(r"<!-- stages: ([\w-]+) -->\n((?:\|.*\n)+)")


def blocks() -> dict[tuple[str, str], str]:
    """Every marked fenced block: (marker, name) -> its text."""
    found: dict[tuple[str, str], str] = {}
    for match in _BLOCK.finditer(TEXT):
        key = (match[1], match[2] or "")
        assert key not in found, f"games.md marks two blocks {key}"
        found[key] = match[3]
    return found


def block_json(marker: str, name: str = "") -> Any:
    return json.loads(blocks()[(marker, name)])


@functools.cache
def schemas() -> Schemas:
    """Every schema of the document, by its $id."""
    found: dict[str, Any] = {}
    for (marker, name), text in blocks().items():
        if marker != "schema":
            continue
        schema = json.loads(text)
        game, part = name.split("/")
        assert schema.get("$id") == f"urn:p2pgenius:{game}:{part}", f"{name}: $id"
        assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema", f"{name}: $schema"
        found[schema["$id"]] = schema
    return Schemas(found)


@dataclass(frozen=True)
class Row:
    """One row of a stage table."""

    waiting: str
    optional: str
    travels: dict[str, str]


def stage_table(game: str) -> dict[str, Row]:
    """The stage table of ``game``: stage -> its row."""
    tables = {match[1]: match[2] for match in _TABLE.finditer(TEXT)}
    assert game in tables, f"protocol/games.md has no stage table for {game!r} (its section is missing)"
    lines = tables[game].strip().splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header == ["stage", "waiting on", "optional", "travels as"], header
    rows: dict[str, Row] = {}
    for line in lines[2:]:
        cells = dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")), strict=True))
        travels: dict[str, str] = {}
        for part in cells["travels as"].split(";"):
            if "→" in part:
                before, after = part.split("→")
                for kind in re.findall(r"`(\w+)`", before):
                    travels[kind] = re.findall(r"`(\w+)`", after)[0]
        stage = cells["stage"].strip("`")
        assert stage not in rows, f"{game}: two rows for {stage}"
        rows[stage] = Row(cells["waiting on"].strip("`"), cells["optional"].strip("`"), travels)
    return rows


def seats_named(expr: str, public: dict[str, Any], seats: int) -> list[int]:
    """The seats that the notation of games.md section 3 names in ``public``."""
    expr = expr.strip()
    if " - " in expr:
        left, right = expr.split(" - ", 1)
        taken = seats_named(right, public, seats)
        return [s for s in seats_named(left, public, seats) if s not in taken]
    if re.fullmatch(r"\[[\d, ]*\]", expr):
        return list(json.loads(expr))
    if match := re.fullmatch(r"\[(\w+)\]", expr):
        value = public[match[1]]
        return [] if value is None else [value]
    if match := re.fullmatch(r"(\w+)\[\]\.(\w+)", expr):
        return sorted({item[match[2]] for item in public[match[1]]})
    if match := re.fullmatch(r"\{s : (.*)\}", expr):
        conditions = [c.strip() for c in match[1].split(",")]
        return [s for s in range(seats) if all(_holds(c, public, s) for c in conditions)]
    if re.fullmatch(r"\w+", expr):
        return list(public[expr])
    raise AssertionError(f"games.md uses a seat notation this test does not know: {expr!r}")


def _holds(condition: str, public: dict[str, Any], seat: int) -> bool:
    if match := re.fullmatch(r"not (\w+)\[s\]", condition):
        return public[match[1]][seat] is False
    if match := re.fullmatch(r"(\w+)\[s\] = \[\]", condition):
        return bool(public[match[1]][seat] == [])
    raise AssertionError(f"games.md uses a condition this test does not know: {condition!r}")


# -- the subset of JSON Schema the document uses ---------------------------------------------

ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "default", "$defs"})
KEYWORDS = ANNOTATIONS | {
    "$ref",
    "type",
    "enum",
    "const",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "minProperties",
    "dependentRequired",
    "items",
    "minItems",
    "maxItems",
    "contains",
    "minContains",
    "maxContains",
    "minimum",
    "maximum",
    "pattern",
    "oneOf",
}
TYPES: dict[str, Callable[[Any], bool]] = {
    "null": lambda v: v is None,
    "boolean": lambda v: type(v) is bool,
    "integer": lambda v: type(v) is int,
    "string": lambda v: type(v) is str,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
}


def same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, and lists and maps compare item by item."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def _search(pattern: str, text: str) -> bool:
    # ECMA-262's "$" (without the m flag) matches only at the very end; Python's also before a
    # final newline.
    return re.search(pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern, text) is not None


class Schemas:
    """Schemas by $id, and validation against them."""

    def __init__(self, by_id: dict[str, Any]) -> None:
        self.by_id = by_id
        self.resolved: dict[tuple[str, int], tuple[Any, Any]] = {}
        self.known: dict[int, Any] = {}  # checked schemas, kept alive so that no id is reused

    def __getitem__(self, schema_id: str) -> Any:
        return self.by_id[schema_id]

    def errors(self, schema_id: str, value: Any) -> list[str]:
        return self.check(self.by_id[schema_id], value, self.by_id[schema_id], "$")

    def valid(self, schema_id: str, value: Any) -> bool:
        return not self.errors(schema_id, value)

    def resolve(self, ref: str, root: Any) -> tuple[Any, Any]:
        key = (ref, id(root))
        if key not in self.resolved:
            base, _, pointer = ref.partition("#")
            found = self.by_id[base] if base else root
            target = found
            for token in [t for t in pointer.split("/") if t]:
                target = target[token.replace("~1", "/").replace("~0", "~")]
            self.resolved[key] = (target, found)
        return self.resolved[key]

    def check(self, schema: Any, value: Any, root: Any, at: str) -> list[str]:
        if schema is False:
            return [f"{at}: nothing is allowed here"]
        if schema is True or not schema:
            return []
        if id(schema) not in self.known:
            unknown = set(schema) - KEYWORDS
            assert not unknown, f"games.md uses JSON Schema keywords this test does not check: {unknown}"
            self.known[id(schema)] = schema
        errors: list[str] = []
        if "$ref" in schema:
            target, target_root = self.resolve(schema["$ref"], root)
            errors += self.check(target, value, target_root, at)
        if "type" in schema:
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(TYPES[kind](value) for kind in kinds):
                return [*errors, f"{at}: {value!r} is not of type {schema['type']}"]
        if "enum" in schema and not any(same(value, option) for option in schema["enum"]):
            errors.append(f"{at}: {value!r} is not one of {schema['enum']}")
        if "const" in schema and not same(value, schema["const"]):
            errors.append(f"{at}: {value!r} is not {schema['const']!r}")
        if type(value) is int:
            if "minimum" in schema and value < schema["minimum"]:
                errors.append(f"{at}: {value} < {schema['minimum']}")
            if "maximum" in schema and value > schema["maximum"]:
                errors.append(f"{at}: {value} > {schema['maximum']}")
        if type(value) is str and "pattern" in schema and not _search(schema["pattern"], value):
            errors.append(f"{at}: {value!r} does not match {schema['pattern']}")
        if type(value) is list:
            errors += self._check_array(schema, value, root, at)
        if type(value) is dict:
            errors += self._check_object(schema, value, root, at)
        if "oneOf" in schema:
            matching = [b for b in schema["oneOf"] if not self.check(b, value, root, at)]
            if len(matching) != 1:
                errors.append(f"{at}: {value!r} matches {len(matching)} of the oneOf branches, not 1")
        return errors

    def _check_array(self, schema: Any, value: list[Any], root: Any, at: str) -> list[str]:
        errors: list[str] = []
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{at}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{at}: more than {schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                errors += self.check(schema["items"], item, root, f"{at}[{index}]")
        if "contains" in schema:
            count = sum(1 for item in value if not self.check(schema["contains"], item, root, at))
            if count < schema.get("minContains", 1) or count > schema.get("maxContains", len(value)):
                errors.append(f"{at}: {count} items match contains")
        return errors

    def _check_object(self, schema: Any, value: dict[str, Any], root: Any, at: str) -> list[str]:
        errors = [f"{at}: no {key!r}" for key in schema.get("required", ()) if key not in value]
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            errors.append(f"{at}: fewer than {schema['minProperties']} keys")
        for key, needs in schema.get("dependentRequired", {}).items():
            if key in value:
                errors += [f"{at}: {key!r} needs {need!r}" for need in needs if need not in value]
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for key, item in value.items():
            matched = False
            if key in properties:
                matched = True
                errors += self.check(properties[key], item, root, f"{at}.{key}")
            for pattern, sub in patterns.items():
                if _search(pattern, key):
                    matched = True
                    errors += self.check(sub, item, root, f"{at}.{key}")
            if not matched and "additionalProperties" in schema:
                errors += self.check(schema["additionalProperties"], item, root, f"{at}.{key}")
        return errors


def urn(game: str, part: str) -> str:
    return f"urn:p2pgenius:{game}:{part}"


def language(game: str) -> str:
    """The schema of every normal form the game's parser accepts (Hornswoggle's engine forms
    are a superset of its wire forms; the other games send all of theirs)."""
    return urn(game, "engine") if game == "hornswoggle" else urn(game, "action")


def assert_valid(schema_id: str, value: Any, what: str) -> None:
    errors = schemas().errors(schema_id, value)
    assert not errors, f"{what} breaks {schema_id}:\n" + "\n".join(errors[:8]) + f"\n{value!r}"


# -- canonical msgpack, written from section 4 of games.md -----------------------------------


def canonical(value: Any) -> bytes:
    """The bytes games.md section 4 describes, written independently of p2pgenius.canonical."""
    if value is None:
        return b"\xc0"
    if value is True or value is False:
        return b"\xc3" if value else b"\xc2"
    if type(value) is int:
        if 0 <= value <= 0x7F:
            return bytes([value])
        if -32 <= value < 0:
            return struct.pack(">b", value)
        if value > 0:
            for tag, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF), (0xCE, ">I", 0xFFFFFFFF)):
                if value <= top:
                    return bytes([tag]) + struct.pack(fmt, value)
            return b"\xcf" + struct.pack(">Q", value)
        for tag, fmt, low in ((0xD0, ">b", -(2**7)), (0xD1, ">h", -(2**15)), (0xD2, ">i", -(2**31))):
            if value >= low:
                return bytes([tag]) + struct.pack(fmt, value)
        return b"\xd3" + struct.pack(">q", value)
    if type(value) is str:
        raw = value.encode("utf-8")
        return _header(len(raw), 0xA0, 31, (0xD9, 0xDA, 0xDB)) + raw
    if type(value) is list:
        return _header(len(value), 0x90, 15, (None, 0xDC, 0xDD)) + b"".join(canonical(v) for v in value)
    if type(value) is dict:
        keys = sorted(value, key=lambda k: k.encode("utf-8"))
        body = b"".join(canonical(k) + canonical(value[k]) for k in keys)
        return _header(len(value), 0x80, 15, (None, 0xDE, 0xDF)) + body
    raise AssertionError(f"games.md says no game structure holds a {type(value).__name__}")


def _header(size: int, fix: int, fix_top: int, tags: tuple[int | None, int, int]) -> bytes:
    if size <= fix_top:
        return bytes([fix + size])
    if tags[0] is not None and size <= 0xFF:
        return bytes([tags[0], size])
    if size <= 0xFFFF:
        return bytes([tags[1]]) + struct.pack(">H", size)
    return bytes([tags[2]]) + struct.pack(">I", size)


# -- matches, stage by stage -----------------------------------------------------------------


@dataclass
class Record:
    """What many matches of one game showed."""

    stages: list[tuple[str, dict[str, Any], list[int], list[int]]] = field(default_factory=list)
    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    applied: list[dict[str, Any]] = field(default_factory=list)
    views: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    """Public states that a stage applied to them left as they were."""


def stage_of(game: str, public: dict[str, Any]) -> str:
    """The kind of stage the public state is at (games.md, each game's "Stages")."""
    if game == "duel":
        if public["outcome"] is not None:
            return "over"
        return "paralysis" if public["paralysis_choices"] else "turn"
    return str(public["phase"])


MAX_STAGES = 3000
SELF_TOO: Final = {"type": "gestures", "left": "W", "right": "W", "targets": {"right": "self"}}
"""Both hands complete Paralysis, the right one at the wizard itself ("self": its own seat)."""
SCRIPTS: tuple[tuple[str | dict[str, Any], ...], ...] = (
    ("D-", "W-", "S-", "W-", "CC"),  # Blindness: the left hand's D W S W C, both hands clapping
    ("CC", "P-", "S-", "W-", "W-"),  # Summon Fire Elemental: C P S W W
    (),
    ("WW", "WW", SELF_TOO),  # Paralysis at both wizards: the caster owes two choices of hand
)


def decorate(game: Any, state: Any, seat: int, action: Any, rng: random.Random) -> Any:
    """A duel submission with random targets, spell choices and monster orders, where legal."""
    if not isinstance(action, Gestures) or rng.random() < 0.4:
        return action
    plain = action.to_plain()
    wizard = state.wizards[seat]
    choices = target_choices(state)
    targets = {hand: rng.choice(choices) for hand in HANDS if rng.random() < 0.4}
    spells = {}
    for hand in HANDS:
        done = completions((*wizard.history(hand), plain[hand]), wizard.barrier)
        if done and rng.random() < 0.5:
            spells[hand] = rng.choice(done).spell
    beings = [m.name for m in state.monsters] + [f"p{s}.{h}" for s in (seat, 1 - seat) for h in HANDS]
    orders = {name: rng.choice(choices) for name in beings if rng.random() < 0.3}
    for extra in (
        {"targets": targets, "spells": spells, "monsters": orders},
        {"targets": targets, "spells": spells},
        {"targets": targets},
        {"spells": spells},
    ):
        candidate = {**plain, **{key: value for key, value in extra.items() if value}}
        try:
            parsed = game.parse_action(candidate)
            game.apply(state, seat, parsed)
        except IllegalActionError:
            continue
        return parsed
    return action


def play_match(name: str, seed: int, levels: list[str], setup: dict[str, Any], record: Record) -> None:
    """One match, stage by stage: the waited-on seats choose from the stage's starting state, an
    optional seat acts or declines, the stage is applied in seat order (a challenge alone), and
    every Hornswoggle seat runs its own engine that sees only its own cards."""
    rng = random.Random(seed)
    game, spec = get_game(name), get_spec(name)
    bots = [make_bot(name, level, seed=seed * 10 + seat) for seat, level in enumerate(levels)]
    state = game.initial(setup, {})
    seats = game.seats(state)
    own = [spec.perspective(state, [seat]) for seat in range(seats)]
    script = {seed % 2: list(SCRIPTS[seed % len(SCRIPTS)])} if name == "duel" else {}
    before: dict[str, Any] | None = None
    for _ in range(MAX_STAGES):
        public = game.public(state)
        if before is not None and same(before, public):
            record.unchanged.append(public)
        before = public
        waiting = list(game.waiting_on(state))
        optional = [s for s in game.to_act(state) if s not in waiting]
        record.stages.append((stage_of(name, public), public, waiting, optional))
        for seat in range(seats):
            record.views.append(game.view(own[seat], seat))
            if not same(game.public(own[seat]), public):
                record.disagreements.append(game.public(own[seat]))
            if name == "duel" and spec.blind(state, seat):
                record.claims.append({**game.view(state, seat), "next": list(game.to_act(state))})
        if game.outcome(state) is not None:
            return
        kind = stage_of(name, public)
        chosen: list[tuple[int, Any]] = []
        for seat in waiting:
            action = bots[seat].choose(own[seat], seat)
            if name == "duel" and script.get(seat) and not state.paralysis_choices:
                move = script[seat].pop(0)
                if isinstance(move, str):
                    move = {"type": "gestures", "left": move[0], "right": move[1]}
                else:
                    targets = {hand: f"p{seat}" if t == "self" else t for hand, t in move["targets"].items()}
                    move = {**move, "targets": targets}
                action = game.parse_action(move)
            elif name == "duel":
                action = decorate(game, state, seat, action, rng)
            if rng.random() < 0.03:
                timeout = game.parse_action({"type": "timeout"}) if name != "hornswoggle" else None
                action = spec.own_timeout(own[seat], seat) or timeout
            record.sent.append((kind, action.to_plain()))
            chosen.append((seat, action))
        for seat in optional:
            action = bots[seat].choose(own[seat], seat)
            if action is not None:
                record.sent.append((kind, action.to_plain()))
                chosen = [(seat, action)]
        for seat, action in sorted(chosen, key=lambda pair: pair[0]):
            plain = action.to_plain()
            pile = spec.flipped_pile(plain)
            if pile is not None:
                cards = state.pirates[pile].pile
                top = max(i for i, c in enumerate(cards) if not c.flipped)
                assert spec.piles is not None
                plain = spec.piles.flip_with(pile, {"type": "place", "card": cards[top].card})
            state = game.apply(state, seat, game.parse_action(plain))
            if name != "hornswoggle":
                own = [state] * seats
                continue
            for holder in range(seats):
                mine = holder == seat or not spec.hidden(plain)
                assert spec.cards is not None
                applied = plain if mine else spec.cards.placeholder(own[holder], seat)
                record.applied.append(applied)
                own[holder] = game.apply(own[holder], seat, game.parse_action(applied))
    raise AssertionError(f"{name} seed {seed}: no end in {MAX_STAGES} stages")


LEVELS: dict[str, tuple[list[str], ...]] = {
    "duel": (["wizard", "random"], ["random", "wizard"], ["random", "random"], ["wizard", "wizard"]),
    "magic-square": (["heuristic", "random"], ["random", "random"], ["heuristic", "heuristic"]),
    "hornswoggle": (["pirate", "random", "random", "pirate"], ["random"] * 4, ["pirate"] * 4),
}
MATCHES = {"duel": 40, "magic-square": 24, "hornswoggle": 12}
HORN_SETUPS: tuple[dict[str, Any], ...] = (
    {},
    {"garnets": [1, 1, 0, 2]},
    {"opponent": 3, "hands": [[2, 1], [0, 0], [3, 1], [1, 1]]},
)


@functools.cache
def matches(name: str) -> Record:
    record = Record()
    for seed in range(MATCHES[name]):
        levels = LEVELS[name][seed % len(LEVELS[name])]
        setup = HORN_SETUPS[seed % len(HORN_SETUPS)] if name == "hornswoggle" else {}
        play_match(name, seed, levels, setup, record)
    return record


# -- the tests -------------------------------------------------------------------------------


def test_the_document_lists_every_registered_game_with_its_traits() -> None:
    listed = block_json("games")
    assert sorted(listed) == sorted(names()), "games.md must list exactly the registered games"
    for name, traits in listed.items():
        spec = get_spec(name)
        assert traits == {
            "title": spec.title,
            "rules_version": spec.rules_version,
            "engine": engine_fingerprint(name),
            "seats": spec.engine.seats(spec.engine.initial({}, {})),
            "groups": {
                str(peers): [list(g) for g in groups] for peers, groups in spec.groups_by_peers.items()
            },
            "sealed": spec.sealed,
            "hidden_types": list(spec.hidden_types),
            "optional_types": list(spec.optional_types),
            "flip_type": spec.flip_type or None,
            "audited": spec.audited,
            "time_options": {option.name: option.seconds for option in spec.time_options},
        }, name
        for part in PARTS:
            assert urn(name, part) in schemas().by_id, f"games.md has no {part} schema for {name}"
        assert name in {match[1] for match in _TABLE.finditer(TEXT)}, f"no stage table for {name}"
        assert ("example", name) in blocks(), f"no worked example for {name}"


def test_the_validator_refuses_what_it_should() -> None:
    """The small validator is itself checked, so that a schema cannot pass by accident."""
    check = Schemas({}).check
    assert check({"type": "integer"}, True, {}, "$")
    assert not check({"type": ["integer", "null"], "minimum": 1}, None, {}, "$")
    assert check({"enum": [1]}, True, {}, "$")
    assert check({"pattern": "^p[01]$"}, "p0\n", {}, "$")
    assert check({"properties": {"a": {}}, "additionalProperties": False}, {"b": 1}, {}, "$")
    assert check({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 3, {}, "$")
    assert check({"contains": {"const": 0}, "minContains": 2}, [0, 1], {}, "$")
    assert check({"dependentRequired": {"a": ["b"]}}, {"a": 1}, {}, "$")
    with pytest.raises(AssertionError):
        check({"format": "date"}, "x", {}, "$")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("part", ["options", "setup"])
def test_the_engine_accepts_exactly_the_terms_the_schema_allows(name: str, part: str) -> None:
    game = get_game(name)
    schema = schemas()[urn(name, part)]
    bases = BASES[(name, part)]

    def accepted(value: Any) -> bool:
        try:
            game.initial(value, {}) if part == "setup" else game.initial({}, value)
        except P2PGeniusError:
            return False
        return True

    for base in bases:
        assert accepted(base) and schemas().valid(schema["$id"], base), base
        for variant in variants(base):
            assert accepted(variant) == schemas().valid(schema["$id"], variant), (
                f"{name} {part}: the engine {'accepts' if accepted(variant) else 'refuses'} {variant!r}"
            )
    for key, sub in schema["properties"].items():
        if "default" not in sub:
            continue
        base = bases[0]
        if part == "options":
            assert sub["default"] == option_defaults(name)[key], f"{name}: the default of {key}"
            continue
        without = {k: v for k, v in base.items() if k != key}
        given = {**without, key: sub["default"]}
        assert game.public(game.initial(without, {})) == game.public(game.initial(given, {})), key


COLOURS = [0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0]
BASES: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("duel", "options"): [{"turn_seconds": 60, "fast": False}],
    ("duel", "setup"): [{"hp": [15, 15]}, {"hp": [1, 1000]}],
    ("magic-square", "options"): [{"round_seconds": 720, "challenge_seconds": 300}],
    ("magic-square", "setup"): [{"opponent": 1, "colours": COLOURS, "first_lead": 0}, {"opponent": 0}],
    ("hornswoggle", "options"): [{"decision_seconds": 60}],
    ("hornswoggle", "setup"): [
        {"opponent": 1, "garnets": [0, 0, 0, 0], "hands": [[4, 2], [4, 2], [4, 2], [4, 2]]},
        {"opponent": 3, "garnets": [0, 1, 2, 3], "hands": [[4, 2], [1, 0], [0, 3], [2, 2]]},
    ],
}


def option_defaults(name: str) -> dict[str, Any]:
    """What the match terms of game ``name`` default to, from its spec: each time option's
    seconds, and ``fast`` off in a sealed game (the command line sets it on only for bots)."""
    spec = get_spec(name)
    return {option.name: option.seconds for option in spec.time_options} | (
        {"fast": False} if spec.sealed else {}
    )


MUTANTS: tuple[Any, ...] = (None, True, False, -1, 0, 1, 2, 3, 8, 15, 16, 999, 1000, 1001, "x", [], {})
TEXT_MUTANTS = (
    *("m0", "m1", "p0", "p2", "m1234567", "p0.middle", "p1.left", "nobody", "hidden", "skull"),
    *("timeout", "place", "flip", "chosen"),
)
KEY_MUTANTS = ("m0", "m1", "p0", "nobody", "p1.left", "m999999", "m1000000", "left", "right", "extra")


def variants(value: Any) -> Iterator[Any]:
    """``value`` changed in one place: a key dropped, added or renamed; a list grown or cut; a
    leaf replaced."""
    if type(value) is dict:
        yield {}
        yield {**value, "extra": 1}
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
            for other in KEY_MUTANTS:
                if other not in value:
                    yield {(other if k == key else k): v for k, v in value.items()}
            for inner in variants(value[key]):
                yield {**value, key: inner}
    elif type(value) is list:
        if value:
            yield value[:-1]
            yield [*value, value[-1]]
        for index, item in enumerate(value):
            for inner in variants(item):
                yield [*value[:index], inner, *value[index + 1 :]]
    else:
        for mutant in (*MUTANTS, *TEXT_MUTANTS):
            if not same(mutant, value):
                yield copy.deepcopy(mutant)


@pytest.mark.parametrize("name", GAMES)
def test_the_parser_normal_form_is_exactly_what_the_schema_allows(name: str) -> None:
    game = get_game(name)
    distinct = {canonical(plain): plain for _, plain in matches(name).sent}
    sample = random.Random(0).sample(sorted(distinct.values(), key=canonical), min(60, len(distinct)))
    for kinds in {plain["type"] for plain in distinct.values()}:
        sample.append(next(p for p in distinct.values() if p["type"] == kinds))

    def normal(value: Any) -> bool:
        try:
            return same(game.parse_action(value).to_plain(), value)
        except (P2PGeniusError, TypeError):  # a list or map where a name is looked up: TypeError
            return False

    for plain in sample:
        for variant in variants(plain):
            assert normal(variant) == schemas().valid(language(name), variant), (
                f"{name}: the parser {'takes' if normal(variant) else 'refuses'} {variant!r} as a normal form"
            )


@pytest.mark.parametrize("name", GAMES)
def test_every_action_sent_validates_and_travels_as_its_stage_row_says(name: str) -> None:
    spec = get_spec(name)
    table = stage_table(name)
    for kind, plain in matches(name).sent:
        assert_valid(urn(name, "action"), plain, f"{name}: an action sent at a {kind} stage")
        message = "commit" if spec.sealed or spec.hidden(plain) else "act"
        assert table[kind].travels.get(plain["type"]) == message, (
            f"{name}: a {plain['type']} at a {kind} stage travels as {message}; the table says "
            f"{table[kind].travels.get(plain['type'])}"
        )


@pytest.mark.parametrize("name", GAMES)
def test_every_stage_changes_the_public_state_it_is_applied_to(name: str) -> None:
    # SPEC section 6, "What a stage decided is in the state it leaves": an engine keeps no open
    # decision outside the hashed state (a duel caster's first of two Paralysis choices did).
    assert matches(name).unchanged == []


def test_every_hornswoggle_seat_computes_the_same_public_state() -> None:
    assert matches("hornswoggle").disagreements == []


def test_every_action_a_hornswoggle_engine_applies_is_an_engine_form() -> None:
    applied = matches("hornswoggle").applied
    assert any(a.get("card") is None and a["type"] in ("place", "discard") for a in applied)
    assert any(a["type"] == "flip" and "card" in a for a in applied)
    for plain in applied:
        assert_valid(urn("hornswoggle", "engine"), plain, "an action a seat's engine applies")


@pytest.mark.parametrize("name", GAMES)
def test_every_public_state_and_view_validates(name: str) -> None:
    record = matches(name)
    for kind, public, _, _ in record.stages:
        assert_valid(urn(name, "state"), public, f"{name}: the public state at a {kind} stage")
    for view in record.views:
        assert_valid(urn(name, "view"), view, f"{name}: a seat's view")


def test_a_blindness_claim_is_a_blinded_view_and_next() -> None:
    claims = matches("duel").claims
    assert claims, "no playout blinded a wizard: the blind branches of the view went unchecked"
    spec = get_spec("duel")
    hidden = 0
    for claim in claims:
        view = {key: value for key, value in claim.items() if key != "next"}
        assert_valid(urn("duel", "view"), view, "a blindness claim")
        assert spec.claim_shaped(claim)
        opponent = view["wizards"][1 - view["seat"]]
        hidden += opponent["hp"] is None and "?" in opponent["left"] + opponent["right"]
    assert hidden, "no claim hid a blind turn's gestures"


@pytest.mark.parametrize("name", GAMES)
def test_each_stage_waits_on_exactly_the_seats_its_row_names(name: str) -> None:
    table = stage_table(name)
    seats = get_game(name).seats(get_game(name).initial({}, {}))
    seen = set()
    for kind, public, waiting, optional in matches(name).stages:
        row = table[kind]
        seen.add(kind)
        assert seats_named(row.waiting, public, seats) == waiting, (kind, row.waiting, public)
        assert seats_named(row.optional, public, seats) == optional, (kind, row.optional, public)
    assert seen == set(table), f"{name}: stages the matches never reached: {set(table) - seen}"


@pytest.mark.parametrize("name", GAMES)
def test_the_schemas_list_nothing_the_games_never_do(name: str) -> None:
    """Every action type the action schema lists was sent, and every phase the state schema lists
    was reached (a listed value that never occurs would be a guess)."""
    record = matches(name)
    listed = {branch["properties"]["type"]["const"] for branch in schemas()[urn(name, "action")]["oneOf"]}
    assert listed == {plain["type"] for _, plain in record.sent}
    phase = schemas()[urn(name, "state")]["properties"].get("phase")
    if phase is not None:
        assert set(phase["enum"]) == {public["phase"] for _, public, _, _ in record.stages}


@pytest.mark.parametrize("name", GAMES)
def test_every_public_states_bytes_follow_section_4(name: str) -> None:
    for _, public, _, _ in matches(name).stages[::3]:
        assert canonical({"game": name, "state": public}) == encode({"game": name, "state": public})


@pytest.mark.parametrize("name", GAMES)
def test_the_worked_example_replays_to_its_state_and_hash(name: str) -> None:
    example = block_json("example", name)
    game = get_game(name)
    state = game.initial(example["setup"], {})
    for seat, action in example["actions"]:
        assert_valid(urn(name, "action"), action, f"{name}: an action of the worked example")
        state = game.apply(state, seat, game.parse_action(action))
    assert same(game.public(state), example["state"])
    assert_valid(urn(name, "state"), example["state"], f"{name}: the worked example's state")
    assert state_hash(game, state).hex() == example["hash"]
    assert hashlib.sha256(canonical({"game": name, "state": example["state"]})).hexdigest() == example["hash"]
    written = blocks().get(("bytes", name))
    if written is not None:
        assert "".join(written.split()) == encode({"game": name, "state": example["state"]}).hex()


# -- the duel's events, in the order section 5 gives -------------------------------------------

_ORDER_TABLE = re.compile(r"<!-- events order: duel -->\n((?:\|.*\n)+)")
_HANDS = {"left": 0, "right": 1}


def duel_event_place(event: dict[str, Any]) -> tuple[Any, ...]:
    """Where games.md's "The order of a turn's events" puts ``event``: its step's row (``held``
    after 13; a paralysis stage's ``chosen`` after that), then its place within the row."""
    kind, why, seat = event["type"], event.get("why"), event.get("seat", 0)
    source = event.get("source")
    number = int(str(event.get("monster", "m0"))[1:])
    fixed = {"fizzle": {"counter_spell": (4,), "power_word_kill": (5,), "charm_monster": (9, 1, number)}}
    if kind in fixed:
        return fixed[kind][event["by"]]
    if kind == "rewrite":
        return (1, seat, _HANDS[event["hand"]])
    if kind == "cast" or (kind == "miss" and why == "nobody" and source is None):
        return (3, seat)
    if kind in ("summon", "merge") or why == "no_master":
        return (6,)
    if kind == "destroyed":
        return (7,)
    if why == "no_monster":
        return (9, 0)
    if kind == "charm":
        return (9, 1, number)
    if kind == "enchant":
        return {None: (9, 2), "held": (14, int(event["target"][1:])), "chosen": (15,)}[why]
    if kind in ("damage", "blocked", "miss", "kill", "idle"):
        part = {"missile": 0, "fireball": 0, None: 0, "fire_storm": 1, "stab": 2, "monster": 3}[source]
        part = 3 if kind == "idle" else part
        return (10, part, {0: 0, 1: 0, 2: seat, 3: number}[part])
    return {"death": (12, 0, number), "hp": (12, 1, seat), "revive": (12, 2), "surrender": (13, 0)}.get(
        kind, (13, 1)
    )


def test_every_duel_turns_events_come_in_the_order_section_5_gives() -> None:
    table = _ORDER_TABLE.search(TEXT)
    assert table is not None, "games.md has no events order table for the duel"
    rows = {}
    for line in table[1].splitlines()[2:]:
        step, events = (cell.strip() for cell in line.strip("|").split("|"))
        rows[14 if step == "held" else int(step)] = set(re.findall(r"`(\w+)`", events))
    seen: set[tuple[int, str]] = set()
    for view in matches("duel").views:
        places = [duel_event_place(event) for event in view["events"]]
        assert places == sorted(places), [e["type"] for e in view["events"]]
        for event, place in zip(view["events"], places, strict=True):
            seen.add((place[0], event["type"]))
            if place[0] in rows:
                assert event["type"] in rows[place[0]], (event, place[0])
    steps = {step for step, _ in seen}
    assert {1, 3, 6, 9, 10, 12, 13} <= steps, f"the matches showed events of steps {sorted(steps)} only"
