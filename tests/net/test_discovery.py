"""Matches on the local network (DNS-SD): the TXT record checked, announcing and finding over
multicast on loopback (the only interface these tests use), joining a found match with its key
pinned, the numbered choice, and a host that cannot announce going on all the same."""

from __future__ import annotations

import io
import socket
from pathlib import Path
from typing import Any

import pytest
import trio
from zeroconf import ServiceInfo

from p2pgenius.cli import play
from p2pgenius.cli.main import build_parser, main
from p2pgenius.cli.play import Printer, choose, discover, host_match, join_match, make_peer, match_options
from p2pgenius.errors import P2PGeniusError
from p2pgenius.net import discovery
from p2pgenius.net.discovery import SERVICE_TYPE, Announcement, Found, read_service, txt_record
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.transcript import verify

LOOPBACK = ["127.0.0.1"]
KEY = Identity.generate().public
MATCH_S = 60


def service(txt: dict[str, str] | None = None, addresses: tuple[str, ...] = ("127.0.0.1",)) -> ServiceInfo:
    record: dict[str, str] = {**txt_record(game="duel", name="alice", key=KEY, seats=1), **(txt or {})}
    return ServiceInfo(
        SERVICE_TYPE,
        f"alice - duel.{SERVICE_TYPE}",
        port=7780,
        properties={k: v for k, v in record.items() if v != "-"},
        server="p2pgenius-test.local.",
        parsed_addresses=list(addresses),
    )


def test_a_well_formed_announcement_reads_as_a_match() -> None:
    found = read_service(service(addresses=("192.168.1.20", "fd12::20")))
    assert found == Found("duel", "alice", KEY, 1, 7780, ("192.168.1.20", "fd12::20"))
    assert isinstance(found, Found)
    assert found.fingerprint == fingerprint(KEY)
    assert found.line() == f"duel, hosted by alice, fingerprint {fingerprint(KEY)}, 1 seat free"
    assert found.targets() == [("192.168.1.20", 7780), ("fd12::20", 7780)]


@pytest.mark.parametrize(
    ("txt", "why"),
    [
        ({"proto": "1"}, "another version of p2pgenius"),
        ({"txtvers": "2"}, "another version of p2pgenius"),
        ({"game": "chess"}, "a game this p2pgenius does not have"),
        ({"key": "abcd"}, "its key is malformed"),
        ({"key": "-"}, "its key is malformed"),
        ({"name": "\x1b[2Jalice"}, "its host name is malformed"),
        ({"name": "x" * 40}, "its host name is malformed"),
        ({"seats": "-1"}, "free seats is malformed"),
        ({"seats": "99"}, "free seats is malformed"),
    ],
)
def test_an_announcement_is_checked_before_it_is_listed(txt: dict[str, str], why: str) -> None:
    assert why in str(read_service(service(txt)))


def test_the_fingerprint_shown_is_the_keys_never_what_the_record_claims() -> None:
    found = read_service(service({"fp": "AAAA-AAAA-AAAA-AAAA", "fingerprint": "AAAA-AAAA-AAAA-AAAA"}))
    assert isinstance(found, Found) and found.fingerprint == fingerprint(KEY)


def loopback_multicast() -> bool:
    """Whether multicast datagrams go round on loopback here (they do on Linux)."""
    group, port = "224.0.0.251", 0
    try:
        with (
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver,
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender,
        ):
            receiver.bind(("", port))
            port = receiver.getsockname()[1]
            receiver.setsockopt(
                socket.IPPROTO_IP,
                socket.IP_ADD_MEMBERSHIP,
                socket.inet_aton(group) + socket.inet_aton("127.0.0.1"),
            )
            sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
            sender.sendto(b"hello", (group, port))
            receiver.settimeout(1)
            return receiver.recv(5) == b"hello"
    except OSError:
        return False


MULTICAST = pytest.mark.skipif(not loopback_multicast(), reason="no multicast on loopback here")


@MULTICAST
async def test_a_match_announced_on_loopback_is_found_updated_and_withdrawn() -> None:
    key = Identity.generate().public
    name = f"t{key.hex()[:8]}"
    announcement = Announcement(
        game="magic-square", name=name, key=key, port=7781, addresses=LOOPBACK, seats=2, interfaces=LOOPBACK
    )
    said: list[str] = []
    seats, started = [2], [False]
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(discovery.announce, announcement, lambda: (seats[0], started[0]), said.append)

            async def mine(seconds: float = 4) -> list[Found]:
                found, _ = await discovery.find(seconds, first=True, interfaces=LOOPBACK)
                return [f for f in found if f.key == key]

            found = await mine()
            while not announcement.active:  # (found as soon as it is out; the line comes after)
                await trio.sleep(0.05)
            assert said == [
                f'announced on the local network as "{name} - magic-square": there, p2pgenius join '
                "(with no address) lists it"
            ]
            assert [(f.game, f.name, f.seats, f.port, f.addresses) for f in found] == [
                ("magic-square", name, 2, 7781, ("127.0.0.1",))
            ]
            seats[0] = 1
            await trio.sleep(2 * discovery.FOLLOW_S)
            assert [f.seats for f in await mine()] == [1]
            started[0] = True  # the match starts: the announcement goes
            with trio.fail_after(discovery.STOP_S + 2 * discovery.FOLLOW_S):
                while announcement.active:
                    await trio.sleep(0.05)
            assert await mine(1.5) == []


async def test_a_host_that_cannot_announce_says_so_in_one_line_and_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr(play, "reachable_addresses", lambda bound: ["127.0.0.1"])

    def no_multicast(self: Announcement) -> None:
        raise OSError(19, "No such device")

    monkeypatch.setattr(Announcement, "start", no_multicast)
    out = io.StringIO()
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--lan", "--port", "0"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with trio.fail_after(MATCH_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=False))
            await join_match(jargs, guest, play.target_of(str(invite)))
    lines = out.getvalue().splitlines()
    assert "not announced on the local network (No such device); joiners need the invite" in lines
    assert host.session is not None and host.session.outcome is not None


@MULTICAST
async def test_join_with_no_address_finds_the_match_pins_its_key_and_plays_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr(play, "reachable_addresses", lambda bound: ["127.0.0.1"])
    host_out, join_out = io.StringIO(), io.StringIO()
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--lan", "--port", "0", "--name", "carol"])
    jargs = build_parser().parse_args(["join", "--first", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(host_out, moves=False))
    printer = Printer(join_out, moves=False)
    with trio.fail_after(MATCH_S):
        async with trio.open_nursery() as nursery:
            await nursery.start(
                lambda task_status: host_match(
                    hargs, host, match_options(hargs), interfaces=LOOPBACK, task_status=task_status
                )
            )
            # (The announcement goes out once its name is probed, in a second or two: within the
            # three seconds join looks. --first stops at the first: one left by another test?)
            found: list[Found] = []
            for _ in range(3):
                seen = await discover(jargs, printer, LOOPBACK)
                if found := [f for f in seen if f.key == host.identity.public]:
                    break
            fp = host.identity.fingerprint
            assert found[0].line() == f"duel, hosted by carol, fingerprint {fp}, 1 seat free"
            target = choose(found, jargs, printer)
            assert target.key == host.identity.public
            guest = make_peer(jargs, "join", 2, printer)
            await join_match(jargs, guest, target)
    said = join_out.getvalue()
    assert f"joining the first match found: duel, hosted by carol, fingerprint {fp}" in said
    assert f"check with the host that its fingerprint is {fp}" in said
    for side in (host, guest):
        assert side.session is not None and side.session.outcome is not None
        assert verify(side.files.transcript.read_bytes()).ok


async def test_a_found_match_whose_host_has_another_key_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A neighbour announces a match at the real host's address with a key of its own choosing
    # (or the real one, then answers with another): the key the announcement named is pinned.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    jargs = build_parser().parse_args(["join", "--first", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=False))
    announced = Identity.generate().public
    with trio.fail_after(MATCH_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            fake = Found("duel", "alice", announced, 1, invite.port, ("127.0.0.1",))
            target = choose([fake], jargs, Printer(io.StringIO(), moves=False))
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=False))
            with pytest.raises(IdentityError, match=f"names {fingerprint(announced)}"):
                await join_match(jargs, guest, target)
            nursery.cancel_scope.cancel()


def found(name: str) -> Found:
    return Found("duel", name, Identity.generate().public, 1, 7780, ("127.0.0.1",))


def test_the_numbered_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    matches = [found("alice"), found("bob")]
    answers = iter(["7", "x", "2"])
    monkeypatch.setattr("builtins.input", lambda: next(answers))
    out = io.StringIO()
    args = build_parser().parse_args(["join", "--bot"])
    target = choose(matches, args, Printer(out, moves=False))
    assert target.key == matches[1].key
    said = out.getvalue()
    assert f"  1. {matches[0].line()}\n  2. {matches[1].line()}\n" in said
    assert said.count("join which? (1-2, Enter for 1, q to give up) ") == 3
    assert said.count("a number from 1 to 2, please") == 2
    monkeypatch.setattr("builtins.input", lambda: "")
    assert choose(matches, args, Printer(io.StringIO(), moves=False)).key == matches[0].key
    monkeypatch.setattr("builtins.input", lambda: "q")
    with pytest.raises(P2PGeniusError, match="no match chosen"):
        choose(matches, args, Printer(io.StringIO(), moves=False))


def test_join_with_no_address_and_no_terminal_asks_for_first_or_an_invite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    assert main(["join", "--bot"]) == 2
    err = capsys.readouterr().err
    assert "add --first to join the first one found, or give the host's invite" in err
    assert err.count("\n") == 1


def test_nothing_found_is_one_line_pointing_to_the_invite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))

    async def nothing(**kwargs: Any) -> tuple[list[Found], list[str]]:
        return [], ["bob - duel: it needs another version of p2pgenius"]

    monkeypatch.setattr(discovery, "find", nothing)
    assert main(["join", "--first", "--bot"]) == 1
    captured = capsys.readouterr()
    assert "(cannot join bob - duel: it needs another version of p2pgenius)" in captured.out
    assert captured.err.startswith("error: no match found on the local network in 3 s")
    assert "ask the host for its invite" in captured.err and captured.err.count("\n") == 1
