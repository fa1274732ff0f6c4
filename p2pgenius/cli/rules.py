"""``p2pgenius rules GAME``: the rules as in docs/rules/, with every ruling explained."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import Any, TextIO

from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.registry import GAME_NAMES


def add_parser(commands: Any) -> None:
    """Register the ``rules`` subcommand."""
    parser = commands.add_parser(
        "rules",
        help="show the rules of a game",
        description="Print the full rules of a game, rulings included.",
    )
    parser.add_argument("game", choices=GAME_NAMES)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the rules."""
    try:
        text = resources.files("p2pgenius").joinpath("rules", f"{args.game}.md").read_text(encoding="utf-8")
    except OSError as exc:
        raise LocalMisuseError(
            f"the rules of {args.game} are missing from this installation: {exc}"
        ) from None
    out.write(text)
    return 0
