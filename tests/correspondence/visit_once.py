"""One visit of one side of a correspondence match, as a process of its own (for a test to kill).

Run as ``python visit_once.py TRANSCRIPT IDENTITY_FILE NAME LEVEL SEED`` from the project's root:
the identity file holds the side's 32-byte seed in hex. It prints ``visiting`` once everything is
imported, just before the visit begins, and ``visited`` when it is over.
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio

from p2pgenius.protocol.identity import Identity
from tests.correspondence.tables import Side


def main(transcript: str, identity_file: str, name: str, level: str, seed: str) -> None:
    identity = Identity.from_seed(bytes.fromhex(Path(identity_file).read_text().strip()))
    side = Side(name, Path(transcript), identity, int(seed), level)
    print("visiting", flush=True)
    trio.run(side.run)
    print("visited", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:6])
