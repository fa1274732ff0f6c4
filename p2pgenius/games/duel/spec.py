"""The wizard duel as peers play it: sealed simultaneous turns, blindness (see games/spec.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

from p2pgenius.canonical import Plain
from p2pgenius.games.base import Game
from p2pgenius.games.duel.actions import Gestures, Paralyze, Timeout
from p2pgenius.games.duel.engine import DUEL, DUEL_RULES_3, TURN_SECONDS, sanitize
from p2pgenius.games.duel.notation import moves
from p2pgenius.games.duel.state import DuelEnding, DuelState
from p2pgenius.games.duel.words import loss, words
from p2pgenius.games.spec import BlindnessRules, GameSpec, Period, TimeOption


class DuelBlindness(BlindnessRules):
    """A blinded wizard's peer is sent signed claims instead of the opponent's gestures."""

    def blind(self, state: DuelState, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat``'s wizard is (or, ``turns_ago``, was) blind."""
        return state.wizards[seat].blind_at(state.turn - turns_ago)

    def fix(self, state: DuelState, seat: int, action: Any) -> Any:
        """Gestures the way a repeated submission is made legal; where the wizard's own Paralysis
        asks which hand, the first hand; anything else repeats the last submission."""
        legal = list(DUEL.legal_actions(state, seat))
        if legal and all(isinstance(a, Paralyze) for a in legal):
            return legal[0]
        if isinstance(action, Gestures):
            return sanitize(state, seat, action)
        return Timeout()

    def claim_shaped(self, view: Mapping[str, Plain]) -> bool:
        """Whether a blind claim has the shape of a duel view (its truth is checked when the
        blindness ends; its shape now, so that nothing shows a malformed claim)."""
        wizards, monsters = view.get("wizards"), view.get("monsters")
        return (
            type(view.get("turn")) is int
            and isinstance(wizards, list)
            and len(wizards) == 2
            and all(
                isinstance(w, dict)
                and isinstance(w.get("left"), str)
                and isinstance(w.get("right"), str)
                and type(w.get("max_hp")) is int
                and (w.get("hp") is None or type(w.get("hp")) is int)
                for w in wizards
            )
            and isinstance(monsters, list)
            and all(
                isinstance(m, dict)
                and isinstance(m.get("id"), str)
                and isinstance(m.get("kind"), str)
                and (m.get("controller") is None or type(m.get("controller")) is int)  # None: unseen
                and (m.get("hp") is None or type(m.get("hp")) is int)
                for m in monsters
            )
        )


class DuelSpec(GameSpec):
    """Two wizards; every turn is a pair of sealed commitments; a blinded wizard's peer is sent
    signed claims instead of the opponent's gestures."""

    name = "duel"
    title = "The wizard duel"
    rules_version = 4  # 3: the edge rulings of issue 24; 4: both Paralysis choices in the state
    older_engines: ClassVar[Mapping[int, Game[Any, Any]]] = {3: DUEL_RULES_3}
    sealed = True
    time_options = (TimeOption("turn_seconds", TURN_SECONDS, "each turn"),)
    demo_options: ClassVar[Mapping[str, Any]] = {"fast": True}
    endings = DuelEnding
    blindness = DuelBlindness()

    def period(self, options: Mapping[str, Any], state: Any, stage: int, seat: int, round_key: int) -> Period:
        """Every turn has its own clock (the blinded peer needs no state to know it)."""
        return Period("turn", stage, 1000 * int(options.get("turn_seconds", TURN_SECONDS)))

    words = staticmethod(words)
    loss_words = staticmethod(loss)
    notation = staticmethod(moves)

    def dark_mark(self, seats: str) -> str:
        """A turn played while ``seats`` were blind, marked: "p1 blind"."""
        return f"{seats} blind"

    def unopened_mark(self) -> str:
        """A blind turn the transcript never opens, as ``export`` writes it."""
        return "not opened: the transcript stops before the choices withheld from the blind seat were opened"


DUEL_SPEC: Final = DuelSpec(DUEL)
