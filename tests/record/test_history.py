"""``p2pgenius history`` over real transcripts (tests/record/conftest.py): every file listed as
what it is, results for the account worked out from the transcripts themselves, only verified
results rated and counted, the index kept up to date and rebuilt to the same answer, a damaged or
foreign file listed and never deleted, the record against one player, and a bundle that proves
the results to anyone."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.cli.main import main
from p2pgenius.cli.recorded import index_path, remember
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import verify
from p2pgenius.record import bundle, index
from p2pgenius.record.index import Index
from p2pgenius.record.matches import FINISHED, STOPPED, UNREADABLE, from_report, read
from p2pgenius.record.ratings import rate


def history(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["history", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def expected(path: Path) -> str:
    """The result for the transcript's writer, worked out here from ``verify`` alone."""
    report = verify(path.read_bytes())
    me = report.meta["me"]
    seats = {seat for seat, peer in enumerate(report.owner) if peer == me}
    outcome = report.outcome
    assert outcome is not None
    team = outcome.get("winning_seats") or ([outcome["winner"]] if outcome.get("winner") is not None else [])
    return "draw" if not team else ("won" if seats & set(team) else "lost")


def test_every_file_is_listed_as_what_it_is_and_none_is_deleted(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.name for p in home.iterdir())
    listed = {Path(m["path"]).name: m for m in history(capsys)["matches"]}
    assert sorted(p.name for p in home.iterdir()) == before, "nothing deleted, nothing added in matches/"
    assert "notes.txt" in listed and "foreign" in listed["notes.txt"]["problem"]
    assert listed["20261201-150000-000000-duel-host.p2pt"]["kind"] == UNREADABLE  # damaged
    assert listed["20261201-130000-000000-duel-join.p2pt"]["result"] == "unfinished"
    # A copy cut short of a match held whole: judged with it, it is that match, counted once.
    copy = listed["20261201-130500-000000-duel-join.p2pt"]
    whole = listed["20261201-120000-000000-duel-host.p2pt"]
    assert copy["match"] == whole["match"] and copy["result"] == whole["result"] != "unfinished"
    assert copy["resume"] == ""
    # A spectator's transcript of a match this account played: the account's side, once counted.
    watched = listed["20261201-140000-000000-duel-watch.p2pt"]
    original = listed["20261201-120000-000000-duel-host.p2pt"]
    assert watched["result"] == original["result"] and watched["match"] == original["match"] != ""
    cheat = listed["20261201-160000-000000-magic-square-host.p2pt"]
    report = verify(Path(cheat["path"]).read_bytes())
    assert report.fault is not None and report.fault.kind == "cheat"
    assert report.fault.peer is not None
    held = report.names[report.fault.peer]  # (by name, not by seat)
    # A proven cheat loses the match for the cheater (breaking a lost match on purpose must not
    # keep the loss off the record): this account, the other peer, won it.
    assert cheat["kind"] == STOPPED and cheat["result"] == f"won: {held} cheated" and not cheat["verified"]
    assert not any(name.endswith((".stage", ".secrets")) for name in listed), "companions are not listed"
    finished = [m for m in listed.values() if m["kind"] == FINISHED and m["role"] == "" and m["seats"]]
    finished = [m for m in finished if m is not copy]  # (judged with the whole: checked above)
    assert len(finished) == 6
    for match in finished:
        assert match["verified"] and match["result"] == expected(Path(match["path"])), match
        assert {o["fingerprint"] for o in match["opponents"]} == {
            fingerprint(verify(Path(match["path"]).read_bytes()).meta["peers"][1])
        }
    dates = [m["date"] for m in history(capsys)["matches"]]
    assert dates == sorted(dates, reverse=True), "newest first"


def test_the_text_says_each_line_and_how_to_resume(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history"]) == 0
    text = capsys.readouterr().out
    assert "your ratings (from verified results on this machine): " in text
    assert f"p2pgenius resume {home / '20261201-130000-000000-duel-join.p2pt'}" in text
    assert "notes.txt: foreign: not a p2pgenius transcript" in text
    assert "cheated" in text and "verifies the fault" in text
    assert main(["history", "--game", "hornswoggle"]) == 0
    only = capsys.readouterr().out
    assert "1 match, newest first" in only and "hornswoggle" in only and " duel " not in only


def test_only_verified_finished_matches_are_rated_and_the_winner_rises(home: Path) -> None:
    with Index(index_path(), home) as index:
        index.refresh()
        every = index.matches()
    ratings = rate(every)
    counted = [m for m in every if m.counts]
    assert {m.game for m in counted} == set(ratings)
    for game, table in ratings.items():
        games = [m for m in counted if m.game == game]
        assert all(r.matches == len(games) for r in table.values()), "every counted match, no other"
        mine = {m.players[m.me].key for m in games if m.me is not None}
        (key,) = mine
        wins = sum(m.side() == "won" for m in games)
        losses = sum(m.side() == "lost" for m in games)
        if wins != losses:
            assert (table[key].shown > 1500) == (wins > losses), (game, wins, losses)


def test_the_index_is_kept_up_to_date_and_rebuilt_to_the_same_answer(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = history(capsys)
    assert history(capsys) == first, "read again from the index: the same"
    assert history(capsys, "--rebuild") == first
    index_path().write_bytes(b"this is no sqlite database" * 100)  # a damaged index
    assert history(capsys) == first
    assert index_path().with_name(index_path().name + ".damaged").exists(), "set aside, not deleted"
    gone = home / "20261201-120000-000000-duel-host.p2pt"
    gone.rename(home.parent / "moved.p2pt")
    assert len(history(capsys)["matches"]) == len(first["matches"]) - 1, "a file gone: its line goes"
    (home.parent / "moved.p2pt").rename(gone)
    assert history(capsys) == first


def test_a_match_that_ends_goes_into_the_record_at_once(home: Path) -> None:
    path = home / "20261201-120000-000000-duel-host.p2pt"
    remember(path)
    with Index(index_path(), home) as index:
        rows = index.db.execute("SELECT path, kind FROM matches").fetchall()
    assert rows == [(str(path), FINISHED)]
    assert read(path).kind == FINISHED


def test_the_record_against_one_player(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    duel = verify((home / "20261201-120000-000000-duel-host.p2pt").read_bytes())
    them = fingerprint(duel.meta["peers"][1])
    record = history(capsys, "--against", them[:9])
    tally = {"won": 0, "lost": 0, "draw": 0}
    seen = set()
    for match in record["matches"]:
        assert them in {o["fingerprint"] for o in match["opponents"]}
        by_fault = match["result"].startswith(("won:", "lost:"))
        proven = (match["kind"] == FINISHED and match["verified"]) or by_fault
        if proven and match["seats"] and match["match"] not in seen:
            seen.add(match["match"])  # (two transcripts of one match count once)
            tally[match["result"].split(":")[0]] += 1  # (a cheat or a forfeit loses for its side)
    assert sum(sum(n) for n in record["against"].values()) == sum(tally.values())
    assert sum(n[0] for n in record["against"].values()) == tally["won"]
    assert main(["history", "--against", them[:9]]) == 0
    assert f"against {duel.names[1]} ({them}), verified results:" in capsys.readouterr().out
    assert main(["history", "--against", "ZZZZ"]) == 2
    assert "no opponent in your record" in capsys.readouterr().err


def test_a_bundle_proves_its_results_and_a_changed_one_does_not(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "record.bundle"
    assert main(["export", "--bundle", str(out)]) == 0
    assert "check them with: p2pgenius verify" in capsys.readouterr().out
    entries = bundle.read(out.read_bytes())
    assert len(entries) == 7, "every match of the record whose result is proven (a cheat's too), no other"
    assert main(["verify", str(out), "--json"]) == 0
    proved = json.loads(capsys.readouterr().out)
    assert proved["ok"] and all(t["proves"] for t in proved["transcripts"])
    wins = sum(sum(g["won"] for g in player["games"].values()) for player in proved["record"])
    assert wins == sum(1 for t in proved["transcripts"] if t["winners"]), "one winning side a match"
    # A result changed in one transcript (a record flipped) is caught.
    name, data = entries[0]
    middle = len(data) // 2
    damaged = data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1 :]
    out.write_bytes(bundle.write([(name, damaged), *entries[1:]]))
    assert main(["verify", str(out)]) == 1
    said = capsys.readouterr().out
    assert f"NO  {name}" in said and "bundle of 7 transcripts: 6 verify" in said
    out.write_bytes(b"\x93\xb0p2pgenius bundle\x07\x90")
    assert main(["verify", str(out)]) == 1
    assert "version 7" in capsys.readouterr().err


def test_the_lobby_shows_the_ratings_this_machine_knows_and_says_so(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from p2pgenius.cli.recorded import ratings
    from p2pgenius.net.events import LobbyShown, PeerJoined
    from p2pgenius.ui.lines import plain
    from p2pgenius.ui.lobby import lobby_lines
    from p2pgenius.ui.table_state import TableState

    assert ratings("duel", [b"k" * 32]) == {}, "no record yet: nothing known, nothing said"
    listed = history(capsys, "--game", "duel")["ratings"]["duel"]
    duel = verify((home / "20261201-120000-000000-duel-host.p2pt").read_bytes())
    me, them = duel.meta["peers"]
    stranger = bytes(32)
    known = ratings("duel", [me, them, stranger])
    assert set(known) == {me, them}
    assert {r["fingerprint"]: r["rating"] for r in listed} == {
        fingerprint(k): r.shown for k, r in known.items()
    }
    lobby = {"game": "duel", "names": ["Hana", "me", "carol"], "keys": [them, me, stranger], "you": 1}
    state = TableState()
    state.ratings = ratings
    state.on_net_event(
        LobbyShown(
            {**lobby, "options": {}, "claims": [[], [], []], "ready": [True, False, False], "needed": 0}
        ),
        person=None,
    )
    text = " ".join(plain(lobby_lines(state.lobby or {}, "", state.rated)).split())
    count = known[me].matches
    head = "Ratings in duel on this machine (its record of verified matches): "
    told = f"Hana {known[them].shown} over {count} matches, you {known[me].shown} over {count} matches"
    assert f"{head}{told}, carol not yet rated." in text
    host = TableState(game="duel")
    host.ratings = ratings
    host.on_net_event(PeerJoined("Hana", them), person=None)
    assert host.log[-1].endswith(f"; rated {known[them].shown} over {count} on this machine")


def test_what_a_header_says_does_not_make_a_result_yours(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The header (me, role, date) is the writer's unsigned word: the account's own key decides.
    from p2pgenius.protocol.transcript import frame, header, records

    from .conftest import SEED

    original = home / "20261201-120000-000000-duel-host.p2pt"
    items = list(records(original.read_bytes()))
    flipped = header(items[0][2]["peers"], 1, date="2099-01-01 00:00:00 UTC") + b"".join(
        frame(encode(r)) for r in items[1:]
    )
    (home / "20261201-170000-000000-duel-host.p2pt").write_bytes(flipped)
    strangers = play("duel", seed=SEED + 4, setup={"hp": [3, 3]})
    (home / "20261201-180000-000000-duel-host.p2pt").write_bytes(transcript(strangers, 0))
    listed = {Path(m["path"]).name: m for m in history(capsys)["matches"]}
    again = listed["20261201-170000-000000-duel-host.p2pt"]
    assert (
        again["result"] == listed[original.name]["result"]
        and again["match"] == listed[original.name]["match"]
    )
    assert listed["20261201-180000-000000-duel-host.p2pt"]["result"].startswith("not yours: ")
    ratings = history(capsys)["ratings"]["duel"]
    mine = [r for r in ratings if r["you"]]
    assert len(mine) == 1 and mine[0]["matches"] == 4, "4 duels of this account, each once"
    assert main(["history"]) == 0
    assert "the same match as line" in capsys.readouterr().out


CONNECT = sqlite3.connect
"""SQLite's own connect, before a test makes its lock waits short."""


def test_odd_files_and_a_damaged_index_never_stop_the_record(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = history(capsys)
    odd = home / os.fsdecode(b"bad\xff.p2pt")  # (a name that is not UTF-8)
    odd.write_bytes(b"\x00\x00\x00\x05hello")
    listed = history(capsys)["matches"]
    assert len(listed) == len(first["matches"]) + 1 and any("\ufffd" in m["path"] for m in listed)
    # damage in the middle of the index (its first page still reads)
    data = bytearray(index_path().read_bytes())
    data[len(data) // 2 : len(data) // 2 + 512] = b"\xa5" * 512
    index_path().write_bytes(bytes(data))
    assert len(history(capsys)["matches"]) == len(listed)
    assert main(["history", "--rebuild"]) == 0


def test_an_index_another_process_holds_is_waited_for_then_said_busy_never_set_aside(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a review's find: a lock read as damage set the index aside, and every transcript was read
    # again, at the moment another p2pgenius process wrote a match's line)
    history(capsys)  # (the index made)
    monkeypatch.setattr(sqlite3, "connect", lambda path, **kw: CONNECT(path, **{**kw, "timeout": 0.2}))
    holder = CONNECT(index_path())
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert main(["history"]) == 1
        said = capsys.readouterr().err
        assert "the record's index is busy" in said and "Traceback" not in said, said
    finally:
        holder.rollback()
        holder.close()
    assert not index_path().with_name(index_path().name + ".damaged").exists()
    assert history(capsys)["matches"], "the index, let go, is read as it was"


def test_a_bundle_counts_each_match_once_and_shows_no_terminal_text(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    duel = (home / "20261201-120000-000000-duel-host.p2pt").read_bytes()
    out = tmp_path / "b.bundle"
    out.write_bytes(bundle.write([("a.p2pt", duel), ("a.p2pt: ok\n  ok  forged.p2pt", duel)]))
    assert main(["verify", str(out), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["record"]
    assert sum(sum(n.values()) for player in record for n in player["games"].values()) == 2, (
        "one match: two players"
    )
    assert main(["verify", str(out)]) == 0
    said = capsys.readouterr().out
    assert "\n  ok  forged.p2pt" not in said and "counted once" in said
    out.write_bytes(bundle.write([]))
    assert main(["verify", str(out)]) == 1
    assert "proves nothing" in capsys.readouterr().err


def test_a_bundle_of_one_says_one_transcript_and_names_who_won(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "record.bundle"
    assert main(["export", "--bundle", str(out)]) == 0
    capsys.readouterr()
    entries = bundle.read(out.read_bytes())
    out.write_bytes(bundle.write(entries[:1]))
    assert main(["verify", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("bundle of 1 transcript: 1 verifies as a proven result\n"), said
    line = next(line for line in said.splitlines() if line.startswith("  ok "))
    assert re.search(r": \w+: .+ won \(|: a draw \(", line) and not re.search(r"\bp\d\b", line), line
    assert "_" not in line.split(" won (")[-1].split(")")[0], "the ending in words"
    winner = re.search(r": \w+: (.+) won \(", line)
    assert winner is None or re.search(r"\((\w{4}-){3}\w{4}\)$", winner.group(1)), "whose key won"


def _stat_with(stat: os.stat_result, mtime_ns: int, ctime_ns: int) -> os.stat_result:
    """``stat`` with these modification and change times (as a file rewritten in place has)."""
    return os.stat_result(
        (*stat, stat.st_atime, mtime_ns / 1e9, ctime_ns / 1e9, stat.st_atime_ns, mtime_ns, ctime_ns)
    )


def test_a_file_rewritten_in_place_is_read_again_whatever_its_times_add_up_to(
    home: Path, tmp_path: Path
) -> None:
    """A file's times and inode tell a change each (review of issue 48): their sum, kept before,
    let a transcript rewritten in place with other bytes of the same size keep its old line, its
    modification time set to make up for its new change time. That setting depends on the
    kernel's clock, so the sum's blindness is shown on made-up times (the same sum, other times);
    a real file rewritten in place, its old modification time put back, is then read again."""
    path = tmp_path / "alone" / "20261201-120000-000000-duel-host.p2pt"
    path.parent.mkdir()
    path.write_bytes((home / path.name).read_bytes())
    stat = path.stat()
    later = _stat_with(stat, stat.st_mtime_ns - 1000, stat.st_ctime_ns + 1000)  # (the same sum)
    assert index._version(later) != index._version(stat)
    with index.Index(tmp_path / "index.sqlite", path.parent) as record:
        assert record.refresh(processes=1) == 1
        (before,) = record.matches()
        assert before.verified
        forged = bytearray(path.read_bytes())
        forged[-1] ^= 1  # (the last message's signature: the same size, refused now)
        with path.open("r+b") as file:  # (in place: the same inode)
            file.write(forged)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # (the old modification time)
        assert record.refresh(processes=1) == 1
        (after,) = record.matches()
        assert not after.verified, after


def test_a_match_between_two_keys_of_the_account_counts_for_nobody() -> None:
    """Host in one terminal and join from another on one account (each process plays with a key
    of the account's own): the match is the account against itself, shown so, and neither
    rated, nor counted against anyone (a newcomer's try: it was "lost" against a stranger)."""
    table = play("duel", seed=3, setup={"hp": [3, 3]})
    line = from_report("m.p2pt", verify(transcript(table, 0)))
    assert line.proves
    keys = [player.key for player in line.players]
    alone = line.owned(keys[:1])
    both = line.owned(keys)
    assert alone.counts and alone.result() in ("won", "lost")
    assert not both.counts and both.selves == (0, 1)
    assert both.result().startswith("against yourself: ") and both.result().endswith(" won")
    assert rate([alone]) and not rate([both])


def test_two_keys_of_the_account_as_partners_are_one_side_like_any_other() -> None:
    """In Hornswoggle the account's two keys may sit as partners against two strangers: that is
    no match against itself, and it counts (review of this change: it was "against yourself")."""
    table = play("hornswoggle", peers=4, seed=3)
    line = from_report("m.p2pt", verify(transcript(table, 0)))
    assert line.proves
    team = [p for p in line.players if set(p.seats) <= {0, 2}]  # (one side: seats 0 and 2)
    rivals = [p for p in line.players if set(p.seats) <= {1, 3}]
    assert len(team) == 2 and len(rivals) == 2
    partners = line.owned([p.key for p in team])
    assert not partners.against_self and partners.counts
    assert partners.result() in ("won", "lost") and rate([partners])
    split = line.owned([team[0].key, rivals[0].key])
    assert split.against_self and not split.counts and split.result().startswith("against yourself: ")
