"""``p2pgenius verify TRANSCRIPT``: a third-party check of a match, with the public keys alone."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from p2pgenius.cli.export import read, record
from p2pgenius.protocol.transcript import verify


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Verify and print; returns the exit code."""
    report = verify(read(args.transcript))
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
