"""Ratings per game, from verified results only.

Each game has its own ratings, computed afresh from the record in the order the matches were played:
a match counts when its transcript proves a result (``RecordLine.proves``): every peer signed it (a draw
included), or a forfeit or a cheat stopped it, the side at fault losing (walking away from a lost
match, or breaking it on purpose, loses it). A match stopped by states that diverged, one whose
result not every peer signed, and one cut short with no evidence either way do not. Players are told
apart by their keys, never by their names. The model is openskill's Plackett-Luce (Weng and Lin's
Bayesian approximation): each player's skill is a mean and an uncertainty, and a match's teams are
rated as teams, so Hornswoggle's two pirates a side share their team's result (a peer holding both
seats of a team is that team alone). It was chosen over Glicko-2, whose Python packages rate only
one player against another, and TrueSkill, which is patented and whose package is no longer kept;
openskill is MIT-licensed, kept, and needs nothing else.

A rating is shown on a familiar scale: ``1500 + 24 x (mean - 25)``, so every player starts at 1500
and one standard deviation of performance (the model's beta, 25/6) is 100 points. What a machine
shows is what its own record proves: an opponent's rating counts only the matches this account
played against them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from openskill.models import PlackettLuce

from p2pgenius.record.matches import RecordLine, once

START: Final = 1500
SCALE: Final = 24.0


@dataclass(frozen=True)
class Rating:
    """A player's rating in one game: on the shown scale, with its uncertainty and how many
    counted matches it rests on."""

    key: bytes
    name: str
    mu: float
    sigma: float
    matches: int

    @property
    def shown(self) -> int:
        """The rating on the familiar scale (1500 to start)."""
        return round(START + SCALE * (self.mu - 25.0))

    @property
    def margin(self) -> int:
        """Twice the uncertainty on the shown scale (about 95% of the skill lies within)."""
        return round(2 * SCALE * self.sigma)


def rate(matches: Iterable[RecordLine]) -> dict[str, dict[bytes, Rating]]:
    """Every player's rating in every game, from ``matches`` (those that count, oldest first)."""
    model = PlackettLuce()
    state: dict[str, dict[bytes, Any]] = {}
    counted: dict[str, dict[bytes, int]] = {}
    names: dict[bytes, str] = {}
    # Each match once, as its copy that proves most (whatever else holds a copy of it), then in
    # the order they were played.
    for match in sorted((m for m in once(matches) if m.counts), key=lambda m: (m.date, m.path)):
        sides = teams(match)
        if sides is None:
            continue
        ratings = state.setdefault(match.game, {})
        for side in sides:
            for player in side:
                names[player.key] = player.name
                if player.key not in ratings:
                    ratings[player.key] = model.rating()
        ranks = [1.0, 1.0] if match.sides() is None else [1.0, 2.0]  # (the winners' side first)
        rated = model.rate([[ratings[p.key] for p in side] for side in sides], ranks=ranks)
        for side, new in zip(sides, rated, strict=True):
            for player, rating in zip(side, new, strict=True):
                ratings[player.key] = rating
                tally = counted.setdefault(match.game, {})
                tally[player.key] = tally.get(player.key, 0) + 1
    return {
        game: {
            key: Rating(key, names[key], float(r.mu), float(r.sigma), counted[game][key])
            for key, r in ratings.items()
        }
        for game, ratings in state.items()
    }


def teams(match: RecordLine) -> list[list[Any]] | None:
    """The match's sides, each a list of its peers: the winners' and the others' (a draw: the
    two sides as seated). None when a peer sits on both sides."""
    sides = match.sides()
    if sides is not None:
        first, second = sides
        if not first or not second or any(set(p.seats) - set(match.winners) for p in first):
            return None  # (a peer that won with one seat and lost with another)
        return [first, second]
    seated = [player for player in match.players if player.seats]
    first = [p for p in seated if all(seat % 2 == 0 for seat in p.seats)]
    second = [p for p in seated if all(seat % 2 == 1 for seat in p.seats)]
    if not first or not second or len(first) + len(second) != len(seated):
        return None
    return [first, second]


def known(matches: Iterable[RecordLine], game: str, keys: Iterable[bytes]) -> dict[bytes, Rating]:
    """The ratings in ``game`` of the players with ``keys`` that this record knows (a player it
    has not seen in a counted match of ``game`` is left out)."""
    table = rate(m for m in matches if m.game == game).get(game, {})
    return {key: table[key] for key in keys if key in table}


def said(ratings: dict[bytes, Rating], keys: list[bytes], names: list[str], you: int | None) -> str:
    """The ratings of a table's players in a line: "you 1530 over 12 matches, Hana 1475 over 12,
    carol not yet rated" ("" when none is known)."""
    if not ratings:
        return ""
    parts = []
    for index, key in enumerate(keys):
        who = "you" if index == you else (names[index] if index < len(names) else "?")
        rating = ratings.get(key)
        if rating is None:
            parts.append(f"{who} not yet rated")
        else:
            count = f"{rating.matches} {'match' if rating.matches == 1 else 'matches'}"
            parts.append(f"{who} {rating.shown} over {count}")
    return ", ".join(parts)
