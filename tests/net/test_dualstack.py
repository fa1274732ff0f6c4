"""Where a host listens and how a joiner gets there: one dual-stack door on every interface (IPv4
and IPv6 joiners at once), the addresses a host offers, happy-eyeballs connecting, and connection
errors that say what to try next (one line, never a traceback)."""

from __future__ import annotations

import errno
import io
import socket
from pathlib import Path
from typing import Any

import ifaddr
import pytest
import trio
import trio.testing

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import Target, join_match
from p2pgenius.cli.main import build_parser, main
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.errors import P2PGeniusError
from p2pgenius.net import addresses
from p2pgenius.net.addresses import ConnectError, connect, listen, local_addresses
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S


def has_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


IPV6 = pytest.mark.skipif(not has_ipv6(), reason="no IPv6 loopback on this machine")


def free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_every_interface_takes_ipv4_and_ipv6_on_one_port() -> None:
    bound = await listen("::", 0)
    assert bound.everywhere and not bound.loopback
    assert bound.address == f"[::]:{bound.port}"
    families = [socket.AF_INET] + ([socket.AF_INET6] if has_ipv6() else [])
    with trio.fail_after(HANG_S):
        for host in ["127.0.0.1", "::1"][: len(families)]:
            stream, where = await connect([(host, bound.port)])
            accepted = await bound.listener.accept()
            assert where.endswith(f":{bound.port}") and host in where
            await stream.send_all(b"hello")
            assert await accepted.receive_some(5) == b"hello"
            await stream.aclose()
            await accepted.aclose()
    await bound.listener.aclose()


async def test_a_machine_without_ipv6_listens_on_every_ipv4_interface(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def no_ipv6(port: int) -> trio.SocketListener:
        raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")

    monkeypatch.setattr(addresses, "_dual_stack", no_ipv6)
    bound = await listen("::", 0)
    assert (bound.host, bound.ipv4, bound.ipv6) == ("0.0.0.0", True, False)
    assert bound.families() == "IPv4 only"
    await bound.listener.aclose()


async def test_a_port_in_use_is_said_in_words() -> None:
    bound = await listen("127.0.0.1", 0)
    with pytest.raises(P2PGeniusError, match=f"another program uses port {bound.port}"):
        await listen("127.0.0.1", bound.port)
    await bound.listener.aclose()


def adapter(name: str, *ips: str | tuple[str, int, int]) -> ifaddr.Adapter:
    return ifaddr.Adapter(name, name, [ifaddr.IP(ip, 24, name) for ip in ips])


def test_the_offered_addresses_are_the_reachable_ones_best_first() -> None:
    adapters = [
        adapter("lo", "127.0.0.1", ("::1", 0, 0)),
        adapter("docker0", "172.17.0.1"),
        adapter("eth0", "192.168.1.20", ("fe80::1", 0, 2), ("fd12::20", 0, 0), ("2001:db8::20", 0, 0)),
        adapter("wlan0", "169.254.3.4", "10.0.0.7"),
    ]
    assert local_addresses(adapters=adapters) == [
        "192.168.1.20",
        "10.0.0.7",
        "2001:db8::20",
        "fd12::20",
        "172.17.0.1",
    ]
    assert local_addresses(ipv6=False, adapters=adapters) == ["192.168.1.20", "10.0.0.7", "172.17.0.1"]
    assert local_addresses(adapters=[adapter("lo", "127.0.0.1")]) == []


async def test_a_closed_port_means_nothing_listens_there() -> None:
    port = free_port()
    with pytest.raises(ConnectError) as refused:
        await connect([("127.0.0.1", port)])
    assert str(refused.value).startswith(f"nothing is listening at 127.0.0.1:{port} (connection refused)")
    assert "is the host running, and is that its port?" in str(refused.value)


async def test_silence_means_a_firewall_or_nat_and_points_to_the_invite_and_upnp(
    autojump_clock: trio.testing.MockClock,
) -> None:
    del autojump_clock

    async def nobody_answers(family: int, sockaddr: Any) -> trio.abc.Stream:
        await trio.sleep_forever()
        raise AssertionError

    start = trio.current_time()
    with pytest.raises(ConnectError) as silent:
        await connect([("127.0.0.1", 7780)], opener=nobody_answers)
    assert trio.current_time() - start == pytest.approx(addresses.CONNECT_TIMEOUT_S)
    message = str(silent.value)
    assert "127.0.0.1:7780 did not answer in 10 s" in message
    assert "a firewall or a NAT router is in the way" in message
    assert "invite" in message and "--upnp" in message


async def test_unreachable_addresses_are_named_each_with_its_reason(
    autojump_clock: trio.testing.MockClock,
) -> None:
    del autojump_clock

    async def opener(family: int, sockaddr: Any) -> trio.abc.Stream:
        if sockaddr[0] == "127.0.0.2":
            raise OSError(errno.ENETUNREACH, "Network is unreachable")
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")

    with pytest.raises(ConnectError, match=r"127\.0\.0\.2:1 network unreachable; 127\.0\.0\.3:1 refused"):
        await connect([("127.0.0.2", 1), ("127.0.0.3", 1)], opener=opener)


async def test_happy_eyeballs_a_silent_address_does_not_hold_up_the_next(
    autojump_clock: trio.testing.MockClock,
) -> None:
    del autojump_clock
    tried: list[tuple[str, float]] = []

    async def opener(family: int, sockaddr: Any) -> trio.abc.Stream:
        tried.append((sockaddr[0], trio.current_time()))
        if sockaddr[0] == "127.0.0.2":
            await trio.sleep_forever()  # a LAN address from far away: silence
        if sockaddr[0] == "127.0.0.3":
            raise ConnectionRefusedError(errno.ECONNREFUSED, "refused")
        await trio.sleep(0.1)
        return trio.testing.memory_stream_pair()[0]

    start = trio.current_time()
    _, where = await connect([("127.0.0.2", 1), ("127.0.0.3", 1), ("127.0.0.4", 1)], opener=opener)
    assert where == "127.0.0.4:1"
    # The second starts 250 ms after the first; the third at once when the second fails.
    assert [(host, round(at - start, 3)) for host, at in tried] == [
        ("127.0.0.2", 0.0),
        ("127.0.0.3", 0.25),
        ("127.0.0.4", 0.25),
    ]
    assert trio.current_time() - start == pytest.approx(0.35)


def test_join_at_a_closed_port_is_one_line_saying_what_to_try(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    port = free_port()
    assert main(["join", f"127.0.0.1:{port}", "--bot"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: nothing is listening at 127.0.0.1:{port} (connection refused)")
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--lan", "--bind", "127.0.0.1"], "lets only this machine join, --lan and --upnp others"),
        (["--upnp", "--bind", "localhost"], "lets only this machine join, --lan and --upnp others"),
        (["--lan", "--bind", "0.0.0.0"], "--lan listens on every interface, --bind on one address"),
    ],
)
def test_contradictory_places_to_listen_are_refused(
    argv: list[str],
    said: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    assert main(["host", "duel", "--bot", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


@IPV6
async def test_one_host_on_every_interface_takes_joiners_over_ipv4_and_ipv6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Hornswoggle for three peers: one joins over 127.0.0.1, the other over ::1, the same match.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr("p2pgenius.cli.host.reachable_addresses", lambda bound: ["127.0.0.1"])
    out = io.StringIO()
    hargs = build_parser().parse_args(
        ["host", "hornswoggle", "--bot", "--lan", "--no-announce", "--port", "0", "--peers", "3"]
    )
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "hornswoggle-host", 1, Printer(out, moves=False))
    guests = [make_peer(jargs, "join", 2 + i, Printer(io.StringIO(), moves=False)) for i in range(2)]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            for guest, address in zip(guests, ["127.0.0.1", "::1"], strict=True):
                target = Target([(address, invite.port)], None, f"{address}")
                nursery.start_soon(join_match, jargs, guest, target)
    assert f"listening on [::]:{invite.port}: every interface, IPv4 and IPv6" in out.getvalue()
    assert [g.address for g in guests] == [f"127.0.0.1:{invite.port}", f"[::1]:{invite.port}"]
    for side in [host, *guests]:
        assert side.session is not None and side.session.outcome is not None
        assert verify(side.files.transcript.read_bytes()).ok
