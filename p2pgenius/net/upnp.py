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

Any device on the local network can answer the search, so nothing it says is taken on trust: its
description and every URL in it are fetched only from the address the answer came from (plain
http, no redirects, no host names), each answer is read up to ``MAX_BODY`` and all descriptions
together up to ``DESCRIPTIONS_BYTES``, the whole setup ends within ``SEARCH_S`` (what the host
tells the user), and the public address it reports goes into the invite only if it is a global
unicast IPv4 address.
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
    from xml.etree import ElementTree as ET

    import aiohttp
    from async_upnp_client.client import UpnpDevice, UpnpRequester, UpnpService
    from async_upnp_client.const import HttpRequest, HttpResponse

    _Requester = UpnpRequester
else:
    _Requester = object  # (the library is imported only in the worker thread: see the docstring)

SEARCH_S: Final = 3.0
"""How long the whole setup may take: the search, the router's descriptions, its public address and
the mapping (the host tells the user "up to" this)."""
GRACE_S: Final = 5.0
"""How long past ``SEARCH_S`` trio waits for the worker thread before leaving it behind (it stops by
itself at ``SEARCH_S``, and says why: this is only in case something in it does not heed the
deadline, so it is long enough that a busy machine's late timer never beats the thread's own
answer)."""
REQUEST_S: Final = 5
"""How long one request to the router may take (within the setup, ``SEARCH_S`` is the tighter)."""
LEASE_S: Final = 3600
"""How long the router keeps a mapping unless it is renewed (renewed at half of it)."""
MAX_BODY: Final = 64 * 1024
"""The most one answer from the router (a description, a SOAP answer) may hold: a real one is a few
KiB; a bigger one is refused after reading this much (a 60 MB description once cost 300 MB)."""
DESCRIPTIONS_BYTES: Final = 256 * 1024
"""The most all of a router's descriptions may hold together (the root and one per service: a real
gateway needs a few dozen KiB), so that many services each under ``MAX_BODY`` do not add up."""
CHUNK: Final = 16 * 1024
"""How much of an answer is read at a time (the cap is checked after each)."""
SHOWN: Final = 80
"""The most of any text from the router (a name, a URL, an error) a message shows."""
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
DEVICE_NS: Final = "{urn:schemas-upnp-org:device-1-0}"
"""The namespace of a device description's elements."""
CARRIER_NAT: Final = ipaddress.ip_network("100.64.0.0/10")
"""Carrier-grade NAT (RFC 6598): a router with such an address sits behind the provider's NAT."""
DOCUMENTATION: Final = tuple(
    ipaddress.ip_network(net) for net in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
)
"""The TEST-NET ranges (RFC 5737): for examples only, never a real router's address."""
PRIVATE: Final = tuple(ipaddress.ip_network(net) for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
"""Private networks (RFC 1918): a router with such an address sits behind another router."""
BROADCAST: Final = ipaddress.ip_address("255.255.255.255")
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
    external_trouble: str | None = None
    """Why the router's public address is unknown, if asking for it went wrong (in words)."""

    @property
    def public(self) -> str | None:
        """The router's public address; None unless it is a global unicast IPv4 address (a private
        or carrier-grade NAT one means another NAT is in front of it and the mapping does not help;
        a multicast, broadcast or documentation one is a lie that would send joiners astray)."""
        if not self.external_ip or _not_public(self.external_ip) is not None:
            return None
        return str(ipaddress.ip_address(self.external_ip))

    @property
    def why_not_public(self) -> str | None:
        """Why ``public`` is None, in words (what the router said, and what is wrong with it)."""
        if self.external_ip is None:
            return self.external_trouble or "the router did not say its public address"
        return _not_public(self.external_ip)


async def open_port(
    port: int,
    *,
    search_s: float | None = None,
    target: tuple[str, int] | None = None,
    lease_s: int = LEASE_S,
) -> PortMapping:
    """Find the router (an SSDP search at ``target``, by default the multicast group every router
    listens to) and have it forward TCP ``port`` here, all within ``search_s`` (by default
    ``SEARCH_S``): a router slow to describe itself or to answer gives up the mapping, not the
    host's time."""
    aim, within = target or SSDP_TARGET, search_s or SEARCH_S
    with trio.move_on_after(within + GRACE_S):
        return await _in_asyncio(lambda: _open(port, within=within, target=aim, lease_s=lease_s))
    raise UpnpError(f"the router did not finish setting up within {within:g} s")


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


async def _open(port: int, *, within: float, target: tuple[str, int], lease_s: int) -> PortMapping:
    """The whole setup, ended at ``within`` seconds from now whatever the router does (the search
    keeps to it by itself; the rest runs under one deadline, and the message names the step that
    was too slow)."""
    until = asyncio.get_running_loop().time() + within  # (the first import of the library counts too)
    _quiet()
    from async_upnp_client.client_factory import UpnpFactory  # noqa: PLC0415

    router, location = await _search(target, until, within)
    step = "describe itself"
    limit = asyncio.timeout_at(until)
    try:
        async with limit:
            requester = _Fetcher(router)
            try:
                device = await UpnpFactory(requester, non_strict=True).async_create_device(location)
            except UpnpError:
                raise
            except Exception as exc:  # the library raises its own errors, aiohttp's and OSError
                raise UpnpError(
                    f"the router at {router} answered, but its description is unusable: {_shown(str(exc))}"
                ) from None
            name = _shown(device.friendly_name)
            service = next((s for kind in CONNECTIONS if (s := device.find_service(kind)) is not None), None)
            if service is None:
                raise UpnpError(
                    _elsewhere(device, router) or f"the router {name!r} does not offer port mapping"
                )
            client = _local_address_towards(router)
            step = "say its public address"
            external_ip, trouble = None, None
            try:  # optional: the mapping works without it
                result = await service.action("GetExternalIPAddress").async_call()
                said = str(result.get("NewExternalIPAddress") or "").strip()
                external_ip = _shown(said) if said else None
            except UpnpError as exc:
                trouble = str(exc)
            except Exception:  # (the library's, aiohttp's: the address is only left out)
                pass
            step = "forward the port"
            lease = await _add(service, port, client, lease_s)
    except Exception:
        if limit.expired():
            raise UpnpError(
                f"the router at {router} answered, but did not {step} within {within:g} s"
            ) from None
        raise
    return PortMapping(name, external_ip, port, client, lease, service, trouble)


async def _search(target: tuple[str, int], until: float, within: float) -> tuple[str, str]:
    """The address and description URL of the first gateway that answers an SSDP search by
    ``until`` (loop time) with a description on its own address; other answers are passed over (a
    device naming another host would have this machine fetch whatever it likes) and said if no
    good one comes."""
    from async_upnp_client.search import SsdpSearchListener  # noqa: PLC0415
    from async_upnp_client.utils import CaseInsensitiveDict  # noqa: PLC0415

    loop = asyncio.get_running_loop()
    found: asyncio.Future[tuple[str, str]] = loop.create_future()
    ignored: list[str] = []

    def answered(headers: CaseInsensitiveDict) -> None:
        if headers.get_lower("st") not in GATEWAYS or found.done():
            return
        sender, location = str(headers.get_lower("_host") or ""), str(headers.get_lower("location") or "")
        why = _off_limits(location, sender)
        if why is None:
            found.set_result((sender, location))
        elif not ignored:
            ignored.append(
                f"an answer from {_shown(sender)} was ignored: its description {_shown(location)} {why}"
            )

    # MX 1: a router answers within a second (a search is sent twice, in case one is lost).
    listener = SsdpSearchListener(callback=answered, target=target, search_target=GATEWAYS[0], timeout=1)
    listener.connect_callback = listener.async_search
    try:
        await listener.async_start()
    except OSError as exc:
        raise UpnpError(f"cannot search for a router: {exc.strerror or exc}") from None
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(found), min(1.0, within / 2))
        if not found.done():
            listener.async_search()  # once more: a search is one UDP datagram, easily lost
        return await asyncio.wait_for(found, until - loop.time())
    except TimeoutError:
        why = f" ({ignored[0]})" if ignored else ""
        raise UpnpError(f"no router answered UPnP within {within:g} s{why}") from None
    finally:
        listener.async_stop()


class _Fetcher(_Requester):
    """Every request to the router goes through here, so the rules hold for all of them (the
    description, each service's, every action): only plain http to the very address that answered
    the search (a name could resolve anywhere), no redirects, no compression (a small answer could
    unpack to gigabytes), each answer read in chunks up to ``MAX_BODY`` and all descriptions
    together up to ``DESCRIPTIONS_BYTES``, each request within ``REQUEST_S``. aiohttp's own
    requester in the library reads any size and follows redirects anywhere."""

    def __init__(self, router: str) -> None:
        self.router = router
        self.described = 0  # bytes of descriptions (GETs) read so far

    async def async_http_request(self, http_request: HttpRequest) -> HttpResponse:
        import aiohttp  # noqa: PLC0415
        from async_upnp_client.const import HttpResponse  # noqa: PLC0415

        url = http_request.url
        why = _off_limits(url, self.router)
        if why is not None:
            raise UpnpError(
                f"the router at {self.router} points to {_shown(url)}, which {why}: not fetched"
                " (only the router's own address is asked)"
            )
        path = _shown(urllib.parse.urlsplit(url).path or "/")
        limit = float(http_request.timeout or REQUEST_S)
        headers = {**(http_request.headers or {}), "Accept-Encoding": "identity"}
        try:
            async with (
                asyncio.timeout(limit),
                aiohttp.ClientSession(auto_decompress=False) as session,
                session.request(
                    http_request.method,
                    url,
                    headers=headers,
                    data=http_request.body,
                    allow_redirects=False,
                ) as response,
            ):
                body = await self._read(response, path, describing=http_request.method == "GET")
                text = body.decode(response.charset or "utf-8", errors="replace")
                return HttpResponse(response.status, response.headers, text)
        except TimeoutError:
            raise UpnpError(f"the router at {self.router} did not answer {path} within {limit:g} s") from None
        except (aiohttp.ClientError, LookupError) as exc:  # (LookupError: a charset Python lacks)
            raise UpnpError(
                f"the router at {self.router} did not answer {path}: {_shown(str(exc))}"
            ) from None

    async def _read(self, response: aiohttp.ClientResponse, path: str, *, describing: bool) -> bytes:
        """The answer's body, refused as soon as it is too big (by its declared length, or while
        reading) rather than once all of it is in memory."""
        coding = response.headers.get("Content-Encoding", "identity").strip().lower()
        if coding not in ("", "identity"):
            raise UpnpError(f"the router at {self.router} sent {path} compressed ({_shown(coding)}): refused")
        room = min(MAX_BODY, DESCRIPTIONS_BYTES - self.described) if describing else MAX_BODY
        declared = response.content_length
        body = bytearray()
        if declared is None or declared <= room:
            async for chunk in response.content.iter_chunked(CHUNK):
                body += chunk
                if len(body) > room:
                    break
        if len(body) <= room and (declared is None or declared <= room):
            if describing:
                self.described += len(body)
            return bytes(body)
        if room < MAX_BODY:
            raise UpnpError(
                f"the router at {self.router} describes itself in more than {DESCRIPTIONS_BYTES // 1024} KiB"
                " (a real one needs a few dozen): refused"
            )
        raise UpnpError(
            f"the router at {self.router} answered {path} with more than {MAX_BODY // 1024} KiB"
            " (a real answer is a few KiB): refused"
        )


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
        except UpnpError:
            raise  # (said by ``_Fetcher`` already)
        except Exception as exc:  # the library's own errors
            raise UpnpError(
                f"the router did not answer the request: {_shown(str(exc) or type(exc).__name__)}"
            ) from None
    raise AssertionError("unreachable")  # (the loop returns or raises)


async def _delete(service: UpnpService, port: int) -> None:
    try:
        await service.action("DeletePortMapping").async_call(
            NewRemoteHost="", NewExternalPort=port, NewProtocol="TCP"
        )
    except Exception as exc:  # the library's, aiohttp's and time-outs: all said in one line
        raise UpnpError(
            f"the router did not remove the forwarding of port {port}: {_shown(str(exc))}"
        ) from None


def _words(exc: Any) -> str:
    code, words = getattr(exc, "error_code", None), getattr(exc, "error_desc", None)
    return f"error {code}: {_shown(str(words))}" if code else _shown(str(exc))


def _shown(text: str, limit: int = SHOWN) -> str:
    """Text from the network made fit for one line of the terminal: no control characters (a
    hostile router could move the cursor or clear the screen) and at most ``limit`` long."""
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


def _off_limits(url: str, router: str) -> str | None:
    """Why ``url`` is not to be fetched from the router at ``router`` (None if it may be), as the
    end of a sentence. Only plain http to that very address, written as an address (a host name
    could resolve anywhere), with nothing else in the host part (a user name or a backslash is
    read one way here and maybe another by aiohttp); any port."""
    if not url or any(c.isspace() or not c.isprintable() or c == "\\" for c in url):
        return "is malformed"
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
        host = parts.hostname or ""
        want = ipaddress.ip_address(router)
    except ValueError:
        return "is malformed"
    if parts.scheme != "http":
        return "is not plain http"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return "names a host rather than an address"
    if ip.is_multicast or ip.is_unspecified or ip == BROADCAST:
        return "is a multicast, broadcast or unspecified address"
    if ip != want:
        return f"is on another host than {_shown(router)}"
    bare = f"[{host}]" if ip.version == 6 else host
    if parts.netloc.lower() not in (bare, f"{bare}:{port}"):
        return "is malformed"
    return None


def _elsewhere(device: UpnpDevice, router: str) -> str | None:
    """Why the router has no port mapping service after all, if it does describe one but at a URL
    that is not fetched (the library passes such a service over in silence)."""
    root: ET.Element = device.device_info.xml
    for service in root.iter(f"{DEVICE_NS}service"):
        if service.findtext(f"{DEVICE_NS}serviceType", "").strip() not in CONNECTIONS:
            continue
        for tag in ("SCPDURL", "controlURL"):
            try:
                url = urllib.parse.urljoin(
                    device.device_url, service.findtext(f"{DEVICE_NS}{tag}", "").strip()
                )
            except ValueError:
                url = service.findtext(f"{DEVICE_NS}{tag}", "")
            why = _off_limits(url, router)
            if why is not None:
                return (
                    f"the router {_shown(device.friendly_name)!r} offers port mapping only at {_shown(url)},"
                    f" which {why}: not fetched (only the router's own address is asked)"
                )
    return None


NOT_PUBLIC: Final[tuple[tuple[Callable[[ipaddress.IPv4Address], bool], str], ...]] = (
    (lambda ip: ip.is_unspecified, "the unspecified address"),
    (lambda ip: ip == BROADCAST, "the broadcast address"),
    (lambda ip: ip.is_multicast, "a multicast address"),
    (lambda ip: ip.is_loopback, "a loopback address"),
    (lambda ip: ip.is_link_local, "a link-local address"),
    (
        lambda ip: ip in CARRIER_NAT,
        "a carrier-grade NAT address: the provider's NAT is in front of the router",
    ),
    (
        lambda ip: any(ip in net for net in DOCUMENTATION),
        "a documentation (TEST-NET) address, never a real one",
    ),
    (
        lambda ip: any(ip in net for net in PRIVATE),
        "a private address: another router is in front of this one",
    ),
    (lambda ip: ip.is_reserved, "a reserved address"),
    (lambda ip: not ip.is_global, "not a global address"),
)
"""What an IPv4 address the router gives may be instead of a public one, each with its words:
the first that holds is said (the more telling before the more general)."""


def _not_public(text: str) -> str | None:
    """Why the address the router says it has is not put in the invite (None if it is: a global
    unicast IPv4 address), in words."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return f"{_shown(text)!r} is not an address"
    if not isinstance(ip, ipaddress.IPv4Address):
        return f"{ip} is not an IPv4 address"
    kind = next((kind for holds, kind in NOT_PUBLIC if holds(ip)), None)
    return None if kind is None else f"{ip} is {kind}"


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
