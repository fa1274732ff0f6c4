"""A host's waiting screen shows its invite so that a copy of it is the invite: on rows of its own,
none indented (a wrapped continuation was indented, and the copy read "the invite has ' ' at
character 81"), through a real terminal emulator (pyte) at 80, 100 and 160 columns."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from types import SimpleNamespace

import pytest
from prompt_toolkit.input import create_pipe_input

from p2pgenius.cli.main import main
from p2pgenius.net import invite as codec
from p2pgenius.net.events import Listening
from p2pgenius.protocol.identity import Identity
from p2pgenius.ui.app import build
from p2pgenius.ui.lines import plain
from p2pgenius.ui.lobby import invite_rows
from p2pgenius.ui.table import TableScreen
from tests.patience import HANG_S

from .screen import Terminal, seen, settled

INVITE = codec.Invite(bytes(range(32)), 34409, ("127.0.0.1",), bytes(range(16)))
SAVED = "/tmp/hA/matches/20261201-175557-964910-duel-host.invite"


class Recording(Terminal):
    """A terminal that keeps what it was sent (the escape sequences a screen draws nothing of)."""

    def __init__(self, columns: int, rows: int) -> None:
        super().__init__(columns, rows)
        self.sent: list[str] = []

    def write(self, data: str) -> int:
        self.sent.append(data)
        return super().write(data)


def waiting_screen(columns: int, rows: int = 24, keys_sent: str = "") -> Recording:
    """The host's screen once it listens, before anyone joins (``keys_sent`` then pressed)."""
    terminal = Recording(columns, rows)
    table = TableScreen()
    table.adapter.peer = SimpleNamespace(identity=Identity.generate(), view=None)  # type: ignore[assignment]

    async def run() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=terminal.output())
            shown = asyncio.ensure_future(app.run_async())
            table.adapter.net_event(
                Listening("127.0.0.1:34409", invite=str(INVITE), saved=SAVED, local_only=True)
            )
            await seen(terminal, "Whoever joins")
            await settled(terminal)
            if keys_sent:
                keys.send_text(keys_sent)
                await seen(terminal, "invite copied|no clipboard")
                await settled(terminal)
            app.exit()
            await asyncio.wait_for(shown, HANG_S)

    asyncio.run(run())
    return terminal


def copied(terminal: Terminal) -> list[str]:
    """The rows a person selects to copy the invite: from its first row to the blank row after
    it, as the terminal has them (leading spaces and all)."""
    lines = terminal.lines()
    top = next(i for i, line in enumerate(lines) if "p2pgenius://" in line)
    rows = []
    for line in lines[top:]:
        if not line.strip():
            break
        rows.append(line)
    return rows


@pytest.mark.parametrize("columns", [80, 100])
def test_the_invite_on_the_waiting_screen_is_copied_whole(columns: int) -> None:
    terminal = waiting_screen(columns)
    rows = copied(terminal)
    assert len(rows) > 1, "wider than the screen: on more than one row"
    assert all(not row.startswith(" ") for row in rows), f"a continuation indented: {rows}"
    assert "".join(rows) == str(INVITE), "the rows, put together, are the invite"
    assert codec.parse("\n".join(rows)) == INVITE  # (as a copy keeps the line breaks)
    text = terminal.text()
    assert "Whoever joins runs p2pgenius join with this invite" in text
    assert SAVED in terminal.lines(), "the file to copy it whole from, on a line of its own"


def test_the_invite_stands_alone_across_a_wide_screen() -> None:
    # The report: at 160 columns the invite was wrapped at 55 columns inside the board's box,
    # sharing its rows with the log column; a row selection took the border and the log's text.
    terminal = waiting_screen(160, 50)
    rows = copied(terminal)
    assert rows == [str(INVITE)], "one row, the whole width's, with nothing beside it"
    text = terminal.text()
    assert "cut short" not in text, "one row: nothing to cut"
    assert "with the invite above (F3 copies it)" in text
    assert SAVED in terminal.lines()
    assert text.count(str(INVITE)[:30]) == 1, "the invite once, not in the board too"


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_f3_copies_the_invite_whole_and_says_so(size: tuple[int, int]) -> None:
    terminal = waiting_screen(*size, keys_sent="\x1bOR")  # (F3)
    encoded = base64.b64encode(str(INVITE).encode()).decode()
    assert f"\x1b]52;c;{encoded}\x07" in "".join(terminal.sent), "the terminal asked to copy it (OSC 52)"
    said = " ".join(line.strip() for line in terminal.lines())
    assert "invite copied: your terminal was asked to put it on the clipboard (OSC 52)" in said
    assert SAVED in said


def test_the_waiting_screen_says_a_paste_over_two_rows_is_cut_short() -> None:
    terminal = waiting_screen(80)
    assert len(copied(terminal)) == 2
    said = " ".join(line.strip() for line in terminal.lines())
    assert "cut short: it spans 2 rows; put it in quotes or use the .invite file" in said


def test_join_says_an_invite_pasted_over_two_rows_is_cut_short(capsys: pytest.CaptureFixture[str]) -> None:
    first_row = invite_rows(str(INVITE), 80)[0]
    with pytest.raises(codec.InviteError, match="cut short: it spans two rows; put it in quotes or use"):
        codec.parse(first_row)
    typo = str(INVITE)[:40] + ("b" if str(INVITE)[40] != "b" else "c") + str(INVITE)[41:]
    with pytest.raises(codec.InviteError, match="damaged"):
        codec.parse(typo)  # (a changed character is no cut)
    assert main(["join", first_row, "--bot"]) == 2
    err = capsys.readouterr().err
    assert "cut short: it spans two rows; put it in quotes or use the .invite file" in err


@pytest.mark.parametrize("width", [20, 55, 80, 109, 110, 200])
def test_the_invites_rows_are_even_and_fit(width: int) -> None:
    text = str(INVITE)
    rows = invite_rows(text, width)
    assert "".join(rows) == text and all(len(row) <= width for row in rows)
    assert max(map(len, rows)) - min(map(len, rows)) <= 1 or len(rows[-1]) < len(rows[0])
    assert len(rows) == -(-len(text) // width)


def test_the_waiting_lines_name_the_file_and_the_fingerprint() -> None:
    table = TableScreen()
    identity = Identity.generate()
    table.adapter.peer = SimpleNamespace(identity=identity, view=None)  # type: ignore[assignment]
    table.adapter.net_event(Listening("[::]:7780", invite=str(INVITE), saved=SAVED))
    text = plain(table.text.waiting_lines())
    assert identity.fingerprint in text and SAVED in text.splitlines()
    assert "".join(invite_rows(str(INVITE), 80)) == str(INVITE)
    assert all(row in text.splitlines() for row in invite_rows(str(INVITE), 80))


def test_the_screens_log_points_to_the_invite_instead_of_wrapping_it_beside_the_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2pgenius.cli.host import _invite

    monkeypatch.setenv("P2PGENIUS_NO_CLIPBOARD", "1")
    for bot, shown in ((None, False), ("random", True)):
        said: list[str] = []
        peer = SimpleNamespace(
            identity=Identity.generate(),
            say=said.append,
            files=SimpleNamespace(invite=tmp_path / "i"),
        )
        args = SimpleNamespace(bot=bot, invite_only=False)
        invite, _ = _invite(args, peer, SimpleNamespace(port=7780), ["127.0.0.1"], [])  # type: ignore[arg-type]
        assert any(str(invite) in line for line in said) is shown, said
        assert any("on the waiting screen, on rows of its own" in line for line in said) is not shown
