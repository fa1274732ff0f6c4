"""``p2pgenius rules GAME``: the rules as in docs/rules/, with every ruling explained."""

from __future__ import annotations

from p2pgenius.rules_pages import rules_text

TYPE_CHECKING = False  # (see rules_pages)
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the rules."""
    out.write(rules_text(args.game))
    return 0
