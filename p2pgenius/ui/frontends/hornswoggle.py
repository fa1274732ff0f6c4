"""Hornswoggle's front end: the four pirates with your cards face up and everyone else's as counts,
moves typed as "place skull" or "bid 3", the legal moves in words."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from p2pgenius.games.hornswoggle.actions import Flip, Insure
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState
from p2pgenius.games.hornswoggle.words import words as horn_words
from p2pgenius.ui.frontends.base import (
    BoardRequest,
    Choice,
    FrontEnd,
    InputError,
    Parsed,
    Question,
    rules_lines,
)
from p2pgenius.ui.lines import Glyphs, Line, namer, plural, seat_name, side_by_side, width_of, wrap_all

HELP: Final = (
    "place doubloon | place skull (d / s for short, or d / s alone), bid N, pass, insure, flip pN, "
    "discard doubloon | discard skull, first pN.\n"
    "Piles read bottom to top: D S flipped face up, d s your own cards face down, and a square "
    "(? in ASCII) anyone else's card face down.\n"
    "The challenger flips its own pile first."
)


# -- the board ------------------------------------------------------------------------------------

PHASES: Final = {
    "order": "choosing who starts",
    "opening": "opening cards",
    "turns": "adding cards or bidding",
    "bidding": "bidding",
    "flipping": "flipping",
    "discarding": "discards",
    "over": "the match is over",
}


def horn_board(request: BoardRequest) -> list[Line]:
    """The four pirates (hands, piles, discards, garnets), who is whose partner, the bid and how
    far the flipping got, and the last reckoning until the next round's bidding. Cards you hold
    show their faces (small letters while face down); everyone else's are counts, or faces once
    flipped (capitals). A spectator's view (a replay) shows every card it knows, and calls
    nobody "you"."""
    view, names, glyphs, width = request.view, request.names, request.glyphs, request.width
    spectator = bool(view.get("spectator"))
    me = _me(view)
    lines: list[Line] = [_header(view, names)]
    progress = _progress(view, names)
    if progress:
        lines.append(progress)
    out = out_words(view, names)
    if out:
        lines.append([("class:effect", f" {out}")])
    lines += _pirates(request)
    reckoning = (request.memory or {}).get("reckoning")
    legend: Line = [
        ("class:dim", " piles bottom to top: "),
        ("class:card.up", "D S"),
        ("class:dim", " flipped, "),
        ("class:card.mine", "d s"),
        (
            "class:dim",
            f" face down, {glyphs.hidden} not opened"
            if spectator
            else f" yours face down, {glyphs.hidden} face down",
        ),
    ]
    if len(wrap_all(lines, width)) + 1 + (4 if reckoning else 0) <= request.height:
        lines.append(legend)
    if reckoning:
        lines += _reckoning(reckoning, names, me, view)
    if view.get("owing"):
        owing = ", ".join(_who(view, names, s) for s in view["owing"])
        lines.append([("class:dim", f" discards owed by: {owing}")])
    lines = wrap_all(lines, width)
    return lines + rules_lines(RULES_NOW, str(view.get("phase")), width, len(lines), request.height)


RULES_NOW: Final[Mapping[str, tuple[str, ...]]] = {
    "": (
        "Two teams, p0 and p2 against p1 and p3. A pirate with no cards is out; a team whose two "
        "pirates are both out loses.",
    ),
    "order": ("The Death Match Opponent picks the pirate who starts round 1.",),
    "opening": ("Every pirate with cards lays one card face down on its own pile, all at once.",),
    "turns": (
        "In turn, clockwise, each pirate adds a card to its own pile or starts the challenge with a "
        "bid: how many doubloons it will turn over without meeting a skull (1 to the cards on the "
        "table). A pirate with no cards in hand must bid.",
    ),
    "bidding": (
        "Clockwise, each pirate raises the bid or passes (and is out of this round's bidding). When "
        "all but one have passed, or the bid is every card on the table, the high bidder is the "
        "challenger.",
    ),
    "flipping": (
        "The challenger turns over its own pile first, top card down, then the top card of any "
        "other pile, one at a time. The first skull ends it.",
        "Before its first flip it may spend a Hacked Garnet on Bluff Insurance: a skull then costs "
        "it no card.",
    ),
    "discarding": (
        "Every pile goes back to its owner's hand. The challenge made: each opponent with cards "
        "discards one, face down. A skull: the challenger discards one (unless insured).",
    ),
}
"""The rules in brief by phase ("": whatever the phase), for a board with rows to spare (rules_lines)."""


WIDE_BOARD: Final = 96
"""From this many columns on, the pirates sit a team a column (p0 and p2 on the left, p1 and p3
on the right); below, one line a pirate. Decided by the width alone, which a screen's size fixes
(the rows the board gets change with the question under it): the layout never changes between
rounds on one screen."""


def _me(view: Mapping[str, Any]) -> int:
    """The person's seat on this board (-1 on a spectator's, where nobody is "you")."""
    return -1 if view.get("spectator") else int(view.get("seat", 0))


def _pirates(request: BoardRequest) -> list[Line]:
    """The four pirates: a team a column on a wide board, else one line each."""
    view, width = request.view, request.width
    wide = width >= WIDE_BOARD
    half = (width - 3) // 2
    blocks = [_pirate(request, seat, wide=wide, room=half) for seat in range(4)]
    if not wide:
        return [block[0] for block in blocks]
    widths = [half, width - 3 - half]
    teams: list[Line] = [[("class:title", f" team {team}{_team_words(view, team)}")] for team in "AB"]
    rows = [side_by_side([blocks[row], blocks[row + 1]], widths, gap=3) for row in (0, 2)]
    return side_by_side([teams[:1], teams[1:]], widths, gap=3) + rows[0] + rows[1]


def _team_words(view: Mapping[str, Any], team: str) -> str:
    """After "team A" at the head of its column: whose team it is, to the person."""
    if view.get("spectator"):
        return ""
    mine = "AB"[int(view.get("seat", 0)) % 2]
    return ": you and your partner" if team == mine else ": your opponents"


def seat_words(view: Mapping[str, Any], names: Mapping[int, str]) -> Callable[[int], str]:
    """How this screen says a seat in a sentence: its name and seat ("Fay (p0)"), except a seat
    a bot of this machine plays beside the person, which shares the person's name: "your
    partner (p2, bot)". A spectator's screen (a replay) names every seat alike."""
    named = namer(names)
    me = int(view.get("seat", -1))
    bots = set() if view.get("spectator") else {int(s) for s in view.get("partners") or {}} - {me}

    def who(seat: int) -> str:
        if seat not in bots:
            return named(seat)
        return f"your partner (p{seat}, bot)" if seat % 2 == me % 2 else f"your bot (p{seat})"

    return who


def _who(view: Mapping[str, Any], names: Mapping[int, str], seat: int) -> str:
    """A seat on the board: "you", a bot partner as such, anyone else by name."""
    if not view.get("spectator") and seat == int(view.get("seat", -1)):
        return "you"
    return seat_words(view, names)(seat)


def out_words(view: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """What a pirate that is out is told while its partner plays on ("" for one still in, and
    for a spectator)."""
    if view.get("spectator") or view.get("phase") == "over":
        return ""
    me = int(view.get("seat", 0))
    partner = (me + 2) % 4
    if not view["out"][me] or view["out"][partner]:
        return ""
    return f"you're out of cards: {_who(view, names, partner)} plays on for your team"


def _header(view: Mapping[str, Any], names: Mapping[int, str]) -> Line:
    line: Line = [
        ("class:title", f" Round {view['round']}"),
        ("class:dim", f"   {PHASES.get(view['phase'], view['phase'])}"),
    ]
    if view.get("bid"):
        bidder = view.get("bidder")
        by = f" by {_who(view, names, int(bidder))}" if bidder is not None else ""
        line.append(("", f"   bid: {view['bid']}{by}"))
    table = sum(len(pile) for pile in view["piles"])
    if table:
        line.append(("class:dim", f"   {plural(table, 'card')} on the table"))
    return line


def _progress(view: Mapping[str, Any], names: Mapping[int, str]) -> Line:
    """How far the flipping got: doubloons found, still to find, and where."""
    challenger = view.get("challenger")
    if view.get("phase") != "flipping" or challenger is None:
        return []
    found, bid = int(view.get("doubloons_flipped", 0)), int(view.get("bid", 0))
    own = list(view["flipped"][challenger])
    down = own.count(False)
    where = f"own pile first ({down} face down)" if down else "any pile now, top card first"
    insured = "; insured" if view.get("insured") else ""
    who = _who(view, names, int(challenger))
    verb = "flip" if who == "you" else "flips"
    return [
        ("class:effect", f" {who} {verb} for {bid}: "),
        ("", f"{found} found, {bid - found} to go; {where}{insured}"),
    ]


def _pirate(request: BoardRequest, seat: int, *, wide: bool, room: int = 0) -> list[Line]:
    """One pirate: a block of lines (``wide``) or a single line: who (you, your partner, an
    opponent), its hand, its pile (flipped and face-down cards told apart), its discards, and
    where it stands in the round."""
    view, glyphs = request.view, request.glyphs
    status = _standing(view, seat)
    head = _pirate_head(request, seat)
    holding, cards, own = _holding(view, seat, glyphs)
    flipped = view["flipped"][seat]
    down = list(flipped).count(False)
    counts = f" ({down} face down)" if down and any(flipped) else ""
    extra = _aside(view, seat, glyphs, own)
    pile_line: Line = [("", "pile"), *(cards or [("class:dim", " empty")]), ("class:dim", counts)]
    if wide:  # four lines: who (and where it stands, if that fits), what it holds, its pile
        said: Line = [("class:effect", "  " + ", ".join(status))] if status else []
        beside = width_of(head + said) <= room
        out = [head + (said if beside else [])]
        out += [[("", "   "), ("class:dim", "; ".join([holding, *extra]))], [("", "   "), *pile_line]]
        return [*out, [] if beside else [("", " "), *said]]
    line: Line = head + [("class:dim", f"  {holding}  ")] + pile_line
    if extra:
        line.append(("class:dim", "  " + ", ".join(extra)))
    if status:
        line.append(("class:effect", "  " + ", ".join(status)))
    return [line]


def _pirate_head(request: BoardRequest, seat: int) -> Line:
    """A pirate's first words: whether it is its turn, its name, and who it is to the person."""
    view, glyphs = request.view, request.glyphs
    me = _me(view)
    spectator = bool(view.get("spectator"))
    if spectator:
        role = f"team {'A' if seat % 2 == 0 else 'B'}"
    elif seat == me:
        role = "you"
    elif seat % 2 == me % 2:
        role = "your partner"
    else:
        role = "opponent"
    turn = (
        glyphs.running if view.get("current") == seat and view.get("phase") in ("turns", "bidding") else " "
    )
    if view.get("phase") == "flipping" and view.get("challenger") == seat:
        turn = glyphs.running
    style = "class:seat.me" if seat == me else ("class:partner" if seat % 2 == me % 2 else "class:seat")
    if spectator:
        style = "class:seat"
    return [(style, f" {turn} {bot_name(request, seat)}"), ("class:dim", f"  {role}")]


def bot_name(request: BoardRequest, seat: int) -> str:
    """A pirate's name on the board: a bot this machine plays beside the person has a name of its
    own ("Fay's bot (p2)"), not the person's ("Fay (p2)" read as the person)."""
    me = _me(request.view)
    if me < 0 or seat == me or seat not in request.mine:
        return seat_name(request.names, seat)
    return f"{request.names.get(me, 'your')}'s bot (p{seat})"


def _standing(view: Mapping[str, Any], seat: int) -> list[str]:
    """Where a pirate stands in the round, in words: out, passed, the challenger, owing."""
    return [
        word
        for word, on in (
            ("out", view["out"][seat]),
            ("passed", view["passed"][seat]),
            ("challenger", view.get("challenger") == seat),
            ("owes a discard", seat in (view.get("owing") or [])),
        )
        if on
    ]


def _holding(
    view: Mapping[str, Any], seat: int, glyphs: Glyphs
) -> tuple[str, Line, Mapping[str, Any] | None]:
    """A pirate's hand in words and its pile's cards, faces shown for a seat this machine holds
    (a bot partner's too); and that seat's own view (None: not one of this machine's)."""
    pile, flipped = view["piles"][seat], view["flipped"][seat]
    viewer = int(view.get("seat", 0))
    own = view if seat == viewer else dict(view.get("partners", {})).get(seat)
    cards: Line = []
    if own is None:
        for face, up in zip(pile, flipped, strict=False):
            cards.append(
                ("class:card.up" if up else "", " " + (_card(face, glyphs, up=True) if up else glyphs.hidden))
            )
        return f"hand {plural(view['hand_counts'][seat], 'card')}", cards, own
    hand = own.get("hand")
    if hand is None:  # (a spectator's view of a hand nobody opened)
        holding = f"hand {plural(view['hand_counts'][seat], 'card')}"
    elif sum(hand):
        holding = f"hand {plural(hand[0], 'doubloon')}, {plural(hand[1], 'skull')}"
    else:
        holding = "hand empty"
    for face, up in zip(list(own.get("my_pile", [])), flipped, strict=False):
        cards.append(("class:card.up" if up else "class:card.mine", " " + _card(face, glyphs, up=up)))
    return holding, cards, own


def _aside(view: Mapping[str, Any], seat: int, glyphs: Glyphs, own: Mapping[str, Any] | None) -> list[str]:
    """What else a pirate has: its discards (which, to a spectator, as far as opened), garnets."""
    extra = [f"{view['discard_counts'][seat]} discarded"] if view["discard_counts"][seat] else []
    if extra and view.get("spectator") and own is not None:  # which cards, as far as they were opened
        extra = [f"discarded {' '.join(_card(card, glyphs, up=True) for card in own.get('my_discards', []))}"]
    if any(view["garnets"]):
        extra.append(plural(view["garnets"][seat], "garnet"))
    return extra


def _reckoning(
    reckoning: Mapping[str, Any], names: Mapping[int, str], me: int, view: Mapping[str, Any] | None = None
) -> list[Line]:
    """The last challenge, how it ended and the discards it cost (``view``: whose screen it is)."""
    view = view if view is not None else {"seat": me, "spectator": me < 0}
    challenger = reckoning.get("challenger")
    who = _who(view, names, int(challenger)) if challenger is not None else "?"
    told = seat_words(view, names)
    flips = ", ".join(
        f"p{pile} {_card(card, Glyphs.pick(True), up=True)}" for pile, card in reckoning.get("flips", [])
    )
    out: list[Line] = [
        [
            ("class:title", f" Round {reckoning.get('round')}'s reckoning: "),
            ("", f"{who} bid {reckoning.get('bid')}; flipped {flips or 'nothing'}"),
        ],
        [("class:effect", f"   {horn_words(reckoning.get('result') or {}, told)}")],
    ]
    out += [[("class:dim", f"   {horn_words(event, told)}")] for event in reckoning.get("after", [])]
    return out


def _card(face: Any, glyphs: Glyphs, *, up: bool) -> str:
    if face == "doubloon":
        return "D" if up else "d"
    if face == "skull":
        return "S" if up else "s"
    return glyphs.hidden


def horn_question(view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> Question:
    """What the pirate at ``seat`` decides now: only the cards it holds are offered."""
    phase = view.get("phase")
    hand = view.get("hand") or [0, 0]
    table = sum(len(pile) for pile in view["piles"])
    if phase == "order":
        seats = [f"p{s}" for s in range(4) if not view["out"][s]]
        listed = ", ".join(seats[:-1]) + f" or {seats[-1]}" if len(seats) > 1 else seats[0]
        return Question("who starts", f"choose the pirate who starts round 1: first {listed}")
    if phase == "opening":
        return Question("opening card", f"place your opening card face down: {_cards('place', hand)}")
    if phase == "turns":
        if sum(hand) == 0:
            return Question("bid", f"no cards left in hand: start the challenge, bid 1 to {table}")
        return Question(
            "add or bid",
            f"add a card to your pile ({_cards('place', hand)}) or start the challenge: bid 1 to {table}",
        )
    if phase == "bidding":
        bid = int(view.get("bid", 0))
        if bid >= table:
            return Question("pass", f"the bid is {bid}, every card on the table: pass")
        if bid + 1 == table:
            every = f"raise it to every card on the table (bid {table})"
            return Question("raise or pass", f"the bid is {bid}: {every} or pass")
        return Question("raise or pass", f"the bid is {bid}: raise it (bid {bid + 1} to {table}) or pass")
    if phase == "flipping":
        return _flip_question(view, seat)
    if phase == "discarding":
        return Question("discard", f"discard a card face down: {_cards('discard', hand)}")
    return FrontEnd.question(FRONT, view, seat, names)


def _cards(verb: str, hand: Sequence[int]) -> str:
    """The cards ``hand`` (doubloons, skulls) lets a pirate ``verb`` (place, discard), and what it
    holds: "place doubloon or place skull (you hold 3 doubloons and 1 skull)"."""
    doubloons, skulls = int(hand[0]), int(hand[1])
    offered = [f"{verb} {card}" for card, count in (("doubloon", doubloons), ("skull", skulls)) if count]
    held = [
        plural(count, card) if count else f"no {card}s"
        for card, count in (("doubloon", doubloons), ("skull", skulls))
    ]
    return f"{' or '.join(offered)} (you hold {' and '.join(held)})"


def _flip_question(view: Mapping[str, Any], seat: int) -> Question:
    """The challenger's next flip: its own pile while a card of it is face down, then any other."""
    down = list(view["flipped"][seat]).count(False)
    found, bid = int(view.get("doubloons_flipped", 0)), int(view.get("bid", 0))
    insure = ""
    if view["garnets"][seat] and not view.get("insured") and not any(any(f) for f in view["flipped"]):
        insure = "; or first insure (a Hacked Garnet saves your card if you meet a skull)"
    if down:
        return Question(
            "flip", f"flip your own pile first: flip p{seat} ({plural(down, 'card')} face down){insure}"
        )
    others = [s for s in range(4) if s != seat and list(view["flipped"][s]).count(False)]
    piles = ", ".join(f"p{s}" for s in others)
    more = plural(bid - found, "more doubloon", "more doubloons")
    return Question("flip", f"flip the top card of another pile ({piles}): {more} to find")


# -- moves ----------------------------------------------------------------------------------------

CARD_WORDS = {"d": "doubloon", "doubloon": "doubloon", "s": "skull", "skull": "skull"}


def parse_horn(words: list[str], state: Any = None, seat: int = 0) -> Parsed:
    """The move typed as ``words`` (a flip is checked here against the flipping order, since
    the engine cannot check a flip before its card is opened; a move of a kind the moment does
    not allow is refused with the moves it does, in words)."""
    parsed = _read_horn(words, state, seat)
    if parsed.action is not None:
        _check_now(parsed.action, state, seat)
    return parsed


def _read_horn(words: list[str], state: Any, seat: int) -> Parsed:
    """The move ``words`` say, before it is checked against the moment."""
    head = words[0].lower()
    if head in ("place", "discard") and len(words) == 2:
        if words[1].lower() not in CARD_WORDS:
            raise InputError(f"{words[1]!r} is not a card: {_offered(state, seat, head)}")
        return Parsed({"type": head, "card": _held(state, seat, head, CARD_WORDS[words[1].lower()])})
    if head in CARD_WORDS and len(words) == 1:  # "d" alone: the card the question asks for
        kind = "discard" if getattr(state, "phase", None) == "discarding" else "place"
        return Parsed({"type": kind, "card": _held(state, seat, kind, CARD_WORDS[head])})
    if head == "bid" and len(words) == 2 and words[1].isascii() and words[1].isdigit():
        return Parsed({"type": "bid", "count": int(words[1])})
    if head == "pass" and len(words) == 1:
        return Parsed({"type": "pass"})
    if head == "insure" and len(words) == 1:
        _check_insure(state, seat)
        return Parsed({"type": "insure"}, "insuring cannot be taken back")
    if head in ("flip", "first") and len(words) == 2:
        who = words[1].lower().lstrip("p")
        if who.isascii() and who.isdigit():
            return _read_pirate(head, int(who), state, seat)
    raise _unread(head, state, seat)


UNREAD: Final = {
    "bid": "bid and how many doubloons, like bid 3",
    "flip": "flip and whose pile, like flip p2",
    "first": "first and the pirate who starts, like first p0",
}
"""What a move begun but not finished takes (a card's moves say the cards held)."""


def _unread(head: str, state: Any, seat: int) -> InputError:
    """What to say of words that are no move: a move begun ("discard", "bid x") is told what it
    takes; anything else, every kind of move."""
    if head in ("place", "discard"):
        return InputError(f"{head} which card: {_offered(state, seat, head)}")
    if head in UNREAD:
        return InputError(UNREAD[head])
    return InputError("place doubloon|skull, bid N, pass, insure, flip pN, discard doubloon|skull, first pN")


def _read_pirate(head: str, pirate: int, state: Any, seat: int) -> Parsed:
    """``flip pN`` or ``first pN``: a pirate that exists, and a flip the flipping order allows."""
    if not 0 <= pirate < 4:
        raise InputError(f"there is no p{pirate}: the pirates are p0, p1, p2 and p3")
    if head == "flip":
        _check_flip(state, seat, pirate)
        return Parsed({"type": "flip", "pile": pirate})
    return Parsed({"type": "order", "first": pirate})


def _offered(state: Any, seat: int, verb: str) -> str:
    """What ``verb`` (place, discard) may take for the pirate at ``seat``, as far as ``state``
    knows its hand: "discard doubloon or discard skull (you hold ...)"."""
    pirates = getattr(state, "pirates", ())
    hand = pirates[seat].hand if 0 <= seat < len(pirates) else None
    return _cards(verb, hand) if hand is not None and sum(hand) else f"{verb} doubloon or {verb} skull"


def _check_now(action: Mapping[str, Any], state: Any, seat: int) -> None:
    """Refuse a move of a kind the moment does not allow ("pass" while adding cards), saying the
    moves it does allow; a flip and an insurance say their own reasons (see their checks)."""
    if not isinstance(state, HornState) or action.get("type") in ("flip", "insure"):
        return
    if seat not in HORNSWOGGLE.to_act(state):
        return
    legal = HORNSWOGGLE.legal_actions(state, seat)
    if any(a.to_plain().get("type") == action.get("type") for a in legal):
        return
    offered = [choice.text for choice in horn_choices(state, seat)]
    shown = ", ".join(offered[:6]) + (", ..." if len(offered) > 6 else "")
    raise InputError(f"not now: you may {shown}")


def _check_insure(state: Any, seat: int) -> None:
    """Refuse Bluff Insurance the moment does not allow, saying why in the rules' words."""
    if not isinstance(state, HornState):
        return
    pirates = state.pirates
    if state.phase != "flipping" or state.challenger != seat:
        raise InputError("only the challenger may buy Bluff Insurance, before its first flip")
    if any(isinstance(a, Insure) for a in HORNSWOGGLE.legal_actions(state, seat)):
        return
    if state.insured:
        raise InputError("your challenge is insured already")
    if not pirates[seat].garnets:
        raise InputError("you cannot buy Bluff Insurance: it costs a Hacked Garnet, and you have none")
    raise InputError("you cannot buy Bluff Insurance now: only before the first flip")


def _held(state: Any, seat: int, verb: str, card: str) -> str:
    """``card``, if the pirate at ``seat`` holds one (as far as ``state`` knows); else refused,
    saying what it holds."""
    pirates = getattr(state, "pirates", ())
    hand = pirates[seat].hand if 0 <= seat < len(pirates) else None
    if hand is None or pirates[seat].holds(card) is not False:
        return card
    if not sum(hand):
        raise InputError("you hold no cards")
    raise InputError(f"you hold no {card}: {_cards(verb, hand)}")


def _check_flip(state: Any, seat: int, pile: int) -> None:
    """Refuse a flip the flipping order does not allow, saying which piles it does."""
    if state is None:
        return
    phase, challenger = getattr(state, "phase", None), getattr(state, "challenger", None)
    if phase == "discarding":  # (the challenge is settled: its challenger may be this pirate)
        raise InputError(_flipped(seat, challenger, getattr(state, "owing", ())))
    if phase != "flipping" or challenger != seat:
        raise InputError("nothing to flip now: only the challenger flips, once the bidding is over")
    allowed = [a.pile for a in HORNSWOGGLE.legal_actions(state, seat) if isinstance(a, Flip)]
    if pile in allowed:
        return
    if allowed == [seat]:
        raise InputError(f"flip your own pile first: flip p{seat}")
    piles = ", ".join(f"flip p{s}" for s in allowed)
    raise InputError(f"p{pile}'s pile has no face-down card left; you may: {piles}")


def _flipped(seat: int, challenger: Any, owing: Sequence[int]) -> str:
    """Why there is nothing to flip once the challenge is settled, true for whoever asks: its
    challenger met a skull (it owes the discard) or made its bid (the other team's pirates owe)."""
    discard = "; discard a card" if seat in owing else ""
    if challenger == seat:
        met = "your flip met a skull" if seat in owing else "your bid is made"
        return f"{met}: the flipping is over{discard}"
    return f"nothing to flip now: the flipping is over{discard}"


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
            count = int(plain["count"])
            out.append(Choice(f"bid {count}", f"bet {plural(count, 'doubloon')} can be flipped"))
        elif kind == "pass":
            out.append(Choice("pass", "stay out of the bidding"))
        elif kind == "insure":
            out.append(Choice("insure", "insure the challenge"))
        elif kind == "flip":
            out.append(Choice(f"flip p{plain['pile']}", f"flip the top card of p{plain['pile']}'s pile"))
        elif kind == "order":
            out.append(Choice(f"first p{plain['first']}", f"p{plain['first']} plays first"))
    return out


# -- the front end --------------------------------------------------------------------------------


class HornFrontEnd(FrontEnd):
    """Hornswoggle in the terminal UI."""

    help = HELP
    styles: Mapping[str, str] = {"card.up": "bold", "card.mine": "ansicyan", "partner": "ansigreen"}

    board = staticmethod(horn_board)
    question = staticmethod(horn_question)

    def idle(self, view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> str:
        """What the person is told while nothing is asked of its ``seat``: a pirate that is out,
        that its partner plays on ("" otherwise)."""
        del seat  # (the view is the seat's)
        return out_words(view, names)

    def log_lines(
        self,
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        names: Mapping[int, str] | None = None,
    ) -> list[str]:
        """The log's lines, a bot partner this machine plays named as such (it shares the
        person's name: "Fay (p2) bids 3" would read as the person's bid)."""
        who = seat_words(view or {}, names or {})
        return [horn_words(event, who) for event in events if isinstance(event, Mapping)]

    def remember(
        self,
        memory: dict[str, Any],
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        actions: Sequence[tuple[int, Any]] = (),
    ) -> None:
        """Each challenge's flips and how it ended: the reckoning stays on the board until the
        next round's adding and bidding begins (the piles themselves go back to the hands; the
        events say all of it, so the step's ``actions`` are not needed)."""
        del actions
        if view is None:
            return
        if view.get("phase") == "flipping" and memory.get("challenge", {}).get("round") != view.get("round"):
            memory["challenge"] = {
                "round": view.get("round"),
                "challenger": view.get("challenger"),
                "bid": view.get("bid"),
            }
            memory["flips"] = []
        for event in events:
            if not isinstance(event, Mapping):
                continue
            kind = event.get("type")
            if kind == "flip":
                memory.setdefault("flips", []).append((int(event["pile"]), str(event["card"])))
            elif kind == "settled" and "challenge" in memory:
                memory["reckoning"] = {
                    **memory["challenge"],
                    "flips": list(memory.get("flips", [])),
                    "result": dict(event),
                    "after": [],
                }
            elif kind == "discard" and "reckoning" in memory:
                memory["reckoning"]["after"].append(dict(event))
        reckoning = memory.get("reckoning")
        if reckoning and view.get("phase") == "turns" and view.get("round") != reckoning.get("round"):
            del memory["reckoning"]

    def describe(self, action: Mapping[str, Any]) -> str:
        """An action as typed ("place doubloon", "bid 3", "flip p2")."""
        kind = action.get("type")
        if kind in ("place", "discard"):
            return f"{kind} {action.get('card')}"
        if kind == "bid":
            return f"bid {action.get('count')}"
        if kind == "flip":
            return f"flip p{action.get('pile')}"
        if kind == "order":
            return f"first p{action.get('first')}"
        return str(kind)

    def parse(self, text: str, state: Any, seat: int) -> Parsed:
        return parse_horn(text.split(), state, seat)

    def choices(self, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
        return horn_choices(state, seat)


FRONT: Final = HornFrontEnd(HORNSWOGGLE.name)
"""Hornswoggle's front end (named in the games' table)."""
