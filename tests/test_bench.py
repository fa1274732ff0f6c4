"""`bench/all.py --quick` runs every benchmark end to end: a smoke check that the benchmarks still
run against the code and measure something. No figure is judged here (speed is the benchmarks'
business, not the tests'); only that every table is there and counts what it says it counts."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def benches() -> list[Any]:
    spec = importlib.util.spec_from_file_location("bench_all", ROOT / "bench" / "all.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.BENCHES)


def cells(text: str, first: str) -> list[str]:
    """The cells of the table row whose first cell is ``first``."""
    for line in text.splitlines():
        row = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if row and row[0] == first:
            return row
    raise AssertionError(f"no row {first!r}")


def test_every_benchmark_runs_and_writes_its_table(tmp_path: Path) -> None:
    out = tmp_path / "performance.md"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "all.py"), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = out.read_text(encoding="utf-8")
    for title, *_ in benches():
        assert f"## {title}\n\n|" in text or f"## {title}\n\nbefore:" in text, title
    # The crypto breakdown counts real calls: it once read zero after a library change.
    for primitive in ("Ed25519 sign", "Ed25519 verify"):
        assert float(cells(text, primitive)[1]) >= 1.0, primitive
    assert float(cells(text, "ratio p2pgenius / TLS")[1]) > 0
    for game in ("duel", "magic-square", "hornswoggle"):
        assert int(cells(text, game)[3].replace(",", "")) > 0  # actions counted per game
    for game in ("duel (2)", "magic-square (2)", "hornswoggle (4)"):
        assert int(cells(text, game)[4].replace(",", "")) > 0  # event-loop steps timed per game
