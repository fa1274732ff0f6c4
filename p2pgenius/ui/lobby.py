"""The board before the match: a host's wait for players (its invite, its fingerprint to check)
and a joiner's view of the host's lobby (every player's whole fingerprint, the options in words).
Pure: styled lines from what the screen's state holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from p2pgenius import wording
from p2pgenius.durations import words
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.games.spec import TimeOption
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.lobby import bot_of, level_words
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.record.ratings import Rating, said
from p2pgenius.ui.lines import Line, plural, width_of
from p2pgenius.ui.table_state import TableState

LOCAL_ONLY: Final = " (other machines can join only with --lan, or --upnp across a router)"
"""Under a host's invite when it listens on loopback alone."""


def waiting_lines(
    state: TableState, own_fingerprint: str | None, width: int = 80, *, invite_apart: bool = False
) -> list[Line]:
    """The board before the seats are dealt: the lobby a joiner is shown, or a host's wait with
    who is at its table and what to tell the others (``own_fingerprint``: this peer's, once there
    is a peer), for ``width`` columns; ``invite_apart``: the invite is shown across the screen,
    not here."""
    if state.lobby is not None:
        return lobby_lines(state.lobby, state.vouched, state.rated)
    # (a player's proposal waits for the host: the table waits for its answer, not for players)
    title = (
        wording.printable(state.proposal.text) if state.proposal is not None else _still_to_come(state.table)
    )
    lines: list[Line] = [[("class:title", f" {title}")]]
    if state.table is not None and len(state.table.get("names", [])) > 1:  # (a host's: who came)
        lines += _players(_joiners(state.table), hosted=False)
    if state.table is not None and state.table.get("spectators") is True:
        lines.append([("class:dim", " Spectators may watch: p2pgenius watch with the same invite")])
    lines.append([])
    if state.invite and own_fingerprint is not None:
        if invite_apart:
            lines += [[("", " Whoever joins runs p2pgenius join with the invite above (F3 copies it)")], []]
        else:
            lines += invite_lines(state, width)
        lines += [
            [("", " They join with it. By phone or in person, check that they see your fingerprint")],
            [("class:strong", f"   {own_fingerprint}")],
        ]
        if state.local_only:
            lines.append([("class:dim", LOCAL_ONLY)])
    elif state.address and own_fingerprint is not None:
        lines += [
            [("", " Tell them to run:")],
            [("class:strong", f"   p2pgenius join {state.address}")],
            [("", " and to check that the fingerprint they see for you is")],
            [("class:strong", f"   {own_fingerprint}")],
        ]
        if state.local_only:
            lines.append([("class:dim", LOCAL_ONLY)])
    else:
        lines.append([("class:dim", " " + state.connection)])
    return lines


def _still_to_come(table: Mapping[str, Any] | None) -> str:
    """What a host's table waits for: how many more players, once it knows (its table shown)."""
    if table is None:
        return "Waiting for the other players"
    if table.get("start") is True:
        return "The table is full: the match starts"
    needed = int(table.get("needed", 0) or 0)
    return f"Waiting for {plural(needed, 'more player')}" if needed else "Waiting for everyone to say ready"


def _joiners(table: Mapping[str, Any]) -> dict[str, Any]:
    """A host's table without the host's own line (its board says the rest of it)."""
    rows = {key: list(table.get(key, []))[1:] for key in ("names", "keys", "claims", "ready", "bots")}
    return {**table, **rows, "you": None}


def invite_lines(state: TableState, width: int) -> list[Line]:
    """A host's invite for ``width`` columns, with what to do with it: on rows of its own (a row
    selection copies it), the file it is saved in, what a paste over two rows does, the key that
    copies it whole."""
    carries = "your addresses, relays and key" if _relayed(state.invite) else "your addresses and key"
    rows = invite_rows(state.invite, width)
    lines: list[Line] = [
        [("", f" Whoever joins runs p2pgenius join with this invite ({carries}):")],
        [],
        *([("class:strong", piece)] for piece in rows),
        [],
    ]
    if state.saved:
        lines += [[("class:dim", " It is also in this file, to copy whole:")]]
        lines += [[("class:dim", state.saved)]]
    if len(rows) > 1:
        spans = f"it spans {plural(len(rows), 'row')}"
        lines += [  # (two lines: the board is not wrapped yet)
            [("class:dim", f" Pasted without quotes it is cut short: {spans};")],
            [("class:dim", " put it in quotes or use the .invite file.")],
        ]
    return [*lines, [("class:dim", " F3 (or typing copy) copies it whole to the clipboard.")], []]


def _relayed(text: str) -> bool:
    """Whether the invite names relays (then friends behind any NAT can come through them)."""
    try:
        return bool(invite_codec.parse(text).relays)
    except invite_codec.InviteError:
        return False


def invite_rows(invite: str, width: int) -> list[str]:
    """``invite`` on rows of its own for ``width`` columns: one row if it fits, else rows of
    equal length, none indented, so that a copy of them, line breaks and all, is the invite
    (a reader leaves white space out); never a continuation indented as a wrapped sentence's."""
    rows = max(-(-len(invite) // max(width, 1)), 1)
    size = -(-len(invite) // rows)
    return [invite[at : at + size] for at in range(0, len(invite), size)]


def lobby_lines(
    lobby: Mapping[str, Any], vouched: str = "", rated: Mapping[bytes, Rating] | None = None
) -> list[Line]:
    """A joiner's view of the host's lobby: the game, every player with their whole fingerprint,
    their seats and readiness, the time limits and options in words, and what to check
    (``vouched``: why the host's key is known good already, when it is), and the players'
    ratings as this machine's record gives them (``rated``)."""
    game = str(lobby.get("game"))
    try:
        spec = get_spec(game)
        title, time_options = spec.title or game, spec.time_options
    except P2PGeniusError:
        title, time_options = game, ()
    names = list(lobby.get("names", []))
    lines: list[Line] = [[("class:title", f" Lobby: {title}, hosted by {names[0] if names else '?'}")], []]
    lines += _players(lobby)
    keys = [key for key in lobby.get("keys", []) if isinstance(key, bytes)]
    you = lobby.get("you")
    known = said(
        dict(rated or {}), keys, [wording.printable(str(n)) for n in names], you if type(you) is int else None
    )
    if known:
        lines.append(
            [("class:dim", f" Ratings in {game} on this machine (its record of verified matches): {known}.")]
        )
    if vouched:
        lines.append([("class:dim", f" The host's fingerprint: {vouched}.")])
    else:
        lines += [
            [("class:dim", " Check the host's fingerprint with them (by phone, or a chat you trust)")],
            [("class:dim", " before you answer y: the same name with another fingerprint is someone else.")],
        ]
    lines += [[], [("class:title", " Options")], *_options(lobby, time_options)]
    needed = int(lobby.get("needed", 0) or 0)
    lines.append([])
    if lobby.get("start"):
        lines.append([("class:strong", " Starting.")])
    elif needed:
        lines.append([("class:dim", f" Waiting for {plural(needed, 'more player')}.")])
    return lines


def bot_words(lobby: Mapping[str, Any], players: int) -> list[str | None]:
    """Per player, the level of the bot at its seats in words, as the host's lobby says it (an
    informative field: anything but a level's name, or a list of another length, says nothing)."""
    said = lobby.get("bots")
    if not isinstance(said, list) or len(said) != players:
        return [None] * players
    game = str(lobby.get("game"))
    return [level_words(game, bot_of({"bot": bot})) for bot in said]


def _players(lobby: Mapping[str, Any], *, hosted: bool = True) -> list[Line]:
    """A line a player: name (host, you), whole fingerprint, seats claimed, readiness (``hosted``:
    the first is the host; else, a host's own board, its joiners alone)."""
    names, keys = list(lobby.get("names", [])), list(lobby.get("keys", []))
    you = lobby.get("you")
    labels = []
    for index, name in enumerate(names):
        tags = [t for t in ("host" if index == 0 and hosted else "", "you" if index == you else "") if t]
        labels.append(wording.printable(str(name)) + (f" ({', '.join(tags)})" if tags else ""))
    column = max((width_of(label) for label in labels), default=0)
    bots = bot_words(lobby, len(labels))
    lines: list[Line] = []
    for index, key in enumerate(keys[: len(labels)]):
        claims = list(lobby.get("claims", []))
        claim = claims[index] if index < len(claims) else []
        ready = list(lobby.get("ready", []))
        line: Line = [
            ("class:strong", "   " + labels[index] + " " * (column - width_of(labels[index]))),
            ("", f"  {fingerprint(key)}"),
        ]
        if claim:
            line.append(("class:dim", "  seat " + " ".join(f"p{s}" for s in claim)))
        if bots[index] is not None:
            line.append(("class:dim", f"  a bot: {bots[index]}"))
        if index < len(ready) and not ready[index]:
            line.append(("class:effect", "  not ready"))
        lines.append(line)
    return lines


def _options(lobby: Mapping[str, Any], time_options: Sequence[TimeOption]) -> list[Line]:
    """The match's options in words: time limits first, then the rest, the setup, spectators."""
    lines: list[Line] = []
    options = dict(lobby.get("options", {}))
    for option in time_options:
        seconds = int(options.pop(option.name, option.seconds))
        length = words(seconds) if seconds > 0 else str(seconds)  # (a host's impossible one, as sent)
        lines.append([("", f"   {option.what}: {length}")])
    if "fast" in options:
        fast = options.pop("fast")
        lines.append(
            [
                (
                    "",
                    "   fast: a turn resolves as soon as everyone has chosen"
                    if fast
                    else "   not fast: each turn lasts its whole time, and a choice may change until then",
                )
            ]
        )
    for key, value in sorted(options.items()):
        lines.append([("", f"   {key}: {value}")])
    if lobby.get("setup"):
        lines.append([("", "   setup: " + ", ".join(f"{k}={v}" for k, v in sorted(lobby["setup"].items())))])
    if lobby.get("spectators"):
        lines.append([("", "   spectators: others may watch this match live (they see what the table sees)")])
    return lines
