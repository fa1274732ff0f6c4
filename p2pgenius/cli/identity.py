"""``p2pgenius id``: show (creating on first use) this player's identity and fingerprint."""

from __future__ import annotations

import argparse
from typing import TextIO

from p2pgenius.net.keystore import IDENTITY_FILE, config_dir, load_identity


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the identity."""
    del args
    identity, created = load_identity()
    if created:
        out.write(f"created a new identity in {config_dir() / IDENTITY_FILE}\n")
    out.write(f"fingerprint: {identity.fingerprint}\n")
    out.write(f"public key:  {identity.public.hex()}\n")
    if not created:  # (the help promises where the private key is kept: said every time)
        out.write(f"private key: {config_dir() / IDENTITY_FILE} (keep it to yourself)\n")
    return 0
