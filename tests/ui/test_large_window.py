"""A large window shows more, never less: at 160x50 the duel's board has the whole spell book
with its names in full, the gestures of a long duel and more of its turn history (every spell
under way is listed at every size); the log stands beside the board, full height and at least
60 columns wide (a spectator's too), and the chat takes the rows the board leaves under it."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from p2pgenius.games.duel.engine import DUEL
from p2pgenius.games.duel.spells import BY_NAME, SPELLS, next_gestures
from p2pgenius.ui.frame import geometry
from p2pgenius.ui.frontends import BoardRequest, frontend
from p2pgenius.ui.frontends.duel import SHORT
from p2pgenius.ui.lines import plain

GESTURES = [  # (never P P: a surrender)
    *("SD", "DS", "WP", "PW", "SS", "DW", "WW", "PS", "SD"),
    *("WW", "DP", "SW", "PS", "WD", "SS", "DS", "SP", "WS"),
]


def duel_after(turns: int) -> dict[str, object]:
    state = DUEL.initial({"hp": [30, 30]}, {})
    for move in GESTURES[:turns]:
        for seat in (0, 1):
            gestures = {"type": "gestures", "left": move[0], "right": move[1]}
            state = DUEL.apply(state, seat, DUEL.parse_action(gestures))
    return dict(DUEL.view(state, 0))


def board(view: dict[str, object], width: int, height: int) -> list[str]:
    names = {0: "ann", 1: "bob"}
    lines = frontend("duel").board(
        BoardRequest("duel", view, names, ascii_only=True, hints=True, mine=(0,), width=width, height=height)
    )
    return plain(lines).splitlines()


def test_the_duel_board_lists_every_spell_under_way_small_or_large() -> None:
    view = duel_after(7)
    small, large = board(view, 80, 14), board(view, 96, 44)
    wizards = view["wizards"]
    assert isinstance(wizards, list)
    under_way = [
        pair for w in wizards for hand in ("left", "right") for pair in next_gestures(tuple(w[hand]), 0)
    ]
    assert len(under_way) >= 8
    for name, rest in under_way:  # (a compact board names them shortly, without the +N)
        named = "|".join(re.escape(n) for n in (BY_NAME[name].title, SHORT.get(name, BY_NAME[name].title)))
        assert re.search(rf"({named}) \+{len(rest)} {rest}\b", "\n".join(large)), (name, large)
        assert re.search(rf"({named})( \+{len(rest)})? {rest}\b", "\n".join(small)), (name, small)
    assert all(len(row) <= 96 for row in large) and all(len(row) <= 80 for row in small)
    # a list that goes on under its hand's row ends its first row in a comma
    continued = [i for i, row in enumerate(large) if re.search(r"[LR] next .*,\s*$", row)]
    assert continued and all(large[i + 1].startswith(" " * 9) for i in continued)


def test_the_large_board_has_the_whole_spell_book_named_in_full() -> None:
    rows = board(duel_after(3), 96, 44)
    text = "\n".join(rows)
    for spell in SPELLS:
        gestures = "/".join("-".join(sequence) for sequence in spell.sequences)
        assert re.search(rf"{re.escape(spell.title)}\s+{re.escape(gestures)}", text), spell.title
    assert "PW Kill" not in text and "Res. Heat" not in text  # (the short names of a small board)


def test_a_long_duel_shows_more_of_each_hands_gestures_on_a_large_board() -> None:
    view = duel_after(18)
    small = "\n".join(board(view, 80, 14))
    large = "\n".join(board(view, 96, 44))
    history = str(view["wizards"][0]["left"])  # type: ignore[index]
    assert len(history) == 18
    left = " ".join(history)
    assert re.search(rf"left\s+{left}\b", large)  # all 18 on the large board
    # The small one has its turn history in their place: the last turns, a row each.
    assert not re.search(r"left\s+\S", small) and re.search(r"^ +18  \S", small, re.MULTILINE), small
    assert len(re.findall(r"^[ ^v] +\d+  \S", large, re.MULTILINE)) > len(
        re.findall(r"^[ ^v] +\d+  \S", small, re.MULTILINE)
    )


def test_a_large_window_gives_the_log_beside_the_board_at_least_60_columns() -> None:
    for columns, rows in ((160, 50), (200, 60)):
        geo = geometry(columns, rows, 6)
        assert geo.wide and geo.side_width - 2 >= 60 and geo.board_width >= 96
        assert geo.board_width + geo.side_width + 2 == columns
    narrow = geometry(80, 24, 6)
    assert not narrow.wide and narrow.board_width == 80
    middle = geometry(120, 40, 6)  # the log at its least beside a board as wide as a narrow screen
    assert middle.wide and middle.side_width == 40 and middle.board_width >= 78


def test_a_large_board_uses_its_empty_rows_for_the_rules_of_what_it_shows() -> None:
    # At 160x50 the board (96x44) has rows to spare under the spell book: the rules of what is on
    # it go there, an effect's rule only while a wizard has it.
    plain_turn = "\n".join(board(duel_after(3), 96, 44))
    assert "The rules in brief" in plain_turn and "C counts only when both hands clap" in plain_turn
    assert "Paralysed:" not in plain_turn and "Monsters attack" not in plain_turn
    assert all(len(row) <= 96 for row in plain_turn.splitlines())
    state = DUEL.initial({}, {})
    for left in "WWW":  # ann's Paralysis on bob, who waves: it holds bob's left hand
        for seat, gesture in ((0, left), (1, "S")):
            state = DUEL.apply(
                state, seat, DUEL.parse_action({"type": "gestures", "left": gesture, "right": "-"})
            )
    state = DUEL.apply(state, 0, DUEL.parse_action({"type": "paralyze", "target": "p1", "hand": "left"}))
    held = board(dict(DUEL.view(state, 0)), 96, 44)
    rules = held[next(i for i, row in enumerate(held) if "rules in brief" in row) + 1 :]
    assert rules and all(row.startswith("  - ") for row in rules), rules  # (one row each)
    assert "Paralysed: that hand repeats its last gesture" in "\n".join(held)
    assert len(held) <= 44 and all(len(row) <= 96 for row in held)
    small = "\n".join(board(dict(DUEL.view(state, 0)), 80, 14))
    assert "The rules in brief" not in small  # (80x24 has no room for them)


def test_a_surrender_reads_as_one_in_the_turn_history() -> None:
    # P P casts a Shield with each hand and gives the duel up: the history said "Shield, Shield"
    # and nothing of the surrender, which the log told.
    state = DUEL.initial({"hp": [30, 30]}, {})
    memory: dict[str, Any] = {}
    front = frontend("duel")
    for seat, (left, right) in ((0, "PP"), (1, "WS")):
        state = DUEL.apply(state, seat, DUEL.parse_action({"type": "gestures", "left": left, "right": right}))
    view = dict(DUEL.view(state, 0))
    front.remember(memory, list(view["events"]), view)
    request = BoardRequest(
        "duel", view, {0: "ann", 1: "bob"}, ascii_only=True, hints=True, mine=(0,), width=160, height=50
    )
    rows = plain(front.board(replace(request, memory=memory))).splitlines()
    row = next(r for r in rows if " 1  P* P*" in r)
    assert "surrenders" in row, rows
    # The columns stand side by side: ann's on the left, then bob's, who did not surrender.
    assert row.count("surrenders") == 1 and row.index("surrenders") < row.index(" 1  W  S"), row
