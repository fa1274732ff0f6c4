"""Nobody seats itself without the invite, and nobody outside the match moves it: a stranger who
holds the mailbox (an invite of another time, a relay given the secret) posts a hello with a
wrong seat token and a ready, a ready with no hello, and, once the match is on, letters of its own
carrying the players' messages, copied and altered; a player's letter carrying another player's
messages is no more. Only the real joiner is seated, the duel is played out as if none of it
had been posted, and no copy records a fault or a refused message."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.net.correspondence import Offer, match_messages
from p2pgenius.net.mail import collect, post
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.mailbox import Letter, Mailbox, hello, write
from p2pgenius.protocol.messages import TAG
from p2pgenius.protocol.session.setup import agreement, make_ready
from p2pgenius.protocol.transcript import verify
from tests.correspondence.tables import Game, RealRelay, Side, check_finished, mailbox, table
from tests.nostr.relays import local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing()))


async def send(box: Mailbox, url: str, who: Identity, messages: Sequence[bytes]) -> None:
    """A letter of ``who`` to the mailbox, on the relay."""
    event = write(box, who, messages, int(time.time()), secrets.token_bytes(96))
    assert (await post([url], event, wait_s=10)).sent


def a_ready(who: Identity, host: Side) -> bytes:
    """A ready of ``who`` signed over the host's table as it is: a good one, but for the token."""
    laid: dict[str, Any] = decode(bytes.fromhex(host.state.lobby["table"]))
    agreed = agreement(host.identity.public, laid["game"], laid["options"], laid["setup"], laid["claims"][0])
    return wire.ready(make_ready(who, secrets.token_bytes(32), salt=laid["salt"], agreed=agreed, claim=[]))


def altered(message: bytes) -> bytes:
    """``message`` with its last byte changed (inside its signature: it still reads as one of its
    author's, under its number)."""
    return message[:-1] + bytes([message[-1] ^ 1])


def test_strangers_neither_sit_down_nor_move_the_match(tmp_path: Path) -> None:
    relay = RealRelay(tmp_path)
    game = Game(Offer("duel", {"turn_seconds": 86400}), ["ann", "bob"], "wizard", seed=42)
    ann, bob = sides = table(tmp_path, game, [relay.url])
    box = mailbox(ann)
    eve, mallory = Identity.generate(), Identity.generate()

    async def play() -> int:
        await ann.run()  # (the table goes up)
        await send(
            box, relay.url, eve, [hello("eve", secrets.token_bytes(16), eve.public), a_ready(eve, ann)]
        )
        await send(box, relay.url, mallory, [a_ready(mallory, ann)])
        await ann.run()  # (the host reads them, alone at the table: refused, it waits on)
        assert ann.state.phase == "lobby" and "waiting for 1 more player" in ann.lines[-1]
        await bob.run()
        await ann.run()  # (seats the first joiners whose hello and ready hold: bob)
        letters: list[Letter] = []
        for rounds in range(60):
            if all(side.over for side in sides):
                return rounds
            for side in sides:
                if not side.over:
                    await side.run()
            letters = (await collect([relay.url], box, wait_s=10)).letters
            theirs = [m for letter in letters if letter.author != eve.public for m in letter.messages]
            await send(box, relay.url, eve, [*theirs[-6:], *map(altered, theirs[-6:])])
            # (and a player's letter with another's messages: bob's key signing ann's, altered)
            anns = [m for letter in letters if letter.author == ann.identity.public for m in letter.messages]
            await send(box, relay.url, bob.identity, [altered(anns[-1])])
            await send(
                box, relay.url, eve, [hello("eve", secrets.token_bytes(16), eve.public), a_ready(eve, ann)]
            )
        raise AssertionError("the duel did not end")

    try:
        rounds = trio.run(play)
    finally:
        relay.stop()
    refused = [line for line in ann.lines if "a ready was refused" in line]
    assert any("does not carry the invite's seat token" in line for line in refused), ann.lines
    assert any("no hello came before it" in line for line in refused), ann.lines
    check_finished(sides)
    for side in sides:
        report = verify(side.path.read_bytes())
        assert sorted(report.names) == ["ann", "bob"], report.names
        assert not report.rejected, (side.name, report.rejected[:3])
    print(f"over in {rounds} rounds; ann said: {refused[:2]}")


def test_a_letter_carries_its_own_writers_messages_only() -> None:
    """``match_messages``: a message is taken from a letter only if the letter's author is the
    match key its envelope names."""
    ann, bob = Identity.generate(), Identity.generate()
    keys = [ann.public, bob.public]
    anns = encode([TAG, 3, 0, 0, [bytes(32), bytes(32)], b"body", bytes(64)])
    bobs = encode([TAG, 3, 1, 0, [bytes(32), bytes(32)], b"body", bytes(64)])
    event: Any = None
    letters = [Letter(ann.public, (anns, bobs), event), Letter(bob.public, (anns,), event)]
    assert match_messages(letters, keys) == [anns]
    assert match_messages([Letter(Identity.generate().public, (anns, bobs), event)], keys) == []
