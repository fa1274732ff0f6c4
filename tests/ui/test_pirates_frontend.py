"""Hornswoggle's front end, as a newcomer reads it: only the cards a pirate holds are offered (in
the question, the completions and what it may type), counts agree with their nouns, one layout for
one screen size, a pirate that is out is told its partner plays on, and a bot partner on this
machine is never taken for the person."""

from __future__ import annotations

from typing import Any

import pytest

from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState, perspective
from p2pgenius.protocol.events import Applied
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import BoardRequest
from p2pgenius.ui.frontends.hornswoggle import FRONT as HORN
from p2pgenius.ui.lines import plain
from tests.ui.test_table import seated

PIRATES = {0: "Fay", 1: "Bot", 2: "Fay", 3: "Bot"}


def horn(state: HornState, seat: int, action: dict[str, Any]) -> HornState:
    return HORNSWOGGLE.apply(state, seat, HORNSWOGGLE.parse_action(action))


def failed_challenge(hands: list[list[int]]) -> HornState:
    """p0 bids every card on the table, flips its doubloon, then p1's skull: it owes a discard."""
    state = HORNSWOGGLE.initial({"hands": hands}, {})
    state = horn(state, 1, {"type": "order", "first": 0})
    for seat, card in ((0, "doubloon"), (1, "skull"), (2, "doubloon"), (3, "doubloon")):
        state = horn(state, seat, {"type": "place", "card": card})
    state = horn(state, 0, {"type": "bid", "count": 4})
    state = horn(state, 0, {"type": "flip", "pile": 0})
    return horn(state, 0, {"type": "flip", "pile": 1})


def pirate_view(state: HornState, seat: int = 0, partners: tuple[int, ...] = (2,)) -> dict[str, Any]:
    view = dict(HORNSWOGGLE.view(state, seat))
    view["partners"] = {s: HORNSWOGGLE.view(state, s) for s in partners}
    return view


def horn_board(view: dict[str, Any], width: int, height: int, mine: tuple[int, ...] = (0, 2)) -> str:
    request = BoardRequest(
        HORN.game, view, PIRATES, ascii_only=True, hints=False, mine=mine, width=width, height=height
    )
    lines = HORN.board(request)
    return plain(lines)


def test_the_discard_offers_only_the_cards_the_pirate_holds() -> None:
    state = failed_challenge([[2, 0], [1, 1], [1, 1], [1, 1]])
    assert state.phase == "discarding" and state.owing == (0,)
    question = HORN.question(pirate_view(state), 0, PIRATES)
    assert question.text == "discard a card face down: discard doubloon (you hold 2 doubloons and no skulls)"
    mine = perspective(state, (0, 2))
    assert [c.text for c in HORN.choices(mine, 0, "", hints=False)] == ["discard doubloon"]
    for typed in ("discard skull", "s"):  # refused here, before the engine says "p0 has no skull"
        with pytest.raises(moves.InputError, match=r"^you hold no skull: discard doubloon \(you hold"):
            HORN.parse(typed, mine, 0)
    assert HORN.parse("d", mine, 0).action == {"type": "discard", "card": "doubloon"}


def test_the_opening_and_adding_questions_offer_only_the_cards_held() -> None:
    state = horn(
        HORNSWOGGLE.initial({"hands": [[0, 2], [1, 1], [1, 1], [1, 1]]}, {}), 1, {"type": "order", "first": 0}
    )
    opening = HORN.question(pirate_view(state), 0, PIRATES).text
    assert opening == "place your opening card face down: place skull (you hold no doubloons and 2 skulls)"
    for seat in range(4):
        state = horn(state, seat, {"type": "place", "card": "skull" if seat in (0, 1) else "doubloon"})
    adding = HORN.question(pirate_view(state), 0, PIRATES).text
    assert adding.startswith("add a card to your pile (place skull (you hold no doubloons and 1 skull))")


def test_counts_agree_with_their_nouns_in_the_questions_and_completions() -> None:
    state = HORNSWOGGLE.initial({}, {})
    state = horn(state, 1, {"type": "order", "first": 0})
    for seat in range(4):
        state = horn(state, seat, {"type": "place", "card": "doubloon"})
    bids = {c.text: c.meta for c in HORN.choices(state, 0, "", hints=False)}
    assert (
        bids["bid 1"] == "bet 1 doubloon can be flipped" and bids["bid 2"] == "bet 2 doubloons can be flipped"
    )
    state = horn(state, 0, {"type": "bid", "count": 2})
    for seat in (1, 2, 3):
        state = horn(state, seat, {"type": "pass"})
    state = horn(state, 0, {"type": "flip", "pile": 0})
    flip = HORN.question(pirate_view(state), 0, PIRATES).text
    assert flip == "flip the top card of another pile (p1, p2, p3): 1 more doubloon to find"


def _arrangement(text: str) -> str:
    """ "2x2" when p0 and p1 share a row of the board, "rows" when each pirate has its own."""
    rows = text.splitlines()
    return "2x2" if any("(p0)" in row and "(p1)" in row for row in rows) else "rows"


@pytest.mark.parametrize(("width", "expected"), [(80, "rows"), (100, "2x2"), (110, "2x2")])
def test_one_screen_size_keeps_one_layout_whatever_rows_the_question_leaves(
    width: int, expected: str
) -> None:
    # The board's rows change with the question under it (one line, or three); the layout may not.
    state = failed_challenge([[2, 0], [1, 1], [1, 1], [1, 1]])
    view = pirate_view(state)
    for height in (11, 14, 17, 19, 20, 23, 40):
        assert _arrangement(horn_board(view, width, height)) == expected, height


def test_a_pirate_that_is_out_is_told_its_partner_plays_on() -> None:
    state = horn(
        failed_challenge([[1, 0], [1, 1], [2, 1], [2, 1]]), 0, {"type": "discard", "card": "doubloon"}
    )
    assert state.pirates[0].out and state.phase == "opening"
    for width, height in ((80, 14), (110, 40)):
        text = horn_board(pirate_view(state), width, height)
        assert "you're out of cards: your partner (p2, bot) plays on for your team" in text
    told = HORN.idle(pirate_view(state), 0, PIRATES)  # (for the question line, when the UI asks)
    assert told == "you're out of cards: your partner (p2, bot) plays on for your team"
    alone = pirate_view(state, partners=())  # a partner on another machine, by its name
    assert "you're out of cards: Fay (p2) plays on for your team" in horn_board(alone, 80, 14, mine=(0,))
    assert "out of cards" not in horn_board(pirate_view(state, 2, partners=(0,)), 80, 14, mine=(2, 0))


def test_a_bot_partner_on_this_machine_is_not_named_as_the_person() -> None:
    state = HORNSWOGGLE.initial({}, {})
    state = horn(state, 1, {"type": "order", "first": 1})
    opening = horn(state, 2, {"type": "place", "card": "doubloon"})
    said = HORN.log_lines(list(opening.events), pirate_view(opening), PIRATES)
    assert said == ["your partner (p2, bot) places its opening card face down"]
    flip = {"type": "flip", "seat": 0, "pile": 2, "card": "doubloon"}
    assert HORN.log_lines([flip], pirate_view(opening), PIRATES) == [
        "Fay (p0) flips your partner (p2, bot)'s card: a doubloon"
    ]
    spectator = {**pirate_view(opening), "spectator": True}  # a replay names every seat alike
    assert HORN.log_lines(list(opening.events), spectator, PIRATES) == [
        "Fay (p2) places its opening card face down"
    ]


def test_the_table_logs_a_bot_partners_moves_as_the_partners() -> None:
    state = horn(HORNSWOGGLE.initial({}, {}), 1, {"type": "order", "first": 1})
    table, session = seated("hornswoggle", state, my_seats=(0, 2), owner=(0, 1, 0, 1), names=["Fay", "Bot"])
    after = horn(state, 2, {"type": "place", "card": "doubloon"})
    session.state = perspective(after, (0, 2))
    placed = Applied(1, ((2, {"type": "place", "card": "doubloon"}),), after.events, after)
    table.adapter.report(session, placed)  # type: ignore[arg-type]
    assert table.state.log[-1] == "your partner (p2, bot) places its opening card face down"


def test_a_flip_after_the_challengers_own_skull_is_told_the_truth() -> None:
    # The challenger, its flip just met a skull, typed "flip p1" at discard> and was told "only
    # the challenger flips, once the bidding is over": it was the challenger.
    state = failed_challenge([[2, 0], [1, 1], [1, 1], [1, 1]])
    assert state.phase == "discarding" and state.challenger == 0 and state.owing == (0,)
    with pytest.raises(moves.InputError) as refused:
        HORN.parse("flip p1", perspective(state, (0, 2)), 0)
    assert str(refused.value) == "your flip met a skull: the flipping is over; discard a card"
    with pytest.raises(moves.InputError) as other:
        HORN.parse("flip p2", perspective(state, (1, 3)), 1)
    assert str(other.value) == "nothing to flip now: the flipping is over"
