"""Holes a review of the lobby-in-the-handshake change found, each closed and tried here."""

from __future__ import annotations

import threading
import time
from typing import Any

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.protocol.clocks import Clocks, Due
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Rejected, Session, start_table
from p2pgenius.protocol.session.setup import make_ready
from p2pgenius.protocol.transcript import header, records

from .test_bystanders import Table
from .test_forfeits import forged


def _pair() -> list[Session]:
    ids = [Identity.from_seed(bytes([77, i]) * 16) for i in range(2)]
    keys = [i.public for i in ids]
    return [Session(keys=keys, me=i, identity=ids[i]) for i in range(2)]


def test_terms_carrying_an_old_ready_of_the_joiner_are_refused_before_anything_is_accepted() -> None:
    # The host reuses a salt and puts in the terms a ready the joiner signed at an earlier table:
    # the signature holds, but opening the joiner's new share would convict it of cheating.
    host, joiner = _pair()
    salt = bytes(range(32))
    agreed = {"host": host.keys[0], "game": "duel", "options": {"fast": True}, "setup": {}, "host claim": []}
    assert joiner.identity is not None
    old = make_ready(joiner.identity, b"\x01" * 32, salt=salt, agreed=agreed, claim=[])
    joiner.setup.my_coin = b"\x02" * 32  # the share it committed to at this table
    host.setup.propose("duel", options={"fast": True}, setup={}, salt=salt, readies=[None, old])
    events = [e for raw in host.flush().messages for e in joiner.receive(raw)]
    assert any(isinstance(e, Rejected) and "coin commitment we made" in e.reason for e in events), events
    assert joiner.fault is None and not joiner.flush().messages  # no accept, no opening


def test_a_bystander_confirms_a_forfeit_only_after_the_seats_own_clock_has_run_out() -> None:
    # A hostile peer forfeits a third peer's seat at once; the bystander's clocks may confirm it no
    # earlier than that seat's decision clock (60 s in Hornswoggle) plus its own grace period.
    table = Table()
    seat, accused = table.waited_on()
    hostile, bystander = [p for p in range(3) if p != accused]
    table.peers[hostile].referee.claim_timeout(seat, 1)
    table.peers[hostile].referee.forfeit(seat, "no answer")
    table.pump()
    watcher = table.peers[bystander]

    async def confirm_at() -> float:
        clocks = Clocks(trio.current_time)
        clocks.stage_at = trio.current_time()
        found = [d for d in clocks.deadlines(watcher, grace_s=10.0) if d.what is Due.CONFIRM]
        assert len(found) == 1
        return found[0].when - clocks.stage_at

    assert trio.run(confirm_at) >= 60 + 10


def test_one_seats_bot_never_thinks_in_two_threads_at_once() -> None:
    # A decision cancelled mid-thought (its stage moved on) leaves the thought running; the next
    # decision for that seat waits for it instead of thinking beside it.
    lock = threading.Lock()
    now = {"in": 0, "most": 0}

    class Slow:
        def choose(self, state: Any, seat: int) -> Any:
            with lock:
                now["in"] += 1
                now["most"] = max(now["most"], now["in"])
            time.sleep(0.2)
            with lock:
                now["in"] -= 1
            return {"type": "gestures", "left": "D", "right": "-"}

    session = Session(keys=[Identity.generate().public] * 2, me=None)
    session.setup.terms = {"game": "duel"}
    session.awaiting = lambda: (0,)  # type: ignore[method-assign]
    driver = BotDriver(bots={0: Slow()})  # type: ignore[dict-item]

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            cancelled = trio.CancelScope()

            async def first() -> None:
                with cancelled:
                    await driver.decide(session.view, 0)

            nursery.start_soon(first)
            await trio.sleep(0.05)
            cancelled.cancel()  # the stage moved on
            await driver.decide(session.view, 0)

    trio.run(main)
    assert now["most"] == 1


def test_a_joiner_restored_before_the_terms_came_still_holds_its_coin_share_and_its_agreement() -> None:
    keys = [Identity.generate().public, Identity.generate().public]
    me = Identity.generate()
    keys[1] = me.public
    expected = {"game": "duel", "options": {}, "setup": {}, "salt": bytes(32), "claims": [[], []]}
    expected["claim"] = []
    transcript = list(records(header(keys, 1, role="join", address="127.0.0.1:1", expected=expected)))
    restored = Session.restore(identity=me, transcript=transcript, secrets=[["coin", b"\x05" * 32]])
    assert restored.setup.my_coin == b"\x05" * 32
    assert restored.setup.expected == expected


def test_messages_for_stages_far_ahead_are_held_only_up_to_a_bound() -> None:
    host, joiner = _pair()
    start_table([host, joiner], "duel", options={"fast": True}, setup={})
    for _ in range(3):
        for a, b in ((host, joiner), (joiner, host)):
            for raw in a.flush().messages:
                b.receive(raw)
    assert host.stage is not None
    refused = []
    for stage in range(300):
        raw = forged(joiner, ["timeout", 10**6 + stage, 0, 1])
        refused += [e for e in host.receive(raw) if isinstance(e, Rejected)]
    assert len(host.played.backlog) <= 256
    assert refused and "stages not reached yet" in refused[-1].reason
    assert host.fault is None


def test_a_session_that_knew_no_names_learns_them_from_the_terms() -> None:
    # A resumed peer (or an observer) showed "peer 1" for everyone but itself.
    ids = [Identity.from_seed(bytes([78, i]) * 16) for i in range(2)]
    keys = [i.public for i in ids]
    host = Session(keys=keys, me=0, identity=ids[0], names=["ann", "bob"])
    joiner = Session(keys=keys, me=1, identity=ids[1], names=["ann", "bob"])
    observer = Session(keys=keys, me=None)
    start_table([host, joiner], "duel", options={"fast": True}, setup={})
    for raw in host.flush().messages:
        observer.receive(raw)
    assert observer.names == ["ann", "bob"]
