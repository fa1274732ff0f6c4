"""``host --upnp`` against a small fake router served by the test on 127.0.0.1: it answers the
SSDP search over UDP, serves its device description and service description over HTTP, and takes
SOAP calls. The real client library adds the mapping, reads the public address and removes the
mapping again (also when the host is interrupted).

The same fake turns hostile on request, as any device on the LAN may: it names another host (a
watcher on 127.0.0.2 counts whoever comes) or a name or a multicast address for its description or
services, redirects, sends too much, compresses, answers slowly, or says a public address that is
not one. The host is not fooled and says why in one line."""

from __future__ import annotations

import contextlib
import gzip
import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import Target, join_match, target_of
from p2pgenius.cli.main import build_parser
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.net import upnp
from p2pgenius.net.upnp import UpnpError
from tests.patience import HANG_S

WINDOW_S = 60.0
"""The search window the tests give a router that answers: a search ends at the first good answer,
so only a machine too busy to answer at all waits this long (2 s failed at load 14)."""

PUBLIC_IP = "8.8.8.8"  # a global address, as a real router says (only the string is used: never contacted)
SERVICE = "urn:schemas-upnp-org:service:WANIPConnection:1"
SLOW_S = 30  # how long a slow fake takes to answer: far beyond any bound here
HUGE = 64 * 1024 * 1024  # how much a huge answer would be (the client must stop long before)
FILLER = "urn:schemas-upnp-org:service:Filler:1"

DEVICE = """<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
 <specVersion><major>1</major><minor>0</minor></specVersion>
 <device>
  <deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>
  <friendlyName>Fake router</friendlyName><manufacturer>tests</manufacturer>
  <modelName>fake</modelName><UDN>uuid:fake-igd</UDN>
  <deviceList><device>
   <deviceType>urn:schemas-upnp-org:device:WANDevice:1</deviceType>
   <friendlyName>WAN</friendlyName><manufacturer>tests</manufacturer>
   <modelName>fake</modelName><UDN>uuid:fake-wan</UDN>
   <deviceList><device>
    <deviceType>urn:schemas-upnp-org:device:WANConnectionDevice:1</deviceType>
    <friendlyName>WAN connection</friendlyName><manufacturer>tests</manufacturer>
    <modelName>fake</modelName><UDN>uuid:fake-wan-connection</UDN>
    <serviceList><service>
     <serviceType>urn:schemas-upnp-org:service:WANIPConnection:1</serviceType>
     <serviceId>urn:upnp-org:serviceId:WANIPConn1</serviceId>
     <SCPDURL>/WANIPCn.xml</SCPDURL><controlURL>/ctl/IPConn</controlURL>
     <eventSubURL>/evt/IPConn</eventSubURL>
    </service></serviceList>
   </device></deviceList>
  </device></deviceList>
 </device>
</root>"""


def argument(name: str, direction: str, variable: str) -> str:
    return (
        f"<argument><name>{name}</name><direction>{direction}</direction>"
        f"<relatedStateVariable>{variable}</relatedStateVariable></argument>"
    )


def variable(name: str, kind: str) -> str:
    return f'<stateVariable sendEvents="no"><name>{name}</name><dataType>{kind}</dataType></stateVariable>'


MAPPING_KEY = [
    argument("NewRemoteHost", "in", "RemoteHost"),
    argument("NewExternalPort", "in", "ExternalPort"),
    argument("NewProtocol", "in", "PortMappingProtocol"),
]
SCPD = "".join(
    [
        '<?xml version="1.0"?><scpd xmlns="urn:schemas-upnp-org:service-1-0">',
        "<specVersion><major>1</major><minor>0</minor></specVersion><actionList>",
        "<action><name>AddPortMapping</name><argumentList>",
        *MAPPING_KEY,
        argument("NewInternalPort", "in", "InternalPort"),
        argument("NewInternalClient", "in", "InternalClient"),
        argument("NewEnabled", "in", "PortMappingEnabled"),
        argument("NewPortMappingDescription", "in", "PortMappingDescription"),
        argument("NewLeaseDuration", "in", "PortMappingLeaseDuration"),
        "</argumentList></action>",
        "<action><name>DeletePortMapping</name><argumentList>",
        *MAPPING_KEY,
        "</argumentList></action>",
        "<action><name>GetExternalIPAddress</name><argumentList>",
        argument("NewExternalIPAddress", "out", "ExternalIPAddress"),
        "</argumentList></action>",
        "</actionList><serviceStateTable>",
        variable("RemoteHost", "string"),
        variable("ExternalPort", "ui2"),
        variable("PortMappingProtocol", "string"),
        variable("InternalPort", "ui2"),
        variable("InternalClient", "string"),
        variable("PortMappingEnabled", "boolean"),
        variable("PortMappingDescription", "string"),
        variable("PortMappingLeaseDuration", "ui4"),
        variable("ExternalIPAddress", "string"),
        "</serviceStateTable></scpd>",
    ]
)
ENVELOPE = (
    '<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" '
    's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>{}</s:Body></s:Envelope>'
)


def fault(code: int, words: str) -> str:
    return ENVELOPE.format(
        "<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>"
        f'<UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>{code}</errorCode>'
        f"<errorDescription>{words}</errorDescription></UPnPError></detail></s:Fault>"
    )


@dataclass
class FakeRouter:
    """An Internet Gateway Device on loopback: SSDP on ``ssdp``, HTTP on ``http``. What it does
    wrong, if anything, is set after ``start_router`` (which knows the ports): ``location``
    replaces the description URL its search answer names (``decoy``: one more answer, sent first),
    ``device`` its description, ``external`` the public address it says; what ``slow`` names (a
    path, or an action for the control URL) is answered after ``SLOW_S``, what ``huge`` names with
    ``HUGE`` bytes (``declared``: with a Content-Length saying so), what ``gzipped`` names
    compressed; ``redirect`` sends a path elsewhere."""

    ssdp: tuple[str, int] = ("127.0.0.1", 0)
    http: int = 0
    address: str = "127.0.0.1"  # where its web server is
    mappings: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    searches: int = 0
    only_permanent: bool = False
    location: str | None = None
    decoy: str | None = None
    device: str = DEVICE
    external: str = PUBLIC_IP
    slow: set[str] = field(default_factory=set)
    huge: set[str] = field(default_factory=set)
    declared: bool = False
    gzipped: set[str] = field(default_factory=set)
    redirect: dict[str, str] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)  # every path (action, for the control URL) asked
    sent: int = 0  # bytes of huge answers sent

    async def serve_ssdp(self, sock: trio.socket.SocketType) -> None:
        while True:
            data, sender = await sock.recvfrom(2048)
            if not data.startswith(b"M-SEARCH"):
                continue
            self.searches += 1
            honest = f"http://{self.address}:{self.http}/rootDesc.xml"
            for location in [self.decoy, self.location or honest]:
                if location is None:
                    continue
                answer = (
                    "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nEXT:\r\n"
                    f"LOCATION: {location}\r\nSERVER: fake UPnP/1.1\r\n"
                    "ST: urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\n"
                    "USN: uuid:fake-igd::urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\n\r\n"
                )
                await sock.sendto(answer.encode(), sender)

    async def serve_http(self, stream: trio.SocketStream) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = await stream.receive_some(4096)
            if not chunk:
                return
            request += chunk
        head, _, body = request.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        while len(body) < int(headers.get("content-length", "0")):
            body += await stream.receive_some(4096)
        path = lines[0].split()[1]
        what = headers.get("soapaction", "").strip('"').rpartition("#")[2] or path
        self.requests.append(what)
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):  # (the client left)
            if what in self.slow:
                await trio.sleep(SLOW_S)
            if what in self.huge:
                await self.send_huge(stream)
                return
            status, text = self.answer(path, headers, body.decode())
            payload, more = text.encode(), ""
            if what in self.gzipped:
                payload, more = gzip.compress(payload), "Content-Encoding: gzip\r\n"
            if path in self.redirect:
                status, more = "302 Found", f"Location: {self.redirect[path]}\r\n"
            await stream.send_all(
                f'HTTP/1.1 {status}\r\nContent-Type: text/xml; charset="utf-8"\r\n{more}'
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await stream.aclose()

    async def send_huge(self, stream: trio.SocketStream) -> None:
        """``HUGE`` bytes of an XML comment, for as long as the client reads."""
        length = f"Content-Length: {HUGE}\r\n" if self.declared else ""
        await stream.send_all(
            f"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n{length}Connection: close\r\n\r\n<!--".encode()
        )
        chunk = b"x" * (64 * 1024)
        while self.sent < HUGE:
            await stream.send_all(chunk)
            self.sent += len(chunk)

    def answer(self, path: str, headers: dict[str, str], body: str) -> tuple[str, str]:
        """The status and body the router answers a request for ``path`` with."""
        if path == "/ctl/IPConn":
            return self.control(headers, body)
        if path == "/rootDesc.xml":
            return "200 OK", self.device
        if path == "/WANIPCn.xml":
            return "200 OK", SCPD
        if path.startswith("/filler"):
            return "200 OK", SCPD.replace("</scpd>", "<!--" + "x" * 60_000 + "--></scpd>")
        return "404 Not Found", ""

    def control(self, headers: dict[str, str], body: str) -> tuple[str, str]:
        """The answer to a SOAP call on the control URL."""
        action = headers["soapaction"].strip('"').rpartition("#")[2]
        call = ET.fromstring(body).find(".//{http://schemas.xmlsoap.org/soap/envelope/}Body")
        assert call is not None
        args = {child.tag: child.text or "" for child in call[0]}
        self.calls.append(action)
        if action == "GetExternalIPAddress":
            return "200 OK", ENVELOPE.format(
                f'<u:GetExternalIPAddressResponse xmlns:u="{SERVICE}">'
                f"<NewExternalIPAddress>{self.external}</NewExternalIPAddress></u:GetExternalIPAddressResponse>"
            )
        key = (int(args["NewExternalPort"]), args["NewProtocol"])
        if action == "AddPortMapping":
            return self.add_mapping(key, args)
        if action == "DeletePortMapping":
            if self.mappings.pop(key, None) is None:
                return "500 Internal Server Error", fault(714, "NoSuchEntryInArray")
            return "200 OK", ENVELOPE.format(f'<u:DeletePortMappingResponse xmlns:u="{SERVICE}"/>')
        return "500 Internal Server Error", fault(401, "Invalid Action")

    def add_mapping(self, key: tuple[int, str], args: dict[str, str]) -> tuple[str, str]:
        """AddPortMapping, refused as this router's settings say."""
        if self.only_permanent and args["NewLeaseDuration"] != "0":
            return "500 Internal Server Error", fault(725, "OnlyPermanentLeasesSupported")
        held = self.mappings.get(key)
        if held is not None and held["NewInternalClient"] != args["NewInternalClient"]:
            return "500 Internal Server Error", fault(718, "ConflictInMappingEntry")
        self.mappings[key] = args
        return "200 OK", ENVELOPE.format(f'<u:AddPortMappingResponse xmlns:u="{SERVICE}"/>')


async def start_router(nursery: trio.Nursery, **options: Any) -> FakeRouter:
    router = FakeRouter(**options)
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await sock.bind(("127.0.0.1", 0))
    router.ssdp = ("127.0.0.1", sock.getsockname()[1])
    listeners = await nursery.start(partial(trio.serve_tcp, router.serve_http, 0, host=router.address))
    router.http = listeners[0].socket.getsockname()[1]
    nursery.start_soon(router.serve_ssdp, sock)
    return router


async def test_a_port_is_forwarded_the_public_address_read_and_the_forwarding_removed() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            mapping = await upnp.open_port(7781, target=router.ssdp, search_s=WINDOW_S)
            assert (mapping.router, mapping.external_ip) == ("Fake router", PUBLIC_IP)
            assert mapping.public == PUBLIC_IP
            assert mapping.lease_s == upnp.LEASE_S
            assert router.mappings[(7781, "TCP")] == {
                "NewRemoteHost": "",
                "NewExternalPort": "7781",
                "NewProtocol": "TCP",
                "NewInternalPort": "7781",
                "NewInternalClient": "127.0.0.1",
                "NewEnabled": "1",
                "NewPortMappingDescription": "p2pgenius",
                "NewLeaseDuration": str(upnp.LEASE_S),
            }
            await upnp.renew(mapping)
            assert router.calls.count("AddPortMapping") == 2
            await upnp.close_port(mapping)
            assert router.mappings == {}
            with pytest.raises(UpnpError, match="did not remove the forwarding of port 7781"):
                await upnp.close_port(mapping)  # (the fake says there is no such mapping)
            nursery.cancel_scope.cancel()


async def test_a_router_that_only_keeps_permanent_mappings_gets_one() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery, only_permanent=True)
            mapping = await upnp.open_port(7782, target=router.ssdp, search_s=WINDOW_S)
            assert mapping.lease_s == 0
            assert router.mappings[(7782, "TCP")]["NewLeaseDuration"] == "0"
            nursery.cancel_scope.cancel()


async def test_a_port_another_machine_has_is_said_in_words() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.mappings[(7783, "TCP")] = {"NewInternalClient": "192.168.1.99"}
            with pytest.raises(UpnpError, match="already forwards port 7783 to another machine"):
                await upnp.open_port(7783, target=router.ssdp, search_s=WINDOW_S)
            nursery.cancel_scope.cancel()


async def test_no_router_is_said_plainly_within_the_search_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # The search's own bound says it (trio's, GRACE_S later, must not act first on a busy machine).
    monkeypatch.setattr(upnp, "GRACE_S", HANG_S)
    silent = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await silent.bind(("127.0.0.1", 0))  # takes the search and never answers
    start = trio.current_time()
    with silent, pytest.raises(UpnpError, match=r"^no router answered UPnP within 1 s$"):
        await upnp.open_port(7784, target=("127.0.0.1", silent.getsockname()[1]), search_s=1)
    assert trio.current_time() - start < SLOW_S  # (it gave up at its bound, not at some later one)


def host_args(*extra: str) -> Any:
    return build_parser().parse_args(
        ["host", "duel", "--bot", "--upnp", "--no-announce", "--port", "0", *extra]
    )


async def test_host_upnp_shows_the_public_address_invites_with_it_and_unmaps_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr("p2pgenius.cli.host.reachable_addresses", lambda bound: ["127.0.0.1"])
    out = io.StringIO()
    hargs = host_args()
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as outer:
            router = await start_router(outer)
            async with trio.open_nursery() as nursery:
                invite = await nursery.start(
                    lambda task_status: host_match(
                        hargs, host, match_options(hargs), upnp_target=router.ssdp, task_status=task_status
                    )
                )
                assert router.mappings[(invite.port, "TCP")]["NewInternalClient"] == "127.0.0.1"
                # The public address first (a real one, never contacted: the joiner here uses
                # loopback alone).
                assert invite.addresses == (PUBLIC_IP, "127.0.0.1")
                guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=False))
                by_invite = target_of(str(invite))
                here = [t for t in by_invite.targets if t[0] == "127.0.0.1"]
                loopback = Target(here, by_invite.key, "the host")
                await join_match(jargs, guest, loopback)
            outer.cancel_scope.cancel()
    said = out.getvalue()
    assert f"public address: {PUBLIC_IP}:{invite.port} (router 'Fake router' forwards it to 127.0.0.1" in said
    assert f"UPnP: the router no longer forwards port {invite.port}" in said
    assert router.mappings == {}
    assert host.session is not None and host.session.outcome is not None


async def test_an_interrupted_host_removes_its_forwarding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr("p2pgenius.cli.host.reachable_addresses", lambda bound: ["127.0.0.1"])
    hargs = host_args()
    out = io.StringIO()
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    mapped: list[int] = []

    async def interrupted(*args: Any, **kwargs: Any) -> None:
        mapped.extend(port for port, _ in router.mappings)
        raise KeyboardInterrupt  # Ctrl-C while waiting for players

    monkeypatch.setattr(host, "host", interrupted)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            interrupted_too = False
            try:
                await host_match(hargs, host, match_options(hargs), upnp_target=router.ssdp)
            except* KeyboardInterrupt:
                interrupted_too = True
            nursery.cancel_scope.cancel()
    assert interrupted_too  # (the interrupt goes on up, after the forwarding was removed)
    assert len(mapped) == 1 and router.mappings == {}
    assert f"UPnP: the router no longer forwards port {mapped[0]}" in out.getvalue()


async def test_without_a_router_the_host_says_so_and_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr("p2pgenius.cli.host.reachable_addresses", lambda bound: ["127.0.0.1"])
    monkeypatch.setattr(upnp, "SEARCH_S", 1.0)
    silent = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await silent.bind(("127.0.0.1", 0))
    out = io.StringIO()
    hargs = host_args()
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with silent, trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            target = ("127.0.0.1", silent.getsockname()[1])
            invite = await nursery.start(
                lambda task_status: host_match(
                    hargs, host, match_options(hargs), upnp_target=target, task_status=task_status
                )
            )
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=False))
            await join_match(jargs, guest, target_of(str(invite)))
    said = out.getvalue()
    assert "UPnP: no router answered UPnP within 1 s; friends outside this network cannot reach" in said
    assert invite.addresses == ("127.0.0.1",)
    assert host.session is not None and host.session.outcome is not None


# --- A hostile device on the LAN -------------------------------------------------------------------


@dataclass
class Watcher:
    """A web server on 127.0.0.2, another host as far as the client can tell: it counts whoever
    connects (nobody should)."""

    port: int = 0
    connections: int = 0

    async def serve(self, stream: trio.SocketStream) -> None:
        self.connections += 1
        await stream.aclose()


async def start_watcher(nursery: trio.Nursery) -> Watcher:
    watcher = Watcher()
    listeners = await nursery.start(partial(trio.serve_tcp, watcher.serve, 0, host="127.0.0.2"))
    watcher.port = listeners[0].socket.getsockname()[1]
    return watcher


def ports(text: str, router: FakeRouter, watcher: Watcher) -> str:
    return text.replace("{http}", str(router.http)).replace("{watch}", str(watcher.port))


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("http://127.0.0.2:{watch}/rootDesc.xml", "is on another host than 127.0.0.1"),
        ("http://localhost:{http}/rootDesc.xml", "names a host rather than an address"),
        ("https://127.0.0.1:{http}/rootDesc.xml", "is not plain http"),
        ("file:///etc/passwd", "is not plain http"),
        ("http://224.0.0.1:{http}/rootDesc.xml", "is a multicast, broadcast or unspecified address"),
        ("http://255.255.255.255:{http}/rootDesc.xml", "is a multicast, broadcast or unspecified address"),
        ("http://0.0.0.0:{http}/rootDesc.xml", "is a multicast, broadcast or unspecified address"),
        ("http://127.0.0.2@127.0.0.1:{http}/rootDesc.xml", "is malformed"),
        ("http://127.0.0.1\\@127.0.0.2:{watch}/rootDesc.xml", "is malformed"),
    ],
)
async def test_a_search_answer_naming_another_place_for_its_description_is_ignored(
    location: str, why: str
) -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router, watcher = await start_router(nursery), await start_watcher(nursery)
            router.location = ports(location, router, watcher)
            with pytest.raises(UpnpError) as refused:
                await upnp.open_port(7785, target=router.ssdp, search_s=0.5)
            nursery.cancel_scope.cancel()
    assert str(refused.value) == (
        f"no router answered UPnP within 0.5 s (an answer from 127.0.0.1 was ignored: its description "
        f"{router.location} {why})"
    )
    assert (router.requests, watcher.connections) == ([], 0)  # nothing fetched, here or there


async def test_a_good_answer_after_a_hostile_one_is_used() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router, watcher = await start_router(nursery), await start_watcher(nursery)
            router.decoy = f"http://127.0.0.2:{watcher.port}/rootDesc.xml"
            mapping = await upnp.open_port(7786, target=router.ssdp, search_s=WINDOW_S)
            assert (mapping.router, mapping.public, watcher.connections) == ("Fake router", PUBLIC_IP, 0)
            await upnp.close_port(mapping)
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("tag", "url", "said"),
    [
        (
            "SCPDURL",
            "http://127.0.0.2:{watch}/WANIPCn.xml",
            "the router 'Fake router' offers port mapping only at http://127.0.0.2:{watch}/WANIPCn.xml, "
            "which is on another host than 127.0.0.1: not fetched (only the router's own address is asked)",
        ),
        (
            "controlURL",
            "http://127.0.0.2:{watch}/ctl/IPConn",
            "the router 'Fake router' offers port mapping only at http://127.0.0.2:{watch}/ctl/IPConn, "
            "which is on another host than 127.0.0.1: not fetched (only the router's own address is asked)",
        ),
        (
            "controlURL",
            "//localhost:{http}/ctl/IPConn",
            "the router 'Fake router' offers port mapping only at http://localhost:{http}/ctl/IPConn, "
            "which names a host rather than an address: not fetched (only the router's own address is asked)",
        ),
        (
            "SCPDURL",
            "https://127.0.0.1:{http}/WANIPCn.xml",
            "the router at 127.0.0.1 points to https://127.0.0.1:{http}/WANIPCn.xml, which is not plain "
            "http: not fetched (only the router's own address is asked)",
        ),
    ],
)
async def test_a_service_described_at_another_place_is_not_fetched(tag: str, url: str, said: str) -> None:
    default = {"SCPDURL": "/WANIPCn.xml", "controlURL": "/ctl/IPConn"}[tag]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router, watcher = await start_router(nursery), await start_watcher(nursery)
            router.device = DEVICE.replace(f"<{tag}>{default}<", f"<{tag}>{ports(url, router, watcher)}<")
            with pytest.raises(UpnpError) as refused:
                await upnp.open_port(7787, target=router.ssdp, search_s=WINDOW_S)
            nursery.cancel_scope.cancel()
    assert str(refused.value) == ports(said, router, watcher)
    assert watcher.connections == 0 and router.calls == [] and router.mappings == {}
    assert "/WANIPCn.xml" not in router.requests or tag == "controlURL"


async def test_a_redirect_elsewhere_is_not_followed() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router, watcher = await start_router(nursery), await start_watcher(nursery)
            router.redirect["/rootDesc.xml"] = f"http://127.0.0.2:{watcher.port}/rootDesc.xml"
            with pytest.raises(
                UpnpError, match=r"^the router at 127\.0\.0\.1 answered, but its description is "
            ):
                await upnp.open_port(7788, target=router.ssdp, search_s=WINDOW_S)
            nursery.cancel_scope.cancel()
    assert watcher.connections == 0


@pytest.mark.parametrize(
    ("what", "declared", "path"),
    [
        ("/rootDesc.xml", False, "/rootDesc.xml"),
        ("/rootDesc.xml", True, "/rootDesc.xml"),
        ("/WANIPCn.xml", False, "/WANIPCn.xml"),
        ("AddPortMapping", False, "/ctl/IPConn"),
    ],
)
async def test_a_huge_answer_is_refused_without_reading_it_all(what: str, declared: bool, path: str) -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery, declared=declared)
            router.huge.add(what)
            with pytest.raises(UpnpError) as refused:
                await upnp.open_port(7789, target=router.ssdp, search_s=WINDOW_S)
            nursery.cancel_scope.cancel()
    assert str(refused.value) == (
        f"the router at 127.0.0.1 answered {path} with more than 64 KiB (a real answer is a few KiB): refused"
    )
    # The client stopped early: what was sent at most fills the sockets' buffers on the way.
    assert router.sent < HUGE // 4 and router.mappings == {}


async def test_many_services_cannot_add_up_to_a_huge_description() -> None:
    fillers = "".join(
        f"<service><serviceType>{FILLER}</serviceType><serviceId>urn:upnp-org:serviceId:F{i}</serviceId>"
        f"<SCPDURL>/filler{i}.xml</SCPDURL><controlURL>/ctl/F{i}</controlURL><eventSubURL>/evt/F{i}</eventSubURL>"
        "</service>"
        for i in range(20)
    )
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.device = DEVICE.replace("</service></serviceList>", f"</service>{fillers}</serviceList>")
            with pytest.raises(UpnpError) as refused:
                await upnp.open_port(7790, target=router.ssdp, search_s=WINDOW_S)
            nursery.cancel_scope.cancel()
    assert str(refused.value) == (
        "the router at 127.0.0.1 describes itself in more than 256 KiB"
        " (a real one needs a few dozen): refused"
    )
    assert len([r for r in router.requests if r.startswith("/filler")]) == 5  # (60 KiB each)


async def test_a_compressed_answer_is_refused() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.gzipped.add("/rootDesc.xml")
            with pytest.raises(
                UpnpError,
                match=r"^the router at 127\.0\.0\.1 sent /rootDesc\.xml compressed \(gzip\): refused$",
            ):
                await upnp.open_port(7791, target=router.ssdp, search_s=WINDOW_S)
            nursery.cancel_scope.cancel()


async def test_a_huge_public_address_answer_leaves_the_address_out_but_maps_the_port() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.huge.add("GetExternalIPAddress")
            mapping = await upnp.open_port(7792, target=router.ssdp, search_s=WINDOW_S)
            assert (mapping.external_ip, mapping.public) == (None, None)
            assert mapping.why_not_public == (
                "the router at 127.0.0.1 answered /ctl/IPConn with more than 64 KiB"
                " (a real answer is a few KiB): refused"
            )
            assert (7792, "TCP") in router.mappings and router.sent < HUGE // 4
            await upnp.close_port(mapping)
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("external", "why"),
    [
        ("203.0.113.7", "203.0.113.7 is a documentation (TEST-NET) address, never a real one"),
        ("224.0.0.1", "224.0.0.1 is a multicast address"),
        ("255.255.255.255", "255.255.255.255 is the broadcast address"),
        ("0.0.0.0", "0.0.0.0 is the unspecified address"),
        ("127.0.0.1", "127.0.0.1 is a loopback address"),
        ("169.254.1.1", "169.254.1.1 is a link-local address"),
        (
            "100.64.0.9",
            "100.64.0.9 is a carrier-grade NAT address: the provider's NAT is in front of the router",
        ),
        ("192.168.1.1", "192.168.1.1 is a private address: another router is in front of this one"),
        ("240.0.0.1", "240.0.0.1 is a reserved address"),
        ("198.18.0.1", "198.18.0.1 is not a global address"),  # (benchmarking, RFC 2544)
        ("::ffff:8.8.8.8", "::ffff:808:808 is not an IPv4 address"),
        ("2001:4860:4860::8888", "2001:4860:4860::8888 is not an IPv4 address"),
        ("x" * 500, f"'{'x' * 77}...' is not an address"),
    ],
)
async def test_a_public_address_that_is_not_global_unicast_is_not_used(external: str, why: str) -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.external = external
            mapping = await upnp.open_port(7793, target=router.ssdp, search_s=WINDOW_S)
            assert (mapping.public, mapping.why_not_public) == (None, why)
            assert (7793, "TCP") in router.mappings  # (the forwarding itself is kept: it does no harm)
            await upnp.close_port(mapping)
            nursery.cancel_scope.cancel()


async def test_a_global_public_address_is_used() -> None:
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.external = " 1.1.1.1 "
            mapping = await upnp.open_port(7794, target=router.ssdp, search_s=WINDOW_S)
            assert (mapping.public, mapping.why_not_public) == ("1.1.1.1", None)
            await upnp.close_port(mapping)
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("what", "step"),
    [
        ("/rootDesc.xml", "describe itself"),
        ("/WANIPCn.xml", "describe itself"),
        ("GetExternalIPAddress", "say its public address"),
        ("AddPortMapping", "forward the port"),
    ],
)
async def test_a_slow_router_gives_up_the_mapping_within_the_bound(
    what: str, step: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker's own bound is the one under test: trio's, GRACE_S later, must not act first
    # however slowly a loaded machine starts the worker's thread and loop.
    monkeypatch.setattr(upnp, "GRACE_S", HANG_S)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.slow.add(what)
            start = trio.current_time()
            with pytest.raises(UpnpError) as refused:
                await upnp.open_port(7795, target=router.ssdp, search_s=0.5)
            took = trio.current_time() - start
            nursery.cancel_scope.cancel()
    # (the worker's words, not trio's "did not finish setting up": the worker stopped at the bound,
    # long before the router would have answered)
    assert str(refused.value) == f"the router at 127.0.0.1 answered, but did not {step} within 0.5 s"
    assert took < SLOW_S


async def lobby_with(
    router_is: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, str, FakeRouter, float]:
    """A host with ``--upnp`` against a fake router made hostile by ``router_is``, up to its invite
    (then it stops at once): the invite, what it said, the router and how long the invite took."""
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr("p2pgenius.cli.host.reachable_addresses", lambda bound: ["127.0.0.1"])
    out = io.StringIO()
    hargs = host_args()
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))

    async def no_match(*args: Any, **kwargs: Any) -> None:
        return None

    monkeypatch.setattr(host, "host", no_match)
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as outer:
            router = await start_router(outer)
            router_is(router)
            async with trio.open_nursery() as nursery:  # (left once the host has stopped and unmapped)
                start = trio.current_time()
                invite = await nursery.start(
                    lambda task_status: host_match(
                        hargs, host, match_options(hargs), upnp_target=router.ssdp, task_status=task_status
                    )
                )
                took = trio.current_time() - start
            outer.cancel_scope.cancel()
    return invite, out.getvalue(), router, took


async def test_a_router_lying_about_its_public_address_is_left_out_of_the_invite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invite, said, router, _ = await lobby_with(
        lambda router: setattr(router, "external", "224.0.0.1"), tmp_path, monkeypatch
    )
    assert invite.addresses == ("127.0.0.1",)
    assert "public address:" not in said
    [line] = [line for line in said.splitlines() if "224.0.0.1" in line]
    assert line.startswith(f"UPnP: the router forwards port {invite.port}, but ")  # (and why not from there)
    assert router.mappings == {}  # (removed as the host stopped)


async def test_a_slow_router_does_not_hold_up_the_lobby(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upnp, "SEARCH_S", 1.0)
    invite, said, _, took = await lobby_with(
        lambda router: router.slow.add("/WANIPCn.xml"), tmp_path, monkeypatch
    )
    assert took < SLOW_S  # (it gave up at its bound, long before the router would have answered)
    assert invite.addresses == ("127.0.0.1",)
    assert "UPnP: asking the router to forward port" in said and "(up to 1 s)" in said
    assert (
        "UPnP: the router at 127.0.0.1 answered, but did not describe itself within 1 s; friends outside"
        in said
    )
