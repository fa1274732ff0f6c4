"""``p2pgenius play``: a person at this terminal against bots in every other seat, over the real
protocol on loopback.

The person's peer hosts on 127.0.0.1 (port 0) and each bot is a peer of its own in this process
that joins it, so the match is played exactly as between machines: handshakes, commitments, signed
transcripts. The person's transcript lands in the account's ``matches/`` and counts in ``history``
as any match. The bots keep their files beside it (``X.bots/``, with their keys in ``X.play``,
private), so that ``p2pgenius resume X`` brings the whole table back after a crash or a pause.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final, TextIO

import trio

from p2pgenius.bots import level_of, levels
from p2pgenius.bots.driver import BotDriver
from p2pgenius.cli.play import (
    Printer,
    ask_number,
    check_level,
    check_partner,
    check_seats,
    check_terminal,
    held,
    make_peer,
    match_options,
    match_setup,
    one_line,
    played,
)
from p2pgenius.cli.terminal import interactive
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.catalog import GAMES
from p2pgenius.games.registry import get_spec
from p2pgenius.local_files import PRIVATE, TooLargeError, bots_table, read_within, replace
from p2pgenius.net.invite import TOKEN_LEN
from p2pgenius.net.lobby import DeclinedError
from p2pgenius.net.peer import Files, Peer
from p2pgenius.net.transit import Entrance
from p2pgenius.protocol.identity import Identity

LOOPBACK: Final = "127.0.0.1"


def bots_folder(transcript: Path) -> Path:
    """Where the bots of a match against bots keep their transcripts (``X.bots/``)."""
    return transcript.with_suffix(".bots")


def person_pins(transcript: Path) -> Path:
    """Where the person's peer of a match against bots pins the bots' keys: the table's own
    folder (the account's pinned names, friends whose keys it knows, are neither consulted nor
    changed by the bots)."""
    return bots_folder(transcript) / "pins" / "host"


@dataclass(frozen=True)
class Seated:
    """One bot at the table: its name, level, identity key seed and the seed its thoughts use."""

    name: str
    level: str
    key: bytes
    seed: int

    def files(self, transcript: Path, index: int) -> Files:
        folder = bots_folder(transcript)
        return Files(folder / f"{index}.p2pt", folder / f"{index}.secrets")

    def peer(self, transcript: Path, index: int, grace_s: float) -> Peer:
        """This bot's peer (its pins kept with its files: it trusts the host it was seated by)."""
        quiet: Any = lambda *_: None  # noqa: E731  (the person's screen tells what happens)
        return Peer(
            Identity.from_seed(self.key),
            self.name,
            self.files(transcript, index),
            BotDriver(self.level, self.seed).decide,
            quiet,
            quiet,
            grace_s=grace_s,
            pin_dir=bots_folder(transcript) / "pins" / str(index),
            decide_early=True,
            settle_at_once=True,
            bot=self.level,
        )


def new_bots(game: str, level: str | None, count: int, account: Identity) -> list[Seated]:
    """``count`` bots of ``level`` (None: the game's strongest). Each has the same key in every
    match of this account (derived one way from the account's key, the game, the level and its
    chair), so that the record knows the bot as one opponent across matches."""
    chosen = level_of(game, level)
    names = [chosen] if count == 1 else [f"{chosen} {i + 1}" for i in range(count)]
    return [
        Seated(name, chosen, bot_key(account, game, chosen, chair), secrets.randbits(31))
        for chair, name in enumerate(names, 1)
    ]


def bot_key(account: Identity, game: str, level: str, chair: int) -> bytes:
    """The key seed of the bot of ``level`` in ``chair`` of this account's matches of ``game``."""
    label = f"p2pgenius bot key\0{game}\0{level}\0{chair}".encode()
    return hashlib.sha256(label + b"\0" + account.seed).digest()


def save_bots(transcript: Path, game: str, bots: Sequence[Seated]) -> None:
    """Keep the bots beside the transcript, privately (their keys sign their side of the match)."""
    kept = {
        "game": game,
        "bots": [{"name": b.name, "level": b.level, "key": b.key.hex(), "seed": b.seed} for b in bots],
    }
    folder, table = bots_folder(transcript), bots_table(transcript)
    if os.path.lexists(folder) or os.path.lexists(table):  # (never another table's, or a file of yours)
        raise LocalMisuseError(
            f"{transcript} already has a table of bots beside it ({folder.name}, {table.name}): "
            "resume that match, or choose another --transcript"
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.mkdir(mode=0o700)
    replace(table, json.dumps(kept, indent=1).encode(), PRIVATE, sync=True)


def load_bots(transcript: Path) -> list[Seated]:
    """The bots kept beside ``transcript`` (LocalMisuseError, in one line, if they do not read)."""
    path = bots_table(transcript)
    try:
        kept = json.loads(read_within(path, limit=64 * 1024, what="bots file"))
        return [
            Seated(str(b["name"]), str(b["level"]), bytes.fromhex(b["key"]), int(b["seed"]))
            for b in kept["bots"]
        ]
    except (OSError, TooLargeError) as exc:
        raise LocalMisuseError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise LocalMisuseError(f"{path} does not list this match's bots ({exc})") from None


def ask_game(out: TextIO, level: str | None) -> str:
    """``play`` without a game: ask which (a script, with no one to ask, is told to name one).
    With ``level`` (``--vs``), only the games that have it are offered, and a game alone in
    having it is taken without asking."""
    every = [entry.name for entry in GAMES if level is None or level in levels(entry.name)]
    if not every:
        level_of(GAMES[0].name, level)  # (raises: no such level, with the first game's levels)
        raise LocalMisuseError(f"no game has a bot level {level!r}")
    if len(every) == 1 and level is not None:
        return every[0]
    if not interactive():
        raise LocalMisuseError(
            f"play needs a game when no one can be asked: p2pgenius play {'|'.join(every)}"
        )
    out.write(f"Which game{f' (with a {level} bot)' if level else ''}?\n")
    titles = {entry.name: entry.title for entry in GAMES}
    for number, name in enumerate(every, 1):
        out.write(f"  {number}. {name:<13} {titles[name]}\n")
    chosen = ask_number(out, f"Type 1 to {len(every)} or a name (Enter: 1; q: none): ", every, blank="1")
    if chosen is None:
        raise DeclinedError("no game chosen: nothing was played")
    return every[chosen]


def run_play(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pgenius play [GAME]``."""
    args.game = args.game or ask_game(out, args.vs)
    level = level_of(args.game, args.vs)
    check_seats(args)
    check_partner(args)
    if args.bot is None:
        check_terminal()  # (before the match's files are made: nothing is left behind)
    check_level(args.game, args.bot)
    if args.fast is None:  # (a game of sealed choices: the bots choose at once, so need not wait)
        args.fast = get_spec(args.game).sealed
    options = match_options(args)
    args.setup = match_setup(args.game, args.setup)
    printer = Printer(out, moves=True)
    person = make_peer(args, f"{args.game}-play", 1, printer)
    with held(person.files):
        bots = new_bots(args.game, level, args.peers - 1, person.identity)
        person.pin_dir = person_pins(person.files.transcript)
        save_bots(person.files.transcript, args.game, bots)
        noun = "a bot" if len(bots) == 1 else f"{len(bots)} bots"
        say = printer.line if args.bot is not None else printer.held.append
        say(
            f"you against {noun} ({level}) on this machine; Ctrl-Q Ctrl-Q pauses, p2pgenius resume carries on"
        )
        table = partial(play_match, args, person, options, bots)
        try:
            return played(args, person, table, printer)
        finally:
            if person.session is None:  # (left in the lobby: no match to resume)
                bots_table(person.files.transcript).unlink(missing_ok=True)
                shutil.rmtree(bots_folder(person.files.transcript), ignore_errors=True)


async def play_match(
    args: argparse.Namespace, person: Peer, options: dict[str, Any], bots: Sequence[Seated]
) -> None:
    """Host on loopback, let each bot join, and play to the end (the bots stop with the person)."""
    listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
    port = listeners[0].socket.getsockname()[1]
    person.address = f"{LOOPBACK}:{port}"
    transcript, grace = person.files.transcript, person.grace_s
    # Only the bots sit down: they alone hold the table's token, and each knows the person's key
    # (another process on this machine, another user's too, could reach the port first).
    person.token, person.invite_only = secrets.token_bytes(TOKEN_LEN), True
    async with trio.open_nursery() as bots_playing:
        for index, bot in enumerate(bots, 1):
            peer = bot.peer(transcript, index, grace)
            peer.token, peer.expect_key = person.token, person.identity.public
            bots_playing.start_soon(_bot_joins, peer, port)
        try:
            async with person:
                await person.host(
                    listeners[0],
                    game=args.game,
                    options=options,
                    setup=args.setup,
                    peers=args.peers,
                    seats=args.seat,
                )
        finally:
            bots_playing.cancel_scope.cancel()
            with trio.CancelScope(shield=True):
                await listeners[0].aclose()


async def _bot_joins(peer: Peer, port: int) -> None:
    """One bot's side: join the person's table, and come back to it if the connection drops."""
    peer.address = f"{LOOPBACK}:{port}"
    peer.reconnect = partial(trio.open_tcp_stream, LOOPBACK, port)
    with held(peer.files):
        async with peer:
            await peer.join(await trio.open_tcp_stream(LOOPBACK, port))


def resume_bots(person: Peer, bots: Sequence[Seated]) -> list[Peer]:
    """The bots of a match against bots read back from their files (each must have begun its
    transcript: a table whose bots never began has no match to resume)."""
    transcript, peers = person.files.transcript, []
    for index, bot in enumerate(bots, 1):
        peer = bot.peer(transcript, index, person.grace_s)
        files = peer.files
        try:
            peer.resume(read_within(files.transcript), read_within(files.secrets, what="secrets file"))
        except FileNotFoundError:
            raise P2PGeniusError(
                f"bot {bot.name!r} of this match kept no transcript ({files.transcript}): the match "
                "cannot be carried on; start another with p2pgenius play"
            ) from None
        except (OSError, TooLargeError) as exc:
            raise P2PGeniusError(f"cannot read {files.transcript}: {exc}") from None
        peers.append(peer)
    return peers


async def replay_table(person: Peer, bots: Sequence[Peer]) -> None:
    """Carry on a match against bots: the person's peer listens again (on a new port) and its bots
    come back to it; all play on to the end."""
    listener = (await trio.open_tcp_listeners(0, host=LOOPBACK))[0]
    port = listener.socket.getsockname()[1]
    person.listener = entrance = Entrance(listener, [])
    person.say(f"the bots come back to the table ({len(bots)} to wait for)")
    async with trio.open_nursery() as bots_playing:
        bots_playing.start_soon(entrance.run)
        for bot in bots:
            bot.reconnect = partial(trio.open_tcp_stream, LOOPBACK, port)
            bots_playing.start_soon(_bot_plays_on, bot)
        try:
            async with person:
                await person.play()
        finally:
            bots_playing.cancel_scope.cancel()
            with trio.CancelScope(shield=True):
                await entrance.aclose()


async def _bot_plays_on(peer: Peer) -> None:
    with held(peer.files):
        async with peer:
            await peer.play()


def resume_play(args: argparse.Namespace, person: Peer, printer: Printer) -> int:
    """``resume`` of a match against bots (its person's peer read back, its files held)."""
    bots = resume_bots(person, load_bots(person.files.transcript))
    for peer in (person, *bots):  # (the whole table stopped: no clock ran while it did)
        peer.forget_the_pause()
    person.pin_dir = person_pins(person.files.transcript)  # (as when it began)
    return played(args, person, partial(replay_table, person, bots), printer)


run = one_line(run_play)
"""The command, its errors in one line."""
