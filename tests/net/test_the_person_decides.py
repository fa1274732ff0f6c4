"""The person at a peer's first seat makes its moves through the one entry every decision takes:
it is told what it is asked (``Peer.asks``), and its answer goes into the match's inbox and on to
the machine (``Peer.offer``), as a bot's does. Nothing asks a ``decide`` callback for the person's
seat (it used to sleep for ever there while the move came in by another door), and an answer for
a stage that has moved on is not taken for the next one (and the person is told so)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio
import trio.testing

from p2pgenius.net.files import Files
from p2pgenius.net.latency import MemoryListener
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.events import Applied, DecisionRefused, Event
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import SessionView

NOTHING = {"type": "gestures", "left": "-", "right": "-"}
WAVE = {"type": "gestures", "left": "W", "right": "-"}


class Person:
    """What a screen would do: note what it is asked, and (when told to) answer it."""

    def __init__(self) -> None:
        self.told: list[dict[int, int]] = []
        self.asked: dict[int, int] = {}
        self.decided_for: list[int] = []  # seats the ``decide`` callback was asked for
        self.applied: list[int] = []

    def asks(self, asking: dict[int, int]) -> None:
        self.told.append(dict(asking))
        self.asked = asking

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        self.decided_for.append(seat)
        return NOTHING

    def report(self, session: SessionView, event: Event) -> None:
        if isinstance(event, Applied):
            self.applied.append(event.stage)


async def bot(session: SessionView, seat: int) -> Mapping[str, Any] | None:
    return NOTHING


def peers(tmp: Path, person: Person) -> tuple[Peer, Peer]:
    def files(name: str) -> Files:
        return Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")

    host = Peer(
        Identity.generate(), "host", files("host"), person.decide, person.report, lambda t: None, pin_dir=tmp
    )
    host.asks = person.asks
    guest = Peer(
        Identity.generate(),
        "guest",
        files("guest"),
        bot,
        lambda s, e: None,
        lambda t: None,
        pin_dir=tmp / "g",
    )
    guest.settle_at_once = True
    return host, guest


async def test_the_person_is_asked_and_answers_through_the_inbox_never_through_decide(
    tmp_path: Path, autojump_clock: Any
) -> None:
    del autojump_clock
    person = Person()
    host, guest = peers(tmp_path, person)
    said: list[Any] = []
    host.notify = said.append
    listener = MemoryListener(0.01)
    async with trio.open_nursery() as nursery:
        table = {"game": "duel", "options": {"fast": True}, "setup": {"hp": [15, 15]}, "peers": 2}
        nursery.start_soon(lambda: host.host(listener, seats=[0], **table))  # type: ignore[arg-type]
        nursery.start_soon(guest.join, listener.connect())
        for _ in range(3):
            with trio.fail_after(120):
                while 0 not in person.asked:
                    await trio.sleep(0.01)
            number = person.asked[0]
            host.offer(number, 0, WAVE)
            with trio.fail_after(120):
                while number not in person.applied:
                    await trio.sleep(0.01)
        # An answer for a stage that has moved on is not taken for the one being played.
        with trio.fail_after(120):
            while 0 not in person.asked:
                await trio.sleep(0.01)
        now = person.asked[0]
        host.offer(now - 1, 0, WAVE)
        await trio.testing.wait_all_tasks_blocked()
        await trio.sleep(1)
        assert host.view is not None and host.view.stage is not None
        assert host.view.stage.number == now and 0 in host.view.awaiting(), "the stale answer was taken"
        assert person.asked == {0: now}
        late = [e for e in said if isinstance(e, DecisionRefused) and "it was not played" in e.reason]
        assert len(late) == 1 and late[0].seat == 0, "the person was not told its late answer was not played"
        nursery.cancel_scope.cancel()
    assert person.asked == {}, "the match stopped, and the person was still asked to move"
    assert person.decided_for == [], "decide was asked for the person's seat"
    asked = [told[0] for told in person.told if told]
    assert asked == sorted(set(asked)) and len(asked) >= 4, person.told
    assert {} in person.told, "the person was never told it is no longer asked"
