"""Where a host listens and how a joiner reaches it.

* :func:`listen` opens a host's door: on one address, or (``::``) on every interface with one
  dual-stack socket, so IPv4 and IPv6 joiners both get in (trio's own listeners on ``::`` are
  IPv6 only).
* :func:`local_addresses` lists the addresses other machines may reach this one at (``ifaddr``).
* :func:`connect` tries a host's addresses the "happy eyeballs" way (RFC 8305: the next attempt
  starts 250 ms after the last, or at once when it fails; the first to connect wins) and, when
  none answers, raises :class:`ConnectError` saying what to try next.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import socket as stdlib_socket
import sys
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import trio

from p2pgenius.errors import P2PGeniusError, PeerGoneError
from p2pgenius.net import early

if TYPE_CHECKING:
    import ifaddr

EVERY_INTERFACE: Final = "::"
"""``--bind ::`` (and ``--lan``): every interface, IPv4 and IPv6."""
EVERY_IPV4: Final = "0.0.0.0"
LOOPBACK: Final = "127.0.0.1"
CONNECT_TIMEOUT_S: Final = early.CONNECT_TIMEOUT_S
"""How long a joiner tries a host's addresses before it gives up and says why."""
STAGGER_S: Final = 0.25
"""RFC 8305's connection attempt delay."""
MAX_SHOWN: Final = 8
"""At most this many local addresses are offered (a machine with many bridges has dozens)."""
VIRTUAL_PREFIXES: Final = (
    "docker", "veth", "br-", "virbr", "vmnet", "vboxnet", "lxc", "lxd", "cni", "podman"
)  # fmt: skip
"""Interfaces of containers and virtual machines: their addresses go last."""
HELP: Final = "see 'Playing across a LAN or the internet' in docs/user-guide.md"
NO_IPV6: Final = frozenset({errno.EAFNOSUPPORT, errno.EADDRNOTAVAIL, errno.EPROTONOSUPPORT, errno.EINVAL})
UNREACHABLE: Final = {
    errno.ETIMEDOUT: "timed out",
    errno.EHOSTUNREACH: "host unreachable",
    errno.ENETUNREACH: "network unreachable",
    errno.EHOSTDOWN: "host down",
}


class ConnectError(PeerGoneError):
    """No address of a host answered; the message says why and what to try next."""


def hostport(host: str, port: int) -> str:
    """``1.2.3.4:7780``, ``[2001:db8::1]:7780``, ``example.org:7780``."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True, slots=True)
class Bound:
    """An open door: the listener, the address it was bound to, its port, and the families it
    takes (``ipv4``, ``ipv6``)."""

    listener: trio.SocketListener
    host: str
    port: int
    ipv4: bool
    ipv6: bool

    @property
    def everywhere(self) -> bool:
        """Listening on every interface (of one or both families)."""
        return self.host in (EVERY_INTERFACE, EVERY_IPV4)

    @property
    def loopback(self) -> bool:
        """Only this machine can connect."""
        with contextlib.suppress(ValueError):
            return ipaddress.ip_address(self.host).is_loopback
        return self.host == "localhost"

    @property
    def address(self) -> str:
        """Where it listens, as ``HOST:PORT`` (``[::]:PORT`` for every interface)."""
        return hostport(self.host, self.port)

    def families(self) -> str:
        """Which families it takes: "IPv4 and IPv6", "IPv4 only" or "IPv6 only"."""
        if self.ipv4 and self.ipv6:
            return "IPv4 and IPv6"
        return "IPv4 only" if self.ipv4 else "IPv6 only"


async def listen(host: str, port: int) -> Bound:
    """A listener on ``host``: ``::`` is every interface, IPv4 and IPv6 (IPv4 alone on a machine
    without IPv6); anything else is that address alone. A port in use or an address that is not
    this machine's raise :class:`P2PGeniusError` saying so."""
    try:
        if host == EVERY_INTERFACE:
            try:
                listener = await _dual_stack(port)
                return Bound(listener, host, listener.socket.getsockname()[1], ipv4=True, ipv6=True)
            except OSError as exc:
                if exc.errno not in NO_IPV6:
                    raise
                host = EVERY_IPV4  # no IPv6 here: every IPv4 interface
        listeners = await trio.open_tcp_listeners(port, host=host)
    except OSError as exc:
        raise P2PGeniusError(_listen_problem(host, port, exc)) from None
    for extra in listeners[1:]:  # a name with several addresses: the first
        extra.socket.close()
    listener = listeners[0]
    name = listener.socket.getsockname()
    family = listener.socket.family
    return Bound(
        listener, host, name[1], ipv4=family == stdlib_socket.AF_INET, ipv6=family == stdlib_socket.AF_INET6
    )


async def _dual_stack(port: int) -> trio.SocketListener:
    """One IPv6 socket on ``::`` that takes IPv4 too (IPV6_V6ONLY off)."""
    sock = trio.socket.socket(trio.socket.AF_INET6, trio.socket.SOCK_STREAM)
    try:
        if sys.platform != "win32":
            sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_REUSEADDR, 1)
        sock.setsockopt(trio.socket.IPPROTO_IPV6, trio.socket.IPV6_V6ONLY, 0)
        await sock.bind((EVERY_INTERFACE, port))
        sock.listen(stdlib_socket.SOMAXCONN)
    except BaseException:
        sock.close()
        raise
    return trio.SocketListener(sock)


def _listen_problem(host: str, port: int, exc: OSError) -> str:
    where = hostport(host, port)
    if exc.errno == errno.EADDRINUSE:
        return f"cannot listen on {where}: another program uses port {port} (choose another --port)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {where}: {host} is not an address of this machine (see --bind)"
    if exc.errno == errno.EACCES:
        return f"cannot listen on {where}: ports under 1024 need special rights (choose a port above 1024)"
    if isinstance(exc, stdlib_socket.gaierror):
        return f"cannot listen on {where}: no such address ({exc.strerror})"
    return f"cannot listen on {where}: {exc.strerror or exc}"


# -- this machine's addresses ---------------------------------------------------------------------


def local_addresses(
    *, ipv4: bool = True, ipv6: bool = True, adapters: Iterable[ifaddr.Adapter] | None = None
) -> list[str]:
    """The addresses other machines may reach this one at, best first: IPv4, then global IPv6,
    then unique-local IPv6; those of containers' and virtual machines' interfaces last. Loopback,
    link-local (they need an interface name the other side cannot know) and multicast ones are
    left out; at most ``MAX_SHOWN``."""
    if adapters is None:
        import ifaddr  # noqa: PLC0415  (only a host for others needs it)

        adapters = ifaddr.get_adapters()
    ranked: list[tuple[int, int, int, str]] = []
    for order, adapter in enumerate(adapters):
        names = f"{adapter.name} {adapter.nice_name}".lower().split()
        virtual = any(n.startswith(VIRTUAL_PREFIXES) for n in names)
        for ip in adapter.ips:
            text = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            try:
                address = ipaddress.ip_address(text.split("%")[0])
            except ValueError:
                continue
            kind = _kind(address, ipv4=ipv4, ipv6=ipv6)
            if kind is None:
                continue
            ranked.append((int(virtual), kind, order, str(address)))
    seen: list[str] = []
    for *_, address_text in sorted(ranked):
        if address_text not in seen:
            seen.append(address_text)
    return seen[:MAX_SHOWN]


def _kind(address: ipaddress.IPv4Address | ipaddress.IPv6Address, *, ipv4: bool, ipv6: bool) -> int | None:
    """How good ``address`` is for others to reach (0: IPv4, 1: global IPv6, 2: unique-local
    IPv6), or None if it is left out (loopback, link-local, multicast, unspecified, a family not
    asked for, an IPv4-mapped IPv6)."""
    if address.is_loopback or address.is_link_local or address.is_multicast or address.is_unspecified:
        return None
    if address.version == 4:
        return 0 if ipv4 else None
    if not ipv6 or address.ipv4_mapped is not None:
        return None
    return 2 if address in ipaddress.ip_network("fc00::/7") else 1


def reachable_addresses(bound: Bound, *, adapters: Iterable[ifaddr.Adapter] | None = None) -> list[str]:
    """The addresses a joiner may use for ``bound``: this machine's when it listens everywhere
    (loopback if it has no other), else the one it listens on."""
    if bound.everywhere:
        found = local_addresses(ipv4=bound.ipv4, ipv6=bound.ipv6, adapters=adapters)
        return found or ([LOOPBACK] if bound.ipv4 else ["::1"])
    return [bound.host]


# -- connecting ---------------------------------------------------------------------------------

Opener = Callable[[int, Any], Awaitable[trio.abc.Stream]]
"""Opens a stream to one socket address of one family (tests pass their own)."""


async def open_socket(family: int, sockaddr: Any) -> trio.abc.Stream:
    """A TCP stream to ``sockaddr``: the one ``join`` began while it started, if it began one
    there and it connected (``net/early.py``), else a new one."""
    begun = early.claim(family, sockaddr)
    if begun is not None:
        taken = await _take(begun)
        if taken is not None:
            return taken
    sock = trio.socket.socket(family, trio.socket.SOCK_STREAM)
    try:
        await sock.connect(sockaddr)
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


async def _take(begun: early.Begun) -> trio.abc.Stream | None:
    """``begun``'s socket as a stream, once it is done (None: it did not connect, or it is older
    than ``early.STALE_S`` and was closed)."""
    try:
        if not begun.done.is_set():  # (it is, most often: it connected while the program loaded)
            await trio.to_thread.run_sync(begun.done.wait, abandon_on_cancel=True)
    except BaseException:
        begun.drop()  # (another address won, or the join stopped: its socket is closed)
        raise
    if not early.fresh(begun):
        begun.drop()
        return None
    assert begun.socket is not None
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(begun.socket))
    early.made_of(stream, begun)
    return stream


async def resolve(targets: Sequence[tuple[str, int]]) -> list[tuple[int, Any, str]]:
    """(family, socket address, label) for each target, a name's addresses in RFC 8305's order
    (IPv6 and IPv4 taking turns); a name that does not resolve is left out, and if none does,
    :class:`ConnectError` says so."""
    resolved: list[tuple[int, Any, str]] = []
    unknown: list[str] = []
    for host, port in targets:
        try:
            found = await trio.socket.getaddrinfo(host, port, type=trio.socket.SOCK_STREAM)
        except stdlib_socket.gaierror as exc:
            unknown.append(f"{host} ({exc.strerror})")
            continue
        v6: list[tuple[int, Any]] = [(f, a) for f, _, _, _, a in found if f == trio.socket.AF_INET6]
        v4: list[tuple[int, Any]] = [(f, a) for f, _, _, _, a in found if f == trio.socket.AF_INET]
        turns = [x for pair in zip(v6, v4, strict=False) for x in pair]
        turns += v6[len(v4) :] + v4[len(v6) :]
        for family, sockaddr in turns:
            entry = (family, sockaddr, hostport(str(sockaddr[0]), port))
            if entry[2] not in (r[2] for r in resolved):
                resolved.append(entry)
    if not resolved:
        raise ConnectError(f"cannot find the host: no address for {', '.join(unknown)}; check the spelling")
    return resolved


NOTHING_LEFT: Final = "no address is left to try"


async def connect(
    targets: Sequence[tuple[str, int]],
    *,
    timeout_s: float = CONNECT_TIMEOUT_S,
    stagger_s: float = STAGGER_S,
    opener: Opener = open_socket,
    exclude: Collection[str] = (),
) -> tuple[trio.abc.Stream, str]:
    """A stream to the first of ``targets`` that answers, and its ``HOST:PORT``; attempts start
    ``stagger_s`` apart (at once after a failure) and all stop after ``timeout_s``. ``exclude``:
    ``HOST:PORT`` labels not to try (addresses where another host answered)."""
    candidates = [c for c in await resolve(targets) if c[2] not in exclude]
    if not candidates:
        raise ConnectError(NOTHING_LEFT)
    failures: dict[str, OSError] = {}
    won: list[tuple[trio.abc.Stream, str]] = []

    async def attempt(
        family: int, sockaddr: Any, label: str, failed: trio.Event, nursery: trio.Nursery
    ) -> None:
        try:
            stream = await opener(family, sockaddr)
        except OSError as exc:
            failures[label] = exc
            failed.set()
            return
        if won:
            await trio.aclose_forcefully(stream)
            return
        won.append((stream, label))
        nursery.cancel_scope.cancel()

    try:
        with trio.move_on_after(timeout_s):
            async with trio.open_nursery() as nursery:
                for family, sockaddr, label in candidates:
                    failed = trio.Event()
                    nursery.start_soon(attempt, family, sockaddr, label, failed, nursery)
                    with trio.move_on_after(stagger_s):
                        await failed.wait()
    except BaseException:
        for stream, _ in won:  # (cancelled from outside once one had connected: not leaked)
            await trio.aclose_forcefully(stream)
        raise
    if won:
        return won[0]
    raise ConnectError(explain([label for _, _, label in candidates], failures, timeout_s))


def explain(labels: Sequence[str], failures: dict[str, OSError], timeout_s: float) -> str:
    """Why no address answered, in one line, with what to try next."""
    refused = [label for label in labels if _refused(failures.get(label))]
    if len(refused) == len(labels):
        return (
            f"nothing is listening at {', '.join(labels)} (connection refused): is the host running, "
            "and is that its port? The host shows its addresses and an invite when it starts"
        )
    reasons = []
    for label in labels:
        exc = failures.get(label)
        if exc is None:
            reasons.append(f"{label} did not answer in {timeout_s:g} s")
        elif _refused(exc):
            reasons.append(f"{label} refused")
        else:
            reasons.append(f"{label} {UNREACHABLE.get(exc.errno or 0) or exc.strerror or exc}")
    return (
        f"cannot reach the host ({'; '.join(reasons)}): a firewall or a NAT router is in the way. Ask "
        "the host for an invite (it lists every address) and, behind a home router, to host with "
        f"--upnp or to forward the port; {HELP}"
    )


def _refused(exc: OSError | None) -> bool:
    return exc is not None and (isinstance(exc, ConnectionRefusedError) or exc.errno == errno.ECONNREFUSED)
