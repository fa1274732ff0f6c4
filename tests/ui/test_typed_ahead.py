"""A move typed while a visit waits (``--stay``: nothing asked for seconds) is set aside at the
next question, never taken as its answer unseen (a newcomer's try: a placement typed ahead
answered a question two later, `place> d2 already holds 3`)."""

from __future__ import annotations

import io
import os
import pty
import select

import trio

from p2pgenius.ui.prompt import LinePrompt, discard_typed_ahead


def test_a_terminals_type_ahead_is_discarded_and_said() -> None:
    leader, follower = pty.openpty()
    try:
        assert discard_typed_ahead(follower) is False  # (nothing typed: nothing said)
        os.write(leader, b"d2\n")
        assert select.select([follower], [], [], 1.0)[0]  # (the line is there to be read)
        assert discard_typed_ahead(follower) is True
        assert not select.select([follower], [], [], 0.05)[0]  # (and gone)
    finally:
        os.close(leader)
        os.close(follower)


def test_a_question_after_type_ahead_says_it_was_set_aside_and_reads_afresh() -> None:
    out, asked = io.StringIO(), []

    def read(prompt: str) -> str:
        asked.append(prompt)
        return "b3"

    prompt = LinePrompt(out, read=read, typed_ahead=lambda: True)
    assert trio.run(prompt.ask, "place> ") == "b3" and asked == ["place> "]
    assert "set aside: type it again" in out.getvalue()
    quiet = io.StringIO()
    assert trio.run(LinePrompt(quiet, read=read).ask, "place> ") == "b3" and quiet.getvalue() == ""
