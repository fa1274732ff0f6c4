"""The pure layers stay pure: games/ and protocol/ (and what they import) do no I/O, read no
clock and use no global randomness."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import p2pgenius

PACKAGE = Path(p2pgenius.__file__).parent
PURE = ["games", "protocol", "canonical.py", "errors.py"]
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
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


LAYER_OF = {
    "__init__": 0,
    "canonical": 0,
    "errors": 0,
    "games": 1,
    "protocol": 2,
    "wording": 3,
    "rules_pages": 2,
    "threads": 2,
    "net": 3,
    "bots": 3,
    "inmemory": 4,
    "ui": 4,
    "cli": 5,
    "__main__": 6,
}
"""The layers of docs/architecture.md, bottom up. A module may import from lower layers and from
its own package; net and bots sit side by side and do not import each other."""


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") >= 1 else "__init__"


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
        for name in imported(path):
            if not name.startswith("p2pgenius"):
                continue
            other = _part(name)
            if other in (own, "__init__"):
                continue
            if LAYER_OF[other] > LAYER_OF[own] or (LAYER_OF[other] == LAYER_OF[own] > 0):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


def test_no_module_outside_games_names_a_game() -> None:
    # Every game-specific decision goes through the game's spec and the registries; the game
    # packages themselves (and the registration of bots and front ends) are the only places
    # that know a game. `p2pgenius solve magic-square` is the Magic Square's own command.
    registrations = {"bots/registry.py", "ui/frontends/__init__.py", "cli/solve.py", "cli/commands.py"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(PACKAGE))
        if relative.startswith("games/") or relative in registrations:
            continue
        text = path.read_text(encoding="utf-8")
        for game in (
            '"duel"',
            '"magic-square"',
            '"hornswoggle"',
            "games.duel",
            "games.hornswoggle",
            "games.magic_square",
        ):
            if game in text and not _game_module(relative, game):
                offenders.append(f"{relative}: {game}")
    assert offenders == []


def _game_module(relative: str, name: str) -> bool:
    """A game's own bots or front end may name its game."""
    for game, stem in (("duel", "duel"), ("hornswoggle", "hornswoggle"), ("magic", "magic_square")):
        if game in name and relative in (f"bots/{stem}.py", f"ui/frontends/{stem}.py"):
            return True
    return False


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
