"""The screen's side of the peer: asked for a choice again, it clears the echo of the last one
sent (a typed signal of the state), never a line that says something else."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.duel.engine import DUEL
from p2pgenius.ui.moves import Parsed
from p2pgenius.ui.peer_adapter import PeerAdapter
from p2pgenius.ui.table_state import TableState

from .test_table import seated


def asked_with(state: TableState) -> str:
    """The line under the input once the person's seat is asked to decide."""
    adapter = PeerAdapter(state, BotDriver())
    adapter.asked({0: 4})
    assert state.asking == {0: 4}
    return state.message


def test_the_echo_of_the_last_choice_sent_goes_when_the_person_is_asked_again() -> None:
    state = TableState()
    state.echo_sent("sent: b3")
    assert state.message == "sent: b3" and state.echoes_sent
    assert asked_with(state) == ""


@pytest.mark.parametrize("line", ["refused: no such square; choose again", "sent: a line the peer wrote"])
def test_any_other_line_stays_though_it_begins_with_the_same_words(line: str) -> None:
    state = TableState()
    state.echo_sent("sent: b3")
    state.message = line  # (written since: no longer the echo)
    assert not state.echoes_sent
    assert asked_with(state) == line


def test_the_word_that_a_choice_stands_goes_too_once_the_person_is_asked_again() -> None:
    """``done``: "your choice stands: S D" is about the turn just played; asked for the next
    turn, the person does not read it under the new question."""
    table, session = seated("duel", DUEL.initial({}, {}))
    settled: list[tuple[int, int]] = []
    session.unsettled = lambda: (0,)  # type: ignore[method-assign]
    table.adapter.token = type("Token", (), {"run_sync_soon": lambda self, call, *a: call(*a)})()
    table.adapter.peer.settle = lambda number, seat: settled.append((number, seat))  # type: ignore[union-attr, method-assign]
    table.state.chosen[0] = "S D"
    table.input.enter("done")
    assert settled == [(-1, 0)] and table.state.message == "your choice stands: S D"
    table.adapter.asked({0: 2})
    assert table.state.message == ""


def test_a_move_waiting_for_its_y_or_n_is_dropped_once_its_turn_is_over() -> None:
    state = TableState()
    adapter = PeerAdapter(state, BotDriver())
    state.asking = {0: 3}
    state.confirming = ("it leaves no magic square", 0, Parsed({"type": "place", "cell": 2, "number": 7}))
    adapter.asked({0: 3})  # (asked again for the same turn: the question stands)
    assert state.confirming is not None
    adapter.asked({0: 4})
    assert state.confirming is None and state.message == "not sent: its turn is over"


def test_a_bot_partner_never_decides_the_persons_seat() -> None:
    adapter = PeerAdapter(TableState(), BotDriver())
    session: Any = SimpleNamespace(my_seats=(0, 2))
    with pytest.raises(LocalMisuseError, match="person's seat"):
        trio.run(adapter.decide, session, 0)
