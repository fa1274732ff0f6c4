"""A small NIP-01 client on trio: one WebSocket to one Nostr relay, to publish events and to
subscribe to them (why not an asyncio library: docs/architecture.md, "Nostr relays").

A relay is an untrusted carrier. Every frame it sends is read by
:func:`p2pgenius.protocol.nostr_frames.parse_relay_message` (strict JSON, NIP-01's shapes, each
event's id and signature checked); a frame that is not one, too long, an event no subscription of
ours asked for or that matches none of its filters, an ``OK`` for an event we did not publish: each
is dropped and counted in :attr:`Relay.dropped`, never raised, and the connection goes on. What a
relay can still do is say nothing, refuse, or go away: a wait has a timeout on trio's clock and
ends in a :class:`RelayError`, and a caller publishes to several relays and reads from all.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import ssl
import urllib.parse
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Final

import trio
import trio_websocket

from p2pgenius.errors import P2PGeniusError, shown
from p2pgenius.protocol.nostr import Event
from p2pgenius.protocol.nostr_frames import (
    Closed,
    EndOfStored,
    Filter,
    Malformed,
    Notice,
    Ok,
    Received,
    RelayMessage,
    close_message,
    event_message,
    matches_any,
    parse_relay_message,
    req_message,
)

MAX_FRAME_CHARS: Final = 262_144
"""The longest frame read: an event of the longest content we take, with its tags, fits twice.
A longer one is dropped (and counted) and the connection goes on."""
HARD_FRAME_CHARS: Final = 1_048_576
"""The longest frame the WebSocket layer buffers at all: past it, it closes the connection (a
relay that sends megabytes is not one to keep reading)."""
CONNECT_S: Final = 10.0
"""How long a connection (TCP, TLS, the WebSocket handshake) may take."""
CLOSE_S: Final = 2.0
"""How long closing waits for the relay's half of the closing handshake."""
OK_S: Final = 10.0
"""How long a publication waits for the relay's ``OK``."""
QUEUE: Final = 64
"""The events a subscription holds for a caller that reads slower than the relay sends: past it,
the connection's reader waits (so TCP slows the relay): nothing is dropped for being early."""
NOTICES: Final = 32
"""The newest notices kept."""

Item = Received | EndOfStored | Closed
"""What a subscription gives: a checked event, the end of the stored ones, or its end."""


class RelayError(P2PGeniusError):
    """A relay that could not be reached, went away, or did not answer in time (one line, with
    its URL): the caller goes on with its other relays."""


@dataclass
class Dropped:
    """The frames a relay sent that were dropped, by why."""

    counts: collections.Counter[str] = field(default_factory=collections.Counter)

    def add(self, why: str) -> None:
        """Count one more frame dropped for ``why``."""
        self.counts[why] += 1

    @property
    def total(self) -> int:
        """Every frame dropped."""
        return sum(self.counts.values())


OVERSIZED: Final = "oversized"
UNASKED: Final = "unasked"
"""An event, end of stored events or closing for no open subscription, or an OK for no event
we are publishing."""
UNMATCHED: Final = "unmatched"
"""An event for one of our subscriptions that matches none of its filters."""


@dataclass
class _Publishing:
    """A publication waiting for its OK."""

    done: trio.Event = field(default_factory=trio.Event)
    ok: Ok | None = None


@dataclass
class _Subscribed:
    """An open subscription, as the reader sees it."""

    filters: tuple[Filter, ...]
    send: trio.MemorySendChannel[Item]


class Relay:
    """One open connection to one relay (made by :func:`connect`)."""

    def __init__(self, url: str, socket: trio_websocket.WebSocketConnection) -> None:
        self.url = url
        self.dropped = Dropped()
        self.notices: collections.deque[Notice] = collections.deque(maxlen=NOTICES)
        self._socket = socket
        self._publishing: dict[str, _Publishing] = {}
        self._subscribed: dict[str, _Subscribed] = {}
        self._ended: set[str] = set()
        self.late = 0
        """Frames for a subscription we had closed: in flight when we closed it, or the relay's
        ``CLOSED`` in answer (not counted as dropped: nothing is wrong with them)."""
        self._numbers = itertools.count(1)
        self._gone: str | None = None
        self._went = trio.Event()

    @property
    def gone(self) -> str | None:
        """Why the connection ended (None while it is open)."""
        return self._gone

    async def publish(self, event: Event, *, timeout_s: float = OK_S) -> Ok:
        """Send ``event`` and wait for the relay's ``OK``: whether it took it, and its words."""
        waiting = self._publishing.setdefault(event.id, _Publishing())  # (before the OK can come)
        try:
            await self._send(event_message(event))
            with trio.move_on_after(timeout_s):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._cancel_when_gone, nursery.cancel_scope)
                    await waiting.done.wait()
                    nursery.cancel_scope.cancel()
        finally:
            self._publishing.pop(event.id, None)
        if waiting.ok is not None:
            return waiting.ok
        if self._gone is not None:
            raise self.failure(f"the connection ended before an OK for event {event.id[:16]}...")
        raise self.failure(f"no OK for event {event.id[:16]}... within {timeout_s:g} s")

    @asynccontextmanager
    async def subscribe(self, filters: Sequence[Filter]) -> AsyncIterator[Subscription]:
        """A subscription (``REQ``) while the block runs, closed (``CLOSE``) when it ends."""
        subscription = f"p2pg-{next(self._numbers)}"
        send, receive = trio.open_memory_channel[Item](QUEUE)
        self._subscribed[subscription] = _Subscribed(tuple(filters), send)
        try:
            await self._send(req_message(subscription, filters))
            yield Subscription(self, subscription, receive)
        finally:
            taken = self._subscribed.pop(subscription, None)
            self._ended.add(subscription)
            send.close()
            receive.close()
            if taken is not None and self._gone is None:
                with trio.move_on_after(CLOSE_S), contextlib.suppress(RelayError):
                    await self._send(close_message(subscription))

    async def fetch(
        self, filters: Sequence[Filter], *, timeout_s: float = OK_S, max_events: int | None = None
    ) -> Fetched:
        """The stored events that match ``filters``: those sent until ``EOSE`` (``complete``), or
        until the relay closed the subscription, the time ran out or ``max_events`` came (not
        complete); a :class:`RelayError` if the connection ends meanwhile."""
        events: list[Event] = []
        closed: Closed | None = None
        complete = False
        async with self.subscribe(filters) as subscription:
            with trio.move_on_after(timeout_s):
                async for item in subscription:
                    if isinstance(item, Received):
                        events.append(item.event)
                        if max_events is not None and len(events) >= max_events:
                            break
                    elif isinstance(item, EndOfStored):
                        complete = True
                        break
                    else:
                        closed = item
        return Fetched(tuple(events), complete, closed)

    async def _send(self, text: str) -> None:
        """One frame to the relay; a connection gone is a :class:`RelayError`."""
        if self._gone is not None:
            raise self.failure("the connection is closed")
        try:
            await self._socket.send_message(text)
        except trio_websocket.ConnectionClosed as closed:
            self._end(f"closed by the relay ({_closing(closed)})")
            raise self.failure("the connection is closed") from None

    async def _cancel_when_gone(self, scope: trio.CancelScope) -> None:
        await self._went.wait()
        scope.cancel()

    def failure(self, what: str) -> RelayError:
        """The error that says ``what`` went wrong with this relay, and why it went, if it did."""
        why = f" ({self._gone})" if self._gone else ""
        return RelayError(f"relay {shown(self.url)}: {what}{why}")

    def _end(self, why: str) -> None:
        """The connection ended: every subscription and publication waiting learns it."""
        if self._gone is None:
            self._gone = why
            self._went.set()
        for subscribed in self._subscribed.values():
            subscribed.send.close()

    async def read(self) -> None:
        """The connection's one reader: every frame parsed, dispatched or dropped and counted,
        until the relay closes the connection."""
        try:
            while True:
                message = await self._socket.get_message()
                if len(message) > MAX_FRAME_CHARS:
                    self.dropped.add(OVERSIZED)
                    continue
                await self._take(parse_relay_message(message))
        except trio_websocket.ConnectionClosed as closed:
            if closed.reason is not None and closed.reason.code == 1009:
                self.dropped.add(OVERSIZED)
            self._end(f"closed: {_closing(closed)}")

    async def _take(self, message: RelayMessage | Malformed) -> None:
        """One parsed frame, to whoever waits for it."""
        if isinstance(message, Malformed):
            self.dropped.add(message.flaw.name.lower())
        elif isinstance(message, Notice):
            self.notices.append(message)
        elif isinstance(message, Ok):
            waiting = self._publishing.get(message.event_id)
            if waiting is None or waiting.done.is_set():
                self.dropped.add(UNASKED)
                return
            waiting.ok = message
            waiting.done.set()
        else:
            await self._to_subscription(message)

    async def _to_subscription(self, message: Item) -> None:
        """An event, an end of stored events or a closing, to its subscription (or dropped)."""
        subscribed = self._subscribed.get(message.subscription)
        if subscribed is None and message.subscription in self._ended:
            self.late += 1
            return
        if subscribed is None:
            self.dropped.add(UNASKED)
            return
        if isinstance(message, Received) and not matches_any(subscribed.filters, message.event):
            self.dropped.add(UNMATCHED)
            return
        if isinstance(message, Closed):
            del self._subscribed[message.subscription]
            self._ended.add(message.subscription)
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await subscribed.send.send(message)  # (suppressed: its reader left, it is being closed)
        if isinstance(message, Closed):
            subscribed.send.close()


class Subscription:
    """An open subscription: iterate it for its events, its ``EOSE`` and its ``CLOSED``; the
    iteration ends after ``CLOSED`` and raises :class:`RelayError` if the connection ends."""

    def __init__(self, relay: Relay, ident: str, receive: trio.MemoryReceiveChannel[Item]) -> None:
        self.relay = relay
        self.id = ident
        self._receive = receive

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Item:
        try:
            return await self._receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            if self.relay.gone is not None:
                raise self.relay.failure(f"subscription {self.id} ended") from None
            raise StopAsyncIteration from None


@dataclass(frozen=True, slots=True)
class Fetched:
    """What :meth:`Relay.fetch` got: the events, whether the relay said it sent all it stores,
    and its closing, if it closed the subscription."""

    events: tuple[Event, ...]
    complete: bool
    closed: Closed | None


@asynccontextmanager
async def connect(
    url: str, *, timeout_s: float = CONNECT_S, ssl_context: ssl.SSLContext | None = None
) -> AsyncIterator[Relay]:
    """A connection to the relay at ``url`` (``ws://`` or ``wss://``, TLS with the system's
    certificates unless given ``ssl_context``), open while the block runs. The block's own
    exception comes out as it was raised (not in a group), and a relay that does not close
    politely is left behind after :data:`CLOSE_S`."""
    if not url.startswith(("ws://", "wss://")):
        raise RelayError(f"a relay's address is a ws:// or wss:// URL, not {shown(url)}")
    opening = trio_websocket.open_websocket_url(
        url,
        ssl_context,
        max_message_size=HARD_FRAME_CHARS,
        connect_timeout=timeout_s,
        disconnect_timeout=CLOSE_S,
    )
    if url.startswith("wss://"):
        await _check_tls(url, timeout_s, ssl_context)
    failure: BaseException | None = None
    try:
        async with opening as socket, trio.open_nursery() as nursery:
            relay = Relay(url, socket)
            nursery.start_soon(relay.read)
            try:
                yield relay
            except BaseException as error:  # (raised again below, out of the nursery's group)
                failure = error
            nursery.cancel_scope.cancel()
    except trio_websocket.DisconnectionTimeout:
        pass  # (the relay did not answer our closing: we are done with it all the same)
    except (trio_websocket.HandshakeError, OSError, ValueError) as error:
        why = shown(str(error) or type(error).__name__)
        raise RelayError(f"relay {shown(url)}: cannot connect ({why})") from None
    if failure is not None:
        raise failure


async def _check_tls(url: str, timeout_s: float, ssl_context: ssl.SSLContext | None) -> None:
    """A TLS handshake with the relay on a connection of its own, closed at once: one that fails
    is a :class:`RelayError` that says why (trio-websocket 0.12 waits out its whole timeout and
    says only ``ConnectionTimeout`` when a certificate does not verify)."""
    parts = urllib.parse.urlsplit(url)
    context = ssl_context or ssl.create_default_context()
    try:
        with trio.fail_after(timeout_s):
            stream = await trio.open_ssl_over_tcp_stream(
                parts.hostname or "", parts.port or 443, ssl_context=context, https_compatible=True
            )
            try:
                await stream.do_handshake()
            finally:
                await trio.aclose_forcefully(stream)
    except (OSError, trio.BrokenResourceError, trio.TooSlowError, ValueError) as error:
        raise RelayError(f"relay {shown(url)}: cannot connect (TLS: {_tls_failure(error)})") from None


def _tls_failure(error: BaseException) -> str:
    """Why a TLS handshake failed, in OpenSSL's few words (its whole line is long): a certificate's
    flaw, the alert, or the error."""
    cause = error.__cause__ if isinstance(error.__cause__, ssl.SSLError) else error
    if isinstance(cause, ssl.SSLCertVerificationError):
        return f"certificate verify failed: {str(cause.verify_message)[:80]}"
    if isinstance(cause, ssl.SSLError) and cause.reason:
        return str(cause.reason)[:80]
    return shown(str(cause) or type(cause).__name__)


def _closing(closed: trio_websocket.ConnectionClosed) -> str:
    """A closing's code and reason, in words."""
    reason = closed.reason
    if reason is None:
        return "no reason given"
    return f"{reason.code} {reason.name}" + (f": {shown(reason.reason)}" if reason.reason else "")
