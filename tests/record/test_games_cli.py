"""``p2pgenius games``: every match of the account in one list, live or by correspondence.

Over real transcripts of bot matches (tests/record/conftest.py) and correspondence state files
made by hand beside them (and one in the lobby, with no transcript yet): the text and the JSON
Lines, the matches that need the player before the finished ones, a damaged state file told in
one line while the rest is listed, an empty account; and :func:`listed`, the pure join of the
record and the states, on lines made by hand."""

from __future__ import annotations

import datetime
import io
import json
import os
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.cli import games
from p2pgenius.cli.games import Listing, Mail, ago, as_json, listed, text_line, when, write_text
from p2pgenius.cli.main import main
from p2pgenius.inmemory import play, transcript
from p2pgenius.net.mail_state import LOBBY, OVER, PLAYING, MailState, Next
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.identity import Identity, fingerprint
from p2pgenius.protocol.transcript import records
from p2pgenius.record.matches import FINISHED, STOPPED, UNFINISHED, Player, RecordLine
from tests.record.conftest import cut

SEED = 11  # (this account is peer 0 of every match the module plays: tests/record/conftest.py)
UTC = datetime.UTC
RELAYS = ["wss://one.example", "wss://two.example", "wss://three.example"]


def duel() -> bytes:
    """A whole duel between this account (peer 0) and peer 1; a new match each time (its salt)."""
    return transcript(play("duel", seed=SEED, setup={"hp": [3, 3]}), 0)


def halved(data: bytes) -> bytes:
    return cut(data, len(list(records(data))) // 2)


def bare(line: str) -> str:
    """A correspondence line without its last part, the command that takes the next turn."""
    return re.sub(r"; `p2pgenius resume [^`]*`$", "", line)


def state(**fields: Any) -> MailState:
    return MailState(invite="p2pgenius://test", game="duel", relays=RELAYS, **fields)


def lines_of(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert main(["games", "--offline", *args]) == 0
    return capsys.readouterr().out.splitlines()


def objects(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [json.loads(text) for text in lines_of(capsys, "--json")]


@pytest.fixture
def matches(account: Path) -> dict[str, Path]:
    """The account's matches folder: a finished duel, a finished Hornswoggle of four peers (one
    of them this account's partner), an unfinished live duel, two duels by correspondence being
    played (the other's move, then this account's), and a correspondence lobby with no
    transcript yet."""
    made = {
        "finished": account / "20261201-100000-000000-duel-host.p2pt",
        "team": account / "20261201-110000-000000-hornswoggle-host.p2pt",
        "live": account / "20261202-100000-000000-duel-host.p2pt",
        "theirs": account / "20261203-100000-000000-duel-join.p2pt",
        "yours": account / "20261204-100000-000000-duel-host.p2pt",
        "lobby": account / "20261205-100000-000000-duel-join.p2pt",
    }
    made["finished"].write_bytes(duel())
    made["team"].write_bytes(transcript(play("hornswoggle", peers=4, seed=SEED), 0))
    made["live"].write_bytes(halved(duel()))
    made["live"].with_suffix(".secrets").write_bytes(b"")
    now = time.time()
    made["theirs"].write_bytes(halved(duel()))
    state(
        role="join",
        phase=PLAYING,
        next=Next(who=["peer 1"], deadline=now + 5 * 3600),
        visited=now - 3 * 3600 - 60,
        sent=[2, 3],
    ).save(made["theirs"])
    made["yours"].write_bytes(halved(duel()))
    state(role="host", phase=PLAYING, next=Next(who=["peer 0"], mine=True, deadline=now + 20 * 86400)).save(
        made["yours"]
    )
    state(role="join", visited=now - 60).save(made["lobby"])
    return made


def test_every_match_is_listed_those_that_need_the_player_first(
    matches: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text = lines_of(capsys)
    assert text[0] == "in play (4), newest first:"
    lobby, yours, theirs, live = text[1:5]
    assert lobby.split()[0] == "duel"
    assert bare(lobby).endswith("  by correspondence  waiting for the host to start; looked 1m ago")
    assert lobby.endswith(".p2pt`") and "; `p2pgenius resume " in lobby  # (how to look again)
    them = f"peer 1 ({fingerprint(Identity.from_seed(bytes([SEED, 1]) * 16).public)})"
    assert f"by correspondence  you vs {them}: your move, deadline " in yours
    deadline = json.loads(matches["yours"].with_name(matches["yours"].name + ".mail").read_text())["next"]
    assert f"deadline {when(deadline['deadline'], time.time())} (in 19d" in yours  # (a date: weeks away)
    assert "looked" not in yours and "relays" not in yours  # (never visited, nothing sent yet)
    assert f"you vs {them}: peer 1's move, deadline " in theirs
    # (the test's clock and the command's differ by a moment: 5h ahead reads 4h59m, 3h ago 3h)
    assert re.search(r"\(in 4h59m\)|\(in 5h\)", theirs) and re.search(
        r"looked 3h(\d+m)? ago; sent to 2 of 3 relays", theirs
    ), theirs
    assert live.split()[:2] == ["duel", "live"]
    assert f"unfinished: `p2pgenius resume {matches['live']}` takes it up" in live
    assert text[5] == "finished (2), newest first:"
    team, finished = text[6:8]
    assert team.split()[:2] == ["hornswoggle", "live"] and team.count(" and ") == 1
    partner, opponents = team.split(" vs ")
    assert partner.split("live", 1)[1].strip().startswith("you and peer ")
    assert opponents.count("peer ") == 2
    assert finished.split()[:2] == ["duel", "live"] and finished.endswith("(knocked out)")
    assert len(text) == 8


def test_the_json_lines_say_each_match_for_scripts(
    matches: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    listed_ = objects(capsys)
    by_path = {Path(o["transcript"]): o for o in listed_}
    assert set(by_path) == set(matches.values())
    assert [Path(o["transcript"]) for o in listed_] == [
        matches[name] for name in ("lobby", "yours", "theirs", "live", "team", "finished")
    ]
    lobby = by_path[matches["lobby"]]
    assert lobby["status"] == LOBBY and lobby["players"] == [] and lobby["role"] == "join"
    assert lobby["mode"] == "correspondence" and lobby["relays"] == {"sent": 0, "of": 0}
    theirs = by_path[matches["theirs"]]
    assert theirs["status"] == UNFINISHED and theirs["mode"] == "correspondence"
    assert theirs["your_move"] is False and theirs["to_move"] == ["peer 1"]
    assert theirs["relays"] == {"sent": 2, "of": 3} and theirs["result"] is None
    assert isinstance(theirs["deadline"], float) and theirs["deadline_text"].startswith("deadline ")
    assert theirs["looked"] < time.time() - 3 * 3600
    assert [(p["you"], p["seats"] != []) for p in theirs["players"]] == [(True, True), (False, True)]
    yours = by_path[matches["yours"]]
    assert yours["your_move"] is True and yours["to_move"] == ["peer 0"] and yours["looked"] is None
    live = by_path[matches["live"]]
    assert live["mode"] == "live" and live["your_move"] is None and live["deadline"] is None
    assert live["relays"] is None and live["resume"] == f"p2pgenius resume {matches['live']}"
    finished = by_path[matches["finished"]]
    assert finished["status"] == FINISHED and finished["result"] in ("won", "lost", "draw")
    team = by_path[matches["team"]]
    assert sum(p["you"] for p in team["players"]) == 1 and sum(p["partner"] for p in team["players"]) == 1
    (you,) = [p for p in team["players"] if p["you"]]
    (partner,) = [p for p in team["players"] if p["partner"]]
    assert you["side"] == partner["side"] is not None
    assert all(p["side"] != you["side"] for p in team["players"] if not p["you"] and not p["partner"])
    for entry in listed_:
        assert {"game", "players", "mode", "status", "transcript", "your_move", "to_move"} <= set(entry)
        assert {"deadline", "deadline_text", "result", "looked", "relays"} <= set(entry)
        assert entry["game"] in ("duel", "hornswoggle") and entry["error"] is None


@pytest.mark.parametrize(
    ("written", "told"),
    [
        ("{not json", "is not a correspondence match's state"),
        ("[]", "is not a correspondence match's state"),
        ("", "is not a correspondence match's state"),
    ],
)
def test_a_damaged_state_is_one_line_and_the_rest_is_listed(
    account: Path, capsys: pytest.CaptureFixture[str], written: str, told: str
) -> None:
    (account / "20261201-100000-000000-duel-host.p2pt").write_bytes(duel())
    damaged = account / "20261203-100000-000000-duel-join.p2pt.mail"
    damaged.write_text(written, encoding="utf-8")
    text = lines_of(capsys)
    assert text[0] == "in play (1), newest first:"
    assert text[1].split()[:3] == ["?", "by", "correspondence"]
    assert f"{damaged} {told}" in text[1] and text[2] == "finished (1), newest first:"
    assert len(text) == 4
    (broken, whole) = objects(capsys)
    assert broken["status"] == "unreadable" and told in broken["error"] and whole["result"] is not None


def test_a_state_of_the_wrong_kind_beside_a_transcript_keeps_the_transcripts_players(
    account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = account / "20261203-100000-000000-duel-join.p2pt"
    path.write_bytes(halved(duel()))
    wrong = state(role="join", phase=PLAYING, sent=[1, "all"])
    wrong.save(path)
    head, line = lines_of(capsys)
    assert head == "in play (1), newest first:"
    assert "by correspondence  you vs peer 1 (" in line and bare(line).endswith(
        ".mail is damaged: sent of the wrong kind"
    )
    (told,) = objects(capsys)
    assert told["status"] == UNFINISHED and told["players"] and "sent of the wrong kind" in told["error"]


def test_a_damaged_transcript_is_left_to_history(account: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = duel()
    (account / "20261201-100000-000000-duel-host.p2pt").write_bytes(data[: len(data) // 2] + b"\xff" * 7)
    assert lines_of(capsys) == [
        "no matches yet: `p2pgenius play` against the computer, `p2pgenius host GAME` starts one "
        "with friends, `p2pgenius join INVITE` joins a friend's",
        "1 file in matches/ read as no transcript: `p2pgenius history` says why",
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("visited", float("inf")),
        ("visited", float("nan")),
        ("visited", 1e300),
        ("visited", True),
        ("sent", [1, 2, 3]),
        ("result", 7),
    ],
)
def test_a_state_whose_fields_cannot_be_shown_is_damaged_not_an_internal_error(
    account: Path, capsys: pytest.CaptureFixture[str], field: str, value: object
) -> None:
    path = account / "20261205-100000-000000-duel-join.p2pt"
    state(role="join").save(path)
    mail = path.with_name(path.name + ".mail")
    data = json.loads(mail.read_text(encoding="utf-8"))
    mail.write_text(json.dumps({**data, field: value}), encoding="utf-8")  # (Infinity, NaN: as JSON)
    (_, told) = lines_of(capsys)
    assert told.endswith(f"{mail} is damaged: {field} of the wrong kind")


def test_an_empty_account_says_how_to_begin(account: Path, capsys: pytest.CaptureFixture[str]) -> None:
    del account
    assert lines_of(capsys) == [
        "no matches yet: `p2pgenius play` against the computer, `p2pgenius host GAME` starts one "
        "with friends, `p2pgenius join INVITE` joins a friend's"
    ]
    assert objects(capsys) == []


def test_the_state_files_are_no_foreign_files_of_the_record(
    matches: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "--json"]) == 0
    listed_ = json.loads(capsys.readouterr().out)["matches"]
    assert not [m for m in listed_ if m["path"].endswith(".mail")]
    assert {m["path"] for m in listed_} == {str(p) for name, p in matches.items() if name != "lobby"}


def test_help_and_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["games", "--help"])
    assert done.value.code == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "usage: p2pgenius games [-h] [--offline] [--json]" in said
    assert f"the newest {games.SHOWN_FINISHED} in the text" in said
    with pytest.raises(SystemExit) as done:
        main(["games", "--open", "1"])
    assert done.value.code == 2
    assert capsys.readouterr().err.startswith("error: unrecognized arguments: --open 1")


# -- the join itself, on lines made by hand ---------------------------------------------------

ME, ANN, BOB = (Player(name, bytes([n]) * 32, (n,)) for n, name in enumerate(("me", "Ann", "Bob")))
NOW = datetime.datetime(2026, 12, 6, 12, 0, tzinfo=UTC).timestamp()  # (a Sunday)


def record(path: str, kind: str = FINISHED, match: str = "", day: int = 1, **fields: Any) -> RecordLine:
    given: dict[str, Any] = {
        "game": "duel",
        "date": f"2026-12-{day:02d} 12:00:00 UTC",
        "me": 0,
        "players": (ME, ANN),
        "winners": (0,),
        "reason": "surrender",
        "match_id": match,
    }
    return RecordLine(path, kind, kind == FINISHED, **{**given, **fields})


def test_copies_of_one_match_are_one_entry_the_one_the_state_lies_beside() -> None:
    lines = [
        record("/m/b.p2pt", UNFINISHED, "x", day=3, role="watch"),
        record("/m/a.p2pt", UNFINISHED, "x", day=2),
        record("/m/c.p2pt", UNFINISHED, "x", day=1),
        record("/m/others.p2pt", me=None, players=(ANN, BOB)),  # (a match others played)
    ]
    (only,) = listed(lines, [], now=NOW)
    assert only.transcript == "/m/a.p2pt" and only.mode == "live", "the account's own copy, not a spectator's"
    mail = Mail("/m/c.p2pt", state(role="host", phase=PLAYING, next=Next(who=["Ann"], deadline=NOW + 60)))
    (only,) = listed(lines, [mail], now=NOW)
    assert only.transcript == "/m/c.p2pt" and only.mode == "correspondence" and only.to_move == ("Ann",)
    beside_another = Mail("/m/b.p2pt", state(role="host", phase=PLAYING))
    assert len(listed(lines, [mail, beside_another], now=NOW)) == 1, "one match, however many states"


def test_the_record_says_the_result_once_a_correspondence_match_is_over() -> None:
    lines = [record("/m/a.p2pt"), record("/m/b.p2pt", UNFINISHED, day=2)]
    over = Mail("/m/b.p2pt", state(role="join", phase=OVER, result="Ann won"))
    playing = Mail("/m/a.p2pt", state(role="host", phase=PLAYING))  # (a state a visit left behind)
    first, second = listed(lines, [playing, over], now=NOW)
    assert (first.transcript, first.result) == ("/m/b.p2pt", "Ann won")
    assert (second.transcript, second.result, second.ending) == ("/m/a.p2pt", "won", "surrender")
    assert not first.open and not second.open


def test_a_match_played_on_is_listed_as_played_whatever_an_observer_reads_of_its_copy() -> None:
    # The other side sent a forfeit of this side's seat, which this side's visit refused, and
    # played on: an observer reads the copy as contested (the forfeit and its answer crossed),
    # but the match is not over, and it is this side's move.
    contested = record("/m/a.p2pt", STOPPED, fault_kind=FaultKind.CONTESTED, fault_peer=None)
    playing = Mail("/m/a.p2pt", state(role="host", phase=PLAYING, next=Next(who=["you"], mine=True)))
    (entry,) = listed([contested], [playing], now=NOW)
    assert entry.open and entry.result is None and entry.your_move is True, entry
    over = Mail("/m/a.p2pt", state(role="host", phase=OVER, result="stopped"))
    (entry,) = listed([contested], [over], now=NOW)
    assert not entry.open and entry.result is not None


def test_a_lobby_and_a_state_whose_transcript_is_gone() -> None:
    host = Mail("/m/20261205-100000-000000-duel-host.p2pt", state(role="host"))
    gone = Mail("/m/20261204-100000-000000-duel-host.p2pt", state(role="host", phase=PLAYING))
    lobby, lost = listed([], [gone, host], now=NOW)
    assert lobby.status == LOBBY and lobby.date == "2026-12-05 10:00:00"
    assert bare(text_line(lobby, NOW, UTC)).endswith("by correspondence  waiting for players (you host)")
    assert lost.status == "unreadable" and "its transcript /m/20261204" in lost.problem


def test_a_deadline_reads_as_a_person_reads_it() -> None:
    assert when(NOW + 30 * 3600, NOW, UTC) == "Mon 18:00"
    assert when(NOW - 2 * 86400, NOW, UTC) == "Fri 12:00"
    assert when(NOW + 10 * 86400, NOW, UTC) == "16 Dec 12:00"
    assert when(NOW + 30 * 86400, NOW, UTC) == "5 Jan 2027 12:00"
    assert (ago(0.5), ago(59), ago(3 * 3600 + 59 * 60), ago(2 * 86400 + 5)) == ("0s", "59s", "3h59m", "2d")
    assert ago(47 * 3600 + 30) == "1d23h"  # (not "1d": two units, the largest)
    entry = Listing(
        game="duel",
        mode="correspondence",
        status=UNFINISHED,
        transcript="/m/a.p2pt",
        date="",
        players=games.seated(record("/m/a.p2pt", UNFINISHED)),
        your_move=True,
        to_move=("me", "Ann"),
        deadline=NOW - 3 * 3600,
        looked=NOW - 30,
        relays=(0, 3),
    )
    assert bare(text_line(entry, NOW, UTC)).endswith(
        "you vs Ann (" + fingerprint(ANN.key) + "): your move (and Ann's), deadline passed Sun 09:00 "
        "(3h ago); looked 30s ago; sent to 0 of 3 relays"
    )
    assert as_json(entry, NOW, UTC)["deadline_text"] == "deadline passed Sun 09:00 (3h ago)"


def test_what_waits_on_the_relays_is_told_once_the_visits_say_it() -> None:
    mail = Mail("/m/a.p2pt", state(role="host", phase=PLAYING, next=Next(who=["Ann"])))
    (entry,) = listed([record("/m/a.p2pt", UNFINISHED)], [mail], now=NOW)
    assert bare(text_line(entry, NOW, UTC)).endswith("Ann's move")
    mail = replace(mail, waiting="2 letters for Ann not yet taken")
    (entry,) = listed([record("/m/a.p2pt", UNFINISHED)], [mail], now=NOW)
    assert bare(text_line(entry, NOW, UTC)).endswith("Ann's move; 2 letters for Ann not yet taken")
    assert as_json(entry, NOW, UTC)["waiting"] == "2 letters for Ann not yet taken"


def test_the_text_shows_the_newest_finished_and_says_how_many_more() -> None:
    lines = [record(f"/m/{day:02d}.p2pt", day=day) for day in range(1, 26)]
    entries = listed(lines, [], now=NOW)
    out = io.StringIO()
    write_text(out, entries, NOW)
    text = out.getvalue().splitlines()
    assert text[0] == "finished (25), newest first:"
    assert len(text) == 2 + games.SHOWN_FINISHED
    assert text[-1] == "  and 5 more finished: `p2pgenius history` lists them all"
    assert [entry.transcript for entry in entries] == [f"/m/{day:02d}.p2pt" for day in range(25, 0, -1)]


def test_resume_lists_unfinished_matches_newest_first_and_says_whose_move(
    account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a newcomer's try: resume's list came oldest first, two duels by mail alike but for a date)
    older, newer = (
        account / "20261201-100000-000000-duel-host.p2pt",
        account / "20261202-100000-000000-duel-join.p2pt",
    )
    state(role="host", phase=PLAYING, next=Next(who=["bob"], words="bob's move next")).save(older)
    state(role="join", phase=PLAYING, next=Next(who=["me"], mine=True, words="your move next")).save(newer)
    os.utime(older.with_name(older.name + ".mail"), (1_000_000_000, 1_000_000_000))
    assert main(["resume"]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said[0] == "error: 2 unfinished matches; choose one:", said
    assert said[1].startswith(f"  p2pgenius resume {newer}   (duel by correspondence; your move next, "), said
    assert said[2].startswith(f"  p2pgenius resume {older}   (duel by correspondence; bob's move next, "), (
        said
    )
