"""The table's parts work alone: the state changes with typed events and no peer behind it, the
person's input asks before leaving, and the table reads and writes its parts' attributes as its
own."""

from __future__ import annotations

from p2pgenius.net.events import PeerJoined
from p2pgenius.protocol.events import ClockWarning
from p2pgenius.protocol.identity import Identity
from p2pgenius.ui.frame import rule_line
from p2pgenius.ui.table import TableScreen
from p2pgenius.ui.table_state import TableState


def test_the_state_takes_the_network_layers_events_without_a_peer() -> None:
    state = TableState()
    key = Identity.generate().public
    joined = PeerJoined("bob", key)
    state.on_net_event(joined, person=None)
    state.on_line(joined.text)  # its words were told as data already: not twice in the log
    assert len(state.log) == 1 and state.log[0].startswith("bob joined; fingerprint ")
    state.on_net_event(ClockWarning(0, 60_000), person=1)  # another seat's clock
    assert state.message == ""
    state.on_net_event(ClockWarning(1, 60_000), person=1)
    assert state.message == "clock: 1 minute left on the round clock"


def test_ctrl_q_asks_once_and_esc_takes_the_question_back() -> None:
    table = TableScreen(game="duel")
    assert table.input.leave() is False and table.input.leaving
    assert table.state.message.startswith("leave? No match has begun")  # (no session: nothing to resume)
    table.input.close()
    assert not table.input.leaving and table.state.message == ""
    assert table.input.leave() is False and table.input.leave() is True  # asked, then left
    over = TableScreen()
    over.state.finished = True
    assert over.input.leave() is True  # the match is over: nothing to ask


def test_the_rule_between_board_and_log_fills_the_width_exactly() -> None:
    for ascii_only, glyph in ((True, "-"), (False, "\u2500")):
        [fragment] = rule_line(" what happened ", 30, ascii_only=ascii_only)
        style, text = fragment[0], fragment[1]
        assert style == "class:rule" and len(text) == 30
        assert text.startswith(glyph * 2 + " what happened ") and text.endswith(glyph)
    assert len(rule_line(" a title longer than the screen ", 10, ascii_only=True)[0][1]) == 10
