"""Relays on loopback: the real transit relay carries whole matches from invites alone when no
direct route answers, a host without a working relay says so at once, and a hostile relay (one
that garbles, doubles, holds back or cuts bytes, or pairs joiners with each other) causes at most
a reconnect or a clear error, never a wrong result or a forfeit."""

from __future__ import annotations

import argparse
import io
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from p2pgenius.cli.host import chosen_relays, host_match
from p2pgenius.cli.join import join_match, target_of
from p2pgenius.cli.main import build_parser
from p2pgenius.cli.play import Printer, held, make_peer, match_options
from p2pgenius.cli.resume import way_back
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.net import transit
from p2pgenius.net.addresses import CONNECT_TIMEOUT_S, ConnectError, open_socket
from p2pgenius.net.invite import Invite
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.transcript import verify
from tests.net.relays import HostileRelay, free_port, real_relay, twist_missing
from tests.patience import HANG_S


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's config directory is its own, and no host asks the terminal's clipboard."""
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr("p2pgenius.cli.host.to_clipboard", lambda text: False)


@pytest.fixture(scope="module")
def relay(tmp_path_factory: pytest.TempPathFactory) -> object:
    if (reason := twist_missing()) is not None:
        pytest.skip(reason)
    with real_relay(tmp_path_factory.mktemp("relay")) as where:
        yield where


def unreachable(invite: Invite) -> Invite:
    """The invite with its direct address replaced by one where nothing listens (loopback
    refuses at once): the relays are the only way in."""
    return Invite(invite.key, free_port(), ("127.0.0.1",), invite.token, invite.relays)


def host_args(relay: tuple[str, int], *more: str) -> argparse.Namespace:
    return build_parser().parse_args(
        ["host", "duel", "--bot", "--port", "0", "--relay", f"{relay[0]}:{relay[1]}", *more]
    )


def verified(*sides: Peer) -> None:
    outcomes = set()
    for side in sides:
        assert side.session is not None and side.session.outcome is not None
        report = verify(side.files.transcript.read_bytes())
        assert report.ok and report.standing == "finished", report.summary
        assert not report.disputed_time and "forfeit" not in report.summary, report.summary
        outcomes.add(repr(report.outcome))
    assert len(outcomes) == 1


async def through(
    hostile: HostileRelay,
    game: str = "duel",
    peers: int = 2,
    *,
    grace: str = "60",
    ping_s: float | None = None,
) -> tuple[Peer, list[Peer], list[io.StringIO]]:
    """A match of bots through ``hostile``, its joiners given an invite whose direct address
    answers nobody: the host, the joiners, and what each joiner said. ``ping_s``: every peer's
    ping interval (a dead route is noticed after three)."""
    outs = [io.StringIO() for _ in range(peers - 1)]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(hostile.serve)
            hargs = build_parser().parse_args(
                ["host", game, "--bot", "random", "--port", "0", "--peers", str(peers)]
                + ["--relay", f"127.0.0.1:{port}", "--grace", grace]
            )
            host = make_peer(hargs, f"{game}-host", 1, Printer(io.StringIO(), moves=True))
            guests = []
            for number, out in enumerate(outs, start=2):
                jargs = build_parser().parse_args(["join", "unused:1", "--bot", "random", "--grace", grace])
                guests.append((jargs, make_peer(jargs, "join", number, Printer(out, moves=True))))
            if ping_s is not None:
                for side in [host, *(guest for _, guest in guests)]:
                    side._clocks.ping_s = ping_s
            async with trio.open_nursery() as match:
                invite = await match.start(host_match, hargs, host, match_options(hargs))
                for jargs, guest in guests:
                    match.start_soon(join_match, jargs, guest, target_of(str(unreachable(invite))))
            nursery.cancel_scope.cancel()
    return host, [guest for _, guest in guests], outs


# -- the real relay ------------------------------------------------------------------------------


async def test_a_relay_is_proved_to_pair_and_a_dead_or_silent_one_is_named(relay: tuple[str, int]) -> None:
    assert await transit.probe(relay) < 5
    with pytest.raises(
        transit.RelayError,
        match=r"relay 127\.0\.0\.1:\d+ cannot be reached \(connection refused\)",
    ):
        await transit.probe(("127.0.0.1", free_port()))
    silent = await trio.open_tcp_listeners(0, host="127.0.0.1")  # accepts, never answers
    port = silent[0].socket.getsockname()[1]
    with pytest.raises(transit.RelayError, match="did not pair two connections"):
        await transit.probe(("127.0.0.1", port), within_s=0.5)
    await silent[0].aclose()


async def test_a_duel_is_played_through_the_relay_from_the_invite_alone(relay: tuple[str, int]) -> None:
    host_out, join_out = io.StringIO(), io.StringIO()
    hargs = host_args(relay)
    jargs = build_parser().parse_args(["join", "unused:1", "--bot", "random"])
    host = make_peer(hargs, "duel-host", 1, Printer(host_out, moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            guest = make_peer(jargs, "join", 2, Printer(join_out, moves=True))
            given = unreachable(invite)
            with held(guest.files):  # (as the command does: the folder made, the files locked)
                await join_match(jargs, guest, target_of(str(given)))
    assert invite.relays == (relay,)
    said, joined = host_out.getvalue(), join_out.getvalue()
    assert f"relay {relay[0]}:{relay[1]} works (paired a test connection in" in said
    assert "invite, to send to whoever joins (it carries the addresses, the relays" in said
    assert "this machine directly, other machines through the relays" in said
    assert f"connected through relay {relay[0]}:{relay[1]} (direct connection not possible)" in joined
    verified(host, guest)
    # Its header says how it came: the invite's first address (which did not answer) and the
    # relay it came through, which resume calls at once (SPEC section 7, the header).
    meta = verify(guest.files.transcript.read_bytes()).meta
    assert meta["address"] == f"127.0.0.1:{given.port}" and meta["relay"] == f"{relay[0]}:{relay[1]}"
    assert way_back(meta, ("127.0.0.1", given.port), given).head_start_s == 0.0
    # The joiner keeps the invite beside its transcript, privately: resume finds the relay by it.
    kept = guest.files.invite
    assert kept.name.endswith("-duel-join.invite")  # (renamed with the transcript)
    assert kept.read_text().split()[-1] == given.text()
    assert kept.stat().st_mode & 0o077 == 0


async def test_four_hornswoggle_peers_meet_through_the_relay(relay: tuple[str, int]) -> None:
    hargs = build_parser().parse_args(
        ["host", "hornswoggle", "--bot", "--port", "0", "--peers", "4", "--relay", f"{relay[0]}:{relay[1]}"]
    )
    host = make_peer(hargs, "hornswoggle-host", 1, Printer(io.StringIO(), moves=True))
    guests: list[Peer] = []
    outs = [io.StringIO() for _ in range(3)]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            text = str(unreachable(invite))
            for number, out in enumerate(outs, start=2):
                jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
                guest = make_peer(jargs, "join", number, Printer(out, moves=True))
                guests.append(guest)
                nursery.start_soon(join_match, jargs, guest, target_of(text))
    for out in outs:
        assert "connected through relay" in out.getvalue()
    verified(host, *guests)


async def test_a_host_whose_relays_all_fail_says_so_at_once() -> None:
    dead = ("127.0.0.1", free_port())
    hargs = host_args(dead)
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    with trio.fail_after(HANG_S), pytest.raises(P2PGeniusError) as refused:
        await host_match(hargs, host, match_options(hargs))
    message = str(refused.value)
    assert message.startswith(f"no relay works (relay 127.0.0.1:{dead[1]} cannot be reached")
    assert "twist transitrelay --port=tcp:4001" in message and "--no-relay" in message
    assert "\n" not in message


async def test_a_relay_reconnect_after_a_cut_is_as_good_as_a_direct_one() -> None:
    # The relay cuts the pipe once, mid-match: the joiner calls at the relay again, the host's
    # next waiting connection takes it back, and the match ends normally, no one forfeited.
    hostile = HostileRelay(cut_after=2000)
    host, guests, outs = await through(hostile)
    assert hostile.cuts == 1 and hostile.paired >= 3  # (the probe, the join, the way back)
    assert "reconnected to the host" in outs[0].getvalue()
    verified(host, *guests)


async def test_a_route_gone_silent_is_given_up_and_the_joiner_comes_back() -> None:
    # The relay stops passing bytes mid-match and keeps both connections open. Nobody is claimed
    # for the route's silence: after a few unanswered pings each side closes the dead connection,
    # the joiner calls at the relay again, and the match ends normally.
    hostile = HostileRelay(stall_after=2000)
    host, guests, outs = await through(hostile, grace="5", ping_s=0.5)  # (noticed in 1.5 s, not 30)
    assert hostile.cuts == 1
    assert "reconnected to the host" in outs[0].getvalue()
    verified(host, *guests)


def flip_one(data: bytes) -> bytes:
    """One bit of the middle byte changed (what a relay that garbles does)."""
    if len(data) < 8:
        return data
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :]


def doubled(data: bytes) -> bytes:
    return data + data


@pytest.mark.parametrize(("mangle", "direction"), [(flip_one, "to_joiner"), (doubled, "to_host")])
async def test_a_relay_that_garbles_or_doubles_bytes_breaks_only_the_connection(
    mangle: object, direction: str
) -> None:
    # Every byte is authenticated end to end: a relay that changes or repeats any breaks the
    # handshake at once, and the joiner is told in one line; nothing is signed, nothing forfeited.
    hostile = HostileRelay(**{direction: mangle})  # type: ignore[arg-type]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(hostile.serve)
            hargs = host_args(("127.0.0.1", port))
            jargs = build_parser().parse_args(["join", "unused:1", "--bot", "random"])
            host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
            nursery.start_soon(host_match, hargs, host, match_options(hargs))
            invite = None
            while host.token is None:
                await trio.sleep(0.01)
            invite = Invite(
                host.identity.public, free_port(), ("127.0.0.1",), host.token, (("127.0.0.1", port),)
            )
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            with pytest.raises(P2PGeniusError) as broken:
                await join_match(jargs, guest, target_of(str(invite)))
            assert host.lobby is not None and not host.lobby.members  # (nobody was seated)
            nursery.cancel_scope.cancel()
    assert "\n" not in str(broken.value)
    assert guest.session is None and host.session is None


async def test_joiners_paired_with_each_other_call_again_and_get_in() -> None:
    # Three joiners call at once; the first is paired with the host, the other two with each other
    # (the real relay may, while the host's next waiting connection is on its way): both their
    # handshakes fail, both call again, and the match is played.
    host, guests, outs = await through(HostileRelay(joiners_first=True), "hornswoggle", 4)
    assert any("did not answer as the host; calling again" in out.getvalue() for out in outs)
    verified(host, *guests)


async def test_a_relay_that_holds_bytes_back_costs_time_not_a_forfeit() -> None:
    # Each chunk held 0.1 s each way (a slow relay far away), with a grace of 2 s: the match is
    # slower, and normal.
    host, guests, _ = await through(HostileRelay(hold_s=0.1), grace="2")
    verified(host, *guests)


# -- how a joiner finds the way ------------------------------------------------------------------

SILENT = 9


async def silent_to_port_9(family: int, sockaddr: object) -> trio.abc.Stream:
    """An opener for which port 9 drops every packet (a SYN that is never answered)."""
    if sockaddr[1] == SILENT:  # type: ignore[index]
        await trio.sleep_forever()
    return await open_socket(family, sockaddr)


async def keeper_at(nursery: trio.Nursery, relay: HostileRelay, token: str) -> list[trio.abc.Stream]:
    """A host's connection waiting at ``relay`` under ``token`` (there before any joiner calls, as
    the relay takes the first side under a token for the host's); the pipes paired come in the
    list."""
    arrived: list[trio.abc.Stream] = []

    async def keep(stream: trio.abc.Stream) -> None:
        arrived.append(stream)

    keeper = transit.RelayKeeper(("127.0.0.1", relay.port), token, lambda _: None)
    nursery.start_soon(keeper.keep, keep)
    while not any(relay._waiting.values()):
        await trio.sleep(0.01)
    return arrived


async def test_a_silent_direct_address_costs_the_head_start_not_its_timeout() -> None:
    hostile = HostileRelay()
    token = transit.relay_token(bytes(32), bytes(16))
    async with trio.open_nursery() as nursery:
        port = await nursery.start(hostile.serve)
        relay = ("127.0.0.1", port)
        await keeper_at(nursery, hostile, token)
        began = trio.current_time()
        way = transit.Way([("127.0.0.1", SILENT)], [relay], token, opener=silent_to_port_9)
        stream, route = await way.reach()
        took = trio.current_time() - began
        nursery.cancel_scope.cancel()
    assert route.relay == relay and not route.direct_failed
    # The head start, not the connect's timeout (on a busy machine the head start ends late, never
    # as late as that).
    assert took < CONNECT_TIMEOUT_S
    assert transit.HEAD_START_FLOOR_S <= route.head_start_s < CONNECT_TIMEOUT_S
    assert route.words().startswith(f"connected through relay 127.0.0.1:{port} (no direct address answered")
    await stream.aclose()


async def test_a_joiner_that_came_through_a_relay_comes_back_through_it_without_a_head_start() -> None:
    # Resuming from its files alone: the header's relay, the invite beside the transcript. A
    # direct address that answers nothing costs it nothing (it would cost a direct joiner the
    # head start): it goes the way it came.
    hostile = HostileRelay()
    key, seat_token = bytes(32), bytes(16)
    token = transit.relay_token(key, seat_token)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(hostile.serve)
        relay = ("127.0.0.1", port)
        await keeper_at(nursery, hostile, token)
        invite = Invite(key, SILENT, ("127.0.0.1",), seat_token, (relay,))
        way = way_back({"relay": f"127.0.0.1:{port}"}, ("127.0.0.1", SILENT), invite)
        way = replace(way, opener=silent_to_port_9)
        stream, route = await way.reach()
        nursery.cancel_scope.cancel()
    assert route.relay == relay and route.head_start_s < transit.HEAD_START_FLOOR_S
    assert way_back({}, ("127.0.0.1", SILENT), invite).head_start_s == transit.HEAD_START_S  # (came direct)
    await stream.aclose()


async def test_a_direct_route_that_answers_wins_over_a_relay_that_pairs() -> None:
    hostile = HostileRelay()
    token = transit.relay_token(bytes(32), bytes(16))
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    direct = ("127.0.0.1", listener.socket.getsockname()[1])
    async with trio.open_nursery() as nursery:
        port = await nursery.start(hostile.serve)
        relay = ("127.0.0.1", port)
        await keeper_at(nursery, hostile, token)
        stream, route = await transit.Way([direct], [relay], token).reach()
        nursery.cancel_scope.cancel()
    assert route.relay is None and route.where == f"127.0.0.1:{direct[1]}"
    assert route.words() == f"connected to 127.0.0.1:{direct[1]}"
    await stream.aclose()
    await listener.aclose()


async def test_every_route_failing_is_said_in_one_line() -> None:
    token = transit.relay_token(bytes(32), bytes(16))
    dead = ("127.0.0.1", free_port())
    way = transit.Way([("127.0.0.1", free_port())], [dead], token, timeout_s=2)
    with pytest.raises(ConnectError) as failed:
        await way.reach()
    message = str(failed.value)
    assert "nothing is listening at 127.0.0.1:" in message
    assert f"; relay 127.0.0.1:{dead[1]} cannot be reached (connection refused): is the host still" in message
    assert "\n" not in message


def test_the_relays_come_from_the_command_line_else_the_variable_else_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("P2PGENIUS_RELAY", raising=False)
    parse = build_parser().parse_args
    assert chosen_relays(parse(["host", "duel"])) == []
    (tmp_path / "relays").write_text("# mine\nrelay.example.org\n\n[2001:db8::7]:14001  # a friend's\n")
    assert chosen_relays(parse(["host", "duel"])) == [("relay.example.org", 4001), ("2001:db8::7", 14001)]
    monkeypatch.setenv("P2PGENIUS_RELAY", "198.51.100.7:4002, relay.example.net")
    assert chosen_relays(parse(["host", "duel"])) == [("198.51.100.7", 4002), ("relay.example.net", 4001)]
    assert chosen_relays(parse(["host", "duel", "--relay", "r.example.org:9"])) == [("r.example.org", 9)]
    assert chosen_relays(parse(["host", "duel", "--no-relay"])) == []
    with pytest.raises(LocalMisuseError, match=r"^--relay: a relay is HOST or HOST:PORT"):
        chosen_relays(parse(["host", "duel", "--relay", "r.example.org:port"]))
    monkeypatch.setenv("P2PGENIUS_RELAY", "under_score.example")
    with pytest.raises(
        LocalMisuseError,
        match=r"^\$P2PGENIUS_RELAY: relay 'under_score.example': .* neither an IP address nor a host name",
    ):
        chosen_relays(parse(["host", "duel"]))


async def test_a_dead_relay_from_the_settings_is_warned_about_and_hosting_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dead = free_port()
    monkeypatch.setenv("P2PGENIUS_RELAY", f"127.0.0.1:{dead}")
    out = io.StringIO()
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            nursery.cancel_scope.cancel()
    said = out.getvalue()
    assert f"relay 127.0.0.1:{dead} cannot be reached (connection refused): callers may not get in" in said
    assert "no relay works for now: callers get in only directly until one does" in said
    assert invite.relays == (("127.0.0.1", dead),)  # (it is called at again: it may come back)


class ClosesAfterTheRequest(trio.abc.Stream):
    """A relay's end that takes the request and closes before "ok"."""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        return b""

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


async def test_a_relay_that_only_ever_closes_cannot_keep_the_host_busy(autojump_clock: object) -> None:
    # A hostile relay accepts every waiting connection and closes it before "ok": the host's keeper
    # calls again, but no more than MAX_PAIRINGS times each PAIRINGS_S.
    del autojump_clock
    calls = [0]

    async def closing(family: int, sockaddr: object) -> trio.abc.Stream:
        calls[0] += 1
        return ClosesAfterTheRequest()

    keeper = transit.RelayKeeper(("127.0.0.1", 4001), "0" * 64, lambda _: None, opener=closing)

    async def arrived(stream: trio.abc.Stream) -> None:
        raise AssertionError("nothing pairs at a relay that only closes")

    with trio.move_on_after(60):
        await keeper.keep(arrived)
    assert 0 < calls[0] <= (60 / transit.PAIRINGS_S + 1) * transit.MAX_PAIRINGS
