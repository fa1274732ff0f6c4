"""`host` and `join` on the command line: options, usage errors (exit 2, one line, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.cli.play import match_setup
from p2pgenius.errors import LocalMisuseError


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["host", "duel", "--option", "round_seconds=30", "--bot"], "duel takes turn_seconds"),
        (
            ["host", "magic-square", "--option", "round_seconds=soon", "--bot"],
            "--option round_seconds='soon': a duration is like 90s, 5m, 12h, 1d or 1h30m",
        ),
        (["host", "duel", "--option", "turn_seconds=0m", "--bot"], "a duration is more than nothing"),
        (["host", "duel", "--turn", "1x", "--bot"], "'1x': a duration is like 90s, 5m, 12h, 1d or 1h30m"),
        (["host", "duel", "--turn", "31d", "--bot"], "'31d': a time limit is 1s to 30d"),
        (["host", "duel", "--turn=-1d", "--bot"], "'-1d': a duration is like 90s"),
        (
            ["host", "duel", "--turn", "1d", "--option", "turn_seconds=12h", "--bot"],
            "--turn and --option turn_seconds both set each turn: give one of them",
        ),
        (["host", "duel", "--bot", "--grace", "8d"], "'8d': the grace period is 1s to 7d"),
        (["host", "duel", "--bot", "--grace", "2x"], "'2x': a duration is like 90s"),
        (["host", "magic-square", "--fast", "--bot"], "--fast is a duel option"),
        (["host", "duel", "--bot", "perfect"], "no bot level 'perfect' for duel"),
        (["host", "duel"], "the terminal UI needs a terminal"),
        (["join", "127.0.0.1:9"], "the terminal UI needs a terminal"),
        (["join", "nowhere", "--bot"], "expected HOST:PORT"),
        (["resume", "/nonexistent/match.p2pt"], "cannot read /nonexistent/match.p2pt"),
        # Checked before anything listens (each used to start a host no joiner could play with).
        (["host", "duel", "--bot", "--port", "99999"], "'99999' is not a port: 0 (any free port) to 65535"),
        (["host", "duel", "--bot", "--grace", "0"], "the grace period is 1s to 7d"),
        (["join", "127.0.0.1:9", "--bot", "--grace", "inf"], "the grace period is 1s to 7d"),
        (["host", "duel", "--bot", "--option", "turn_seconds=" + "9" * 20], "a time limit is 1s to 30d"),
        (
            ["host", "duel", "--bot", "--option", "turn_seconds=31d"],
            "'turn_seconds=31d': a time limit is 1s to",
        ),
        (["host", "duel", "--bot", "--seat", "5"], "--seat 5: one peer's seats in duel with 2 peers are"),
        (["host", "hornswoggle", "--bot", "--seat", "0", "--seat", "1"], "are 0 and 2; 1 and 3"),
        (["resume", "a.p2pt", "--transcript", "b.p2pt"], "a.p2pt or --transcript b.p2pt, not both"),
        (["host", "hornswoggle", "--bot", "--setup", "garnets=[1]"], "--setup: hornswoggle setup: garnets"),
        (["host", "duel", "--bot", "--correspondence", "--setup", "hp=[3,3]"], "by correspondence plays"),
        # --transcript names the match to resume (it was overruled by the missing positional).
        (["resume", "--transcript", "/nonexistent/x.p2pt"], "cannot read /nonexistent/x.p2pt"),
    ],
)
def test_bad_play_usage_exits_2_with_one_line(
    argv: list[str],
    said: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusal of an option's value
        code = exc.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert code == 2
    assert said in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_time_options_reach_the_match_options() -> None:
    from argparse import Namespace

    from p2pgenius.cli.play import match_options

    args = Namespace(game="duel", option=["turn_seconds=30"], turn=None, fast=None, bot=None)
    assert match_options(args) == {"turn_seconds": 30, "fast": False}
    args = Namespace(game="duel", option=[], turn=None, fast=None, bot="wizard")
    assert match_options(args) == {"fast": True}  # bots play fast duels unless told otherwise
    args = Namespace(
        game="magic-square",
        option=["round_seconds=300", "challenge_seconds=60"],
        turn=None,
        fast=None,
        bot=None,
    )
    assert match_options(args) == {"round_seconds": 300, "challenge_seconds": 60}


@pytest.mark.parametrize(
    ("argv", "options"),
    [
        (["host", "duel", "--turn", "1d"], {"turn_seconds": 86400, "fast": False}),
        (["host", "duel", "--option", "turn_seconds=12h"], {"turn_seconds": 43200, "fast": False}),
        (["host", "duel", "--option", "turn_seconds=90"], {"turn_seconds": 90, "fast": False}),  # (as before)
        (["host", "hornswoggle", "--turn", "1h30m"], {"decision_seconds": 5400}),
        (
            ["host", "magic-square", "--turn", "2D12H", "--option", "challenge_seconds=1d"],
            {"round_seconds": 216000, "challenge_seconds": 86400},
        ),
        (["host", "duel", "--turn", "30d"], {"turn_seconds": 30 * 86400, "fast": False}),
    ],
)
def test_a_turns_length_reaches_the_match_terms_as_people_write_it(
    argv: list[str], options: dict[str, object]
) -> None:
    # A match by correspondence: a duel of a turn a day (issue 46). The game's first time option
    # is its main clock, which --turn sets; each engine takes such a length as its option.
    from p2pgenius.cli.main import build_parser
    from p2pgenius.cli.play import match_options
    from p2pgenius.games.registry import get_spec

    args = build_parser().parse_args(argv)
    assert match_options(args) == options
    get_spec(args.game).engine.initial({}, options)  # (the engine's own check takes it)


@pytest.mark.parametrize(("given", "seconds"), [("2h", 7200.0), ("90", 90.0), ("1.5", 1.5), ("7d", 604800.0)])
def test_the_grace_period_reads_as_a_duration_or_seconds(given: str, seconds: float) -> None:
    from p2pgenius.cli.main import build_parser

    assert build_parser().parse_args(["host", "duel", "--grace", given]).grace == seconds
    assert build_parser().parse_args(["join", "127.0.0.1:9", "--grace", given]).grace == seconds


def test_a_turn_told_again_after_a_paralysis_choice_is_printed_once() -> None:
    # The duel engine tells a whole turn again when a Paralysis choice finishes it; the printed
    # moves showed the turn twice.
    import io

    from p2pgenius.cli.play import Printer
    from p2pgenius.protocol.events import Applied
    from p2pgenius.protocol.session import Session

    out = io.StringIO()
    printer = Printer(out, moves=True)
    session = Session(keys=[bytes(32), bytes(32)], me=None)
    session.setup.terms = {"game": "duel"}
    cast = {
        "type": "cast",
        "blind_sees": [0, 1],
        "seat": 0,
        "hand": "left",
        "spell": "paralysis",
        "target": "p1",
    }
    choice = {"type": "enchant", "blind_sees": [0, 1], "spell": "paralysis", "target": "p1", "hand": "left"}
    choice["why"] = "chosen"
    printer.event(session.view, Applied(3, (), (cast,)))
    printer.event(session.view, Applied(4, (), (cast, choice)))
    assert out.getvalue().count("casts Paralysis") == 1
    assert "p1's left hand is paralysed next turn" in out.getvalue()


def test_a_stopped_or_unfinished_match_is_one_line_on_standard_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import io
    from types import SimpleNamespace

    from p2pgenius.cli.play import Printer, finish

    files = SimpleNamespace(transcript=tmp_path / "m.p2pt")
    fault = SimpleNamespace(reason="p1 forfeits: no answer to a timeout claim for 5 seconds")
    stopped = SimpleNamespace(view=SimpleNamespace(outcome=None, fault=fault), files=files)
    out = io.StringIO()
    assert finish(stopped, Printer(out, moves=True)) == 1  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert err == "error: the match stopped: p1 forfeits: no answer to a timeout claim for 5 seconds\n"
    assert out.getvalue() == f"transcript (evidence): {files.transcript}\n"
    unfinished = SimpleNamespace(view=SimpleNamespace(outcome=None, fault=None), files=files)
    assert finish(unfinished, Printer(out, moves=True)) == 1  # type: ignore[arg-type]
    assert (
        capsys.readouterr().err
        == f"error: the match did not finish; carry on with: p2pgenius resume {files.transcript}\n"
    )


def test_the_result_is_told_to_the_person_who_played_and_who_won_by_name() -> None:
    import io
    from types import SimpleNamespace

    from p2pgenius.cli.play import Printer, finish
    from p2pgenius.games.base import Outcome
    from p2pgenius.games.magic_square.state import SquareEnding

    view = SimpleNamespace(
        outcome=Outcome(1, SquareEnding.ROUND_WINS, details={"round_wins": [1, 2]}),
        game_name="magic-square",
        fault=None,
        owner=(0, 1),
        names=("ann", "bob"),
        my_seats=(1,),
    )
    out = io.StringIO()
    files = SimpleNamespace(transcript="m.p2pt")
    peer = SimpleNamespace(view=view, files=files)
    assert finish(peer, Printer(out, moves=False), by_name=True) == 0  # type: ignore[arg-type]
    line = out.getvalue().splitlines()[0]
    assert line.startswith("result: you win, 2-1 in rounds; that is, bob (p1) wins"), line
    assert "that is, p1" not in line, "by name, not by seat alone"


def test_the_notice_of_another_process_waits_for_the_screen_instead_of_being_hidden_by_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    from argparse import Namespace

    from p2pgenius.cli.play import Printer, make_peer
    from p2pgenius.net.keystore import claim_identity

    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    claim_identity()  # another p2pgenius of this account is playing (this test process holds it)
    out = io.StringIO()
    printer = Printer(out, moves=False)
    args = Namespace(
        bot=None, name="ann", transcript=str(tmp_path / "m.p2pt"), log=None, pace=0.0, grace=60.0
    )
    make_peer(args, "join", 1, printer)
    assert out.getvalue() == "" and any("another p2pgenius of this account" in line for line in printer.held)
    args.bot = ""
    make_peer(args, "join", 1, printer)  # (with a bot there is no screen: printed at once)
    assert "another p2pgenius of this account" in out.getvalue()


def test_the_set_up_comes_from_setup_options_checked_by_the_game() -> None:
    """``--setup KEY=VALUE`` (VALUE in JSON) sets the terms' setup, so that Hornswoggle's Hacked
    Garnets, and with them Bluff Insurance, can be played (a second newcomer's try: no option set
    them, and `insure` was always refused); the game's engine checks it before anyone joins."""
    assert match_setup("hornswoggle", ["garnets=[1,0,1,0]"]) == {"garnets": [1, 0, 1, 0]}
    assert match_setup("duel", ["hp=[3,3]", "hp=[5,5]"]) == {"hp": [5, 5]}  # (the last one)
    assert match_setup("magic-square", []) == {}
    for game, given, said in (
        ("hornswoggle", ["garnets=[1,0]"], "garnets must be 4 whole numbers"),
        ("duel", ["hp"], "KEY=VALUE, the VALUE in JSON"),
        ("duel", ["hp=[3,"], "KEY=VALUE, the VALUE in JSON"),
        ("duel", ["colour=[1]"], "unknown field 'colour'"),
        ("duel", ["hp=[1.5,2]"], "hp must be two whole numbers"),
    ):
        with pytest.raises(LocalMisuseError, match=said):
            match_setup(game, given)


def test_ctrl_c_on_a_bot_s_match_under_way_says_how_to_carry_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Ctrl-C stops a `--bot` peer mid-match as it always did (exit 130), and says where the match
    is kept and how to carry on, as the terminal UI does (a second newcomer's try: "error:
    interrupted" alone)."""
    import io
    from argparse import Namespace
    from types import SimpleNamespace

    from p2pgenius.cli.play import Printer, played

    async def interrupted() -> None:
        raise KeyboardInterrupt

    files = SimpleNamespace(transcript=tmp_path / "m.p2pt")
    under_way = SimpleNamespace(view=SimpleNamespace(outcome=None, fault=None), files=files)
    args = Namespace(bot="", game=None)
    assert played(args, under_way, interrupted, Printer(io.StringIO(), moves=True)) == 130  # type: ignore[arg-type]
    said = capsys.readouterr().err
    kept = f"the match is kept; carry on with: p2pgenius resume {files.transcript}"
    assert said == f"error: interrupted: {kept}\n"
    before = SimpleNamespace(view=None, files=files)  # (no match yet: nothing to carry on with)
    with pytest.raises(KeyboardInterrupt):
        played(args, before, interrupted, Printer(io.StringIO(), moves=True))  # type: ignore[arg-type]
