"""Text from a peer or a file never drives the reader's terminal: a table of hostile strings (escape
sequences that retitle the window, clear the screen, write the clipboard with OSC 52; C1 controls;
bidirectional overrides; carriage returns; line separators) is pushed through every way such text
can reach one (the command line's lines and errors, join's and watch's refusals, verify, export,
replay and the full-screen UI) and through the places where it enters (chat, forfeit reasons,
names in the terms, a spectator's list of players), which refuse it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.canonical import encode
from p2pgenius.cli import verify as verify_command
from p2pgenius.cli.export import record
from p2pgenius.cli.main import main
from p2pgenius.cli.terminal import clean
from p2pgenius.errors import LocalMisuseError, P2PGeniusError, PeerGoneError
from p2pgenius.inmemory import play, transcript
from p2pgenius.net import spectators
from p2pgenius.net.lobby import check_lobby
from p2pgenius.protocol.bodies import is_text
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import is_name
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.session.setup import check_terms
from p2pgenius.protocol.transcript import verify
from p2pgenius.ui.lines import plain
from p2pgenius.ui.replay import Replay

HOSTILE = [
    "\x1b]0;pwned\x07",  # retitle the window
    "\x1b[2J\x1b[H",  # clear the screen
    "\x1b]52;c;cHduZWQ=\x07",  # write the clipboard
    "\x9b31m",  # a C1 control sequence introducer
    "\u202eevil",  # right-to-left override: text that reads backwards
    "\u2066isolate\u2069",  # bidirectional isolates
    "over\rwrite",  # a carriage return
    "nul\x00",
    "line\u2028break",  # a line separator
    "bell\x07",
]
DRIVES = re.compile(
    r"[^\n\S ]|[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


def drives(text: str) -> bool:
    """Whether ``text`` holds anything but printable characters and line breaks."""
    return any(not (c.isprintable() or c == "\n") for c in text) or bool(DRIVES.search(text))


def test_the_table_is_hostile() -> None:
    assert all(drives(h) for h in HOSTILE) and not drives("plain text, ünïcödé and all\n")
    assert all(not drives(clean(h)) for h in HOSTILE)


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("error", [P2PGeniusError, LocalMisuseError, ValueError])
def test_every_line_and_error_of_the_command_line_is_made_harmless(
    hostile: str, error: type[Exception], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(args: Any, out: Any) -> int:
        out.write(f"a line from a file: {hostile}\n")
        raise error(f"a reason from a peer: {hostile}")

    monkeypatch.setattr(verify_command, "run", run)
    main(["verify", "anything.p2pt"])
    captured = capsys.readouterr()
    assert "a line from a file: " in captured.out and "a reason from a peer: " in captured.err
    assert not drives(captured.out) and not drives(captured.err)
    assert captured.err.count("\n") == 1  # still one line


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_hosts_refusal_reaches_join_and_watch_harmless(hostile: str) -> None:
    for payload in (encode(["refused", f"go away {hostile}"]),):
        with pytest.raises(PeerGoneError) as joining:
            check_lobby(payload, b"h" * 32, b"m" * 32)
        with pytest.raises(PeerGoneError) as watching:
            spectators._take(payload, None, spectators.Onlooker(lambda s, e: None))
        for refused in (joining.value, watching.value):
            assert "the host refused us: go away" in str(refused) and not drives(str(refused))


@pytest.mark.parametrize("hostile", HOSTILE)
def test_text_that_drives_a_terminal_is_refused_where_it_enters(hostile: str) -> None:
    assert not is_text(f"gg {hostile}") and not is_name(f"ann{hostile}")
    keys = [b"a" * 32, b"b" * 32]
    with pytest.raises(P2PGeniusError, match="names are not one printable name"):
        check_terms({"peers": keys, "names": ["ann", f"bob{hostile}"], "game": "duel"}, keys, None, 1)
    watching = encode(["watching", {"keys": keys, "names": ["ann", f"bob{hostile}"]}])
    with pytest.raises(PeerGoneError, match="malformed list of players"):
        spectators._take(watching, None, spectators.Onlooker(lambda s, e: None))
    me = Identity.generate()
    session = Session(keys=[me.public, keys[1]], me=0, identity=me)
    with pytest.raises(LocalMisuseError, match="printable"):
        session.chat(f"gg {hostile}")


def test_verify_export_and_replay_of_a_match_with_refused_hostile_text_show_none_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A real match in which the names are odd but printable; each refusal on the record (the
    # hostile chat and forfeit of tests/hostile/scenarios.py are played over TCP there) is in our
    # words. Everything the commands print of it is harmless.
    table = play("duel", options={"fast": True})
    path = tmp_path / "match.p2pt"
    path.write_bytes(transcript(table, 0))
    for command in (["verify", str(path)], ["verify", "--text", str(path)], ["export", str(path)]):
        main(command)
        captured = capsys.readouterr()
        assert not drives(captured.out) and not drives(captured.err)
    report = verify(path.read_bytes())
    replay = Replay(report)
    for index in range(replay.count + 1):
        replay.jump(index)
        assert not drives(plain(replay.board_lines(80, 24)))
        assert not drives(plain(replay.log_lines(40)))
    assert not drives(record(report))


@pytest.mark.parametrize("hostile", HOSTILE)
def test_the_full_screen_ui_logs_and_chats_only_harmless_text(hostile: str) -> None:
    from p2pgenius.net.events import Refused
    from p2pgenius.protocol.events import ChatReceived
    from p2pgenius.ui.table import TableScreen

    table = TableScreen(game="duel")
    table.adapter.line(f"the network layer says: {hostile}")
    table.adapter.net_event(Refused(f"a reason {hostile}", f"name{hostile}"))
    me = Identity.generate()
    session = Session(keys=[me.public, b"b" * 32], me=0, identity=me, names=["ann", "bob"])
    table.state.tell(session.view, ChatReceived(1, f"gg {hostile}"))
    shown = list(table.state.log) + list(table.state.chat_lines) + [table.state.message]
    assert any("the network layer says" in line for line in shown)
    assert any(line.startswith("bob") and "gg" in line for line in table.state.chat_lines)
    assert not any(drives(line) for line in shown)
