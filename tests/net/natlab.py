"""A NAT lab for tests: players behind home routers that masquerade, and a transit relay on the
"internet", built from Linux network namespaces (root only).

Loopback tests cannot show what a relay is for: on 127.0.0.1 every peer reaches every other.
Here a home host can only open connections outwards, as behind a real home router, so a direct
connection to another player fails the way it fails on the internet (silently: the SYN is dropped,
nothing refuses it) and only the relay, or whatever the program does about NATs, gets through.

The layout, for sites a, b, c, ... (k = 1, 2, 3, ...)::

    home-a 10.0.1.2 --lan-- 10.0.1.1 nat-a 203.0.113.21 --+
    home-b 10.0.2.2 --lan-- 10.0.2.1 nat-b 203.0.113.22 --+-- br0 in pub: 203.0.113.1 (gateway)
    home-c 10.0.3.2 --lan-- 10.0.3.1 nat-c 203.0.113.23 --+          and 203.0.113.10 (relay)

- ``pub`` is the internet: one bridge on TEST-NET-3 (203.0.113.0/24). The relay (and any other
  public server a test runs there) has 203.0.113.10. pub does not forward, and it blackholes
  10.0.0.0/8: a packet to another site's private address sent there is dropped without an answer.
- ``nat-X`` masquerades what its home sends out. Into its home it forwards only the replies of
  connections the home opened (conntrack ESTABLISHED,RELATED), and it drops (DROP, never REJECT)
  every new connection that reaches its public address: connecting to 203.0.113.22:any hangs,
  just as connecting to 10.0.2.2 does. Linux masquerading keeps a connection's source port when
  it can and lets in only what comes from the exact address and port a connection went to (a
  "port-restricted cone" NAT, not a symmetric one): two homes that both connect out to each
  other's public address and port at once (TCP simultaneous open, hole punching) do get through.
  ``Lab(symmetric=True)`` masquerades with ``--random-fully`` instead: a new source port for every
  connection, as a symmetric NAT does, so nothing but a relay joins two homes.
- ``home-X`` is a player's machine: its default route goes via its router.
- IPv4 only (IPv6 is disabled in every namespace, so nothing leaks over link-local addresses);
  ``lo`` is up everywhere. Neighbours (ARP) on the public segment are static, so a first packet
  does not wait for an ARP round trip through a delayed link.

Delay: ``Lab(delay_ms=D)`` delays every packet by D ms in *each direction* on every router's
link to pub. So, plus about a millisecond a round trip (measured: 51.3 ms for D = 25):

- home <-> relay (or any host in pub): round trip 2*D; a TCP connect from a home to the relay
  takes one round trip, 2*D.
- home-a -> relay -> home-b: one way 2*D; a message and its answer, a -> b -> a, 4*D.
- between a home and its own router: no delay.

The kernels this lab runs on may lack netem (``tc qdisc add ... netem`` says "Specified qdisc kind
is unknown" without CONFIG_NET_SCH_NETEM), so a delayed link is not a veth pair but two TAP
devices joined by a small process of this file (``python natlab.py wire ...``) that holds each
frame for D ms. Without a delay the links are veth pairs and no process of ours is on the path.

Names: every namespace of a lab starts with ``p2pl{pid}n{n}-`` (``p2pl4242n1-nat-a``), so labs of
parallel runs do not clash, and a lab that finds namespaces of a pid that no longer runs (a run
that was killed) deletes them. Processes started in a lab get the environment of this process
plus the ``env`` given (a player's HOME and P2PGENIUS_HOME), and run with the lab's work
directory as their working directory unless told otherwise.

Usage (``where`` is "pub", a site's name for its home host, or "nat-X")::

    pytestmark = needs_lab()  # skipped, with the reason, where lab_available() says why not

    with Lab(sites=2, delay_ms=25, workdir=tmp_path) as lab:
        lab.start_relay()  # twist transitrelay on 203.0.113.10:4001, up when this returns
        host = lab.run("a", [sys.executable, "-m", "p2pgenius", ...], env={"P2PGENIUS_HOME": ...})
        lab.wait_listening("a", lab.site("a").address, port)  # from inside home-a
        lab.connect("b", lab.site("a").public, port, timeout=1)  # Connect("timeout", 1.0)
    # every process killed, every namespace deleted
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import itertools
import os
import re
import select
import shutil
import signal
import string
import struct
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from tests.patience import HANG_S

if TYPE_CHECKING:
    import pytest

RELAY_ADDRESS = "203.0.113.10"
"""The relay host's address, in pub."""
GATEWAY = "203.0.113.1"
"""pub's address as the routers' default gateway."""
MAX_SITES = 5
PREFIX = "p2pl"
_OURS = re.compile(rf"^{PREFIX}(\d+)n(\d+)-")
_LAB_NUMBERS = itertools.count(1)
_BIN = Path(sys.executable).parent
_REPO = Path(__file__).resolve().parents[2]
_COMMAND_TIMEOUT_S = HANG_S

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000


class LabError(RuntimeError):
    """The lab could not be built here, or a command building it failed."""


@dataclass(frozen=True)
class Site:
    """One private site: a home host behind its NAT router."""

    name: str  # "a", "b", ...
    netns: str  # the home host's namespace
    router: str  # the NAT router's namespace
    address: str  # the home host's private address, 10.0.k.2
    gateway: str  # the router's address on the home's LAN, 10.0.k.1
    public: str  # the router's public address, 203.0.113.(20 + k)


class Connect(NamedTuple):
    """How one TCP connect attempt ended, as seen from inside a namespace."""

    outcome: str  # "connected", "timeout", "refused", or "error: ..." (unreachable and the like)
    seconds: float  # how long the connect took (to the outcome)


def _mac(site: int, role: int) -> str:
    """A locally administered MAC address (site 0 is pub)."""
    return f"02:70:00:00:{site:02x}:{role:02x}"


_BRIDGE_MAC = _mac(0, 1)
_ROUTER_PUBLIC, _PUB_PORT = 1, 2  # roles for _mac


def _run(argv: Sequence[str], stdin: str | None = None) -> str:
    """Run one command to completion; a failure raises with what the command said."""
    try:
        done = subprocess.run(
            list(argv),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=_COMMAND_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise LabError(f"{' '.join(argv)}: {error}") from error
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise LabError(f"{' '.join(argv)}: {said[-1] if said else f'exit status {done.returncode}'}")
    return done.stdout


def netns_names() -> list[str]:
    """The network namespaces of this machine, by name (``ip netns list``)."""
    return [line.split()[0] for line in _run(["ip", "netns", "list"]).splitlines() if line.strip()]


def _pid_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_inside(netns: str) -> None:
    """SIGKILL every process still in a namespace (a child's children included)."""
    with contextlib.suppress(LabError):
        for pid in _run(["ip", "netns", "pids", netns]).split():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)


def _delete_netns(netns: str) -> None:
    _kill_inside(netns)
    with contextlib.suppress(LabError):
        _run(["ip", "netns", "delete", netns])


def clean_leftovers() -> list[str]:
    """Delete the namespaces of labs whose process no longer runs (a run killed before it could
    clean up); returns their names."""
    found = [
        name
        for name in netns_names()
        if (match := _OURS.match(name)) and int(match[1]) != os.getpid() and not _pid_runs(int(match[1]))
    ]
    for name in found:
        _delete_netns(name)
    return found


def _probe(delay: bool) -> None:
    """Build and delete a throwaway namespace with a veth pair and a router's firewall (and, for
    ``delay``, make and drop a TAP device)."""
    if delay:
        os.close(_open_tap()[0])
    netns = f"{PREFIX}{os.getpid()}n0-probe"
    _run(["ip", "netns", "add", netns])
    try:
        _run(["ip", "-n", netns, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1"])
        _run(["ip", "netns", "exec", netns, "iptables-restore"], stdin=_firewall(symmetric=True))
    finally:
        _delete_netns(netns)


@functools.cache
def lab_available(delay: bool = False) -> str | None:
    """None if a lab (with ``delay``: a delayed one, which needs /dev/net/tun) can be built here,
    else a one-line reason. Tried for real, once a process: a throwaway namespace and veth pair."""
    if not sys.platform.startswith("linux"):
        return "the NAT lab needs Linux network namespaces"
    if os.geteuid() != 0:
        return "the NAT lab needs root (network namespaces)"
    for tool in ("ip", "iptables", "iptables-restore"):
        if shutil.which(tool) is None:
            return f"the NAT lab needs `{tool}`, which is not installed"
    try:
        _probe(delay)
    except LabError as error:
        return f"cannot build the NAT lab here: {error}"
    return None


def needs_lab(delay: bool = False) -> pytest.MarkDecorator:
    """``@needs_lab()``: skip a test, with the reason, where the lab cannot be built. The probe
    runs once a process, the first time this is called (when the test module is imported)."""
    import pytest

    reason = lab_available(delay)
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def _open_tap() -> tuple[int, str]:
    """A new TAP device in this namespace: its file descriptor and the name the kernel gave it."""
    try:
        fd = os.open("/dev/net/tun", os.O_RDWR)
    except OSError as error:
        raise LabError(f"cannot open /dev/net/tun: {error}") from error
    try:
        answer = fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", b"", IFF_TAP | IFF_NO_PI))
    except OSError as error:
        os.close(fd)
        raise LabError(f"cannot make a TAP device: {error}") from error
    return fd, answer[:16].rstrip(b"\0").decode()


_NO_IPV6 = ("net/ipv6/conf/all/disable_ipv6=1", "net/ipv6/conf/default/disable_ipv6=1")
_STRICT_CONNTRACK = (
    # Conntrack does not adopt a connection it saw no SYN of as established: nothing from
    # outside gets in on a made-up mid-stream packet. (There once the firewall loaded conntrack.)
    "net/netfilter/nf_conntrack_tcp_loose=0",
)


def _sysctl(netns: str, settings: Sequence[str], if_there: bool = False) -> None:
    """Set ``key=value`` settings of a namespace (a key that is not there is skipped with
    ``if_there``, else fails). sysctl(8) may not be installed: /proc/sys written from inside."""
    lines = []
    for key, value in (setting.split("=") for setting in settings):
        path = f"/proc/sys/{key}"
        lines.append(
            f"if [ -e {path} ]; then echo {value} > {path}; fi" if if_there else f"echo {value} > {path}"
        )
    _run(["ip", "netns", "exec", netns, "sh", "-ec", "\n".join(lines)])


def _firewall(symmetric: bool = False) -> str:
    """The router's rules (iptables-restore): masquerade out, nothing in but replies, DROP."""
    return "\n".join(
        [
            "*filter",
            ":INPUT ACCEPT [0:0]",
            ":FORWARD DROP [0:0]",
            ":OUTPUT ACCEPT [0:0]",
            "-A INPUT -i pub -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
            "-A INPUT -i pub -j DROP",
            # Invalid packets would leave un-NATed, with the home's private address on them.
            "-A FORWARD -m conntrack --ctstate INVALID -j DROP",
            "-A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
            "-A FORWARD -i lan -o pub -j ACCEPT",
            "COMMIT",
            "*nat",
            ":PREROUTING ACCEPT [0:0]",
            ":INPUT ACCEPT [0:0]",
            ":OUTPUT ACCEPT [0:0]",
            ":POSTROUTING ACCEPT [0:0]",
            "-A POSTROUTING -o pub -j MASQUERADE" + (" --random-fully" if symmetric else ""),
            "COMMIT",
            "",
        ]
    )


_CONNECT = """
import socket, sys, time
host, port, timeout, until = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
deadline = time.monotonic() + until
while True:
    start = time.monotonic()
    try:
        socket.create_connection((host, port), timeout=timeout).close()
        outcome = "connected"
    except TimeoutError:
        outcome = "timeout"
    except ConnectionRefusedError:
        outcome = "refused"
    except OSError as error:
        outcome = f"error: {error}"
    took = time.monotonic() - start
    if outcome == "connected" or time.monotonic() + 0.02 > deadline:
        break
    time.sleep(0.02)
print(outcome, took, sep="\\t")
"""
"""Connect once, or retry until ``until`` seconds have passed; print the last outcome and time."""


class Lab:
    """A NAT lab (see the module's docstring): a context manager; ``close()`` undoes it all."""

    relay_address = RELAY_ADDRESS

    def __init__(
        self,
        sites: int = 3,
        delay_ms: float = 0,
        workdir: Path | str | None = None,
        *,
        symmetric: bool = False,
    ) -> None:
        """``sites`` private sites a, b, ... (1 to 5); ``delay_ms`` each way on every router's
        public link; ``workdir`` for the logs and the processes' working directory (a temporary
        directory, deleted on close, if None); ``symmetric``: NATs that give every connection a
        new public port (see the module's docstring)."""
        if not 1 <= sites <= MAX_SITES:
            raise ValueError(f"a lab has 1 to {MAX_SITES} sites, not {sites}")
        if delay_ms < 0:
            raise ValueError("a delay cannot be negative")
        if (reason := lab_available(delay=delay_ms > 0)) is not None:
            raise LabError(reason)
        clean_leftovers()
        self.delay_ms = delay_ms
        self.symmetric = symmetric
        self.prefix = f"{PREFIX}{os.getpid()}n{next(_LAB_NUMBERS)}-"
        self._own_workdir = workdir is None
        self.workdir = Path(tempfile.mkdtemp(prefix="natlab-") if workdir is None else workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.pub = self.prefix + "pub"
        self.sites = {
            name: Site(
                name=name,
                netns=f"{self.prefix}home-{name}",
                router=f"{self.prefix}nat-{name}",
                address=f"10.0.{k}.2",
                gateway=f"10.0.{k}.1",
                public=f"203.0.113.{20 + k}",
            )
            for k, name in enumerate(string.ascii_lowercase[:sites], start=1)
        }
        self._namespaces: list[str] = []
        self._processes: list[subprocess.Popen[Any]] = []
        self._wire: subprocess.Popen[str] | None = None
        self._wire_watch: int | None = None
        self._closed = False
        atexit.register(self.close)
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    # -- building -------------------------------------------------------------------------------

    def _build(self) -> None:
        everything = [self.pub] + [ns for site in self.sites.values() for ns in (site.router, site.netns)]
        routers = {site.router for site in self.sites.values()}
        for netns in everything:
            _run(["ip", "netns", "add", netns])
            self._namespaces.append(netns)
            _sysctl(netns, _NO_IPV6, if_there=True)
            _sysctl(netns, [f"net/ipv4/ip_forward={int(netns in routers)}"])
            _run(["ip", "-n", netns, "link", "set", "dev", "lo", "up"])
        self._build_pub()
        taps: list[tuple[int, int]] = []
        try:
            for k, site in enumerate(self.sites.values(), start=1):
                self._public_link(k, site, taps)
                self._build_site(site)
            if taps:
                self._start_wire(taps)
        finally:
            for pair in taps:
                for fd in pair:
                    os.close(fd)

    def _build_pub(self) -> None:
        pub = ["ip", "-n", self.pub]
        _run([*pub, "link", "add", "br0", "address", _BRIDGE_MAC, "type", "bridge"])
        _run([*pub, "link", "set", "dev", "br0", "up"])
        for address in (GATEWAY, RELAY_ADDRESS):
            _run([*pub, "address", "add", f"{address}/24", "dev", "br0"])
        _run([*pub, "route", "add", "blackhole", "10.0.0.0/8"])
        for k, site in enumerate(self.sites.values(), start=1):
            mac = _mac(k, _ROUTER_PUBLIC)
            _run([*pub, "neigh", "replace", site.public, "lladdr", mac, "dev", "br0", "nud", "permanent"])

    def _public_link(self, k: int, site: Site, taps: list[tuple[int, int]]) -> None:
        """The router's leg ``pub`` and its port ``X`` on pub's bridge: a veth pair, or (with a
        delay) two TAP devices that the wire process joins."""
        router_mac, port_mac = _mac(k, _ROUTER_PUBLIC), _mac(k, _PUB_PORT)
        if self.delay_ms == 0:
            _run(
                ["ip", "-n", site.router, "link", "add", "pub", "address", router_mac, "type", "veth"]
                + ["peer", "name", site.name, "address", port_mac, "netns", self.pub]
            )
        else:
            router_fd, router_tap = _open_tap()
            try:
                port_fd, port_tap = _open_tap()
            except LabError:
                os.close(router_fd)
                raise
            taps.append((router_fd, port_fd))
            ends = ((router_tap, site.router, "pub", router_mac), (port_tap, self.pub, site.name, port_mac))
            for tap, netns, name, mac in ends:
                _run(["ip", "link", "set", "dev", tap, "netns", netns, "name", name])
                _run(["ip", "-n", netns, "link", "set", "dev", name, "address", mac])
        _run(["ip", "-n", self.pub, "link", "set", "dev", site.name, "master", "br0", "up"])

    def _build_site(self, site: Site) -> None:
        router, home = ["ip", "-n", site.router], ["ip", "-n", site.netns]
        _run([*router, "address", "add", f"{site.public}/24", "dev", "pub"])
        _run([*router, "link", "set", "dev", "pub", "up"])
        _run([*router, "route", "add", "default", "via", GATEWAY])
        neighbours = [(GATEWAY, _BRIDGE_MAC), (RELAY_ADDRESS, _BRIDGE_MAC)] + [
            (other.public, _mac(j, _ROUTER_PUBLIC))
            for j, other in enumerate(self.sites.values(), start=1)
            if other is not site
        ]
        for address, mac in neighbours:
            _run([*router, "neigh", "replace", address, "lladdr", mac, "dev", "pub", "nud", "permanent"])
        _run([*router, "link", "add", "lan", "type", "veth", "peer", "name", "lan", "netns", site.netns])
        _run([*router, "address", "add", f"{site.gateway}/24", "dev", "lan"])
        _run([*router, "link", "set", "dev", "lan", "up"])
        _run([*home, "address", "add", f"{site.address}/24", "dev", "lan"])
        _run([*home, "link", "set", "dev", "lan", "up"])
        _run([*home, "route", "add", "default", "via", site.gateway])
        _run(["ip", "netns", "exec", site.router, "iptables-restore"], stdin=_firewall(self.symmetric))
        _sysctl(site.router, _STRICT_CONNTRACK, if_there=True)

    def _start_wire(self, taps: list[tuple[int, int]]) -> None:
        watch, self._wire_watch = os.pipe()
        pairs = [f"{a}:{b}" for a, b in taps]
        fds = [watch, *(fd for pair in taps for fd in pair)]
        with (self.workdir / "wire.log").open("w") as log:
            self._wire = subprocess.Popen(
                [sys.executable, "-P", __file__, "wire", str(self.delay_ms / 1000), str(watch), *pairs],
                pass_fds=fds,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=_wire_environment(),
            )
        os.close(watch)
        assert self._wire.stdout is not None
        if self._wire.stdout.readline().strip() != "ready":
            raise LabError(f"the wire process did not start: {(self.workdir / 'wire.log').read_text()}")

    # -- using ----------------------------------------------------------------------------------

    def site(self, name: str) -> Site:
        """Site ``name`` ("a", "b", ...)."""
        return self.sites[name]

    def netns(self, where: str) -> str:
        """The namespace of ``where``: "pub", a site's name (its home host) or "nat-X"."""
        if where == "pub":
            return self.pub
        if where in self.sites:
            return self.sites[where].netns
        if where.startswith("nat-") and where[4:] in self.sites:
            return self.sites[where[4:]].router
        raise KeyError(f"no {where!r} in this lab: 'pub', a site {sorted(self.sites)} or 'nat-X'")

    @property
    def namespaces(self) -> list[str]:
        """Every namespace this lab made (and has not deleted yet)."""
        return list(self._namespaces)

    def run(
        self, where: str, argv: Sequence[str], env: Mapping[str, str] | None = None, **popen: Any
    ) -> subprocess.Popen[Any]:
        """Start ``argv`` in ``where`` (see ``netns``); it is killed on close. ``env`` is added to
        this process's environment; ``popen`` goes to subprocess.Popen (cwd: the lab's workdir
        unless given). Give programs by absolute path (sys.executable)."""
        if self._closed:
            raise LabError("the lab is closed")
        popen.setdefault("cwd", self.workdir)
        process = subprocess.Popen(
            ["ip", "netns", "exec", self.netns(where), *argv], env={**os.environ, **(env or {})}, **popen
        )
        self._processes.append(process)
        return process

    def python(
        self, where: str, code: str, *args: str, env: Mapping[str, str] | None = None, **popen: Any
    ) -> subprocess.Popen[Any]:
        """``python -c code args...`` in ``where``, with this interpreter (the venv's)."""
        return self.run(where, [sys.executable, "-c", code, *args], env=env, **popen)

    def connect(
        self, where: str, host: str, port: int, timeout: float = 2.0, retry_for: float = 0
    ) -> Connect:
        """Try a TCP connect from ``where`` to host:port; with ``retry_for``, try again on any
        failure until that many seconds have passed (for a server that is starting)."""
        process = self.python(
            where, _CONNECT, host, str(port), str(timeout), str(retry_for), stdout=subprocess.PIPE, text=True
        )
        out, _ = process.communicate(timeout=timeout + retry_for + _COMMAND_TIMEOUT_S)
        outcome, _, seconds = out.strip().rpartition("\t")
        if not outcome:
            raise LabError(
                f"the connect from {where} to {host}:{port} said nothing (exit {process.returncode})"
            )
        return Connect(outcome, float(seconds))

    def wait_listening(self, where: str, host: str, port: int, timeout: float = HANG_S) -> None:
        """Return once host:port accepts TCP connections from ``where``, or raise TimeoutError."""
        tried = self.connect(where, host, port, timeout=min(timeout, 2.0), retry_for=timeout)
        if tried.outcome != "connected":
            raise TimeoutError(f"{host}:{port} does not accept connections from {where}: {tried.outcome}")

    def start_relay(self, port: int = 4001, timeout: float = HANG_S) -> subprocess.Popen[Any]:
        """Start the magic-wormhole transit relay (``twist transitrelay``) in pub on
        relay_address:port; return once it accepts connections. It logs to workdir/relay.log,
        writes no usage database, and is stopped on close."""
        twist = _BIN / "twist"
        if not twist.exists():
            raise LabError(f"no {twist}: install the test extra (magic-wormhole-transit-relay)")
        argv = [str(twist), "--log-format=text", "transitrelay", f"--port=tcp:{port}:interface=0.0.0.0"]
        with (self.workdir / "relay.log").open("a") as log:
            relay = self.run("pub", argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            self.wait_listening("pub", RELAY_ADDRESS, port, timeout)
        except TimeoutError as error:
            raise LabError(f"the relay did not start: {(self.workdir / 'relay.log').read_text()}") from error
        return relay

    # -- undoing --------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every process started here (SIGTERM, then SIGKILL), delete every namespace and,
        unless it was given, the work directory. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        _stop(self._processes)
        for netns in reversed(self._namespaces):
            _delete_netns(netns)
        self._namespaces.clear()
        if self._wire_watch is not None:
            os.close(self._wire_watch)  # the wire process sees EOF and leaves
        _stop([self._wire] if self._wire else [])
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _wire_environment() -> dict[str, str]:
    """The wire runs this file as a script with -P, which keeps tests/net off sys.path: the
    repository root goes on it so that this file's own imports (tests.patience) resolve."""
    path = [str(_REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def _stop(processes: Sequence[subprocess.Popen[Any]], grace: float = 2.0) -> None:
    running = [process for process in processes if process.poll() is None]
    for process in running:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    deadline = time.monotonic() + grace
    for process in running:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for process in processes:
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()


# -- the wire: a delayed link ---------------------------------------------------------------------


def _deliver_due(queues: Mapping[int, deque[tuple[float, bytes]]], now: float) -> float | None:
    """Write every frame whose time has come; return the seconds until the next one is due."""
    wait: float | None = None
    for fd, queue in queues.items():
        while queue and queue[0][0] <= now:
            with contextlib.suppress(OSError):  # a full or gone device: the frame is lost
                os.write(fd, queue.popleft()[1])
        if queue:
            wait = min(wait, queue[0][0] - now) if wait is not None else queue[0][0] - now
    return wait


def _receive(fd: int, queue: deque[tuple[float, bytes]], due: float) -> None:
    """Queue every frame waiting on ``fd`` for delivery at ``due``."""
    for _ in range(64):
        try:
            queue.append((due, os.read(fd, 65536)))
        except BlockingIOError:
            return


def wire(delay_s: float, watch: int, pairs: Sequence[tuple[int, int]], ready: IO[str]) -> None:
    """Copy frames between the TAP devices of each pair, each ``delay_s`` seconds late, until
    ``watch`` (a pipe whose writer is the lab) reads EOF or a device goes away."""
    other = dict(pairs) | {b: a for a, b in pairs}
    for fd in other:
        os.set_blocking(fd, False)
    queues: dict[int, deque[tuple[float, bytes]]] = {fd: deque() for fd in other}
    print("ready", file=ready, flush=True)
    while True:
        wait = _deliver_due(queues, time.monotonic())
        readable, _, _ = select.select([watch, *other], [], [], wait)
        if watch in readable:
            return
        due = time.monotonic() + delay_s
        for fd in readable:
            try:
                _receive(fd, queues[other[fd]], due)
            except OSError:
                return


def _wire_main(argv: Sequence[str]) -> None:
    delay, watch, *pairs = argv
    wire(float(delay), int(watch), [(int(a), int(b)) for a, b in (p.split(":") for p in pairs)], sys.stdout)


if __name__ == "__main__" and sys.argv[1:2] == ["wire"]:
    _wire_main(sys.argv[2:])
