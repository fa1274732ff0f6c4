"""Hornswoggle's front end: the four pirates with your cards face up and everyone else's as counts,
moves typed as "place skull" or "bid 3", the legal moves in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.ui.frontends.base import Choice, FrontEnd, InputError, Parsed, register_frontend
from p2pgenius.ui.lines import Glyphs, Line, seat_name

HELP: Final = (
    "place doubloon | place skull (d / s for short), bid N, pass, insure, flip pN,\n"
    "discard doubloon | discard skull, first pN.  Your cards show; others' only as counts."
)


class HornFrontEnd(FrontEnd):
    """Hornswoggle in the terminal UI."""

    help = HELP

    def board(
        self,
        view: Mapping[str, Any],
        names: Mapping[int, str],
        glyphs: Glyphs,
        *,
        hints: bool,
        mine: Sequence[int],
    ) -> list[Line]:
        return horn_board(view, names, glyphs, mine)

    def parse(self, text: str, state: Any, seat: int) -> Parsed:
        return parse_horn(text.split())

    def choices(self, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
        return horn_choices(state, seat)


# -- the board ------------------------------------------------------------------------------------


def horn_board(
    view: Mapping[str, Any], names: Mapping[int, str], glyphs: Glyphs, mine: Sequence[int]
) -> list[Line]:
    """The four pirates (hands, piles, discards, garnets), the bid, and whose move it is. Cards
    you hold show their faces; everyone else's show only as counts, or as their faces once flipped."""
    me = int(view.get("seat", 0))
    lines: list[Line] = [
        [
            ("class:title", f" Round {view['round']}"),
            ("class:dim", f"  phase: {view['phase']}"),
            (
                "",
                f"  bid: {view['bid'] or 'none'}"
                + (f" by p{view['bidder']}" if view.get("bidder") is not None else ""),
            ),
        ]
    ]
    for seat in range(4):
        team = "A" if seat % 2 == 0 else "B"
        style = "class:seat.me" if seat in mine else "class:seat"
        turn = glyphs.running if view.get("current") == seat and view.get("phase") not in ("over",) else " "
        status = []
        if view["out"][seat]:
            status.append("out")
        if view["passed"][seat]:
            status.append("passed")
        if view.get("challenger") == seat:
            status.append("challenger")
        pile = view["piles"][seat]
        flipped = view["flipped"][seat]
        own = view if seat == me else dict(view.get("partners", {})).get(seat)
        if own is not None:  # a seat this machine holds (a bot partner's, too): its faces
            faces = list(own.get("my_pile", []))
            hand = own.get("hand") or [0, 0]
            holding = f"hand: {_count(hand[0], 'doubloon')}, {_count(hand[1], 'skull')}"
        else:
            faces = [card if up else glyphs.hidden for card, up in zip(pile, flipped, strict=False)]
            holding = f"{view['hand_counts'][seat]} cards in hand"
        shown = " ".join(_card(face, glyphs) for face in faces) or "(empty)"
        partner = " (bot partner)" if seat in mine and seat != me else ""
        lines.append(
            [(style, f" {turn} {seat_name(names, seat)}{partner}"), ("class:dim", f"  team {team}")]
            + ([("class:effect", "  " + ", ".join(status))] if status else [])
        )
        lines.append(
            [
                ("class:dim", f"     {holding}"),
                ("", f"   pile: {shown}"),
                (
                    "class:dim",
                    f"   discards {view['discard_counts'][seat]}   garnets {view['garnets'][seat]}",
                ),
            ]
        )
    if view.get("owing"):
        lines.append([("class:dim", " discards owed by " + ", ".join(f"p{s}" for s in view["owing"]))])
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _card(face: Any, glyphs: Glyphs) -> str:
    if face == "doubloon":
        return "D"
    if face == "skull":
        return "S"
    return glyphs.hidden


# -- moves ----------------------------------------------------------------------------------------

CARD_WORDS = {"d": "doubloon", "doubloon": "doubloon", "s": "skull", "skull": "skull"}


def parse_horn(words: list[str]) -> Parsed:
    """The move typed as ``words``."""
    head = words[0].lower()
    if head in ("place", "discard") and len(words) == 2 and words[1].lower() in CARD_WORDS:
        return Parsed({"type": head, "card": CARD_WORDS[words[1].lower()]})
    if head == "bid" and len(words) == 2 and words[1].isascii() and words[1].isdigit():
        return Parsed({"type": "bid", "count": int(words[1])})
    if head == "pass" and len(words) == 1:
        return Parsed({"type": "pass"})
    if head == "insure" and len(words) == 1:
        return Parsed({"type": "insure"}, "insuring cannot be taken back")
    if head in ("flip", "first") and len(words) == 2:
        who = words[1].lower().lstrip("p")
        if who.isascii() and who.isdigit():
            key = "pile" if head == "flip" else "first"
            return Parsed({"type": "flip" if head == "flip" else "order", key: int(who)})
    raise InputError("place doubloon|skull, bid N, pass, insure, flip pN, discard doubloon|skull, first pN")


def horn_choices(state: Any, seat: int) -> list[Choice]:
    """The legal moves in words."""
    if state is None:
        return []
    out = []
    for action in HORNSWOGGLE.legal_actions(state, seat):
        plain = action.to_plain()
        kind = plain["type"]
        if kind in ("place", "discard"):
            out.append(Choice(f"{kind} {plain['card']}", f"{kind} a {plain['card']} face down"))
        elif kind == "bid":
            out.append(Choice(f"bid {plain['count']}", f"bet {plain['count']} doubloons can be flipped"))
        elif kind == "pass":
            out.append(Choice("pass", "stay out of the bidding"))
        elif kind == "insure":
            out.append(Choice("insure", "insure the challenge"))
        elif kind == "flip":
            out.append(Choice(f"flip p{plain['pile']}", f"flip the top card of p{plain['pile']}'s pile"))
        elif kind == "order":
            out.append(Choice(f"first p{plain['first']}", f"p{plain['first']} plays first"))
    return out


register_frontend(HORNSWOGGLE.name, HornFrontEnd(HORNSWOGGLE.name))
