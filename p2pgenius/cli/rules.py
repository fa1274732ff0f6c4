"""``p2pgenius rules GAME``: the rules as in docs/rules/, with every ruling explained."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import TextIO

from p2pgenius.errors import LocalMisuseError


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
