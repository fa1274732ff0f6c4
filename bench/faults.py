"""Fault injection, counted: connections cut at every step of matches of all three games, and
joiner processes killed with SIGKILL at random points and restarted with `p2pgenius resume`.

    .venv/bin/python bench/faults.py [--cuts 60] [--kills 10] [--seed 1]

Every fault must end with the match finished on both sides (same result, both transcripts
verifying) or with a correct forfeit; the counts are printed as a table.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pgenius.protocol.transcript import verify  # noqa: E402
from tests.net.faults import cut_after  # noqa: E402
from tests.net.test_processes import listening_port, messages_in, spawn, spawn_bot_host  # noqa: E402


def cuts(per_game: int) -> list[tuple[str, int, int, int]]:
    """(game, cuts injected, survived, of which before the match began)."""
    rows = []
    for game in ("duel", "magic-square", "hornswoggle"):

        async def sweep(game: str = game) -> tuple[int, int, int]:
            injected = survived = before = 0
            with tempfile.TemporaryDirectory() as tmp:
                for writes in range(per_game):
                    outcome = await cut_after(Path(tmp) / str(writes), writes, game=game, seed=writes)
                    if not outcome.cut:
                        continue
                    injected += 1
                    before += outcome.before_match
                    survived += outcome.finished and outcome.verified
            return injected, survived, before

        injected, survived, before = trio.run(sweep)
        rows.append((game, injected, survived, before))
        print(f"cuts   {game:<13} injected {injected:>3}  survived {survived:>3}", file=sys.stderr)
    return rows


def kills(count: int, seed: int) -> tuple[int, int, int]:
    """(kills injected, matches, matches that finished with both transcripts verifying)."""
    rng = random.Random(seed)
    injected = matches = survived = 0
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        while injected < count:
            matches += 1
            run = tmp / f"m{matches}"
            host_file, join_file = run / "host.p2pt", run / "join.p2pt"
            host_out = run / "host.txt"
            run.mkdir()
            host = spawn_bot_host(run / "h", host_out, host_file)
            try:
                port = listening_port(host_out)
                args = ["join", f"127.0.0.1:{port}", "--bot", "--grace", "60", "--transcript", str(join_file)]
                joiner = spawn(run / "j", run / "join.txt", *args)
                for kill in range(rng.randint(1, 3)):  # one to three kills in this match
                    target = messages_in(join_file) + rng.randint(3, 25)
                    deadline = time.monotonic() + 30
                    while (
                        messages_in(join_file) < target
                        and joiner.poll() is None
                        and time.monotonic() < deadline
                    ):
                        time.sleep(0.002)
                    if joiner.poll() is not None:
                        break  # the duel ended first
                    joiner.send_signal(signal.SIGKILL)
                    joiner.wait()
                    injected += 1
                    joiner = spawn(
                        run / "j",
                        run / f"resume{kill}.txt",
                        "resume",
                        str(join_file),
                        "--bot",
                        "--grace",
                        "60",
                    )
                joiner.wait(timeout=60)
                host.wait(timeout=60)
            finally:
                host.kill()
            reports = [verify(p.read_bytes()) for p in (host_file, join_file)]
            if all(r.ok for r in reports) and reports[0].outcome == reports[1].outcome:
                survived += 1
            print(f"kills  match {matches}: {injected} so far, survived {survived}", file=sys.stderr)
    return injected, matches, survived


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", type=int, default=60, help="cut points tried per game")
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs to inject")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = cuts(args.cuts)
    killed, matches, survived = kills(args.kills, args.seed)
    print("| fault | injected | survived (finished, both transcripts verify) |")
    print("|---|---|---|")
    for game, injected, ok, before in rows:
        print(f"| connection cut, {game} ({before} before the match began) | {injected} | {ok} |")
    print(
        f"| SIGKILL of the joiner, restarted with resume ({matches} duels) | {killed} | "
        f"{survived} of {matches} matches |"
    )


if __name__ == "__main__":
    main()
