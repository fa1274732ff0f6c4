"""Correspondence play that holds over a long match and bad relays: a duel of twenty turns and
more, and a Hornswoggle of four, bots in every seat, each side's visits one at a time, through
three relays: a real one that is wiped half-way (stopped, and started again empty on the same
URL), a real one that behaves, and one of our own that drops, repeats, replays, shuffles,
withholds and forges. Every transcript verifies, all agree on the result, the record counts the
match finished, and a duel costs each player about one visit a turn."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from p2pgenius.net.correspondence import Offer
from p2pgenius.protocol.transcript import verify
from tests.correspondence.tables import Game, Liar, RealRelay, Side, check_finished, mailbox, play_out, table
from tests.nostr.relays import hostile_relay, local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing()))


async def through_three_relays(folder: Path, game: Game, *, wipe_at: int) -> tuple[list[Side], Liar, int]:
    """``game`` played out through a relay wiped before round ``wipe_at``, a steady one and a
    liar: its sides, the liar, the rounds it took."""
    wiped, steady = RealRelay(folder), RealRelay(folder)
    liar = Liar(seed=game.seed)
    try:
        async with trio.open_nursery() as nursery:
            lying = await hostile_relay(nursery, liar.script)
            sides = table(folder, game, [wiped.url, steady.url, lying])
            liar.box = mailbox(sides[0])

            def between(number: int) -> None:
                if number == wipe_at:
                    wiped.wipe()

            rounds = await play_out(sides, rounds=200, between=between)
            nursery.cancel_scope.cancel()
    finally:
        wiped.stop()
        steady.stop()
    return sides, liar, rounds


def test_a_long_duel_through_a_wiped_a_steady_and_a_lying_relay(tmp_path: Path) -> None:
    # (The wizard bots of seed 1 duel for 22 turns: the same every run, the duel having no chance.)
    game = Game(Offer("duel", {"turn_seconds": 86400}), ["ann", "bob"], "wizard", seed=1)
    sides, liar, rounds = trio.run(lambda: through_three_relays(tmp_path, game, wipe_at=12))
    result = check_finished(sides)
    turns = int(verify(sides[0].path.read_bytes()).steps[-1].state.turn)
    visits = [side.visits for side in sides]
    print(f"duel: {turns} turns, {rounds} rounds, visits {visits}, {result}, liar {dict(liar.done)}")
    assert turns >= 20
    assert all(v <= turns + 6 for v in visits), (turns, visits)
    assert liar.done["forged"] and liar.done["withheld the newest"]
    assert liar.done["dropped a letter it said it kept"]
    refused = [line for side in sides for line in side.lines if "no letter of this match" in line]
    assert refused  # (the forgeries were seen and said, never taken)


def test_a_four_peer_hornswoggle_through_a_wiped_a_steady_and_a_lying_relay(tmp_path: Path) -> None:
    short = {"hands": [[1, 1]] * 4}  # (a doubloon and a skull each: some twenty rounds, not a hundred)
    game = Game(
        Offer("hornswoggle", {}, peers=4), ["ann", "bob", "cid", "dee"], "pirate", seed=3, setup=short
    )
    sides, liar, rounds = trio.run(lambda: through_three_relays(tmp_path, game, wipe_at=6))
    result = check_finished(sides)
    print(f"hornswoggle: {rounds} rounds, visits {[s.visits for s in sides]}, {result}, {dict(liar.done)}")
    assert liar.done["forged"] and liar.done["withheld the newest"]
