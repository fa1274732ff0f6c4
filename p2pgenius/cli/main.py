"""The ``p2pgenius`` entry point: parse the command line, run a subcommand, map errors to exits.

Exit codes (contracts/CLI.md): 0 success, 1 a game or protocol failure explained in one line on
standard error, 2 bad usage. No traceback reaches the user unless ``--debug`` is given.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

from p2pgenius import __version__
from p2pgenius.cli import identity, play, rules, sim, solve, verify
from p2pgenius.errors import LocalMisuseError, P2PGeniusError


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full command-line grammar."""
    parser = _Parser(
        prog="p2pgenius",
        description="Play The Genius death-match games peer to peer, with nobody in the middle.",
    )
    parser.add_argument("--version", action="version", version=f"p2pgenius {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    sim_parser = commands.add_parser(
        "sim",
        help="run the rules engine over a JSON script of actions (see contracts/SIM.md)",
        description="Run the rules engine over a script of actions and print JSON Lines: one "
        "object per accepted action, then the outcome. Exit 1 at the first illegal action.",
    )
    sim_parser.add_argument("script", metavar="SCRIPT.json", help="the script, or - for stdin")
    solve.add_parser(commands)
    verify.add_parser(commands)
    identity.add_parser(commands)
    play.add_parsers(commands)
    rules.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "sim":
            return sim.run(args.script, sys.stdout, sys.stderr)
        if args.command == "solve":
            return solve.run(args, sys.stdout)
        if args.command == "verify":
            return verify.run(args, sys.stdout)
        if args.command == "id":
            return identity.run(args, sys.stdout)
        if args.command == "rules":
            return rules.run(args, sys.stdout)
        if args.command in ("host", "join", "resume", "demo"):
            return play.run(args, sys.stdout)
        parser.error(f"unknown command {args.command!r}")
    except LocalMisuseError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except P2PGeniusError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: never a traceback without --debug
        if args.debug:
            traceback.print_exc()
        sys.stderr.write(
            f"error: internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it\n"
        )
        return 1
    return 2
