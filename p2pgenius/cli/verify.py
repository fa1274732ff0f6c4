"""``p2pgenius verify TRANSCRIPT``: a third-party check of a match, with the public keys alone."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from p2pgenius.cli.export import record
from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.transcript import verify


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Verify and print; returns the exit code."""
    try:
        data = Path(args.transcript).read_bytes()
    except OSError as exc:
        raise LocalMisuseError(f"cannot read {args.transcript}: {exc.strerror}") from None
    report = verify(data)
    if args.json:
        out.write(
            json.dumps(
                {
                    "ok": report.ok,
                    "summary": report.summary,
                    "outcome": report.outcome,
                    "messages": report.messages,
                    "rejected": report.rejected,
                    "disputed_time": report.disputed_time,
                    "fault": None
                    if report.fault is None
                    else {
                        "kind": report.fault.kind,
                        "peer": report.fault.peer,
                        "stage": report.fault.stage,
                        "reason": report.fault.reason,
                    },
                }
            )
            + "\n"
        )
    else:
        out.write(report.summary + "\n")
        for line in report.rejected:
            out.write(f"  refused: {line}\n")
        for line in report.disputed_time:
            out.write(f"  time disputed: {line}\n")
        if getattr(args, "text", False):
            out.write("\n" + record(report))
    return 0 if report.ok else 1
