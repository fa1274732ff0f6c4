"""A player that stops reading but keeps sending (protocol/SPEC.md, section 4a, "What a peer does
not read"). Real peers over loopback TCP, on the autojump clock: the staller, a joiner, reads
nothing from its second stage on and floods the host with pings, whose pongs fill the socket
buffers between them. The host once waited for ever on a write to it, in the task that owns the
match: its match stopped, the honest joiners saw it go silent and forfeited it, and their
transcripts verified "forfeit by host". Now every connection writes from a queue of its own, a
write the staller's system takes nothing of for the bound gives its connection up, and the staller
is away: claimed and forfeited for what it owes, like any peer cut off, while the host's match
goes on with the others."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import trio

from p2pgenius.canonical import decode
from p2pgenius.net.connection import Connection
from p2pgenius.net.lobby import READY_S
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.transcript import Report, records, verify
from p2pgenius.record.matches import from_report

from .scenarios import FAKE_HOUR, Stalled, against_a_staller, over
from .villain import FLOOD_PINGS, Seen, honest, small_send_buffers, small_window


def bodies(report_of: Path) -> list[tuple[int, list[Any]]]:
    """Every match message a transcript holds: (its author, its body)."""
    out = []
    for record in list(records(report_of.read_bytes()))[1:]:
        if record[0] == "msg":
            envelope = decode(record[1])
            out.append((envelope[2], envelope[5]))
    return out


def check_the_staller_lost_and_the_host_never_went_silent(played: Stalled) -> None:
    host, bad = played.host, played.staller
    assert host.session is not None
    staller = host.session.keys.index(bad.identity.public)  # its place among the peers
    owner = host.session.owner
    assert played.pings >= FLOOD_PINGS, played.pings  # (it did stop reading and flood)
    its_seats = {seat for seat, peer in enumerate(owner) if peer == staller}
    for side in (*played.joiners, host):
        assert over(side), f"{side.name}'s match never ended"
        report: Report = verify(side.files.transcript.read_bytes())
        assert report.fault is not None and report.fault.kind == "forfeit", (side.name, report.summary)
        assert report.fault.peer == staller, (side.name, report.summary)  # the staller, not the host
        assert report.winners and its_seats.isdisjoint(report.winners), (side.name, report.summary)
        said = bodies(side.files.transcript)
        # Nobody ever claimed a seat of the host's: it never went silent, to anyone.
        claims = [(author, body) for author, body in said if body[0] in ("timeout", "forfeit")]
        assert claims and all(owner[body[2]] == staller for _, body in claims), (side.name, claims)
    # The host gave the staller's connection up (it was not reading), so the staller was away;
    # and the evidence, on the host's record: its signed claim about the staller's seat, then its
    # forfeit of that seat, which the match ended on.
    given_up = [line for line in played.seen.lines if "the connection to staller was given up" in line]
    assert given_up, played.seen.lines
    said = bodies(host.files.transcript)
    kinds = [body[0] for author, body in said if author == 0 and body[0] in ("timeout", "forfeit")]
    assert kinds[0] == "timeout" and kinds[-1] == "forfeit", kinds


async def test_a_duel_joiner_that_stops_reading_is_given_up_and_forfeits(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # The host once stayed stuck after its claim and never forfeited the staller.
    del autojump_clock
    played = await against_a_staller(tmp_path, "duel", 2)
    check_the_staller_lost_and_the_host_never_went_silent(played)
    host = played.host  # and the host's record counts the match, won
    line = from_report(str(host.files.transcript), verify(host.files.transcript.read_bytes()))
    mine = line.owned([host.identity.public])
    assert mine.counts and mine.side() == "won", (mine.kind, mine.result())


async def test_a_hornswoggle_joiner_that_stops_reading_loses_its_team_the_match_not_the_host(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # The host's match once stopped at a write to the staller; the two honest joiners claimed and
    # forfeited the host, and both their transcripts verified "forfeit ... by host".
    del autojump_clock
    played = await against_a_staller(tmp_path, "hornswoggle", 4)
    assert len(played.joiners) == 2
    check_the_staller_lost_and_the_host_never_went_silent(played)
    # The honest joiners kept hearing the host through the whole stall: each saw the forfeit as a
    # bystander (held for its own grace period, then confirmed), never lost the host.
    for told in played.lines:
        assert not any("connection" in line and "closed" in line for line in told.lines), told.lines


KNOCKS = 40
"""Callers that come to the lobby and leave, each changing the table twice: the host sends every
player at it the lobby each time, some 30 KB in all to a caller that reads none of it, many times
what fills the small buffers between them."""


async def knock(port: int, name: str, seen: Seen) -> None:
    """A caller at the lobby (it never says ready), seen at the table by the host, then gone."""
    channel = SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": name})
    caller = Connection(await trio.open_tcp_stream("127.0.0.1", port), channel)
    await caller.handshake()
    while f"{name} joined" not in " ".join(seen.lines):
        await trio.sleep(0.01)
    await caller.aclose()
    while f"{name} left the lobby" not in seen.lines:
        await trio.sleep(0.01)


async def test_a_caller_that_stops_reading_in_the_lobby_holds_up_nobody(
    tmp_path: Path, autojump_clock: Any
) -> None:
    # The lobby sent each player the table by waiting for each write: a caller that read nothing
    # once its buffers were full stopped the host's lobby for good (no one else got in).
    del autojump_clock
    seen = Seen()
    host = honest(tmp_path, "host", seen)
    friends = [honest(tmp_path, f"friend{n}", Seen()) for n in (1, 2)]
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    small_send_buffers(listeners[0])
    port = listeners[0].socket.getsockname()[1]
    left_at = None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            partial(host.host, listeners[0], game="hornswoggle", options={}, setup={}, peers=3, seats=[0])
        )
        stream = await small_window(port)
        channel = SecureChannel(initiator=True, identity=Identity.generate(), hello={"name": "staller"})
        await Connection(stream, channel).handshake()
        stream.deaf = True  # at the table (not ready), and it reads nothing more
        with trio.move_on_after(2 * READY_S):  # (the knocks take no time; the staller, the bound)
            for n in range(KNOCKS):
                await knock(port, f"knock{n}", seen)
            nursery.start_soon(friends[0].join, await trio.open_tcp_stream("127.0.0.1", port))
            while "staller left the lobby" not in seen.lines:
                await trio.sleep(0.01)
            left_at = trio.current_time()
        if left_at is not None:
            nursery.start_soon(friends[1].join, await trio.open_tcp_stream("127.0.0.1", port))
            with trio.move_on_after(FAKE_HOUR):
                while not all(over(side) for side in (host, *friends)):
                    await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert all(f"knock{n} left the lobby" in seen.lines for n in range(KNOCKS)), seen.lines[-5:]
    # Its writes waited past the bound, so it was given up: long before a caller that does not
    # say it is ready is shown the door (lobby.READY_S).
    assert left_at is not None and left_at < READY_S, (left_at, seen.lines[-5:])
    for side in (host, *friends):
        assert side.session is not None and side.session.finished, side.name
        report = verify(side.files.transcript.read_bytes())
        assert report.ok and report.names == ["host", "friend1", "friend2"], report.summary
