"""The command line's help says the games from their table: every game's name and title where a
command takes a game, and for ``host`` the terms each game's spec sets (its peers, its seat
groups, its teams, a sealed game's ``--fast`` and each time option with its default); no other
help text names a game, so a game added to the table is in every help without a line changed."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives import serialization

from p2pgenius.cli import commands
from p2pgenius.cli.main import main
from p2pgenius.cli.terminal import columns
from p2pgenius.durations import words
from p2pgenius.games import catalog
from p2pgenius.protocol.identity import Identity

pytestmark = pytest.mark.usefixtures("rps_in_the_table")

TAKE_A_GAME = ("host", "demo", "rules", "sim")
OTHERS = ("join", "watch", "resume", "verify", "export", "history", "games", "replay", "id")


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """``command --help``: the help before the games' table, and the table (words joined by one
    space each, as a reader sees them past the wrapping)."""
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    head, _, games = text.partition("\ngames:\n")
    return head, " ".join(games.split())


def words_of_games() -> Iterator[str]:
    for entry in catalog.GAMES:
        yield from (entry.name, entry.title, entry.name.replace("-", " "))


@pytest.mark.parametrize("command", TAKE_A_GAME)
def test_a_command_that_takes_a_game_ends_its_help_with_every_game(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, games = help_of(command, capsys)
    assert catalog.names()[-1] == "rps"  # (the test's own game too: the help reads the table)
    for entry in catalog.GAMES:
        assert f"{entry.name} ({entry.title}): {entry.summary}" in games


def test_host_help_says_each_games_terms_from_its_spec(capsys: pytest.CaptureFixture[str]) -> None:
    _, games = help_of("host", capsys)
    heads = [games.index(f"{entry.name} ({entry.title}): ") for entry in catalog.GAMES]
    for entry, start, end in zip(catalog.GAMES, heads, [*heads[1:], len(games)], strict=True):
        spec, told = entry.load_spec(), games[start:end]
        low, high = min(spec.groups_by_peers), max(spec.groups_by_peers)
        assert (f"{low} peers" if low == high else f"{low} to {high} peers") in told, entry.name
        for index, option in enumerate(spec.time_options):  # (the defaults as --turn takes them)
            turn = " (or --turn)" if index == 0 else ""  # (the first: the game's main clock)
            assert f"--option {option.name}={words(option.seconds)}{turn}: {option.what}" in told, entry.name
        assert ("--fast" in told) == spec.sealed, entry.name
        assert ("(--partner)" in told) == any(len(side) > 1 for side in spec.sides), entry.name
    assert "seat groups (--seat) over 2: 0+2 | 1+3; over 3: 0+2 | 1 | 3" in games  # (Hornswoggle's)


@pytest.mark.parametrize("command", TAKE_A_GAME + OTHERS)
def test_no_help_text_names_a_game_but_the_tables_lists(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    head, _ = help_of(command, capsys)
    head = re.sub(r"\{[^}]*\}", "", " ".join(head.split()))  # (the choices: the table's names)
    head = head.replace(catalog.levels_help(), "")  # (--bot's levels, game by game, from the table)
    named = [word for word in words_of_games() if re.search(rf"\b{re.escape(word)}\b", head, re.I)]
    assert named == [], f"{command} --help names a game outside the games' table"


def test_host_help_says_how_a_turns_length_is_written(capsys: pytest.CaptureFixture[str]) -> None:
    head, _ = help_of("host", capsys)
    head = " ".join(head.split())
    assert "--turn DURATION the game's main clock" in head
    assert "--turn 1d" in head and "1s to 30d" in head
    assert "--option KEY=DURATION a time limit, 1s to 30d" in head
    assert "--grace DURATION" in head and "(1s to 7d, default 2m, by correspondence 1d;" in head


def test_help_into_a_reader_that_stops_early_is_no_traceback() -> None:
    # `p2pgenius host --help | head -1`: the reader goes away mid-text (a broken pipe).
    import subprocess
    import sys

    for command in (["host", "--help"], ["rules", "duel"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # (gone before anything is written: every write meets a broken pipe)
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 0, err
        assert "Traceback" not in err and "BrokenPipe" not in err, err


@pytest.mark.parametrize(
    ("command", "listed"), [("play", False), ("host", True), ("join", True), ("resume", True)]
)
def test_stay_is_offered_only_where_a_match_can_be_played_by_correspondence(
    command: str, listed: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert ("--stay" in capsys.readouterr().out) is listed
    if not listed:
        with pytest.raises(SystemExit) as refused:
            main([command, "duel", "--stay"])
        assert refused.value.code == 2 and "unrecognized arguments: --stay" in capsys.readouterr().err


@pytest.mark.parametrize("width", ["37", "64", "120", "", "0", "wide"])
@pytest.mark.parametrize("command", [["--help"], ["host", "--help"], ["join", "--help"], ["play", "--help"]])
def test_help_is_as_wide_as_argparse_makes_it_by_itself(
    command: list[str], width: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line's help finds the terminal's width without shutil (start-up: see
    cli/terminal.py ``columns``); it is the help argparse's own formatter writes, at any
    ``COLUMNS`` (standard output not a terminal here: 80)."""
    monkeypatch.setenv("COLUMNS", width)
    with pytest.raises(SystemExit):
        main(command)
    ours = capsys.readouterr().out
    monkeypatch.setattr(commands, "Help", argparse.HelpFormatter)
    with pytest.raises(SystemExit):
        main(command)
    assert ours == capsys.readouterr().out
    assert columns() == shutil.get_terminal_size().columns


def test_help_and_a_game_s_rules_load_no_shutil() -> None:
    """shutil brings the compression modules (3 ms of every command's start) for one number."""
    for argv in (["--help"], ["rules", "duel"], ["join", "--help"]):
        code = (
            "import sys\n"
            "from p2pgenius.cli.main import main\n"
            "try:\n"
            f"    main({argv!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            "assert 'shutil' not in sys.modules, 'shutil loaded'\n"
        )
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        assert run.returncode == 0, (argv, run.stderr[-500:])


def test_a_join_loads_no_key_serialization() -> None:
    """An identity's raw bytes come without cryptography's key serialization (its SSH, PKCS#12
    and PEM readers: 5 to 6 ms of every join's loading, which follows its first byte)."""
    code = (
        "import sys\n"
        "import p2pgenius.cli.play\n"
        "from p2pgenius.protocol.identity import Identity\n"
        "me = Identity.generate()\n"
        "assert Identity.from_seed(me.seed).public == me.public\n"
        "assert 'cryptography.hazmat.primitives.serialization' not in sys.modules, 'loaded'\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-500:]


def test_an_identity_s_raw_bytes_are_the_serialized_ones() -> None:
    """The seed and the public key are the bytes cryptography's Raw serialization gives."""
    for _ in range(8):
        me = Identity.generate()
        raw = serialization.Encoding.Raw
        assert me.seed == me.private.private_bytes(
            raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        assert me.public == me.private.public_key().public_bytes(raw, serialization.PublicFormat.Raw)
