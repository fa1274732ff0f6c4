"""Correspondence play in the NAT lab (tests/net/natlab.py): players behind NATs of their own, no
port open anywhere and no transit relay, only a Nostr relay (rust-nostr's, a real one) on the
public side; each player's ``p2pgenius`` process runs alone, never while another's does. A duel
between two homes, and a Hornswoggle of four peers behind four NATs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pgenius.net.mail_state import OVER, load
from p2pgenius.protocol.transcript import verify
from tests.net.natlab import RELAY_ADDRESS, Lab, needs_lab
from tests.nostr.relays import SCRIPT, local_relay_missing
from tests.patience import HANG_S

pytestmark = [
    needs_lab(),
    pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing())),
    pytest.mark.slow,
]

LONG = "P2PGENIUS_LONG_TESTS"
"""Set, the rows too long for the suite run too."""
PORT = 7777
URL = f"ws://{RELAY_ADDRESS}:{PORT}"
LEVEL = {"duel": "wizard", "hornswoggle": "pirate"}
"""Quick bot levels: the carrier is what is tested, not the bots."""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with Lab(sites=4, workdir=tmp_path_factory.mktemp("natlab-mail")) as built:
        relay = built.run(
            "pub",
            [sys.executable, str(SCRIPT), str(PORT), RELAY_ADDRESS],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert relay.stdout is not None and relay.stdout.readline().strip() == b"ready"
        built.wait_listening("a", RELAY_ADDRESS, PORT)
        yield built
        if relay.stdin is not None:
            relay.stdin.close()


def p2pgenius(lab: Lab, site: str, home: Path, *args: str) -> str:
    """One command in ``site`` for the player whose account is ``home``, alone; its output."""
    home.mkdir(parents=True, exist_ok=True)
    process = lab.run(
        site,
        [sys.executable, "-m", "p2pgenius", *args],
        env={"P2PGENIUS_HOME": str(home)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = process.communicate(timeout=HANG_S * 4)
    assert process.returncode == 0, f"{site}: {' '.join(args)}\n{out}\n{err}"
    return str(out)


def play_by_mail(lab: Lab, tmp_path: Path, game: str, sites: str) -> list[Path]:
    """Host in the first site, join from the others, then visit in turn until every side is over."""
    level = LEVEL[game]
    homes = {site: tmp_path / f"home-{site}" for site in sites}
    paths = {site: homes[site] / "matches" / f"{game}-{site}.p2pt" for site in sites}
    first, *rest = list(sites)
    peers = ["--peers", str(len(sites))] if len(sites) > 2 else []
    out = p2pgenius(
        lab,
        first,
        homes[first],
        "host",
        game,
        "--correspondence",
        "--mailbox",
        URL,
        *peers,
        "--bot",
        level,
        "--name",
        first,
        "--transcript",
        str(paths[first]),
    )
    invite = next(line.split()[-1] for line in out.splitlines() if line.strip().startswith("p2pgenius join "))
    for site in rest:
        p2pgenius(
            lab,
            site,
            homes[site],
            "join",
            invite,
            "--bot",
            level,
            "--name",
            site,
            "--transcript",
            str(paths[site]),
        )
    for _ in range(300):
        waiting = [site for site in sites if load(paths[site]).phase != OVER]  # type: ignore[union-attr]
        if not waiting:
            return list(paths.values())
        for site in waiting:
            p2pgenius(lab, site, homes[site], "resume", str(paths[site]), "--bot", level)
    raise AssertionError(f"the {game} did not end by mail in 300 rounds of visits")


def test_a_duel_between_two_homes_behind_nats_through_a_nostr_relay(lab: Lab, tmp_path: Path) -> None:
    transcripts = play_by_mail(lab, tmp_path, "duel", "ab")
    reports = [verify(path.read_bytes()) for path in transcripts]
    assert all(report.ok and report.outcome is not None for report in reports), [r.summary for r in reports]
    assert reports[0].outcome == reports[1].outcome


@pytest.mark.skipif(
    not os.environ.get(LONG),
    reason=f"about 8 minutes of its own (some 400 processes, one visit each): set {LONG}=1 to run it "
    "(the suite's 4-peer Hornswoggle through three relays, tests/correspondence, runs in-process)",
)
def test_hornswoggle_of_four_behind_four_nats_through_a_nostr_relay(lab: Lab, tmp_path: Path) -> None:
    transcripts = play_by_mail(lab, tmp_path, "hornswoggle", "abcd")
    reports = [verify(path.read_bytes()) for path in transcripts]
    assert all(report.ok for report in reports), [r.summary for r in reports]
    assert len({str(report.outcome) for report in reports}) == 1
