"""What the lobby says back (issue 37, 5): a joiner answering ``fast`` is told what it did; a host
whose table waits on a player's proposal says so on its board, not "Waiting for the other
players"; the host's word on taking it up goes once the match begins; Ctrl-Q before the match
says there is nothing to resume; a joiner's no ends in a plain sentence. Screens through a real
terminal emulator (pyte) at 80x24 and 160x50."""

from __future__ import annotations

import argparse
import asyncio
import io
from types import SimpleNamespace

import pytest
from prompt_toolkit.input import create_pipe_input

from p2pgenius.cli.play import one_line
from p2pgenius.net.events import Listening, OptionsProposed, TableShown
from p2pgenius.net.lobby import DECLINED, DeclinedError
from p2pgenius.protocol.events import SeatsDealt
from p2pgenius.protocol.identity import Identity
from p2pgenius.ui.app import build
from p2pgenius.ui.table import TableScreen
from tests.patience import HANG_S

from .screen import Terminal, seen, settled

SIZES = [(80, 24), (160, 50)]
INVITE_EVENT = Listening("127.0.0.1:34409", invite="", saved="", local_only=True)


def host_table() -> TableScreen:
    table = TableScreen()
    table.adapter.peer = SimpleNamespace(identity=Identity.generate(), view=None)  # type: ignore[assignment]
    return table


def screen_of(table: TableScreen, size: tuple[int, int], keys_sent: str = "", wait_for: str = "") -> str:
    """The screen of ``table`` once it settled (``keys_sent`` then pressed, until ``wait_for``)."""
    terminal = Terminal(*size)
    screens: list[str] = []

    async def run() -> None:
        with create_pipe_input() as keys:
            app = build(table, input=keys, output=terminal.output())
            shown = asyncio.ensure_future(app.run_async())
            await seen(terminal, r"\S")
            await settled(terminal)
            if keys_sent:
                keys.send_text(keys_sent)
                await seen(terminal, wait_for)
            screens.append(await settled(terminal))
            app.exit()
            await asyncio.wait_for(shown, HANG_S)

    asyncio.run(run())
    return screens[0]


@pytest.mark.parametrize("size", SIZES)
def test_a_host_whose_table_waits_on_a_proposal_says_so_on_its_board(size: tuple[int, int]) -> None:
    table = host_table()
    table.adapter.net_event(INVITE_EVENT)
    table.adapter.net_event(OptionsProposed("Bob", {"fast": True}))
    text = screen_of(table, size)
    assert "Waiting for the other players" not in text
    assert "Bob proposes fast turns: type `fast` to take it up" in " ".join(text.split())


def test_taking_up_a_proposal_is_said_as_such_and_goes_once_the_match_begins() -> None:
    table = host_table()
    table.adapter.net_event(OptionsProposed("Bob", {"fast": True}))
    table.adapter.propose = lambda options: True  # type: ignore[method-assign]
    table.input.enter("fast")
    assert table.state.message == "the table plays with fast turns: every player agrees again"
    assert "proposed" not in table.state.message and table.state.proposal is None
    session = SimpleNamespace(names=["Alice", "Bob"], terms=None, me=0, owner=(0, 1))
    table.state.on_session_event(session, SeatsDealt((0, 1)))  # type: ignore[arg-type]
    assert table.state.message == "", "the lobby's words do not stay into the match"


def test_a_joiner_answering_fast_is_told_what_it_did() -> None:
    table = TableScreen()
    table.adapter.lobby_answered = SimpleNamespace()  # type: ignore[assignment]
    proposed: list[dict[str, bool]] = []

    def propose(options: dict[str, bool]) -> bool:
        proposed.append(options)
        return True

    table.adapter.propose = propose  # type: ignore[method-assign]
    table.adapter.answer_lobby = lambda yes: True  # type: ignore[method-assign]
    table.input.enter("fast")
    assert proposed == [{"fast": True}]
    assert table.state.message.startswith("you join and propose fast turns")


@pytest.mark.parametrize("size", SIZES)
def test_ctrl_q_on_the_waiting_screen_says_there_is_nothing_to_resume(size: tuple[int, int]) -> None:
    table = host_table()
    table.adapter.net_event(INVITE_EVENT)
    text = " ".join(screen_of(table, size, "\x11", "Ctrl-Q again leaves").split())
    assert "No match has begun: nothing is played, and there is nothing to resume" in text
    assert "transcript is kept" not in text and "resume carries on" not in text


def test_a_joiner_saying_no_ends_with_a_plain_sentence() -> None:
    def declines(args: argparse.Namespace, out: object) -> int:
        raise BaseExceptionGroup("the match", [DeclinedError(DECLINED)])

    out = io.StringIO()
    code = one_line(declines)(argparse.Namespace(command="join"), out)
    assert code == 0 and out.getvalue() == f"{DECLINED}\n"
    assert "error" not in out.getvalue() and "left the lobby" in DECLINED


def test_a_large_window_keeps_the_chat_box_to_a_dozen_rows_under_a_short_board() -> None:
    # Issue 37, 8: at 160x50 a 30-row chat box held one line under the waiting screen's board.
    table = host_table()
    table.adapter.net_event(INVITE_EVENT)
    rows = screen_of(table, (160, 50)).splitlines()
    top = next(k for k, row in enumerate(rows) if "chat (say TEXT)" in row)
    bottom = next(k for k in range(top + 1, len(rows)) if rows[k].startswith("\u2514"))
    assert 6 <= bottom - top - 1 <= 12, "\n".join(rows)


@pytest.mark.parametrize("size", SIZES)
def test_a_host_s_board_shows_who_is_at_its_table_and_how_many_more(size: tuple[int, int]) -> None:
    """A host waiting for a full table sees who came, each one's fingerprint, a bot's level and
    whether it said ready, and how many places are still free (a newcomer's try: a Hornswoggle
    host saw only "Waiting for the other players" while a player sat at its table)."""
    table = host_table()
    host, bob = Identity.generate(), Identity.generate()
    table.adapter.net_event(INVITE_EVENT)
    shown = {
        "game": "hornswoggle",
        "options": {},
        "setup": {},
        "names": ["Alice", "Bob"],
        "keys": [host.public, bob.public],
        "claims": [[], []],
        "ready": [True, False],
        "you": 0,
        "needed": 2,
        "start": False,
        "salt": bytes(32),
        "bots": [None, "pirate"],
    }
    table.adapter.net_event(TableShown(shown))
    text = " ".join(screen_of(table, size).split())
    assert "Waiting for 2 more players" in text and "Alice" not in text  # (the host's own line: none)
    assert f"Bob {bob.fingerprint}" in text and "a bot: pirate" in text and "not ready" in text
    peer = table.adapter.peer
    assert peer is not None and peer.identity.fingerprint in text  # (what to tell them, as before)
    assert "Spectators may watch" not in text
    table.adapter.net_event(TableShown({**shown, "spectators": True}))
    assert "Spectators may watch: p2pgenius watch with the same invite" in " ".join(
        screen_of(table, size).split()
    )
