"""A joiner writes its first handshake message while the program is still loading (net/early.py):
the bytes on the wire are the very ones its channel would write, the join takes that socket once
and goes on from that message, and everything else (another address, a refused one, a name, a
correspondence invite) is joined as before."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest
import trio

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import join_match, target_of
from p2pgenius.cli.main import build_parser, main
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.net import early
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.addresses import open_socket
from p2pgenius.protocol.channel import ChannelError, SecureChannel
from p2pgenius.protocol.identity import PUBLIC_LEN, Identity
from p2pgenius.protocol.noise import KeyPair
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

HELLO = {"name": "ann"}


@pytest.fixture(autouse=True)
def _nothing_left_begun() -> object:
    yield
    early.forget()


def listener() -> tuple[socket.socket, int]:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(HANG_S)
    return server, server.getsockname()[1]


def read_exactly(connection: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        part = connection.recv(count - len(data))
        assert part, f"the connection closed after {len(data)} bytes"
        data += part
    return data


def channel_of(begun: early.Begun, written: bytes | None = None) -> SecureChannel:
    return SecureChannel(
        initiator=True,
        identity=Identity.generate(),
        hello=HELLO,
        ephemeral=KeyPair.from_private(begun.private),
        written=written,
    )


def test_the_first_record_on_the_wire_is_the_one_the_channel_writes() -> None:
    server, port = listener()
    with server:
        begun = early.begin([f"127.0.0.1:{port}"])
        assert begun is not None
        connection, _ = server.accept()
        with connection:
            wire = read_exactly(connection, len(begun.record))
    assert begun.done.wait(HANG_S) and begun.error is None
    assert wire == begun.record == channel_of(begun).data_to_send()
    assert wire[4 + PUBLIC_LEN :] == early.HELLO, "the clear hello of this channel version"
    assert channel_of(begun, written=begun.record).data_to_send() == b"", "not written twice"
    with pytest.raises(ChannelError, match="already written"):
        channel_of(begun, written=begun.record[:-1] + b"\x05")  # (another version's hello)


async def test_the_join_takes_the_early_socket_once_and_a_second_connection_is_new() -> None:
    server, port = listener()
    with server:
        begun = early.begin(["p2pgenius", "join", f"127.0.0.1:{port}"])  # (as pasted)
        assert begun is not None
        first = await open_socket(socket.AF_INET, ("127.0.0.1", port))
        assert early.begun_on(first) is begun and early.begun_on(first) is None, "once"
        second = await open_socket(socket.AF_INET, ("127.0.0.1", port))
        assert early.begun_on(second) is None
        accepted = [server.accept()[0] for _ in range(2)]
        assert read_exactly(accepted[0], len(begun.record)) == begun.record
        await second.send_all(b"new")
        assert read_exactly(accepted[1], 3) == b"new", "the second is a connection of its own"
        await first.aclose()
        await second.aclose()
        for connection in accepted:
            connection.close()


async def test_another_address_wins_and_the_early_socket_is_closed() -> None:
    server, port = listener()
    other, other_port = listener()
    with server, other:
        begun = early.begin([f"127.0.0.1:{port}"])
        assert begun is not None
        stream = await open_socket(socket.AF_INET, ("127.0.0.1", other_port))
        assert early.begun_on(stream) is None, "the early socket is for its own address only"
        early.forget()  # (what a command run again in this process does first)
        connection, _ = server.accept()
        with connection:
            read_exactly(connection, len(begun.record))
            assert connection.recv(1) == b"", "closed, not left open at the host"
        await stream.aclose()


async def test_a_refused_early_connection_is_tried_anew_and_refused_in_the_usual_words() -> None:
    server, port = listener()
    server.close()  # (nothing listens there now)
    begun = early.begin([f"127.0.0.1:{port}"])
    assert begun is not None
    with pytest.raises(ConnectionRefusedError):
        await open_socket(socket.AF_INET, ("127.0.0.1", port))
    assert isinstance(begun.error, ConnectionRefusedError)


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["localhost:4000"],  # (a name: the join looks it up, and may find several addresses)
        ["not an address"],
        ["p2pgenius://damaged"],
        [invite_codec.MailInvite(bytes(32), bytes(16), bytes(32), ("wss://relay.example",)).text()],
    ],
)
def test_nothing_is_begun_where_the_join_does_not_connect_to_one_address_first(words: list[str]) -> None:
    assert early.begin(words) is None


async def test_a_match_joined_through_its_early_socket_plays_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    taken: list[early.Begun] = []
    made_of = early.made_of

    def seen(stream: object, begun: early.Begun) -> None:
        taken.append(begun)
        made_of(stream, begun)

    monkeypatch.setattr(early, "made_of", seen)
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0", "--bind", "127.0.0.1"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            made = await nursery.start(host_match, hargs, host, match_options(hargs))
            begun = early.begin([made.text()])
            jargs = build_parser().parse_args(["join", made.text(), "--bot", "random"])
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            await join_match(jargs, guest, target_of(made.text()))
    assert begun is not None and taken == [begun], "the join went on from the early socket"
    assert verify(guest.files.transcript.read_bytes()).ok


def test_a_join_that_stops_before_connecting_begins_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without a terminal the person's join stops at once: the host must not see a connection
    # come and go. A join by bot (or at a terminal) begins.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    begun: list[list[str]] = []
    monkeypatch.setattr(early, "begin", begun.append)
    server, port = listener()
    with server:
        assert main(["join", f"127.0.0.1:{port}"]) == 2
        assert "needs a terminal" in capsys.readouterr().err and begun == []
        server.close()  # (the bot's join is refused now: only its beginning is looked at)
        assert main(["join", f"127.0.0.1:{port}", "--bot", "random"]) == 1
        assert begun == [[f"127.0.0.1:{port}"]]


async def test_an_early_start_that_fails_in_itself_leaves_the_join_to_connect_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(private: bytes) -> bytes:
        raise RuntimeError("no libsodium today")

    monkeypatch.setattr(early, "x25519_public", broken)
    server, port = listener()
    with server:
        begun = early.begin([f"127.0.0.1:{port}"])
        assert begun is not None and begun.done.wait(HANG_S) and begun.error is not None
        stream = await open_socket(socket.AF_INET, ("127.0.0.1", port))
        assert early.begun_on(stream) is None, "a connection of its own"
        await stream.send_all(b"x")
        connections = [server.accept()[0] for _ in range(2)]
        assert [c.recv(1) for c in connections] == [b"", b"x"], "the early one closed unwritten"
        for connection in connections:
            connection.close()
        await stream.aclose()


def test_a_host_that_is_no_host_begins_nothing_and_raises_nothing() -> None:
    # (An empty label fails the name's IDNA encoding with UnicodeError, not OSError.)
    assert early.begin(["a..b:4000"]) is None
    assert early.begin([f"{'x' * 64}.example:4000"]) is None


def test_a_socket_that_cannot_be_made_is_an_error_kept_not_a_thread_that_dies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_sockets(*args: object) -> socket.socket:
        raise OSError("Address family not supported by protocol")

    monkeypatch.setattr(socket, "socket", no_sockets)  # (early uses the module's own name)
    begun = early.begin(["127.0.0.1:4000"])
    assert begun is not None and begun.done.wait(HANG_S), "done, so the join does not wait for it"
    assert isinstance(begun.error, OSError) and begun.socket is None


async def test_an_early_message_the_host_may_have_given_up_on_is_not_taken() -> None:
    server, port = listener()
    with server:
        begun = early.begin([f"127.0.0.1:{port}"])
        assert begun is not None and begun.done.wait(HANG_S) and early.fresh(begun)
        begun.sent_at -= early.STALE_S + 1  # (as if the program had taken that long to load)
        stream = await open_socket(socket.AF_INET, ("127.0.0.1", port))
        assert early.begun_on(stream) is None, "connected anew"
        stale, _ = server.accept()
        with stale:
            read_exactly(stale, len(begun.record))
            assert stale.recv(1) == b"", "the stale one is closed"
        anew, _ = server.accept()
        anew.close()
        await stream.aclose()


@pytest.mark.parametrize("seed", range(8))
def test_the_early_key_is_libsodium_s_as_nacl_bindings_gives_it(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first record's key, made through PyNaCl's compiled module alone (a joiner's first
    byte is 5 ms sooner), is ``nacl.bindings.crypto_scalarmult_base``'s; and where that module
    is not as expected, it is made through ``nacl.bindings`` itself."""
    import nacl._sodium  # type: ignore[import-not-found]
    import nacl.bindings

    private = bytes((seed * 37 + i) % 256 for i in range(32))
    expected = nacl.bindings.crypto_scalarmult_base(private)
    assert early.x25519_public(private) == expected
    monkeypatch.setattr(nacl._sodium, "lib", object())  # (another PyNaCl's)
    assert early.x25519_public(private) == expected
