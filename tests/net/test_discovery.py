"""Matches on the local network (DNS-SD): the TXT record checked, announcing and finding over
multicast on loopback (the only interface these tests use), joining a found match with its key
pinned, the numbered choice, a host that cannot announce going on all the same, and the pins,
never the order of announcement, deciding which match under a name is listed first and joined."""

from __future__ import annotations

import io
import socket
from pathlib import Path
from typing import Any

import pytest
import trio
from zeroconf import ServiceInfo

from p2pgenius.cli import host as hosting
from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import choose, discover, join_match, target_of
from p2pgenius.cli.main import build_parser, main
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.errors import P2PGeniusError
from p2pgenius.net import discovery
from p2pgenius.net.discovery import SERVICE_TYPE, Announcement, Found, read_service, txt_record
from p2pgenius.net.keystore import load_pins, trust
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

LOOPBACK = ["127.0.0.1"]
KEY = Identity.generate().public


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
        Found("magic-square", name, key, 2, 7781, tuple(LOOPBACK)), interfaces=LOOPBACK
    )
    said: list[str] = []
    seats, started = [2], [False]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(discovery.announce, announcement, lambda: (seats[0], started[0]), said.append)

            async def mine(seconds: float = HANG_S) -> list[Found]:
                found, _ = await discovery.find(seconds, until=lambda f: f.key == key, interfaces=LOOPBACK)
                return [f for f in found if f.key == key]

            found = await mine()
            while not said:  # (found as soon as it is out; the line comes after, once the
                await trio.sleep(0.05)  # thread that published it is back: on a busy machine, later)
            assert said == [
                f'announced on the local network as "{name} - magic-square": there, p2pgenius join '
                "(with no address) lists it"
            ]
            assert [(f.game, f.name, f.seats, f.port, f.addresses) for f in found] == [
                ("magic-square", name, 2, 7781, ("127.0.0.1",))
            ]
            seats[0] = 1  # (brought up to date within FOLLOW_S; each look reads it afresh)
            while [f.seats for f in await mine()] != [1]:
                await trio.sleep(discovery.FOLLOW_S)
            started[0] = True  # the match starts: the announcement goes
            while announcement.active:
                await trio.sleep(0.05)
            assert await mine(1.5) == []


async def test_a_host_that_cannot_announce_says_so_in_one_line_and_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr(hosting, "reachable_addresses", lambda bound: ["127.0.0.1"])

    def no_multicast(self: Announcement) -> None:
        raise OSError(19, "No such device")

    monkeypatch.setattr(Announcement, "start", no_multicast)
    out = io.StringIO()
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--lan", "--port", "0"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=False))
            await join_match(jargs, guest, target_of(str(invite)))
    lines = out.getvalue().splitlines()
    assert "not announced on the local network (No such device); joiners need the invite" in lines
    assert host.session is not None and host.session.outcome is not None


@MULTICAST
async def test_join_with_no_address_finds_the_match_pins_its_key_and_plays_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr(hosting, "reachable_addresses", lambda bound: ["127.0.0.1"])
    host_out, join_out = io.StringIO(), io.StringIO()
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--lan", "--port", "0", "--name", "carol"])
    jargs = build_parser().parse_args(["join", "--first", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(host_out, moves=False))
    printer = Printer(join_out, moves=False)
    with trio.fail_after(HANG_S):
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
    with trio.fail_after(HANG_S):
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


# -- the pins decide, not the order of announcement -----------------------------------------------
# The attack: a neighbour announces "alice - duel" before alice does, with a key of its own, so
# alice's match becomes "alice - duel-2" and the fake is found first.


def pinned_alice(home: Path) -> tuple[Found, Found]:
    """(the fake, the real one): alice's key is pinned in ``home``, the fake names her with another."""
    real, fake = found("alice"), found("alice")
    trust("alice", real.key, home)
    return fake, real


def test_the_listing_marks_each_match_against_the_pins_and_puts_the_pinned_one_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    fake, real = pinned_alice(tmp_path)
    bob = found("bob")
    answers = iter(["3", "1"])
    monkeypatch.setattr("builtins.input", lambda: next(answers))
    out = io.StringIO()
    args = build_parser().parse_args(["join", "--bot"])
    target = choose([fake, bob, real], args, Printer(out, moves=False))
    assert target.key == real.key
    said = out.getvalue()
    assert (
        "pinned: you have played them before, with this same key\n"
        f"  1. {real.line()}\n"
        "new: you have not played them before; compare the fingerprint with theirs\n"
        f"  2. {bob.line()}\n"
        "another key! the name is pinned to another key: an impostor, or a new machine?\n"
        f"  3. {fake.line()}\n"
        f"     (alice's pinned key is {real.fingerprint})\n"
    ) in said
    assert (
        f"not joining it: the key of peer 'alice' has changed: pinned {real.fingerprint}, announced "
        f"{fake.fingerprint}. Someone may be impersonating 'alice'; if the peer really has a new key, "
        "remove it from known_peers and look again\n"
    ) in said
    assert said.count("join which? (1-3, Enter for 1, q to give up) ") == 2
    assert said.endswith(f"check with the host that its fingerprint is {real.fingerprint}\n")
    for line in said.split("give up) "):  # (the prompt has no line end: an answer does)
        assert all(len(shown) <= 80 for shown in line.splitlines() if not shown.startswith("not joining"))


def test_a_known_key_under_a_new_name_is_said_so_and_a_pinned_name_outranks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # mallory, met before, announces as carol (no pin): known key; as alice (pinned): another key.
    fake, real = pinned_alice(tmp_path)
    mallory = found("mallory")
    trust("mallory", mallory.key, tmp_path)
    pins = load_pins(tmp_path)
    as_carol = Found("duel", "carol", mallory.key, 1, 7780, ("127.0.0.1",))
    as_alice = Found("duel", "alice", mallory.key, 1, 7780, ("127.0.0.1",))
    assert discovery.told(as_carol, pins) == "known key: it played as mallory before, not as carol"
    assert discovery.bracket(as_carol, pins) == "(it played as mallory)"
    assert discovery.standing(as_alice, pins) is discovery.Standing.ANOTHER_KEY
    assert discovery.standing(fake, pins) is discovery.Standing.ANOTHER_KEY
    assert discovery.standing(real, pins) is discovery.Standing.PINNED
    dan = found("dan")  # a stranger comes before a peer met before borrowing a name new to it
    offered = discovery.preferred([as_alice, fake, as_carol, dan, real], pins)
    assert offered == [real, dan, as_carol, as_alice, fake]


def announced_in_order(*matches: Found) -> Any:
    """A stand-in for the network: ``discovery.find`` finding ``matches`` in this order, and
    stopping where :func:`discovery.look` would (``first``, or ``until`` says yes)."""

    async def find(**kwargs: Any) -> tuple[list[Found], list[str]]:
        until = kwargs.get("until") or (lambda match: kwargs.get("first", False))
        seen: list[Found] = []
        for match in matches:
            seen.append(match)
            if until(match):
                break
        return seen, []

    return find


async def test_first_skips_the_fake_announced_first_and_joins_the_pinned_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    fake, real = pinned_alice(tmp_path)
    later = found("zed")  # announced after alice: --first stopped looking at her
    monkeypatch.setattr(discovery, "find", announced_in_order(fake, real, later))
    args = build_parser().parse_args(["join", "--first", "--bot"])
    out = io.StringIO()
    printer = Printer(out, moves=False)
    seen = await discover(args, printer)
    assert later not in seen
    target = choose(seen, args, printer)
    assert target.key == real.key
    assert out.getvalue().splitlines()[1:] == [
        f"skipping alice's match, fingerprint {fake.fingerprint}: not alice's pinned key",
        f"joining the match found whose key you pinned: {real.line()}",
        "  pinned: the key alice had when you last played",
        f"check with the host that its fingerprint is {real.fingerprint}",
    ]


async def test_first_prefers_the_pinned_host_to_a_new_key_announced_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The neighbour cannot take the pinned name without being marked, so it takes another: new.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    _, real = pinned_alice(tmp_path)
    neighbour = found("alice2")
    monkeypatch.setattr(discovery, "find", announced_in_order(neighbour, real))
    args = build_parser().parse_args(["join", "--first", "--bot"])
    out = io.StringIO()
    printer = Printer(out, moves=False)
    assert choose(await discover(args, printer), args, printer).key == real.key
    assert f"joining the match found whose key you pinned: {real.line()}" in out.getvalue()


async def test_first_with_no_pinned_host_joins_the_first_match_not_pinned_to_another_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    fake, _ = pinned_alice(tmp_path)
    bob, carol = found("bob"), found("carol")
    monkeypatch.setattr(discovery, "find", announced_in_order(fake, bob, carol))
    args = build_parser().parse_args(["join", "--first", "--bot"])
    out = io.StringIO()
    printer = Printer(out, moves=False)
    seen = await discover(args, printer)
    assert seen == [fake, bob, carol]  # (nothing pinned: it looks the whole time)
    assert choose(seen, args, printer).key == bob.key
    said = out.getvalue()
    assert f"skipping alice's match, fingerprint {fake.fingerprint}: not alice's pinned key\n" in said
    assert f"joining the first new match found: {bob.line()}\n" in said
    assert "  new: you have not played bob before; compare the fingerprint\n" in said


def test_first_refuses_in_one_line_when_every_match_found_is_under_a_name_pinned_to_another_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    fake, real = pinned_alice(tmp_path)
    monkeypatch.setattr(discovery, "find", announced_in_order(fake))
    assert main(["join", "--first", "--bot"]) == 1
    captured = capsys.readouterr()
    assert f"skipping alice's match, fingerprint {fake.fingerprint}: not alice's pinned key" in captured.out
    assert captured.err == (
        "error: --first joins no match whose host's name is pinned to another key, and every match "
        f"found is: the key of peer 'alice' has changed: pinned {real.fingerprint}, announced "
        f"{fake.fingerprint}. Someone may be impersonating 'alice'; if the peer really has a new key, "
        "remove it from known_peers and look again\n"
    )


@MULTICAST
async def test_a_fake_announced_first_under_the_hosts_pinned_name_is_marked_and_never_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Over multicast on loopback: the fake takes "NAME - duel", the real host becomes "-2". (On a
    # network zeroconf renames the second announcement itself: the first answers its probe. On
    # one machine that answer goes astray and both would keep the name, the later hiding the
    # earlier from joiners; so here the real one is renamed as zeroconf would.)
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr(hosting, "reachable_addresses", lambda bound: ["127.0.0.1"])
    fake_key = Identity.generate().public
    start = Announcement.start

    def renamed(self: Announcement) -> None:
        if self.key != fake_key:
            self.instance += "-2"
        start(self)

    monkeypatch.setattr(Announcement, "start", renamed)
    host_out, join_out = io.StringIO(), io.StringIO()
    name = f"a{Identity.generate().public.hex()[:8]}"
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--lan", "--port", "0", "--name", name])
    host = make_peer(hargs, "duel-host", 1, Printer(host_out, moves=False))
    trust(name, host.identity.public, tmp_path)  # the joiner played this host before
    fake = Announcement(Found("duel", name, fake_key, 1, 9, tuple(LOOPBACK)), interfaces=LOOPBACK)
    keys = {host.identity.public, fake_key}
    monkeypatch.setattr("builtins.input", lambda: "")  # Enter: the first listed
    printer = Printer(join_out, moves=False)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(discovery.announce, fake, lambda: (1, False), lambda line: None)
            while not fake.active:
                await trio.sleep(0.05)
            await nursery.start(
                lambda task_status: host_match(
                    hargs, host, match_options(hargs), interfaces=LOOPBACK, task_status=task_status
                )
            )
            while "announced on the local network as" not in host_out.getvalue():
                await trio.sleep(0.05)
            listing = build_parser().parse_args(["join", "--bot"])
            listed = [f for f in await discover(listing, printer, LOOPBACK) if f.key in keys]
            assert {f.key for f in listed} == keys
            target = choose(listed, listing, printer)
            assert target.key == host.identity.public
            first = build_parser().parse_args(["join", "--first", "--bot"])
            taken = [f for f in await discover(first, printer, LOOPBACK) if f.key in keys]
            assert choose(taken, first, printer).key == host.identity.public
            guest = make_peer(first, "join", 2, printer)
            await join_match(first, guest, target)
            nursery.cancel_scope.cancel()
    told = host_out.getvalue()
    assert f'announced on the local network as "{name} - duel-2"' in told
    assert (
        f'"{name} - duel" was announced first by another match (yours, or someone using your name): '
        "joiners must check your fingerprint"
    ) in told
    said = join_out.getvalue()
    real, impostor = sorted(listed, key=lambda f: f.key != host.identity.public)
    assert (
        f"pinned: you have played them before, with this same key\n  1. {real.line()}\n"
        "another key! the name is pinned to another key: an impostor, or a new machine?\n"
        f"  2. {impostor.line()}\n     ({name}'s pinned key is {real.fingerprint})\n"
    ) in said
    if impostor in taken:  # (--first stops at the pinned one: the fake, if found before, is skipped)
        assert f"skipping {name}'s match, fingerprint {impostor.fingerprint}: not {name}'s pinned key" in said
    assert said.count(f"check with the host that its fingerprint is {real.fingerprint}") == 2
    assert "duel-2" not in said and real.name == impostor.name == name
    assert host.session is not None and host.session.outcome is not None


def test_a_neighbour_announcing_thousands_of_matches_fills_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every name announced used to wait in a queue and come back in the list, however many came.
    import zeroconf

    class Crowd:
        """A network where a neighbour announces ``MANY`` matches at once (none answers)."""

        MANY = 10_000

        def __init__(self, zc: Any, service_type: str, handlers: list[Any]) -> None:
            for number in range(self.MANY):
                for handler in handlers:
                    handler(
                        zeroconf=zc,
                        service_type=service_type,
                        name=f"m{number}.{service_type}",
                        state_change=zeroconf.ServiceStateChange.Added,
                    )

        def cancel(self) -> None:
            pass

    class Silent:
        def get_service_info(self, *args: Any, **kwargs: Any) -> None:
            return None

        def close(self) -> None:
            pass

    monkeypatch.setattr(zeroconf, "ServiceBrowser", Crowd)
    monkeypatch.setattr(discovery, "_zeroconf", lambda interfaces: Silent())
    found, unusable = discovery.look(5)
    most = discovery.MAX_ANNOUNCEMENTS
    assert found == [] and len(unusable) == most + 1
    assert unusable[0] == "m0: it did not answer"
    assert unusable[-1] == f"{Crowd.MANY - most} more matches announced: only the first {most} are read"
