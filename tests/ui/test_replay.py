"""``p2pgenius replay``: the model stepping through the three vector transcripts, the boards and
logs it draws, the screen through a real terminal emulator (pyte) at 80x24 and 160x50, the keys,
and the command's one-line refusals."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from p2pgenius.canonical import encode
from p2pgenius.cli.main import main
from p2pgenius.games.registry import get_spec, names
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import Report, frame, records, verify
from p2pgenius.rules_pages import rules_page
from p2pgenius.ui.lines import namer, plain
from p2pgenius.ui.replay import Replay, ReplayError, build
from tests.patience import HANG_S

from .harness import until
from .screen import Terminal, seen, settled

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
GAMES = names()  # (every game in the table: each has its transcript vector)
RIGHT, LEFT, HOME, END, BACKSPACE, CTRL_Q = "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F", "\x7f", "\x11"
F2, ESC = "\x1bOQ", "\x1b"
Send = Callable[[str], None]


def transcript(game: str) -> bytes:
    return (VECTORS / f"transcript-{game}.p2pt").read_bytes()


def replay_of(game: str) -> Replay:
    return Replay(verify(transcript(game)))


def cut(data: bytes, count: int) -> bytes:
    """The first ``count`` records of a transcript (a match that stopped there)."""
    return b"".join(frame(encode(record)) for record in list(records(data))[:count])


def fingerprints(report: Report) -> list[str]:
    return [fingerprint(key) for key in report.meta["peers"]]


# -- the model ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_the_model_steps_forward_back_and_jumps(game: str) -> None:
    replay = replay_of(game)
    steps = replay.report.steps
    assert replay.count == len(steps) > 5
    last = replay.numbers[-1]  # (the steps' count, or the duel's turns)
    assert replay.index == 0 and replay.where() == f"{replay.unit} 0 of {last} (the start)"
    replay.forward()
    replay.forward()
    assert replay.index == 2
    replay.back()
    assert replay.index == 1 and replay.message == ""
    replay.back()
    replay.back()  # already at the start: stays, and says so
    assert replay.index == 0 and "start" in replay.message
    replay.last()
    assert replay.index == replay.count and replay.view() is replay.views[-1]
    replay.forward()  # already at the last step
    assert replay.index == replay.count and "last step" in replay.message
    replay.first()
    assert replay.index == 0
    replay.jump(replay.count + 10)
    assert replay.index == replay.count
    replay.jump(-3)
    assert replay.index == 0
    # Each position shows the state after that many steps.
    for index in (1, replay.count // 2, replay.count):
        replay.jump(index)
        assert replay.view() == replay.front.spectator_view(steps[index - 1].state)
    assert replay.view(0) == replay.front.spectator_view(replay.report.initial)


@pytest.mark.parametrize("game", ["magic-square", "hornswoggle"])
def test_go_finds_the_step_the_status_bar_names(game: str) -> None:
    # One numbering: the steps from 1, as export counts them (the protocol's stages, counted from
    # 0, are not shown: "go 31" landed on step 32).
    replay = replay_of(game)
    assert replay.unit == "step"
    assert replay.go(3)
    assert replay.index == 3 and replay.where() == f"step 3 of {replay.count}"
    replay.enter("go 0")
    assert replay.index == 0 and replay.where() == f"step 0 of {replay.count} (the start)"
    replay.enter(str(replay.count))  # a number alone
    assert replay.index == replay.count
    assert not replay.go(replay.count + 1)
    assert replay.index == replay.count, "an unknown step moves nothing"
    assert (
        replay.message == f"no step {replay.count + 1} in this match: steps 0 (the start) to {replay.count}"
    )


def test_go_finds_a_duel_turn() -> None:
    replay = replay_of("duel")
    assert replay.unit == "turn"
    assert replay.go(3)
    view = replay.view()
    assert view["turn"] == 4, "the state after turn 3 was played"
    assert replay.where() == "turn 3 of 8"
    replay.enter("go 1")
    assert replay.view()["turn"] == 2
    assert not replay.go(9) and "turns 0 (the start) to 8" in replay.message
    assert replay.view()["turn"] == 2, "an unknown turn moves nothing"
    assert replay.go(0) and replay.index == 0


def test_typed_commands() -> None:
    replay = replay_of("duel")
    assert replay.enter("next") is False and replay.index == 1
    replay.enter("last")
    assert replay.index == replay.count
    replay.enter("back")
    assert replay.index == replay.count - 1
    replay.enter("first")
    assert replay.index == 0
    replay.enter("jump somewhere")
    assert "go N" in replay.message and replay.index == 0
    assert replay.enter("q") is True and replay.enter("quit") is True


def test_the_duel_board_at_the_last_step_shows_the_final_hp() -> None:
    replay = replay_of("duel")
    replay.last()
    final = replay.report.steps[-1].state
    text = plain(replay.board_lines(80, 20))
    for wizard in final.wizards:
        assert f"HP {wizard.hp:>2}/{wizard.max_hp}" in text
    assert [w.hp for w in final.wizards] == [1, 0]
    assert "the duel is over: peer 1 (p0) wins (knocked out)" in text  # (the winner by name)
    assert "you" not in text and "opponent" not in text, "a replay calls nobody you"
    assert "peer 1 (p0)" in text and "peer 0 (p1)" in text
    replay.first()
    assert text != plain(replay.board_lines(80, 20))
    assert plain(replay.board_lines(80, 20)).count("HP  3/15") == 2


def test_the_magic_square_board_at_the_last_step_keeps_the_final_grid() -> None:
    replay = replay_of("magic-square")
    replay.last()
    grid = replay.report.steps[-1].state.last_round["grid"]
    lines = plain(replay.board_lines(80, 20)).splitlines()
    for row in range(4):
        line = next(line for line in lines if re.match(rf"^\s+{row + 1}\s", line))
        assert [int(n) for n in re.findall(r"\d+", line)[1:]] == grid[4 * row : 4 * row + 4]
    text = "\n".join(lines)
    assert "Final position" in text and "81-55" in text
    assert "you" not in text


def test_hornswoggle_shows_the_cards_the_transcript_opens() -> None:
    replay = replay_of("hornswoggle")
    # the step after which every pirate has put its opening card face down
    replay.jump(next(k for k, state in enumerate(replay.states) if all(p.pile for p in state.pirates)))
    state = replay.states[replay.index]
    faces = {"doubloon": "d", "skull": "s"}
    lines = plain(replay.board_lines(80, 20)).splitlines()
    for seat, pirate in enumerate(state.pirates):
        line = next(line for line in lines if f"(p{seat})" in line)
        assert re.search(rf"pile {faces[pirate.pile[0].card]}\b", line), line
        assert "team " + "AB"[seat % 2] in line
    assert "p3: place doubloon" in plain(replay.entry_lines(replay.index, 200))
    replay.last()
    text = plain(replay.board_lines(80, 20))
    final = replay.report.steps[-1].state
    for seat, pirate in enumerate(final.pirates):
        if pirate.discarded:
            shown = " ".join(card[0].upper() for card in pirate.discarded)
            assert re.search(rf"\(p{seat}\).*discarded {shown}", text), text
    assert "reckoning" in text and "\u25a0" not in text.split("piles bottom")[0]


def test_an_unfinished_hornswoggle_keeps_the_cards_it_never_opened_hidden() -> None:
    data = transcript("hornswoggle")
    replay = Replay(verify(cut(data, len(list(records(data))) // 2)))
    assert replay.verdict() == ("incomplete", False) and replay.result() == "no result yet"
    replay.jump(next(k for k, state in enumerate(replay.states) if all(p.pile for p in state.pirates)))
    assert "p3: place (face down)" in plain(replay.entry_lines(replay.index, 200))
    lines = plain(replay.board_lines(80, 20)).splitlines()
    assert all(re.search(r"pile \u25a0", line) for line in lines if re.search(r"\(p\d\)", line))
    replay.last()
    assert "the transcript ends here, with no result" in plain(replay.log_lines(200))


def test_the_log_holds_the_steps_up_to_the_current_one_highlighted() -> None:
    replay = replay_of("duel")
    replay.go(2)
    lines = replay.log_lines(60)
    text = plain(lines)
    assert "turn 2  p0: > S; p1: P -" in text
    assert "turn 2: p1 casts Shield (left hand) at p1" in text
    assert "turn 3" not in text and "Missile" not in text, "nothing after the current step"
    head = next(line for line in lines if "turn 2  " in plain([line]))
    assert head[0][0] == "class:current"
    old = next(line for line in lines if "turn 1  " in plain([line]))
    assert old[0][0] != "class:current"
    assert plain([lines[-1]]).strip() == "p0's stab at p1 is blocked by a shield", "newest last"
    replay.last()
    shown = replay.log_lines(60, 8)
    assert len(shown) == 8 and "the match is over: peer 1 (p0) wins (knocked out)" in plain(shown)
    assert plain(shown).splitlines()[-1].strip().startswith("the match is over"), "the newest shows"
    # A step longer than the log shows its first line.
    first = plain(replay.log_lines(60, 2)).splitlines()[0]
    assert first.startswith("turn 8  ")


@pytest.mark.parametrize("game", GAMES)
def test_the_status_says_game_players_step_verdict_result(game: str) -> None:
    replay = replay_of(game)
    replay.last()
    for width in (80, 160):
        lines = replay.status_lines(width)
        text = plain(lines)
        assert all(len(line) <= width for line in text.splitlines())
        assert game in text or replay.title in text
        for print_ in fingerprints(replay.report):
            assert print_ in text
        assert f"{replay.unit} {replay.numbers[-1]} of {replay.numbers[-1]}" in text and " valid " in text
        assert f"{replay.unit} 0 " not in text and "stage" not in text  # (one numbering)
    assert len(replay.status_lines(160)) == 1  # (all of it fits on one row at 160)


def test_nothing_to_replay_before_the_deal() -> None:
    with pytest.raises(ReplayError, match="before the seats were dealt"):
        Replay(verify(cut(transcript("duel"), 3)))


# -- the screen -----------------------------------------------------------------------------------


def drive(replay: Replay, terminal: Terminal, driver: Callable[[Send], Awaitable[None]]) -> None:
    """Run the replay's application on ``terminal`` while ``driver`` types; it must leave."""

    async def run() -> None:
        with create_pipe_input() as keys:
            app = build(replay, input=keys, output=terminal.output())
            shown = asyncio.ensure_future(app.run_async())
            await seen(terminal, r"replay>")
            await driver(keys.send_text)
            await asyncio.wait_for(shown, HANG_S)

    asyncio.run(run())


def marked(terminal: Terminal, row: int, text: str, attribute: str) -> bool:
    """Whether ``text`` on ``row`` is drawn with ``attribute`` (reverse, bold)."""
    start = terminal.lines()[row].index(text)
    line = terminal.screen.buffer[row]
    return all(getattr(line[x], attribute) for x in range(start, start + len(text)) if line[x].data.strip())


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
@pytest.mark.parametrize("game", GAMES)
def test_the_screen_at_the_last_step(game: str, size: tuple[int, int]) -> None:
    columns, rows = size
    terminal = Terminal(columns, rows)
    replay = replay_of(game)
    screens: list[str] = []
    styled: dict[str, bool] = {}
    here, before = replay.mark(replay.count) + "  ", replay.mark(replay.count - 1) + "  "

    async def driver(send: Send) -> None:
        send(END)
        await until(lambda: replay.index == replay.count)
        screens.append(await settled(terminal))
        rows = terminal.lines()
        head = next(i for i, line in enumerate(rows) if here in line)
        over = next(i for i, line in enumerate(rows) if "the match is over:" in line)
        styled["head reversed"] = marked(terminal, head, here, "reverse")
        styled["end bold"] = marked(terminal, over, "the match is over", "bold")
        styled["end reversed"] = marked(terminal, over, "the match is over", "reverse")
        styled["before bold"] = any(
            marked(terminal, i, before, "bold") for i, line in enumerate(rows) if before in line
        )
        send("q")

    drive(replay, terminal, driver)
    text = screens[0]
    lines = text.splitlines()
    status = "\n".join(lines[:3])
    for print_ in fingerprints(replay.report):
        assert print_ in status, "every player's whole fingerprint in the status bar"
    assert re.search(rf"\b(replay: )?({re.escape(replay.title)}|{game})\b", lines[0])
    assert replay.where() in status and "valid" in status
    assert {
        "duel": "peer 1 (p0) wins (knocked out)",
        "magic-square": "peer 1 (p0) wins, 2-0 in rounds",
        "hornswoggle": "peer 0 (p1/p3) wins (team eliminated)",
    }[game] in status
    board = {"duel": r"HP  1/15.*HP  0/15", "magic-square": r"1\s.*15.*1.*10.*8", "hornswoggle": r"Round 4"}
    assert re.search(board[game], text), text
    # The current step: its first line highlighted, and every event it told on the screen.
    head = next(i for i, line in enumerate(lines) if here in line)
    spec = get_spec(game)
    for event in replay.report.steps[-1].events:
        words = spec.words(event, namer(replay.names)).split(" (")[0][:24]  # (a log row holds 24)
        assert words in text, (words, text)
    # Highlighted: the current step's first line stands out, the rest of it is bold, and the step
    # before (if it shows) is not.
    assert styled == {"head reversed": True, "end bold": True, "end reversed": False, "before bold": False}
    assert re.search(r"^replay>", text, re.MULTILINE) and "F1 help" in text
    assert lines.index(next(line for line in lines if line.startswith("replay>"))) >= rows - 2
    if columns >= 160:  # the log beside the board, in a frame of its own, on the same rows
        assert "what happened" in lines[head] or any("what happened" in line for line in lines[:4])
        board_row = next(i for i, line in enumerate(lines) if re.search(board[game].split(".")[0], line))
        assert board_row < 8 and head < rows - 2
        if game == "duel":
            assert "Power Word Kill" in text and "P-W-P-W-S-S-S-D" in text  # the whole spell book
    else:
        rule = next(i for i, line in enumerate(lines) if "what happened" in line)
        assert rule < head, "the log under the board"


def test_the_keys_move_the_step() -> None:
    terminal = Terminal(80, 24)
    replay = replay_of("duel")
    seen_at: dict[str, int] = {}

    async def press(send: Send, keys: str, index: int, name: str) -> None:
        send(keys)
        await until(lambda: replay.index == index)
        seen_at[name] = replay.index
        await seen(terminal, rf"turn {replay.numbers[index]} of 8")

    async def driver(send: Send) -> None:
        await press(send, RIGHT, 1, "right")
        await press(send, "n", 2, "n")
        await press(send, " ", 3, "space")
        await press(send, LEFT, 2, "left")
        await press(send, "p", 1, "p")
        await press(send, BACKSPACE, 0, "backspace")
        await press(send, END, replay.count, "end")
        await press(send, HOME, 0, "home")
        await press(send, "go 5\r", replay.numbers.index(5), "go")
        assert replay.view()["turn"] == 6
        send("go 42\r")
        await seen(terminal, r"no turn 42 in this match: turns 0 \(the start\) to 8")
        assert replay.index == replay.numbers.index(5)
        send("\x1bOP")  # F1: the help
        await seen(terminal, r"Right, Space or n\s+the next step")
        send(RIGHT)  # a step closes it
        await until(lambda: not replay.help_open and replay.view()["turn"] == 7)
        send(CTRL_Q)

    drive(replay, terminal, driver)
    assert seen_at == {
        "right": 1,
        "n": 2,
        "space": 3,
        "left": 2,
        "p": 1,
        "backspace": 0,
        "end": 8,
        "home": 0,
        "go": 5,
    }


def test_f2_and_rules_open_the_whole_rules_page_the_board_names() -> None:
    """The board's rules in brief say "F2: the whole rules page": in the replay F2 (or ``rules``
    typed) opens it over the board, and F2 again, or Esc, closes it (a newcomer's try: F2 did
    nothing here, and ``rules`` was an unknown command)."""
    terminal = Terminal(80, 24)
    replay = replay_of("duel")
    first = rules_page("duel")[0][1]

    async def driver(send: Send) -> None:
        send(F2)
        await until(lambda: replay.help_open and replay.rules_open)
        await seen(terminal, first)
        send(F2)
        await until(lambda: not replay.help_open)
        send("rules\r")
        await until(lambda: replay.help_open and replay.rules_open)
        await seen(terminal, first)
        send(ESC)
        await until(lambda: not replay.help_open and not replay.rules_open)
        send("\x1bOP")  # F1: the help, not the rules
        await seen(terminal, r"F2, or rules typed\s+the whole rules page")
        assert not replay.rules_open
        send(CTRL_Q)

    drive(replay, terminal, driver)


# -- the command ----------------------------------------------------------------------------------


def test_replay_without_a_terminal_says_so_and_points_to_export(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = VECTORS / "transcript-duel.p2pt"
    code = main(["replay", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "needs a terminal" in err and f"p2pgenius export {path}" in err


def test_a_damaged_transcript_is_one_line_before_any_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = transcript("magic-square")
    damaged = tmp_path / "damaged.p2pt"
    damaged.write_bytes(data[: len(data) // 2])
    assert main(["replay", str(damaged)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: cannot replay {damaged}: a damaged record")
    early = tmp_path / "early.p2pt"
    early.write_bytes(cut(data, 3))
    assert main(["replay", str(early)]) == 1
    assert "nothing to replay" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.p2pt")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_command_opens_the_screen_in_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[Replay] = []

    class Tty(io.StringIO):
        encoding = "utf-8"

        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Tty())
    monkeypatch.setattr("sys.stdout", Tty())
    monkeypatch.setattr("p2pgenius.ui.replay.run", shown.append)
    assert main(["replay", str(VECTORS / "transcript-hornswoggle.p2pt"), "--ascii"]) == 0
    assert len(shown) == 1 and shown[0].ascii_only and shown[0].game == "hornswoggle"


def test_a_live_replay_follows_the_newest_step_unless_stepped_back() -> None:
    # A spectator's screen (p2pgenius watch) reads the match again as it goes on.
    whole = verify((VECTORS / "transcript-magic-square.p2pt").read_bytes())

    def upto(n: int) -> Report:
        return dataclasses.replace(whole, steps=whole.steps[:n])

    replay = Replay(upto(10))
    replay.last()
    replay.update(upto(12))
    assert replay.index == 12  # following
    replay.back()
    replay.update(upto(15))
    assert replay.index == 11 and replay.count == 15  # stepped back: stays


def test_the_heads_of_older_steps_in_the_log_are_grey() -> None:
    from p2pgenius.ui.style import REPLAY_STYLE

    replay = Replay(verify(transcript("hornswoggle")))
    replay.jump(5)
    styles = {style for line in replay.log_lines(60, 40) for style, _ in line}
    old = [style for style in styles if "old" in style]
    assert old, styles
    for style in old:  # every class the log uses for older steps is one the style defines
        attrs = REPLAY_STYLE.get_attrs_for_style_str(style)
        assert style != "class:old-head" or attrs.color == "ansigray", (style, attrs)
    assert "class:old-head" in styles


@pytest.mark.parametrize("live", [False, True])
def test_a_result_no_other_player_signed_is_shown_as_no_result(live: bool) -> None:
    # A copy whose last messages are one peer's alone (the other's end left out): its moves yield
    # a result, which the replay, and a spectator's screen, never show as the match's.
    import json

    vector = json.loads((Path(__file__).parents[2] / "protocol/vectors/forgeries.json").read_text())
    case = next(f for f in vector["forgeries"] if f["verdict"] == "unconfirmed")
    report = verify(bytes.fromhex(case["transcript"]))
    replay = Replay(report, live=live)
    replay.last()
    verdict, good = replay.verdict()
    ending = "\n".join(replay._ending())
    if live:  # (the other's signature may still come)
        assert (verdict, good) == ("checked so far", True) and "waiting for" in ending
        replay.stop("the host closed the connection")
    assert replay.verdict() == ("unconfirmed", False)
    assert replay.result().startswith("unconfirmed: ")
    assert "never signed it: no result" in "\n".join(replay._ending())
    assert "the match is over" not in "\n".join(replay._ending())


@pytest.mark.parametrize("width", [80, 160])
def test_a_live_watch_cut_off_says_its_calls_again_on_the_status_bar_in_place(width: int) -> None:
    # Each call again updates the status bar (not the log: one line as the cut began, one as the
    # watching went on); back, the status says the match goes on again.
    replay = Replay(Report(ok=False, summary="", meta={"role": "watch"}), live=True)
    notes = list(replay.notes)
    for attempt in (1, 2):
        replay.away = f"reconnecting (attempt {attempt}, away 2s): relay 10.0.0.1:4001 cannot be reached"
        shown = " ".join(text for line in replay.status_lines(width) for _, text in line)
        assert f"reconnecting (attempt {attempt}, away 2s)" in shown, shown
    replay.away = ""
    shown = " ".join(text for line in replay.status_lines(width) for _, text in line)
    assert "reconnecting" not in shown and "not begun yet" in shown
    assert replay.notes == notes  # (nothing in the log)
