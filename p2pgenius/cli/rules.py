"""``p2pgenius rules GAME``: the rules as in docs/rules/, with every ruling explained."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import TextIO

from p2pgenius.errors import LocalMisuseError


def rules_text(game: str) -> str:
    """The rules page of ``game`` (also shown inside the terminal UI)."""
    try:
        return resources.files("p2pgenius").joinpath("rules", f"{game}.md").read_text(encoding="utf-8")
    except OSError as exc:
        raise LocalMisuseError(f"the rules of {game} are missing from this installation: {exc}") from None


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the rules."""
    out.write(rules_text(args.game))
    return 0
