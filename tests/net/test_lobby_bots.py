"""A bot at the table is said in the lobby: a joiner's hello names its bot's level, the host's
lobby map carries every player's (``bots``: informative, a peer may lie), the host is told "bob
joined, a bot: wizard (strongest)" and a joiner's screen shows the level in words beside the
name. A hello or a lobby map that says something else about bots says nothing (no crash)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.games.catalog import find
from p2pgenius.net.events import NetEvent, PeerJoined
from p2pgenius.net.lobby import bot_of, level_words
from p2pgenius.ui.lines import plain
from p2pgenius.ui.lobby import bot_words, lobby_lines

from .test_lobby_options import Agrees, play
from .test_network import Silent, peer

DEFAULT = find("duel").described[0]


async def test_a_bots_level_goes_from_its_hello_to_the_lobby_and_the_host(tmp_path: Path) -> None:
    host = peer(tmp_path, "host", BotDriver("random", 1), Silent())
    guest = peer(tmp_path, "guest", BotDriver("random", 2), Silent())
    host.settle_at_once = guest.settle_at_once = True  # (no minute waited out)
    guest.bot = ""  # --bot with no level: the game's default, which the host names
    agrees = Agrees()
    guest.confirm = agrees
    events: list[NetEvent] = []
    host.notify = events.append

    async def nothing() -> None:
        await trio.sleep(0)

    await play(host, guest, nothing)
    shown = agrees.shown[-1]
    assert shown["bots"] == [None, DEFAULT.name]  # the host is a person; the guest a bot
    joined = next(e for e in events if isinstance(e, PeerJoined))
    assert joined.bot == str(DEFAULT) and joined.text.endswith(f", a bot: {DEFAULT.name} (strongest)")
    text = plain(lobby_lines(shown))
    assert f"a bot: {DEFAULT}" in text and text.count("a bot:") == 1


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("wizard", "wizard"),
        ("", ""),
        ("x" * 33, None),  # too long
        ("wiz ard", None),  # not a level's name
        ("\x1b[2J", None),  # a terminal's escape
        (7, None),
        (None, None),
    ],
)
def test_a_hello_names_a_level_or_nothing(said: object, read: str | None) -> None:
    assert bot_of({"bot": said} if said is not None else {}) == read


def test_levels_in_words_and_what_a_lobby_map_may_not_say() -> None:
    assert level_words("duel", DEFAULT.name) == str(DEFAULT)
    assert level_words("duel", "") == str(DEFAULT)  # (the default)
    assert level_words("duel", "hal9000") == "hal9000"  # another program's level: its name alone
    assert level_words("duel", None) is None
    lobby = {"game": "duel", "names": ["ann", "bob"], "bots": [None, "random"]}
    assert bot_words(lobby, 2) == [None, "random (beginner)"]
    for wrong in ([None], "random", [None, "\x1b]52;c;x\x07"], [None, 5]):
        said = bot_words({**lobby, "bots": wrong}, 2)
        assert said == [None, None], wrong
