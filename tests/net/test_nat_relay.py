"""Every game played through the real transit relay by players behind NATs of their own, from
invites alone: real ``p2pgenius`` processes in the NAT lab (tests/net/natlab.py), where nothing
from outside reaches a private site and a packet to another site's private address is dropped
silently. Hornswoggle with four peers behind four NATs and a spectator behind a fifth; a joiner
killed and resumed through the relay."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pgenius.protocol.transcript import FINISHED, records, verify
from tests.net.natlab import RELAY_ADDRESS, Lab, needs_lab
from tests.patience import HANG_S

pytestmark = needs_lab()

RELAY = f"{RELAY_ADDRESS}:4001"
CLUB = {"duel": "wizard", "magic-square": "heuristic", "hornswoggle": "pirate"}
"""The level the hosts' bots play (a process ``--bot`` alone would play the strongest, which
searches for tens of milliseconds a decision: the relay is what is tested, not the bots)."""
THROUGH = re.compile(
    rf"connected through relay {re.escape(RELAY)} \(no direct address answered within \d+ ms\)"
)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with Lab(sites=5, workdir=tmp_path_factory.mktemp("natlab")) as built:
        built.start_relay()
        yield built


def run(
    lab: Lab, where: str, folder: Path, label: str, *args: str, home: str | None = None
) -> tuple[subprocess.Popen[str], Path]:
    """``p2pgenius ARGS`` in site ``where``, with a config directory of its own (``home``: the
    one of an earlier process); its output goes to a file (returned)."""
    output = folder / f"{label}.txt"
    with output.open("w") as sink:
        process = lab.run(
            where,
            [sys.executable, "-m", "p2pgenius", *args],
            env={"P2PGENIUS_HOME": str(folder / (home or label)), "P2PGENIUS_NO_CLIPBOARD": "1"},
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    return process, output


def said_in(output: Path, process: subprocess.Popen[str], pattern: str) -> re.Match[str]:
    """Once the running ``process`` has said what matches ``pattern``."""
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        if found := re.search(pattern, output.read_text()):
            return found
        assert process.poll() is None, output.read_text()
        time.sleep(0.02)
    raise AssertionError(f"never said {pattern!r}: {output.read_text()}")


def invite_in(output: Path, process: subprocess.Popen[str]) -> str:
    return said_in(output, process, r"p2pgenius join (p2pgenius://[a-z2-7]+)")[1]


def host(lab: Lab, folder: Path, game: str, *more: str) -> tuple[subprocess.Popen[str], Path, str]:
    args = ["host", game, "--bot", CLUB[game], "--lan", "--no-announce", "--port", "0", "--relay", RELAY]
    args += ["--grace", "30", "--transcript", str(folder / "host.p2pt"), *more]
    process, output = run(lab, "a", folder, "host", *args)
    return process, output, invite_in(output, process)


def join(lab: Lab, folder: Path, invite: str, *more: str) -> tuple[subprocess.Popen[str], Path]:
    """A bot joining from site b by ``invite``, its transcript ``join.p2pt``."""
    return run(
        lab, "b", folder, "join", "join", invite, "--bot", *more, "--transcript", str(folder / "join.p2pt")
    )


def finished(process: subprocess.Popen[str], output: Path) -> str:
    try:
        code = process.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError(f"still running: {output.read_text()[-3000:]}") from None
    said = output.read_text()
    assert code == 0, said[-3000:]
    return said


def proved(*paths: Path) -> None:
    outcomes = set()
    for path in paths:
        report = verify(path.read_bytes())
        assert report.ok and report.standing == FINISHED, report.summary
        assert not report.disputed_time and "forfeit" not in report.summary, report.summary
        outcomes.add(repr(report.outcome))
    assert len(outcomes) == 1


@pytest.mark.parametrize("game", ["duel", "magic-square"])
def test_two_players_behind_their_own_nats_play_through_the_relay(
    lab: Lab, tmp_path: Path, game: str
) -> None:
    hosting, host_out, invite = host(lab, tmp_path, game)
    joiner, join_out = join(lab, tmp_path, invite, "--grace", "30")
    joined = finished(joiner, join_out)
    hosted = finished(hosting, host_out)
    assert f"relay {RELAY} works (paired a test connection in" in hosted
    assert f"waiting for callers at relay {RELAY} too" in hosted
    assert THROUGH.search(joined)
    assert "result:" in joined and "result:" in hosted
    proved(tmp_path / "host.p2pt", tmp_path / "join.p2pt")


def test_four_hornswoggle_peers_behind_four_nats_and_a_spectator_behind_a_fifth(
    lab: Lab, tmp_path: Path
) -> None:
    # The spectator is in the lobby before the joiners call: had the relay paired its first call
    # with a joiner's, it would call again, and on a busy machine the match could be over by then.
    hosting, host_out, invite = host(lab, tmp_path, "hornswoggle", "--peers", "4", "--spectators")
    watcher, watch_out = run(
        lab, "e", tmp_path, "watch", "watch", invite, "--text", "--transcript", str(tmp_path / "watch.p2pt")
    )
    said_in(host_out, hosting, "is watching")
    joiners = [
        run(
            lab,
            site,
            tmp_path,
            f"join-{site}",
            "join",
            invite,
            "--bot",
            CLUB["hornswoggle"],
            "--grace",
            "30",
            "--transcript",
            str(tmp_path / f"join-{site}.p2pt"),
        )
        for site in ("b", "c", "d")
    ]
    for process, output in joiners:
        assert THROUGH.search(finished(process, output))
    finished(hosting, host_out)
    watched = finished(watcher, watch_out)
    assert f"connected through relay {RELAY}" in watched and "verified:" in watched
    proved(tmp_path / "host.p2pt", *(tmp_path / f"join-{site}.p2pt" for site in "bcd"))
    report = verify((tmp_path / "watch.p2pt").read_bytes())
    assert report.ok, report.summary


def messages_in(path: Path) -> int:
    try:
        return sum(1 for r in records(path.read_bytes()) if r[0] == "msg")
    except Exception:
        return 0


def killed_mid_match(process: subprocess.Popen[str], output: Path, transcript: Path) -> None:
    """SIGKILL ``process`` once its transcript holds 12 messages (the match well under way)."""
    deadline = time.monotonic() + HANG_S
    while messages_in(transcript) < 12:
        assert process.poll() is None, output.read_text()
        assert time.monotonic() < deadline, output.read_text()
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_a_joiner_killed_behind_its_nat_resumes_through_the_relay(lab: Lab, tmp_path: Path) -> None:
    hosting, host_out, invite = host(lab, tmp_path, "duel", "--pace", "0.1", "--grace", "60")
    transcript = tmp_path / "join.p2pt"
    joiner, join_out = join(lab, tmp_path, invite, "--pace", "0.1", "--grace", "60")
    killed_mid_match(joiner, join_out, transcript)
    resumed, resume_out = run(
        lab, "b", tmp_path, "resume", "resume", str(transcript), "--bot", "--grace", "60", home="join"
    )
    again = finished(resumed, resume_out)
    assert f"(or through relay {RELAY})" in again and "reconnected to the host" in again
    finished(hosting, host_out)
    proved(tmp_path / "host.p2pt", transcript)


def test_a_host_killed_behind_its_nat_resumes_and_its_joiner_comes_back_through_the_relay(
    lab: Lab, tmp_path: Path
) -> None:
    hosting, host_out, invite = host(lab, tmp_path, "duel", "--pace", "0.1", "--grace", "60")
    joiner, join_out = join(lab, tmp_path, invite, "--pace", "0.1", "--grace", "60")
    transcript = tmp_path / "host.p2pt"
    killed_mid_match(hosting, host_out, transcript)
    assert transcript.with_suffix(".invite").exists()  # (the relays and the seat token, for resume)
    resumed, resume_out = run(
        lab, "a", tmp_path, "resume", "resume", str(transcript), "--bot", "--grace", "60", home="host"
    )
    again = finished(resumed, resume_out)
    assert f"waiting for callers at relay {RELAY} too" in again
    joined = finished(joiner, join_out)
    assert "reconnected to the host" in joined
    proved(transcript, tmp_path / "join.p2pt")
