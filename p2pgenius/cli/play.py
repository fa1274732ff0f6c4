"""``p2pgenius host``, ``join``, ``resume`` and ``demo``: networked matches.

With ``--bot`` a bot plays the peer's seats and moves are printed; without it, ``host`` and ``join``
open the terminal UI (``p2pgenius.ui``), imported only then.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import secrets
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, Final, TextIO

import trio

from p2pgenius import wording
from p2pgenius.bots import demo_levels, level_of
from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.terminal import error
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.registry import get_spec, names
from p2pgenius.net import discovery, upnp
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.addresses import (
    EVERY_INTERFACE,
    HELP,
    LOOPBACK,
    NOTHING_LEFT,
    ConnectError,
    connect,
    hostport,
    listen,
    reachable_addresses,
)
from p2pgenius.net.events import Listening, NetEvent, PeerJoined, PeerLeft
from p2pgenius.net.invite import Invite
from p2pgenius.net.keystore import account_identities, check_name, claim_identity, config_dir, load_identity
from p2pgenius.net.peer import Files, Peer, PeerGoneError, WrongHostError
from p2pgenius.protocol.events import Applied, Event
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import SessionView
from p2pgenius.protocol.session.setup import group_of
from p2pgenius.protocol.transcript import records as read_records
from p2pgenius.protocol.transcript import verify


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT or [IPv6]:PORT."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise LocalMisuseError(f"expected HOST:PORT or an invite (p2pgenius://...), not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def match_files(path: str | None, label: str, log: str | None) -> Files:
    """The transcript, secrets and log paths for a match."""
    if path is None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        transcript = config_dir() / "matches" / f"{stamp}-{label}.p2pt"
    else:
        transcript = Path(path)
    return Files(transcript, transcript.with_suffix(".secrets"), Path(log) if log else None)


class Printer:
    """Prints what happens, as it happens."""

    SHOWN = (wording.CHAT, wording.REFUSED, wording.FAULT)
    """What is printed always; with ``moves``, the seats and the moves too."""

    def __init__(self, out: TextIO, *, moves: bool, prefix: str = "") -> None:
        self.out = out
        self.moves = moves
        self.prefix = prefix
        self.last_events: list[Any] = []  # the events of the last stage applied

    def line(self, text: str) -> None:
        """One line of output (control characters from peers never reach the terminal)."""
        self.out.write(f"{self.prefix}{wording.printable(text)}\n")
        self.out.flush()

    def event(self, session: SessionView, event: Event) -> None:
        """Show a session event (a stage that tells its turn again, as a duel turn finished by a
        Paralysis choice does, prints only what is new)."""
        if isinstance(event, Applied):
            events, seen = list(event.events), self.last_events
            self.last_events = events
            if seen and events[: len(seen)] == seen:
                event = replace(event, events=tuple(events[len(seen) :]))
        for told in wording.tell(session, event):
            if told.kind in self.SHOWN or (self.moves and told.kind == wording.SEATS):
                self.line(told.text)
            elif self.moves and told.kind == wording.MOVE:
                self.line(f"  {told.text}")


def finish(peer: Peer, printer: Printer) -> int:
    """Print the result of a finished peer; returns the exit code."""
    session = peer.view
    if session is None:
        error("the match did not start")
        return 1
    # A failure is explained in one line on standard error (the command line's contract).
    if session.outcome is None and session.fault is None:
        error(f"the match did not finish; carry on with: p2pgenius resume {peer.files.transcript}")
        return 1
    if session.fault is not None:
        error(f"the match stopped: {session.fault.reason}")
        printer.line(f"transcript (evidence): {peer.files.transcript}")
        return 1
    assert session.outcome is not None
    printer.line(f"result: {wording.outcome_words(session.outcome.to_plain())}")
    printer.line(f"transcript: {peer.files.transcript}")
    return 0


MAX_OPTION_S: Final = 7 * 24 * 3600
"""The longest time option the command line takes (the protocol sets no bound; a week is plenty)."""


def match_options(args: argparse.Namespace) -> dict[str, Any]:
    """The game options from ``--fast`` and ``--option KEY=SECONDS`` (the game's time options);
    ``fast`` is an option of games whose moves are sealed, and bots play them fast."""
    spec = get_spec(args.game)
    allowed = [option.name for option in spec.time_options]
    options: dict[str, Any] = {}
    for text in args.option:
        key, sep, value = text.partition("=")
        if key not in allowed or not sep:
            takes = ", ".join(allowed) if allowed else "no time options"
            raise LocalMisuseError(f"--option {text!r}: {args.game} takes {takes} (KEY=SECONDS)")
        if not value.isdigit() or not 0 < int(value) <= MAX_OPTION_S:
            raise LocalMisuseError(
                f"--option {text!r}: the seconds must be a positive whole number, "
                f"at most {MAX_OPTION_S} (a week)"
            )
        options[key] = int(value)
    fast = args.fast if args.fast is not None else args.bot is not None
    if spec.sealed:
        options["fast"] = bool(fast)
    elif args.fast:
        sealed = " or ".join(name for name in names() if get_spec(name).sealed) or "sealed-move game's"
        raise LocalMisuseError(f"--fast is a {sealed} option")
    return options


def check_level(game: str | None, level: str | None) -> None:
    """Refuse a bot level ``game`` does not have (before anything connects)."""
    if game is not None and level:
        level_of(game, level)


def identity_of(transcript: bytes) -> Identity:
    """The account identity a transcript was played with (the account's own key, or the key of
    a second process of the account); the account's own key if none matches."""
    try:
        meta = next(iter(read_records(transcript)))[2]
        wanted = meta["peers"][meta["me"]]
    except (P2PGeniusError, StopIteration, LookupError, TypeError):
        wanted = None
    return next((i for i in account_identities() if i.public == wanted), load_identity()[0])


def make_peer(args: argparse.Namespace, label: str, seed: int, printer: Printer) -> Peer:
    """The peer for ``host`` or ``join``: bots at its seats (``--bot``) or, for now, a printer."""
    identity, _, number = claim_identity()
    if number:
        printer.line(
            f"another p2pgenius of this account is playing: this one plays as the account's "
            f"process {number} key, {identity.fingerprint}"
        )
    return Peer(
        identity,
        check_name(args.name) if args.name else identity.fingerprint[:9],
        match_files(args.transcript, label, args.log),
        BotDriver(args.bot, seed).decide,
        printer.event,
        printer.line,
        grace_s=args.grace,
        decide_ahead=args.bot is not None,  # (a person is asked once the stage opens)
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
    upnp_target: tuple[str, int] | None = None,
    interfaces: list[str] | None = None,
    task_status: trio.TaskStatus[Invite] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Listen, say every address a joiner can use and the invite (forwarding the port on the
    router first with ``--upnp``, announcing the match on the local network beside), and play.
    ``task_status`` gets the invite; ``upnp_target`` and ``interfaces`` aim UPnP's search and
    the announcement elsewhere (tests)."""
    say = peer.report_line
    bound = await listen(bind_address(args), args.port)
    peer.address = bound.address
    if bound.loopback:
        say(f"listening on {bound.address}: this machine only (--lan lets other machines join)")
    elif bound.everywhere:
        say(f"listening on {bound.address}: every interface, {bound.families()}")
    else:
        say(f"listening on {bound.address}")
    addresses = reachable_addresses(bound)
    if bound.everywhere:
        say(f"addresses on this network: {', '.join(hostport(a, bound.port) for a in addresses)}")
    mapping = await forward(bound.port, say, upnp_target) if args.upnp else None
    first = list(args.advertise) + ([mapping.public] if mapping is not None and mapping.public else [])
    if args.advertise:
        say(f"also in the invite: {', '.join(hostport(a, bound.port) for a in args.advertise)}")
    shown = list(dict.fromkeys(first + addresses))[: invite_codec.MAX_ADDRESSES]
    peer.token = secrets.token_bytes(invite_codec.TOKEN_LEN)  # the invite's holders are seated first
    peer.invite_only = bool(getattr(args, "invite_only", False))
    invite = Invite(peer.identity.public, bound.port, tuple(shown), peer.token)
    say(f"fingerprint: {peer.identity.fingerprint}")
    say("invite, to send to whoever joins (it carries the addresses and this host's key):")
    say(f"  p2pgenius join {invite}")
    if peer.invite_only:
        say("invite only: callers without this invite are turned away (and the match is not announced)")
    saved = peer.files.transcript.with_suffix(".invite")
    with contextlib.suppress(OSError):  # (a screen shows it too; the file only helps copying)
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(f"p2pgenius join {invite}\n", encoding="utf-8")
    seats = Seats(args.peers)
    screen = peer.notify

    def notify(event: NetEvent) -> None:
        seats.seen(event)
        if isinstance(event, Listening):
            # A screen tells joiners what to run: the invite (the addresses to try and the key to
            # insist on) rather than the address bound (``[::]:7780``), and where it is saved.
            event = Listening(
                event.address, event.again, invite=str(invite), saved=str(saved), local_only=bound.loopback
            )
        screen(event)

    peer.notify = notify
    task_status.started(invite)
    try:
        async with trio.open_nursery() as nursery:
            if mapping is not None:
                nursery.start_soon(upnp.keep, mapping, say)
            if args.announce and not bound.loopback and not peer.invite_only:
                announcement = discovery.Announcement(
                    game=args.game,
                    name=peer.name,
                    key=peer.identity.public,
                    port=bound.port,
                    addresses=addresses,
                    seats=seats.free,
                    interfaces=interfaces or [a for a in addresses if ":" not in a] or None,
                )
                nursery.start_soon(discovery.announce, announcement, partial(table_state, seats, peer), say)
            async with peer:  # (its connections closed however the match ends)
                await peer.host(
                    bound.listener,
                    game=args.game,
                    options=options,
                    setup={},
                    peers=args.peers,
                    seats=args.seat,
                    spectators=args.spectators,
                )
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await bound.listener.aclose()
        if mapping is not None:
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
    groups = get_spec(args.game).seat_groups(args.peers)  # refuses a number of peers it is not for
    if args.seat and group_of(groups, args.seat) is None:
        each = "; ".join(" and ".join(f"{s}" for s in group) for group in groups)
        raise LocalMisuseError(
            f"--seat {' '.join(map(str, args.seat))}: one peer's seats in {args.game} with "
            f"{args.peers} peers are {each}"
        )
    options = match_options(args)
    bind_address(args)  # refuses contradictory options before anything is opened
    for address in args.advertise:
        invite_codec.check_address(address)
    printer = Printer(out, moves=True)
    peer = make_peer(args, f"{args.game}-host", 1, printer)
    with held(peer.files):  # one process a transcript (refused before anything listens)
        main = partial(host_match, args, peer, options)
        if args.bot is None:
            return in_terminal(args, peer, main, printer)
        trio.run(main)
        return finish(peer, printer)


@contextlib.contextmanager
def held(files: Files) -> Iterator[None]:
    """Hold a match's files for this command (another process holding them: refused)."""
    files.lock()
    try:
        yield
    finally:
        files.release()


@dataclass(frozen=True)
class Target:
    """Where a joiner connects: addresses to try, and the host key it must have (None: trust on
    first use, as with HOST:PORT)."""

    targets: list[tuple[str, int]]
    key: bytes | None
    what: str
    source: str = "the invite"  # where the key came from, in words
    token: bytes | None = None  # the invite's seat token
    name: str | None = None  # the host's name, as announced (its hello must say the same)


def target_of(text: str) -> Target:
    """An invite or HOST:PORT (LocalMisuseError if it is neither, saying what is wrong)."""
    if invite_codec.is_invite(text):
        invite = invite_codec.parse(text)
        return Target(
            invite.targets(),
            invite.key,
            f"the invite's host, fingerprint {invite.fingerprint}",
            token=invite.token or None,
        )
    host, port = parse_address(text)
    return Target([(host, port)], None, hostport(host, port))


async def discover(
    args: argparse.Namespace, printer: Printer, interfaces: list[str] | None = None
) -> list[discovery.Found]:
    """``join`` with no address: the matches announced on the local network (an error saying
    what to do if there is none). ``interfaces``: where to look (tests: loopback). ``--first``
    stops looking early only for a match whose name and key are both pinned: the first to
    announce may be a neighbour using a pinned player's name, so it is not enough."""
    printer.line(f"looking for matches on the local network ({discovery.LOOK_S:g} s)")
    pins = discovery.player_pins() if args.first else {}

    def pinned(match: discovery.Found) -> bool:
        return discovery.standing(match, pins) is discovery.Standing.PINNED

    found, unusable = await discovery.find(until=pinned if args.first else None, interfaces=interfaces)
    for reason in unusable:
        printer.line(f"  (cannot join {reason})")
    if not found:
        raise P2PGeniusError(
            f"no match found on the local network in {discovery.LOOK_S:g} s (the host must use --lan, "
            "and the network must let multicast through): ask the host for its invite"
        )
    return found


def choose(found: Sequence[discovery.Found], args: argparse.Namespace, printer: Printer) -> Target:
    """The match to join: the best found (``--first``) or the one the person picks from a
    numbered list. Both go by this player's pins, never by the order of announcement: a match
    whose name and key are pinned comes first, one whose name is pinned to another key last, and
    that one is never joined (a join by address or invite is refused the same way)."""
    pins = discovery.player_pins()
    ordered = discovery.preferred(found, pins)
    if args.first:
        chosen = best(ordered, found, pins, printer)
    else:
        shown = None  # the standing whose heading is shown last (the list is in their order)
        for number, match in enumerate(ordered, start=1):
            where = discovery.standing(match, pins)
            if where is not shown:
                printer.line(discovery.HEADINGS[where])
                shown = where
            printer.line(f"  {number}. {match.line()}")
            if bracket := discovery.bracket(match, pins):
                printer.line(f"     {bracket}")
        while True:
            chosen = ordered[pick(len(ordered), printer) - 1]
            if discovery.standing(chosen, pins) is not discovery.Standing.ANOTHER_KEY:
                break
            printer.line(f"not joining it: {discovery.changed_key(chosen, pins)}")
    printer.line(f"check with the host that its fingerprint is {chosen.fingerprint}")
    return Target(
        chosen.targets(),
        chosen.key,
        f"{chosen.name}'s match, fingerprint {chosen.fingerprint}",
        "the match's announcement",
        name=chosen.name,
    )


def best(
    ordered: Sequence[discovery.Found],
    found: Sequence[discovery.Found],
    pins: dict[bytes, str],
    printer: Printer,
) -> discovery.Found:
    """``--first``: the first of ``ordered`` (:func:`discovery.preferred`), saying so; a match
    whose name is pinned to another key is skipped in a line, and if all are, the error says why."""
    impostors = [m for m in ordered if discovery.standing(m, pins) is discovery.Standing.ANOTHER_KEY]
    for match in impostors:
        printer.line(
            f"skipping {match.name}'s match, fingerprint {match.fingerprint}: not {match.name}'s pinned key"
        )
    if len(impostors) == len(ordered):
        raise P2PGeniusError(
            "--first joins no match whose host's name is pinned to another key, and every match found "
            f"is: {discovery.changed_key(impostors[0], pins)}"
        )
    chosen = ordered[0]
    if chosen is found[0]:
        how = "the first match found"
    else:  # (one announced before it was passed over: say which it is instead)
        how = {
            discovery.Standing.PINNED: "the match found whose key you pinned",
            discovery.Standing.NEW: "the first new match found",
        }.get(discovery.standing(chosen, pins), "the first match found with a known key")
    printer.line(f"joining {how}: {chosen.line()}")
    printer.line(f"  {discovery.told(chosen, pins)}")
    return chosen


def interactive() -> bool:
    """Whether a person can answer questions here."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def pick(count: int, printer: Printer) -> int:
    """A number from 1 to ``count``, asked on the terminal (Enter: 1)."""
    while True:
        printer.out.write(f"join which? (1-{count}, Enter for 1, q to give up) ")
        printer.out.flush()
        try:
            answer = input().strip().lower()
        except EOFError:
            answer = "q"
        if answer in ("q", "quit"):
            raise P2PGeniusError("no match chosen")
        if not answer:
            return 1
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer)
        printer.line(f"a number from 1 to {count}, please")


async def join_match(args: argparse.Namespace, peer: Peer, target: Target) -> None:
    """Connect to the first of ``target``'s addresses that answers (pinning its key, if it names
    one) and play; the same addresses are tried again if the connection drops."""

    wrong: set[str] = set()  # addresses where a host with another key answered
    last = [""]

    async def reach() -> tuple[trio.abc.Stream, str]:
        try:
            stream, where = await connect(target.targets, exclude=wrong)
        except ConnectError:
            if not wrong:
                raise
            wrong.clear()  # (every other address failed: the right host may be back at one)
            stream, where = await connect(target.targets)
        last[0] = where
        return stream, where

    async def again() -> trio.abc.Stream:
        return (await reach())[0]

    peer.expect_key = target.key
    peer.expect_from = target.source
    peer.token = target.token
    peer.expect_name = target.name
    peer.reconnect = again
    peer.wrong_host = lambda: wrong.add(last[0])
    places = ", ".join(hostport(h, p) for h, p in target.targets)
    peer.report_line(f"connecting to {target.what}" + (f" at {places}" if target.key else ""))
    refused: WrongHostError | None = None
    while True:
        try:
            stream, where = await connect(target.targets, exclude=wrong)
        except ConnectError as exc:
            if refused is None:
                raise
            if str(exc) == NOTHING_LEFT:
                raise refused from None
            raise WrongHostError(f"{refused}. The invite's other addresses: {exc}") from None
        peer.address = where
        peer.report_line(f"connected to {where}")
        try:
            async with peer:  # (its connections closed however the match ends)
                await peer.join(stream, seats=args.seat)
            return
        except WrongHostError as exc:
            # One address answered with another key (someone else's machine took it, or a
            # stranger sits in the middle there): say so, and go on with the invite's others.
            wrong.add(where)
            refused = exc
            if len(target.targets) > 1:
                peer.report_line(f"{where}: {exc}")
                peer.report_line("trying the invite's other addresses")


def run_join(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius join [INVITE | HOST:PORT]``."""
    printer = Printer(out, moves=True)
    if args.address is not None:
        target = target_of(args.address)
    else:
        if args.bot is None:
            check_terminal()
        if not args.first and not interactive():
            raise LocalMisuseError(
                "join with no address lists the matches on the local network and asks which: run it "
                "in a terminal, add --first to join the first one found, or give the host's invite"
            )
        target = choose(trio.run(discover, args, printer), args, printer)
    peer = make_peer(args, "join", 2, printer)
    peer.address = hostport(*target.targets[0])
    with held(peer.files):  # one process a transcript (refused before anything connects)
        main = partial(join_match, args, peer, target)
        if args.bot is None:
            return in_terminal(args, peer, main, printer)
        trio.run(main)
        return finish(peer, printer)


def check_terminal() -> None:
    """Refuse to open the terminal UI without a terminal."""
    if not interactive():
        raise LocalMisuseError("the terminal UI needs a terminal: run it in one, or add --bot")


def ascii_only(args: argparse.Namespace, out: TextIO) -> bool:
    """The terminal UI draws ASCII symbols only: asked for, or a terminal that is not UTF-8."""
    encoding = (getattr(out, "encoding", None) or "").lower().replace("-", "")
    return bool(args.ascii) or encoding != "utf8"


def in_terminal(args: argparse.Namespace, peer: Peer, main: Any, printer: Printer) -> int:
    """Play ``peer``'s match in the full-screen terminal UI; afterwards print the result."""
    # Imported here: prompt_toolkit costs start-up time that bot and demo runs do not need.
    from p2pgenius.ui.app import build  # noqa: PLC0415
    from p2pgenius.ui.bridge import run as run_ui  # noqa: PLC0415
    from p2pgenius.ui.table import Table  # noqa: PLC0415

    check_terminal()
    table = Table(
        ascii_only=ascii_only(args, sys.stdout),
        hints=args.hints,
        partner_level=args.partner,
        game=getattr(args, "game", None),
    )
    table.peer = peer
    peer.decide, peer.report, peer.say = table.decide, table.report, table.line
    peer.confirm = table.confirm_lobby
    run_ui(table, build(table), main)
    return finish(peer, printer)


async def demo_match(
    game: str, directory: Path, printer: Printer, *, grace_s: float = 30.0, seed: int = 1
) -> tuple[Peer, Peer]:
    """Host and join on loopback, bots everywhere; returns both peers once the match is over."""
    pins = directory / "pins" / game
    host_level, guest_level = demo_levels(game)
    options = dict(get_spec(game).demo_options)
    quiet = Printer(printer.out, moves=False, prefix="  (guest) ")

    def make(name: str, bots: BotDriver, show: Printer) -> Peer:
        files = Files(directory / f"{game}-{name}.p2pt", directory / f"{game}-{name}.secrets")
        return Peer(
            Identity.generate(),
            name,
            files,
            bots.decide,
            show.event,
            show.line,
            grace_s=grace_s,
            pin_dir=pins / name,
            decide_ahead=True,
        )

    host = make("host", BotDriver(host_level, seed), printer)
    guest = make("guest", BotDriver(guest_level, seed + 1), quiet)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    host.address = guest.address = f"127.0.0.1:{port}"
    guest.reconnect = partial(trio.open_tcp_stream, "127.0.0.1", port)
    printer.line(f"{game}: host listening on 127.0.0.1:{port}; guest connecting")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: host.host(listeners[0], game=game, options=options, setup={}, peers=2))
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        nursery.start_soon(guest.join, stream)
    await listeners[0].aclose()
    return host, guest


def run_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius demo``."""
    games: Sequence[str] = [args.game] if args.game else names()
    home = config_dir() / "demo"
    home.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix="match-", dir=home))
    printer = Printer(out, moves=True)
    code = 0
    for game in games:
        host, _guest = trio.run(demo_match, game, directory, printer)
        if finish(host, printer) != 0:
            code = 1
            continue
        report = verify(host.files.transcript.read_bytes())
        printer.line(f"verified: {report.summary}")
        printer.line("")
        code |= 0 if report.ok else 1
    return code


def run_resume(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius resume [TRANSCRIPT]``: with ``--bot`` a bot plays on; without, the terminal
    UI. Without TRANSCRIPT, the unfinished match among this account's newest transcripts (or,
    if there are several, a list of them to choose from)."""
    printer = Printer(out, moves=True)
    named = [Path(p) for p in (args.path, args.transcript) if p is not None]
    if len(named) == 2 and named[0].resolve() != named[1].resolve():
        raise LocalMisuseError(
            "resume carries on in the match's own transcript: "
            f"{named[0]} or --transcript {named[1]}, not both"
        )
    if named:
        path = named[0]
    else:
        folder = match_files(None, "resume", None).transcript.parent
        newest = sorted(folder.glob("*.p2pt"), key=lambda p: p.stat().st_mtime, reverse=True)[:20]
        unfinished: list[tuple[Path, str]] = []
        live: list[tuple[Path, str]] = []
        for candidate in newest:
            if not candidate.with_suffix(".secrets").exists():
                continue
            try:
                report = verify(candidate.read_bytes())
            except (P2PGeniusError, OSError):
                continue
            if report.outcome is None and report.fault is None:
                playing = Files(candidate, candidate.with_suffix(".secrets")).live()
                (live if playing else unfinished).append((candidate, report.game or "a match"))
        if not unfinished:
            running = "".join(f"\n{found} ({game}): live, open in another process" for found, game in live)
            raise LocalMisuseError(
                f"no unfinished match among the newest transcripts in {folder} that is not being "
                f"played now: name one (p2pgenius resume PATH){running}"
            )
        if len(unfinished) > 1:
            listed = "\n".join(
                f"  p2pgenius resume {found}   ({game}, "
                f"{datetime.datetime.fromtimestamp(found.stat().st_mtime):%Y-%m-%d %H:%M})"
                for found, game in unfinished
            ) + "".join(f"\n  {found} ({game}): live, open in another process" for found, game in live)
            raise LocalMisuseError(f"{len(unfinished)} unfinished matches; choose one:\n{listed}")
        path = unfinished[0][0]
        printer.line(f"resuming {path} ({unfinished[0][1]})")
    secrets = path.with_suffix(".secrets")
    files = Files(path, secrets, Path(args.log) if args.log else None)
    with held(files):  # a match still played by another process is not taken over
        return _resume(args, printer, path, files)


def _resume(args: argparse.Namespace, printer: Printer, path: Path, files: Files) -> int:
    secrets = files.secrets
    try:
        transcript, kept = path.read_bytes(), secrets.read_bytes()
    except OSError as exc:
        raise LocalMisuseError(f"cannot read {exc.filename}: {exc.strerror}") from None
    identity = identity_of(transcript)
    peer = Peer(
        identity,
        check_name(args.name) if args.name else identity.fingerprint[:9],
        files,
        BotDriver(args.bot, 3).decide,
        printer.event,
        printer.line,
        grace_s=args.grace,
        decide_ahead=args.bot is not None,
    )
    meta = peer.resume(transcript, kept)
    host, _, port = str(meta.get("address", "")).rpartition(":")
    if not port.isdigit():
        raise LocalMisuseError("the transcript does not say where the match was played")
    host = host.strip("[]")

    async def main() -> None:
        if meta.get("role") == "host":
            peer.listener = (await listen(host, int(port))).listener
            peer.report_line(f"listening again on {meta['address']}; waiting for the others")
        else:

            async def again() -> trio.abc.Stream:
                return (await connect([(host, int(port))]))[0]

            peer.reconnect = again
            peer.report_line(f"reconnecting to {meta['address']}")
        async with peer:
            await peer.play()

    if args.bot is None:
        return in_terminal(args, peer, main, printer)
    trio.run(main)
    return finish(peer, printer)


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Dispatch ``host``, ``join``, ``resume`` or ``demo``; errors from inside trio come out as
    one line."""
    try:
        try:
            if args.command == "host":
                return run_host(args, out)
            if args.command == "join":
                return run_join(args, out)
            if args.command == "resume":
                return run_resume(args, out)
            return run_demo(args, out)
        except BaseExceptionGroup as group:
            raise first_error(group) from None
    except (PeerGoneError, trio.TooSlowError) as exc:
        raise P2PGeniusError(str(exc) or "the peer took too long") from None
    except BrokenPipeError:
        if args.command == "demo":
            raise  # nothing was at stake: quietly done
        raise P2PGeniusError(
            "the output closed mid-match; the transcript is kept: carry on with p2pgenius resume"
        ) from None


def first_error(group: BaseExceptionGroup[Any]) -> BaseException:
    """The first error worth showing in a group raised by a nursery."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return first_error(exc)
        if isinstance(exc, P2PGeniusError):
            return exc
        if isinstance(exc, BrokenPipeError):
            return exc  # the reader went away (``| head``): see ``run``
        if isinstance(exc, (OSError, trio.TooSlowError)):
            return P2PGeniusError(str(exc) or "the peer took too long")
        if isinstance(exc, KeyboardInterrupt):
            return exc
    return group.exceptions[0]
