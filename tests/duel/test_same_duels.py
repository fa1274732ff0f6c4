"""The duel engine's shortcuts (issue 48) change nothing: a bare submission's parse is the general
parser's, and seeded duels give every state, view, event, state hash, seat list and refusal they
gave before the shortcuts (a digest taken with the engines of commits 4c74db5 and 6329ded, before
them, alike)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import IllegalActionError
from p2pgenius.games.base import action_type, state_hash
from p2pgenius.games.duel import DUEL
from p2pgenius.games.duel.actions import _PARSERS, DuelAction, Gestures, Paralyze, Ref, Timeout
from p2pgenius.games.duel.engine import target_choices
from p2pgenius.games.duel.spells import GESTURES, HANDS, SPELLS
from p2pgenius.games.duel.state import DuelState
from tests.any_action import hostile_actions, trees

BEFORE = "5febc89a429cabd8"
"""The digest of :func:`duels` by the engine before issue 48's shortcuts."""


def parsed_or_refused(parse: Any, data: Any) -> Plain:
    """What ``parse`` makes of ``data``: the action's plain form with its class and its fields'
    exact types, or the words of its refusal."""
    try:
        action = parse(data)
    except IllegalActionError as exc:
        return f"refused: {exc}"
    fields = [type(getattr(action, name)).__name__ for name in getattr(action, "__slots__", ())]
    return {"class": type(action).__name__, "fields": fields, "plain": action.to_plain()}


def general(data: Any) -> Any:
    """The duel's parser without its shortcut for a bare submission."""
    kind = action_type(data, _PARSERS, "the duel")
    return Gestures.parsed(data) if kind == "gestures" else _PARSERS[kind](data)


NEAR_BARE = st.dictionaries(
    st.sampled_from(["type", "left", "right", "targets", "x"]),
    st.sampled_from([*GESTURES, "gestures", "paralyze", "", "CC", None, 1, True]) | trees(),
    max_size=4,
)
"""Maps of about a bare submission's keys and values: most near it, some of it exactly."""


@settings(max_examples=400, deadline=None, derandomize=True)
@given(data=NEAR_BARE | hostile_actions("duel") | trees())
def test_any_value_parses_as_the_general_parser_parses_it(data: Any) -> None:
    assert parsed_or_refused(DUEL.parse_action, data) == parsed_or_refused(general, data)
    if isinstance(data, dict):
        assert parsed_or_refused(Gestures.from_plain, data) == parsed_or_refused(Gestures.parsed, data)


@pytest.mark.parametrize("left", GESTURES)
@pytest.mark.parametrize("right", GESTURES)
def test_a_bare_submission_is_the_general_parsers(left: str, right: str) -> None:
    data = {"type": "gestures", "left": left, "right": right}
    assert DUEL.parse_action(data) == Gestures.parsed(data) == Gestures(left, right)
    assert parsed_or_refused(DUEL.parse_action, data) == parsed_or_refused(general, data)


def refusals(state: Any) -> Iterator[Plain]:
    """What the engine says to actions it must refuse in ``state`` (or, if it takes one, the
    state it gives): another seat's, a repeated submission, a hand choice out of turn, a spell
    that does not complete, a monster that is not there, a stab at oneself."""
    tries: list[tuple[int, Any]] = [
        (2, Gestures("-", "-")),
        (0, Paralyze(1, "left")),
        (1, Gestures("P", "P", spells=(("left", "fireball"),))),
        (0, Gestures("-", "-", targets=(("left", Ref("monster", monster=9)),))),
        (1, Gestures(">", "-", targets=(("left", Ref("wizard", seat=1)),))),
        (0, Gestures("-", "-", monsters=((Ref("monster", monster=1), Ref("wizard", seat=0)),))),
    ]
    for seat, action in tries:
        try:
            yield DUEL.full(DUEL.apply(state, seat, action))
        except IllegalActionError as exc:
            yield str(exc)


class Player:
    """A seeded player of its own (not a bot: a bot's change must not move the digest). Each hand
    plays a spell's sequence through, then another; one submission in three names a target, a
    spell or a monster order drawn from what the field holds, sometimes one the rules refuse
    (the refusal is recorded, and the bare gestures are submitted instead)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.todo = dict.fromkeys(HANDS, "")

    def gestures(self) -> Gestures:
        """The next gesture of each hand's spell (a new spell once one is done)."""
        made = []
        for hand in HANDS:
            if not self.todo[hand]:
                spell = self.rng.choice(SPELLS)
                self.todo[hand] = self.rng.choice(spell.sequences) + self.rng.choice(["", "-", ">"])
            made.append(self.todo[hand][0])
            self.todo[hand] = self.todo[hand][1:]
        return Gestures(made[0], made[1])

    def choose(self, state: DuelState, seat: int) -> tuple[Gestures | Paralyze, Plain]:
        """A bare choice that is legal, and the plain choice to try first."""
        if state.paralysis_choices:
            pick = self.rng.choice(list(DUEL.legal_actions(state, seat)))
            assert isinstance(pick, Paralyze)
            return pick, pick.to_plain()
        bare = self.gestures()
        plain = bare.to_plain()
        if self.rng.random() < 1 / 3:
            names = target_choices(state)
            part = self.rng.choice(["targets", "spells", "monsters"])
            hand = self.rng.choice(HANDS)
            if part == "targets":
                plain["targets"] = {hand: self.rng.choice(names)}
            elif part == "spells":
                plain["spells"] = {hand: self.rng.choice(SPELLS).name}
            else:
                plain["monsters"] = {self.rng.choice(names[2:-1] or ["m1"]): self.rng.choice(names)}
        return bare, plain


def duel(seed: int) -> Iterator[Plain]:
    """Everything of one seeded duel between two :class:`Player`: after each action, the state
    in full, both views, the events, the state hash, who acts and what is refused. Every fifth
    turn's second seat times out (its last submission repeated, made legal again)."""
    players = [Player(seed * 2 + seat) for seat in (0, 1)]
    state = DUEL.initial({}, {})
    while state.outcome is None and state.turn <= 60:
        for seat in DUEL.to_act(state):
            bare: DuelAction
            bare, plain = players[seat].choose(state, seat)
            if seat == 1 and state.turn % 5 == 0 and not state.paralysis_choices:
                bare, plain = Timeout(), {"type": "timeout"}
            refused = None
            try:
                state = DUEL.apply(state, seat, DUEL.parse_action(plain))
            except IllegalActionError as exc:
                refused = str(exc)
                state = DUEL.apply(state, seat, bare)
            yield {
                "action": plain,
                "refused": refused,
                "full": DUEL.full(state),
                "views": [DUEL.view(state, s) for s in (0, 1)],
                "events": list(DUEL.events(state)),
                "hash": state_hash(DUEL, state),
                "to_act": list(DUEL.to_act(state)),
                "waiting_on": list(DUEL.waiting_on(state)),
                "legal": [[a.to_plain() for a in DUEL.legal_actions(state, s)] for s in (0, 1)],
                "refusals": list(refusals(state)),
            }


def duels() -> tuple[str, int]:
    """The digest of 150 seeded duels, and how many actions they took."""
    sha, actions = hashlib.sha256(), 0
    for seed in range(150):
        for seen in duel(seed):
            sha.update(encode(seen))
            actions += 1
    return sha.hexdigest()[:16], actions


def test_seeded_duels_give_what_they_gave_before_the_shortcuts() -> None:
    digest, actions = duels()
    assert actions > 2000  # (long enough to meet every spell, monsters, blindness and timeouts)
    assert digest == BEFORE
