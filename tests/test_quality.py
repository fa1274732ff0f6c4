"""The code stays clean: ruff and mypy --strict, as configured in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed; install the test extra: pip install -e '.[test]'")
    return found


def test_ruff_finds_nothing() -> None:
    done = subprocess.run(
        [tool("ruff"), "check", "p2pgenius", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing() -> None:
    done = subprocess.run([tool("mypy")], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_commands_are_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- test-command -->" in readme
    assert "<!-- main-command -->" in readme
    assert "test-command" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
