"""`bench/all.py --smoke` runs every benchmark end to end on its smallest input: a check that the
benchmarks still run against the code and measure something. No figure is judged here (speed is
the benchmarks' business, not the tests'), and no clock either (a busy machine is slower, not
wrong); only that every table is there and counts what it says it counts."""

from __future__ import annotations

import importlib.util
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.games.catalog import GAMES

ROOT = Path(__file__).resolve().parent.parent


def test_every_benchmark_has_a_smoke_size() -> None:
    spec = importlib.util.spec_from_file_location("bench_all", ROOT / "bench" / "all.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert sorted(module.SMOKE) == sorted(title for title, *_ in module.BENCHES)


def benches() -> list[Any]:
    spec = importlib.util.spec_from_file_location("bench_all", ROOT / "bench" / "all.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.BENCHES)


def tables(text: str) -> list[list[str]]:
    """The cells of every table row of ``text``."""
    rows = (line.strip() for line in text.splitlines())
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows if row.startswith("|")]


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
        [sys.executable, str(ROOT / "bench" / "all.py"), "--smoke", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
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
    for game in (entry.name for entry in GAMES):
        assert int(cells(text, game)[3].replace(",", "")) > 0  # actions counted per game
    for game in ("duel (2)", "magic-square (2)", "hornswoggle (4)"):
        assert int(cells(text, game)[4].replace(",", "")) > 0  # event-loop steps timed per game


def test_the_bot_table_plays_every_pair_of_levels_and_counts_each_match() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots.py"), "--matches", "1", "--jobs", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for entry in GAMES:
        levels = [level.name for level in entry.described]
        assert f"### {entry.title} (`{entry.name}`)" in done.stdout
        for index, first in enumerate(levels):
            for second in levels[index + 1 :]:
                row = cells(done.stdout, f"{first} vs {second}")
                assert row[1] == "1" and sum(int(n) for n in row[2:5]) == 1, row
        assert levels[0] in [line.split("|")[1].strip() for line in done.stdout.splitlines() if "|" in line]
        itself = cells(done.stdout, f"{levels[0]} vs {levels[0]}")
        assert itself[3] == "0", "the strongest level's matches against itself end (none drawn unfinished)"
        cpu = {row[1]: row for row in tables(done.stdout) if row[0] == entry.name}
        for level in levels:  # each level's CPU time per decision, with its p99 and interval
            assert int(cpu[level][2]) > 0 and cpu[level][4].endswith("]"), cpu[level]


def test_wilson_intervals_hold_the_share_and_narrow_with_more_matches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = importlib.util.spec_from_file_location("bench_bots", ROOT / "bench" / "bots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_bots", module)  # (its dataclasses look their module up)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # (as when it runs: its own folder on the path)
    spec.loader.exec_module(module)
    low, high = module.wilson(0.5, 100)
    assert 0.40 < low < 0.5 < high < 0.60
    assert module.wilson(0.5, 1000)[1] - module.wilson(0.5, 1000)[0] < high - low
    assert module.wilson(1.0, 10) == (module.wilson(1.0, 10)[0], 1.0) and module.wilson(1.0, 10)[0] < 1.0


def bench_module(name: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A script of bench/ loaded as a module, its own folder on the path as when it runs."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, f"bench_{name}", module)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    spec.loader.exec_module(module)
    return module


def test_the_p99_interval_holds_the_true_p99_and_needs_a_tail_to_close(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stats = bench_module("stats", monkeypatch)
    estimate, low, high = stats.quantile_interval(range(1, 1001), 0.99)
    assert estimate == 990 and low < 990 < high <= 1000
    assert stats.quantile_interval([5.0], 0.99) == (5.0, 5.0, math.inf)  # nothing above the one value
    assert stats.quantile_interval(range(100), 0.99)[2] == math.inf  # one value above: no upper end
    rng = random.Random(49)
    held = 0
    for _ in range(200):  # uniform times: the true p99 is 0.99; a 95% interval holds it ~95% of the time
        _, low, high = stats.quantile_interval([rng.random() for _ in range(1000)], 0.99)
        held += low <= 0.99 <= high
    assert 180 <= held <= 200


def test_the_square_bots_bench_digests_the_same_moves_twice_and_times_each_phase() -> None:
    def run() -> str:
        command = [sys.executable, str(ROOT / "bench" / "magic_square_bots.py"), "--matches", "1"]
        command += ["--rows", "perfect:heuristic", "--digest", "--times"]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def rows(text: str, width: int) -> list[list[str]]:
        return [row for row in tables(text) if len(row) == width]

    first, second = run(), run()
    digests = [row for row in rows(first, 2) if row[0] == "perfect vs heuristic"]
    assert digests == [row for row in rows(second, 2) if row[0] == "perfect vs heuristic"]
    assert len(digests) == 1 and len(digests[0][1]) == 64
    calls = {row[1]: int(row[2]) for row in rows(first, 6) if row[0] == "perfect"}
    assert calls["lead"] >= 1 and calls["all"] == sum(n for phase, n in calls.items() if phase != "all")
