"""A game installed beside p2pgenius as a plugin (the entry-point group ``p2pgenius.games``) is one
of the table's games for every command, in real processes: the test-only game rps, installed the
way a package installs one (a ``.dist-info`` with its ``entry_points.txt`` on the path), is hosted,
joined, watched, verified, simulated and its rules shown; a plugin that does not load is left out
in one line, and every other game still plays."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from p2pgenius.games.catalog import PLUGINS
from tests.patience import HANG_S

ROOT = Path(__file__).resolve().parent.parent


def installed(folder: Path, points: str) -> dict[str, str]:
    """An environment in which a package whose entry points are ``points`` (lines ``NAME =
    module:attribute``) is installed, as pip would leave its metadata."""
    info = folder / "rps_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rps-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{PLUGINS}]\n{points}\n")
    path = os.pathsep.join([str(folder), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "P2PGENIUS_NO_CLIPBOARD": "1"}


def spawn(env: dict[str, str], home: Path, output: Path, *args: str) -> subprocess.Popen[str]:
    with output.open("w") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", *args],
            env={**env, "P2PGENIUS_HOME": str(home)},
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            cwd=home.parent,
        )


def ran(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "p2pgenius", *args], env=env, capture_output=True, text=True, check=False
    )


def test_a_game_installed_as_a_plugin_is_hosted_joined_watched_and_verified(tmp_path: Path) -> None:
    env = installed(tmp_path / "site", "rps = tests.games.rps:ENTRY")
    transcripts = {role: tmp_path / f"{role}.p2pt" for role in ("host", "join", "watch")}
    outputs = {role: tmp_path / f"{role}.txt" for role in ("host", "join", "watch")}
    host = spawn(env, tmp_path / "h", outputs["host"], "host", "rps", "--bot", "--port", "0",
                 "--spectators", "--transcript", str(transcripts["host"]))  # fmt: skip
    deadline = time.monotonic() + HANG_S
    while not (found := re.search(r"p2pgenius join (p2pgenius://[a-z2-7]+)", outputs["host"].read_text())):
        assert host.poll() is None and time.monotonic() < deadline, outputs["host"].read_text()
        time.sleep(0.02)
    invite = found[1]
    watcher = spawn(env, tmp_path / "w", outputs["watch"], "watch", invite, "--text",
                    "--transcript", str(transcripts["watch"]))  # fmt: skip
    while "is watching (fingerprint" not in outputs["host"].read_text():  # (it sees it all, live)
        assert watcher.poll() is None and time.monotonic() < deadline, outputs["watch"].read_text()
        time.sleep(0.02)
    joiner = spawn(env, tmp_path / "j", outputs["join"], "join", invite, "--bot",
                   "--transcript", str(transcripts["join"]))  # fmt: skip
    for role, process in (("join", joiner), ("host", host), ("watch", watcher)):
        assert process.wait(timeout=HANG_S) == 0, outputs[role].read_text()[-2000:]
    assert "result:" in outputs["join"].read_text()
    assert "verified:" in outputs["watch"].read_text()
    for role, path in transcripts.items():
        checked = ran(env, "verify", str(path))
        assert checked.returncode == 0 and checked.stdout.startswith("valid: rps, "), (role, checked.stdout)


def test_a_plugin_game_is_in_help_rules_and_sim(tmp_path: Path) -> None:
    env = installed(tmp_path / "site", "rps = tests.games.rps:ENTRY")
    assert "{duel,magic-square,hornswoggle,rps}" in ran(env, "host", "--help").stdout
    assert ran(env, "rules", "rps").stdout.startswith("# ")
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"game": "rps", "actions": []}))
    simulated = ran(env, "sim", str(script))
    assert simulated.returncode == 0, simulated.stderr
    assert json.loads(simulated.stdout.splitlines()[-1])["outcome"] is None


def test_a_plugin_that_does_not_load_is_left_out_in_one_line(tmp_path: Path) -> None:
    env = installed(tmp_path / "site", "ghost = no_such_module:ENTRY\nduel = tests.games.rps:ENTRY")
    shown = ran(env, "rules", "duel")
    assert shown.returncode == 0 and shown.stdout.startswith("# ")
    assert shown.stderr.splitlines() == [
        "p2pgenius: the game plugin 'duel' (tests.games.rps:ENTRY) is left out: it names the game 'rps', "
        "not 'duel'",
        "p2pgenius: the game plugin 'ghost' (no_such_module:ENTRY) is left out: No module named "
        "'no_such_module'",
    ]


def test_the_plugin_look_up_reads_package_metadata_only_when_a_package_names_the_group(
    tmp_path: Path,
) -> None:
    """The command line skips ``importlib.metadata`` (20 ms of every start-up) only when no
    package on the path names the group: one that does, or a zip on the path, is looked at."""
    from p2pgenius.installed import may_name

    other = tmp_path / "other" / "some_tool-2.0.dist-info"
    other.mkdir(parents=True)
    (other / "entry_points.txt").write_text("[console_scripts]\nsome-tool = some_tool:main\n")
    (tmp_path / "other" / "bare-1.0.dist-info").mkdir()  # (no entry points at all)
    assert not may_name(PLUGINS, [str(tmp_path / "other"), str(tmp_path / "missing")])
    installed(tmp_path / "site", "rps = tests.games.rps:ENTRY")
    assert may_name(PLUGINS, [str(tmp_path / "other"), str(tmp_path / "site")])
    egg = tmp_path / "old" / "rps_plugin.egg-info"
    egg.mkdir(parents=True)
    (egg / "entry_points.txt").write_text(f"[{PLUGINS}]\nrps = tests.games.rps:ENTRY\n")
    assert may_name(PLUGINS, [str(tmp_path / "old")])
    (tmp_path / "plugins.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    assert may_name(PLUGINS, [str(tmp_path / "plugins.zip")])


def test_the_plugin_look_up_reads_no_package_metadata_when_no_plugin_is_installed() -> None:
    """The start-up's look-up of plugins costs a folder listing, not ``importlib.metadata``."""
    checked = subprocess.run(
        [sys.executable, "-c", "import sys; from p2pgenius.cli.main import main; main(['rules', 'duel']);"
         " assert 'importlib.metadata' not in sys.modules, 'metadata read'"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
