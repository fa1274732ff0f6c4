"""A host's waiting screen shows its invite so that a copy of it is the invite: on rows of its own,
none indented (a wrapped continuation was indented, and the copy read "the invite has ' ' at
character 81"), through a real terminal emulator (pyte) at 80, 100 and 160 columns."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from prompt_toolkit.input import create_pipe_input

from p2pgenius.net import invite as codec
from p2pgenius.net.events import Listening
from p2pgenius.protocol.identity import Identity
from p2pgenius.ui.app import build
from p2pgenius.ui.lines import plain
from p2pgenius.ui.lobby import invite_rows
from p2pgenius.ui.table import Table

from .screen import Terminal, seen, settled

INVITE = codec.Invite(bytes(range(32)), 34409, ("127.0.0.1",), bytes(range(16)))
SAVED = "/tmp/hA/matches/20261201-175557-964910-duel-host.invite"


def waiting_screen(columns: int, rows: int = 24) -> Terminal:
    """The host's screen once it listens, before anyone joins."""
    terminal = Terminal(columns, rows)
    table = Table()
    table.peer = SimpleNamespace(identity=Identity.generate(), view=None)  # type: ignore[assignment]

    async def run() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=terminal.output())
            shown = asyncio.ensure_future(app.run_async())
            table.net_event(Listening("127.0.0.1:34409", invite=str(INVITE), saved=SAVED, local_only=True))
            await seen(terminal, "Whoever joins")
            await settled(terminal)
            app.exit()
            await asyncio.wait_for(shown, 10)

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


def test_the_invite_stands_alone_in_the_boards_frame_on_a_wide_screen() -> None:
    terminal = waiting_screen(160, 50)
    rows = []
    for line in copied(terminal):
        inside = line.split("\u2502")[1]  # (between the board frame's sides)
        if not inside.strip():
            break
        rows.append(inside.rstrip())
    assert all(not row.startswith(" ") for row in rows), rows
    assert "".join(rows) == str(INVITE)


@pytest.mark.parametrize("width", [20, 55, 80, 109, 110, 200])
def test_the_invites_rows_are_even_and_fit(width: int) -> None:
    text = str(INVITE)
    rows = invite_rows(text, width)
    assert "".join(rows) == text and all(len(row) <= width for row in rows)
    assert max(map(len, rows)) - min(map(len, rows)) <= 1 or len(rows[-1]) < len(rows[0])
    assert len(rows) == -(-len(text) // width)


def test_the_waiting_lines_name_the_file_and_the_fingerprint() -> None:
    table = Table()
    identity = Identity.generate()
    table.peer = SimpleNamespace(identity=identity, view=None)  # type: ignore[assignment]
    table.net_event(Listening("[::]:7780", invite=str(INVITE), saved=SAVED))
    text = plain(table.waiting_lines())
    assert identity.fingerprint in text and SAVED in text.splitlines()
    assert "".join(invite_rows(str(INVITE), 80)) == str(INVITE)
    assert all(row in text.splitlines() for row in invite_rows(str(INVITE), 80))
