"""``host --upnp`` against a small fake router served by the test on 127.0.0.1: it answers the
SSDP search over UDP, serves its device description and service description over HTTP, and takes
SOAP calls. The real client library adds the mapping, reads the public address and removes the
mapping again (also when the host is interrupted)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.cli.main import build_parser
from p2pgenius.cli.play import Printer, Target, host_match, join_match, make_peer, match_options, target_of
from p2pgenius.net import upnp
from p2pgenius.net.upnp import UpnpError

PUBLIC_IP = "203.0.113.7"
SERVICE = "urn:schemas-upnp-org:service:WANIPConnection:1"
MATCH_S = 60

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
    """An Internet Gateway Device on loopback: SSDP on ``ssdp``, HTTP on ``http``."""

    ssdp: tuple[str, int] = ("127.0.0.1", 0)
    http: int = 0
    address: str = "127.0.0.1"  # where its web server is
    mappings: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    searches: int = 0
    only_permanent: bool = False

    async def serve_ssdp(self, sock: trio.socket.SocketType) -> None:
        while True:
            data, sender = await sock.recvfrom(2048)
            if not data.startswith(b"M-SEARCH"):
                continue
            self.searches += 1
            answer = (
                "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nEXT:\r\n"
                f"LOCATION: http://{self.address}:{self.http}/rootDesc.xml\r\nSERVER: fake UPnP/1.1\r\n"
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
        status, text = self.answer(lines[0].split()[1], headers, body.decode())
        payload = text.encode()
        await stream.send_all(
            f'HTTP/1.1 {status}\r\nContent-Type: text/xml; charset="utf-8"\r\n'
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            + payload
        )
        await stream.aclose()

    def answer(self, path: str, headers: dict[str, str], body: str) -> tuple[str, str]:
        if path == "/rootDesc.xml":
            return "200 OK", DEVICE
        if path == "/WANIPCn.xml":
            return "200 OK", SCPD
        if path != "/ctl/IPConn":
            return "404 Not Found", ""
        action = headers["soapaction"].strip('"').rpartition("#")[2]
        call = ET.fromstring(body).find(".//{http://schemas.xmlsoap.org/soap/envelope/}Body")
        assert call is not None
        args = {child.tag: child.text or "" for child in call[0]}
        self.calls.append(action)
        if action == "GetExternalIPAddress":
            return "200 OK", ENVELOPE.format(
                f'<u:GetExternalIPAddressResponse xmlns:u="{SERVICE}">'
                f"<NewExternalIPAddress>{PUBLIC_IP}</NewExternalIPAddress></u:GetExternalIPAddressResponse>"
            )
        key = (int(args["NewExternalPort"]), args["NewProtocol"])
        if action == "AddPortMapping":
            if self.only_permanent and args["NewLeaseDuration"] != "0":
                return "500 Internal Server Error", fault(725, "OnlyPermanentLeasesSupported")
            held = self.mappings.get(key)
            if held is not None and held["NewInternalClient"] != args["NewInternalClient"]:
                return "500 Internal Server Error", fault(718, "ConflictInMappingEntry")
            self.mappings[key] = args
            return "200 OK", ENVELOPE.format(f'<u:AddPortMappingResponse xmlns:u="{SERVICE}"/>')
        if action == "DeletePortMapping":
            if self.mappings.pop(key, None) is None:
                return "500 Internal Server Error", fault(714, "NoSuchEntryInArray")
            return "200 OK", ENVELOPE.format(f'<u:DeletePortMappingResponse xmlns:u="{SERVICE}"/>')
        return "500 Internal Server Error", fault(401, "Invalid Action")


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
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            mapping = await upnp.open_port(7781, target=router.ssdp, search_s=2)
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
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery, only_permanent=True)
            mapping = await upnp.open_port(7782, target=router.ssdp, search_s=2)
            assert mapping.lease_s == 0
            assert router.mappings[(7782, "TCP")]["NewLeaseDuration"] == "0"
            nursery.cancel_scope.cancel()


async def test_a_port_another_machine_has_is_said_in_words() -> None:
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            router = await start_router(nursery)
            router.mappings[(7783, "TCP")] = {"NewInternalClient": "192.168.1.99"}
            with pytest.raises(UpnpError, match="already forwards port 7783 to another machine"):
                await upnp.open_port(7783, target=router.ssdp, search_s=2)
            nursery.cancel_scope.cancel()


async def test_no_router_is_said_plainly_within_the_search_time() -> None:
    silent = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await silent.bind(("127.0.0.1", 0))  # takes the search and never answers
    start = trio.current_time()
    with silent, pytest.raises(UpnpError, match=r"^no router answered UPnP within 1 s$"):
        await upnp.open_port(7784, target=("127.0.0.1", silent.getsockname()[1]), search_s=1)
    assert trio.current_time() - start < 3


def host_args(*extra: str) -> Any:
    return build_parser().parse_args(
        ["host", "duel", "--bot", "--upnp", "--no-announce", "--port", "0", *extra]
    )


async def test_host_upnp_shows_the_public_address_invites_with_it_and_unmaps_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    monkeypatch.setattr("p2pgenius.cli.play.reachable_addresses", lambda bound: ["127.0.0.1"])
    out = io.StringIO()
    hargs = host_args()
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with trio.fail_after(MATCH_S):
        async with trio.open_nursery() as outer:
            router = await start_router(outer)
            async with trio.open_nursery() as nursery:
                invite = await nursery.start(
                    lambda task_status: host_match(
                        hargs, host, match_options(hargs), upnp_target=router.ssdp, task_status=task_status
                    )
                )
                assert router.mappings[(invite.port, "TCP")]["NewInternalClient"] == "127.0.0.1"
                # The public address first (the fake's is a documentation address: the joiner
                # here uses loopback alone).
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
    monkeypatch.setattr("p2pgenius.cli.play.reachable_addresses", lambda bound: ["127.0.0.1"])
    hargs = host_args()
    out = io.StringIO()
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    mapped: list[int] = []

    async def interrupted(*args: Any, **kwargs: Any) -> None:
        mapped.extend(port for port, _ in router.mappings)
        raise KeyboardInterrupt  # Ctrl-C while waiting for players

    monkeypatch.setattr(host, "host", interrupted)
    with trio.fail_after(30):
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
    monkeypatch.setattr("p2pgenius.cli.play.reachable_addresses", lambda bound: ["127.0.0.1"])
    monkeypatch.setattr(upnp, "SEARCH_S", 1.0)
    silent = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await silent.bind(("127.0.0.1", 0))
    out = io.StringIO()
    hargs = host_args()
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with silent, trio.fail_after(MATCH_S):
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
