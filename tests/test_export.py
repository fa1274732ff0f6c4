"""`p2pgenius export` and `verify --text`: a match's record for people, as docs/export.md describes
it, from the protocol's test vectors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.cli.export import record
from p2pgenius.cli.main import main
from p2pgenius.games.registry import get_game, get_spec, names
from p2pgenius.games.spec import GameSpec
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import Step, frame, header, records, verify
from tests.patience import HANG_S

from .protocol.harness import transcript
from .protocol.test_attacks import attacked

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
GAMES = names()  # every game in the table
TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')
MOVE = re.compile(r"^(\d+)\. \S")


def vector(game: str) -> Path:
    return VECTORS / f"transcript-{game}.p2pt"


def export(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["export", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def tags(text: str) -> dict[str, str]:
    head = text.split("\n\n", 1)[0].splitlines()
    found = {}
    for line in head:
        match = TAG.match(line)
        assert match, f"not a tag line: {line!r}"
        found[match[1]] = match[2]
    return found


def moves(text: str) -> list[str]:
    return [line for line in text.split("\n\n", 1)[1].splitlines() if MOVE.match(line)]


def cut(data: bytes, count: int) -> bytes:
    """The first ``count`` records of a transcript (a match that stopped there)."""
    return b"".join(frame(encode(r)) for r in list(records(data))[:count])


@pytest.mark.parametrize("game", GAMES)
def test_the_header_names_the_game_the_players_and_the_verdict(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = verify(vector(game).read_bytes())
    found = tags(export(vector(game), capsys))
    assert list(found)[:2] == ["Event", "Game"]
    assert found["Event"] == f"p2pgenius: {get_spec(game).title}"
    assert found["Game"] == game
    assert "Date" not in found  # the vectors' headers carry none, and none is invented
    keys = report.meta["peers"]
    assert report.owner
    for seat, peer in enumerate(report.owner):
        player = found[f"P{seat}"]
        assert fingerprint(keys[peer]) in player
        assert player == f"{report.names[peer]} (peer {peer}, {fingerprint(keys[peer])})"
    assert f"P{len(report.owner)}" not in found
    assert found["Verified"] == report.summary
    assert found["Options"] == "defaults"
    assert report.outcome is not None
    winner, reason = report.outcome["winner"], str(report.outcome["reason"]).replace("_", " ")
    assert found["Result"].startswith(f"p{winner}")
    assert f"({reason}" in found["Result"]


def test_each_result_and_setup_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    duel, square, horn = (tags(export(vector(game), capsys)) for game in GAMES)
    assert duel["Result"] == "p0 wins (knocked out)"
    assert duel["Setup"] == "hp=[3,3]"
    assert square["Result"] == "p0 wins (round wins 2-0)"
    assert square["Setup"] == "defaults"
    assert horn["Result"] == "p1 and p3 win (team eliminated)"
    assert horn["Setup"] == "hands=[[1,1],[1,1],[1,1],[1,1]]"


@pytest.mark.parametrize("game", GAMES)
def test_one_numbered_line_per_stage_then_the_result(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    report = verify(vector(game).read_bytes())
    text = export(vector(game), capsys)
    lines = moves(text)
    assert len(lines) == len(report.steps) > 5
    assert [int(MOVE.match(line)[1]) for line in lines] == [s.stage + 1 for s in report.steps]  # type: ignore[index]
    assert all(len(line) < 100 for line in lines)
    body = text.split("\n\n", 1)[1].splitlines()
    assert body[:-1] == lines
    assert body[-1] == f"Result: {tags(text)['Result']}"
    assert text.endswith("\n")


def test_the_duel_in_its_notation(capsys: pytest.CaptureFixture[str]) -> None:
    lines = moves(export(vector("duel"), capsys))
    assert lines[0] == "1. p0: L=S R=S | p1: L=D R=-"
    assert lines[2] == "3. p0: L=P R=D -> Shield, Missile | p1: L=W R=S; p1 3->2 HP"
    assert lines[7] == "8. p0: L=> R=>(-) | p1: L=D R=S; p1 1->0 HP"  # one stab a turn


def test_a_paralysis_choice_a_timeout_and_a_named_target() -> None:
    game = get_game("duel")

    def gestures(left: str, right: str, **more: Any) -> dict[str, Any]:
        return {"type": "gestures", "left": left, "right": right, **more}

    stages = [
        [(0, gestures("W", "-")), (1, gestures("-", "-"))],
        [(0, gestures("W", "-")), (1, {"type": "timeout"})],
        [(0, gestures("W", ">", targets={"right": "nobody"})), (1, gestures("S", "-"))],
        [(0, {"type": "paralyze", "target": "p1", "hand": "left"})],
        [(0, gestures("-", "-")), (1, gestures("D", "-"))],
    ]
    state = initial = game.initial({}, {})
    steps = []
    for number, actions in enumerate(stages):
        for seat, action in actions:
            state = game.apply(state, seat, game.parse_action(action))
        steps.append(Step(number, tuple(actions), game.events(state), state))
    assert get_spec("duel").notation(initial, steps) == [
        "p0: L=W R=- | p1: L=- R=-",
        "p0: L=W R=- | p1: timeout L=- R=-",
        "p0: L=W R=>@nobody -> Paralysis | p1: L=S R=-; p1 paralysed",
        "p0 holds p1's left hand",
        "p0: L=- R=- | p1: L=D(S) R=-",  # the held hand repeats its S
    ]


def test_the_magic_square_in_its_notation(capsys: pytest.CaptureFixture[str]) -> None:
    lines = moves(export(vector("magic-square"), capsys))
    assert lines[:3] == ["1. p1 has p1 colour first", "2. p1 colours c2 blue", "3. p0 colours d4 red"]
    assert "18. p0 has p0 place first" in lines
    assert "19. p0 places 1 on a4" in lines
    assert "41. p0 places 16 on a1 -- round 1: p0 wins 83-53 (score)" in lines
    assert "42. p1 swaps no more" in lines
    assert lines[-1] == "66. p1 places 16 on b4 -- round 2: p0 wins 81-55 (score)"


def test_hornswoggle_shows_every_card_the_audit_opened(capsys: pytest.CaptureFixture[str]) -> None:
    text = export(vector("hornswoggle"), capsys)
    lines = moves(text)
    assert "(hidden)" not in text
    assert lines[1] == "2. opening: p0 [skull], p1 [skull], p2 [skull], p3 [doubloon]"
    assert "4. p2 bids 4 -- p2 is the challenger" in lines
    assert "5. p2 flips p2's pile: skull -- p2 fails" in lines
    assert "6. p2 discards [skull] -- round 2: p3 starts" in lines
    assert "8. p3 adds [doubloon]" in lines
    assert "17. p2 discards [doubloon] -- p2 out, round 3: p3 starts" in lines
    assert "30. p1 flips p3's pile: doubloon -- p1 succeeds" in lines


def test_hornswoggle_cut_short_shows_only_the_cards_flipped_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.p2pt"
    path.write_bytes(cut(vector("hornswoggle").read_bytes(), 80))
    text = export(path, capsys)
    lines = moves(text)
    assert tags(text)["Result"] == "incomplete"
    assert lines[-1] == "20. p0 bids 3 -- p0 is the challenger"
    # p2's opening skull was flipped; nobody else's opening card was, and no discard ever is.
    assert lines[1] == "2. opening: p0 (hidden), p1 (hidden), p2 [skull], p3 (hidden)"
    assert "6. p2 discards (hidden) -- round 2: p3 starts" in lines
    # Round 2: every card was flipped, p3's two from the top down (the added doubloon first).
    assert lines[6] == "7. opening: p0 [doubloon], p1 [doubloon], p2 [doubloon], p3 [skull]"
    assert "8. p3 adds [doubloon]" in lines
    assert "18. opening: p0 (hidden), p1 (hidden), p3 (hidden)" in lines
    assert text.endswith("Result: incomplete\n")


def test_the_same_transcript_always_gives_the_same_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for game in GAMES:
        first, second = export(vector(game), capsys), export(vector(game), capsys)
        assert first == second
        out = tmp_path / f"{game}.txt"
        assert main(["export", str(vector(game)), "--out", str(out)]) == 0
        assert capsys.readouterr().out == ""
        assert out.read_text(encoding="utf-8") == first
    # And in fresh processes, with other hash seeds (no set or dict order leaks into the text).
    texts = {
        subprocess.run(
            [sys.executable, "-m", "p2pgenius", "export", str(vector("hornswoggle"))],
            capture_output=True,
            text=True,
            check=True,
            timeout=HANG_S,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert texts == {export(vector("hornswoggle"), capsys)}


@pytest.mark.parametrize("game", GAMES)
def test_verify_text_prints_the_same_record_after_the_verdict(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = export(vector(game), capsys)
    assert main(["verify", "--text", str(vector(game))]) == 0
    out = capsys.readouterr().out
    assert out == verify(vector(game).read_bytes()).summary + "\n\n" + exported
    assert main(["verify", str(vector(game))]) == 0
    assert "[Event" not in capsys.readouterr().out  # without --text, the verdict alone


def test_a_date_in_the_header_is_shown_as_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = vector("duel").read_bytes()
    first, *rest = records(data)
    meta = first[2]
    path = tmp_path / "dated.p2pt"
    path.write_bytes(
        header(meta["peers"], meta["me"], date="2025-03-14") + b"".join(frame(encode(r)) for r in rest)
    )
    text = export(path, capsys)
    assert list(tags(text))[:3] == ["Event", "Game", "Date"]
    assert tags(text)["Date"] == "2025-03-14"
    assert moves(text) == moves(export(vector("duel"), capsys))


def test_a_fault_is_the_result_with_the_peer_at_fault(capsys: pytest.CaptureFixture[str]) -> None:
    table = attacked("magic-square", 1, "hash", lambda body: [body[0], body[1], bytes(32)])
    report = verify(transcript(table, 0))
    assert report.fault is not None
    text = record(report)
    seats = [f"p{s}" for s, peer in enumerate(report.owner) if peer == 1]
    result = f"cheat by peer 1 ({report.names[1]}: {' and '.join(seats)}) at step {report.fault.stage + 1}"
    assert tags(text)["Result"] == result
    assert tags(text)["Verified"] == report.summary
    assert text.endswith(f"Result: {result}\n")


def test_before_the_deal_the_peers_are_listed_and_before_the_terms_the_game_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = vector("duel").read_bytes()
    keys = verify(data).meta["peers"]
    path = tmp_path / "early.p2pt"
    path.write_bytes(cut(data, 2))  # the header and the terms: no seats dealt yet
    found = tags(export(path, capsys))
    assert [name for name in found if name.startswith(("P", "Peer"))] == ["Peer0", "Peer1"]
    assert found["Peer1"] == f"peer 1 (peer 1, {fingerprint(keys[1])})"
    assert (found["Game"], found["Setup"], found["Result"]) == ("duel", "hp=[3,3]", "incomplete")
    path.write_bytes(cut(data, 1))  # the header alone
    text = export(path, capsys)
    assert list(tags(text)) == ["Event", "Game", "Peer0", "Peer1", "Result", "Verified"]
    assert (tags(text)["Event"], tags(text)["Game"]) == ("p2pgenius: a match", "?")
    assert text.endswith('"]\n\nResult: incomplete\n')


def test_a_game_without_a_notation_of_its_own_gets_the_plain_one() -> None:
    step = Step(0, ((2, {"type": "bid", "count": 3}), (0, {"type": "pass"})), (), None)
    assert GameSpec.notation(get_spec("hornswoggle"), None, [step]) == ["p2 bid count=3, p0 pass"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (lambda: vector("duel").read_bytes()[:-3], "damaged record"),
        (lambda: b"\x00\x00\x00\x05junk!", "not a p2pgenius transcript"),
        (lambda: b"# A text file\n\nthat is no transcript\n", "not a p2pgenius transcript"),
        (lambda: frame(encode(["something-else", 1, {}])), "not a p2pgenius transcript"),
    ],
)
def test_a_damaged_or_foreign_file_is_one_line_of_error(
    data: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.p2pt"
    path.write_bytes(data())
    for command in (["export", str(path)], ["verify", "--text", str(path)]):
        assert main(command) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith("error: ")
        assert message in captured.err
        assert captured.err.count("\n") == 1
    assert main(["export", str(tmp_path / "missing.p2pt")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
