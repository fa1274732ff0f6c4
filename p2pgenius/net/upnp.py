"""A port forwarded on the home router with UPnP IGD, for as long as a host runs.

``host --upnp`` asks the router (an Internet Gateway Device) to forward its TCP port from the
internet to this machine, reads the router's public address for the invite, renews the mapping
while the host runs (it is leased for ``LEASE_S``, so a host that dies leaves nothing open for
long) and removes it on the way out.

The library is async-upnp-client rather than miniupnpc: it is pure Python with type hints, has
frequent releases (it is what Home Assistant's UPnP integration runs on), and lets us aim the
SSDP search and read the device description ourselves, so the tests drive it against a fake
router on loopback. miniupnpc is a C library with a thin, untyped Python binding that only
searches by multicast. async-upnp-client runs on asyncio: each call here runs its own asyncio
loop in a worker thread (``trio.to_thread.run_sync``), and aiohttp, which it needs, is imported
only then.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import urllib.parse
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypeVar

import trio

from p2pgenius.errors import P2PGeniusError

if TYPE_CHECKING:
    from async_upnp_client.client import UpnpService

SEARCH_S: Final = 3.0
"""How long to wait for a router to answer the search."""
REQUEST_S: Final = 5
"""How long one request to the router may take."""
LEASE_S: Final = 3600
"""How long the router keeps a mapping unless it is renewed (renewed at half of it)."""
DESCRIPTION: Final = "p2pgenius"
SSDP_TARGET: Final = ("239.255.255.250", 1900)
GATEWAYS: Final = (
    "urn:schemas-upnp-org:device:InternetGatewayDevice:1",
    "urn:schemas-upnp-org:device:InternetGatewayDevice:2",
)
CONNECTIONS: Final = (
    "urn:schemas-upnp-org:service:WANIPConnection:2",
    "urn:schemas-upnp-org:service:WANIPConnection:1",
    "urn:schemas-upnp-org:service:WANPPPConnection:1",
)
NOT_PUBLIC: Final = (
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",  # carrier-grade NAT (RFC 6598)
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.168.0.0/16",
)
ONLY_PERMANENT: Final = 725  # OnlyPermanentLeasesSupported
CONFLICT: Final = 718  # ConflictInMappingEntry

T = TypeVar("T")


class UpnpError(P2PGeniusError):
    """No mapping: no router answered, or it refused; the message says which, in words."""


@dataclass
class PortMapping:
    """A port the router forwards to this machine."""

    router: str
    external_ip: str | None
    port: int
    internal_client: str
    lease_s: int
    service: UpnpService = field(repr=False)

    @property
    def public(self) -> str | None:
        """The router's public address; None if it has none, or if its address is itself a private
        or carrier-grade NAT one (another NAT is in front of it, and the mapping does not help)."""
        if not self.external_ip:
            return None
        try:
            ip = ipaddress.ip_address(self.external_ip)
        except ValueError:
            return None
        if ip.version != 4 or any(ip in ipaddress.ip_network(net) for net in NOT_PUBLIC):
            return None
        return self.external_ip


async def open_port(
    port: int,
    *,
    search_s: float | None = None,
    target: tuple[str, int] | None = None,
    lease_s: int = LEASE_S,
) -> PortMapping:
    """Find the router (an SSDP search at ``target``, by default the multicast group every router
    listens to, for ``search_s``, by default ``SEARCH_S``) and have it forward TCP ``port`` here."""
    aim, wait = target or SSDP_TARGET, search_s or SEARCH_S
    return await _in_asyncio(lambda: _open(port, search_s=wait, target=aim, lease_s=lease_s))


async def renew(mapping: PortMapping) -> None:
    """Ask for the mapping again (the lease starts over)."""
    await _in_asyncio(lambda: _add(mapping.service, mapping.port, mapping.internal_client, mapping.lease_s))


async def close_port(mapping: PortMapping) -> None:
    """Remove the mapping (UpnpError if the router says no or does not answer)."""
    await _in_asyncio(lambda: _delete(mapping.service, mapping.port))


async def keep(mapping: PortMapping, say: Callable[[str], None]) -> None:
    """Renew a leased mapping at half its lease, for ever (until cancelled)."""
    if mapping.lease_s == 0:
        return  # the router only keeps permanent mappings: nothing to renew
    while True:
        await trio.sleep(mapping.lease_s / 2)
        try:
            await renew(mapping)
        except UpnpError as exc:
            say(f"UPnP: the router did not renew port {mapping.port}: {exc}")


async def _in_asyncio(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``work`` on an asyncio loop of its own, in a worker thread (left to finish by itself if
    trio is cancelled meanwhile: each request has its own time limit)."""
    return await trio.to_thread.run_sync(lambda: asyncio.run(work()), abandon_on_cancel=True)


def _quiet() -> None:
    """The library logs errors (an ICMP "port unreachable" after a search, say) that the caller
    reports in its own words: nothing of it reaches the terminal."""
    library = logging.getLogger("async_upnp_client")
    if not library.handlers:
        library.addHandler(logging.NullHandler())
        library.propagate = False


async def _open(port: int, *, search_s: float, target: tuple[str, int], lease_s: int) -> PortMapping:
    _quiet()
    from async_upnp_client.aiohttp import AiohttpRequester  # noqa: PLC0415
    from async_upnp_client.client_factory import UpnpFactory  # noqa: PLC0415

    location = await _search(target, search_s)
    try:
        device = await UpnpFactory(AiohttpRequester(REQUEST_S), non_strict=True).async_create_device(location)
    except Exception as exc:  # the library raises its own errors, aiohttp's and OSError
        where = _host(location)
        raise UpnpError(f"the router at {where} answered, but its description is unusable: {exc}") from None
    service = next((s for kind in CONNECTIONS if (s := device.find_service(kind)) is not None), None)
    if service is None:
        raise UpnpError(f"the router {device.friendly_name!r} does not offer port mapping")
    client = _local_address_towards(_host(location))
    external_ip = None
    with contextlib.suppress(Exception):  # optional: the mapping works without it
        result = await service.action("GetExternalIPAddress").async_call()
        external_ip = str(result.get("NewExternalIPAddress") or "") or None
    lease = await _add(service, port, client, lease_s)
    return PortMapping(device.friendly_name, external_ip, port, client, lease, service)


async def _search(target: tuple[str, int], search_s: float) -> str:
    """The description URL of the first gateway that answers an SSDP search."""
    from async_upnp_client.search import SsdpSearchListener  # noqa: PLC0415
    from async_upnp_client.utils import CaseInsensitiveDict  # noqa: PLC0415

    loop = asyncio.get_running_loop()
    found: asyncio.Future[str] = loop.create_future()

    def answered(headers: CaseInsensitiveDict) -> None:
        location = headers.get_lower("location")
        if headers.get_lower("st") in GATEWAYS and location and not found.done():
            found.set_result(str(location))

    # MX 1: a router answers within a second (a search is sent twice, in case one is lost).
    listener = SsdpSearchListener(callback=answered, target=target, search_target=GATEWAYS[0], timeout=1)
    listener.connect_callback = listener.async_search
    try:
        await listener.async_start()
    except OSError as exc:
        raise UpnpError(f"cannot search for a router: {exc.strerror or exc}") from None
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(found), min(1.0, search_s / 2))
        if not found.done():
            listener.async_search()  # once more: a search is one UDP datagram, easily lost
        return await asyncio.wait_for(found, search_s - min(1.0, search_s / 2))
    except TimeoutError:
        raise UpnpError(f"no router answered UPnP within {search_s:g} s") from None
    finally:
        listener.async_stop()


async def _add(service: UpnpService, port: int, client: str, lease_s: int) -> int:
    """Add (or renew) the mapping; returns the lease it got (0: permanent, all the router takes)."""
    from async_upnp_client.exceptions import UpnpActionError  # noqa: PLC0415

    for lease in (lease_s, 0) if lease_s else (0,):
        try:
            await service.action("AddPortMapping").async_call(
                NewRemoteHost="",
                NewExternalPort=port,
                NewProtocol="TCP",
                NewInternalPort=port,
                NewInternalClient=client,
                NewEnabled=True,
                NewPortMappingDescription=DESCRIPTION,
                NewLeaseDuration=lease,
            )
            return lease
        except UpnpActionError as exc:
            if exc.error_code == ONLY_PERMANENT and lease:
                continue
            if exc.error_code == CONFLICT:
                raise UpnpError(
                    f"the router already forwards port {port} to another machine: host with another --port"
                ) from None
            raise UpnpError(f"the router refused to forward port {port}: {_words(exc)}") from None
        except Exception as exc:  # aiohttp's errors, time-outs, the library's own
            raise UpnpError(f"the router did not answer the request: {exc or type(exc).__name__}") from None
    raise AssertionError("unreachable")  # (the loop returns or raises)


async def _delete(service: UpnpService, port: int) -> None:
    try:
        await service.action("DeletePortMapping").async_call(
            NewRemoteHost="", NewExternalPort=port, NewProtocol="TCP"
        )
    except Exception as exc:  # the library's, aiohttp's and time-outs: all said in one line
        raise UpnpError(f"the router did not remove the forwarding of port {port}: {exc}") from None


def _words(exc: Any) -> str:
    code, words = getattr(exc, "error_code", None), getattr(exc, "error_desc", None)
    return f"error {code}: {words}" if code else str(exc)


def _host(url: str) -> str:
    return urllib.parse.urlparse(url).hostname or url


def _local_address_towards(host: str) -> str:
    """This machine's address on the way to ``host`` (the router forwards to it). A UDP socket's
    connect sends nothing: it only picks the route."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((host, 1900))
        except OSError as exc:
            raise UpnpError(f"no route to the router at {host}: {exc.strerror or exc}") from None
        return str(probe.getsockname()[0])
