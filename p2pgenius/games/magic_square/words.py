"""The Magic Square's events and results in words, for people: each event is data, and this is
the one place that words it. ``who`` renders a seat ("p0" by default; a screen says "Ann (p0)")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgenius.games.base import Outcome
from p2pgenius.games.magic_square.state import COLOUR_NAMES, cell_name

Who = Callable[[int], str]


def seat_label(seat: int) -> str:
    """A seat as the rules write it."""
    return f"p{seat}"


def ending(outcome: Outcome) -> str:
    """How the match ended, for the record: "round wins 2-1", the winner's count first (p1 winning
    two rounds to one is "2-1", never "1-2"; a tie in the seats' order) (GameSpec.ending_words)."""
    rounds = outcome.details.get("round_wins")
    said = outcome.reason.words
    if isinstance(rounds, list) and rounds and all(type(n) is int for n in rounds):
        counts = list(rounds)
        winner = outcome.winner
        if winner is not None and 0 <= winner < len(counts):
            counts.insert(0, counts.pop(winner))
        said += " " + "-".join(str(n) for n in counts)
    return said


def tally(outcome: Outcome, seat: int) -> str | None:
    """The rounds won, from ``seat``'s side: "1-2 in rounds" (GameSpec.tally_words)."""
    rounds = outcome.details.get("round_wins")
    if isinstance(rounds, list) and len(rounds) == 2 and seat in (0, 1):
        return f"{rounds[seat]}-{rounds[1 - seat]} in rounds"
    return None


def words(event: Mapping[str, Any], who: Who = seat_label) -> str:
    """One event in a sentence (an event of a kind this version does not know: its kind)."""
    kind, seat = event.get("type"), event.get("seat")
    me = who(int(seat)) if isinstance(seat, int) else ""
    say = SAYINGS.get(kind) if isinstance(kind, str) else None
    return str(kind) if say is None else say(event, me, who)


def _challenge(event: Mapping[str, Any], me: str, who: Who) -> str:
    opponent = who(1 - int(event.get("seat") or 0))
    return f"{me} challenges {opponent}'s {event['number']} on {cell_name(event['cell'])}"


def _colour(event: Mapping[str, Any], me: str, who: Who) -> str:
    return f"{me} colours {cell_name(event['cell'])} {COLOUR_NAMES[int(event.get('seat') or 0)]}"


def _swap(event: Mapping[str, Any], me: str, who: Who) -> str:
    return f"{me} swaps the colours of {cell_name(event['red'])} and {cell_name(event['blue'])}"


def _place(event: Mapping[str, Any], me: str, who: Who) -> str:
    return f"{me} places {event['number']} on {cell_name(event['cell'])}"


def _replay(event: Mapping[str, Any], me: str, who: Who) -> str:
    lead = who(int(event["lead"]))
    return f"round {event['round']} is replayed with the same colouring; {lead} leads first"


def _match_end(event: Mapping[str, Any], me: str, who: Who) -> str:
    wins, winner = event["round_wins"], int(event["winner"])
    return f"{who(winner)} wins the match {wins[winner]}-{wins[1 - winner]}"


def _next_round(event: Mapping[str, Any], me: str, who: Who) -> str:
    reason = str(event["reason"]).replace("_", " ")
    return (
        f"{who(int(event['winner']))} wins round {event['round']} ({reason}); "
        f"{who(int(event['lead']))} may swap up to two pairs of cells and leads first"
    )


def _order(event: Mapping[str, Any], me: str, who: Who) -> str:
    """Who colours first (the Death Match Opponent's choice), or places first (the Lead
    Player's): "chooses to" when the chooser picks itself, which "lets Dora (p1) colour first"
    said of Dora herself misread."""
    seat, first = int(event["seat"]), int(event["first"])
    role, verb = (
        ("Death Match Opponent", "colour") if event["type"] == "colour_order" else ("Lead Player", "place")
    )
    if first == seat:
        return f"{who(seat)} ({role}) chooses to {verb} first"
    lets = "lets" if verb == "colour" else "has"
    return f"{who(seat)} ({role}) {lets} {who(first)} {verb} first"


def _round_end(event: Mapping[str, Any], me: str, who: Who) -> str:
    how = event.get("how")
    if how == "concedes":
        return f"{me} concedes the challenge"
    if how == "placed_16":
        return f"the full square is not magic: {me} placed 16 and loses"
    if how == "scores":
        return _scores(event, who)
    if how == "completes":
        return f"{me} shows a magic completion: the challenge fails"
    if how in ("not_magic", "inconsistent"):
        why = "is not magic" if how == "not_magic" else "does not keep the numbers already placed"
        return f"{me}'s completion {why}: the challenge is upheld"
    if how == "colouring_timeout":
        cells = ", ".join(cell_name(c) for c in event.get("cells") or [])
        return (
            f"{me} ran out of time while colouring; the blank cells are coloured in board order, "
            f"alternately from {who(int(event['first']))}: {cells}"
        )
    return f"{me} ran out of time"


def _scores(event: Mapping[str, Any], who: Who) -> str:
    """All 16 placed and magic: the higher score wins the round (68-68 voids it)."""
    scores = list(event.get("scores") or (0, 0))
    winner = event.get("winner")
    if winner is None:
        tie = f"{scores[0]}-{scores[1]}"
        return f"all 16 placed and the square is magic, but the scores tie {tie}: the round is void"
    won, lost = scores[int(winner)], scores[1 - int(winner)]
    return (
        f"all 16 placed and the square is magic: {who(int(winner))} wins round {event.get('round')} "
        f"on score, {won} to {who(1 - int(winner))}'s {lost}"
    )


Saying = Callable[[Mapping[str, Any], str, Who], str]
"""An event's sentence, from the event, its seat as ``who`` renders it, and ``who``."""

SAYINGS: Final[Mapping[str, Saying]] = {
    "challenge": _challenge,
    "colour_order": _order,
    "lead": _order,
    "colour": _colour,
    "swaps_done": lambda event, me, who: f"{me} makes no more swaps",
    "swap": _swap,
    "place": _place,
    "round_end": _round_end,
    "replay": _replay,
    "match_end": _match_end,
    "next_round": _next_round,
}
"""Each kind of event the engine says (engine.py), and its sentence."""
