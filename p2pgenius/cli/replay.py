"""``p2pgenius replay TRANSCRIPT``: step through a match in the terminal UI.

The transcript is read and verified first, so a damaged file (or one with no match in it) is a
one-line error before any screen opens; without a terminal the command says so and points to
``p2pgenius export``, which writes the match out as text.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from p2pgenius.cli.export import read
from p2pgenius.cli.play import ascii_only
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.record.verifying import verify


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Replay ``args.transcript`` until the person leaves; returns the exit code."""
    path = args.transcript
    data = read(path)
    # Imported here: prompt_toolkit costs start-up time the other commands do not need.
    from p2pgenius.ui.replay import Replay  # noqa: PLC0415
    from p2pgenius.ui.replay import run as show  # noqa: PLC0415

    try:
        report = verify(data)
        replay = Replay(report, ascii_only=ascii_only(args, out))
    except P2PGeniusError as exc:
        raise P2PGeniusError(f"cannot replay {path}: {exc}") from None
    if not (sys.stdin.isatty() and out.isatty()):
        raise LocalMisuseError(
            f"replay shows the match in the terminal UI and needs a terminal; without one, "
            f"try: p2pgenius export {path}"
        )
    show(replay)
    return 0
