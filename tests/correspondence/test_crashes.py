"""A visit killed at any point loses nothing and never signs two different messages for one
number: visits killed before their letters went out, after the first relay took them, after
every relay took them (before the state was saved), and real processes killed with SIGKILL at
random moments; normal visits then carry the match to its end, every transcript verifies, and no
two messages of one author on any relay share a number."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.canonical import decode
from p2pgenius.net.correspondence import Offer
from p2pgenius.net.mail import Posted, collect, post
from p2pgenius.protocol.nostr import Event
from tests.correspondence.tables import Game, RealRelay, Side, check_finished, mailbox, table
from tests.nostr.relays import local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing()))

SCRIPT = Path(__file__).with_name("visit_once.py")
DUEL = Game(Offer("duel", {"turn_seconds": 86400}), ["ann", "bob"], "wizard", seed=42)  # (12 turns)


class Killed(BaseException):
    """The process gone (nothing after it runs: no handler of the visit catches it)."""


async def no_equivocation(sides: Sequence[Side], relays: Sequence[str]) -> int:
    """Every message on the relays, of every author: one per number (the messages read)."""
    got = await collect(relays, mailbox(sides[0]), wait_s=10)
    numbered: dict[tuple[int, int], set[bytes]] = {}
    for letter in got.letters:
        for message in letter.messages:
            value: Any = decode(message)
            if isinstance(value, list) and len(value) == 7:
                numbered.setdefault((value[2], value[3]), set()).add(hashlib.sha256(message).digest())
    two = {slot: len(hashes) for slot, hashes in numbered.items() if len(hashes) > 1}
    assert not two, f"two different messages for one number: {two}"
    return len(numbered)


@dataclass
class Killer:
    """Stands in for ``mail.post`` in the visits: kills the visit before a letter goes out,
    after the first relay took it, or after every relay took it (before the visit saved what
    it did), as ``where`` says ("": never)."""

    where: str = ""
    kills: Counter[str] = field(default_factory=Counter)

    async def post(self, urls: Sequence[str], event: Event, *, wait_s: float) -> Posted:
        if self.where == "before":
            raise Killed
        posted = await post(urls[:1] if self.where == "between" else urls, event, wait_s=wait_s)
        if self.where:
            raise Killed
        return posted

    async def visit(self, side: Side, where: str) -> None:
        """A visit of ``side`` killed at ``where`` (if it gets there)."""
        self.where = where
        try:
            await side.run()
        except Killed:
            self.kills[where] += 1
        finally:
            self.where = ""


def test_visits_killed_before_between_and_after_posting_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = RealRelay(tmp_path), RealRelay(tmp_path)
    relays = [first.url, second.url]
    sides = table(tmp_path, DUEL, relays)
    killer = Killer()
    monkeypatch.setattr("p2pgenius.net.correspondence.post", killer.post)
    rng = random.Random(5)

    async def play() -> None:
        for _ in range(80):
            for side in [side for side in sides if not side.over]:
                await killer.visit(side, rng.choice(["before", "between", "after", "after", ""]))
                if not side.over:
                    await side.run()
            if all(side.over for side in sides):
                return
        raise AssertionError(f"the duel did not end: {[(s.name, s.lines[-6:]) for s in sides]}")

    try:
        trio.run(play)
        check_finished(sides)
        print("killed", dict(killer.kills), "messages", trio.run(no_equivocation, sides, relays))
    finally:
        first.stop()
        second.stop()
    assert killer.kills.keys() == {"before", "between", "after"}


def visit_killed(side: Side, folder: Path, rng: random.Random) -> str:
    """A visit of ``side`` in a process of its own, killed (SIGKILL) at a random moment of it:
    how far it got ("killed" or "visited": it ended before the kill)."""
    key = folder / f"{side.name}.key"
    key.write_text(side.identity.seed.hex())
    key.chmod(0o600)
    argv = [sys.executable, str(SCRIPT), str(side.path), str(key), side.name, side.level, str(side.seed)]
    root = Path(__file__).parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    with subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == b"visiting\n", process.stderr.read() if process.stderr else ""
        try:
            process.wait(timeout=rng.uniform(0.0, 0.25))
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            return "killed"
        assert process.returncode == 0, process.stderr.read() if process.stderr else ""
        return "visited"


def test_visits_killed_with_sigkill_at_random_moments_lose_nothing(tmp_path: Path) -> None:
    first, second = RealRelay(tmp_path), RealRelay(tmp_path)
    relays = [first.url, second.url]
    sides = table(tmp_path, DUEL, relays)
    rng = random.Random(11)
    ends: dict[str, int] = {}
    try:
        for _ in range(80):
            if all(side.over for side in sides):
                break
            for side in sides:
                if not side.over and rng.random() < 0.5:
                    end = visit_killed(side, tmp_path, rng)
                    ends[end] = ends.get(end, 0) + 1
                if not side.over:
                    trio.run(side.run)
        check_finished(sides)
        print("ends", ends, "messages", trio.run(no_equivocation, sides, relays))
    finally:
        first.stop()
        second.stop()
    assert ends.get("killed", 0) >= 3
