"""An invite survives any copy: white space anywhere in it (a terminal's line break and the indent
of the next line, tabs, a shell's split into several words) is no part of it, while a real typo
still fails its check."""

from __future__ import annotations

import pytest

from p2pgenius.net import invite as codec
from p2pgenius.net.invite import Invite, InviteError

KEY = bytes(range(32))
TOKEN = bytes(range(16))


def invite() -> Invite:
    return Invite(KEY, 7780, ("192.168.1.20", "127.0.0.1"), TOKEN)


def wrapped(text: str, columns: int, indent: str = " ") -> str:
    """``text`` as a terminal shows a line longer than ``columns``: cut there, each next line
    indented (as the log and, before, the waiting screen did)."""
    rows = [text[:columns]]
    rest = text[columns:]
    while rest:
        rows.append(indent + rest[: columns - len(indent)])
        rest = rest[columns - len(indent) :]
    return "\n".join(rows)


def test_an_invite_copied_from_a_terminal_that_wrapped_it_reads_whole(columns: int) -> None:
    text = invite().text()
    assert len(text) > 100
    copied = wrapped(text, columns)
    assert "\n " in copied
    assert codec.parse(copied) == invite()  # (it was: "the invite has ' ' at character 81")
    assert codec.parse(copied + "\n") == invite()
    assert codec.parse(wrapped(text, columns, "\t  ").replace("\n", "\r\n")) == invite()


def test_white_space_of_every_kind_anywhere_is_left_out() -> None:
    text = invite().text()
    for space in (" ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "\u3000", " \n   "):
        for at in (len(codec.PREFIX) - 3, len(codec.PREFIX), 50, len(text) - 1):
            assert codec.parse(text[:at] + space + text[at:]) == invite(), (space, at)
    assert codec.parse(f'  "<{text[:60]}\n   {text[60:]}>"  ') == invite()
    assert codec.is_invite("p2p genius://abc")


def test_a_typo_is_still_caught_when_the_invite_comes_in_pieces() -> None:
    text = invite().text()
    start = len(codec.PREFIX)
    for position in range(start, len(text)):
        replacement = "b" if text[position] != "b" else "c"
        changed = text[:position] + replacement + text[position + 1 :]
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(wrapped(changed, 80))
        # A character that became a space is a character lost.
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(text[:position] + " " + text[position + 1 :])


def test_a_character_no_invite_has_is_placed_without_counting_white_space() -> None:
    text = invite().text()
    typo = text[:90] + "0" + text[91:]
    with pytest.raises(InviteError, match=r"'0' at character 91 \(not counting spaces and line breaks\)"):
        codec.parse(wrapped(typo, 80))
    with pytest.raises(InviteError, match=r"'0' at character 91, which no invite has"):
        codec.parse(typo)
