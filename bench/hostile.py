"""Run the hostile-peer suite over real TCP and print (or write into docs/security.md) the table
of every attack and what the honest peer made of it.

    .venv/bin/python bench/hostile.py [--write]

The attacks are tests/hostile/scenarios.py's, the same the test suite runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hostile.scenarios import ATTACKS, Attack, Result  # noqa: E402

START, END = "<!-- hostile-table -->", "<!-- /hostile-table -->"


def answer(attack: Attack, result: Result) -> tuple[str, str, bool]:
    """(what the honest peer did, what verify says, whether it is what the attack expects)."""
    session = result.host.session
    rejected, fault = result.rejected(), result.fault()
    kind = attack.expect.split(":")[0]
    words = attack.expect.partition(": ")[2]
    if fault is not None:
        did = f"stopped the match: {fault.kind}: {fault.reason}"
    elif rejected:
        did = f"refused it ({rejected[0]}); the match went on"
    else:
        refusals = [line for line in result.seen.lines if line.startswith("refused")]
        did = (refusals[0] if refusals else "kept the door open for others") + "; the honest match was played"
    report = result.report
    said = (
        report.summary
        if report.fault is not None or not report.rejected
        else f"{report.summary}; {report.rejected[0]}"
    )
    finished = session is not None and (session.finished or session.fault is not None)
    if kind == "rejected+forfeit":
        did = f"refused it ({rejected[0] if rejected else '?'}); then {did}"
        held = any(words in r for r in rejected) and fault is not None and report.fault is not None
    elif kind.startswith("fault"):
        held = fault is not None and words in fault.reason and report.fault is not None
    elif kind == "rejected":
        held = any(words in r for r in rejected) and report.ok
    else:
        held = report.ok and (kind != "refused" or any(words in line for line in result.seen.lines))
    return did, said, held and finished


async def run_all() -> list[tuple[str, str, str, bool, float]]:
    rows = []
    for attack in ATTACKS:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            result = await attack.run(Path(tmp))
            took = time.perf_counter() - start
            did, said, held = answer(attack, result)
            rows.append((attack.name, did, said, held, took))
            print(f"{'held' if held else 'FAILED'}  {attack.name} ({took:.1f} s)", file=sys.stderr)
    return rows


def table(rows: list[tuple[str, str, str, bool, float]]) -> str:
    lines = [
        START,
        "| # | attack | the honest peer | `p2pgenius verify` on its transcript | held |",
        "|---|---|---|---|---|",
    ]
    for number, (name, did, said, held, _) in enumerate(rows, start=1):
        cells = [name, did, said]
        clean = [c.replace("|", "/").replace("\n", " ")[:160] for c in cells]
        lines.append(f"| {number} | {clean[0]} | {clean[1]} | {clean[2]} | {'yes' if held else 'NO'} |")
    total = sum(1 for row in rows if row[3])
    lines += ["", f"{total} of {len(rows)} attacks held.", END]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the table into docs/security.md")
    args = parser.parse_args()
    text = table(trio.run(run_all))
    print(text)
    if args.write:
        path = ROOT / "docs" / "security.md"
        doc = path.read_text(encoding="utf-8")
        before, _, rest = doc.partition(START)
        _, _, after = rest.partition(END)
        path.write_text(before + text + after, encoding="utf-8")


if __name__ == "__main__":
    main()
