"""The command-line grammar, kept free of heavy imports so that ``--help`` starts at once.

Each command's code lives in its own module and is imported only when that command runs. No help
text names a game: the commands that take one end their ``--help`` with the games' table (each
game's name and title, and for ``host`` its peers, its seat groups and its time options from its
spec, loaded only when that help is shown).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence

from p2pgenius import durations
from p2pgenius.cli.terminal import columns
from p2pgenius.durations import words
from p2pgenius.games.catalog import GAMES, Entry, levels_help, names
from p2pgenius.net import DEFAULT_GRACE_S

TYPE_CHECKING = False  # (no typing at run time: every command's start imports this)
if TYPE_CHECKING:
    from typing import Any, Final

MAX_OPTION_S: Final = 30 * 86400
"""The longest time limit the command line takes (the protocol sets none): 30 days, for a match by
correspondence (such sites let a turn wait up to ten days)."""
MAX_GRACE_S: Final = 7 * 86400
"""The longest grace period the command line takes: a week, for a match by correspondence."""
MAIL_GRACE_S: Final = 86400
"""The default grace period by correspondence: an opening or a signed result falls due as soon as
another player has moved, and a player who looks once a day pays it within a day."""


def game_lines(entry: Entry, *, terms: bool) -> list[str]:
    """One game as a help text lists it: its name and title, what it is; with ``terms``, from
    its spec, the peers it takes (and the seat groups it deals them), whether its choices are
    sealed (``--fast``), and each time option with its default (``--option``; the first, the
    game's main clock, is ``--turn`` too)."""
    lines = [f"{entry.name} ({entry.title}): {entry.summary}"]
    if not terms:
        return lines
    spec = entry.load_spec()
    counts = sorted(spec.groups_by_peers)
    peers = f"{counts[0]} peers" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} peers"
    grouped = [
        f"over {count}: " + " | ".join("+".join(map(str, group)) for group in groups)
        for count, groups in sorted(spec.groups_by_peers.items())
        if any(len(group) > 1 for group in groups)
    ]
    lines.append(f"{peers} (--peers)" + (f"; seat groups (--seat) {'; '.join(grouped)}" if grouped else ""))
    if any(len(side) > 1 for side in spec.sides):
        lines.append(
            "teams: " + " against ".join("+".join(map(str, side)) for side in spec.sides) + " (--partner)"
        )
    if spec.sealed:
        lines.append("sealed choices: --fast resolves a stage once every choice is in")
    lines.extend(
        f"--option {o.name}={words(o.seconds)}{' (or --turn)' if i == 0 else ''}: {o.what}"
        for i, o in enumerate(spec.time_options)
    )
    return lines


class Help(argparse.HelpFormatter):
    """argparse's help, as wide as the terminal, its width found without shutil (see
    :func:`~p2pgenius.cli.terminal.columns`): the same width argparse finds. Every parser of
    the command line formats with it (argparse makes one at every argument added)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24) -> None:
        super().__init__(prog, indent_increment, max_help_position, columns() - 2)


def games_help(*, terms: bool) -> str:
    """The games' table as a command's help ends (see :func:`game_lines`), wrapped to the
    terminal as argparse wraps the rest."""
    import textwrap  # noqa: PLC0415  (only when a help is shown, as argparse imports it)

    width = max(columns() - 2, 40)
    out = ["games:"]
    for entry in GAMES:
        head, *rest = game_lines(entry, terms=terms)
        out.extend(textwrap.wrap(head, width, initial_indent="  ", subsequent_indent="      "))
        for line in rest:
            out.extend(textwrap.wrap(line, width, initial_indent="    ", subsequent_indent="      "))
    return "\n".join(out) + "\n"


class GamesHelp(argparse.Action):
    """``-h``/``--help`` of a command that takes a game: argparse's help, then the games' table
    (:func:`games_help`; ``terms``: with each game's match terms, loaded from its spec now, when
    help is asked for, never to parse a command line)."""

    def __init__(
        self, option_strings: Sequence[str], dest: str, *, terms: bool = False, **kwargs: Any
    ) -> None:
        kwargs.setdefault("help", "show this help message and exit")
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, **kwargs)
        self.terms = terms

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None
    ) -> None:
        parser.print_help()
        sys.stdout.write("\n" + games_help(terms=self.terms))
        parser.exit()


def add_game_help(parser: argparse.ArgumentParser, *, terms: bool = False) -> None:
    """Give ``parser`` (made with ``add_help=False``) the ``--help`` that ends with the games."""
    parser.add_argument("-h", "--help", action=GamesHelp, terms=terms)


def add_solve(commands: Any) -> None:
    """Register the ``solve`` subcommand."""
    parser = commands.add_parser(
        "solve",
        help="solve a Magic Square placement phase exactly",
        description="The exact result of the Magic Square's placement phase under perfect play: "
        "who wins the round, the best next decision, the final margin and the whole line.",
    )
    parser.add_argument("game", choices=["magic-square"], help="the game to solve")
    parser.add_argument(
        "--colours",
        required=True,
        metavar="RRBB...",
        help="16 letters R (p0) or B (p1), cells row-major, eight of each",
    )
    parser.add_argument(
        "--first-lead",
        type=int,
        choices=[0, 1],
        default=0,
        metavar="S",
        help="the first Lead Player of the round (default 0)",
    )
    parser.add_argument(
        "--placed", default="", metavar="C1,C2,...", help="the cells of 1, 2, ... placed so far (0..15)"
    )
    parser.add_argument(
        "--next",
        type=int,
        choices=[0, 1],
        default=None,
        metavar="S",
        help="who places next when an odd count is placed (default: the seat "
        "that is not this placement round's Lead Player)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def add_verify(commands: Any) -> None:
    """Register the ``verify`` subcommand."""
    parser = commands.add_parser(
        "verify",
        help="check a match transcript: signatures, hash chain, commitments, actions, hashes",
        description="Check a finished or aborted match from its transcript alone. Prints the "
        "result or the first fault (which peer, which stage, why). Exit 0 if the match is "
        "complete and valid, 1 otherwise.",
    )
    parser.add_argument(
        "transcript",
        metavar="TRANSCRIPT",
        help="the transcript file, or a bundle (p2pgenius export --bundle)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument(
        "--text",
        action="store_true",
        help="after the verdict, print the match's record as `p2pgenius export` does",
    )


def add_export(commands: Any) -> None:
    """Register the ``export`` subcommand."""
    parser = commands.add_parser(
        "export",
        help="write a match's record for people (PGN-like) from its transcript",
        description="Verify a transcript and write the match's record: a header of [Tag "
        '"value"] lines (game, players with their fingerprints, options, result, verdict), '
        "then one numbered line per move in the game's notation, then the result "
        "(docs/export.md). Exit 0 once written, also for a match that ended in a fault.",
    )
    parser.add_argument(
        "transcript",
        metavar="TRANSCRIPT",
        nargs="*",
        help="the transcript file (with --bundle: any number; none: every finished match of your "
        "record whose transcript verifies)",
    )
    parser.add_argument("--out", metavar="PATH", help="write the record to PATH (default: standard output)")
    parser.add_argument(
        "--bundle",
        metavar="FILE",
        help="write the transcripts into one FILE that proves their results to anyone "
        "(p2pgenius verify FILE checks them all)",
    )
    parser.add_argument(
        "--game", choices=names(), help="with --bundle and no TRANSCRIPT: only this game's matches"
    )


def add_history(commands: Any) -> None:
    """Register the ``history`` subcommand."""
    parser = commands.add_parser(
        "history",
        help="this account's matches, newest first, each verified from its transcript; ratings",
        description="List this account's matches, newest first: when, the game, the opponents "
        "(name and fingerprint), your seats, the result for you, how it ended, its length, and "
        "whether its transcript verifies; unfinished matches say how to resume them. Ratings per "
        "game come from verified results only, as this machine knows them. The record is kept in "
        "an index (history.sqlite in the config directory), brought up to date at each run.",
    )
    parser.add_argument("--game", choices=names(), help="only this game's matches")
    parser.add_argument(
        "--against",
        metavar="FINGERPRINT",
        help="the record against one opponent (the first 4 or more characters; a partner in a game "
        "of teams is none)",
    )
    parser.add_argument(
        "--with",
        dest="partner",
        metavar="FINGERPRINT",
        help="the record with one partner, in a game of teams (the first 4 or more characters)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object, for scripts")
    parser.add_argument(
        "--rebuild", action="store_true", help="verify every transcript again and rebuild the index"
    )
    parser.add_argument("--open", type=int, metavar="N", help="replay the match on line N of the list")


def add_games(commands: Any) -> None:
    """Register the ``games`` subcommand."""
    parser = commands.add_parser(
        "games",
        help="every match of this account, live or by correspondence: game, players, whose move, "
        "the deadline",
        description="List this account's matches, newest first, those that need you before the "
        "finished ones: the game, the players (name and fingerprint; your partners told apart from "
        "your opponents), whether it is played live or by correspondence, and where it stands. An "
        "unfinished live match says how to resume it; a match by correspondence says whose move "
        "it is, the deadline in local time, when you last looked and how many relays took your "
        "last letters; a finished one, the result for you as history words it (the newest "
        "20 in the text; history lists them all).",
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="do not read the relays of the matches by correspondence (by default each is read, "
        "nothing written or sent, to say what waits there: new moves, a claim, a forfeit)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per match, one a line (JSON Lines)"
    )


def add_identity(commands: Any) -> None:
    """Register the ``id`` subcommand."""
    commands.add_parser(
        "id",
        help="show (create on first use) this player's identity key and fingerprint",
        description="Show this player's long-term identity: the fingerprint to read out to a "
        "peer, the public key, and where the private key is kept.",
    )


def add_rules(commands: Any) -> None:
    """Register the ``rules`` subcommand."""
    parser = commands.add_parser(
        "rules",
        help="show the rules of a game",
        description="Print the full rules of a game, rulings included.",
        add_help=False,
    )
    add_game_help(parser)
    parser.add_argument("game", choices=names())


def add_replay(commands: Any) -> None:
    """Register the ``replay`` subcommand."""
    parser = commands.add_parser(
        "replay",
        help="step through a match from its transcript in the terminal UI",
        description="Verify a transcript, then show the match step by step in the terminal: the "
        "board after each step beside the log of what happened, every hidden card the "
        "transcript opens shown. Right/Space/n and Left/p/Backspace step, Home/End go to the "
        "start and the end, `go N` to step N as the status bar counts them (in a game of turns: turn N), q "
        "leaves. Needs a terminal.",
    )
    parser.add_argument("transcript", metavar="TRANSCRIPT", help="the transcript file")
    parser.add_argument("--ascii", action="store_true", help="ASCII symbols only")


def port_number(text: str) -> int:
    """``--port``: 0 (any free port) to 65535."""
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: 0 (any free port) to 65535")
    return int(text)


def pace_seconds(text: str) -> float:
    """``--pace``: a number of seconds from 0 to an hour."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= 3600:  # (nan fails this too)
        raise argparse.ArgumentTypeError(f"{text!r}: a bot's pace is 0 to 3600 seconds a move")
    return seconds


def grace_seconds(text: str) -> float:
    """``--grace``: a duration (``90``, ``2m``, ``1h``: :mod:`p2pgenius.durations`) or a number of
    seconds with a fraction (``1.5``), from a second to a week."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = _duration(text)
    if not 1 <= seconds <= MAX_GRACE_S:  # (nan fails this too)
        raise argparse.ArgumentTypeError(f"{text!r}: the grace period is 1s to {words(MAX_GRACE_S)}")
    return seconds


def turn_length(text: str) -> int:
    """``--turn``: a duration (:mod:`p2pgenius.durations`), from a second to 30 days."""
    seconds = _duration(text)
    if seconds > MAX_OPTION_S:
        raise argparse.ArgumentTypeError(f"{text!r}: a time limit is 1s to {words(MAX_OPTION_S)}")
    return seconds


def _duration(text: str) -> int:
    """``text`` read as a duration, or argparse's refusal in its words."""
    try:
        return durations.parse(text)
    except durations.DurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_seat(parser: argparse.ArgumentParser) -> None:
    """``--seat S``, for host and join."""
    parser.add_argument(
        "--seat",
        type=int,
        action="append",
        default=[],
        metavar="S",
        help="claim seat S (repeat for several; they must be one peer's group: the seat groups "
        "each game deals, host --help lists); unclaimed seats go by coin flip",
    )


def add_play(commands: Any) -> None:
    """Register ``play``, ``host``, ``join``, ``watch``, ``resume`` and ``demo``."""
    common = _common()
    add_versus(commands, common)
    add_host(commands, common)
    add_join(commands, common)
    add_watch(commands)
    add_resume(commands, common)
    add_demo(commands)


def add_stay(parser: argparse.ArgumentParser) -> None:
    """``--stay``, for the commands that can play by correspondence (not ``play``, whose bots
    are all on this machine)."""
    parser.add_argument(
        "--stay",
        action="store_true",
        help="by correspondence: keep running after this visit, reading the relays every few seconds, "
        "until the match is over (as a live match; without it the program ends once it owes nothing "
        "it can pay now)",
    )


def add_versus(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``play``: a person against bots, over the real protocol on loopback."""
    play = commands.add_parser(
        "play",
        parents=[common],
        help="play against the computer: you at this terminal, bots in every other seat",
        description="Play a match against bots in one command: this terminal holds your seat, bots "
        "hold the others, and the match runs over the real protocol on this machine (so its "
        "transcript verifies and counts in history like any match). Ctrl-Q Ctrl-Q pauses it; "
        "p2pgenius resume carries on, the bots included.",
        add_help=False,
    )
    add_game_help(play, terms=True)
    play.add_argument("game", nargs="?", choices=names(), help="the game (without it: asked)")
    play.add_argument(
        "--vs",
        metavar="LEVEL",
        help=f"the bots' level (default: the game's strongest); one of {levels_help()}",
    )
    add_seat(play)
    play.add_argument(
        "--peers",
        type=int,
        default=2,
        help="players at the table, you included (default 2; a game of teams may take more, "
        "each a bot but you; how many each game takes is listed below)",
    )
    play.add_argument(
        "--fast",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a game of sealed choices: resolve a stage as soon as every seat has chosen (the "
        "default here: the bots choose at once; --no-fast lets each stage last its whole time)",
    )
    play.add_argument(
        "--turn",
        type=turn_length,
        metavar="DURATION",
        help="the game's main clock (each turn, round or decision): 90s, 5m, 1h ... as for host",
    )
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=DURATION",
        help="a time limit, as for host (each game's KEYs are listed below)",
    )
    add_setup(play)


def _common() -> argparse.ArgumentParser:
    """What ``host``, ``join`` and ``resume`` share: who plays this peer's seats, and where the
    match is kept."""
    common = argparse.ArgumentParser(add_help=False, formatter_class=Help)
    common.add_argument(
        "--bot",
        nargs="?",
        const="",
        metavar="LEVEL",
        help="let a bot play this peer's seats instead of the terminal UI; LEVEL (default: the "
        f"game's strongest) is one of {levels_help()}",
    )
    common.add_argument(
        "--pace",
        type=pace_seconds,
        default=0.0,
        metavar="SECONDS",
        help="with --bot: the bot waits SECONDS before each move (to follow a match between bots)",
    )
    common.add_argument(
        "--transcript",
        metavar="PATH",
        help="where to write the transcript (default: a new file under the config directory's matches/)",
    )
    common.add_argument("--name", help="your name at the table (default: the start of your fingerprint)")
    common.add_argument(
        "--grace",
        type=grace_seconds,
        default=None,
        metavar="DURATION",
        help=(
            "how long something owed without a clock (an opening, the hidden cards shown at the end,"
            " the signed result) may stay unpaid before it is claimed, a claim unanswered before it"
            " forfeits, and the most a player may take past its spent clock in a round or match"
            f" (1s to {words(MAX_GRACE_S)}, default {words(int(DEFAULT_GRACE_S))}, by correspondence"
            f" {words(MAIL_GRACE_S)}; a decision is on its own clock, however long)"
        ),
    )
    common.add_argument("--log", metavar="PATH", help="write a debug log of every message")
    common.add_argument("--ascii", action="store_true", help="terminal UI: ASCII symbols only")
    common.add_argument(
        "--hints",
        action="store_true",
        help="terminal UI: start with hints on (in a game whose front end has them: the moves that "
        "keep the game winnable)",
    )
    common.add_argument(
        "--partner",
        metavar="LEVEL",
        help="terminal UI, a game of teams: the bot level of a partner seat this peer holds "
        "(default: the game's strongest; its levels as for --bot)",
    )
    return common


def add_host(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``host``: the game, where it listens, who may come, and the match's options."""
    host = commands.add_parser(
        "host",
        parents=[common],
        help="host a match and wait for peers",
        description="Listen for peers, then play a match with them.",
        add_help=False,
    )
    add_game_help(host, terms=True)
    host.add_argument("game", choices=names())
    _host_door(host)
    _host_guests(host)
    _host_match(host)
    add_stay(host)


def _host_door(host: argparse.ArgumentParser) -> None:
    """Where a host listens, and the addresses its invite names."""
    host.add_argument(
        "--port", type=port_number, default=0, help="port to listen on (default 0: any free port)"
    )
    host.add_argument(
        "--lan",
        action="store_true",
        help="let other machines join: listen on every interface, IPv4 and IPv6 (as --bind ::), "
        "show every address, and announce the match on the local network. Without it (or --bind, "
        "--upnp) only this machine can join",
    )
    host.add_argument(
        "--bind",
        default=None,
        metavar="ADDR",
        help="listen on ADDR alone (default 127.0.0.1, this machine only; :: is every interface, "
        "IPv4 and IPv6, as --lan; 0.0.0.0 every IPv4 interface)",
    )
    host.add_argument(
        "--upnp",
        action="store_true",
        help="ask the home router (UPnP) to forward the port from the internet while this host "
        "runs, and put its public address in the invite; implies --lan",
    )
    host.add_argument(
        "--advertise",
        action="append",
        default=[],
        metavar="ADDR",
        help="also put ADDR (an IP address or a host name) in the invite, first: the public "
        "address of a port forwarded by hand, or this machine's name on a VPN (repeatable)",
    )
    host.add_argument(
        "--relay",
        action="append",
        default=None,
        metavar="HOST[:PORT]",
        help="wait for callers at this transit relay too (twist transitrelay; port 4001 if none is "
        "given), for friends who cannot reach this machine directly; the invite names it "
        "(repeatable; default: $P2PGENIUS_RELAY, else the 'relays' file in the config directory)",
    )
    host.add_argument(
        "--no-relay",
        dest="relay",
        action="store_const",
        const=[],
        help="wait at no relay, whatever $P2PGENIUS_RELAY and the 'relays' file say",
    )


def _host_guests(host: argparse.ArgumentParser) -> None:
    """Who may sit at the table or watch it."""
    host.add_argument(
        "--invite-only",
        action="store_true",
        help="seat only players who join with this host's invite (callers who found the address "
        "or the LAN announcement are turned away)",
    )
    host.add_argument(
        "--spectators",
        action="store_true",
        help="let others watch the match live (p2pgenius watch); every player sees it in the lobby",
    )
    host.add_argument(
        "--no-announce",
        dest="announce",
        action="store_false",
        help="do not announce the match on the local network (with --lan or --upnp)",
    )


def add_setup(parser: argparse.ArgumentParser) -> None:
    """``--setup KEY=VALUE``: the game's set-up (the terms' ``setup``), each value in JSON."""
    parser.add_argument(
        "--setup",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="the game's set-up, VALUE written as JSON (like garnets=[1,0,1,0] or hp=[10,10]), "
        "checked by the game before anyone joins; each game's keys are in its rules (p2pgenius "
        "rules GAME)",
    )


def _host_match(host: argparse.ArgumentParser) -> None:
    """The seats, the peers and the options of the match."""
    add_seat(host)
    add_setup(host)
    host.add_argument(
        "--correspondence",
        action="store_true",
        help="a match by correspondence through Nostr relays: each side's program reads what "
        "arrived, plays, sends, and ends; the players need never be online together (no port, no "
        "relay of ours). Time limits then default to days (a turn or a decision 2d, a whole "
        f"round's clock 16d), the grace period to {words(MAIL_GRACE_S)}",
    )
    add_mailbox(host)
    host.add_argument(
        "--fast",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a game of sealed choices (listed below): resolve a stage as soon as every seat has "
        "chosen (default with --bot; without it each stage lasts its whole time and choices may "
        "change until then)",
    )
    host.add_argument(
        "--turn",
        type=turn_length,
        metavar="DURATION",
        help="the game's main clock, its first time option listed below (each turn, round or "
        "decision): 90s, 5m, 12h, 1d, 1h30m ... (plain seconds too; 1s to "
        f"{words(MAX_OPTION_S)}); a match by correspondence takes a turn a day: --turn 1d",
    )
    host.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=DURATION",
        help=f"a time limit, 1s to {words(MAX_OPTION_S)} (written as for --turn): each game's KEYs "
        "and their defaults are listed below; nobody is claimed against before their own clock "
        "runs out, however long it is",
    )
    host.add_argument(
        "--peers",
        type=int,
        default=2,
        help="peers at the table, host included (default 2; how many each game takes is listed "
        "below; bots fill the seats)",
    )


def add_mailbox(parser: argparse.ArgumentParser) -> None:
    """``--mailbox URL``, repeated: the Nostr relays of a correspondence match."""
    parser.add_argument(
        "--mailbox",
        action="append",
        default=None,
        metavar="URL",
        help="by correspondence: a Nostr relay (ws:// or wss://) to carry the match's letters, "
        "repeated for more (at most 8). A host's go in its invite (default: $P2PGENIUS_MAILBOX, "
        "else the mailboxes file of the config directory, else a few public relays); a joiner's "
        "are read and written besides the invite's",
    )


def add_join(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``join``."""
    join = commands.add_parser(
        "join",
        parents=[common],
        help="join a hosted match",
        description="Connect to a host and play the match it proposes. With an invite, the host "
        "must have the key the invite names; with no address, choose among the matches announced "
        "on the local network.",
    )
    join.add_argument(
        "address",
        nargs="*",
        metavar="INVITE | HOST:PORT",
        help="the invite the host showed (p2pgenius://...; white space in it does not count, so "
        "an invite copied over several lines, or split into several words, is read whole), or "
        "HOST:PORT; without it: look for matches on the local network and choose one",
    )
    add_stay(join)
    join.add_argument(
        "--first",
        action="store_true",
        help="with no address: join a match found on the local network without asking (one whose "
        "host you pinned first; never one under a name pinned to another key)",
    )
    add_mailbox(join)
    add_seat(join)


def add_watch(commands: Any) -> None:
    """Register ``watch``."""
    watch = commands.add_parser(
        "watch",
        help="watch a match live as a spectator, checking every message",
        description="Connect to a host that admits spectators (host --spectators) and watch its "
        "match live: every signature, chain link, opening and state hash is checked as it comes, "
        "and only what the table sees is shown. The messages are kept as a transcript, verified "
        "at the end.",
    )
    watch.add_argument(
        "address",
        nargs="+",
        metavar="INVITE | HOST:PORT",
        help="the host's invite (white space in it does not count), or HOST:PORT",
    )
    watch.add_argument("--name", help="your name, as the host's screen shows it")
    watch.add_argument(
        "--stay",
        action="store_true",
        help="by correspondence: keep reading the relays until the match is over (without it: "
        "everything so far, checked and shown, then the program ends)",
    )
    watch.add_argument("--text", action="store_true", help="print the moves instead of the terminal UI")
    watch.add_argument("--ascii", action="store_true", help="terminal UI: ASCII symbols only")
    watch.add_argument(
        "--transcript", metavar="PATH", help="where to keep the messages (default: under matches/)"
    )


def add_resume(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``resume``."""
    resume = commands.add_parser(
        "resume",
        parents=[common],
        help="carry on a match after a crash or a lost connection",
        description="Rebuild a match from its transcript and the secrets kept beside it, "
        "reconnect (a joiner to its host; a host listens again on its address), and play on.",
    )
    resume.add_argument(
        "path",
        nargs="?",
        metavar="TRANSCRIPT",
        help="the match's transcript (the match carries on in it; --transcript PATH names it "
        "too); without it, the unfinished match among the newest in the config directory's "
        "matches/ (or, if there are several, a list of them to choose from)",
    )
    add_stay(resume)


def add_demo(commands: Any) -> None:
    """Register ``demo``."""
    demo = commands.add_parser(
        "demo",
        help="watch bots play over the real protocol on loopback",
        description="Two peers on loopback, bots in every seat, a whole match over the real "
        "protocol (handshake, commitments, signed transcript), then the transcript verified.",
        add_help=False,
    )
    add_game_help(demo)
    demo.add_argument("game", nargs="?", choices=names(), help="default: every game in turn")
