"""What the screen says of time (issue 34): whose clock runs and who waits, on the clock line; a
claim and its dispute in words (whose debt, which, by whose measure); a forfeit's turn and player."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from p2pgenius import wording
from p2pgenius.protocol.clocks import debt_words
from p2pgenius.protocol.events import ClaimDisputed, Fault, FaultKind, TimeoutClaimed, TimeoutClaimSent
from p2pgenius.ui.lines import Glyphs, plain
from p2pgenius.ui.render import clock_text, clocks_line
from p2pgenius.ui.table import TableScreen
from tests.protocol.test_clocks import Pair


def table_of(session: Any) -> TableScreen:
    table = TableScreen(game="duel")
    files = SimpleNamespace(transcript=Path("match.p2pt"))
    table.adapter.peer = SimpleNamespace(view=session.view, files=files)  # type: ignore[assignment]
    return table


def test_long_clocks_read_as_days_hours_and_minutes() -> None:
    assert [clock_text(s) for s in (9, 60, 552, 3900, 7 * 24 * 3600 - 60)] == [
        "0:09",
        "1:00",
        "9:12",
        "1:05:00",
        "6d 23:59",
    ]


def test_the_clock_line_says_who_has_chosen_and_waits_and_how_long_the_other_has() -> None:
    pair = Pair("duel", {"fast": True, "turn_seconds": 600})
    uma, me = pair.s
    seat, mine = uma.my_seats[0], me.my_seats[0]
    uma.submit(seat, {"type": "timeout"}, ms=0)  # Uma has chosen
    pair.pump()
    table = table_of(me)
    table.state.clocks = {seat: ("turn", 600.0, False), mine: ("turn", 552.0, True)}
    words = table.text.clock_words()
    assert words == f"{me.names[uma.me]} (p{seat}) has chosen and waits; you have 9:12", words  # type: ignore[index]
    assert words in "".join(text for _, text in table.text.clock_line(200))


def test_a_claim_and_its_dispute_say_whose_clock_what_and_by_whose_measure() -> None:
    pair = Pair("duel", {"fast": True})
    claimant, accused = pair.s
    seat = accused.my_seats[0]
    claimant.referee.claim_timeout(seat, 61_500)
    events = [e for raw in claimant.flush().messages for e in accused.receive(raw)]
    (claim,) = [e for e in events if isinstance(e, TimeoutClaimed)]
    assert claim.kind == "decision"
    said = wording.time_words(accused.view, claim)
    name = accused.names[claimant.me]  # type: ignore[index]
    assert said.startswith(f"{name} claims you are late with a decision")
    assert "61.5 s since the stage began, on the clock, as it measures it" in said
    accused.referee.dispute(seat, 30_000)
    back = [e for raw in accused.flush().messages for e in claimant.receive(raw)]
    (dispute,) = [e for e in back if isinstance(e, ClaimDisputed)]
    words = wording.time_words(claimant.view, dispute)
    assert words == (
        f"{accused.names[accused.me]} disputes the claim: {accused.names[accused.me]} (p{seat})'s clock "  # type: ignore[index]
        "has 30.0 s left, as it measures"
    )
    who, what = debt_words(claimant, seat)
    claimed = TimeoutClaimSent(seat, 61_500, who, what).text
    assert claimed.startswith(f"{who} is late with a decision") and "claimed, signed" in claimed


def test_a_forfeit_is_told_by_its_turn_and_its_player() -> None:
    pair = Pair("duel", {"fast": True})
    host, other = pair.s
    table = table_of(host)
    table.state.fault = Fault(FaultKind.FORFEIT, other.me, 0, "bob (p1) forfeits: no answer", {})
    text = table.text.fault_text()
    assert "at turn 1" in text and "stage" not in text.split("\n")[0], text.split("\n")[0]
    assert "bob (p1) forfeits" in text


def test_four_clocks_on_80_columns_keep_the_players_names() -> None:
    # The report: Hornswoggle's clocks at 80 columns read `p0 1:00 ▶p1 0:59`, no name left.
    readings = {seat: ("turn", 60.0 - (seat == 1), seat == 1) for seat in range(4)}
    names = {0: "Alice", 1: "Bartholomew", 2: "Alice", 3: "Bartholomew"}
    wide = plain([clocks_line(readings, names, Glyphs.pick(False), 200)])
    assert "Alice (p0) 1:00" in wide and "Bartholomew (p1) 0:59" in wide
    narrow = plain([clocks_line(readings, names, Glyphs.pick(False), 80)])
    assert len(narrow) <= 80 and re.search(r"Ali\w* \(p0\) 1:00", narrow), narrow
    assert re.search(r"Bar\w* \(p1\) 0:59", narrow) and "Bartholomew" not in narrow, narrow


@pytest.mark.parametrize("game", ["magic-square", "hornswoggle"])
def test_a_forfeit_in_a_game_of_rounds_is_told_by_its_round_not_a_stage(game: str) -> None:
    pair = Pair(game, {})
    host, other = pair.s
    table = table_of(host)
    table.state.fault = Fault(FaultKind.FORFEIT, other.me, 0, "bob forfeits: no answer", {})
    head = table.text.fault_text().split("\n")[0]
    assert head == "THE MATCH STOPPED (forfeit, in round 1, at step 1)", head


def test_names_cut_short_on_the_clock_row_never_read_alike() -> None:
    # Four bots "captain 1" to "captain 3" and a person: cut to five letters, three clocks read
    # "capta"; the names go, the seats stay (the board above says who is who).
    readings = {seat: ("turn", 60.0 - (seat == 3), seat == 3) for seat in range(4)}
    names = {0: "captain 2", 1: "captain 3", 2: "captain 1", 3: "Margaret"}
    narrow = plain([clocks_line(readings, names, Glyphs.pick(False), 80)])
    assert len(narrow) <= 80 and "capt" not in narrow, narrow
    assert all(f"p{seat} " in narrow for seat in range(4)) and "p3 0:59" in narrow, narrow
    # Names that stay apart when cut are still cut, as before.
    apart = {0: "Alexandra", 1: "Bartholomew", 2: "Christopher", 3: "Dominique"}
    assert "Alexa (p0)" in plain([clocks_line(readings, apart, Glyphs.pick(False), 80)])
