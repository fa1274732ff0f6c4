"""The ``p2pgenius`` entry point: parse the command line, run a subcommand, map errors to exits.

Exit codes, the same for every command (docs/user-guide.md, "Exit status"): 0 success, 1 a game or
protocol failure explained in one line on standard error, 2 bad usage. No traceback reaches the user
unless ``--debug`` is given.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

from p2pgenius import __version__, installed
from p2pgenius.cli import commands
from p2pgenius.cli.terminal import Sanitizing, error, interactive
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games import catalog

TYPE_CHECKING = False  # (no typing at run time: see games/catalog.py)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2, and help is
    :class:`~p2pgenius.cli.commands.Help`'s."""

    def __init__(self, *args: Any, **options: Any) -> None:
        options.setdefault("formatter_class", commands.Help)
        super().__init__(*args, **options)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class _Unused:
    """The parser of a command that is not being run: whatever is added to it goes nowhere."""

    def __getattr__(self, name: str) -> Callable[..., _Unused]:
        return lambda *args, **options: self


class _OnlyWanted:
    """The subcommands' action, as the ``add_*`` functions use it, but only the command being run
    gets its arguments: every other is registered with its line of help (``p2pgenius --help``
    lists them) and no more. The whole grammar takes longer to build (8 ms) than the rest of a
    ``--help`` beyond bare Python."""

    def __init__(self, action: Any, wanted: str | None) -> None:
        self.action = action
        self.wanted = wanted

    def add_parser(self, name: str, **options: Any) -> Any:
        if self.wanted in (name, EVERY):
            return self.action.add_parser(name, **options)
        self.action.add_parser(name, help=options.get("help"), add_help=False)  # (half the cost)
        return _Unused()


EVERY = "*"
"""``build_parser``'s ``wanted`` for the whole grammar."""


def build_parser(wanted: str | None = EVERY) -> argparse.ArgumentParser:
    """The command-line grammar: every command's arguments, or (``wanted``) only those of the
    command named, the others' help lines (None: no command, only the help lines)."""
    parser = _Parser(
        prog="p2pgenius",
        description="Play The Genius death-match games peer to peer, with nobody in the middle.",
    )
    parser.add_argument("--version", action="version", version=f"p2pgenius {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    action = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    action.required = True
    commands_ = _OnlyWanted(action, wanted)
    sim_parser = commands_.add_parser(
        "sim",
        help="run the rules engine over a JSON script of actions (the format: docs/sim.md)",
        description="Run the rules engine over a script of actions and print JSON Lines: one "
        "object per accepted action, then the outcome. Exit 1 at the first illegal action.",
        add_help=False,
    )
    commands.add_game_help(sim_parser)
    sim_parser.add_argument("script", metavar="SCRIPT.json", help="the script, or - for stdin")
    for add in (
        commands.add_solve,
        commands.add_verify,
        commands.add_export,
        commands.add_identity,
        commands.add_play,
        commands.add_rules,
        commands.add_replay,
        commands.add_history,
        commands.add_games,
    ):
        add(commands_)
    return parser


MODULES = {
    "sim": "sim",
    "solve": "solve",
    "verify": "verify",
    "export": "export",
    "id": "identity",
    "host": "host",
    "play": "versus",
    "join": "join",
    "resume": "resume",
    "demo": "demo",
    "watch": "watch",
    "rules": "rules",
    "replay": "replay",
    "history": "history",
    "games": "games",
}
"""Which module runs each command (imported only when it runs)."""


def pasted_whole(argv: list[str]) -> list[str]:
    """``argv`` without the words ``p2pgenius join`` pasted after ``join``: a host's invite line is
    the whole command, and a friend who types ``p2pgenius join`` and then pastes it should join,
    not read that two arguments are unrecognized."""
    words = [i for i, word in enumerate(argv) if not word.startswith("-")]
    if words and argv[words[0]] == "join":
        at = words[0] + 1
        if argv[at : at + 2] == ["p2pgenius", "join"]:
            return argv[:at] + argv[at + 2 :]
        if at < len(argv) and argv[at].split()[:2] == ["p2pgenius", "join"]:  # pasted in quotes
            return argv[:at] + argv[at].split()[2:] + argv[at + 1 :]
    return argv


def _quiet_stdout() -> None:
    """Standard output's reader went away (``| head``): what is still buffered goes nowhere, so
    that flushing it at exit raises nothing (Python would print an error there)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _parsed(words: list[str]) -> argparse.Namespace | None:
    """The command line read (None: its ``--help`` went into a reader that stopped early, ``|
    head``); a ``join`` has begun to send its first message."""
    if installed.may_name(catalog.PLUGINS):  # (else no importlib.metadata: 20 ms)
        catalog.install_plugins()  # (before the parser: its choices name every game)
    parser = build_parser(next((word for word in words if not word.startswith("-")), None))
    try:
        args = parser.parse_args(words)
    except BrokenPipeError:
        _quiet_stdout()
        return None
    if args.command == "join" and not args.mailbox and (args.bot is not None or interactive()):
        from p2pgenius.net import early  # noqa: PLC0415  (before the rest is loaded: see there)

        early.begin(args.address)  # (not where the join stops before connecting: no terminal)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    args = _parsed(pasted_whole(list(sys.argv[1:] if argv is None else argv)))
    if args is None:
        return 0
    # Everything a command prints goes through one sanitising boundary (cli/terminal.py): text
    # from a peer or a file never drives the terminal.
    out = Sanitizing(sys.stdout)
    try:
        module = importlib.import_module(f"p2pgenius.cli.{MODULES[args.command]}")
        if args.command == "sim":
            code: int = module.run(args.script, out, Sanitizing(sys.stderr))
        else:
            code = module.run(args, out)
        return code
    except LocalMisuseError as exc:
        error(str(exc))
        return 2
    except P2PGeniusError as exc:
        error(str(exc))
        return 1
    except KeyboardInterrupt:
        error("interrupted")
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except Exception as exc:  # the last line of defence: never a traceback without --debug
        if args.debug:
            import traceback  # noqa: PLC0415  (only here: 9 ms of every start-up otherwise)

            traceback.print_exc()
        error(f"internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it")
        return 1
    return 2
