"""``p2pgenius host``: listen, tell joiners the invite (forwarding the port on the router with
``--upnp``, announcing the match on the local network with ``--lan``), and play."""

from __future__ import annotations

import argparse
import contextlib
import secrets
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypedDict, Unpack

import trio

from p2pgenius.cli.play import (
    Printer,
    check_level,
    check_partner,
    check_seats,
    held,
    listed_setting,
    make_peer,
    match_options,
    match_setup,
    one_line,
    played,
)
from p2pgenius.cli.terminal import to_clipboard
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.local_files import PRIVATE, replace
from p2pgenius.net import discovery, transit, upnp
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.addresses import (
    EVERY_INTERFACE,
    HELP,
    LOOPBACK,
    Bound,
    hostport,
    listen,
    reachable_addresses,
)
from p2pgenius.net.events import Listening, NetEvent, PeerJoined, PeerLeft
from p2pgenius.net.invite import Invite
from p2pgenius.net.peer import Peer

RELAY_VARIABLE = "P2PGENIUS_RELAY"
RELAYS_FILE = "relays"
"""In the config directory: the relays a host waits at when neither ``--relay`` nor
``$P2PGENIUS_RELAY`` names any, one ``HOST[:PORT]`` a line (``#`` starts a comment)."""


def chosen_relays(args: argparse.Namespace) -> list[tuple[str, int]]:
    """The relays a host waits at: ``--relay`` (``--no-relay``: none), else ``$P2PGENIUS_RELAY``
    (separated by commas or spaces), else the ``relays`` file of the config directory."""
    found = listed_setting(
        getattr(args, "relay", None), "--relay", RELAY_VARIABLE, RELAYS_FILE, "relays file"
    )
    if found is None:
        return []
    given, where = found
    relays: list[tuple[str, int]] = []
    for text in given:
        try:
            relay = transit.parse_relay(text)
        except LocalMisuseError as exc:
            raise LocalMisuseError(f"{where}: {exc}") from None
        if relay not in relays:
            relays.append(relay)
    if len(relays) > invite_codec.MAX_RELAYS:
        raise LocalMisuseError(f"{where}: at most {invite_codec.MAX_RELAYS} relays, not {len(relays)}")
    return relays


async def check_relays(
    relays: list[tuple[str, int]], say: Callable[[str], None], *, strict: bool = True
) -> None:
    """Prove that each relay pairs connections, at once, saying so; if none does, P2PGeniusError
    says why (``strict``: relays asked for on the command line; a host that waits at no working
    relay would leave its friends waiting), or a warning does (relays from the settings: hosting
    goes on, and they are called at again)."""
    failed: dict[tuple[str, int], str] = {}
    took: dict[tuple[str, int], float] = {}

    async def one(relay: tuple[str, int]) -> None:
        try:
            took[relay] = await transit.probe(relay)
        except transit.RelayError as exc:
            failed[relay] = str(exc)

    async with trio.open_nursery() as nursery:
        for relay in relays:
            nursery.start_soon(one, relay)
    for relay in relays:
        if relay in took:
            ms = took[relay] * 1000
            say(f"{transit.relay_label(relay)} works (paired a test connection in {ms:.0f} ms)")
        else:
            say(f"{failed[relay]}: callers may not get in that way")
    if not took and not strict:
        say("no relay works for now: callers get in only directly until one does")
    elif not took:
        raise P2PGeniusError(
            f"no relay works ({'; '.join(failed.values())}): start one (twist transitrelay "
            "--port=tcp:4001), name another with --relay, or host without one (--no-relay)"
        )


def bind_address(args: argparse.Namespace) -> str:
    """Where ``host`` listens: 127.0.0.1 unless asked to let others in (``--lan``, ``--upnp``:
    every interface) or told an address (``--bind``)."""
    others = args.lan or args.upnp
    if args.bind is None:
        return EVERY_INTERFACE if others else LOOPBACK
    loopback = args.bind in ("localhost", "::1") or args.bind.startswith("127.")
    if others and loopback:
        raise LocalMisuseError(
            f"--bind {args.bind} lets only this machine join, --lan and --upnp others: choose one"
        )
    if args.lan and args.bind != EVERY_INTERFACE:
        raise LocalMisuseError("--lan listens on every interface, --bind on one address: give one of them")
    return str(args.bind)


class Aim(TypedDict, total=False):
    """Where a test points a host's searches instead: UPnP's (the router's SSDP address) and the
    announcement's (the interfaces it is made on)."""

    upnp_target: tuple[str, int] | None
    interfaces: list[str] | None


class Seats:
    """What the host's announcement says of the table: its free seats (from the lobby's events)."""

    def __init__(self, peers: int) -> None:
        self.peers = peers
        self.joined = 0

    def seen(self, event: NetEvent) -> None:
        if isinstance(event, PeerJoined):
            self.joined += 1
        elif isinstance(event, PeerLeft):
            self.joined = max(0, self.joined - 1)

    @property
    def free(self) -> int:
        return max(0, self.peers - 1 - self.joined)


async def host_match(
    args: argparse.Namespace,
    peer: Peer,
    options: dict[str, Any],
    *,
    task_status: trio.TaskStatus[Invite] = trio.TASK_STATUS_IGNORED,
    **aim: Unpack[Aim],
) -> None:
    """Listen, say every address a joiner can use and the invite (forwarding the port on the
    router first with ``--upnp``, announcing the match on the local network beside), and play.
    ``task_status`` gets the invite; ``aim`` points UPnP's search and the announcement elsewhere
    (tests)."""
    say = peer.say
    relays = chosen_relays(args)
    bound = await listen(bind_address(args), args.port)
    peer.address = bound.address
    addresses = _say_where(bound, say, relayed=bool(relays))
    if relays:
        await check_relays(relays, say, strict=getattr(args, "relay", None) is not None)
    mapping = await forward(bound.port, say, aim.get("upnp_target")) if args.upnp else None
    shown = _invited(args, bound, addresses, mapping, say)
    invite, saved = _invite(args, peer, bound, shown, relays)
    seats = Seats(args.peers)
    _tell_screen(peer, seats, invite, saved, local_only=bound.loopback and not relays)
    entrance = door(bound.listener, invite, say)
    task_status.started(invite)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(entrance.run)
            if mapping is not None:
                nursery.start_soon(upnp.keep, mapping, say)
            if args.announce and not bound.loopback and not peer.invite_only:
                interfaces = aim.get("interfaces") or [a for a in addresses if ":" not in a] or None
                announced = discovery.Found(
                    args.game, peer.name, peer.identity.public, seats.free, bound.port, tuple(addresses)
                )
                announcement = discovery.Announcement(announced, interfaces=interfaces)
                nursery.start_soon(discovery.announce, announcement, partial(table_state, seats, peer), say)
            async with peer:  # (its connections closed however the match ends)
                await peer.host(
                    entrance,
                    game=args.game,
                    options=options,
                    setup=args.setup,
                    peers=args.peers,
                    seats=args.seat,
                    spectators=args.spectators,
                )
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await entrance.aclose()
        if mapping is not None:
            await _close_port(mapping, say)


def door(
    listener: trio.abc.Listener[trio.abc.Stream] | None, invite: Invite, say: Callable[[str], None]
) -> transit.Entrance:
    """A host's way in for callers: its listener, and a connection waiting at each of the
    invite's relays under the invite's relay token."""
    keepers = []
    if invite.relays:
        token = transit.relay_token(invite.key, invite.token)
        side = secrets.token_hex(8)  # (the host's, at every relay: it never pairs with itself)
        keepers = [transit.RelayKeeper(relay, token, say, side=side) for relay in invite.relays]
        say(f"waiting for callers at {', '.join(transit.relay_label(r) for r in invite.relays)} too")
    return transit.Entrance(listener, keepers)


def _say_where(bound: Bound, say: Callable[[str], None], *, relayed: bool = False) -> list[str]:
    """Say where the host listens; returns the addresses a joiner on this network can use."""
    if bound.loopback and relayed:
        say(f"listening on {bound.address}: this machine directly, other machines through the relays")
    elif bound.loopback:
        say(f"listening on {bound.address}: this machine only (--lan lets other machines join)")
    elif bound.everywhere:
        say(f"listening on {bound.address}: every interface, {bound.families()}")
    else:
        say(f"listening on {bound.address}")
    addresses = reachable_addresses(bound)
    if bound.everywhere:
        say(f"addresses on this network: {', '.join(hostport(a, bound.port) for a in addresses)}")
    return addresses


def _invited(
    args: argparse.Namespace,
    bound: Bound,
    addresses: list[str],
    mapping: upnp.PortMapping | None,
    say: Callable[[str], None],
) -> list[str]:
    """The addresses the invite names, in the order to try: first those advertised (said) and
    the router's public one, then this network's."""
    first = list(args.advertise) + ([mapping.public] if mapping is not None and mapping.public else [])
    if args.advertise:
        say(f"also in the invite: {', '.join(hostport(a, bound.port) for a in args.advertise)}")
    return list(dict.fromkeys(first + addresses))[: invite_codec.MAX_ADDRESSES]


def _invite(
    args: argparse.Namespace, peer: Peer, bound: Bound, shown: list[str], relays: list[tuple[str, int]]
) -> tuple[Invite, Path]:
    """The invite (the addresses ``shown`` and this host's key, with a fresh seat token), said
    and saved beside the transcript."""
    say = peer.say
    peer.token = secrets.token_bytes(invite_codec.TOKEN_LEN)  # the invite's holders are seated first
    peer.invite_only = bool(getattr(args, "invite_only", False))
    invite = Invite(peer.identity.public, bound.port, tuple(shown), peer.token, tuple(relays))
    say(f"fingerprint: {peer.identity.fingerprint}")
    carries = "the addresses, the relays" if relays else "the addresses"
    say(f"invite, to send to whoever joins (it carries {carries} and this host's key):")
    if args.bot is None:  # (the screen's log column would wrap it beside the board: a selection
        # there takes the border and the board's text; the waiting screen has it on rows of its own)
        say("  on the waiting screen, on rows of its own (F3 copies it whole), and in the .invite file")
    else:
        say(f"  p2pgenius join {invite}")
    if to_clipboard(f"p2pgenius join {invite}"):
        say("(the terminal was asked to put it on the clipboard too; P2PGENIUS_NO_CLIPBOARD=1 stops that)")
    if peer.invite_only:
        say("invite only: callers without this invite are turned away (and the match is not announced)")
    saved = peer.files.invite
    # Private (the seat token seats its holder first) and made anew, renamed over the invite of
    # an earlier host on this path: never written through a link or into another user's file,
    # which are refused (UnsafeFileError). Other failures pass: a screen shows the invite too,
    # the file only helps copying it.
    with contextlib.suppress(OSError):
        replace(saved, f"p2pgenius join {invite}\n".encode(), PRIVATE)
    return invite, saved


def _tell_screen(peer: Peer, seats: Seats, invite: Invite, saved: Path, *, local_only: bool) -> None:
    """Route the peer's events through ``seats`` (the announcement follows the free seats) to its
    screen, which is told the invite rather than the address bound (``[::]:7780``)."""
    screen = peer.notify

    def notify(event: NetEvent) -> None:
        seats.seen(event)
        if isinstance(event, Listening):
            event = Listening(event.address, event.again, str(invite), str(saved), local_only)
        screen(event)

    peer.notify = notify


async def _close_port(mapping: upnp.PortMapping, say: Callable[[str], None]) -> None:
    """The router no longer forwards the port (or is said not to have answered)."""
    with trio.CancelScope(shield=True), trio.move_on_after(upnp.REQUEST_S + 1) as scope:
        try:
            await upnp.close_port(mapping)
            say(f"UPnP: the router no longer forwards port {mapping.port}")
        except upnp.UpnpError as exc:
            say(f"UPnP: {exc}")
    if scope.cancelled_caught:
        until = "its lease runs out" if mapping.lease_s else "the router restarts"
        say(f"UPnP: the router did not answer: it forwards port {mapping.port} until {until}")


def table_state(seats: Seats, peer: Peer) -> tuple[int, bool]:
    """What the announcement follows: the free seats, and whether the match has started."""
    return seats.free, peer.session is not None


async def forward(
    port: int, say: Callable[[str], None], target: tuple[str, int] | None
) -> upnp.PortMapping | None:
    """``--upnp``: the port forwarded on the router, said in words (None, and why, if not)."""
    say(f"UPnP: asking the router to forward port {port} (up to {upnp.SEARCH_S:g} s)")
    try:
        mapping = await upnp.open_port(port, target=target)
    except upnp.UpnpError as exc:
        say(f"UPnP: {exc}; friends outside this network cannot reach this host that way ({HELP})")
        return None
    lease = f"renewed every {mapping.lease_s // 120} minutes" if mapping.lease_s else "permanent"
    if mapping.public:
        say(
            f"public address: {hostport(mapping.public, port)} (router {mapping.router!r} forwards it to "
            f"{mapping.internal_client} while this host runs; lease {lease})"
        )
    else:
        # A private address: another router or the provider's NAT is in front; anything else
        # (multicast, broadcast, a documentation address) is a device not to be believed.
        say(
            f"UPnP: the router forwards port {port}, but its public address is not used "
            f"({mapping.why_not_public}); friends outside this network may need IPv6 or a VPN ({HELP})"
        )
    return mapping


def run_host(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius host``."""
    check_level(args.game, args.bot)
    check_seats(args)
    check_partner(args)
    options = match_options(args)
    args.setup = match_setup(args.game, args.setup)
    if args.correspondence and args.setup:
        raise LocalMisuseError("--setup: a match by correspondence plays the game's own set-up")
    if args.correspondence:
        from p2pgenius.cli.correspondence import run_host_mail  # noqa: PLC0415  (only by correspondence)

        return run_host_mail(args, options, out)
    if args.mailbox:
        raise LocalMisuseError(
            "--mailbox names the relays of a match by correspondence: add --correspondence"
        )
    bind_address(args)  # refuses contradictory options before anything is opened
    for address in args.advertise:
        invite_codec.check_address(address)
    printer = Printer(out, moves=True)
    peer = make_peer(args, f"{args.game}-host", 1, printer)
    with held(peer.files):  # one process a transcript (refused before anything listens)
        return played(args, peer, partial(host_match, args, peer, options), printer)


run = one_line(run_host)
"""The command, its errors in one line."""
