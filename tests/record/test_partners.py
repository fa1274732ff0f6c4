"""A Hornswoggle partner in the record: four peers, two teams of two (the game's sides say which
seats win and lose together). The partner is listed as one ("with bob vs carol, dave"), never as
an opponent: ``--against`` a partner finds no opponent and says to use ``--with``, and ``--with``
gives the record with them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.games.registry import get_spec
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import verify
from p2pgenius.record.matches import read

SEED = 5


@pytest.fixture
def four(account: Path) -> Path:
    """This account's transcript of a Hornswoggle match of four peers (it is peer 0)."""
    path = account / "20261201-120000-000000-hornswoggle-host.p2pt"
    path.write_bytes(transcript(play("hornswoggle", peers=4, seed=SEED), 0))
    return path


def sides_of(path: Path) -> tuple[str, list[str]]:
    """The fingerprints of this account's partner and of its two opponents, from the seats the
    transcript dealt and the game's sides."""
    report = verify(path.read_bytes())
    mine = report.owner.index(0) if 0 in report.owner else -1
    side = next(set(s) for s in get_spec("hornswoggle").sides if mine in s)
    seats = {peer: [seat for seat, owner in enumerate(report.owner) if owner == peer] for peer in range(1, 4)}
    keys = report.meta["peers"]
    partner = [fingerprint(keys[p]) for p, held in seats.items() if set(held) <= side]
    others = [fingerprint(keys[p]) for p, held in seats.items() if not set(held) <= side]
    assert len(partner) == 1 and len(others) == 2, seats
    return partner[0], others


def test_a_partner_is_listed_as_one_and_never_as_an_opponent(
    four: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    partner, others = sides_of(four)
    line = read(four)
    assert [p.fingerprint for p in line.partners] == [partner]
    assert sorted(p.fingerprint for p in line.opponents) == sorted(others)
    assert main(["history", "--json"]) == 0
    (match,) = json.loads(capsys.readouterr().out)["matches"]
    assert [p["fingerprint"] for p in match["partners"]] == [partner]
    assert sorted(p["fingerprint"] for p in match["opponents"]) == sorted(others)
    assert main(["history"]) == 0
    text = capsys.readouterr().out
    said = next(row for row in text.splitlines() if "hornswoggle  " in row)
    assert re.search(rf"  with peer \d \({partner}\) vs peer \d \(", said), said
    assert all(said.index(" vs ") < said.index(other) for other in others), said


def test_against_a_partner_is_refused_and_with_gives_the_record_with_them(
    four: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    partner, others = sides_of(four)
    result = read(four).side()
    assert result in ("won", "lost")
    assert main(["history", "--against", partner[:9]]) == 2
    err = capsys.readouterr().err
    assert "no opponent in your record" in err and partner in err and "(--with)" in err, err
    assert main(["history", "--with", partner[:9], "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["with"] == {"hornswoggle": [1, 0, 0] if result == "won" else [0, 1, 0]}
    assert len(record["matches"]) == 1
    assert main(["history", "--with", partner[:9]]) == 0
    assert re.search(rf"^with peer \d \({partner}\), verified results:", capsys.readouterr().out)
    assert main(["history", "--against", others[0][:9], "--json"]) == 0
    against = json.loads(capsys.readouterr().out)["against"]
    assert against == {"hornswoggle": [1, 0, 0] if result == "won" else [0, 1, 0]}
    assert main(["history", "--with", others[0][:9]]) == 2
    assert "no partner in your record" in capsys.readouterr().err
