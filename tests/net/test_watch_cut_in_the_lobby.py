"""A spectator cut off before the match began calls the host again, as after a cut mid-match (it
holds no seat: nothing is lost by coming back), and says so."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import trio
import trio.testing

from p2pgenius.cli.join import Target
from p2pgenius.cli.play import Printer
from p2pgenius.cli.watch import watched
from p2pgenius.errors import PeerGoneError
from p2pgenius.net import transit
from p2pgenius.net.spectators import Onlooker, Watched
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session


@dataclass(frozen=True)
class Answering(transit.Way):
    """The host's address, answering every call (with a stream nobody reads), each counted."""

    calls: list[str] = field(default_factory=list)

    async def reach(self, exclude: Any = ()) -> tuple[trio.abc.Stream, transit.Route]:
        del exclude
        self.calls.append("called")
        return trio.testing.memory_stream_pair()[0], transit.Route("127.0.0.1:7790")


class Door(Target):
    """A target whose way is always the same :class:`Answering` one."""

    def __init__(self) -> None:
        super().__init__(targets=[("127.0.0.1", 7790)], key=None, what="127.0.0.1:7790")
        self.answering = Answering(self.targets)

    @property
    def way(self) -> transit.Way:
        return self.answering


async def test_a_watcher_cut_before_the_match_began_calls_again_and_watches(autojump_clock: Any) -> None:
    del autojump_clock
    door, out = Door(), io.StringIO()
    watching = Watched(Onlooker(lambda view, event: None, lambda raw: None))
    keys = [Identity.generate().public for _ in range(2)]
    follows = 0

    async def follow(stream: trio.abc.Stream) -> None:
        nonlocal follows
        del stream
        follows += 1
        if follows == 1:  # at the host's table, before the match: the connection drops
            raise PeerGoneError("the peer closed the connection")
        watching.session = Session(keys=keys, me=None)  # (the host's list of players came)

    view = await watched(door, follow, watching, Printer(out, moves=False))
    said = out.getvalue()
    assert view is not None and len(door.answering.calls) == 2 and follows == 2, said
    assert "before the match began; reconnecting" in said, said
    assert "watching again, from where it was cut" in said, said
