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

Anyone on the network can announce any name, and the first to announce takes the plain instance
name (``alice - duel``; zeroconf renames a later one ``alice - duel-2``, and joiners are shown the
record's name, never that). So neither the instance name nor the order of announcement says which
match is the real one: the joiner's pins do (:func:`standing`). A match whose name and key are
both pinned comes first; one whose name is pinned to another key is marked, listed last and never
joined (a join by address or invite is refused the same way).

zeroconf runs its own thread and asyncio loop; its blocking calls are made here in trio's worker
threads. An announcement that cannot be made (no multicast on this network, say) is reported in
one line and the host goes on: it never stops or waits for it.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import enum
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import trio

from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import names
from p2pgenius.net.keystore import check_name
from p2pgenius.protocol.channel import PROTOCOL_VERSION
from p2pgenius.protocol.identity import PUBLIC_LEN as KEY_LEN
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
MAX_SEATS: Final = 16
MAX_ANNOUNCEMENTS: Final = 64
"""Announced matches one look reads, at most; any more are passed over and counted (a neighbour
announcing thousands would fill the queue, the list and the look's time)."""


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


class Standing(enum.Enum):
    """How a found match's announced name and key stand against this player's pinned keys, in
    the order matches are offered: the first one ``join --first`` can take is the one it takes."""

    PINNED = "pinned"
    """The name is pinned to exactly this key: the player met before."""
    NEW = "new"
    """Neither the name nor the key is pinned: only the fingerprint, compared, tells."""
    KNOWN = "known key"
    """The key is pinned, but under another name only: a player met before, now named otherwise.
    Offered after NEW: a peer met before is no likelier than a stranger to be the player whose
    name it announces, and may be borrowing it."""
    ANOTHER_KEY = "another key"
    """The name is pinned to another key: an impostor, or the real player on a new machine."""


HEADINGS: Final = {
    Standing.PINNED: "pinned: you have played them before, with this same key",
    Standing.NEW: "new: you have not played them before; compare the fingerprint with theirs",
    Standing.KNOWN: "known key, new name: you played this key before, under the name in brackets",
    Standing.ANOTHER_KEY: "another key! the name is pinned to another key: an impostor, or a new machine?",
}
"""What a listing says above the matches of each standing (words for someone who has never
heard of pins; each line fits 80 columns)."""


def pinned_key(match: Found, pins: Mapping[bytes, str]) -> bytes | None:
    """The key other than the announced one that the match's name is pinned to, if any."""
    return next((key for key, name in sorted(pins.items()) if name == match.name and key != match.key), None)


def standing(match: Found, pins: Mapping[bytes, str]) -> Standing:
    """How ``match`` stands against ``pins`` (key -> the name it was admitted under). A name
    pinned to another key outranks a key pinned under another name: a peer met before as
    mallory who announces as alice, pinned to another key, is no less an impostor for it."""
    if pins.get(match.key) == match.name:
        return Standing.PINNED
    if pinned_key(match, pins) is not None:
        return Standing.ANOTHER_KEY
    return Standing.KNOWN if match.key in pins else Standing.NEW


def preferred(found: Sequence[Found], pins: Mapping[bytes, str]) -> list[Found]:
    """``found`` in the order to offer it (:class:`Standing`'s), each standing as announced. A
    neighbour who announces first must not come first for it."""
    order = list(Standing)
    return sorted(found, key=lambda match: order.index(standing(match, pins)))


def told(match: Found, pins: Mapping[bytes, str]) -> str:
    """How one match's host stands against the pins, in words (one short line)."""
    name, where = match.name, standing(match, pins)
    if where is Standing.PINNED:
        return f"pinned: the key {name} had when you last played"
    if where is Standing.ANOTHER_KEY:
        return f"another key! not the one {name} had when you last played: an impostor?"
    if where is Standing.KNOWN:
        return f"known key: it played as {pins[match.key]} before, not as {name}"
    return f"new: you have not played {name} before; compare the fingerprint"


def bracket(match: Found, pins: Mapping[bytes, str]) -> str:
    """What a listing adds under a match of a doubtful standing ("" for the others): the name
    its key played under, or the key its name is pinned to."""
    where = standing(match, pins)
    if where is Standing.KNOWN:
        return f"(it played as {pins[match.key]})"
    if where is Standing.ANOTHER_KEY:
        old = pinned_key(match, pins)
        assert old is not None
        return f"({match.name}'s pinned key is {fingerprint(old)})"
    return ""


def changed_key(match: Found, pins: Mapping[bytes, str]) -> str:
    """Why a match whose name is pinned to another key is not joined, in the words a join by
    address uses for the same refusal (:func:`p2pgenius.net.keystore.check_known`)."""
    old = pinned_key(match, pins)
    assert old is not None
    return (
        f"the key of peer {match.name!r} has changed: pinned {fingerprint(old)}, announced "
        f"{match.fingerprint}. Someone may be impersonating {match.name!r}; if the peer really has "
        "a new key, remove it from known_peers and look again"
    )


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
    """One match announced on the local network: ``match``, as those who look will find it (its
    free seats as they are now), announced on ``interfaces`` (None: all of them). The methods
    block (run them in a thread)."""

    def __init__(self, match: Found, *, interfaces: Sequence[str] | None = None) -> None:
        self.game, self.name, self.key, self.port = match.game, match.name, match.key, match.port
        self.addresses = list(match.addresses)
        self.seats = match.seats
        self.interfaces = interfaces
        self.instance = instance_name(self.name, self.game)
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
    plain = instance_name(announcement.name, announcement.game)
    if announcement.instance != plain:
        # The name was taken first: maybe by another match of this player's, maybe by a neighbour
        # using it. Joiners are shown the name and fingerprint, never "-2": the host is told.
        say(
            f'"{plain}" was announced first by another match (yours, or someone using your name): '
            "joiners must check your fingerprint"
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
    seconds: float = LOOK_S,
    *,
    first: bool = False,
    until: Callable[[Found], bool] | None = None,
    interfaces: Sequence[str] | None = None,
) -> tuple[list[Found], list[str]]:
    """The matches announced on the local network within ``seconds`` (``first``: as soon as one
    is found; ``until``: as soon as one it says yes to is), and why others cannot be joined.
    Blocks (run it in a thread)."""
    from zeroconf import ServiceBrowser, ServiceStateChange  # noqa: PLC0415

    enough = until or (lambda match: first)

    try:
        zeroconf = _zeroconf(interfaces)
    except Exception as exc:  # zeroconf's own errors, OSError, RuntimeError
        raise DiscoveryError(
            f"cannot look for matches on the local network ({_why(exc)}): ask the host for an invite"
        ) from None
    added: queue.Queue[str] = queue.Queue(MAX_ANNOUNCEMENTS)
    passed_over = [0]  # (zeroconf's thread counts; read once it has stopped)

    def changed(**event: Any) -> None:
        if event["state_change"] is ServiceStateChange.Added:
            try:
                added.put_nowait(event["name"])
            except queue.Full:
                passed_over[0] += 1

    try:
        browser = ServiceBrowser(zeroconf, SERVICE_TYPE, handlers=[changed])
        try:
            found, unusable = _read(zeroconf, added, time.monotonic() + seconds, enough)
        finally:
            browser.cancel()
    finally:
        zeroconf.close()
    more = passed_over[0] + (added.qsize() if len(found) + len(unusable) >= MAX_ANNOUNCEMENTS else 0)
    if more:
        unusable.append(f"{more} more matches announced: only the first {MAX_ANNOUNCEMENTS} are read")
    return found, unusable


def _read(
    zeroconf: Zeroconf, added: queue.Queue[str], deadline: float, enough: Callable[[Found], bool]
) -> tuple[list[Found], list[str]]:
    """The matches ``added`` names, each read in turn, until ``deadline`` (``time.monotonic``),
    until ``enough`` says yes to one, or until ``MAX_ANNOUNCEMENTS`` are read; and why the others
    read cannot be joined."""
    found: list[Found] = []
    unusable: list[str] = []
    while len(found) + len(unusable) < MAX_ANNOUNCEMENTS and (left := deadline - time.monotonic()) > 0:
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
            if enough(match):
                break
        else:
            unusable.append(f"{name.removesuffix('.' + SERVICE_TYPE)}: {match}")
    return found, unusable


async def find(
    seconds: float = LOOK_S,
    *,
    first: bool = False,
    until: Callable[[Found], bool] | None = None,
    interfaces: Sequence[str] | None = None,
) -> tuple[list[Found], list[str]]:
    """:func:`look`, from trio."""
    return await trio.to_thread.run_sync(
        lambda: look(seconds, first=first, until=until, interfaces=interfaces), abandon_on_cancel=True
    )
