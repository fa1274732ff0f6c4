"""``p2pgenius join``: find the host (an invite, HOST:PORT, or a match announced on the local
network), insist on the key its invite names, and play."""

from __future__ import annotations

import argparse
import contextlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TextIO

import trio

from p2pgenius.cli.play import (
    Printer,
    check_terminal,
    held,
    make_peer,
    numbered,
    one_line,
    played,
)
from p2pgenius.cli.terminal import interactive
from p2pgenius.errors import LocalMisuseError, P2PGeniusError, PeerGoneError
from p2pgenius.games.catalog import names
from p2pgenius.local_files import PRIVATE, replace
from p2pgenius.net import discovery, early, transit
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.addresses import (
    NOTHING_LEFT,
    ConnectError,
    hostport,
)
from p2pgenius.net.events import LobbyShown, NetEvent
from p2pgenius.net.files import Files
from p2pgenius.net.invite import address_of, parse_address
from p2pgenius.net.keystore import load_pins
from p2pgenius.net.peer import Peer, WrongHostError

MISPAIRED_TRIES = 5
"""How often a joiner calls at its relays again when the one that paired it was not its host."""


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
    relays: tuple[tuple[str, int], ...] = ()  # where the host also waits (an invite of version 3)
    invite: str | None = None  # the invite's text (kept beside the transcript, for ``resume``)

    @property
    def relay_token(self) -> str | None:
        """The token the host waits under at its relays (None: no relays to call at)."""
        if not self.relays or self.key is None or self.token is None:
            return None
        return transit.relay_token(self.key, self.token)

    @property
    def way(self) -> transit.Way:
        """The ways to the host: its addresses and its relays, raced (``way.reach()``: a stream
        through whichever comes first)."""
        return transit.Way(self.targets, self.relays, self.relay_token)


def target_of(text: str) -> Target:
    """An invite or HOST:PORT (LocalMisuseError if it is neither, saying what is wrong)."""
    if invite_codec.is_invite(text):
        invite = invite_codec.parse_live(text)
        return Target(
            invite.targets(),
            invite.key,
            f"the invite's host, fingerprint {invite.fingerprint}",
            token=invite.token or None,
            relays=invite.relays,
            invite=invite.text(),
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
    pins = load_pins() if args.first else {}

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
    pins = load_pins()
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
        number = numbered(answer, count)
        if number is not None:
            return number
        printer.line(f"a number from 1 to {count}, please")


def named_by_game(args: argparse.Namespace, peer: Peer) -> None:
    """A joiner's files are named before it knows the game (``...-join.p2pt``); once the host's
    lobby says the game, a name the command chose (no ``--transcript``) takes it, as a host's
    does (``...-duel-join.p2pt``), before the match begins the files. The lock held on them
    goes with them (its file is renamed, the lock with it)."""
    if args.transcript is not None:
        return
    files, screen = peer.files, peer.notify
    first = files.transcript

    def notify(event: NetEvent) -> None:
        game = str(event.lobby.get("game")) if isinstance(event, LobbyShown) else ""
        if game in names() and not files.transcript.exists():
            rename(files, with_game(first, game))
        screen(event)

    peer.notify = notify


def with_game(transcript: Path, game: str) -> Path:
    """``...-join.p2pt`` as ``...-GAME-join.p2pt`` (the name of a match's files says what it is
    and whose: ``...-duel-host``, ``...-duel-join``, ``...-duel-watch``)."""
    stamp, _, label = transcript.stem.rpartition("-")
    return transcript.with_name(f"{stamp}-{game}-{label}{transcript.suffix}")


def rename(files: Files, transcript: Path) -> None:
    """Point ``files`` at ``transcript`` (and the secrets beside it) before anything is written;
    a lock held on the old name is held on the new one."""
    if transcript == files.transcript:
        return
    old_lock, old_invite = files.lock_path, files.invite
    files.transcript, files.secrets = transcript, transcript.with_suffix(".secrets")
    with contextlib.suppress(FileNotFoundError):
        old_lock.rename(files.lock_path)
    with contextlib.suppress(FileNotFoundError):
        old_invite.rename(files.invite)


def _prepare(args: argparse.Namespace, peer: Peer, target: Target) -> None:
    """Set ``peer`` up to join ``target`` (what the host must be, the invite kept), and say where
    it goes."""
    named_by_game(args, peer)
    if target.invite is not None:
        # Private (its seat token seats its holder): ``resume`` finds the host again by it,
        # at every address and relay it names.
        with contextlib.suppress(OSError):
            replace(peer.files.invite, f"p2pgenius join {target.invite}\n".encode(), PRIVATE)
    peer.expect_key = target.key
    peer.expect_from = target.source
    peer.token = target.token
    peer.expect_name = target.name
    places = ", ".join(hostport(h, p) for h, p in target.targets)
    if target.relay_token is not None:
        places += f" (or through {', '.join(transit.relay_label(r) for r in target.relays)})"
    peer.say(f"connecting to {target.what}" + (f" at {places}" if target.key else ""))


async def join_match(args: argparse.Namespace, peer: Peer, target: Target) -> None:
    """Connect to the first of ``target``'s addresses that answers (pinning its key, if it names
    one) and play; the same addresses are tried again if the connection drops."""
    _prepare(args, peer, target)
    tries = _Tries(peer, target)
    peer.reconnect = tries.again
    peer.wrong_host = tries.wrong_host
    while not await tries.play(args.seat):
        pass


class _Tries:
    """A joiner's ways to its host: the routes where a host with another key answered are left
    out, and a relay that paired it with someone else is called at again (:class:`_Calls`)."""

    def __init__(self, peer: Peer, target: Target) -> None:
        self.peer, self.target = peer, target
        self.wrong: set[str] = set()  # routes where a host with another key answered
        self.last = ""  # the route of the connection under way
        self.refused: WrongHostError | None = None  # the last host that had another key
        self.calls = _Calls()

    def wrong_host(self) -> None:
        """The connection under way reached a host with another key (after a reconnection)."""
        self.wrong.add(self.last)

    async def again(self) -> trio.abc.Stream:
        """A stream to the host once more (its connection dropped mid-match)."""
        try:
            stream, route = await self.target.way.reach(self.wrong)
        except ConnectError:
            if not self.wrong:
                raise
            self.wrong.clear()  # (every other address failed: the right host may be back at one)
            stream, route = await self.target.way.reach()
        self.last = route.where
        return stream

    async def _first(self) -> tuple[trio.abc.Stream, transit.Route]:
        """A stream to the host, or why none is left (the host with another key, if one was)."""
        try:
            return await self.target.way.reach(self.wrong)
        except ConnectError as exc:
            if self.refused is None:
                raise
            if str(exc) == NOTHING_LEFT:
                raise self.refused from None
            raise WrongHostError(f"{self.refused}. The invite's other addresses: {exc}") from None

    async def play(self, seats: Sequence[int]) -> bool:
        """Reach the host and play the match (True), or say why that route failed and that the
        next is to be tried (False)."""
        peer, target = self.peer, self.target
        stream, route = await self._first()
        # (Through a relay no direct address answered: the header keeps the invite's first, for
        # a reader, and the relay, which resume calls at once: SPEC section 7's header.)
        peer.address = route.where if route.relay is None else hostport(*target.targets[0])
        peer.relay = "" if route.relay is None else hostport(*route.relay)
        peer.say(route.words())
        try:
            async with peer:  # (its connections closed however the match ends)
                await peer.join(stream, seats=seats)
            return True
        except WrongHostError as exc:
            if await self.calls.again(peer, route, f"{exc}; calling again"):
                return False  # (someone else holding the invite waited at the relay as the host)
            # One address answered with another key (someone else's machine took it, or a
            # stranger sits in the middle there): say so, and go on with the invite's others.
            self.wrong.add(route.where)
            self.refused = exc
            if len(target.targets) + len(target.relays) > 1:
                peer.say(f"{route.where}: {exc}")
                peer.say("trying the invite's other addresses")
            return False
        except (PeerGoneError, trio.TooSlowError):
            # A relay paired us with someone who is not the host (another joiner calling at
            # the same moment, who sends what we do, or one who says nothing), or broke the
            # handshake: call again, a few times, a moment apart.
            if peer.connections or not await self.calls.again(peer, route, NOT_THE_HOST):
                raise
            return False


NOT_THE_HOST = "the call it paired us with did not answer as the host; calling again"


class _Calls:
    """A joiner's calls at relays that paired it with someone who was not the host: each is said,
    and called again a moment later, :data:`MISPAIRED_TRIES` times at most."""

    def __init__(self) -> None:
        self.mispaired = 0

    async def again(self, peer: Peer, route: transit.Route, why: str) -> bool:
        """Whether to call again after ``route`` failed so (only a relay's route, a few times)."""
        if route.relay is None or self.mispaired >= MISPAIRED_TRIES:
            return False
        self.mispaired += 1
        peer.say(f"{route.where}: {why}")
        await trio.sleep(random.uniform(0.1, 1.0))
        return True


def run_join(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius join [INVITE | HOST:PORT]``."""
    printer = Printer(out, moves=True)
    address = address_of(args.address)
    if address is not None and invite_codec.is_invite(address):
        mail = invite_codec.parse(address)
        if isinstance(mail, invite_codec.MailInvite):
            from p2pgenius.cli.correspondence import run_join_mail  # noqa: PLC0415  (only by correspondence)

            return run_join_mail(args, mail, out)
    if args.mailbox:
        raise LocalMisuseError("--mailbox is for a match by correspondence (its invite names relays)")
    if address is not None:
        target = target_of(address)
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
    with held(peer.files):  # one process a transcript (refused before it plays; see net/early.py)
        return played(args, peer, partial(join_match, args, peer, target), printer)


def run_and_forget(args: argparse.Namespace, out: TextIO) -> int:
    """``join``; the connection begun while it started (net/early.py) is closed if it stopped
    before taking it (its address refused by the invite's checks, say)."""
    try:
        return run_join(args, out)
    finally:
        early.forget()


run = one_line(run_and_forget)
"""The command, its errors in one line."""
