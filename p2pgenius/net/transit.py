"""Relays: a way in when no direct route between a joiner and its host exists.

A relay is magic-wormhole's *transit relay* (``twist transitrelay``), a small server that pairs two
TCP connections that name the same token and pipes bytes between them. Its client side is one line
each way (SPEC 4d)::

    -> please relay TOKEN for side SIDE\\n       (TOKEN: 64 hex digits, SIDE: 16)
    <- ok\\n                                     (once another connection named TOKEN)

and then a plain byte pipe, over which the peers run the channel's handshake as on a direct
connection. A relay needs no trust: the channel is encrypted and authenticated end to end, so a
relay can only drop, delay or garble bytes (a broken handshake or channel: a reconnect), or pair a
caller with someone who is not the host (its handshake fails: the caller tries again).

* :func:`relay_token` is the token a table is known by at its relays, made from the invite's key
  and seat token: only an invite's holders can reach the host there.
* :class:`RelayKeeper` keeps one connection of a host waiting at a relay, and opens the next as soon
  as a caller pairs with it (all under one side, so that two of them never pair with each other);
  :class:`Entrance` gives a host's door the callers of its listener and
  of its relays alike.
* :class:`Way` is a joiner's way to its host: every direct address at once, the happy eyeballs way,
  and the relays after a head start (:data:`HEAD_START_S`).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import random
import secrets
import socket as stdlib_socket
import sys
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import trio

from p2pgenius.errors import LocalMisuseError
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.addresses import (
    CONNECT_TIMEOUT_S,
    STAGGER_S,
    ConnectError,
    Opener,
    connect,
    hostport,
    open_socket,
)

TOKEN_LABEL: Final = b"p2pgenius relay token"
DEFAULT_PORT: Final = 4001
"""The transit relay's customary port (``twist transitrelay --port=tcp:4001``)."""
HEAD_START_S: Final = 1.0
"""The longest a joiner gives the direct routes before it asks at the relays too (at once when
every direct route has failed; sooner when the relay is near: :data:`HEAD_START_FLOOR_S`)."""
HEAD_START_FLOOR_S: Final = 0.05
"""The head start is twice the round trip of the TCP connection to the first relay (opened at
once, and its request sent at once) plus a margin (:data:`HEAD_START_MARGIN_S`), at least this and
at most :data:`HEAD_START_S`, counted from the start of the direct attempt. A direct route slower
than that is no faster than the relay's path (joiner to relay to host), so little is lost when the
relay wins; a direct address that drops packets costs only the head start (the NAT lab's
measurements: docs/performance.md)."""
HEAD_START_MARGIN_S: Final = 0.01
"""Twice the relay's round trip is exactly when the direct handshake completes with the relay
midway (the relay's path as long as the direct one): the head start adds this much, or a quarter
of the relay's round trip when that is more, so that a few milliseconds of jitter or of a loaded
machine do not hand a working direct route's join to the relay. A direct connection whose
handshake has completed when the head start ends is taken over the relay's pipe (Happy Eyeballs,
RFC 8305: a completed connection is preferred)."""
MAX_LINE: Final = 64
"""The longest line a relay sends before the pipe: ``ok``, or a refusal (``bad handshake``, ...)."""
BACKOFF_S: Final = (1.0, 30.0)
"""A host's pause before it calls at a relay again after a failure: the first, and the longest."""
KEEPALIVE_S: Final = 30
"""A waiting connection's TCP keepalive idle time: a NAT forgets an idle mapping after minutes."""
MAX_PAIRINGS: Final = 10
PAIRINGS_S: Final = 5.0
"""A host's keeper waits ``PAIRINGS_S / MAX_PAIRINGS`` before it waits at a relay again once
``MAX_PAIRINGS`` callers paired there in ``PAIRINGS_S`` (a flood of empty pairings is slowed)."""
BUFFERED: Final = 8
"""Callers a host's entrance holds for its door while nobody accepts (between the lobby and the
match, say), so that its keepers go on waiting at their relays meanwhile."""
SAY_AGAIN_S: Final = 600.0
"""A relay still unreachable is said again this often (a change of reason is said at once)."""
QUICKACK: Final = hasattr(stdlib_socket, "TCP_QUICKACK") and sys.platform.startswith("linux")
"""Whether this system has TCP_QUICKACK (Linux): see :func:`acknowledge_at_once`."""


class RelayError(ConnectError):
    """A relay refused us, closed, or cannot be reached; the message says which relay and why."""


class RelayClosedError(RelayError):
    """A relay closed a waiting connection before pairing it: it does so to every connection still
    waiting under a token when two others pair (several callers at once), so the caller calls
    again."""


def relay_token(key: bytes, seat_token: bytes) -> str:
    """The token a host waits under at its relays: 64 hex digits of SHA-256 over the label, the
    host's identity key and its invite's seat token (only an invite's holders know it)."""
    return hashlib.sha256(TOKEN_LABEL + key + seat_token).hexdigest()


def request(token: str, side: str) -> bytes:
    """The line that asks a relay to pair this connection."""
    return f"please relay {token} for side {side}\n".encode("ascii")


def parse_relay(text: str) -> tuple[str, int]:
    """``HOST`` or ``HOST:PORT`` (``[V6]:PORT``) as (host, port); port 4001 when none is given."""
    text = text.strip()
    host, port = text, DEFAULT_PORT
    if text.startswith("["):
        inside, _, rest = text[1:].partition("]")
        host = inside
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                raise LocalMisuseError(f"a relay is HOST or HOST:PORT, not {text!r}")
            port = int(rest[1:])
    elif text.count(":") == 1:
        host, _, digits = text.partition(":")
        if not digits.isdigit():
            raise LocalMisuseError(f"a relay is HOST or HOST:PORT, not {text!r}")
        port = int(digits)
    if not host or not 0 < port < 65536:
        raise LocalMisuseError(f"a relay is HOST or HOST:PORT (port 1 to 65535), not {text!r}")
    try:
        invite_codec.check_address(host)
    except invite_codec.InviteError as exc:
        raise LocalMisuseError(f"relay {text!r}: {exc}") from None
    return host, port


def relay_label(relay: tuple[str, int]) -> str:
    """A relay in words: ``relay HOST:PORT``."""
    return f"relay {hostport(*relay)}"


def acknowledge_at_once(stream: object) -> None:
    """Have the system acknowledge at once what ``stream``'s socket reads next, and what it has
    read and not yet acknowledged (Linux's TCP_QUICKACK; elsewhere nothing). The transit relay
    writes without TCP_NODELAY: a second small write of its waits until the first is
    acknowledged, and Linux puts an acknowledgement off for up to 40 ms when it expects to send
    data soon (a ping-pong exchange, as a match is). Linux goes back to delaying after our next
    write, so this is set again after every read (docs/performance.md, "through a relay")."""
    if not QUICKACK:
        return
    sock = getattr(stream, "socket", None)
    if sock is None:
        return
    with contextlib.suppress(OSError):  # (a socket closed meanwhile: its next read says so)
        sock.setsockopt(stdlib_socket.IPPROTO_TCP, stdlib_socket.TCP_QUICKACK, 1)


class Relayed(trio.abc.Stream):
    """A connection paired at a relay: the bytes the relay sent after ``ok`` come first. Each read
    is acknowledged at once (:func:`acknowledge_at_once`), so that the relay's next write does not
    wait for a delayed acknowledgement of ours."""

    def __init__(self, stream: trio.abc.Stream, relay: tuple[str, int], leftover: bytes = b"") -> None:
        self.stream = stream
        self.relay = relay
        self._leftover = leftover

    @property
    def socket(self) -> object:
        """The socket to the relay (a door counts relayed callers by the relay's address)."""
        return getattr(self.stream, "socket", None)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        if self._leftover:
            await trio.lowlevel.checkpoint()
            size = len(self._leftover) if max_bytes is None else max_bytes
            data, self._leftover = self._leftover[:size], self._leftover[size:]
            return data
        read = await self.stream.receive_some(max_bytes)
        acknowledge_at_once(self.stream)
        return read

    async def aclose(self) -> None:
        await self.stream.aclose()


def _keep_alive(stream: trio.abc.Stream) -> None:
    """TCP keepalive on a connection that may wait long in silence (a NAT's mapping kept)."""
    sock = getattr(stream, "socket", None)
    if sock is None:
        return
    try:
        sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_KEEPALIVE, 1)
        if hasattr(stdlib_socket, "TCP_KEEPIDLE"):
            sock.setsockopt(stdlib_socket.IPPROTO_TCP, stdlib_socket.TCP_KEEPIDLE, KEEPALIVE_S)
            sock.setsockopt(stdlib_socket.IPPROTO_TCP, stdlib_socket.TCP_KEEPINTVL, KEEPALIVE_S // 3)
            sock.setsockopt(stdlib_socket.IPPROTO_TCP, stdlib_socket.TCP_KEEPCNT, 3)
    except OSError:
        pass  # (a stream of a test, or a system without these: the relay's own keepalive holds)


async def pair(
    relay: tuple[str, int],
    token: str,
    *,
    opener: Opener = open_socket,
    side: str | None = None,
    gate: Callable[[float], Awaitable[None]] | None = None,
) -> Relayed:
    """A connection to ``relay`` paired with another under ``token``: it waits (for ever; the
    caller bounds it) until someone else names the token. ``gate`` is told the seconds the TCP
    connection took (a joiner's head start follows from it) before the request goes. RelayError
    says why not."""
    where = relay_label(relay)
    began = trio.current_time()
    try:
        stream, _ = await connect([relay], opener=opener)
    except ConnectError as exc:
        raise RelayError(f"{where} cannot be reached ({_unreachable(str(exc), CONNECT_TIMEOUT_S)})") from None
    try:
        _keep_alive(stream)
        if gate is not None:
            await gate(trio.current_time() - began)
        await stream.send_all(request(token, side or secrets.token_hex(8)))
        line = b""
        while b"\n" not in line:
            data = await stream.receive_some(MAX_LINE)
            if not data:
                raise RelayClosedError(f"{where} closed the connection before pairing it" + _said(line))
            line += data
            if len(line) > MAX_LINE and b"\n" not in line:
                raise RelayError(f"{where} is not a transit relay (it sent {line[:20]!r}...)")
        answer, _, leftover = line.partition(b"\n")
        if answer != b"ok":
            raise RelayError(f"{where} refused: {answer.decode('ascii', 'replace')[:40]!r}")
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        await trio.aclose_forcefully(stream)
        raise RelayError(f"{where}: the connection broke ({exc or type(exc).__name__})") from None
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return Relayed(stream, relay, leftover)


def _unreachable(text: str, connect_s: float) -> str:
    """Why a relay's TCP connection failed, in a few words (the reasons a host's would give are
    about the host)."""
    if "connection refused" in text:
        return "connection refused"
    if text.startswith("cannot find the host"):
        return "no such name"
    if "did not answer" in text or "timed out" in text:
        return f"no answer in {connect_s:g} s"
    inside = text.partition(" (")[2].partition("): ")[0]
    return inside or text


def exc_text(reason: str) -> str:
    """A failure's reason without the retry that follows it (said again only when it changes)."""
    return reason.split(";", maxsplit=1)[0]


def _said(line: bytes) -> str:
    return f" (it said {line.decode('ascii', 'replace')[:40]!r})" if line.strip() else ""


async def _first(event: trio.Event, nursery: trio.Nursery) -> None:
    """Wait for ``event``, then end ``nursery`` (whichever of its events comes first)."""
    await event.wait()
    nursery.cancel_scope.cancel()


async def probe(relay: tuple[str, int], *, within_s: float = 5.0, opener: Opener = open_socket) -> float:
    """Prove that ``relay`` pairs connections: two of ours under a fresh token, one byte through.
    Returns the seconds it took; RelayError says what is wrong."""
    token = secrets.token_hex(32)
    started = trio.current_time()
    paired: list[Relayed] = []
    failed: list[RelayError] = []
    try:
        with trio.fail_after(within_s):
            async with trio.open_nursery() as nursery:

                async def one(side: str) -> None:
                    try:
                        paired.append(await pair(relay, token, opener=opener, side=side))
                    except RelayError as exc:
                        failed.append(exc)
                        nursery.cancel_scope.cancel()

                nursery.start_soon(one, "a" * 16)
                nursery.start_soon(one, "b" * 16)
            if failed:
                raise failed[0]
            try:
                await paired[0].send_all(b"?")
                passed = await paired[1].receive_some(1)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                passed = b""
            if passed != b"?":
                raise RelayError(f"{relay_label(relay)} paired two connections but passed no byte")
    except trio.TooSlowError:
        raise RelayError(
            f"{relay_label(relay)} answers but did not pair two connections in {within_s:g} s: is it a "
            "transit relay (twist transitrelay)?"
        ) from None
    finally:
        for stream in paired:
            await trio.aclose_forcefully(stream)
    return trio.current_time() - started


# -- a host's side ------------------------------------------------------------------------------


@dataclass
class RelayKeeper:
    """Keeps one connection of a host waiting at ``relay`` under ``token``: each that pairs goes to
    ``arrived`` and the next is opened at once (after a pause once pairings come faster than
    :data:`MAX_PAIRINGS` in :data:`PAIRINGS_S`: a relay or a token holder that pairs and drops at
    once cannot keep the host busy). A relay that cannot be reached is called again after a
    growing pause (``say`` is told when it fails, and when it works again). ``side``: the host's,
    one for all its keepers (the same relay named twice never pairs the host with itself)."""

    relay: tuple[str, int]
    token: str
    say: Callable[[str], None]
    opener: Opener = open_socket
    side: str = field(default_factory=lambda: secrets.token_hex(8))
    paired: int = 0
    failures: int = 0
    _said: str = field(default="", repr=False)

    async def keep(self, arrived: Callable[[trio.abc.Stream], Awaitable[None]]) -> None:
        """Wait at the relay for ever, handing each caller paired to ``arrived``."""
        pause = BACKOFF_S[0]
        said_at = -math.inf
        recent: list[float] = []  # when the latest pairings came
        while True:
            now = trio.current_time()
            recent = [at for at in recent if now - at < PAIRINGS_S]
            if len(recent) >= MAX_PAIRINGS:
                await trio.sleep(PAIRINGS_S / MAX_PAIRINGS)
            try:
                stream = await pair(self.relay, self.token, opener=self.opener, side=self.side)
            except RelayClosedError:  # (two others paired under the token: wait there again)
                recent.append(trio.current_time())  # (a relay that only ever closes is slowed)
                await trio.sleep(0.05)
                continue
            except RelayError as exc:
                self.failures += 1
                now = trio.current_time()
                reason = f"{exc}; trying again in {pause:g} s"
                if exc_text(reason) != exc_text(self._said) or now - said_at >= SAY_AGAIN_S:
                    self.say(reason)
                    said_at = now
                self._said = reason
                await trio.sleep(pause)
                pause = min(pause * 2, BACKOFF_S[1])
                continue
            if self._said:
                self.say(f"{relay_label(self.relay)} works again: waiting there for callers")
                self._said = ""
            pause = BACKOFF_S[0]
            self.paired += 1
            recent.append(trio.current_time())
            await arrived(stream)
            del stream  # (not held while the next caller is awaited: it is the host's now)


class Entrance(trio.abc.Listener[trio.abc.Stream]):
    """A host's door onto everything it listens at: its TCP listener and its relays. The callers
    of each come out of :meth:`accept` in the order they arrived; :meth:`run` does the listening
    (in the host's nursery, for as long as the host is)."""

    def __init__(
        self, listener: trio.abc.Listener[trio.abc.Stream] | None, keepers: Sequence[RelayKeeper] = ()
    ) -> None:
        self.listener = listener
        self.keepers = list(keepers)
        self._send, self._receive = trio.open_memory_channel[trio.abc.Stream | OSError](BUFFERED)

    async def accept(self) -> trio.abc.Stream:
        item = await self._receive.receive()
        if isinstance(item, OSError):
            raise item  # (the listener's, for the door: out of descriptors is waited out there)
        return item

    async def run(self) -> None:
        """Listen at every source until cancelled."""
        async with trio.open_nursery() as nursery:
            if self.listener is not None:
                nursery.start_soon(self._listen, self.listener)
            for keeper in self.keepers:
                nursery.start_soon(keeper.keep, self._arrived)

    async def _arrived(self, stream: trio.abc.Stream) -> None:
        try:
            await self._send.send(stream)
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise

    async def _listen(self, listener: trio.abc.Listener[trio.abc.Stream]) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                await self._send.send(exc)
                await trio.sleep(0)  # (the door pauses before it accepts again)
                continue
            await self._arrived(stream)

    async def aclose(self) -> None:
        if self.listener is not None:
            await self.listener.aclose()
        while True:  # (callers still held: closed with the door)
            try:
                item = self._receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                break
            if not isinstance(item, OSError):
                await trio.aclose_forcefully(item)
        await self._receive.aclose()


# -- a joiner's side ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """How a joiner reached its host: ``where`` in words, and the relay it went through (None:
    direct); ``direct_failed``: every direct address had failed before the relay paired."""

    where: str
    relay: tuple[str, int] | None = None
    direct_failed: bool = False
    head_start_s: float = HEAD_START_S

    def words(self) -> str:
        """What the screen says of the route."""
        if self.relay is None:
            return f"connected to {self.where}"
        if self.direct_failed:
            why = "direct connection not possible"
        else:
            head = self.head_start_s
            took = f"{head * 1000:.0f} ms" if head < 1 else f"{head:.1f} s"
            why = f"no direct address answered within {took}"
        return f"connected through {relay_label(self.relay)} ({why})"


@dataclass(frozen=True)
class Way:
    """Everything a joiner knows of where its host is: its direct ``targets``, the ``relays`` it
    waits at and the ``token`` it waits under there (None: no relay to call at); and how to try
    them (each attempt's ``timeout_s``, the relays' ``head_start_s``, the ``stagger_s`` between
    attempts, and the ``opener`` of TCP connections)."""

    targets: Sequence[tuple[str, int]]
    relays: Sequence[tuple[str, int]] = ()
    token: str | None = None
    timeout_s: float = CONNECT_TIMEOUT_S
    head_start_s: float = HEAD_START_S
    stagger_s: float = STAGGER_S
    opener: Opener = open_socket

    async def reach(self, exclude: Collection[str] = ()) -> tuple[trio.abc.Stream, Route]:
        """A stream to the host: the first of the direct targets to connect (happy eyeballs) or
        of the relays to pair, a relay's pipe taken only after the head start (at once when
        every direct address failed). ``exclude``: routes not to try (``HOST:PORT``, or a
        relay's words) where another host answered. ConnectError says why none worked."""
        relays = [r for r in self.relays if relay_label(r) not in exclude] if self.token else []
        if not relays:
            stream, where = await connect(
                self.targets,
                timeout_s=self.timeout_s,
                stagger_s=self.stagger_s,
                opener=self.opener,
                exclude=exclude,
            )
            return stream, Route(where)
        race = _Race(self, relays, exclude)
        with trio.move_on_after(self.timeout_s + self.head_start_s):
            async with trio.open_nursery() as nursery:
                await race.run(nursery)
        if race.won:
            return race.won[0]
        raise ConnectError(race.failure())


def head_start(relay_rtt: float) -> float:
    """The direct routes' head start, from the start of their attempt, once the first relay's TCP
    connection took ``relay_rtt``: twice that plus the margin (:data:`HEAD_START_MARGIN_S`), within
    :data:`HEAD_START_FLOOR_S` and :data:`HEAD_START_S`."""
    margin = max(HEAD_START_MARGIN_S, relay_rtt / 4)
    return min(HEAD_START_S, max(HEAD_START_FLOOR_S, 2 * relay_rtt + margin))


@dataclass
class _Race:
    """One :meth:`Way.reach`: the direct routes and every relay at once; a pipe paired at a relay
    is taken only once the direct routes' head start is over; the first route through wins."""

    way: Way
    relays: list[tuple[str, int]]
    exclude: Collection[str]
    won: list[tuple[trio.abc.Stream, Route]] = field(default_factory=list)
    direct_error: list[ConnectError] = field(default_factory=list)
    relay_errors: dict[tuple[str, int], str] = field(default_factory=dict)
    direct_done: trio.Event = field(default_factory=trio.Event)
    opened: trio.Event = field(default_factory=trio.Event)  # the head start is over
    news: trio.Event = field(default_factory=trio.Event)  # a relay's round trip is known
    relay_rtt: float | None = None  # the first relay connection's TCP connect time
    head_start_s: float = 0.0  # as it came out
    attempt_began: float | None = None  # when the first direct TCP connection was begun
    handshaken: bool = False  # a direct TCP connection has completed its handshake

    async def run(self, nursery: trio.Nursery) -> None:
        began = trio.current_time()
        nursery.start_soon(self.direct, nursery)
        for relay in self.relays:
            nursery.start_soon(self.relayed, relay, nursery)
        with trio.move_on_at(began + self.way.head_start_s):
            while not self.direct_done.is_set():
                if self.relay_rtt is not None:
                    start = began if self.attempt_began is None else self.attempt_began
                    with trio.move_on_at(start + head_start(self.relay_rtt)):
                        await self.direct_done.wait()
                    break
                async with trio.open_nursery() as either:
                    either.start_soon(_first, self.direct_done, either)
                    either.start_soon(_first, self.news, either)
        self.head_start_s = trio.current_time() - began
        self.opened.set()

    async def direct(self, nursery: trio.Nursery) -> None:
        way = self.way

        async def opener(family: int, sockaddr: Any) -> trio.abc.Stream:
            if self.attempt_began is None:
                self.attempt_began = trio.current_time()
            stream = await way.opener(family, sockaddr)
            self.handshaken = True  # (connect returns it now: the relay's pipe is not taken)
            return stream

        try:
            stream, where = await connect(
                way.targets,
                timeout_s=way.timeout_s,
                stagger_s=way.stagger_s,
                opener=opener,
                exclude=self.exclude,
            )
        except ConnectError as exc:
            self.direct_error.append(exc)
            self.direct_done.set()
            return
        self.finish(nursery, stream, Route(where))

    async def relayed(self, relay: tuple[str, int], nursery: trio.Nursery) -> None:
        """Pair at ``relay`` at once, and take the pipe once the head start is over (a direct
        route that connects before that wins, and the pipe is closed)."""
        assert self.way.token is not None

        async def connected(took: float) -> None:
            if self.relay_rtt is None:
                self.relay_rtt = took
                self.news.set()
            await trio.lowlevel.checkpoint()

        while True:
            try:
                stream = await pair(relay, self.way.token, opener=self.way.opener, gate=connected)
                break
            except RelayClosedError:  # (another caller paired: call again, a moment later)
                await trio.sleep(random.uniform(0.05, 0.3))
            except RelayError as exc:
                self.relay_errors[relay] = str(exc)
                return
        try:
            await self.opened.wait()
            if self.handshaken:  # (the direct connection is on its way out of connect: it wins)
                await trio.sleep_forever()
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        route = Route(relay_label(relay), relay, self.direct_done.is_set(), self.head_start_s)
        self.finish(nursery, stream, route)

    def finish(self, nursery: trio.Nursery, stream: trio.abc.Stream, route: Route) -> None:
        if self.won:
            nursery.start_soon(trio.aclose_forcefully, stream)
            return
        self.won.append((stream, route))
        nursery.cancel_scope.cancel()

    def failure(self) -> str:
        """Why no route got through, each in a few words, then what to do (one line, with no
        ": " before the advice, so that a reconnecting joiner can show the reasons alone)."""
        timeout_s = self.way.timeout_s
        if self.direct_error:
            reasons = [str(self.direct_error[0]).split(": ", 1)[0]]
        else:
            reasons = [f"no direct address answered in {timeout_s:g} s"]
        for relay in self.relays:
            nobody = f"the host is not waiting at {relay_label(relay)} (nobody paired in {timeout_s:g} s)"
            reasons.append(self.relay_errors.get(relay, nobody).replace(": ", ", "))
        return "; ".join(reasons) + ": is the host still running? Ask it for a fresh invite"
