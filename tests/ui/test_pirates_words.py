"""Hornswoggle in words, on the screen a player sees (pyte, 80x24 and 160x50), from issue 37: a bot
partner has a name of its own; a card that is none, a move the moment does not allow, Bluff
Insurance that cannot be bought, a flip out of turn and a pirate that does not exist are answered
with what may be typed, never with seat ids of the person or the command list; the raise question
at the last count reads plainly; and a large window spends its spare rows on the rules."""

from __future__ import annotations

import re
from typing import Any

from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState, perspective
from p2pgenius.ui.table import TableScreen

from .screen import Terminal
from .test_table import seated, show


def horn(state: HornState, seat: int, action: dict[str, Any]) -> HornState:
    return HORNSWOGGLE.apply(state, seat, HORNSWOGGLE.parse_action(action))


def at_table(
    state: HornState, seat: int = 0, seats: tuple[int, ...] = (0, 2)
) -> tuple[TableScreen, list[Any]]:
    """Fay's table (her machine holds ``seats``, the first hers, a bot the other) over ``state``,
    ``seat`` asked for its move; what it sends goes into the list returned."""
    table, _ = seated(
        "hornswoggle", perspective(state, seats), my_seats=seats, owner=(0, 1, 0, 1), names=["Fay", "Bot"]
    )
    sent: list[Any] = []
    table.adapter.token = type("Token", (), {"run_sync_soon": lambda self, call, *a: call(*a)})()
    table.adapter.peer.offer = lambda number, seat, action: sent.append((seat, action))  # type: ignore[union-attr, method-assign]
    table.state.asking = {seat: 1}
    return table, sent


def both(table: TableScreen) -> tuple[str, str]:
    return show(table, Terminal(80, 24)), show(table, Terminal(160, 50))


def flat(text: str) -> str:
    return re.sub(r"[\s\u2502]+", " ", text)


def opened(first: int = 0, **setup: Any) -> HornState:
    """Round 1 with every opening card (a doubloon) down, ``first`` to add or bid."""
    state = horn(HORNSWOGGLE.initial(setup, {}), 1, {"type": "order", "first": first})
    for seat in range(4):
        state = horn(state, seat, {"type": "place", "card": "doubloon"})
    return state


def test_a_bot_partner_has_a_name_of_its_own_on_the_board() -> None:
    table, _ = at_table(opened())
    for screen in both(table):
        assert re.search(r"Fay's bot \(p2\)\s+your partner", screen), screen
        assert "Fay (p2)" not in screen and "a bot" not in screen
        assert re.search(r"Fay \(p0\)\s+you\b", screen)


def test_a_card_that_is_none_is_answered_with_the_cards_the_pirate_may_use() -> None:
    table, sent = at_table(opened())
    table.input.enter("place banana")
    assert not sent
    said = "'banana' is not a card: place doubloon or place skull (you hold 3 doubloons and 2 skulls)"
    assert table.state.message == said
    for screen in both(table):
        assert said in flat(screen) and "first pN" not in screen


def test_a_move_begun_but_not_finished_is_told_what_it_takes() -> None:
    table, sent = at_table(opened())
    for typed, said in (
        ("place", "place which card: place doubloon or place skull (you hold 3 doubloons and 2 skulls)"),
        ("bid many", "bid and how many doubloons, like bid 3"),
        ("flip", "flip and whose pile, like flip p2"),
    ):
        table.input.enter(typed)
        assert not sent and table.state.message == said, typed
    assert "first pN" not in flat(show(table, Terminal(80, 24)))


def test_a_move_the_moment_does_not_allow_lists_the_moves_it_does() -> None:
    table, sent = at_table(opened())
    table.input.enter("pass")
    assert not sent
    assert table.state.message.startswith("not now: you may place doubloon, place skull, bid 1, bid 2")
    assert "expected" not in table.state.message


def bidding(bid: int) -> HornState:
    """p0 adds a card (5 on the table), p1 bids ``bid``: p2 (Fay's bot's seat) raises or passes."""
    state = horn(opened(), 0, {"type": "place", "card": "doubloon"})
    return horn(state, 1, {"type": "bid", "count": bid})


def test_the_raise_question_says_the_bid_and_the_raise_plainly() -> None:
    table, _ = at_table(bidding(4), 2, seats=(2, 0))
    for screen in both(table):
        assert "the bid is 4: raise it to every card on the table (bid 5) or pass" in flat(screen)
        assert "bid 5 to 5" not in flat(screen)
    table, _ = at_table(bidding(2), 2, seats=(2, 0))
    assert "the bid is 2: raise it (bid 3 to 5) or pass" in flat(show(table, Terminal(80, 24)))


def challenger() -> HornState:
    """p0 bids every card on the table: it is the challenger, with no Hacked Garnet."""
    return horn(opened(), 0, {"type": "bid", "count": 4})


def test_bluff_insurance_that_cannot_be_bought_says_why_to_you() -> None:
    table, sent = at_table(challenger())
    table.input.enter("insure")
    assert not sent and table.state.confirming is None
    said = "you cannot buy Bluff Insurance: it costs a Hacked Garnet, and you have none"
    assert table.state.message == said
    for screen in both(table):
        assert said in flat(screen) and "p0 cannot" not in screen
    garnet = horn(opened(garnets=[1, 0, 0, 0]), 0, {"type": "bid", "count": 4})
    table, sent = at_table(horn(garnet, 0, {"type": "flip", "pile": 0}))
    table.input.enter("insure")
    assert (
        not sent and table.state.message == "you cannot buy Bluff Insurance now: only before the first flip"
    )
    table, sent = at_table(opened())
    table.input.enter("insure")
    assert not sent
    assert table.state.message == "only the challenger may buy Bluff Insurance, before its first flip"


def test_a_flip_out_of_turn_and_a_pirate_that_does_not_exist_are_refused_in_words() -> None:
    table, sent = at_table(opened())
    table.input.enter("flip p3")
    assert not sent
    assert table.state.message == "nothing to flip now: only the challenger flips, once the bidding is over"
    order = HORNSWOGGLE.initial({}, {})
    table, sent = at_table(order, 1, seats=(1, 3))
    table.input.enter("first 9")
    assert not sent and table.state.message == "there is no p9: the pirates are p0, p1, p2 and p3"
    for screen in both(table):
        assert "there is no p9" in screen and "must be a seat" not in screen


def test_a_large_window_spends_its_spare_rows_on_the_rules() -> None:
    table, _ = at_table(bidding(2), 2, seats=(2, 0))
    narrow, wide = both(table)
    assert "The rules in brief" not in narrow and "The rules in brief" in wide
    said = flat(wide)
    assert "each pirate raises the bid or passes" in said
    assert "The challenger turns over its own pile first" in said  # the whole round, in brief
    rows = wide.splitlines()
    chat = next(i for i, row in enumerate(rows) if "chat (say TEXT)" in row)
    assert chat > 30


def test_the_clocks_name_the_pirates_at_80_columns_and_the_bot_by_its_own_name() -> None:
    table, _ = at_table(opened())
    table.state.clocks = {seat: ("decision", 60.0 - seat, seat == 0) for seat in range(4)}
    narrow, wide = both(table)
    for screen in (narrow, wide):
        line = next(row for row in screen.splitlines() if "clocks" in row and "1:00" in row)
        assert re.search(
            r"Fay \(p0\) 1:00\s+Bot \(p1\) 0:59\s+Fay's bot \(p2\) 0:58\s+Bot \(p3\) 0:57", line
        ), line
        assert "Fay (p2)" not in line
