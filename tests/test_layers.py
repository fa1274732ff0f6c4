"""The pure layers stay pure: games/ and protocol/ (and what they import) do no I/O, read no
clock and use no global randomness."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Final

import p2pgenius
from p2pgenius.games import catalog
from p2pgenius.protocol import channel_messages
from tests.patience import HANG_S

PACKAGE = Path(p2pgenius.__file__).parent
PURE = ["games", "protocol", "canonical.py", "errors.py", "durations.py"]
FORBIDDEN = {
    "trio",
    "asyncio",
    "prompt_toolkit",
    "socket",
    "selectors",
    "select",
    "threading",
    "subprocess",
    "time",
    "datetime",
    "random",
    "os",
    "io",
}


def pure_files() -> list[Path]:
    files: list[Path] = []
    for name in PURE:
        path = PACKAGE / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


def imported(path: Path) -> list[str]:
    """Every absolute module name ``path`` imports, wherever in the file."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_pure_modules_import_nothing_that_does_io_or_reads_time() -> None:
    offenders = []
    for path in pure_files():
        for name in imported(path):
            if name == "random" and _seeded_only(path):
                continue  # (a bot's own seeded generator: not the global one)
            if name.split(".")[0] in FORBIDDEN:
                offenders.append(f"{path.relative_to(PACKAGE)}: {name}")
    assert pure_files(), "no pure modules found: the test would prove nothing"
    assert offenders == []


def _seeded_only(path: Path) -> bool:
    """Whether ``path`` uses the random module only to make its own seeded generators
    (``random.Random(seed)``), never the module's global one (``random.choice``, ...)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if any(isinstance(n, ast.ImportFrom) and n.module == "random" for n in ast.walk(tree)):
        return False
    uses = [
        n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and getattr(n.value, "id", None) == "random"
    ]
    return all(use.attr == "Random" for use in uses)


def test_the_seeded_random_check_tells_a_seeded_generator_from_the_global_one(tmp_path: Path) -> None:
    seeded, global_ = tmp_path / "seeded.py", tmp_path / "global_.py"
    seeded.write_text("import random\nrng = random.Random(7)\n", encoding="utf-8")
    global_.write_text("import random\nx = random.choice([1, 2])\n", encoding="utf-8")
    assert _seeded_only(seeded) and not _seeded_only(global_)


def test_importing_the_engines_and_protocol_loads_no_networking_or_ui() -> None:
    code = (
        "import sys, p2pgenius.games.registry; "
        "print(sorted(m for m in ('trio', 'asyncio', 'prompt_toolkit', 'socket') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=HANG_S
    )
    assert done.stdout.strip() == "[]"


LAYER_OF = {
    "__init__": 0,
    "canonical": 0,
    "errors": 0,
    "durations": 0,
    "frozen": 0,
    "games": 1,
    "protocol": 2,
    "wording": 3,
    "rules_pages": 2,
    "threads": 2,
    "local_files": 2,
    "installed": 2,
    "net": 3,
    "bots": 3,
    "record": 3,
    "inmemory": 4,
    "ui": 4,
    "cli": 5,
    "__main__": 6,
}
"""The layers of docs/architecture.md, bottom up. A module may import from lower layers and from
its own package, and name in its strings (``"module:attribute"``) only what it could import; net
and bots sit side by side and do not import each other."""


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") >= 1 else "__init__"


def code_strings(tree: ast.AST) -> list[str]:
    """Every string constant of ``tree``'s code, the pieces of f-strings included, but not its
    docstrings (a string standing alone as a statement: a docstring, or an attribute's)."""
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


MODULE_NAME: Final = re.compile(r"(?<![\w.])p2pgenius(?:\.[A-Za-z_]\w*)+")
"""A module of the package named in a string: ``"p2pgenius.ui.frontends.duel:FRONT"``, a plain
``"p2pgenius.net.peer"``, or the start of one an f-string completes."""


def named_modules(path: Path) -> list[str]:
    """Every module of the package that ``path``'s code names in a string (a ``"module:attribute"``
    path, or a plain dotted name), to be imported by name later: a dependency all the same, which
    no import statement shows. Prose is not code: docstrings are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [match.group(0) for text in code_strings(tree) for match in MODULE_NAME.finditer(text)]


def upward(path: Path, own: str) -> list[str]:
    """What module ``path``, of the part ``own`` of the package (``games``, ``ui``, ...), takes
    from a layer it may not, by an import or by naming a module in a string: one above its own,
    or beside it (above the base)."""
    found = [(name, "imports") for name in imported(path)] + [(name, "names") for name in named_modules(path)]
    offences = []
    for name, how in found:
        if name != "p2pgenius" and not name.startswith("p2pgenius."):
            continue
        other = _part(name)
        if other in (own, "__init__"):
            continue
        if other not in LAYER_OF or LAYER_OF[other] > LAYER_OF[own] or LAYER_OF[other] == LAYER_OF[own] > 0:
            offences.append(f"{how} {name}")
    return offences


def test_every_module_imports_only_from_the_layers_below_it() -> None:
    offenders = []
    packages = sorted(
        {path.stem for path in PACKAGE.glob("*.py")}
        | {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    )
    unknown = [p for p in packages if p not in LAYER_OF]
    assert unknown == [], f"place these in LAYER_OF (and in docs/architecture.md): {unknown}"
    for path in sorted(PACKAGE.rglob("*.py")):
        own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        offenders += [f"{path.relative_to(PACKAGE)} {offence}" for offence in upward(path, own)]
    assert offenders == []


def test_the_layer_check_reads_module_names_in_strings_too(tmp_path: Path) -> None:
    # The games' table as it was: its entries named their front ends in the UI by string, which
    # the layer check, reading imports only, let through.
    source = Path(catalog.__file__).read_text(encoding="utf-8")
    bots = 'bots="p2pgenius.games.duel.bots:BOTS",'
    assert bots in source
    old = tmp_path / "catalog.py"
    old.write_text(source.replace(bots, f'{bots} frontend="p2pgenius.ui.frontends.duel:FRONT",'), "utf-8")
    assert upward(old, "games") == ["names p2pgenius.ui.frontends.duel"]
    assert upward(Path(catalog.__file__), "games") == []
    for code, offence in (
        ('where = "p2pgenius.net.peer"\n', "names p2pgenius.net.peer"),
        ('where = f"p2pgenius.ui.frontends.{name}:FRONT"\n', "names p2pgenius.ui.frontends"),
        ("import importlib\nimportlib.import_module('p2pgenius.cli.main')\n", "names p2pgenius.cli.main"),
    ):
        module = tmp_path / "m.py"
        module.write_text(code, encoding="utf-8")
        assert upward(module, "games") == [offence], code
        assert upward(module, "__main__") == [], code  # (the top layer may name any)
    module = tmp_path / "m.py"
    prose = (
        '"""Shown by :mod:`p2pgenius.ui.frontends`."""\nGROUP = "p2pgenius.games"\nNAME = "_p2pgenius._tcp"\n'
    )
    module.write_text(prose, encoding="utf-8")
    assert upward(module, "games") == []


GAME_WORDS: Final = re.compile(
    "|".join(re.escape(name).replace(r"\-", "[-_ ]?") for name in catalog.names()), re.IGNORECASE
)
"""A game's name in any spelling: "duel", 'magic-square', magic_square, MagicSquare, HORNSWOGGLE
(every game of the table: a fifth one is looked for too)."""


def named_games(path: Path) -> list[str]:
    """Every game named in ``path``'s code (not its prose): string constants other than
    docstrings, identifiers, attributes and imported names, in any spelling."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    words = code_strings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
        elif isinstance(node, ast.alias):
            words.append(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            words.append(node.module)
    return sorted({match.group(0).lower() for word in words for match in GAME_WORDS.finditer(word)})


def test_no_module_outside_games_names_a_game() -> None:
    # Every game-specific decision goes through the game's spec and the games' table; the game
    # packages themselves are the only places that know a game, with each game's own front end,
    # the UI's list of them (which front end serves which game: the UI's knowledge, not the
    # games' table's) and `p2pgenius solve magic-square`, the Magic Square's own command.
    allowed = {"cli/solve.py", "cli/commands.py", "ui/frontends/__init__.py"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(PACKAGE))
        if relative.startswith("games/") or relative in allowed:
            continue
        for game in named_games(path):
            if not _game_module(relative, game):
                offenders.append(f"{relative}: {game}")
    assert offenders == []


def _game_module(relative: str, word: str) -> bool:
    """A game's own front end may name its game."""
    stem = GAME_WORDS.sub(lambda m: m.group(0).lower().replace("-", "_").replace(" ", "_"), word)
    return (
        relative == f"ui/frontends/{stem}.py"
        or relative == f"ui/frontends/{stem.replace('square', '_square')}.py"
    )


def test_the_game_name_check_sees_every_spelling(tmp_path: Path) -> None:
    for code in (
        'game = "duel"\n',
        "x = 'magic-square'\n",
        "from p2pgenius.bots import duel\n",
        "import p2pgenius.games.magic_square.spec\n",
        "HORNSWOGGLE = 1\n",
        "spec = catalog.MagicSquareSpec\n",
    ):
        path = tmp_path / "m.py"
        path.write_text(code, encoding="utf-8")
        assert named_games(path), code
    path = tmp_path / "m.py"
    path.write_text('"""The duel\'s words."""\n# a comment about hornswoggle\nx = 1\n', encoding="utf-8")
    assert named_games(path) == []


def test_no_two_modules_import_each_other_even_for_types_only() -> None:
    # A helper that imports its owner (``if TYPE_CHECKING: from ...peer import Peer``) to reach
    # into it is the owner's fields edited from outside: helpers take what they use instead.
    paths: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from package import module`` imports that module, not the package's others
                subs = {f"{node.module}.{alias.name}" for alias in node.names} & paths.keys()
                targets |= subs or {node.module}
        graph[module] = {name for name in targets if name.startswith("p2pgenius.")}
    cycles = []
    for module, targets in graph.items():
        seen, todo = set(), [t for t in targets if t in graph and t != module]
        while todo:
            current = todo.pop()
            if current == module:
                cycles.append(module)
                break
            if current in seen:
                continue
            seen.add(current)
            # (a package's __init__ re-exports its modules: importing it is not importing them)
            todo += [t for t in graph.get(current, ()) if t not in seen and not module.startswith(t + ".")]
    assert cycles == [], f"these modules import themselves through others: {sorted(cycles)}"


ORDER: Final = {
    "games": ["__init__", "base", "spec", "catalog", "duel", "magic_square", "hornswoggle", "registry"],
    "protocol": [
        "__init__",
        "bodies",
        "events",
        "identity",
        "noise",
        "nostr",
        "nostr_frames",
        "channel",
        "messages",
        "channel_messages",
        "mailbox",
        "records",
        "union",
        "session",
        "clocks",
        "machine",
        "observer",
        "overdue",
        "transcript",
    ],
    "protocol/session": [
        "faults",
        "debts",
        "phase",
        "stage",
        "cards",
        "ledger",
        "chain",
        "timing",
        "unseen",
        "match",
        "view",
        "courier",
        "setup",
        "sight",
        "ending",
        "play",
        "referee",
        "core",
        "__init__",
    ],
    "net": [
        "__init__",
        "events",
        "files",
        "keystore",
        "door",
        "inbox",
        "invite",
        "early",
        "latency",
        "upnp",
        "connection",
        "addresses",
        "transit",
        "nostr_relay",
        "mail",
        "mail_state",
        "discovery",
        "links",
        "pins",
        "spectators",
        "lobby",
        "reconnect",
        "overdue",
        "match_loop",
        "correspondence",
        "party",
        "host",
        "joiner",
        "peer",
    ],
    "bots": ["uniform", "registry", "thinker", "worker", "driver", "__init__"],
    "record": ["__init__", "verifying", "matches", "ratings", "index", "bundle"],
    "ui": [
        "__init__",
        "lines",
        "frontends",
        "render",
        "moves",
        "prompt",
        "style",
        "frame",
        "table_state",
        "peer_adapter",
        "lobby",
        "table_text",
        "table_input",
        "table",
        "layout",
        "key_bindings",
        "app",
        "bridge",
        "replay",
    ],
    "cli": [
        "__init__",
        "terminal",
        "commands",
        "main",
        "identity",
        "rules",
        "sim",
        "solve",
        "recorded",
        "export",
        "verify",
        "play",
        "correspondence",
        "versus",
        "host",
        "join",
        "resume",
        "demo",
        "replay",
        "watch",
        "history",
        "games",
    ],
}
"""Inside each package, its modules bottom up (docs/architecture.md): a module imports only
those listed before it. A new module has to be placed here."""


def _siblings(package: Path, path: Path) -> set[str]:
    """The modules of ``package`` that ``path`` imports (a subpackage counts as one)."""
    base = "p2pgenius." + ".".join(package.relative_to(PACKAGE).parts)
    names = {p.stem for p in package.glob("*.py")} | {p.name for p in package.iterdir() if p.is_dir()}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        if node.module.startswith(base + "."):
            found.add(node.module[len(base) + 1 :].split(".")[0])
        elif node.module == base:
            found |= {alias.name for alias in node.names if alias.name in names}
    return found & names


def test_inside_each_package_modules_import_only_those_below_them() -> None:
    offenders = []
    for name, order in ORDER.items():
        package = PACKAGE / name
        members = {p.stem for p in package.glob("*.py")}
        members |= {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
        assert sorted(members) == sorted(order), f"{name}: list each module once in ORDER"
        files = [(path.stem, path) for path in package.glob("*.py")]
        files += [(sub.name, path) for sub in package.iterdir() if sub.is_dir() for path in sub.rglob("*.py")]
        for module, path in files:
            for other in _siblings(package, path) - {module}:
                if order.index(other) > order.index(module):
                    offenders.append(f"{name}/{module} imports {other}, which is above it")
    assert offenders == []


SESSION_INSIDES: Final = ("courier", "played", "chain", "referee")
"""The session's parts, which only protocol/ reaches into: every other layer asks the session."""


def _reaches_in(path: Path, parts: tuple[str, ...]) -> list[str]:
    """Where ``path`` reads one of the session's ``parts`` (or its time ledger, ``session.time``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute):
            continue
        owner = getattr(node.value, "id", "") or getattr(node.value, "attr", "")
        if node.attr in parts or (node.attr == "time" and str(owner).endswith("session")):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: .{node.attr}")
    return found


def test_no_layer_above_the_protocol_reaches_into_a_session() -> None:
    # The network layer moves messages and keeps no rule of its own: what it needs of a match
    # (the counts a sync says, the messages taken since, whether something waits to be sent, the
    # verdict at the end to judge off the loop, a peer's hash taken) the session says through its
    # own members.
    offenders = []
    for layer in ("net", "cli", "bots", "record"):
        parts = SESSION_INSIDES if layer == "net" else ("courier", "chain", "referee")
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            offenders += _reaches_in(path, parts)
    assert offenders == []


def test_the_reach_check_finds_a_chain_through_the_session(tmp_path: Path) -> None:
    probe = "n = session.chain.next_seq\nt = session.time.claimants\n"
    (tmp_path / "p.py").write_text(probe, encoding="utf-8")
    found = _reaches_in_file(tmp_path / "p.py", SESSION_INSIDES)
    assert [line.split(": ")[1] for line in found] == [".chain", ".time"]


def _reaches_in_file(path: Path, parts: tuple[str, ...]) -> list[str]:
    """:func:`_reaches_in` for a file outside the package (the check's own test)."""
    text = path.read_text(encoding="utf-8")
    inside = PACKAGE / "_reach_probe.py"
    try:
        inside.write_text(text, encoding="utf-8")
        return _reaches_in(inside, parts)
    finally:
        inside.unlink()


def built_by_hand(path: Path) -> list[str]:
    """Where ``path`` builds or picks apart a channel message of SPEC 4a/4b by hand: a list or
    tuple literal whose first element names a channel message kind (``["ping", n]``), or a kind
    compared with an element read out of a record or with a kind (``value[0] == "sync"``,
    ``kind != "pong"``)."""
    kinds = set(channel_messages.KINDS)
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.List | ast.Tuple) and node.elts:
            first = node.elts[0]
            if isinstance(first, ast.Constant) and first.value in kinds:
                found.append(f"line {node.lineno}: [{first.value!r}, ...]")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = [s.value for s in sides if isinstance(s, ast.Constant) and s.value in kinds]
            if named and any(_read_out(side) for side in sides):
                found.append(f"line {node.lineno}: compares an element with {named[0]!r}")
    return found


def _read_out(node: ast.expr) -> bool:
    """Whether ``node`` reads an element out of something, or is a kind (``kind``, ``x.kind``)."""
    return (
        isinstance(node, ast.Subscript)
        or (isinstance(node, ast.Name) and node.id == "kind")
        or (isinstance(node, ast.Attribute) and node.attr == "kind")
    )


def test_no_module_under_net_builds_or_picks_apart_a_channel_message_by_hand() -> None:
    # Every channel message is built and parsed in protocol/channel_messages.py (SPEC 4a, 4b):
    # the network layer sends its builders' bytes and reads its parser's types.
    offenders = [
        f"{path.relative_to(PACKAGE)} {where}"
        for path in sorted((PACKAGE / "net").rglob("*.py"))
        for where in built_by_hand(path)
    ]
    assert offenders == []


def test_the_hand_built_message_check_sees_a_list_a_tuple_and_a_comparison(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    for code in (
        'payload = encode(["ping", 1])\n',
        "payload = encode(('refused', why))\n",
        'if value[0] == "sync":\n    pass\n',
        'ok = value[:1] == ["sync"]\n',
        'if kind != "pong":\n    pass\n',
        'if message.kind == "m":\n    pass\n',
    ):
        path.write_text(code, encoding="utf-8")
        assert built_by_hand(path), code
    path.write_text('ready = lobby["ready"]\nfields = ("game", "ready")\n', encoding="utf-8")
    assert built_by_hand(path) == []


MECHANICS: Final = {"blind": 0, "audit": 0, "ahead": 0}
"""The lines outside games/ (and each game's own front end) that name a mechanic only one game
has (the duel's Blindness, a game's end-of-match audit of its hidden choices, Hornswoggle's
openings chosen ahead), word by word: the counts may only fall (issue 45 aims at none but through
the game's traits). Lower them as the mechanics move behind the games' interface. All three are
there: none may come back (the shared layers say a seat kept "in the dark", "withheld" choices and
"view claims" (the session's ``sight``), "disclosure", "verdict" and "early", and ask the game's
``spec.blind``, ``spec.audited``, ``spec.audit`` and ``spec.ahead``)."""


THROUGH_TRAITS: Final = re.compile(
    r"\bspec\.(?:blind|audited|audit|ahead)\b"  # a game's trait, asked (GameSpec)
    r'|^\s*kind: ClassVar\[str\] = "(?:blind|audit)"$'  # a wire kind's name (SPEC: byte for byte)
)
"""Where a mechanic's word may stand outside its game: a call of the game's trait that decides it
(``spec.blind(state, seat)``), and the two message kinds whose names the wire fixes."""


def mechanic_lines(word: str) -> list[str]:
    """Every line outside games/ and the games' own front ends that names ``word`` (any form)
    other than through the game's traits (:data:`THROUGH_TRAITS`)."""
    pattern = re.compile(rf"\b{word}\w*", re.IGNORECASE)
    own = {f"ui/frontends/{name.replace('-', '_')}.py" for name in catalog.names()}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(PACKAGE))
        if relative.startswith("games/") or relative in own:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        named = [n for n, line in enumerate(lines, 1) if pattern.search(THROUGH_TRAITS.sub("", line))]
        found += [f"{relative}:{n}" for n in named]
    return found


def test_single_game_mechanics_are_named_outside_their_games_less_and_less() -> None:
    counts = {word: len(mechanic_lines(word)) for word in MECHANICS}
    grown = {word: count for word, count in counts.items() if count > MECHANICS[word]}
    assert grown == {}, f"these mechanics belong behind the game's traits: {grown}"
    fell = {word: count for word, count in counts.items() if count < MECHANICS[word]}
    assert fell == {}, f"lower MECHANICS to {fell}"


MATCH_INSIDES: Final = ("party", "match_loop", "host", "joiner", "inbox", "links")
"""The networked match's insides under net/: the sides, the pump, its inbox and connections. Every
other layer holds the match by its one public object, :class:`~p2pgenius.net.peer.Peer`."""


def test_outside_the_network_layer_a_match_is_held_by_its_peer_alone() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "net":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
                inside = [
                    n for n in names if n.startswith("p2pgenius.net.") and n.split(".")[2] in MATCH_INSIDES
                ]
                offenders += [f"{relative}:{node.lineno} {n}" for n in inside[:1]]
    assert offenders == [], "reach the match through net.peer.Peer"
