"""A game registered later, with no front end and no bots of its own, is still shown, typed, completed
and played by bots through the generic front end and ``random``, never through another game's
rules; and the command line takes its time options from its spec."""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pytest

from p2pgenius.bots import demo_levels, levels, make_bot
from p2pgenius.bots.driver import BotDriver
from p2pgenius.bots.uniform import RandomBot
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games import catalog
from p2pgenius.games.base import Ending, Outcome
from p2pgenius.games.registry import get_spec
from p2pgenius.games.spec import GameSpec, TimeOption
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import FRONT_ENDS, FrontEnd, frontend
from p2pgenius.ui.frontends.duel import DuelFrontEnd
from p2pgenius.ui.render import BoardRequest, plain
from p2pgenius.wording import printable

NAME = "countdown"


class CountdownEnding(Ending):
    TOOK_THE_LAST = "took_the_last"


@dataclass(frozen=True)
class Take:
    count: int

    def to_plain(self) -> dict[str, Any]:
        return {"type": "take", "count": self.count}


@dataclass(frozen=True)
class Pile:
    left: int
    turn: int = 0
    taken_by: int | None = None


class Countdown:
    """Two players take one or two from a pile of seven in turn; who takes the last wins."""

    name = NAME

    def initial(self, setup: Mapping[str, Any], options: Mapping[str, Any]) -> Pile:
        return Pile(int(setup.get("left", 7)))

    def seats(self, state: Pile) -> int:
        return 2

    def to_act(self, state: Pile) -> tuple[int, ...]:
        return () if state.left == 0 else (state.turn,)

    def waiting_on(self, state: Pile) -> tuple[int, ...]:
        return self.to_act(state)

    def legal_actions(self, state: Pile, seat: int) -> list[Take]:
        if seat not in self.to_act(state):
            return []
        return [Take(n) for n in (1, 2) if n <= state.left]

    def parse_action(self, data: Any) -> Take:
        if data == {"type": "timeout"}:
            return Take(1)  # (a timeout takes one)
        if not isinstance(data, dict) or data.get("type") != "take" or set(data) != {"type", "count"}:
            raise IllegalActionError("expected {type: take, count: 1 or 2}")
        if data["count"] not in (1, 2):
            raise IllegalActionError("take 1 or 2")
        return Take(data["count"])

    def apply(self, state: Pile, seat: int, action: Take) -> Pile:
        if seat not in self.to_act(state) or action.count > state.left:
            raise IllegalActionError(f"p{seat} cannot take {action.count} now")
        return replace(state, left=state.left - action.count, turn=1 - seat, taken_by=seat)

    def outcome(self, state: Pile) -> Outcome | None:
        return Outcome(state.taken_by, CountdownEnding.TOOK_THE_LAST) if state.left == 0 else None

    def full(self, state: Pile) -> dict[str, Any]:
        return {"left": state.left, "turn": state.turn}

    def public(self, state: Pile) -> dict[str, Any]:
        return self.full(state)

    def view(self, state: Pile, seat: int) -> dict[str, Any]:
        return {**self.full(state), "seat": seat}

    def events(self, state: Pile) -> tuple[dict[str, Any], ...]:
        return ()


class CountdownSpec(GameSpec):
    name = NAME
    title = "Countdown"
    time_options = (TimeOption("move_seconds", 30, "each move"),)
    endings = CountdownEnding


@pytest.fixture
def countdown() -> Iterator[Countdown]:
    engine = Countdown()
    catalog.add(catalog.Entry(NAME, "Countdown", "take 1 or 2", spec=CountdownSpec(engine)))
    try:
        yield engine
    finally:
        catalog.remove(NAME)


def test_a_game_without_a_front_end_is_shown_and_typed_through_the_generic_one(countdown: Countdown) -> None:
    front = frontend(NAME)
    assert type(front) is FrontEnd and isinstance(frontend("duel"), DuelFrontEnd)
    state = countdown.initial({}, {})
    text = plain(
        frontend(NAME).board(
            BoardRequest(
                NAME, countdown.view(state, 0), {0: "ann", 1: "bob"}, ascii_only=True, hints=False, mine=(0,)
            )
        )
    )
    assert "Countdown" in text and '"left": 7' in text and "ann (p0)" in text and text.isascii()
    offered = [c.text for c in moves.choices(NAME, state, 0, "", hints=False)]
    assert offered == ["take count=1", "take count=2"]
    for typed in offered:  # what is offered is what is read back
        assert moves.parse(NAME, typed, state, 0).action == {"type": "take", "count": int(typed[-1])}
    assert moves.parse(NAME, '{"type": "take", "count": 2}', state, 0).action == {"type": "take", "count": 2}
    with pytest.raises(moves.InputError, match="take 1 or 2"):
        moves.parse(NAME, "take count=3", state, 0)  # the engine's own words
    with pytest.raises(moves.InputError, match="cannot take"):
        moves.parse(NAME, "take count=1", state, 1)
    with pytest.raises(moves.InputError, match="not JSON"):
        moves.parse(NAME, "{take", state, 0)
    with pytest.raises(moves.InputError, match="the game waits for your move"):
        moves.parse(NAME, "pass", state, 0)
    assert moves.dark_choices(NAME, "", 0) == []
    assert "JSON" in moves.help_text(NAME) and moves.help_text(None) == ""
    assert front.describe({"type": "say", "word": "5", "n": 5, "all": [1, 2]}) == 'say word="5" n=5 all=[1,2]'


class CountdownFrontEnd(FrontEnd):
    """A plugin game's own front end, in its own module."""

    help = "Type take count=1 or take count=2."


COUNTDOWN_FRONT = CountdownFrontEnd(NAME)


@pytest.mark.parametrize("given", [COUNTDOWN_FRONT, "tests.ui.test_frontends:COUNTDOWN_FRONT"])
def test_a_game_from_outside_the_package_brings_its_own_front_end(given: object) -> None:
    # The UI lists the built-in games' front ends itself; a plugin's entry gives its own, as the
    # object or as a path into its own package.
    catalog.add(
        catalog.Entry(NAME, "Countdown", "take 1 or 2", spec=CountdownSpec(Countdown()), frontend=given)
    )
    try:
        assert frontend(NAME) is COUNTDOWN_FRONT and moves.help_text(NAME) == CountdownFrontEnd.help
        assert all(entry.frontend is None for entry in catalog.GAMES if entry.name != NAME)
        assert [type(frontend(name)).__name__ for name in FRONT_ENDS] == [
            "DuelFrontEnd",
            "SquareFrontEnd",
            "HornFrontEnd",
        ]
    finally:
        catalog.remove(NAME)


def test_a_front_end_made_for_another_game_is_refused() -> None:
    catalog.add(
        catalog.Entry(
            NAME, "Countdown", "take 1 or 2", spec=CountdownSpec(Countdown()), frontend=FrontEnd("duel")
        )
    )
    try:
        with pytest.raises(TypeError, match="not one of that game's"):
            frontend(NAME)
    finally:
        catalog.remove(NAME)


def test_a_game_without_bots_of_its_own_is_played_by_random_bots(countdown: Countdown) -> None:
    assert levels(NAME) == ("random",) and demo_levels(NAME) == ("random", "random")
    assert isinstance(make_bot(NAME, None, seed=1), RandomBot)
    with pytest.raises(LocalMisuseError, match="no bot level 'wizard' for countdown"):
        make_bot(NAME, "wizard", seed=1)
    driver = BotDriver(seed=4)
    state = countdown.initial({}, {})
    while (outcome := countdown.outcome(state)) is None:
        seat = countdown.to_act(state)[0]
        state = countdown.apply(state, seat, driver.choose(NAME, state, seat))
    spec = get_spec(NAME)  # (the game's results in the default words: it words none of its own)
    said = spec.outcome_words(spec.read_outcome(outcome.to_plain()), brief=True)
    assert said in ("p0 wins (took the last)", "p1 wins (took the last)")


def test_the_command_line_takes_a_games_time_options_from_its_spec(countdown: Countdown) -> None:
    from p2pgenius.cli.play import match_options

    args = Namespace(game=NAME, option=["move_seconds=5"], turn=None, fast=None, bot="")
    assert match_options(args) == {"move_seconds": 5}  # not sealed: no "fast"
    args = Namespace(game=NAME, option=[], turn=3600, fast=None, bot="")
    assert match_options(args) == {"move_seconds": 3600}  # (--turn: its first time option)
    with pytest.raises(LocalMisuseError, match="countdown takes move_seconds"):
        match_options(Namespace(game=NAME, option=["turn_seconds=5"], turn=None, fast=None, bot=None))
    with pytest.raises(LocalMisuseError, match="--fast is a duel option"):
        match_options(Namespace(game=NAME, option=[], turn=None, fast=True, bot=None))


def test_control_characters_from_peers_never_reach_the_terminal() -> None:
    assert printable("bob\x1b[2J\x07 says\thi") == "bob?[2J? says?hi"


@pytest.mark.parametrize("game", [*catalog.names(), None])
def test_every_help_line_is_one_whole_item_for_the_window_to_wrap(game: str | None) -> None:
    # The help window wraps each line to its width: a line broken mid-sentence in the source
    # came out at 80 columns as a long line, a stub of two words, then the rest.
    text = (moves.help_text(game) if game else FrontEnd.help) + "\n" + moves.COMMON_HELP
    for line in text.splitlines():
        assert line.endswith("."), line


def test_a_card_word_alone_is_the_card_the_question_asks_for() -> None:
    from types import SimpleNamespace

    from p2pgenius.ui.frontends.hornswoggle import parse_horn

    assert parse_horn(["d"]).action == {"type": "place", "card": "doubloon"}
    assert parse_horn(["Skull"], SimpleNamespace(phase="turns")).action == {"type": "place", "card": "skull"}
    assert parse_horn(["s"], SimpleNamespace(phase="discarding")).action == {
        "type": "discard",
        "card": "skull",
    }
    with pytest.raises(moves.InputError, match="place doubloon"):
        parse_horn(["d", "s"])


@pytest.mark.parametrize("typed", ["quit", "exit", "q", "QUIT"])
def test_quit_at_any_prompt_says_how_to_leave_not_a_move_syntax(typed: str) -> None:
    # A newcomer typed "quit" at the table and was told the move syntax.
    from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
    from tests.ui.test_table import seated

    table, _ = seated("magic-square", MAGIC_SQUARE.initial({}, {}), my_seats=(1,), me=1)
    for asked in ({1: 1}, {}):  # (asked for a move, or waiting)
        table.state.asking = dict(asked)
        table.input.enter(typed)
        kept = "to leave, press Ctrl-Q twice: the match is kept, and `p2pgenius resume` carries on"
        assert table.state.message == kept
    table.state.finished = True
    table.input.enter(typed)
    assert table.state.message == "Ctrl-Q leaves"
    assert not table.input.leaving and table.state.confirming is None  # (nothing asked, nothing sent)


def test_once_everyone_else_has_left_the_prompt_and_the_chat_box_say_the_chat_has_closed() -> None:
    # After the end, "everyone else has left: the chat has closed" was logged, but the prompt
    # still read chat> and the chat box "(say TEXT to chat)".
    from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
    from p2pgenius.net.events import ChatClosed
    from p2pgenius.ui.layout import feed_shown
    from p2pgenius.ui.lines import plain as plain_lines
    from tests.ui.test_table import seated

    table, _ = seated("magic-square", MAGIC_SQUARE.initial({}, {}))
    table.state.finished = True
    assert table.text.prompt() == "chat> "
    assert plain_lines(feed_shown(table, chat=True)) == "(say TEXT to chat)"
    table.input.enter("b3")
    assert table.state.message == "the match is over (say TEXT chats; Ctrl-Q leaves)"
    table.adapter.net_event(ChatClosed())
    assert table.text.prompt() == "done> "
    assert plain_lines(feed_shown(table, chat=True)) == "(the chat has closed: Ctrl-Q leaves)"
    table.input.enter("b3")
    assert table.state.message == "the match is over (the chat has closed; Ctrl-Q leaves)"
