"""The screen's state and words, headless: what the log shows once, where a refusal is said, the
lobby, the result in the person's words, the question being asked, the boards at their edges
(negative HP, a finished Magic Square, a Hornswoggle reckoning), and the rules page."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input

from p2pgenius.games.duel.engine import DUEL
from p2pgenius.games.registry import get_game, get_spec, names
from p2pgenius.inmemory import play
from p2pgenius.net.events import Listening, LobbyShown, Reconnected
from p2pgenius.protocol.events import Applied, ConnectionLost, DecisionRefused, MatchOver
from p2pgenius.protocol.identity import Identity
from p2pgenius.rules_pages import rules_page
from p2pgenius.ui import moves
from p2pgenius.ui.app import build
from p2pgenius.ui.frame import help_footer, help_lines
from p2pgenius.ui.frontends import frontend
from p2pgenius.ui.layout import rules_view
from p2pgenius.ui.lines import namer, plain, width_of, wrap
from p2pgenius.ui.lobby import lobby_lines
from p2pgenius.ui.render import BoardRequest
from p2pgenius.ui.table import TableScreen

from .screen import Terminal, seen, settled

NAMES = {0: "ann", 1: "bob"}


@dataclass
class FakeSession:
    """Just what the screen reads of a session, over a real engine state."""

    game_name: str
    state: Any
    my_seats: tuple[int, ...] = (0,)
    owner: tuple[int, ...] = (0, 1)
    names: list[str] = field(default_factory=lambda: ["ann", "bob"])
    options: dict[str, Any] = field(default_factory=dict)
    me: int = 0
    stage: Any = None
    in_dark: bool = False
    view_claim: Any = None
    finished: bool = False
    fault: Any = None
    keys: list[bytes] = field(default_factory=list)
    log: list[Any] = field(default_factory=list)
    fast: bool = True

    @property
    def terms(self) -> dict[str, Any]:
        return {"game": self.game_name, "options": self.options}

    @property
    def engine(self) -> Any:
        return get_game(self.game_name)

    @property
    def played(self) -> int:
        return len(self.log)

    def unsettled(self) -> tuple[int, ...]:
        return ()

    def owed(self) -> tuple[int, ...]:
        return ()


@dataclass
class FakePeer:
    view: Any
    name: str = "ann"
    notify: Any = None
    pin_dir: Path = Path("/nonexistent/p2pgenius-test-pins")  # never the developer's own pins
    identity: Any = None
    expect_key: bytes | None = None
    expect_from: str = ""


def seated(game: str, state: Any, **more: Any) -> tuple[TableScreen, FakeSession]:
    table = TableScreen()
    session = FakeSession(game, state, **more)
    table.adapter.peer = FakePeer(session)  # type: ignore[assignment]
    return table, session


def gestures(state: Any, seat: int, left: str, right: str) -> Any:
    return DUEL.apply(state, seat, DUEL.parse_action({"type": "gestures", "left": left, "right": right}))


def test_the_events_of_a_turn_are_logged_once_when_a_paralysis_choice_follows() -> None:
    state = DUEL.initial({}, {})
    for _ in range(3):
        state = gestures(gestures(state, 0, "W", "-"), 1, "-", "-")
    assert state.paralysis_choices == ((1, 0),)
    table, session = seated("duel", state)
    turn = DUEL.events(state)
    table.adapter.report(session, Applied(5, (), turn))  # type: ignore[arg-type]
    state = DUEL.apply(state, 0, DUEL.parse_action({"type": "paralyze", "target": "p1", "hand": "left"}))
    session.state = state
    again = DUEL.events(state)
    assert again[: len(turn)] == turn and len(again) == len(turn) + 1  # the engine says it all again
    table.adapter.report(session, Applied(6, (), again))  # type: ignore[arg-type]
    logged = list(table.state.log)
    assert logged.count("turn 3: ann (p0) casts Paralysis (left hand) at bob (p1)") == 1  # names too
    assert sum("is paralysed" in line and "next turn" not in line for line in logged) == 1
    assert logged[-1].endswith("bob (p1)'s left hand is paralysed next turn")


def test_a_refused_choice_is_said_under_the_input_not_in_the_log() -> None:
    table, _ = seated("duel", DUEL.initial({}, {}))
    event = DecisionRefused(0, "p0 cannot flip pile 1 now")
    table.adapter.net_event(event)
    table.adapter.line(event.text)  # the network layer says its line too
    assert table.state.message == "refused: p0 cannot flip pile 1 now; choose again"
    assert not table.state.log
    other = DecisionRefused(1, "a partner's choice")  # another seat's: the log
    table.adapter.net_event(other)
    table.adapter.line(other.text)
    assert list(table.state.log) == ["p1: a partner's choice"]


def test_the_lobby_shows_whole_fingerprints_once_and_the_options_in_words() -> None:
    host, me = Identity.generate(), Identity.generate()
    lobby = {
        "game": "duel",
        "options": {"turn_seconds": 20, "fast": False},
        "setup": {},
        "names": ["bob", "ann"],
        "keys": [host.public, me.public],
        "claims": [[1], []],
        "ready": [True, False],
        "you": 1,
        "needed": 0,
        "start": False,
    }
    text = plain(lobby_lines(lobby))
    assert text.count(host.fingerprint) == 1 and me.fingerprint in text
    assert "each turn: 20s" in text and "not fast: each turn lasts its whole time" in text
    assert "=" not in text and "True" not in text and "fast=" not in text
    assert re.search(r"bob \(host\)\s+" + host.fingerprint + r"\s+seat p1", text)
    table = TableScreen()
    table.adapter.net_event(LobbyShown(lobby))
    table.adapter.line(LobbyShown(lobby).text)  # the half-fingerprint line of the network layer
    assert table.state.lobby == lobby and not any("lobby: duel" in line for line in table.state.log)
    assert "Check the host's fingerprint with them" in plain(table.text.waiting_lines())

    def joined_by_invite_of(key: bytes) -> str:
        table = TableScreen()
        fake = FakePeer(None)
        fake.expect_key, fake.expect_from = key, "the invite"
        table.adapter.peer = fake  # type: ignore[assignment]
        table.adapter.net_event(LobbyShown(lobby))
        return plain(table.text.waiting_lines())

    # Joined by invite: the key was checked against it in the handshake; nothing to check by eye.
    vouched = joined_by_invite_of(host.public)
    assert "Check the host's fingerprint" not in vouched
    assert "fingerprint: it is the key your invite names" in vouched
    assert "Check the host's fingerprint with them" in joined_by_invite_of(me.public)  # not the host's


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"turn_seconds": 86400, "fast": False}, "each turn: 1d"),  # (a duel by correspondence)
        ({"turn_seconds": 5400, "fast": True}, "each turn: 1h30m"),
        ({"fast": True}, "each turn: 1m"),  # (the default)
        ({"turn_seconds": 0, "fast": True}, "each turn: 0"),  # (a hostile host's, shown as sent)
    ],
)
def test_the_lobby_shows_a_turns_length_as_host_turn_takes_it(options: dict[str, Any], said: str) -> None:
    host, me = Identity.generate(), Identity.generate()
    lobby = {
        "game": "duel",
        "options": options,
        "setup": {},
        "names": ["bob", "ann"],
        "keys": [host.public, me.public],
        "claims": [[], []],
        "ready": [True, False],
        "you": 1,
        "needed": 0,
        "start": False,
    }
    assert said in [line.strip() for line in plain(lobby_lines(lobby)).splitlines()]


def told(game: str, outcome: dict[str, Any], mine: tuple[int, ...], names: dict[int, str]) -> str:
    """``outcome`` (its plain form) told to the person holding ``mine``, in ``game``'s words."""
    spec = get_spec(game)
    return spec.outcome_words(spec.read_outcome(outcome), names, mine=mine)


def test_the_result_is_told_to_the_person() -> None:
    assert told("duel", {"winner": 1, "reason": "surrender"}, (0,), NAMES) == "you lose (you surrendered)"
    assert told("duel", {"winner": 0, "reason": "knocked_out"}, (0,), NAMES) == (
        "you win (bob (p1) was knocked out)"
    )
    rounds = {"winner": 1, "reason": "round_wins", "round_wins": [1, 2]}
    assert told("magic-square", rounds, (1,), NAMES) == "you win, 2-1 in rounds"
    team = {"winner": 1, "reason": "team_eliminated", "winning_seats": [1, 3]}
    four = {0: "ann", 1: "bob", 2: "ann", 3: "bob"}
    assert told("hornswoggle", team, (0, 2), four).startswith("your team loses")
    assert told("hornswoggle", team, (3,), {0: "ann", 1: "bob", 2: "cy", 3: "di"}) == (
        "your team wins (ann (p0) and cy (p2) are out of cards)"
    )
    table, session = seated("duel", DUEL.initial({}, {}))
    table.state.clocks = {0: ("turn", 30.0, True), 1: ("turn", 60.0, False)}
    assert "\u25b6" in plain([table.text.clock_line()])
    table.adapter.report(session, MatchOver({"winner": 1, "reason": "surrender"}))  # type: ignore[arg-type]
    assert table.text.expected() == "match over: you lose (you surrendered). Ctrl-Q leaves."
    assert "\u25b6" not in plain([table.text.clock_line()]) and "stopped" in plain([table.text.clock_line()])


def test_the_questions_say_what_is_being_decided() -> None:
    square = get_game("magic-square")
    state = square.initial({}, {})
    assert (
        "choose who colours first: first (you) or second"
        in frontend("magic-square").question(square.view(state, 1), 1, NAMES).text
    )
    coloured = square.initial({"colours": [0, 1] * 8}, {})
    placed = square.apply(coloured, 0, square.parse_action({"type": "order", "first": 0}))
    placed = square.apply(placed, 0, square.parse_action({"type": "place", "cell": 0}))
    question = frontend("magic-square").question(square.view(placed, 1), 1, NAMES)
    assert question.text.startswith("you may challenge ann (p0)'s 1 on a1 (challenge), or play on: place 2")
    with_note = plain(
        frontend("magic-square").board(
            BoardRequest(
                "magic-square", square.view(placed, 1), NAMES, ascii_only=True, hints=False, mine=(1,)
            )
        )
    )
    without = plain(
        frontend("magic-square").board(
            BoardRequest(
                "magic-square", square.view(placed, 0), NAMES, ascii_only=True, hints=False, mine=(0,)
            )
        )
    )
    assert "you may challenge" in with_note and "you may challenge" not in without  # (where it applies)
    assert "pass" not in [c.text for c in moves.choices("magic-square", placed, 1, "", hints=False)]
    swap = {**square.view(coloured, 0), "phase": "swap", "swaps_left": 2}
    assert (
        frontend("magic-square")
        .question(swap, 0, NAMES)
        .text.startswith("swap one red and one blue cell (swap a1 b2), or done; 2 swaps left")
    )
    duel = DUEL.initial({}, {})
    for _ in range(3):
        duel = gestures(gestures(duel, 0, "W", "-"), 1, "S", "D")
    asked = frontend("duel").question(DUEL.view(duel, 0), 0, NAMES)
    assert asked.prompt == "paralyse"
    assert asked.text.startswith("choose the hand to paralyse: bob (p1)'s left repeats S, right repeats D")


def test_sent_moves_are_in_the_words_typed_and_the_time_is_the_matchs() -> None:
    square = get_game("magic-square")
    state = square.apply(
        square.initial({"colours": [0, 1] * 8}, {}), 0, square.parse_action({"type": "order", "first": 0})
    )
    table, _ = seated("magic-square", state)
    table.adapter.token = type("Token", (), {"run_sync_soon": lambda self, *a: None})()
    table.adapter.peer.offer = lambda number, seat, action: None  # type: ignore[union-attr, method-assign]
    table.state.asking = {0: 1}
    table.input.enter("b3")
    assert table.state.message == "sent: b3"
    # Cut off, a move is signed and kept, and goes once the connection is back: never "sent".
    table.adapter.net_event(ConnectionLost(0, "the host", to_host=True))
    table.state.asking = {0: 1}
    table.input.enter("b3")
    assert table.state.message == "kept: b3 (it goes to whoever is away as soon as they are back)"
    table.adapter.net_event(Reconnected(3.0, 1))
    table.state.asking = {0: 1}
    table.input.enter("b3")
    assert table.state.message == "sent: b3"
    duel_table, duel_session = seated("duel", DUEL.initial({}, {}), options={"turn_seconds": 20})
    duel_session.fast = False
    assert duel_table.text.time_words() == "the turn's time is up (20s a turn)"
    duel_table.state.asking = {0: 3}
    duel_table.adapter.token = table.adapter.token
    duel_table.adapter.peer.offer = lambda number, seat, action: None  # type: ignore[union-attr, method-assign]
    duel_table.input.enter("S D")
    assert duel_table.state.message == (
        "sent: S D; `done` lets it stand now, or change it until the turn's time is up (20s a turn)"
    )
    assert "minute" not in duel_table.state.message
    by_post, _ = seated("duel", DUEL.initial({}, {}), options={"turn_seconds": 86400})
    assert by_post.text.time_words() == "the turn's time is up (1d a turn)"  # (host --turn 1d)


def test_hp_bars_stay_in_their_box_and_a_blind_wizard_sees_no_next_spells() -> None:
    state = DUEL.initial({"hp": [2, 15]}, {})
    view = DUEL.view(state, 0)
    view["wizards"][0]["hp"] = -3
    text = plain(
        frontend("duel").board(
            BoardRequest("duel", view, NAMES, ascii_only=True, hints=False, mine=(0,), width=80, height=30)
        )
    )
    row = next(line for line in text.splitlines() if "HP -3/15" in line)
    assert re.search(r"HP -3/15 \.{15}(\s|$)", row), row  # 15 wide, no overflow
    assert all(len(line) <= 80 for line in text.splitlines())
    short = plain(  # (a short board, as at 80x24, has the HP in numbers beside the name)
        frontend("duel").board(
            BoardRequest("duel", view, NAMES, ascii_only=True, hints=False, mine=(0,), width=80, height=20)
        )
    )
    assert re.search(r"you: ann \(p0\)  HP -3/15  +opponent: bob \(p1\)  HP 15/15", short), short
    assert all(len(line) <= 80 for line in short.splitlines())
    view["wizards"][1]["left"] = "SD??"
    view["wizards"][1]["anti_spell_from"] = None
    blind = plain(
        frontend("duel").board(
            BoardRequest("duel", view, NAMES, ascii_only=True, hints=False, mine=(0,), width=80, height=20)
        )
    )
    assert "unknown while you are blind" in blind


def test_the_magic_squares_final_screen_keeps_the_last_grid_and_score() -> None:
    square = get_game("magic-square")
    view = square.view(square.initial({"colours": [0, 1] * 8}, {}), 0)
    grid = [16, 3, 2, 13, 5, 10, 11, 8, 9, 6, 7, 12, 4, 15, 14, 1]
    view.update(
        phase="over",
        round_wins=[2, 1],
        last_round={"winner": 0, "reason": "score", "scores": [72, 64], "grid": grid, "round": 3},
    )
    text = plain(
        frontend("magic-square").board(
            BoardRequest("magic-square", view, NAMES, ascii_only=True, hints=False, mine=(0,), height=14)
        )
    )
    assert "Final position" in text and "red: ann (p0) 72" in text and "blue: bob (p1) 64" in text
    assert "the last round: you won, 72-64 (score)" in text
    for number in grid:
        assert re.search(rf"[RB]\s*{number}\b", text)


def test_hornswoggle_keeps_the_reckoning_until_the_next_round_bids() -> None:
    front = frontend("hornswoggle")
    memory: dict[str, Any] = {}
    flipping = {"phase": "flipping", "round": 2, "challenger": 1, "bid": 2}
    front.remember(memory, [{"type": "flip", "seat": 1, "pile": 1, "card": "doubloon"}], flipping)
    settle: list[dict[str, Any]] = [
        {"type": "flip", "seat": 1, "pile": 0, "card": "skull"},
        {"type": "settled", "seat": 1, "success": False, "count": 2, "owing": [1], "insured": False},
    ]
    front.remember(memory, settle, {"phase": "discarding", "round": 2})
    front.remember(memory, [{"type": "discard", "seat": 1}], {"phase": "opening", "round": 3})
    reckoning = memory["reckoning"]
    assert reckoning["flips"] == [(1, "doubloon"), (0, "skull")] and reckoning["bid"] == 2
    lines = plain(_reckoning_lines(reckoning))
    assert "a skull! bob (p1) fails and discards a card" in lines
    assert "bob (p1) discards a card face down" in lines
    front.remember(memory, [], {"phase": "opening", "round": 3})
    assert "reckoning" in memory  # still there while the next round opens
    front.remember(memory, [], {"phase": "turns", "round": 3})
    assert "reckoning" not in memory
    success = {"type": "settled", "seat": 3, "success": True, "count": 1, "owing": [0], "insured": False}
    assert front.log_lines([success], None) == ["p3 flips 1 doubloon: success! each opponent discards a card"]


def _reckoning_lines(reckoning: Any) -> Any:
    from p2pgenius.ui.frontends.hornswoggle import _reckoning

    return _reckoning(reckoning, {0: "ann", 1: "bob"}, 0)


def test_a_flip_out_of_order_is_refused_before_it_is_sent() -> None:
    seen_states: list[Any] = []

    def snapshot(table: Any, peer: int, seat: int, action: Any) -> Any:
        session = table.sessions[peer]
        state = session.state
        if not seen_states and seat in session.my_seats and state.phase == "flipping":
            own = state.pirates[seat].pile
            if any(not card.flipped for card in own) and state.challenger == seat:
                seen_states.append((state, seat))
        return action

    play("hornswoggle", seed=2, levels=["pirate"] * 4, peers=4, before_submit=snapshot)
    state, seat = seen_states[0]
    other = (seat + 1) % 4
    with pytest.raises(moves.InputError, match=rf"^flip your own pile first: flip p{seat}$"):
        moves.parse("hornswoggle", f"flip p{other}", state, seat)
    assert moves.parse("hornswoggle", f"flip p{seat}", state, seat).action == {"type": "flip", "pile": seat}


def test_the_rules_page_reads_as_text_and_names_no_source_file() -> None:
    for game in names():
        page = rules_page(game)
        text = "\n".join(line for _, line in page)
        assert "**" not in text and "`" not in text and "|---" not in text and "# " not in text
        assert not re.search(r"[\w/]+\.(md|py)\b", text), game
        lines = plain(rules_view(page, 74)).splitlines()
        assert all(len(line) <= 74 for line in lines)
    duel = "\n".join(line for _, line in rules_page("duel"))
    assert "Fireball               D-S-P-S-D" in duel and "SPEC" not in duel
    assert "(see squares" not in "\n".join(line for _, line in rules_page("magic-square"))


def test_long_lines_wrap_at_spaces_instead_of_being_cut() -> None:
    text = "add a card to your pile (place doubloon or skull; you hold 3 doubloons and 2 skulls) or bid"
    lines = wrap([("", " " + text)], 40)
    assert len(lines) == 3 and all(len(plain([line])) <= 40 for line in lines)
    assert " ".join(plain([line]).strip() for line in lines) == text


def show(table: TableScreen, terminal: Terminal, keys: str = "", *, until: tuple[str, ...] = ()) -> str:
    """The screen of ``table`` (no match: a screen of its own), after ``keys``."""

    async def run() -> str:
        with create_pipe_input() as pipe:
            app = build(table, input=pipe, output=terminal.output())
            task = asyncio.ensure_future(app.run_async())
            await settled(terminal)
            if keys:
                pipe.send_text(keys)
            shown = await seen(terminal, *until) if until else await settled(terminal)
            app.exit()
            await task
            return shown

    return asyncio.run(run())


def test_the_log_follows_its_newest_line_and_pages_back_and_forth() -> None:
    table = TableScreen(game="duel")
    for number in range(1, 101):
        table.adapter.line(f"event number {number}")
    terminal = Terminal(80, 24)
    first = show(table, terminal)
    assert "event number 100" in first and "event number 80" not in first
    back = show(table, Terminal(80, 24), "\x1b[5~", until=("End: newest",))  # PageUp
    assert "event number 100" not in back and re.search(r"event number [6-9]\d\b", back)
    table.adapter.line("event number 101")  # while scrolled back, the view stays
    still = show(table, Terminal(80, 24))
    assert "event number 101" not in still
    end = show(table, Terminal(80, 24), "\x1b[F", until=("event number 101",))  # End
    assert "event number 101" in end and "End: newest" not in end


def test_a_long_message_wraps_under_the_input_at_80_columns() -> None:
    table = TableScreen(game="duel")
    table.state.message = (
        "gestures for the left and right hand, like: S D  (C D P S W, > to stab, - for nothing); "
        "then targets like left=p1"
    )
    shown = show(table, Terminal(80, 24))
    rows = shown.splitlines()
    assert rows[-2].startswith(" gestures for the left") and rows[-1].strip().endswith("targets like left=p1")


def test_the_rules_window_opens_with_f2_and_scrolls() -> None:
    top = show(TableScreen(game="duel"), Terminal(80, 24), "\x1bOQ", until=("THE WIZARD DUEL",))
    assert "rules (PageUp/PageDown, Esc closes)" in top
    scrolled = show(
        TableScreen(game="duel"), Terminal(80, 24), "\x1bOQ\x1b[6~\x1b[6~", until=("rules \\(PageUp",)
    )
    assert "THE WIZARD DUEL" not in scrolled and "rules (PageUp/PageDown, Esc closes)" in scrolled


def test_a_waiting_host_shows_its_invite_whole_on_a_line_of_its_own() -> None:
    # The invite is wider than many screens; indented inside a sentence it was cut in two when
    # copied. It stands alone, and the file it is saved in is named.
    from types import SimpleNamespace

    from p2pgenius.net.events import Listening

    table = TableScreen()
    table.adapter.peer = SimpleNamespace(identity=Identity.generate(), view=None)  # type: ignore[assignment]
    invite = "p2pgenius://" + "a" * 80
    table.adapter.net_event(Listening("[::]:7780", invite=invite, saved="/tmp/m.invite"))
    lines = plain(table.text.waiting_lines()).splitlines()
    rows = [line for line in lines if line and set(line) <= set(invite)]  # (the rows of the invite)
    assert "".join(rows) == invite  # on rows of its own, none indented: a copy of them reads
    assert all(len(line) <= 80 for line in lines)
    assert lines.index(rows[0]) + len(rows) - 1 == lines.index(rows[-1])  # (one after another)
    assert any("/tmp/m.invite" in line for line in lines)
    assert not any("[::]:7780" in line for line in lines)  # not the address bound


def test_the_log_words_events_with_names_and_always_keeps_the_seat() -> None:
    # Events are data; the game words them, with a screen's way of saying a seat.
    from p2pgenius.games.duel.words import words as duel_words
    from p2pgenius.games.hornswoggle.words import words as horn_words

    cast = {"type": "cast", "seat": 1, "hand": "left", "spell": "shield", "target": "p0"}
    assert duel_words(cast, namer({0: "Gus", 1: "Hana"})) == "Hana (p1) casts Shield (left hand) at Gus (p0)"
    assert duel_words(cast) == "p1 casts Shield (left hand) at p0"  # (without names: the seats)
    # One peer's two seats share a name; a look-alike name cannot pass for another player.
    flip = {"type": "flip", "seat": 2, "pile": 0, "card": "skull"}
    assert horn_words(flip, namer({0: "Ann", 2: "Ann"})) == "Ann (p2) flips Ann (p0)'s card: a skull"
    stab = {"type": "damage", "source": "stab", "seat": 1, "target": "p0", "amount": 1}
    assert duel_words(stab, namer({0: "Hana", 1: "p0"})) == "p0 (p1)'s stab hits Hana (p0) for 1"
    # A seat with no name, or a session's placeholder for a peer (its number is not the seat's).
    bid = {"type": "bid", "seat": 1, "count": 3, "first": False}
    assert horn_words(bid, namer({0: "Gus"})) == "p1 raises to 3"
    assert horn_words(bid, namer({0: "peer 1", 1: "peer 0"})) == "p1 raises to 3"
    goblin = {"type": "damage", "source": "monster", "seat": 1, "monster": "m1", "kind": "goblin"}
    assert (
        duel_words({**goblin, "target": "p0", "amount": 1}, namer({0: "Gus"}))
        == "m1 (goblin) hits Gus (p0) for 1"
    )


def test_a_cell_typed_when_the_order_is_asked_says_what_to_type_and_names_not_seats() -> None:
    square = get_game("magic-square")
    state = square.initial({"colours": [0, 1] * 8, "first_lead": 0}, {})
    assert state.phase == "lead" and state.actor == 0
    table, session = seated("magic-square", state)
    table.state.asking = {0: 1}
    table.input.enter("b3")  # the engine would say "expected order (...), got place"
    assert table.state.message == "choose who places first: type first (you) or second (your opponent)"
    session.my_seats, session.me = (1,), 1
    table.state.asking = {1: 1}
    table.input.enter("b3")
    assert table.state.message == "it is the other player's move"  # (the engine said "p0's ..., not p1's")
    state = square.apply(state, 0, square.parse_action({"type": "order", "first": 0}))
    state = square.apply(state, 0, square.parse_action({"type": "place", "cell": 0}))
    state = square.apply(state, 1, square.parse_action({"type": "place", "cell": 1}))
    assert state.phase == "lead" and state.actor == 1 and state.window == 0
    with pytest.raises(moves.InputError, match=r"other player's move; you may challenge .* \(pass\)$"):
        moves.parse("magic-square", "c1", state, 0)


def test_a_host_on_loopback_is_told_only_this_machine_can_join_and_one_on_the_lan_is_not() -> None:
    for local_only in (True, False):
        table = TableScreen()
        table.adapter.peer = FakePeer(None, identity=Identity.generate())  # type: ignore[assignment]
        table.adapter.net_event(
            Listening("[::]:7780", invite="p2pgenius://" + "a" * 70, local_only=local_only)
        )
        text = plain(table.text.waiting_lines())
        assert "a" * 70 in text.replace("\n", "") and table.adapter.peer.identity.fingerprint in text  # type: ignore[union-attr]
        assert ("other machines can join only with --lan" in text) == local_only
        assert all(len(line) <= 80 for line in text.splitlines())


F1, PAGE_DOWN, PAGE_UP, DOWN = "\x1bOP", "\x1b[6~", "\x1b[5~", "\x1b[B"


def test_the_help_scrolls_at_80x24_says_so_and_always_says_esc_closes_it() -> None:
    # At 80x24 the duel's help was cut: its last five lines, "Esc closes this help" among them,
    # were off the screen, and PageDown scrolled the log under it instead.
    def helped(terminal: Terminal, keys: str, until: str) -> list[str]:
        table, session = seated("duel", DUEL.initial({}, {}), options={"turn_seconds": 120})
        session.fast = False
        shown = show(table, terminal, F1 + keys, until=(until,))
        return [line[3 : terminal.columns - 3].strip() for line in shown.splitlines()]  # (in its frame)

    top = helped(Terminal(80, 24), "", r"Type both hands")
    assert any(line.startswith("PageDown (or Down) for more") for line in top), top
    assert any(line.endswith("Esc closes this help") for line in top)
    assert not any(line.startswith("Ctrl-C / Ctrl-Q") for line in top), "the help is taller than 80x24"
    end = helped(Terminal(80, 24), PAGE_DOWN, r"PageUp \(or Up\) for the start")
    assert any(line.startswith("Ctrl-C / Ctrl-Q: leave") for line in end), end
    assert any(line.endswith("Esc closes this help") for line in end)
    assert not any(line.startswith("Type both hands") for line in end)
    # Three pages down stop at its end (18 rows show: 24 less the help window's chrome): a page
    # up and two lines down go from there, not from past the end.
    table, _ = seated("duel", DUEL.initial({}, {}), options={"turn_seconds": 120})
    count = len(help_lines(table.input.help_text(), 80))
    first = max(count - 18 - 17, 0) + 2
    shows = rf"lines {first + 1}-{first + 18} of {count}"
    back = helped(Terminal(80, 24), PAGE_DOWN * 3 + PAGE_UP + DOWN * 2, shows)
    assert not any(line.startswith("Type both hands") for line in back), back
    wide = helped(Terminal(160, 50), "", r"Type both hands")
    assert any(line.startswith("Ctrl-C / Ctrl-Q: leave") for line in wide), "the whole help at 160x50"
    assert any(line == "Esc closes this help" for line in wide)
    assert "PageDown (or Down)" not in "\n".join(wide)


def test_the_helps_last_line_keeps_esc_closes_this_help_on_a_narrow_screen() -> None:
    assert help_footer(0, 24, 18, 74).startswith(" PageDown (or Down) for more (lines 1-18 of 24)")
    for width in (74, 60, 40, 30, 21):
        for top in (0, 50, 90):
            line = help_footer(top, 140, 50, width)
            assert len(line) <= width and line.endswith("Esc closes this help"), (width, line)
    assert help_footer(0, 10, 18, 74) == " Esc closes this help"  # (all of it shows)


def test_the_duels_help_says_this_matchs_turn_length() -> None:
    # It said "until the turn's minute is up" whatever the match's turns were.
    table, session = seated("duel", DUEL.initial({}, {}), options={"turn_seconds": 120})
    session.fast = False
    text = " ".join(table.input.help_text().split())
    assert "may change until the turn's time is up (2m a turn):" in text and "minute" not in text
    shown = show(table, Terminal(160, 50), F1, until=(r"Type both hands",))
    assert "until the turn's time is up (2m a turn)" in shown
    assert "until the time is up:" in moves.help_text("duel")  # (no match yet: no length guessed)


def test_the_status_bar_of_a_match_that_is_over_fits_an_80_column_screen() -> None:
    """At 80 columns the status bar said the whole result and wrapped over three rows (a newcomer's
    try): the result's words are on the board, the turn line and the log, so where they do not
    fit it says that the match is over; a wide screen keeps them."""
    table, session = seated("duel", DUEL.initial({}, {}))
    table.adapter.report(session, MatchOver({"winner": 0, "reason": "knocked_out"}))  # type: ignore[arg-type]
    for width in (80, 60):
        rows = table.text.status_lines(width)
        assert all(width_of(row) <= width for row in rows), [plain([row]) for row in rows]
        assert "the match is over" in plain(rows)
    wide = plain(table.text.status_lines(200))
    assert "the match is over: you win" in wide and "knocked out" in wide


def test_the_log_caught_up_after_a_resume_says_your_partner_as_it_did_before() -> None:
    """A peer holding a whole Hornswoggle team (a person and its bot partner): the log rebuilt
    from the transcript at a resume names the partner as the live log did ("your partner (p2,
    bot)"), not by the name it shares with the person."""
    from p2pgenius.inmemory import transcript
    from p2pgenius.ui.table_state import TableState, person_seat

    table = play("hornswoggle", peers=2, seed=3, deterministic=True)
    session = table.sessions[0].view
    assert len(session.my_seats) == 2
    person = person_seat(session)
    partner = next(seat for seat in session.my_seats if seat != person)
    state = TableState()
    state.catch_up(session, transcript(table, 0))
    said = [line for line in state.log if f"(p{partner}" in line or line.startswith(f"p{partner} ")]
    assert any(line.startswith(f"your partner (p{partner}, bot) places") for line in said), said
    assert all(f"your partner (p{partner}, bot)" in line for line in said), said
