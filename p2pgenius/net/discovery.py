"""Matches on the local network: a host announces its match with DNS-SD over multicast DNS (the
``zeroconf`` package), and ``p2pgenius join`` with no address lists the matches it finds.

The service type is ``_p2pgenius._tcp.local.``; the TXT record says:

=========  ======================================================================
txtvers    1: the version of this record
proto      the channel protocol version the host speaks (``PROTOCOL_VERSION``)
game       the game
name       the host's name at the table
key        the host's whole public key, base32; a joiner pins exactly this key
seats      how many more peers the table takes
=========  ======================================================================

The fingerprint a joiner is shown is computed from ``key`` (never read from the record), so what
the host's ``p2pgenius id`` shows, read over the phone, tells a real match from a neighbour's fake
one, and joining it pins that key as an invite would.

zeroconf runs its own thread and asyncio loop; its blocking calls are made here in trio's worker
threads. An announcement that cannot be made (no multicast on this network, say) is reported in
one line and the host goes on: it never stops or waits for it.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import trio

from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import names
from p2pgenius.net.keystore import check_name
from p2pgenius.protocol.channel import PROTOCOL_VERSION
from p2pgenius.protocol.identity import fingerprint

if TYPE_CHECKING:
    from zeroconf import ServiceInfo, Zeroconf

SERVICE_TYPE: Final = "_p2pgenius._tcp.local."
TXT_VERSION: Final = "1"
LOOK_S: Final = 3.0
"""How long ``join`` listens for matches before it lists them."""
FOLLOW_S: Final = 0.5
"""How often a host's announcement is brought up to date (free seats; withdrawn at the start)."""
STOP_S: Final = 3.0
"""How long withdrawing an announcement may take on the way out."""
KEY_LEN: Final = 32
MAX_SEATS: Final = 16


class DiscoveryError(P2PGeniusError):
    """The local network cannot be searched (no multicast, say)."""


@dataclass(frozen=True, slots=True)
class Found:
    """A match announced on the local network."""

    game: str
    name: str
    key: bytes
    seats: int
    port: int
    addresses: tuple[str, ...]

    @property
    def fingerprint(self) -> str:
        """The host's fingerprint, computed from its key."""
        return fingerprint(self.key)

    def targets(self) -> list[tuple[str, int]]:
        """(address, port) to try, in the order announced."""
        return [(address, self.port) for address in self.addresses]

    def line(self) -> str:
        """The match in one line, for a list to choose from."""
        seats = f"{self.seats} seat{'s' if self.seats != 1 else ''} free" if self.seats else "table full"
        return f"{self.game}, hosted by {self.name}, fingerprint {self.fingerprint}, {seats}"


def txt_record(*, game: str, name: str, key: bytes, seats: int) -> dict[str, str]:
    """The TXT record announcing a match."""
    return {
        "txtvers": TXT_VERSION,
        "proto": str(PROTOCOL_VERSION),
        "game": game,
        "name": name,
        "key": base64.b32encode(key).decode("ascii").rstrip("=").lower(),
        "seats": str(seats),
    }


def read_service(info: ServiceInfo) -> Found | str:
    """The match a resolved service announces, checked; or why it cannot be joined."""
    raw = info.properties
    txt = {
        k.decode("utf-8", "replace"): v.decode("utf-8", "replace")
        for k, v in raw.items()
        if isinstance(k, bytes) and isinstance(v, bytes)
    }
    if txt.get("txtvers") != TXT_VERSION or txt.get("proto") != str(PROTOCOL_VERSION):
        return "it needs another version of p2pgenius"
    game = txt.get("game", "")
    if game not in names():
        return "it is for a game this p2pgenius does not have"
    try:
        name = check_name(txt.get("name"))
    except LocalMisuseError:
        return "its host name is malformed"
    code = txt.get("key", "")
    try:
        key = base64.b32decode(code.upper() + "=" * (-len(code) % 8))
    except binascii.Error:
        key = b""
    if len(key) != KEY_LEN:
        return "its key is malformed"
    seats = txt.get("seats", "")
    if not (seats.isdigit() and int(seats) <= MAX_SEATS):
        return "its number of free seats is malformed"
    if not (info.port and 0 < info.port < 65536):
        return "it has no port"
    addresses = tuple(a for a in info.parsed_scoped_addresses() if not _unscoped_link_local(a))
    if not addresses:
        return "it has no address"
    return Found(game, name, key, int(seats), info.port, addresses)


def _unscoped_link_local(address: str) -> bool:
    return address.lower().startswith("fe80:") and "%" not in address


def _quiet() -> None:
    """zeroconf logs its network troubles; the caller says them in its own words."""
    library = logging.getLogger("zeroconf")
    if not library.handlers:
        library.addHandler(logging.NullHandler())
        library.propagate = False


def _zeroconf(interfaces: Sequence[str] | None) -> Zeroconf:
    _quiet()
    from zeroconf import InterfaceChoice, Zeroconf  # noqa: PLC0415  (only when it is needed)

    return Zeroconf(interfaces=list(interfaces) if interfaces else InterfaceChoice.All, use_asyncio=False)


# -- announcing ---------------------------------------------------------------------------------


class Announcement:
    """One match announced on the local network. The methods block (run them in a thread)."""

    def __init__(
        self,
        *,
        game: str,
        name: str,
        key: bytes,
        port: int,
        addresses: Sequence[str],
        seats: int,
        interfaces: Sequence[str] | None = None,
    ) -> None:
        self.game, self.name, self.key, self.port = game, name, key, port
        self.addresses = list(addresses)
        self.seats = seats
        self.interfaces = interfaces
        self.instance = instance_name(name, game)
        self._zeroconf: Zeroconf | None = None
        self._info: ServiceInfo | None = None
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def active(self) -> bool:
        """Whether the match is announced now."""
        return self._zeroconf is not None

    def start(self) -> None:
        """Open the multicast sockets and announce (the probing takes a second or two)."""
        zeroconf = _zeroconf(self.interfaces)
        info = self._info_for(self.seats)
        try:
            zeroconf.register_service(info, allow_name_change=True)
        except BaseException:
            zeroconf.close()
            raise
        with self._lock:
            if not self._stopped:
                self._zeroconf, self._info = zeroconf, info
                self.instance = info.name.removesuffix(f".{SERVICE_TYPE}")
                return
        zeroconf.unregister_all_services()  # stopped while it was starting
        zeroconf.close()

    def _info_for(self, seats: int) -> ServiceInfo:
        from zeroconf import ServiceInfo  # noqa: PLC0415

        fp = fingerprint(self.key).replace("-", "").lower()[:8]
        return ServiceInfo(
            SERVICE_TYPE,
            f"{self.instance}.{SERVICE_TYPE}",
            port=self.port,
            properties=txt_record(game=self.game, name=self.name, key=self.key, seats=seats),
            server=f"p2pgenius-{fp}-{self.port}.local.",
            parsed_addresses=self.addresses,
        )

    def update(self, seats: int) -> None:
        """Announce a new number of free seats."""
        with self._lock:
            zeroconf = self._zeroconf
        if zeroconf is None or seats == self.seats:
            return
        self.seats = seats
        info = self._info_for(seats)
        zeroconf.update_service(info)
        self._info = info

    def stop_soon(self) -> None:
        """Withdraw as soon as a start under way is done (it was abandoned)."""
        with self._lock:
            self._stopped = True

    def stop(self) -> None:
        """Withdraw the announcement (a goodbye to every listener) and close."""
        with self._lock:
            self._stopped = True
            zeroconf, self._zeroconf = self._zeroconf, None
        if zeroconf is not None:
            try:
                zeroconf.unregister_all_services()
            finally:
                zeroconf.close()


def instance_name(name: str, game: str) -> str:
    """The service's instance name: who hosts what, at most 63 bytes, no dots."""
    text = f"{name} - {game}".replace(".", " ")
    while len(text.encode("utf-8")) > 63:
        text = text[:-1]
    return text


async def announce(
    announcement: Announcement, state: Callable[[], tuple[int, bool]], say: Callable[[str], None]
) -> None:
    """Announce, follow ``state()`` (free seats, whether the match started: then withdraw), and
    withdraw when cancelled. Never raises: without multicast it says so and returns."""
    try:
        await trio.to_thread.run_sync(announcement.start, abandon_on_cancel=True)
    except Exception as exc:  # zeroconf's own errors, OSError, RuntimeError: all "not here"
        say(f"not announced on the local network ({_why(exc)}); joiners need the invite")
        return
    except trio.Cancelled:
        announcement.stop_soon()
        raise
    say(
        f'announced on the local network as "{announcement.instance}": '
        "there, p2pgenius join (with no address) lists it"
    )
    try:
        while True:
            seats, started = state()
            if started:
                break
            if seats != announcement.seats:
                try:
                    await trio.to_thread.run_sync(announcement.update, seats, abandon_on_cancel=True)
                except Exception as exc:  # as above
                    say(f"the local network announcement stopped ({_why(exc)}); joiners need the invite")
                    return
            await trio.sleep(FOLLOW_S)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(STOP_S):
            await trio.to_thread.run_sync(_stop_quietly, announcement, abandon_on_cancel=True)


def _stop_quietly(announcement: Announcement) -> None:
    """Withdraw; a goodbye that cannot be sent is no matter (the records expire by themselves)."""
    with contextlib.suppress(Exception):
        announcement.stop()


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


# -- looking ------------------------------------------------------------------------------------


def look(
    seconds: float = LOOK_S, *, first: bool = False, interfaces: Sequence[str] | None = None
) -> tuple[list[Found], list[str]]:
    """The matches announced on the local network within ``seconds`` (``first``: as soon as one
    is found), and why others cannot be joined. Blocks (run it in a thread)."""
    from zeroconf import ServiceBrowser, ServiceStateChange  # noqa: PLC0415

    try:
        zeroconf = _zeroconf(interfaces)
    except Exception as exc:  # zeroconf's own errors, OSError, RuntimeError
        raise DiscoveryError(
            f"cannot look for matches on the local network ({_why(exc)}): ask the host for an invite"
        ) from None
    found: list[Found] = []
    unusable: list[str] = []
    try:
        added: queue.Queue[str] = queue.Queue()

        def changed(**event: Any) -> None:
            if event["state_change"] is ServiceStateChange.Added:
                added.put(event["name"])

        browser = ServiceBrowser(zeroconf, SERVICE_TYPE, handlers=[changed])
        try:
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0 and not (first and found):
                try:
                    name = added.get(timeout=left)
                except queue.Empty:
                    break
                try:
                    info = zeroconf.get_service_info(SERVICE_TYPE, name, timeout=int(max(left, 0.5) * 1000))
                    match = read_service(info) if info is not None else "it did not answer"
                except Exception:  # whatever a neighbour's malformed records make zeroconf raise
                    match = "its announcement is malformed"
                if isinstance(match, Found):
                    found.append(match)
                else:
                    unusable.append(f"{name.removesuffix('.' + SERVICE_TYPE)}: {match}")
        finally:
            browser.cancel()
    finally:
        zeroconf.close()
    return found, unusable


async def find(
    seconds: float = LOOK_S, *, first: bool = False, interfaces: Sequence[str] | None = None
) -> tuple[list[Found], list[str]]:
    """:func:`look`, from trio."""
    return await trio.to_thread.run_sync(
        lambda: look(seconds, first=first, interfaces=interfaces), abandon_on_cancel=True
    )
