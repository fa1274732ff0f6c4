"""Benchmark: matches over a wide-area link, in round trips (real TCP through a delay proxy).

    .venv/bin/python bench/wan.py [--delays 25,50,100] [--samples 5] [--turns 30] [--routes | --cli [GAME]]

A host and its joiners (one for the duel and the Magic Square, three for Hornswoggle) run in this
process; every joiner reaches the host through ``p2pgenius.net.latency.delay_proxy``, which holds
each byte DELAY ms each way. Which seat a peer holds changes the message path (the coin deals the
seats in a real match), so every seating that matters is run, each one ``--samples`` times, with
the seats claimed (a claim travels in the ready and the terms the peers exchange anyway: the coin
is still flipped and opened, only the deal is fixed): with two peers, the host at p0 and at p1;
with four, each peer in turn at p1, whose stage-0 pick (who starts) the others need not wait on
to lay their opening cards. Reported per cell, in round trips (2 x DELAY), the median, the lowest
and highest sample (in brackets) and the floor the message path allows (see ``SEATINGS``):

* to seats: from the last joiner's first handshake byte until it knows its seats;
* to its first move: until the last joiner is first asked to decide;
* to every peer's first move: until the last of all the peers (the host too) is first asked (not
  for the Magic Square, whose seats move in turns after the pick);
* per duel turn: once the duel is under way (both wizards choose at once).

``--routes`` measures instead how a joiner *reaches* its host, counted from the moment it starts
(its TCP connections included, each costing a round trip of its path), to its seats and its first
duel move, and per duel turn, three ways: direct as today (no relay); direct with the invite
naming a relay (the race must not slow the direct route: goal within 0.1 round trip of today's);
and through the real transit relay (``twist transitrelay`` on loopback, each peer's leg to it half
the delay, so that the end-to-end delay is the same), the direct address dropping packets (goal:
within 0.5 round trip of the direct route, head start included). The relay's TCP peer on each leg
is the leg's delay proxy, not the peer's socket: the proxy acknowledges what it reads from the
relay as a peer's relayed socket does (``transit.acknowledge_at_once``), since the relay's Nagle
waits on those acknowledgements.

``--cli [GAME]`` measures instead a join through the real command line, every seating of GAME
(default: the duel): ``p2pgenius host GAME --bot random`` (``--peers 4`` for Hornswoggle) and a
``p2pgenius join INVITE --bot random`` for each joiner, in processes of their own, every joiner
reaching the host through the same delay proxy, beside the same join in this process, sample by
sample; counted as above, then from the moment the last joiner, loaded, takes its connection, and
from its spawn to its first byte and to its first move, in milliseconds (goals: the duel's first
move within 0.1 round trip of this process's; Hornswoggle's within 3.5 round trips).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import trio
from bytecode import as_installed

from p2pgenius.bots.driver import BotDriver
from p2pgenius.games.registry import get_spec
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.addresses import Opener, open_socket
from p2pgenius.net.files import Files
from p2pgenius.net.keystore import load_identity
from p2pgenius.net.latency import delay_proxy
from p2pgenius.net.peer import Peer
from p2pgenius.net.transit import Entrance, RelayKeeper, Way, acknowledge_at_once, relay_token
from p2pgenius.protocol.events import SeatsDealt
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Event, SessionView


@dataclass(frozen=True)
class Seating:
    """One game's table with every peer's seat claim (peer 0 the host, then the joiners in the
    order they come; the last one is timed), and the floors of its three counts in round trips
    (None: not counted for this game)."""

    game: str
    options: Mapping[str, Any]
    claims: tuple[tuple[int, ...], ...]
    floors: tuple[float, float, float | None]

    @property
    def peers(self) -> int:
        return len(self.claims)

    def label(self) -> str:
        """Who holds which seat: "p0 host, p1 j1, ..." (j1, j2, j3: the joiners in the order they
        come)."""
        holder = {
            seat: "host" if peer == 0 else f"j{peer}" for peer, c in enumerate(self.claims) for seat in c
        }
        return ", ".join(f"p{seat} {holder[seat]}" for seat in sorted(holder))


# The floors, by the message path (a joiner's first byte at 0, in round trips): the host's answer
# (with the table) is back at 1; the joiner's ready rides on its last handshake message; the terms
# with the host's opened coin share are back at 2, when a lone joiner knows its seats (the host
# knows them at 2.5, when the joiner's share reaches it). With four peers the other joiners'
# shares reach the last one through the host: 3. At stage 0 the duel's wizards both choose; in
# the Magic Square and Hornswoggle p1 (p0's opponent) picks who begins. In the Magic Square the
# other seat waits for that pick (the seats then move in turns: when the second one is first asked
# depends on the pick, so that count is left out); in Hornswoggle the others lay their opening
# cards meanwhile (committed early: the game's ``spec.ahead``), so nobody waits on the pick to be asked.
SEATINGS: tuple[Seating, ...] = (
    Seating("duel", {"fast": True}, ((0,), (1,)), (2, 2, 2.5)),
    Seating("duel", {"fast": True}, ((1,), (0,)), (2, 2, 2.5)),
    Seating("magic-square", {}, ((0,), (1,)), (2, 2, None)),
    Seating("magic-square", {}, ((1,), (0,)), (2, 3, None)),  # the host picks at 2.5
    Seating("hornswoggle", {}, ((1,), (0,), (2,), (3,)), (3, 3, 3)),  # the host picks at 2.5
    Seating("hornswoggle", {}, ((0,), (1,), (2,), (3,)), (3, 3, 3)),  # j1 picks; the others lay
    Seating("hornswoggle", {}, ((0,), (2,), (1,), (3,)), (3, 3, 3)),
    Seating("hornswoggle", {}, ((0,), (2,), (3,), (1,)), (3, 3, 3)),  # j3 picks at 3
)


class Timed(trio.abc.Stream):
    """A stream that remembers when it first sent."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.first: float | None = None

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.first is None:
            self.first = time.perf_counter()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Watch:
    """When a peer learnt its seats and when it was first asked to decide."""

    def __init__(self, seed: int, *, idle: bool = False) -> None:
        self.driver = BotDriver("random", seed)
        self.idle = idle  # a wizard that only ever points (D casts nothing): a duel that never ends
        self.dealt: float | None = None
        self.first_move: float | None = None

    def event(self, session: SessionView, event: Event) -> None:
        if isinstance(event, SeatsDealt) and self.dealt is None:
            self.dealt = time.perf_counter()

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        if self.first_move is None:  # (when asked: the random bot's pick is not the link's time)
            self.first_move = time.perf_counter()
        if self.idle:
            return {"type": "gestures", "left": "D", "right": "-"}
        return await self.driver.decide(session, seat)


def _peer(tmp: Path, name: str, watch: Watch) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    pins = tmp / "pins" / name
    return Peer(
        Identity.generate(),
        name,
        files,
        watch.decide,
        watch.event,
        lambda _: None,
        pin_dir=pins,
        decide_early=True,
    )


async def joining(seating: Seating, delay: float) -> tuple[float, float, float]:
    """(round trips to seats, to first move, to every peer's first move), counted from the last
    joiner's first handshake byte."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        watches = [Watch(1 + 10 * i) for i in range(seating.peers)]
        host = _peer(tmp, "host", watches[0])
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        streams: list[Timed] = []
        async with trio.open_nursery() as nursery:
            proxy = await nursery.start(delay_proxy, "127.0.0.1", port, delay)
            nursery.start_soon(
                lambda: host.host(
                    listener,
                    game=seating.game,
                    options=seating.options,
                    setup={},
                    peers=seating.peers,
                    seats=seating.claims[0],
                )
            )
            for index in range(1, seating.peers):
                stream = Timed(await trio.open_tcp_stream("127.0.0.1", proxy))
                streams.append(stream)
                joiner = _peer(tmp, f"joiner{index}", watches[index])
                nursery.start_soon(partial(joiner.join, stream, seats=seating.claims[index]))
                with trio.fail_after(30):
                    while stream.first is None:
                        await trio.sleep(0.001)
                if index < seating.peers - 1:
                    await trio.sleep(6 * delay)  # in the lobby before the next one comes
            with trio.fail_after(60):
                while any(w.first_move is None for w in watches):
                    await trio.sleep(0.001)
            nursery.cancel_scope.cancel()
    start, last = streams[-1].first, watches[-1]
    assert start is not None and last.dealt is not None and last.first_move is not None
    everyone = max(w.first_move for w in watches if w.first_move is not None)
    rtt = 2 * delay
    return (last.dealt - start) / rtt, (last.first_move - start) / rtt, (everyone - start) / rtt


async def duel_turns(delay: float, turns: int, host_seat: int) -> float:
    """Round trips per duel turn, once 5 turns are behind."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        host, guest = _peer(tmp, "host", Watch(1, idle=True)), _peer(tmp, "guest", Watch(2, idle=True))
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            proxy = await nursery.start(delay_proxy, "127.0.0.1", port, delay)
            nursery.start_soon(
                lambda: host.host(
                    listener,
                    game="duel",
                    options={"fast": True},
                    setup={"hp": [1000, 1000]},
                    peers=2,
                    seats=[host_seat],
                )
            )
            nursery.start_soon(guest.join, await trio.open_tcp_stream("127.0.0.1", proxy))
            with trio.fail_after(60 + turns * delay * 10):
                while host.session is None or host.session.stage is None or host.session.stage.number < 5:
                    await trio.sleep(0.001)
                start, first = time.perf_counter(), host.session.stage.number
                while host.session.stage.number < first + turns:
                    await trio.sleep(0.001)
            elapsed = time.perf_counter() - start
            nursery.cancel_scope.cancel()
    return elapsed / turns / (2 * delay)


# -- real processes: the command line's own path -----------------------------------------------

PROBE = """
import os, sys, time
def mark(what, seen=set()):
    if what not in seen:
        seen.add(what)
        os.write(2, f"@wan {what} {time.monotonic():.6f}\\n".encode())
mark("start")
def on_trio(trio):
    opened, sent = trio.SocketStream.__init__, trio.SocketStream.send_all
    def taken(self, *args):
        mark("taken")
        opened(self, *args)
    async def sending(self, data):
        mark("sent")
        await sent(self, data)
    trio.SocketStream.__init__, trio.SocketStream.send_all = taken, sending
def on_early(early):
    run = early.Begun.run
    def running(self):
        run(self)
        if self.error is None:
            mark("sent")
    early.Begun.run = running
def on_play(play):
    from p2pgenius.protocol.events import SeatsDealt
    told = play.Printer.event
    def event(self, session, event):
        if isinstance(event, SeatsDealt):
            mark("seats")
        told(self, session, event)
    play.Printer.event = event
def on_driver(driver):
    decide = driver.BotDriver.decide
    async def asked(self, session, seat):
        mark("asked")
        return await decide(self, session, seat)
    driver.BotDriver.decide = asked
PATCHES = {"trio": on_trio, "p2pgenius.net.early": on_early, "p2pgenius.cli.play": on_play,
           "p2pgenius.bots.driver": on_driver}
class After:
    def find_spec(self, name, path=None, target=None):
        if name not in PATCHES:
            return None
        for finder in sys.meta_path:
            find = None if finder is self else getattr(finder, "find_spec", None)
            spec = find and find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        run, patch = spec.loader.exec_module, PATCHES.pop(name)
        def exec_module(module):
            run(module)
            patch(module)
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, After())
from p2pgenius.cli.main import main
sys.argv[0] = "p2pgenius"
sys.exit(main())
"""
"""What ``--cli`` runs as each peer, ``python -c PROBE host ...``: the command line itself, which
notes on standard error (``@wan WHAT SECONDS``, the system's monotonic clock, which every process
reads alike) when it started (Python's own start-up before it: the bench notes the spawn), when
its first byte went (a joiner's first handshake message, written while it loads: net/early.py),
when it took its first TCP connection as a stream (a joiner: once loaded), when it knew its
seats and when it was first asked to decide. Each module is patched once it is imported (the
``After`` finder), so that nothing is loaded ahead of the program's own order; nothing else of
the program is changed."""


@dataclass
class Spawned:
    """A command-line peer under way: its lines and marks as they come."""

    process: trio.Process
    lines: list[str]
    marks: dict[str, float]


async def spawn(nursery: trio.Nursery, words: Sequence[str], home: Path) -> Spawned:
    """``p2pgenius WORDS`` (under :data:`PROBE`) with ``home`` as its config directory; its
    output read as it comes. Killed when ``nursery`` is cancelled (no process is left behind)."""
    environment = dict(os.environ, P2PGENIUS_HOME=str(home), P2PGENIUS_NO_CLIPBOARD="1")
    process: trio.Process = await nursery.start(
        partial(
            trio.run_process,
            [sys.executable, "-c", PROBE, *words],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            check=False,
        )
    )
    spawned = Spawned(process, [], {})
    assert process.stdout is not None and process.stderr is not None
    nursery.start_soon(_read, process.stdout, spawned)
    nursery.start_soon(_read, process.stderr, spawned)
    return spawned


async def _read(stream: trio.abc.ReceiveStream, spawned: Spawned) -> None:
    """Lines of ``stream`` into ``spawned`` (a mark into its marks)."""
    pending = b""
    async for chunk in stream:
        *whole, pending = (pending + chunk).split(b"\n")
        for line in whole:
            text = line.decode("utf-8", "replace")
            if text.startswith("@wan "):
                _, what, when = text.split()
                spawned.marks[what] = float(when)
            else:
                spawned.lines.append(text)


async def _until(spawned: Sequence[Spawned], ready: Callable[[], bool], what: str) -> None:
    """Wait for ``ready()``; if a process ends first or a minute passes, say why with its output."""
    with trio.move_on_after(60):
        while not ready():
            if any(s.process.returncode is not None for s in spawned):
                break
            await trio.sleep(0.001)
    if not ready():
        told = "\n".join(line for s in spawned for line in s.lines[-5:])
        raise RuntimeError(f"--cli: no {what}; the peers said:\n{told}")


def proxied(invite_line: str, port: int) -> str:
    """The host's invite, its address made the delay proxy's (as a port forwarded elsewhere)."""
    invite = invite_codec.parse_live(invite_line.rsplit(maxsplit=1)[-1])
    return str(invite_codec.Invite(invite.key, port, ("127.0.0.1",), invite.token, invite.relays))


def _words(seating: Seating, peer: int, tmp: Path) -> list[str]:
    """What peer ``peer`` (0: the host) of ``seating`` is told besides its command and invite:
    a random bot (so that no thinking counts), its seat claims, its transcript."""
    words = ["--bot", "random", *(f"--seat={s}" for s in seating.claims[peer])]
    return [*words, "--transcript", str(tmp / f"peer{peer}.p2pt")]


async def cli_joining(seating: Seating, delay: float, tmp: Path) -> tuple[float, ...]:
    """A real ``p2pgenius host`` and a real ``p2pgenius join`` for each joiner, every joiner
    through the delay proxy and each started 6 x the delay after the one before sent its first
    byte (as :func:`joining` opens them; later by its start-up): round trips to seats, to its
    first move and to every peer's first move from the last joiner's first handshake byte, as
    :func:`joining` counts, and to its first move from taking its connection once loaded;
    milliseconds from its spawn to its first byte and to its first move."""
    table = ["--fast"] if seating.options.get("fast") else []
    table += ["--peers", str(seating.peers)] if seating.peers > 2 else []
    host_words = ["host", seating.game, "--no-relay", *table, *_words(seating, 0, tmp)]
    async with trio.open_nursery() as nursery:
        host = await spawn(nursery, host_words, tmp / "home0")
        await _until([host], lambda: any("p2pgenius join " in line for line in host.lines), "invite")
        invite = next(line for line in host.lines if "p2pgenius join " in line)
        port = invite_codec.parse_live(invite.split()[-1]).port
        proxy = await nursery.start(delay_proxy, "127.0.0.1", port, delay)
        peers = [host]
        for index in range(1, seating.peers):
            if index > 1:  # (the one before in the lobby first)
                before = peers[-1]
                await _until(peers, lambda: "sent" in before.marks, "a joiner's first byte")  # noqa: B023
                await trio.sleep(max(0.0, before.marks["sent"] + 6 * delay - time.monotonic()))
            words = ["join", proxied(invite, proxy), *_words(seating, index, tmp)]
            spawned_at = time.monotonic()
            peers.append(await spawn(nursery, words, tmp / f"home{index}"))
        await _until(peers, lambda: all("asked" in p.marks for p in peers), "first moves")
        nursery.cancel_scope.cancel()
    marks, rtt = peers[-1].marks, 2 * delay
    everyone = max(p.marks["asked"] for p in peers)
    return (
        (marks["seats"] - marks["sent"]) / rtt,
        (marks["asked"] - marks["sent"]) / rtt,
        (everyone - marks["sent"]) / rtt,
        (marks["asked"] - marks["taken"]) / rtt,
        (marks["sent"] - spawned_at) * 1000,
        (marks["asked"] - spawned_at) * 1000,
    )


def cli(delays: Sequence[float], samples: int, game: str) -> None:
    """``--cli GAME``: every seating of ``game`` joined in one process (:func:`joining`) and
    through the real command line (:func:`cli_joining`), sample by sample in turn, so that the
    load of the machine falls on both alike."""
    get_spec(game).warm()
    seatings = [s for s in SEATINGS if s.game == game]
    print(
        "| one-way delay | who holds each seat | one process: to seats | to its first move "
        "| to every peer's first move | real processes: to seats | to its first move "
        "| to every peer's first move | its first move from taking its connection "
        "| its spawn to its first byte | its spawn to its first move |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for peer in range(seatings[0].peers):
            load_identity(tmp / f"home{peer}")  # (a player's key is made once, not on the way)
        for delay in delays:
            inside: list[list[tuple[float, ...]]] = [[] for _ in seatings]
            real: list[list[tuple[float, ...]]] = [[] for _ in seatings]
            for _ in range(samples):
                for seating, one, two in zip(seatings, inside, real, strict=True):
                    one.append(trio.run(joining, seating, delay))
                    two.append(trio.run(cli_joining, seating, delay, tmp))
            for seating, one, two in zip(seatings, inside, real, strict=True):
                print(_cli_row(seating, delay, one, two), flush=True)
    print()
    print(CLI_NOTE.format(samples=samples))


def _cli_row(
    seating: Seating, delay: float, one: Sequence[tuple[float, ...]], two: Sequence[tuple[float, ...]]
) -> str:
    """One line of the ``--cli`` table: ``one`` the samples in one process, ``two`` through the
    command line."""
    seats, first, everyone = zip(*one, strict=True)
    cli_seats, cli_first, cli_everyone, from_taken, to_byte, to_move = zip(*two, strict=True)
    floor_seats, floor_first, floor_every = seating.floors
    cells = [
        spread(seats, floor_seats),
        spread(first, floor_first),
        spread(everyone, floor_every),
        spread(cli_seats, floor_seats),
        spread(cli_first, floor_first),
        spread(cli_everyone, floor_every),
        spread(from_taken, floor_first),
        milliseconds(to_byte),
        milliseconds(to_move),
    ]
    return f"| {delay * 1000:.0f} ms | {seating.label()} | " + " | ".join(cells) + " |"


CLI_NOTE = (
    "Round trips (2 x the delay), the median of {samples} samples, the lowest and highest in "
    "brackets, then the floor. One process: as the table above (every peer in this process, "
    "counted from the last joiner's first handshake byte). Real processes: `p2pgenius host GAME "
    "--bot random` (with `--peers N` for more than two) and a `p2pgenius join INVITE --bot "
    "random` for each joiner, the invite's address the delay proxy's, each joiner started 6 x "
    "the delay after the one before sent its first byte, each process noting when it did what "
    "(bench/wan.py's `PROBE`); counted the same way, then from the moment the last joiner, "
    "loaded, takes its connection (the proxy answers a connection at once: it costs no round "
    "trip here). A joiner writes its first handshake message while it loads (net/early.py), so "
    "what follows its first byte includes the rest of its loading wherever the host's answer "
    "comes sooner. Its spawn to its first byte and to its first move: milliseconds, the median "
    "and the lowest and highest, from the spawn of the last joiner's process (Python, the "
    "imports, the identity, the invite, the match). Goals: the duel's first move through the "
    "command line within 0.1 round trip of one process's; Hornswoggle's (4 peers) within 3.5 "
    "round trips for every seating."
)


def milliseconds(values: Sequence[float]) -> str:
    """The median, and the lowest and highest in brackets, in whole milliseconds."""
    return f"{statistics.median(values):.0f} ms ({min(values):.0f}-{max(values):.0f})"


# -- routes: direct, and through a relay ----------------------------------------------------------

SILENT_PORT = 9  # (the discard port: the opener below never connects there, as a dropped SYN)


def leg_opener(delays: Mapping[int, float]) -> Opener:
    """An opener whose TCP connection to port P takes a round trip of ``delays[P]`` (one way) and
    that never connects to :data:`SILENT_PORT` (a direct address that drops packets)."""

    async def opener(family: int, sockaddr: Any) -> trio.abc.Stream:
        port = sockaddr[1]
        if port == SILENT_PORT:
            await trio.sleep_forever()
        await trio.sleep(2 * delays.get(port, 0.0))
        return await open_socket(family, sockaddr)

    return opener


async def reaching(
    route: str, delay: float, relay: tuple[str, int], turns: int
) -> tuple[float, float, float]:
    """(round trips to seats, to the first move, per duel turn) for a joiner that takes ``route``
    ("direct", "direct+relay", "relayed"), counted from the moment it starts to reach the host."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        watches = [Watch(1, idle=True), Watch(2, idle=True)]
        host, guest = _peer(tmp, "host", watches[0]), _peer(tmp, "guest", watches[1])
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        token = relay_token(host.identity.public, b"\x07" * 16)
        async with trio.open_nursery() as nursery:
            direct = await nursery.start(delay_proxy, "127.0.0.1", port, delay)
            # (the relay's TCP peer is the leg's proxy: it acknowledges as a relayed peer does)
            leg = await nursery.start(partial(delay_proxy, after_read=acknowledge_at_once), *relay, delay / 2)
            legs = leg_opener({direct: delay, leg: delay / 2})
            keepers = (
                [RelayKeeper(("127.0.0.1", leg), token, lambda _: None, opener=legs)]
                if route != "direct"
                else []
            )
            entrance = Entrance(listener, keepers)
            nursery.start_soon(entrance.run)
            nursery.start_soon(
                partial(
                    host.host,
                    entrance,
                    game="duel",
                    options={"fast": True},
                    setup={"hp": [1000, 1000]},
                    peers=2,
                    seats=[0],
                )
            )
            await trio.sleep(0.2 + 4 * delay)  # (the host's first connection waits at the relay)
            targets = [("127.0.0.1", SILENT_PORT if route == "relayed" else direct)]
            relays = [("127.0.0.1", leg)] if route != "direct" else []
            start = time.perf_counter()
            stream, reached = await Way(targets, relays, token if relays else None, opener=legs).reach()
            assert (reached.relay is not None) == (route == "relayed"), reached
            nursery.start_soon(partial(guest.join, stream, seats=[1]))
            with trio.fail_after(60 + turns * delay * 10):
                while host.session is None or host.session.stage is None or host.session.stage.number < 5:
                    await trio.sleep(0.001)
                began, first = time.perf_counter(), host.session.stage.number
                while host.session.stage.number < first + turns:
                    await trio.sleep(0.001)
            per_turn = (time.perf_counter() - began) / turns
            nursery.cancel_scope.cancel()
    last = watches[1]
    assert last.dealt is not None and last.first_move is not None
    rtt = 2 * delay
    return (last.dealt - start) / rtt, (last.first_move - start) / rtt, per_turn / rtt


ROUTES = ("direct", "direct+relay", "relayed")


def routes(delays: Sequence[float], samples: int, turns: int) -> None:
    """``--routes``: the table of :func:`reaching`, every route ``samples`` times at each delay."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.net.relays import real_relay  # noqa: PLC0415  (the relay the tests run)

    get_spec("duel").warm()
    print("| one-way delay | route | to seats | to the first move | per duel turn |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder, real_relay(Path(folder)) as relay:
        for delay in delays:
            found: dict[str, list[tuple[float, float, float]]] = {route: [] for route in ROUTES}
            for _ in range(samples):
                for route in ROUTES:
                    found[route].append(trio.run(reaching, route, delay, relay, turns))
            for route in ROUTES:
                seats, first, turn = zip(*found[route], strict=True)
                print(
                    f"| {delay * 1000:.0f} ms | {route} | {spread(seats, 0)} | {spread(first, 0)} "
                    f"| {spread(turn, 1)} |",
                    flush=True,
                )
    print()
    print(
        f"Round trips (2 x the delay), the median of {samples} samples, the lowest and highest in "
        "brackets (after the slash: the floor, 0 where none is given). Counted from the moment "
        "the joiner starts to reach the host, its TCP connections included (each costs a round "
        "trip of its path), so one round trip more than the table above. A relayed peer's legs to "
        "the relay (the real `twist transitrelay`, on loopback) are half the delay each way, so the "
        "end-to-end delay is the direct one's. Direct+relay: the invite names a relay too (goal: "
        "within 0.1 round trip of direct). Relayed: the direct address drops packets; the joiner "
        "asks the relay at once and takes its pipe after the head start (twice its round trip to "
        "the relay and a margin, a quarter of it but at least 10 ms, 50 ms to 1 s), so the pairing "
        "hides inside the time a direct TCP connection would take (goal: within 0.5 round trip of "
        "direct). The transit relay writes without "
        "TCP_NODELAY: its second small write waits until the first is acknowledged. A relayed "
        "peer's socket acknowledges each read at once (TCP_QUICKACK), and so does each leg's "
        "proxy here, the relay's TCP peer in this benchmark; that acknowledgement crosses "
        "loopback, not the leg, so a real path's relayed join waits up to a round trip of its "
        "leg more wherever the relay writes twice in a row (not measured here)."
    )


def spread(values: Sequence[float], floor: float | None) -> str:
    """The median, the lowest and highest in brackets, and the floor."""
    if not values or floor is None:
        return ""
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f}) / {floor:g}"


def main() -> None:
    """Run every seating ``--samples`` times at each delay and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", default="25,50,100", help="one-way delays in ms, comma-separated")
    parser.add_argument("--samples", type=int, default=5, help="runs of each seating at each delay")
    parser.add_argument("--turns", type=int, default=30, help="duel turns timed per sample")
    parser.add_argument("--routes", action="store_true", help="direct and relayed joins instead (see above)")
    parser.add_argument(
        "--cli",
        nargs="?",
        const="duel",
        choices=sorted({s.game for s in SEATINGS}),
        help="joins of GAME (default: the duel) through real processes too (see above)",
    )
    args = parser.parse_args()
    delays = [int(d) / 1000 for d in args.delays.split(",")]
    if args.routes:
        routes(delays, args.samples, args.turns)
        return
    if args.cli:
        as_installed()  # (processes start from compiled modules, as an installed program's)
        cli(delays, args.samples, args.cli)
        return
    every_seating(delays, args.samples, args.turns)


def every_seating(delays: Sequence[float], samples: int, turns_timed: int) -> None:
    """The default table: every seating ``samples`` times at each delay."""
    # What a game loads once per process (the Magic Square's index), loaded before the first
    # sample so that every sample is alike: a fresh process pays it once (see the note below).
    for game in sorted({s.game for s in SEATINGS}):
        get_spec(game).warm()
    print(
        "| one-way delay | game (peers) | who holds each seat | to seats / floor "
        "| to its first move / floor | to every peer's first move / floor | per duel turn / floor |"
    )
    print("|---|---|---|---|---|---|---|")
    for delay in delays:
        joins: list[list[tuple[float, float, float]]] = [[] for _ in SEATINGS]
        turns: list[list[float]] = [[] for _ in SEATINGS]
        for _ in range(samples):  # a round over every seating, so that noise hits all alike
            for seating, joined, turned in zip(SEATINGS, joins, turns, strict=True):
                joined.append(trio.run(joining, seating, delay))
                if seating.game == "duel":
                    turned.append(trio.run(duel_turns, delay, turns_timed, seating.claims[0][0]))
        for seating, joined, turned in zip(SEATINGS, joins, turns, strict=True):
            seats, first, everyone = zip(*joined, strict=True)
            floor_seats, floor_first, floor_every = seating.floors
            print(
                f"| {delay * 1000:.0f} ms | {seating.game} ({seating.peers}) | {seating.label()} "
                f"| {spread(seats, floor_seats)} | {spread(first, floor_first)} "
                f"| {spread(everyone, floor_every)} | {spread(turned, 1)} |",
                flush=True,
            )
    print()
    print(
        f"Round trips (2 x the delay): the median of {samples} samples per cell, the lowest "
        "and highest in brackets, then the floor the message path allows (the reasons: the "
        "comment above `SEATINGS` in bench/wan.py). Counted from the first handshake byte of "
        "the last joiner, the one timed (j1, j2, j3: the joiners in the order they come; j1 is the "
        "last with two peers, j3 with four). The seats "
        "are claimed so that each seating is run as often as the others (the coin deals them in "
        "a real match, and the claims change no message). At stage 0 p1 picks who begins in the "
        "Magic Square and Hornswoggle; in the Magic Square the other seat waits on that pick, in "
        "Hornswoggle the others lay their opening cards meanwhile (committed ahead), so nobody "
        "there waits on a pick that travels through the host. The host learns the seats half a "
        "round trip after the lone joiner of a duel: its coin share must reach the host after "
        "the host's own was opened (fairness), so the host's first duel move cannot come before "
        "2.5. Goals: a duel's first move within "
        "2.5 round trips, Hornswoggle's within 3.5 for every seating. What a game loads once per "
        "process (the Magic Square's index, about 30 ms) is loaded before the first sample: a "
        "fresh process pays it on the way to its first match."
    )


if __name__ == "__main__":
    main()
