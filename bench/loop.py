"""Benchmark: event-loop stalls, the longest time one task step holds trio's loop in a match.

    .venv/bin/python bench/loop.py [--matches N] [--max-stages N] [--where]

Networked matches of each game over loopback TCP, the host and its joiners (one for the duel and
the Magic Square, three for Hornswoggle) in this process, every seat played by its game's default
bot (the strong ones, which think in a process of each peer's own, as in the command line), the
whole protocol with transcripts on disk.
A trio Instrument times every task step of the peers (``before_task_step`` to ``after_task_step``,
wall clock, and the CPU time of the loop's thread over the same step): while a step runs, nothing
else on the loop does, so no message is read or answered and no clock is kept. The aim: nothing
on the event loop over 20 ms. (The benchmark's own task, which sets the peers up and waits for the
end, is left out: it is not the program's.)

Reported per game: the steps counted, the longest (with the CPU time the loop's thread spent in it,
less than the wall time when the step waited for the GIL, held by another thread of the process, or
for a core; and how much of it went to the garbage collector's passes) and which task held it, the
99th percentile and the steps over 20 ms; then, per game, the tasks with the longest steps. Every
peer shares this one loop, so a step of one peer's holds up all of them. Last, every step over
20 ms; with ``--where``, also where the loop's thread was once the step had run 10 ms (a sampling
thread looks every 2 ms: it disturbs a little, so it is off for the record).
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import FrameType

import trio
import trio.lowlevel

from p2pgenius.bots.driver import BotDriver
from p2pgenius.bots.registry import level_of
from p2pgenius.games.registry import get_spec
from p2pgenius.net.files import Files
from p2pgenius.net.peer import Peer, warm_now
from p2pgenius.protocol.identity import Identity

STALL_MS = 20.0
"""The project's aim: no step holds the loop longer."""
MATCH_S = 600.0
"""A match that runs longer than this is a bug, not a measurement."""
GAMES: tuple[tuple[str, int], ...] = (("duel", 2), ("magic-square", 2), ("hornswoggle", 4))
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Task:
    """One task name's steps."""

    steps: int = 0
    longest_s: float = 0.0
    longest_cpu_s: float = 0.0
    longest_gc_s: float = 0.0
    most_cpu_s: float = 0.0  # the most CPU time in one step (not always the longest step's)
    over: int = 0


@dataclass
class Stall:
    """A step over the aim, and where the loop was in it (if it was looked at)."""

    task: str
    took_s: float
    cpu_s: float
    gc_s: float
    where: str


@dataclass(eq=False)  # (trio keeps its instruments in a set)
class StepTimer(trio.abc.Instrument):
    """Times every task step but the ``harness``'s; keeps every duration (for the percentiles),
    per task name the longest step, and every step over the aim."""

    durations: list[float] = field(default_factory=list)
    tasks: dict[str, Task] = field(default_factory=dict)
    stalls: list[Stall] = field(default_factory=list)
    harness: trio.lowlevel.Task | None = None
    where: str = ""  # set by the sampler while a step is long
    step: int = 0  # steps begun (the sampler's way to tell one step from the next)
    began: float = math.inf  # when the current step began (inf: none is running)
    loop_thread: int = field(default_factory=threading.get_ident)
    gc_s: float = 0.0  # garbage collection on the loop's thread in the current step
    _began_cpu: float = 0.0
    _gc_began: float = 0.0

    def collecting(self, phase: str, info: dict[str, int]) -> None:
        """A ``gc.callbacks`` entry: the collector's passes on the loop's thread, timed."""
        if threading.get_ident() != self.loop_thread:
            return
        if phase == "start":
            self._gc_began = time.perf_counter()
        else:
            self.gc_s += time.perf_counter() - self._gc_began

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self.step += 1
        self.where = ""
        self.gc_s = 0.0
        self._began_cpu = time.thread_time()
        self.began = time.perf_counter()

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        took = time.perf_counter() - self.began
        cpu = time.thread_time() - self._began_cpu
        self.began = math.inf
        if task is self.harness:
            return
        self.durations.append(took)
        timed = self.tasks.get(task.name)
        if timed is None:
            timed = self.tasks[task.name] = Task()
        timed.steps += 1
        if took > timed.longest_s:
            timed.longest_s, timed.longest_cpu_s, timed.longest_gc_s = took, cpu, self.gc_s
        timed.most_cpu_s = max(timed.most_cpu_s, cpu)
        if took * 1000 > STALL_MS:
            timed.over += 1
            self.stalls.append(Stall(task.name, took, cpu, self.gc_s, self.where))


def sample(timer: StepTimer, loop_thread: int, stop: threading.Event) -> None:
    """Look at the loop's thread every 2 ms; in a step 10 ms old, note where it is (once a step)."""
    seen = 0
    while not stop.wait(0.002):
        step = timer.step
        if step != seen and time.perf_counter() - timer.began > STALL_MS / 2000:
            frame = sys._current_frames().get(loop_thread)
            if frame is not None and timer.step == step:
                timer.where = where(frame)
                seen = step


def where(frame: FrameType) -> str:
    """The innermost frame of the project's code, and the innermost of all if it is elsewhere."""
    frames = []
    walk: FrameType | None = frame
    while walk is not None:
        frames.append(walk)
        walk = walk.f_back
    ours = next((f for f in frames if f.f_code.co_filename.startswith(str(ROOT / "p2pgenius"))), None)
    inner = _line(frames[0])
    if ours is None or ours is frames[0]:
        return inner
    return f"{_line(ours)} -> {inner}"


def _line(frame: FrameType) -> str:
    path = Path(frame.f_code.co_filename)
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path(path.parent.name, path.name)
    return f"{frame.f_code.co_name} ({shown}:{frame.f_lineno})"


def _peer(tmp: Path, name: str, seed: int) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    decide = BotDriver(None, seed).decide  # each game's default level: a strong bot, in its process
    return Peer(
        Identity.generate(),
        name,
        files,
        decide,
        lambda s, e: None,
        lambda _: None,
        pin_dir=tmp / "pins" / name,
    )


async def match(game: str, peers: int, seed: int, max_stages: int, timer: StepTimer) -> tuple[int, bool]:
    """One networked match with bots on every seat: (stages played, cut at ``max_stages``)."""
    timer.harness = trio.lowlevel.current_task()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        players = [_peer(tmp, "host" if i == 0 else f"joiner{i}", seed * 10 + i) for i in range(peers)]
        host = players[0]
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        options = dict(get_spec(game).demo_options)
        cut = False
        with trio.fail_after(MATCH_S):
            async with trio.open_nursery() as nursery:
                play = partial(host.host, listener, game=game, options=options, setup={}, peers=peers)
                nursery.start_soon(play, name="host: Peer.host")
                for index, joiner in enumerate(players[1:], start=1):
                    stream = await trio.open_tcp_stream("127.0.0.1", port)
                    nursery.start_soon(joiner.join, stream, name=f"joiner {index}: Peer.join")
                while not (host.session is not None and host.session.finished):
                    stage = None if host.session is None else host.session.stage
                    if stage is not None and stage.number >= max_stages:
                        cut = True  # (two perfect Magic Square bots may tie and replay without end)
                        nursery.cancel_scope.cancel()
                        break
                    await trio.sleep(0.05)
        await listener.aclose()
        assert host.session is not None
        stages = max(host.session.played.ending.my_hashes, default=-1) + 1
    return stages, cut


def percentile(values: Sequence[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    """Milliseconds, to a tenth."""
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    """Play the matches and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10, help="matches per game")
    parser.add_argument("--max-stages", type=int, default=1000, help="a match is cut after this many stages")
    parser.add_argument("--top", type=int, default=3, help="tasks listed per game in the second table")
    parser.add_argument("--where", action="store_true", help="say where the loop was in each long step")
    args = parser.parse_args()
    timers: dict[str, StepTimer] = {}
    played: dict[str, tuple[int, int, int]] = {}  # game -> (matches, stages, cut)
    for game, peers in GAMES:
        timers[game] = StepTimer()
        played[game] = (args.matches, *play_game(game, peers, args, timers[game]))
    print_games(timers, played, args.max_stages)
    print()
    print_tasks(timers, args.top)
    print_stalls(timers, where=args.where)
    print()
    print(
        "Wall time of each task step, every peer's steps on one loop. Its CPU: the loop thread's "
        "CPU time over that step (for the rest of it, the thread waited: for the GIL, held by a "
        "thread of this process, or for a core); of which GC: the garbage collector's passes "
        "on the loop's thread within the step (every peer of the match lives in this one process, "
        "so a full pass walks all their objects: a lone peer's heap is smaller). Most CPU in one "
        "step: the step that worked the longest, whatever its wall time. The bots think in a "
        "process of each peer's own (`p2pgenius.bots.worker`), as they do in the command line."
    )


def play_game(game: str, peers: int, args: argparse.Namespace, timer: StepTimer) -> tuple[int, int]:
    """``args.matches`` matches of ``game``, every step timed by ``timer`` (and, with
    ``--where``, looked at by the sampler): (stages played, matches cut)."""
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(timer, threading.get_ident(), stop), daemon=True)
    if args.where:
        sampler.start()
    stages, cuts = 0, 0
    warm_now(game)  # (as the command line does, before its loop runs: p2pgenius.cli.play.played)
    gc.callbacks.append(timer.collecting)
    try:
        for seed in range(1, args.matches + 1):
            got, cut = trio.run(match, game, peers, seed, args.max_stages, timer, instruments=[timer])
            stages, cuts = stages + got, cuts + cut
    finally:
        stop.set()
        gc.callbacks.remove(timer.collecting)
    return stages, cuts


def print_games(
    timers: dict[str, StepTimer], played: dict[str, tuple[int, int, int]], max_stages: int
) -> None:
    """The first table: per game, the longest step, the 99th percentile and the steps over the aim."""
    print(
        "| game (peers) | bots | matches | stages | task steps | longest step | its CPU, of which GC "
        f"| task that held it | 99th percentile | steps over {STALL_MS:g} ms | most CPU in one step |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for game, peers in GAMES:
        timer, (matches, stages, cuts) = timers[game], played[game]
        name, worst = max(timer.tasks.items(), key=lambda item: item[1].longest_s)
        busiest, most = max(timer.tasks.items(), key=lambda item: item[1].most_cpu_s)
        over = sum(t.over for t in timer.tasks.values())
        cut_note = f" ({cuts} cut at {max_stages} stages)" if cuts else ""
        print(
            f"| {game} ({peers}) | {level_of(game, None)} | {matches}{cut_note} | {stages:,} "
            f"| {len(timer.durations):,} | {ms(worst.longest_s)} | {ms(worst.longest_cpu_s)}, "
            f"{ms(worst.longest_gc_s)} | `{name}` | {ms(percentile(timer.durations, 0.99))} | {over:,} "
            f"| {ms(most.most_cpu_s)} (`{busiest}`) |"
        )


def print_tasks(timers: dict[str, StepTimer], top: int) -> None:
    """The second table: per game, the ``top`` tasks with the longest steps."""
    print(
        f"| game | task (the {top} with the longest steps) | steps | longest | its CPU, of which GC "
        f"| over {STALL_MS:g} ms | most CPU in one step |"
    )
    print("|---|---|---|---|---|---|---|")
    for game, _ in GAMES:
        ranked = sorted(timers[game].tasks.items(), key=lambda item: -item[1].longest_s)
        for name, task in ranked[:top]:
            print(
                f"| {game} | `{name}` | {task.steps:,} | {ms(task.longest_s)} | {ms(task.longest_cpu_s)}, "
                f"{ms(task.longest_gc_s)} | {task.over:,} | {ms(task.most_cpu_s)} |"
            )


def print_stalls(timers: dict[str, StepTimer], *, where: bool) -> None:
    """The last table, if any step went over the aim: every such step (and where it was)."""
    stalls = [(game, stall) for game, _ in GAMES for stall in timers[game].stalls]
    if not stalls:
        return
    heading = " where the loop was at 10 ms |" if where else ""
    print()
    print(f"| game | every step over {STALL_MS:g} ms | its CPU, of which GC | task |{heading}")
    print("|---|---|---|---|" + ("---|" if where else ""))
    for game, stall in stalls:
        seen = f" {stall.where or '(not seen)'} |" if where else ""
        cpu = f"{ms(stall.cpu_s)}, {ms(stall.gc_s)}"
        print(f"| {game} | {ms(stall.took_s)} | {cpu} | `{stall.task}` |{seen}")


if __name__ == "__main__":
    main()
