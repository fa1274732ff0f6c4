"""The Magic Square's front end: a round's end says who won it and by how much (the winner's score
first, and whose each is), the completion that beat a challenge is drawn, and an order sent is
echoed as it was typed ("second")."""

from __future__ import annotations

import re
from typing import Any

import pytest

from p2pgenius.games.magic_square.engine import MAGIC_SQUARE
from p2pgenius.games.magic_square.state import SquareState
from p2pgenius.ui.frontends import BoardRequest
from p2pgenius.ui.frontends.magic_square import FRONT as SQUARE
from p2pgenius.ui.lines import plain
from tests.magic_square.helpers import place_square, square, start

NAMES = {0: "ann", 1: "bob"}


def square_board(
    view: dict[str, Any], memory: dict[str, Any] | None = None, width: int = 80, height: int = 14
) -> str:
    lines = SQUARE.board(
        BoardRequest(
            SQUARE.game,
            view,
            NAMES,
            ascii_only=True,
            hints=False,
            mine=(0,),
            width=width,
            height=height,
            memory=memory,
        )
    )
    return plain(lines)


@pytest.mark.parametrize(
    ("me", "line"),
    [
        (1, "the last round: you won, 81-55 (score): your 81 to ann (p0)'s 55"),
        (0, "the last round: bob (p1) won, 81-55 (score): bob (p1)'s 81 to your 55"),
    ],
)
def test_the_end_puts_the_winners_score_first_and_says_whose_each_is(me: int, line: str) -> None:
    view = MAGIC_SQUARE.view(start([0, 1] * 8), me)
    last = {"winner": 1, "reason": "score", "scores": [55, 81], "grid": list(square(3)), "round": 3}
    view.update(phase="over", round_wins=[1, 2], last_round=last)
    text = square_board(view)
    assert line in text and "55-81" not in text


def challenge_beaten() -> tuple[SquareState, dict[str, Any], int]:
    """p0 challenges p1's 3, which keeps a magic square possible; p1 shows one: round 1 is p1's."""
    grid = square(5)
    state = place_square(start([0, 1] * 8, 0), grid, upto=3)
    assert state.window == 0
    state = MAGIC_SQUARE.apply(state, 0, MAGIC_SQUARE.parse_action({"type": "challenge"}))
    complete = {"type": "complete", "grid": list(grid)}
    return MAGIC_SQUARE.apply(state, 1, MAGIC_SQUARE.parse_action(complete)), complete, 1


def test_the_completion_that_beat_a_challenge_is_drawn_until_the_next_round_places() -> None:
    state, complete, seat = challenge_beaten()
    assert state.last_round is not None and state.last_round["reason"] == "challenge_failed"
    memory: dict[str, Any] = {}
    SQUARE.remember(memory, list(state.events), MAGIC_SQUARE.view(state, 0), actions=[(seat, complete)])
    rows = [" ".join(f"{n:>2}" for n in complete["grid"][r : r + 4]) for r in range(0, 16, 4)]
    for width, height in ((80, 14), (110, 40)):
        text = square_board(MAGIC_SQUARE.view(state, 0), memory, width, height)
        assert "bob (p1)'s completion (round 1):" in text
        assert all(row in text for row in rows), text
        note = r"magic, with 1 to 3 where they were placed: the challenge failed".replace(" ", r"\s+")
        assert re.search(note, text), text
    spectator = {**SQUARE.spectator_view(state)}  # a replay of that step draws it too
    assert "bob (p1)'s completion (round 1):" in square_board(spectator, memory)
    # The swaps and the first lead go by with it on the board; the next round's 1 takes it away.
    lead = MAGIC_SQUARE.apply(state, 0, MAGIC_SQUARE.parse_action({"type": "swaps_done"}))
    SQUARE.remember(memory, list(lead.events), MAGIC_SQUARE.view(lead, 0))
    assert "completion" in square_board(MAGIC_SQUARE.view(lead, 0), memory)
    lead = MAGIC_SQUARE.apply(lead, 0, MAGIC_SQUARE.parse_action({"type": "order", "first": 0}))
    placed = MAGIC_SQUARE.apply(lead, 0, MAGIC_SQUARE.parse_action({"type": "place", "cell": 0}))
    SQUARE.remember(memory, list(placed.events), MAGIC_SQUARE.view(placed, 0))
    assert "completion" not in square_board(MAGIC_SQUARE.view(placed, 0), memory)


def test_an_order_sent_is_echoed_as_typed() -> None:
    colour_order = start()
    assert colour_order.phase == "colour_order" and colour_order.actor == 1
    second = SQUARE.parse("second", colour_order, 1).action
    assert second == {"type": "order", "first": 0}
    assert SQUARE.echo(second, colour_order, 1) == "second: your opponent colours first"
    lead = start([0, 1] * 8, 0)
    first = SQUARE.parse("first", lead, 0).action
    assert first is not None
    assert SQUARE.echo(first, lead, 0) == "first: you place first"
    assert SQUARE.echo({"type": "place", "cell": 9}, lead, 0) == "b3"


def test_a_round_lost_to_a_challenge_says_whose_score_is_whose_when_it_ended() -> None:
    state, _, _ = challenge_beaten()
    text = square_board(MAGIC_SQUARE.view(state, 0))
    assert re.search(
        r"round 1: bob \(p1\) won \(challenge failed\); the points then: bob \(p1\) \d+, you \d+", text
    )


def test_a_cell_typed_with_a_number_is_told_to_type_the_cell_alone() -> None:
    # A newcomer typed "b1 1" to place 1 on b1, and was told the whole grammar.
    from p2pgenius.ui.frontends.base import InputError

    placing = place_square(start([0, 1] * 8, 0), square(5), upto=3)
    with pytest.raises(InputError, match=r"type the cell alone, like b1: .* the next one \(4 now\)"):
        SQUARE.parse("b1 4", placing, placing.placer)
    assert SQUARE.parse("b1", placing, placing.placer).action == {"type": "place", "cell": 1}


def test_who_goes_first_takes_me_and_answers_other_words_with_its_question() -> None:
    # A newcomer typed "me" at "who places first>" and was told "'me' is not a cell".
    from p2pgenius.ui.frontends.base import InputError

    lead = start([0, 1] * 8, 0)
    assert lead.phase == "lead" and lead.actor == 0
    for typed in ("me", "I", "myself"):
        assert SQUARE.parse(typed, lead, 0).action == {"type": "order", "first": 0}
    colour_order = start()
    assert SQUARE.parse("me", colour_order, 1).action == {"type": "order", "first": 1}
    said = r"^choose who places first: type first \(you\) or second \(your opponent\)$"
    for typed in ("you", "b3", "me first", "pass"):
        with pytest.raises(InputError, match=said):
            SQUARE.parse(typed, lead, 0)
    with pytest.raises(InputError, match=r"^choose who colours first: type first"):
        SQUARE.parse("whoever", colour_order, 1)
    placing = place_square(lead, square(5), upto=3)
    with pytest.raises(InputError, match="is not a cell"):  # (me is no answer to a placement)
        SQUARE.parse("me", placing, placing.placer)


def test_pass_or_no_at_the_swaps_is_done_and_other_words_say_what_to_type() -> None:
    # "no" or "pass" at swap> was told "it is your move: playing it lets the last placement stand".
    from p2pgenius.ui.frontends.base import InputError

    state, _, _ = challenge_beaten()
    assert state.phase == "swap" and state.actor == 0
    for typed in ("pass", "no", "done"):
        assert SQUARE.parse(typed, state, 0).action == {"type": "swaps_done"}
    with pytest.raises(InputError, match=r"^'nothing' is no swap: .*, or done to swap nothing more$"):
        SQUARE.parse("nothing", state, 0)


def test_the_help_and_pass_agree_on_letting_a_placement_stand() -> None:
    # The help said "pass: let it go", and pass at "challenge or place>" was refused with it.
    from p2pgenius.ui.frontends.base import InputError

    placing = place_square(start([0, 1] * 8, 0), square(5), upto=3)
    assert placing.window == 0 and placing.actor == 0 and placing.phase == "place"
    assert "let it go" not in SQUARE.help
    assert "on your own move, placing the next number lets it stand" in SQUARE.help.replace("\n", " ")
    with pytest.raises(InputError, match=r"^no pass on your own move: placing the next number \(a1 to d4\)"):
        SQUARE.parse("pass", placing, 0)
