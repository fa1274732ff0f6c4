"""A transcript shows no result the match never had (protocol/SPEC.md, P14 and section 7, "What a
transcript proves"), whatever one peer writes alone.

A forger holds one peer's keys and that peer's whole transcript of a real match (every message it
sent and every one it received). For every game in the table (rps included), with two peers and
with the most the game allows, it tries every rewrite of each of its own messages (dropped; another
legal action, a commitment to one and its opening; another hash; another signed result), each cut
right after the lie and each with the rest of the match kept, every cut of its transcript, and a
timeout claim and a forfeit of another seat wherever one owes something. None may verify as a
finished match with another result; a finished one must have the real result; a cheat found can
only be the forger's; a forfeit of another peer is only ever the forger's own claim (the forfeit
path, which one copy cannot tell from a peer that walked away: docs/security.md). A spectator
shown a forged history by a forging host accepts no other result either.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.inmemory import MemoryTable, play, transcript
from p2pgenius.protocol import identity, messages
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import FINISHED, Report, verify
from tests.test_every_game import GAMES, most_peers

from .test_vectors import generator

VECTORS = Path(__file__).parents[2] / "protocol" / "vectors"
SHORT: dict[str, dict[str, Any]] = {
    "duel": {"setup": {"hp": [3, 3]}},
    "magic-square": {"setup": {"colours": [0, 1] * 4 + [1, 0] * 4}, "levels": ["random", "random"]},
    "hornswoggle": {"setup": {"hands": [[1, 1], [1, 1], [1, 1], [1, 1]]}},
}
"""Short matches (the forger tries every one of its messages: a long match is many thousands of
verifications)."""


FORGE = generator().forge_module()
"""protocol/vectors/forge.py, as the vectors' generator loads it."""


pytestmark = pytest.mark.usefixtures("rps_in_the_table")


def honest(game: str, peers: int) -> MemoryTable:
    return play(game, peers=peers, seed=23, deterministic=True, **SHORT.get(game, {}))


@pytest.fixture(autouse=True)
def _signatures_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The forgeries share most of their messages: each signature is checked once (a pure
    # function of its key, signature and bytes), the test then runs in a fraction of the time.
    monkeypatch.setattr(messages, "verify", functools.lru_cache(maxsize=None)(identity.verify))


def judged(report: Report, real: Any, forger: int, note: str) -> None:
    """What one forgery may verify as."""
    if report.ok:
        assert report.standing == FINISHED and report.outcome == real, note
    fault = report.fault
    if fault is not None and fault.kind == "cheat":
        assert fault.peer == forger, f"{note}: framed peer {fault.peer} as a cheat ({fault.reason})"
    if fault is not None and fault.kind == "forfeit" and fault.peer != forger:
        # The forfeit path: only the forger's own claim, signed, after which the accused's answers
        # were left out (its own copy holds them).
        assert fault.evidence.get("claimed_by") == forger, note


@pytest.mark.parametrize(
    ("game", "peers"), sorted({(game, peers) for game in GAMES for peers in (2, most_peers(game))})
)
def test_no_rewrite_and_no_cut_by_one_peer_verifies_as_another_result(game: str, peers: int) -> None:
    table = honest(game, peers)
    real = verify(transcript(table, 0))
    assert real.ok and real.outcome is not None, real.summary
    keys = [i.public for i in table.identities]
    tried = 0
    # The host and the joiner each forge in the duel; elsewhere the last joiner does (with four
    # peers, one relayed by the host).
    for forger in (0, 1) if game == "duel" else (peers - 1,):
        data = transcript(table, forger)
        forge = FORGE.Forger(table.identities[forger], data)
        for forgery in [*forge.forgeries(), *forge.claims()]:
            judged(verify(forge.write(forgery)), real.outcome, forger, forgery.note)
            tried += 1
        # Every cut of its own transcript (an observer read up to there is what verify reads):
        # finished only once every peer's end is in, and then with the real result.
        observer = Session(keys=keys, me=None)
        for count, raw in enumerate(forge.messages, start=1):
            observer.receive(raw)
            shown = None if observer.outcome is None else observer.outcome.to_plain()
            assert not observer.finished or shown == real.outcome, f"cut after message {count}"
            assert observer.fault is None, f"cut after message {count}: {observer.fault}"
            tried += 1
        assert observer.finished, "the uncut transcript is the real match"
    assert tried > 20, "the forger found nothing to try: the test would prove nothing"


def observed(keys: list[bytes], messages: tuple[bytes, ...], *, binding: bool) -> Session:
    """An observer of ``messages``; ``binding`` False: blind to what other peers' heads name (the
    rule of match messages version 2, whose envelopes had none)."""
    observer = Session(keys=keys, me=None)
    observer.chain.binding = binding
    for raw in messages:
        observer.receive(raw)
    observer.settle()
    return observer


def test_the_heads_are_what_stops_the_old_attack() -> None:
    # The attack that worked on match messages version 2: rewrite one's own decision (its
    # commitment and its opening), keep the other's decisions of that stage, sign one's own hash
    # of the state that yields, and stop. Blind to the heads, an observer reaches another result
    # from such a history; with the heads checked, every message of the honest peer that names a
    # rewritten one is refused, so no forgery reaches another result, and nobody honest is blamed.
    table = honest("duel", 2)
    keys = [i.public for i in table.identities]
    real = verify(transcript(table, 0)).outcome
    reached = 0
    for forger in (0, 1):
        forge = FORGE.Forger(table.identities[forger], transcript(table, forger))
        for forgery in forge.old_attack():
            blind = observed(keys, forgery.messages, binding=False)
            reached += blind.outcome is not None and blind.outcome.to_plain() != real
            bound = observed(keys, forgery.messages, binding=True)
            assert bound.outcome is None or bound.outcome.to_plain() == real, forgery.note
            assert bound.fault is None or bound.fault.peer == forger, forgery.note
            assert not bound.finished or bound.outcome.to_plain() == real  # type: ignore[union-attr]
    assert reached > 0, "no forgery reached another result even blind to the heads: nothing was tried"


async def test_a_spectator_shown_a_forged_history_accepts_no_other_result() -> None:
    from p2pgenius.canonical import encode
    from p2pgenius.errors import PeerGoneError
    from p2pgenius.net.connection import Connection
    from p2pgenius.net.spectators import Onlooker, watch
    from p2pgenius.protocol.channel import SecureChannel
    from p2pgenius.protocol.identity import Identity

    table = honest("duel", 2)
    real = verify(transcript(table, 0)).outcome
    host = table.identities[0]  # the forger is the host: it shows the spectator what it likes
    forge = FORGE.Forger(host, transcript(table, 0))
    strongest = [f for f in forge.forgeries() if "signed another result" in f.note or "made" in f.note]
    assert strongest
    for forgery in strongest[:6]:
        left, right = trio.testing.memory_stream_pair()
        outcomes: list[Any] = []

        async def show(stream: Any, messages: tuple[bytes, ...] = forgery.messages) -> None:
            channel = SecureChannel(initiator=False, identity=host, hello={"name": "host"})
            connection = Connection(stream, channel)
            await connection.handshake()
            keys = [i.public for i in table.identities]
            with contextlib.suppress(PeerGoneError):  # (a spectator that found a fault leaves)
                await connection.send(encode(["watching", {"keys": keys, "names": ["a", "b"]}]))
                for raw in messages:
                    await connection.send(encode(["m", raw]))
            await connection.aclose()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(show, right)
            session = await watch(
                left,
                Identity.generate(),
                "onlooker",
                Onlooker(lambda view, event: None),
                expect_key=host.public,
            )
        outcomes.append(session)
        assert session is not None
        shown = None if session.outcome is None else session.outcome.to_plain()
        assert not session.finished or shown == real, forgery.note
