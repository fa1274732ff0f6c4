"""A match's mail through several relays (p2pgenius/net/mail.py): a letter counts as sent once
one relay keeps it, and the mailbox is read from all that answer, each letter once. A relay that
is down, one that lost everything, one that never answers and one that hands over forgeries
change nothing but the words said and the evidence kept. Three real relays (rust-nostr's, each
its own process on loopback) and one of our own that lies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Final

import pytest
import trio
import trio_websocket

from p2pgenius.net import mail
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.mailbox import LETTER_KIND, Mailbox, secret_key, write
from p2pgenius.protocol.nostr import Draft, Event, encrypt, sign_event
from tests.net.relays import free_port
from tests.nostr.relays import hostile_relay, local_relay, local_relay_missing
from tests.patience import HANG_S

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=local_relay_missing() or "")

ANN: Final = Identity.from_seed(b"\x0a" * 32)
BOB: Final = Identity.from_seed(b"\x0b" * 32)
NOW: Final = 1_780_000_000


def written(box: Mailbox, n: int, who: Identity = ANN) -> Event:
    """Letter ``n`` of ``who`` to ``box``: it carries "move n" and claims the time NOW + n."""
    return write(box, who, [f"move {n}".encode()], NOW + n, bytes([n]) * 96)


@pytest.fixture(scope="module")
def relays(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    folder = tmp_path_factory.mktemp("mail-relays")
    with local_relay(folder) as a, local_relay(folder) as b, local_relay(folder) as c:
        yield [a, b, c]


def down() -> str:
    """A relay's URL where nothing listens."""
    return f"ws://127.0.0.1:{free_port()}"


async def test_a_letter_is_sent_when_one_relay_keeps_it_and_the_line_says_how_many(relays: list[str]) -> None:
    box = Mailbox(b"\x01" * 32)
    posted = await mail.post(relays, written(box, 1), wait_s=HANG_S)
    assert (
        posted.sent and sorted(posted.kept_by) == sorted(relays) and posted.words() == "sent to 3 of 3 relays"
    )
    nowhere = down()
    posted = await mail.post([relays[0], nowhere, relays[0]], written(box, 2), wait_s=HANG_S)
    assert posted.sent and posted.kept_by == [relays[0]]
    assert posted.words().startswith(f"sent to 1 of 2 relays ({nowhere}: cannot connect")
    assert not (await mail.post([down()], written(box, 3), wait_s=HANG_S)).sent


async def test_the_mailbox_is_read_from_every_relay_each_letter_once(relays: list[str]) -> None:
    box = Mailbox(b"\x02" * 32)
    first, second, fresh = relays  # (the third stands for a relay that lost everything it kept)
    await mail.post([first], written(box, 1), wait_s=HANG_S)
    await mail.post([first, second], written(box, 2, BOB), wait_s=HANG_S)
    await mail.post([second], written(box, 3), wait_s=HANG_S)
    await mail.post(relays, written(Mailbox(b"\x03" * 32), 9), wait_s=HANG_S)  # (another match's)
    nowhere = down()
    collected = await mail.collect([*relays, nowhere], box, wait_s=HANG_S)
    assert sorted(letter.messages for letter in collected.letters) == [
        (b"move 1",),
        (b"move 2",),
        (b"move 3",),
    ]
    assert {letter.author for letter in collected.letters} == {ANN.public, BOB.public}
    assert sorted(collected.answered) == sorted(relays) and list(collected.failed) == [nowhere]
    assert collected.refused == []
    later = await mail.collect([first, second, fresh], box, since=NOW + 2, wait_s=HANG_S)
    assert sorted(letter.messages for letter in later.letters) == [(b"move 2",), (b"move 3",)]


def forged_letter(box: Mailbox) -> Event:
    """A well-signed event to the mailbox whose content is not sealed for it (a stranger's)."""
    sender = secret_key(b"\x07" * 32)
    content = encrypt("x" * 40, b"\x08" * 32, b"\x09" * 32)
    return sign_event(sender, Draft.of(NOW, LETTER_KIND, [["p", box.address]], content), b"\x0a" * 32)


async def test_a_lying_relay_costs_a_refusal_on_record_and_a_silent_one_its_time(relays: list[str]) -> None:
    box = Mailbox(b"\x04" * 32)
    genuine, forged = written(box, 1), forged_letter(box)

    async def liar(connection: trio_websocket.WebSocketConnection) -> None:
        request = json.loads(await connection.get_message())
        for event in (forged, genuine, genuine):
            await connection.send_message(json.dumps(["EVENT", request[1], event.to_json()]))
        await connection.send_message(json.dumps(["EOSE", request[1]]))
        while True:
            await connection.get_message()

    async def cut_short(connection: trio_websocket.WebSocketConnection) -> None:
        request = json.loads(await connection.get_message())
        await connection.send_message(json.dumps(["EVENT", request[1], written(box, 3).to_json()]))
        await connection.send_message(json.dumps(["CLOSED", request[1], "error: shutting down"]))
        while True:
            await connection.get_message()

    async def silent(connection: trio_websocket.WebSocketConnection) -> None:
        while True:
            await connection.get_message()

    async with trio.open_nursery() as nursery:
        lying, quiet = await hostile_relay(nursery, liar), await hostile_relay(nursery, silent)
        closing = await hostile_relay(nursery, cut_short)
        await mail.post([relays[0]], written(box, 2), wait_s=HANG_S)
        collected = await mail.collect([lying, quiet, closing, relays[0]], box, wait_s=2.0)
        nursery.cancel_scope.cancel()
    read_back = sorted(letter.messages for letter in collected.letters)
    assert read_back == [(b"move 1",), (b"move 2",), (b"move 3",)]  # (what a relay that stopped short sent)
    assert [(url, event_id) for url, event_id, _ in collected.refused] == [(lying, forged.id)]
    assert "invalid MAC" in collected.refused[0][2]
    assert sorted(collected.answered) == sorted([lying, relays[0]])
    assert collected.failed == {
        quiet: "no answer within 2 s",
        closing: "did not say it had sent all it keeps",
    }


async def test_a_relay_that_breaks_its_handshake_stops_no_other(relays: list[str]) -> None:
    """A server that answers the WebSocket upgrade with a broken 101 (the library raises inside an
    exception group, not as a relay error): said as that relay's failure, the others read."""
    box = Mailbox(b"\x05" * 32)

    async def broken(stream: trio.SocketStream) -> None:
        await stream.receive_some(65536)
        await stream.send_all(b"HTTP/1.1 101 Switching Protocols\r\nX: y\r\n\r\n")
        await trio.sleep(1)

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, broken, 0, host="127.0.0.1"))
        liar = f"ws://127.0.0.1:{listeners[0].socket.getsockname()[1]}"
        await mail.post([relays[0]], written(box, 1), wait_s=HANG_S)
        collected = await mail.collect([liar, relays[0]], box, wait_s=HANG_S)
        posted = await mail.post([liar, relays[1]], written(box, 2), wait_s=HANG_S)
        nursery.cancel_scope.cancel()
    assert [letter.messages for letter in collected.letters] == [(b"move 1",)]
    assert list(collected.failed) == [liar] and collected.answered == [relays[0]]
    assert posted.kept_by == [relays[1]] and list(posted.failed) == [liar]
