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


def test_pure_modules_import_nothing_that_does_io_or_reads_time() -> None:
    offenders = []
    for path in pure_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert pure_files(), "no pure modules found: the test would prove nothing"
    assert offenders == []


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
