"""An invite survives any copy: white space anywhere in it (a terminal's line break and the indent
of the next line, tabs, a shell's split into several words) is no part of it, while a real typo
still fails its check; the command line joins an invite given in pieces; the host's invite can go
to the clipboard (OSC 52) on a terminal, and only there."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
import trio

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import join_match, target_of
from p2pgenius.cli.main import build_parser, main
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.cli.terminal import NO_CLIPBOARD, Sanitizing, to_clipboard
from p2pgenius.net import invite as codec
from p2pgenius.net.invite import Invite, InviteError, address_of
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

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


@pytest.mark.parametrize("columns", [40, 80, 100])
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


def test_the_command_line_joins_an_invite_split_into_words() -> None:
    text = invite().text()
    pieces = [text[:80], text[80:95], text[95:]]
    for command in ("join", "watch"):
        args = build_parser().parse_args([command, *pieces, "--name", "ann"])
        assert args.address == pieces
        assert codec.parse(address_of(args.address) or "") == invite()
    # The host's whole line, copied from its log where it wrapped, pasted in quotes to watch.
    line = "  p2pgenius join\n" + wrapped(f"   {text}", 80, "   ")
    assert codec.parse(address_of([line]) or "") == invite()
    assert codec.parse(address_of(["p2pgenius", "watch", *pieces]) or "") == invite()
    assert address_of(["127.0.0.1:7780"]) == "127.0.0.1:7780"
    assert address_of([]) is None
    assert build_parser().parse_args(["join", "--bot"]).address == []


def test_a_host_and_port_in_two_words_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    assert main(["join", "127.0.0.1:7780", "extra", "--bot"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected one HOST:PORT or an invite" in err and "2 words" in err


def test_an_invite_in_words_on_the_command_line_is_read_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whole, it is read, checked and tried (nothing listens there); damaged, it is refused.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    text = Invite(KEY, 9, ("127.0.0.1",), TOKEN).text()
    assert main(["join", text[:80], text[80:], "--bot"]) == 1
    err = capsys.readouterr().err
    assert "connect" in err or "listening" in err, err
    assert "damaged" not in err and "unrecognized" not in err
    damaged = text[:50] + ("a" if text[50] != "a" else "b") + text[51:]
    assert main(["join", "p2pgenius", "join", damaged[:80], damaged[80:], "--bot"]) == 2
    assert "the invite is damaged" in capsys.readouterr().err


async def test_a_match_joined_with_an_invite_pasted_in_pieces_plays_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            made = await nursery.start(host_match, hargs, host, match_options(hargs))
            pieces = wrapped(str(made), 80).split()
            assert len(pieces) == 2
            jargs = build_parser().parse_args(["join", *pieces, "--bot", "random"])
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            await join_match(jargs, guest, target_of(address_of(jargs.address) or ""))
    assert guest.session is not None and guest.session.outcome is not None
    assert verify(guest.files.transcript.read_bytes()).ok


# -- the clipboard --------------------------------------------------------------------------------


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_invite_goes_to_the_clipboard_of_a_terminal_and_nowhere_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(NO_CLIPBOARD, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    line = f"p2pgenius join {invite()}"
    terminal = Tty()
    assert to_clipboard(line, terminal) is True
    written = terminal.getvalue()
    assert written == "\x1b]52;c;" + base64.b64encode(line.encode()).decode() + "\x07"
    # Through the sanitising stream the commands write to, the sequence still goes out whole.
    terminal = Tty()
    assert to_clipboard(line, Sanitizing(terminal)) and terminal.getvalue() == written
    # Not a terminal (a pipe, a file, a test's captured output): nothing.
    piped = io.StringIO()
    assert to_clipboard(line, piped) is False and piped.getvalue() == ""
    # Turned off, or a dumb terminal: nothing.
    for name, value in ((NO_CLIPBOARD, "1"), ("TERM", "dumb")):
        with monkeypatch.context() as patched:
            patched.setenv(name, value)
            quiet = Tty()
            assert to_clipboard(line, quiet) is False and quiet.getvalue() == ""


def test_only_printable_text_reaches_the_clipboard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NO_CLIPBOARD, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    terminal = Tty()
    to_clipboard("a\x1b]0;evil\x07b", terminal)
    payload = terminal.getvalue().removeprefix("\x1b]52;c;").removesuffix("\x07")
    assert base64.b64decode(payload) == b"a?]0;evil?b"
