"""Benchmark: the duel engine's processor time as one peer of a protocol match calls it.

    .venv/bin/python bench/duel_peer.py [--matches N] [--rounds N] [--levels random,wizard]

Seeded bot duels are played first (not timed) to fix every choice. Then each peer's engine work
is replayed as the session does it (``protocol/session/play.py``), with nothing of the protocol
around it: at each stage the outcome and the seats to wait on; for the peer's own seat its choice
parsed and checked (an ``apply`` whose state is thrown away); once the choices are opened, each
seat's parsed and applied with the events read before and after, the seats' blindness asked; then
the state hash. Both peers are replayed, each from states of its own and with the plans the
engine remembers forgotten, as two processes would start. The figure is process time per turn,
both peers, the least of ``--rounds`` (a machine others load only ever adds to it).

The last line is a digest of everything the replay saw (every state's full form, both views,
events and hash, the seats to act, each parsed action's plain form): two trees that print the
same digest computed the same duels.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from typing import Any

from p2pgenius.bots import make_bot
from p2pgenius.canonical import Plain, encode
from p2pgenius.games.base import state_hash
from p2pgenius.games.duel import DUEL, resolve
from p2pgenius.games.duel.spec import DUEL_SPEC
from p2pgenius.games.duel.state import DuelState

MAX_TURNS = 200

Stage = tuple[tuple[int, Plain], ...]
"""The choices of one stage: (seat, plain action) in seat order."""


def choices(level: str, seed: int) -> list[Stage]:
    """Every stage's choices of one seeded duel between two bots of ``level``."""
    bots = [make_bot("duel", level, seed=seed * 2 + seat) for seat in (0, 1)]
    state = DUEL.initial({}, {})
    stages: list[Stage] = []
    while state.outcome is None and state.turn <= MAX_TURNS:
        stage = tuple((seat, bots[seat].choose(state, seat).to_plain()) for seat in DUEL.to_act(state))
        for seat, plain in stage:
            state = DUEL.apply(state, seat, DUEL.parse_action(plain))
        stages.append(stage)
    return stages


def peer(stages: list[Stage], me: int) -> DuelState:
    """The engine's work of peer ``me`` over one duel's ``stages``; the last state."""
    state = DUEL.initial({}, {})
    for stage in stages:
        DUEL.outcome(state)
        waiting = DUEL.waiting_on(state)
        DUEL.to_act(state)
        for seat, plain in stage:
            if seat == me and seat in waiting:
                parsed = DUEL.parse_action(plain)
                parsed.to_plain()
                DUEL_SPEC.flipped_pile(parsed.to_plain())
                DUEL.apply(state, seat, parsed)
                parsed.to_plain()
        before = state
        for seat, plain in stage:
            DUEL_SPEC.blind(state, seat)
            DUEL_SPEC.blind(state, seat, 1)
            events = DUEL.events(state)
            state = DUEL.apply(state, seat, DUEL.parse_action(plain))
            if DUEL.events(state) is not events:
                list(DUEL.events(state))
        DUEL_SPEC.new_round(before, state)
        state_hash(DUEL, state)
    return state


def forget() -> None:
    """Forget what the engine remembers of plans, as a new process would have (the spell table's
    tails are kept: any process has them after its first turns)."""
    resolve._planned.cache_clear()


def cpu(duels: list[list[Stage]]) -> float:
    """Process seconds of both peers' engine work over ``duels``."""
    total = 0.0
    for me in (0, 1):
        forget()
        started = time.process_time()
        for stages in duels:
            peer(stages, me)
        total += time.process_time() - started
    return total


def seen(duels: list[list[Stage]]) -> str:
    """A digest of every state, view, event, hash, seat list and parsed action of ``duels``."""
    sha = hashlib.sha256()
    for stages in duels:
        state = DUEL.initial({}, {})
        for stage in stages:
            for seat, plain in stage:
                action = DUEL.parse_action(plain)
                state = DUEL.apply(state, seat, action)
                sha.update(encode(_everything(state, action.to_plain())))
                sha.update(state_hash(DUEL, state))
    return sha.hexdigest()[:16]


def _everything(state: Any, action: Plain) -> Plain:
    return {
        "action": action,
        "full": DUEL.full(state),
        "views": [DUEL.view(state, seat) for seat in (0, 1)],
        "events": list(DUEL.events(state)),
        "to_act": list(DUEL.to_act(state)),
        "waiting_on": list(DUEL.waiting_on(state)),
        "legal": [a.to_plain() for seat in (0, 1) for a in DUEL.legal_actions(state, seat)],
    }


def main() -> None:
    """Play, replay and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=30, help="duels per bot level")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--levels", default="random,wizard")
    args = parser.parse_args()
    duels = [choices(level, seed) for level in args.levels.split(",") for seed in range(args.matches)]
    turns = sum(len(stages) for stages in duels)
    times = sorted(cpu(duels) for _ in range(args.rounds))
    print("| duels | stages | us per stage, both peers (least) | median | most |")
    print("|---|---|---|---|---|")
    print(
        f"| {len(duels)} | {turns} | {times[0] / turns * 1e6:.1f} "
        f"| {times[len(times) // 2] / turns * 1e6:.1f} | {times[-1] / turns * 1e6:.1f} |"
    )
    print(f"digest {seen(duels)}")


if __name__ == "__main__":
    main()
