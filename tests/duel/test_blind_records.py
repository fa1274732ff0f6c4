"""A duel with a Blindness verifies, replays and exports from each peer's transcript: the blinded
peer's replay shows what it was shown in its blind turns and says which turns those were; a
transcript that stops inside a blindness replays and exports too.

(Before: every stage seen through a claim kept no state, and ``replay`` and ``export`` stopped with
"internal error (AttributeError: 'NoneType' object has no attribute 'paralysis_choices')".)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pgenius.canonical import decode, encode
from p2pgenius.cli.export import record
from p2pgenius.cli.main import main
from p2pgenius.inmemory import MemoryTable, transcript
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session, ViewClaimed, start_table
from p2pgenius.protocol.transcript import frame, header, records, verify
from p2pgenius.ui.lines import plain
from p2pgenius.ui.replay import Replay
from tests.protocol.harness import play
from tests.protocol.test_blindness import P0, P1, Script

VECTOR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "transcript-duel-blind.p2pt"
BLIND_STAGES = [5, 6, 7]  # turns 6, 7 and 8: p1 is blinded on turn 5


@pytest.fixture(scope="module")
def table() -> MemoryTable:
    # p0 blinds p1 on turn 5, then stabs it to death (p1 starts at 3 HP).
    p0 = [*P0[:5], "--", "--", "--", ">-", ">-", ">-", ">-"]
    match = play("duel", bots=[Script(p0), Script(P1)], setup={"hp": [15, 3]}, max_rounds=200)
    assert match.faults() == []
    return match


def peer_of(table: MemoryTable, seat: int) -> int:
    return table.sessions[0].owner[seat]


def boards(replay: Replay) -> list[str]:
    """Every position's board, at 80 and at 160 columns, as text."""
    out = []
    for index in range(replay.count + 1):
        replay.jump(index)
        for width, height in ((80, 24), (160, 50)):
            out.append(plain(replay.board_lines(width, height)))
    return out


@pytest.mark.parametrize("seat", [0, 1], ids=["sighted p0", "blinded p1"])
def test_each_peers_transcript_verifies_replays_and_exports(table: MemoryTable, seat: int) -> None:
    report = verify(transcript(table, peer_of(table, seat)))
    assert report.ok, report.summary
    assert all(step.state is not None for step in report.steps)
    assert [step.stage for step in report.steps if step.dark] == BLIND_STAGES
    assert all(step.dark == (1,) for step in report.steps if step.dark)
    replay = Replay(report)
    drawn = boards(replay)
    assert not any("cannot be drawn" in board for board in drawn)
    text = record(report)
    for stage in BLIND_STAGES:
        assert f"\n{stage + 1}. p0: " in text
    assert text.count("{p1 blind}") == len(BLIND_STAGES)


def test_the_blinded_peers_replay_shows_what_it_was_shown_and_says_it_was_blind(table: MemoryTable) -> None:
    report = verify(transcript(table, peer_of(table, 1)))
    seen = [step for step in report.steps if step.seen is not None]
    assert [step.stage for step in seen] == BLIND_STAGES
    replay = Replay(report)
    for step_index, step in enumerate(report.steps, start=1):
        view = replay.views[step_index]
        entry = replay.entries[step_index]
        opponent = view["wizards"][0]
        if step.stage in BLIND_STAGES[:-1]:  # (the claim of the last blind turn shows all)
            assert opponent["hp"] is None
            assert "?" in opponent["left"]
        if step.seen is not None:
            assert "(p1) blind" in entry.head
            assert "p0:" not in entry.head  # p1 did not see p0's gestures...
            assert "p1:" in entry.head  # ...only its own
            assert any("was blind: this is what it was shown" in line for line in entry.lines)
        else:
            assert "?" not in opponent["left"]
    replay.jump(report.steps.index(seen[0]) + 1)
    board = plain(replay.board_lines(80, 24))
    assert "unseen: peer" in board and "was blind" in board


def test_the_sighted_peers_replay_shows_everything_and_marks_the_blind_turns(table: MemoryTable) -> None:
    report = verify(transcript(table, peer_of(table, 0)))
    assert all(step.seen is None for step in report.steps)
    replay = Replay(report)
    for step_index, step in enumerate(report.steps, start=1):
        assert "?" not in replay.views[step_index]["wizards"][0]["left"]
        if step.dark:
            assert "(p1) blind" in replay.entries[step_index].head
            assert "p0:" in replay.entries[step_index].head


@pytest.mark.parametrize("seat", [0, 1], ids=["sighted p0", "blinded p1"])
def test_a_transcript_that_stops_inside_the_blindness_replays_and_exports(
    table: MemoryTable, seat: int
) -> None:
    data = transcript(table, peer_of(table, seat))
    whole = list(records(data))
    # Cut right after the second claim: the withheld gestures have not come yet.
    claims = [i for i, r in enumerate(whole) if r[0] == "msg" and b"blind" in r[1][:200]]
    assert len(claims) >= 2
    cut = b"".join(frame(encode(r)) for r in whole[: claims[1] + 1])
    report = verify(cut)
    assert report.outcome is None and report.fault is None, report.summary
    unopened = [step for step in report.steps if step.state is None]
    assert [step.stage for step in unopened] == BLIND_STAGES[:2]
    replay = Replay(report)
    replay.last()
    assert "stops before" in " ".join(replay.entries[-1].lines)
    assert not any("cannot be drawn" in board for board in boards(replay))
    text = record(report)
    assert text.count("{not opened") == 2


def test_the_vector_exports_and_replays_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(VECTOR)]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    assert "{p1 blind}" in out.out and out.out.endswith("Result: p0 wins (knocked out)\n")
    # replay needs a terminal: without one it says so in one line, after reading the file.
    assert main(["replay", str(VECTOR)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: replay shows the match in the terminal UI") and "internal" not in err


@pytest.mark.parametrize("crashed_seat", [0, 1], ids=["sighted crashes", "blinded crashes"])
def test_a_peer_that_crashes_inside_the_blindness_resumes_and_every_record_holds(crashed_seat: int) -> None:
    # One peer dies right after the second blindness claim (whatever was on its way to it is
    # lost), is rebuilt from its disk, and the duel goes on to its end: both transcripts verify,
    # replay and export, with the blind turns marked.
    identities = [Identity.from_seed(bytes([7, i]) * 16) for i in range(2)]
    keys = [i.public for i in identities]
    sessions = [Session(keys=keys, me=i, identity=identities[i]) for i in range(2)]
    disk: list[list[bytes]] = [[header(keys, i)] for i in range(2)]
    secrets: list[list[bytes]] = [[], []]
    p0 = [*P0[:5], "--", "--", "--", ">-", ">-", ">-", ">-"]
    bots = [Script(p0), Script(P1)]
    inbox: list[list[bytes]] = [[], []]
    claims_seen = [0, 0]

    def flush(i: int) -> None:
        out = sessions[i].flush()
        disk[i] += [frame(r) for r in out.records]
        secrets[i] += out.secrets
        inbox[1 - i] += out.messages
        claims_seen[i] += sum(isinstance(e, ViewClaimed) for e in sessions[i].take_events())

    start_table(sessions, "duel", options={"fast": True}, setup={"hp": [15, 3]})
    flush(0)
    crashed = False
    for _ in range(10_000):
        if all(s.finished for s in sessions):
            break
        for i in (0, 1):
            while inbox[i]:
                events = sessions[i].receive(inbox[i].pop(0))
                claims_seen[i] += sum(isinstance(e, ViewClaimed) for e in events)
                flush(i)
            for seat in sessions[i].awaiting():
                action = bots[seat].choose(sessions[i].state, seat)
                sessions[i].submit(seat, action.to_plain())
                flush(i)
        owner = sessions[0].owner
        if not crashed and owner and claims_seen[owner[1]] >= 2:
            crashed = True
            victim = owner[crashed_seat]
            inbox[victim].clear()
            restored = Session.restore(
                identity=identities[victim],
                transcript=[decode(r[4:]) for r in disk[victim]],
                secrets=[decode(s) for s in secrets[victim]],
            )
            sessions[victim] = restored
            flush(victim)
            other = 1 - victim
            inbox[victim] += sessions[other].signed_log.missing_for(restored.signed_log.counts)
            inbox[other] += restored.signed_log.missing_for(sessions[other].signed_log.counts)
    assert crashed and all(s.finished for s in sessions)
    for i in (0, 1):
        report = verify(b"".join(disk[i]))
        assert report.ok, report.summary
        assert [step.stage for step in report.steps if step.dark] == BLIND_STAGES
        replay = Replay(report)
        assert not any("cannot be drawn" in board for board in boards(replay))
        assert record(report).count("{p1 blind}") == len(BLIND_STAGES)
