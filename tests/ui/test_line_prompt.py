"""The plain-lines prompt of a visit by correspondence: a move typed while a visit waits
(``--stay``: nothing asked for seconds) is set aside at the next question, never taken as its
answer unseen (a newcomer's try: a placement typed ahead answered a question two later, `place>
d2 already holds 3`); the duel's turn history marks the gestures that cast a spell, as the
screen's does, and names no key a plain prompt does not have."""

from __future__ import annotations

import io
import os
import pty
import re
import select
from pathlib import Path

import trio

from p2pgenius.cli.correspondence import memory_of
from p2pgenius.inmemory import play, transcript
from p2pgenius.ui.frontends import BoardRequest, frontend
from p2pgenius.ui.lines import plain
from p2pgenius.ui.prompt import LinePrompt, discard_unasked, in_lines, seat_view


def test_a_terminals_type_ahead_is_discarded_and_said() -> None:
    leader, follower = pty.openpty()
    try:
        assert discard_unasked(follower) is False  # (nothing typed: nothing said)
        os.write(leader, b"d2\n")
        assert select.select([follower], [], [], 1.0)[0]  # (the line is there to be read)
        assert discard_unasked(follower) is True
        assert not select.select([follower], [], [], 0.05)[0]  # (and gone)
    finally:
        os.close(leader)
        os.close(follower)


def test_a_question_after_type_ahead_says_it_was_set_aside_and_reads_afresh() -> None:
    out, asked = io.StringIO(), []

    def read(prompt: str) -> str:
        asked.append(prompt)
        return "b3"

    prompt = LinePrompt(out, read=read, unasked=lambda: True)
    assert trio.run(prompt.ask, "place> ") == "b3" and asked == ["place> "]
    assert "set aside: type it again" in out.getvalue()
    quiet = io.StringIO()
    assert trio.run(LinePrompt(quiet, read=read).ask, "place> ") == "b3" and quiet.getvalue() == ""


def test_the_turn_history_marks_what_cast_a_spell_as_the_screen_does(tmp_path: Path) -> None:
    table = play("duel", seed=5, deterministic=True, max_rounds=60)
    session = table.sessions[0].view
    path = tmp_path / "m.p2pt"
    path.write_bytes(transcript(table, 0))
    seat = session.my_seats[0]
    view = seat_view(session, seat)
    assert view is not None
    names = {s: session.names[p] for s, p in enumerate(session.owner)}

    def board(memory: object) -> str:
        request = BoardRequest(
            "duel",
            view,
            names,
            ascii_only=False,
            hints=False,
            mine=session.my_seats,
            memory=memory,  # type: ignore[arg-type]
        )
        return in_lines(plain(frontend("duel").board(request)))

    remembered = memory_of(path, session)
    assert remembered and remembered.get("casts"), remembered
    marked, bare = board(remembered), board(None)
    assert "* " in marked and "* " not in bare.split("Turns")[-1], marked
    assert "Up/Down" not in marked  # (no such keys at a prompt of plain lines)
    assert memory_of(tmp_path / "gone.p2pt", session) is None


def test_a_persons_visit_names_the_players_in_the_moves_a_bots_says_seats() -> None:
    # (a newcomer's try: a visit printed `p0 casts Shield (left hand) at p0` under a board that
    # says `ann (p0)`; a bot's visit and demo keep the seats, as scripts read them)
    import io as text

    from p2pgenius.cli.play import Printer
    from p2pgenius.protocol.events import Applied
    from p2pgenius.protocol.observer import replay
    from p2pgenius.protocol.session import Session
    from p2pgenius.protocol.transcript import read

    table = play("duel", seed=5, deterministic=True, max_rounds=60)
    session = table.sessions[0]
    watcher = Session(keys=list(session.keys), me=None)  # (the names come with the terms: "peer 0")
    applied = next(
        event
        for step in replay(read(transcript(table, 0)), watcher)
        for event in step.events
        if isinstance(event, Applied) and event.events
    )
    person, bot = text.StringIO(), text.StringIO()
    for out, named in ((person, True), (bot, False)):
        Printer(out, moves=True, named=named).event(watcher.view, applied)
    assert re.search(r"peer [01] \(p[01]\)", person.getvalue()), person.getvalue()
    assert "peer" not in bot.getvalue() and re.search(r"\bp[01]\b", bot.getvalue()), bot.getvalue()


def test_the_board_of_a_visit_says_who_has_chosen_this_turn() -> None:
    # (a newcomer's try: `bob: choosing` though bob's sealed choice had come)
    from p2pgenius.bots.driver import BotDriver
    from p2pgenius.bots.driver import plain as as_data
    from tests.protocol.test_clocks import Pair

    pair = Pair("duel", {"fast": True})
    asked, other = pair.seat_peer(0), pair.seat_peer(1)
    other.submit(1, as_data(BotDriver("random", 1).choose("duel", other.state, 1)), ms=1000)
    pair.pump()
    view = seat_view(asked.view, 0)
    assert view is not None
    assert view["submitted"] == [None, "chosen"], view.get("submitted")
    names = {0: "ann", 1: "bob"}
    request = BoardRequest("duel", view, names, ascii_only=False, hints=False, mine=(0,))
    assert "bob: has chosen" in plain(frontend("duel").board(request))
