"""A duel without fast turns need not wait out every minute: a choice that only one player makes
(the hand a Paralysis holds) stands at once, a bot's choice stands at once, and a person may let
theirs stand (``done``): the turn resolves as soon as every choice stands. Under trio's autojump
clock, so the minutes that are (or are not) waited are measured exactly."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from p2pgenius.net.files import Files
from p2pgenius.net.latency import MemoryListener
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.events import Applied, Event
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import SessionView


class Script:
    """Gestures from a list (then nothing); the Paralysis's hand, when asked, is the left."""

    def __init__(self, gestures: list[str]) -> None:
        self.gestures = list(gestures)
        self.applied: list[tuple[float, int]] = []  # (when, stage)

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        await trio.sleep(0)
        if session.state is not None and session.state.paralysis_choices:
            return {"type": "paralyze", "target": "p1", "hand": "left"}
        pair = self.gestures.pop(0) if self.gestures else "--"
        return {"type": "gestures", "left": pair[0], "right": pair[1]}

    def event(self, session: SessionView, event: Event) -> None:
        if isinstance(event, Applied):
            self.applied.append((trio.current_time(), event.stage))


def peer(tmp: Path, name: str, script: Script, *, settle: bool) -> Peer:
    return Peer(
        Identity.generate(),
        name,
        Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets"),
        script.decide,
        script.event,
        lambda line: None,
        pin_dir=tmp / "pins" / name,
        settle_at_once=settle,
    )


async def duel(tmp: Path, *, settle: bool, turns: int = 5) -> Script:
    """p0 casts Paralysis at p1 (W W W), then both wait; returns p0's record of the stages."""
    caster, target = Script(["W-", "W-", "W-"]), Script([])
    host, guest = peer(tmp, "host", caster, settle=settle), peer(tmp, "guest", target, settle=settle)
    listener = MemoryListener(0.01)
    with trio.move_on_after(turns * 70):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(
                    listener, game="duel", options={}, setup={"hp": [15, 15]}, peers=2, seats=[0]
                )
            )
            nursery.start_soon(guest.join, listener.connect())
            while len(caster.applied) < turns:
                await trio.sleep(0.1)
            nursery.cancel_scope.cancel()
    return caster


async def test_the_hand_a_paralysis_holds_is_chosen_without_waiting_for_the_minute(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    applied = (await duel(tmp_path, settle=False)).applied
    took = [round(later - earlier) for (earlier, _), (later, _) in itertools.pairwise(applied)]
    # Turns wait their minute (nobody said done); the caster's choice of the hand (the stage after
    # the third W) is its alone, and stands at once.
    assert took[:2] == [60, 60] and took[2] < 2 and took[3] == 60, took


async def test_bots_choices_stand_at_once_so_turns_do_not_wait(tmp_path: Path, autojump_clock: Any) -> None:
    del autojump_clock
    applied = (await duel(tmp_path, settle=True)).applied
    took = [later - earlier for (earlier, _), (later, _) in itertools.pairwise(applied)]
    assert took and max(took) < 2, took
