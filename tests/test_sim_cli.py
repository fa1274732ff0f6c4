"""`p2pgenius sim` as docs/sim.md describes it: output lines, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.cli.main import main
from p2pgenius.games.duel.spells import BY_NAME
from tests.patience import HANG_S


def run_sim(tmp_path: Path, capsys: pytest.CaptureFixture[str], script: Any) -> tuple[int, list[Any], str]:
    path = tmp_path / "script.json"
    path.write_text(script if isinstance(script, str) else json.dumps(script), encoding="utf-8")
    code = main(["sim", str(path)])
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    return code, lines, captured.err


def gestures(left: str, right: str, **extra: Any) -> dict[str, Any]:
    return {"type": "gestures", "left": left, "right": right, **extra}


MISSILE = {
    "game": "duel",
    "actions": [
        {"seat": 0, "action": gestures("S", "-")},
        {"seat": 1, "action": gestures("-", "-")},
        {"seat": 1, "action": gestures("-", "-")},
        {"seat": 0, "action": gestures("D", "-")},
    ],
}


def test_sim_prints_a_line_per_action_and_a_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines, err = run_sim(tmp_path, capsys, MISSILE)
    assert (code, err) == (0, "")
    assert [line["step"] for line in lines[:-1]] == [1, 2, 3, 4]
    assert [line["seat"] for line in lines[:-1]] == [0, 1, 1, 0]
    assert lines[0]["action"] == gestures("S", "-")
    last = lines[-1]
    assert last["outcome"] is None
    assert last["state"]["turn"] == 3
    assert [w["hp"] for w in last["state"]["wizards"]] == [15, 14]
    assert last["state"]["monsters"] == []


def test_sim_reports_the_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = {
        "game": "duel",
        "setup": {"hp": [15, 1]},
        "actions": [{"seat": 0, "action": gestures(">", "-")}, {"seat": 1, "action": gestures("-", "-")}],
    }
    code, lines, _ = run_sim(tmp_path, capsys, script)
    assert code == 0
    assert lines[-1]["outcome"] == {"winner": 0, "reason": "knocked_out"}


def test_sim_lists_monsters_as_docs_sim_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actions = []
    for gesture in BY_NAME["summon_goblin"].sequences[0]:  # whatever the spell table's sequence
        actions += [{"seat": 0, "action": gestures(gesture, "-")}, {"seat": 1, "action": gestures("-", "-")}]
    code, lines, _ = run_sim(tmp_path, capsys, {"game": "duel", "actions": actions})
    assert code == 0
    monster = lines[-1]["state"]["monsters"][0]
    assert {k: monster[k] for k in ("id", "kind", "controller", "hp")} == {
        "id": "m1",
        "kind": "goblin",
        "controller": 0,
        "hp": 1,
    }


@pytest.mark.parametrize(
    ("action", "seat", "reason"),
    [
        ({"type": "dance"}, 0, "unknown action type"),
        (gestures("X", "-"), 0, "gesture must be one of"),
        (gestures("S", "-", targets={"left": "p7"}), 0, "unknown target"),
        (gestures("S", "-", targets={"left": "m4"}), 0, "there is no monster m4"),
        (gestures(">", "-", targets={"left": "p0"}), 0, "cannot stab itself"),
        (gestures("S", "-", spells={"left": "fireball"}), 0, "does not complete"),
        (gestures("S", "-"), 5, "no seat 5"),
        (gestures("S", "-"), "0", "seat must be a whole number"),
        ("not an object", 0, "must be an object"),
        ({"type": "paralyze", "target": "p1", "hand": "left"}, 0, "no paralysis is waiting"),
        (gestures("-", "-", monsters={"p1.left": "p1.left"}), 0, "cannot attack itself"),
    ],
)
def test_sim_refuses_bad_actions_with_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: Any, seat: Any, reason: str
) -> None:
    script = {
        "game": "duel",
        "actions": [{"seat": 1, "action": gestures("-", "-")}, {"seat": seat, "action": action}],
    }
    code, lines, err = run_sim(tmp_path, capsys, script)
    assert code == 1
    assert len(lines) == 1  # the accepted first step is still printed
    assert err.startswith("error: step 2: ")
    assert reason in err
    assert err.count("\n") == 1


def test_sim_takes_an_order_for_any_hands_summons_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/sim.md: an order for a summons of this turn is never refused, for the seat's own hands
    # as for the other seat's; a hand that summons nothing makes it count for nothing.
    orders = {"p0.left": "p1", "p0.right": "nobody", "p1.left": "p0", "p1.right": "nobody"}
    script = {
        "game": "duel",
        "actions": [
            {"seat": 0, "action": gestures("-", "-", monsters=orders)},
            {"seat": 1, "action": gestures("-", "-", monsters=orders)},
        ],
    }
    code, lines, err = run_sim(tmp_path, capsys, script)
    assert (code, err) == (0, "")
    assert [w["hp"] for w in lines[-1]["state"]["wizards"]] == [15, 15]


def test_sim_refuses_a_second_submission_in_one_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = {
        "game": "duel",
        "actions": [{"seat": 0, "action": gestures("-", "-")}, {"seat": 0, "action": gestures("-", "-")}],
    }
    code, _, err = run_sim(tmp_path, capsys, script)
    assert code == 1
    assert err == "error: step 2: p0 has already submitted for turn 1\n"


@pytest.mark.parametrize(
    "script",
    [
        "{not json",
        "[1, 2]",
        json.dumps({"actions": []}),
        json.dumps({"game": "duel", "actions": 3}),
        json.dumps({"game": "chess", "actions": []}),
    ],
)
def test_sim_exits_2_on_an_unreadable_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: str
) -> None:
    code, lines, err = run_sim(tmp_path, capsys, script)
    assert code == 2
    assert lines == []
    assert err.startswith("error: ")
    assert err.count("\n") == 1


def test_sim_exits_2_on_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", str(tmp_path / "nope.json")]) == 2
    assert "cannot read script" in capsys.readouterr().err


def run_cli(*args: str, stdin: str = "", seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-m", "p2pgenius", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
        check=False,
    )


def test_the_real_command_reads_stdin_and_never_shows_a_traceback() -> None:
    done = run_cli("sim", "-", stdin=json.dumps(MISSILE))
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 5
    bad = run_cli("sim", "-", stdin='{"game": "duel", "actions": [{"seat": 0, "action": 7}]}')
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    assert bad.stderr.startswith("error: step 1: ")


def test_output_is_identical_whatever_the_hash_seed() -> None:
    actions: list[dict[str, Any]] = []
    for left, right in [tuple(pair) for pair in ["CC", "PW", "SW", "WP", "W-", "SD", "D-", ">S"]]:
        actions += [
            {"seat": 0, "action": gestures(left, right)},
            {"seat": 1, "action": gestures(right, left if left != ">" else "-")},
        ]
    script = json.dumps({"game": "duel", "actions": actions})
    outputs = {run_cli("sim", "-", stdin=script, seed=seed).stdout for seed in ("1", "2", "3")}
    assert len(outputs) == 1
    assert outputs.pop().count("\n") == len(actions) + 1


def test_usage_errors_exit_2() -> None:
    done = run_cli("frobnicate")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_sim_plays_the_magic_square(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actions: list[dict[str, Any]] = [{"seat": 1, "action": {"type": "order", "first": 0}}]
    for cell in range(16):
        actions.append({"seat": cell % 2, "action": {"type": "colour", "cell": cell}})
    actions.append({"seat": 1, "action": {"type": "order", "first": 1}})  # p1 coloured second
    actions.append({"seat": 1, "action": {"type": "place", "cell": 5}})
    actions.append({"seat": 0, "action": {"type": "challenge"}})
    actions.append({"seat": 1, "action": {"type": "concede"}})
    code, lines, err = run_sim(tmp_path, capsys, {"game": "magic-square", "actions": actions})
    assert (code, err) == (0, "")
    state = lines[-1]["state"]
    assert state["colours"] == [0, 1] * 8
    assert (state["round"], state["turn"], state["round_wins"]) == (2, 1, [1, 0])
    assert state["last_round"]["reason"] == "challenge_upheld"
    assert state["last_round"]["grid"][5] == 1


def test_sim_plays_hornswoggle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actions: list[dict[str, Any]] = [{"seat": 1, "action": {"type": "order", "first": 0}}]
    actions += [{"seat": s, "action": {"type": "place", "card": "doubloon"}} for s in (2, 0, 3, 1)]
    actions.append({"seat": 0, "action": {"type": "place", "card": "skull"}})
    actions.append({"seat": 1, "action": {"type": "bid", "count": 5}})
    actions += [{"seat": 1, "action": {"type": "flip", "pile": p}} for p in (1, 0)]
    code, lines, err = run_sim(tmp_path, capsys, {"game": "hornswoggle", "actions": actions})
    assert (code, err) == (0, "")
    state = lines[-1]["state"]
    assert state["round"] == 1
    assert state["hands"] == [[4, 2]] * 4  # every pile went back to its owner
    assert state["piles"] == [[], [], [], []]
    assert state["out"] == [False] * 4
    assert lines[-2]["state"]["piles"][0] == []
    assert lines[7]["state"]["piles"][0] == ["doubloon", "skull"]
    assert state["owing"] == [1]


def test_sim_refuses_a_card_the_seat_does_not_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = {
        "game": "hornswoggle",
        "setup": {"hands": [[4, 0], [4, 2], [4, 2], [4, 2]]},
        "actions": [
            {"seat": 1, "action": {"type": "order", "first": 0}},
            {"seat": 0, "action": {"type": "place", "card": "skull"}},
        ],
    }
    code, _, err = run_sim(tmp_path, capsys, script)
    assert code == 1
    assert err == "error: step 2: p0 has no skull in hand\n"


def test_sim_ignores_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = {
        "game": "hornswoggle",
        "options": {"time_limit": 60, "anything": True},
        "actions": [{"seat": 1, "action": {"type": "order", "first": 0}}],
    }
    code, lines, err = run_sim(tmp_path, capsys, script)
    assert (code, err) == (0, "")
    assert lines[-1]["state"]["phase"] == "opening"


def test_sim_plays_the_duels_edge_rulings_in_the_contracts_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The summons at a goblin p1's left hand summons the same turn serves p1; on the turn p0
    # surrenders, both wizards are knocked out and rise, and the surrender still ends the duel.
    def turn(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"seat": 0, "action": a}, {"seat": 1, "action": b}]

    idle = gestures("-", "-")
    summons = {
        "game": "duel",
        "actions": turn(gestures("W", "-"), gestures("W", "-"))
        + turn(gestures("W", "-"), gestures("W", "-"))
        + turn(gestures("S", "-", targets={"left": "p1.left"}), gestures("S", "-")),
    }
    code, lines, err = run_sim(tmp_path, capsys, summons)
    assert (code, err) == (0, "")
    monsters = lines[-1]["state"]["monsters"]
    assert [(m["id"], m["kind"], m["controller"]) for m in monsters] == [
        ("m1", "goblin", 1),
        ("m2", "goblin", 1),
    ]
    assert [w["hp"] for w in lines[-1]["state"]["wizards"]] == [13, 15]
    surrender = {
        "game": "duel",
        "setup": {"hp": [5, 2]},
        "actions": turn(idle, idle)
        + turn(idle, gestures("D", "-"))
        + turn(gestures("W", "-"), gestures("S", "-"))
        + turn(gestures("W", "-"), gestures("P", "-"))
        + turn(gestures("S", "-"), gestures("S", "-"))
        + turn(gestures("P", "P"), gestures("D", "-")),
    }
    code, lines, err = run_sim(tmp_path, capsys, surrender)
    assert (code, err) == (0, "")
    assert lines[-1]["outcome"] == {"winner": 0, "reason": "knocked_out"}
    assert [w["hp"] for w in lines[-1]["state"]["wizards"]] == [5, 5]  # both rose, then it ended
