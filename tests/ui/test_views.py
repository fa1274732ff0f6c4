"""The UI is a view of state: boards, hidden information, blindness, ASCII, completions, the
fault screen and both layouts, checked as the text a player would see."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pgenius.games.duel.engine import DUEL
from p2pgenius.games.registry import get_game, names
from p2pgenius.inmemory import play
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.session import Fault
from p2pgenius.ui.app import MoveCompleter, build
from p2pgenius.ui.frontends import InputError, frontend
from p2pgenius.ui.frontends import duel as duel_front
from p2pgenius.ui.frontends import magic_square as square_front
from p2pgenius.ui.render import BoardRequest, plain
from p2pgenius.ui.table import TableScreen


def test_hornswoggle_shows_your_cards_and_only_counts_of_everyone_elses() -> None:
    seen: list[Any] = []

    def snapshot(table: Any, peer: int, seat: int, action: Any) -> Any:
        session = table.sessions[peer]
        if not seen and 0 in session.my_seats and all(p.pile for p in session.state.pirates):
            seen.append((session.state, session.played.match.game.view(session.state, 0)))  # mid-round
        return action

    play("hornswoggle", seed=1, levels=["pirate"] * 4, peers=4, before_submit=snapshot)
    state, view = seen[0]
    text = plain(
        frontend("hornswoggle").board(
            BoardRequest(
                "hornswoggle",
                view,
                {0: "ann", 1: "bob", 2: "cy", 3: "di"},
                ascii_only=True,
                hints=False,
                mine=(0,),
            )
        )
    )
    rows = text.splitlines()

    def about(seat: int) -> str:  # a pirate's line: who, hand, pile
        return next(line for line in rows if f"(p{seat})" in line)

    mine = about(0)
    doubloons, skulls = view["hand"]
    assert f"hand {doubloons} doubloon" in mine and f"{skulls} skull" in mine
    faces = " ".join("d" if c == "doubloon" else "s" for c in view["my_pile"])  # face down: small
    assert f"pile {faces}" in mine and "you" in mine
    for seat in (1, 2, 3):
        line = about(seat)
        assert f"hand {view['hand_counts'][seat]} card" in line and "pile ?" in line
        assert "doubloon" not in line and " d" not in line.split("pile")[1]
    assert "your partner" in about(2) and "opponent" in about(1) and "opponent" in about(3)
    # This machine never had the others' cards: its state holds them as unknown.
    unflipped = [card for card in state.pirates[1].pile if not card.flipped]
    assert unflipped and all(card.card is None for card in unflipped)


def test_a_blinded_wizard_sees_the_opponents_gestures_hidden() -> None:
    state = DUEL.initial({}, {})
    view = DUEL.view(state, 0)
    view["wizards"][1]["left"] = "SD??"
    view["wizards"][1]["right"] = "PW??"
    view["wizards"][1]["hp"] = "?"
    unicode_text = plain(
        frontend("duel").board(
            BoardRequest("duel", view, {0: "ann", 1: "bob"}, ascii_only=False, hints=False, mine=(0,))
        )
    )
    assert "S D \u25a0 \u25a0" in unicode_text
    assert "you are blind" in unicode_text
    ascii_text = plain(
        frontend("duel").board(
            BoardRequest("duel", view, {0: "ann", 1: "bob"}, ascii_only=True, hints=False, mine=(0,))
        )
    )
    assert "S D ? ?" in ascii_text


def test_the_ascii_fallback_has_no_character_beyond_ascii() -> None:
    for game in names():
        engine = get_game(game)
        state = engine.initial({"colours": [0, 1] * 8} if game == "magic-square" else {}, {})
        view = engine.view(state, 0)
        text = plain(
            frontend(game).board(
                BoardRequest(game, view, {0: "ann", 1: "bob"}, ascii_only=True, hints=True, mine=(0,))
            )
        )
        assert text.isascii(), game
        fancy = plain(
            frontend(game).board(
                BoardRequest(game, view, {0: "ann", 1: "bob"}, ascii_only=False, hints=True, mine=(0,))
            )
        )
        assert len(fancy.splitlines()) == len(text.splitlines())


def test_the_magic_square_hint_marks_exactly_the_cells_that_keep_a_square_possible() -> None:
    engine = get_game("magic-square")
    state = engine.initial({"colours": [0, 1] * 8}, {})
    state = engine.apply(state, 0, engine.parse_action({"type": "order", "first": 0}))
    state = engine.apply(state, 0, engine.parse_action({"type": "place", "cell": 0}))
    view = engine.view(state, 1)
    hinted = plain(
        frontend("magic-square").board(
            BoardRequest("magic-square", view, {}, ascii_only=True, hints=True, mine=(1,))
        )
    )
    plain_board = plain(
        frontend("magic-square").board(
            BoardRequest("magic-square", view, {}, ascii_only=True, hints=False, mine=(1,))
        )
    )
    assert "*" in hinted and "*" not in plain_board
    from p2pgenius.games.magic_square.squares import index

    good = set(index().next_cells([0]))
    offered = square_front.square_choices(state, 1, hints=True)
    marked = {square_front.parse_cell(c.text) for c in offered if "keeps a magic square possible" in c.meta}
    assert marked == good


def test_completion_offers_legal_duel_moves_with_what_they_cast() -> None:
    state = DUEL.initial({}, {})
    state = DUEL.apply(state, 0, DUEL.parse_action({"type": "gestures", "left": "S", "right": "W"}))
    state = DUEL.apply(state, 1, DUEL.parse_action({"type": "gestures", "left": "W", "right": "W"}))
    pairs = duel_front.duel_choices(state, 0, "")
    assert len(pairs) == 48  # every pair but "> >": one knife stabs once a turn
    assert all(c.text != "> >" for c in pairs)
    first = pairs[0]
    assert "Missile" in first.meta or "Shield" in first.meta  # spells first
    surrender = next(c for c in pairs if c.text == "P P")
    assert "SURRENDER" in surrender.meta
    targets = duel_front.duel_choices(state, 0, "S D ")
    assert any(c.text == "left=p1" for c in targets)


class Wide(DummyOutput):
    def get_size(self) -> Size:
        return Size(rows=40, columns=160)


def render_once(table: TableScreen, output: Any) -> None:
    async def draw() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=output)
            app.renderer.render(app, app.layout)  # the whole layout, once, without a terminal

    asyncio.run(draw())


def test_both_layouts_and_the_fault_screen_render(tmp_path: Path) -> None:
    match = play("duel", seed=2, max_rounds=6)
    table = TableScreen()

    class FakePeer:
        view = match.sessions[0].view
        files = type("F", (), {"transcript": tmp_path / "x.p2pt"})()

        def clock_readings(self) -> dict[int, Any]:
            return {0: ("turn", 42.0, True), 1: ("turn", 60.0, False)}

    table.adapter.peer = FakePeer()  # type: ignore[assignment]
    table.state.clocks = FakePeer().clock_readings()
    render_once(table, DummyOutput())  # 80 columns: narrow, stacked
    render_once(table, Wide())
    assert "0:42" in plain([table.text.clock_line()])
    table.adapter.report(
        match.sessions[0].view,
        Fault(FaultKind.CHEAT, 1, 3, "opened p1's stage-3 commitment to something else", {}),
    )
    story = table.text.fault_text()
    assert "broke the rules" in story and "p2pgenius verify" in story and str(tmp_path / "x.p2pt") in story
    render_once(table, Wide())


def test_the_completer_completes_the_word_being_typed() -> None:
    table = TableScreen()
    engine = get_game("magic-square")
    state = engine.initial({"colours": [0, 1] * 8}, {})
    state = engine.apply(state, 0, engine.parse_action({"type": "order", "first": 0}))

    class Session:
        terms: ClassVar[dict[str, str]] = {"game": "magic-square"}
        in_dark = False
        played = 0
        my_seats = (0,)
        owner = (0, 1)

        def __init__(self) -> None:
            self.state = state

        def unsettled(self) -> tuple[int, ...]:
            return ()

    class FakePeer:
        view = Session()

    table.adapter.peer = FakePeer()  # type: ignore[assignment]
    table.state.asking = {0: 1}
    found = list(MoveCompleter(table).get_completions(Document("b"), CompleteEvent()))
    assert [c.text for c in found] == ["b1", "b2", "b3", "b4"]
    assert all(c.display_meta_text.startswith("put 1 on b") for c in found)


def test_the_rules_open_inside_the_ui_and_a_chat_before_the_match_is_refused_in_one_line() -> None:
    table = TableScreen(game="duel")
    table.input.enter("rules")
    assert table.input.rules_open and any("Fireball" in text for _, text in table.input.rules)
    table.input.enter("say hello")
    assert table.state.message == "chat opens when the match starts"
    table.input.enter("S D")
    assert table.state.message == "the match has not started yet"


def test_a_bot_partner_held_by_this_machine_shows_its_cards() -> None:
    seen: list[Any] = []

    def snapshot(table: Any, peer: int, seat: int, action: Any) -> Any:
        session = table.sessions[peer]
        if not seen and session.my_seats == (0, 2) and all(p.pile for p in session.state.pirates):
            seen.append({s: session.played.match.game.view(session.state, s) for s in (0, 2)})
        return action

    play("hornswoggle", seed=1, levels=["pirate"] * 4, peers=2, host_seats=[0, 2], before_submit=snapshot)
    views = seen[0]
    view = {**views[0], "partners": {2: views[2]}}
    text = plain(
        frontend("hornswoggle").board(
            BoardRequest("hornswoggle", view, {0: "ann", 2: "ann"}, ascii_only=True, hints=False, mine=(0, 2))
        )
    )
    rows = text.splitlines()
    line = next(line for line in rows if "(p2)" in line)
    faces = " ".join("d" if c == "doubloon" else "s" for c in views[2]["my_pile"])
    assert "ann's bot (p2)  your partner" in line and f"pile {faces}" in line
    doubloons = views[2]["hand"][0]
    assert f"hand {doubloons} doubloon" in line


def test_a_blinded_players_screen_is_drawn_from_the_claims_with_the_opponent_hidden() -> None:
    from tests.protocol.test_blindness import P0, P1, Script

    screens: list[str] = []

    class Holder:
        view: Any = None

    def look(table_: Any, peer: int, seat: int, action: Any) -> Any:
        session = table_.sessions[peer]
        if seat == 1 and session.behind and len(screens) < 3:
            holder = Holder()
            holder.view = session.view
            ui = TableScreen(ascii_only=True)
            ui.adapter.peer = holder  # type: ignore[assignment]
            screens.append(plain(ui.text.board_lines()))
        return action

    play("duel", bots=[Script(P0), Script(P1)], before_submit=look, max_rounds=60)
    assert screens, "the blinded seat was asked to move while blind"
    for text in screens:
        assert "you are blind" in text  # the opponent's HP is not on this machine
        opponent = text.split("opponent")[1]
        assert "?" in opponent  # its gestures of the blind turns show as hidden


def test_a_blind_player_still_gets_gesture_completions() -> None:
    pairs = duel_front.blind_choices("")
    assert len(pairs) == 49 and pairs[-1].text == "P P" and "SURRENDER" in pairs[-1].meta
    assert any(c.text == "left=p1" for c in duel_front.blind_choices("S D "))


def _after(*turns: tuple[str, str], choose: bool = True) -> Any:
    """The duel after these turns of (p0's, p1's) gestures, then p0's Paralysis, if it owes one,
    holding p1's left hand."""
    state = DUEL.initial({}, {})
    for mine, theirs in turns:
        state = DUEL.apply(
            state, 0, DUEL.parse_action({"type": "gestures", "left": mine[0], "right": mine[1]})
        )
        state = DUEL.apply(
            state, 1, DUEL.parse_action({"type": "gestures", "left": theirs[0], "right": theirs[1]})
        )
    if state.paralysis_choices and choose:
        state = DUEL.apply(state, 0, DUEL.parse_action({"type": "paralyze", "target": "p1", "hand": "left"}))
    return state


def test_gestures_that_last_turns_effects_would_change_are_refused_up_front() -> None:
    # Rules, step 1: "The UI refuses such input up front with a message."
    held = _after(("W-", "--"), ("W-", "--"), ("W-", "S-"))  # p1's left hand repeats S
    with pytest.raises(InputError, match="your left hand is paralysed: it repeats S this turn"):
        duel_front.DuelFrontEnd("duel").parse("D D", held, 1)
    assert duel_front.DuelFrontEnd("duel").parse("S D", held, 1).action == {
        "type": "gestures",
        "left": "S",
        "right": "D",
    }
    assert {c.text.split()[0] for c in duel_front.duel_choices(held, 1, "")} == {"S"}
    afraid = _after(("S-", "--"), ("W-", "--"), ("D-", "--"))
    with pytest.raises(InputError, match="you are afraid this turn: no C, D or S"):
        duel_front.DuelFrontEnd("duel").parse("- D", afraid, 1)
    with pytest.raises(InputError, match="one knife"):
        duel_front.DuelFrontEnd("duel").parse("> >", DUEL.initial({}, {}), 0)


def test_a_clap_of_one_hand_is_asked_about_unless_a_paralysed_hand_must_repeat_it() -> None:
    parsed = duel_front.DuelFrontEnd("duel").parse("C D", DUEL.initial({}, {}), 0)
    assert "a clap needs both hands" in parsed.confirm
    # p1 clapped alone with its left on turn 3 and p0's Paralysis holds that hand: it claps again.
    held = _after(("W-", "--"), ("W-", "--"), ("W-", "C-"))
    with pytest.raises(InputError, match="it repeats C this turn"):
        duel_front.DuelFrontEnd("duel").parse("- D", held, 1)
    assert duel_front.DuelFrontEnd("duel").parse("C D", held, 1).confirm == ""
    pairs = {c.text: c.meta for c in duel_front.duel_choices(held, 1, "")}
    assert set(pairs) == {f"C {right}" for right in "CDPSW>-"}
    asked = _after(("W-", "--"), ("W-", "--"), ("W-", "C-"), choose=False)
    question = duel_front.duel_question(DUEL.view(asked, 0), 0, {})
    assert "left repeats C, right repeats -" in question.text


def test_left_or_right_alone_names_the_hand_a_waiting_paralysis_holds() -> None:
    front = duel_front.DuelFrontEnd("duel")
    asked = _after(("W-", "SD"), ("W-", "DS"), ("W-", "SD"), choose=False)  # p0 owes the choice
    for typed in ("right", "paralyze right", "paralyze p1 right"):
        assert front.parse(typed, asked, 0).action == {"type": "paralyze", "target": "p1", "hand": "right"}
    assert front.echo({"type": "paralyze", "target": "p1", "hand": "right"}, asked, 0) == (
        "Paralysis: the opponent's right hand repeats D next turn"
    )
    question = duel_front.duel_question(DUEL.view(asked, 0), 0, {0: "ann", 1: "bob"})
    assert "bob (p1)'s left repeats S, right repeats D next turn (type left or right)" in question.text
    assert "paralyze p1" not in question.text
    hands = {c.text: c.meta for c in duel_front.duel_choices(asked, 0, "")}
    assert hands == {
        "left": "Paralysis: the opponent's left hand repeats S next turn",
        "right": "Paralysis: the opponent's right hand repeats D next turn",
    }
    with pytest.raises(InputError, match="none waits for one now"):
        front.parse("right", DUEL.initial({}, {}), 0)
    with pytest.raises(InputError, match=r"^first choose the hand your Paralysis holds: type left or right$"):
        front.parse("S D", asked, 0)  # (the engine would say "p0 must first choose ...")
    with pytest.raises(
        InputError, match=r"^your Paralysis holds a hand of the opponent: type left or right$"
    ):
        front.parse("paralyze p0 left", asked, 0)


def test_a_second_target_for_one_hand_is_refused_not_silently_dropped() -> None:
    front = duel_front.DuelFrontEnd("duel")
    with pytest.raises(InputError, match="left=p1 and left=p0: the left hand has one target"):
        front.parse("S D left=p1 left=p0", DUEL.initial({}, {}), 0)
    with pytest.raises(InputError, match="the right hand casts one spell"):
        front.parse("S D right:missile right:shield", DUEL.initial({}, {}), 0)
    said_twice = front.parse("S D right=p1 right=p1", DUEL.initial({}, {}), 0).action
    assert said_twice is not None and said_twice["targets"] == {"right": "p1"}


def _hints(state: Any, seat: int, width: int) -> str:
    request = BoardRequest(
        "duel",
        DUEL.view(state, seat),
        {0: "ann", 1: "bob"},
        ascii_only=True,
        hints=True,
        mine=(seat,),
        width=width if width < 100 else 96,  # (160 columns: the board beside the log)
        height=16 if width < 100 else 44,
    )
    return plain(frontend(request.game).board(request))


def test_the_next_hints_put_the_spell_most_made_first_among_the_nearest() -> None:
    # p0's left hand made D-W-S of Blindness (D-W-S-W-C): two gestures from it, as Cure, Fear and
    # Anti-spell are after their first S; the Blindness three gestures in is listed first of them.
    state = _after(("D-", "--"), ("W-", "--"), ("S-", "--"))
    for width in (80, 160):
        text = _hints(state, 0, width)
        left = next(line for line in text.splitlines() if "L next" in line)
        assert re.search(r"L next Missile( \+1)? D, Blindness( \+2)? WC", left), text  # (80: compact)


def test_a_paralysed_hand_is_hinted_only_the_spells_its_repeated_gesture_goes_on_with() -> None:
    # p1's left hand made S, then is held by p0's Paralysis: it repeats S, so only spells whose next
    # gesture is S are open to it this turn (not Missile's D, Cure's P, Fear's W).
    held = _after(("W-", "--"), ("W-", "--"), ("W-", "S-"))
    for width in (80, 160):
        text = _hints(held, 1, width)  # (bob's is the left column)
        assert re.search(r"^ +L next none: it must repeat S\s", text, re.MULTILINE), text
    open_to_it = _after(("W-", "--"), ("W-", "--"), ("W-", "W-"))  # W, held: W again, W-W-S, W-W-W
    text = _hints(open_to_it, 1, 160)
    hinted = "\n".join(line for line in text.splitlines() if "next" in line or line.startswith(" " * 9))
    assert "Goblin" in hinted and "Paralysis" in hinted, text


def test_a_caster_owing_two_paralysis_choices_is_asked_for_the_one_left() -> None:
    # p0 paralyses both wizards (left at p1, right at itself) and holds its own right hand first:
    # the second question, and Tab, are about p1's hands (they were about p0's again).
    state = DUEL.initial({}, {})
    for gestures in ({"left": "W", "right": "W"}, {"left": "W", "right": "W"}):
        state = DUEL.apply(state, 0, DUEL.parse_action({"type": "gestures", **gestures}))
        state = DUEL.apply(state, 1, DUEL.parse_action({"type": "gestures", "left": "-", "right": "-"}))
    both = {"type": "gestures", "left": "W", "right": "W", "targets": {"right": "p0"}}
    state = DUEL.apply(state, 0, DUEL.parse_action(both))
    state = DUEL.apply(state, 1, DUEL.parse_action({"type": "gestures", "left": "-", "right": "-"}))
    first = duel_front.duel_question(DUEL.view(state, 0), 0, {1: "Bea"})
    assert (
        "your own left repeats W, right repeats W next turn (type paralyze p0 left, or right)" in first.text
    )
    state = DUEL.apply(state, 0, DUEL.parse_action({"type": "paralyze", "target": "p0", "hand": "right"}))
    second = duel_front.duel_question(DUEL.view(state, 0), 0, {1: "Bea"})
    assert "Bea (p1)'s left repeats -, right repeats -" in second.text, second.text
    assert "(type left or right)" in second.text  # (one left: a hand alone names it)
    assert [c.text for c in duel_front.duel_choices(state, 0, "")] == ["left", "right"]
    assert duel_front.DuelFrontEnd("duel").parse("left", state, 0).action == {
        "type": "paralyze",
        "target": "p1",
        "hand": "left",
    }
