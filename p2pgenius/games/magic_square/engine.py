"""The Magic Square behind the common game interface (rules: docs/rules/magic-square.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.base import Outcome, expect, replace
from p2pgenius.games.magic_square.actions import (
    Challenge,
    Colour,
    Complete,
    Concede,
    Order,
    Place,
    SquareAction,
    Swap,
    SwapsDone,
    Timeout,
    parse_action,
)
from p2pgenius.games.magic_square.squares import index, is_magic
from p2pgenius.games.magic_square.state import SquareEnding, SquareState, cell_name, full, public_canonical

ROUND_SECONDS: Final = 12 * 60
"""Each player's thinking time per round (round 1's colouring included)."""
CHALLENGE_SECONDS: Final = 5 * 60
WARNINGS_S: Final = (9 * 60, 6 * 60, 3 * 60, 2 * 60, 60)
"""Round-clock time left at which a player is warned."""
WINS_NEEDED: Final = 2
MAX_SWAPS: Final = 2
TIE: Final = 68


class MagicSquare:
    """The Magic Square (2 seats): colouring, eight placement rounds, challenges, best of three."""

    name = "magic-square"

    def initial(self, setup: Mapping[str, Any], options: Mapping[str, Any]) -> SquareState:
        """A new match. Setup: ``opponent`` (default 1); ``colours`` (16 seats: skip colouring)
        with ``first_lead`` (default 0)."""
        unknown = set(setup) - {"opponent", "colours", "first_lead"}
        if unknown:
            raise LocalMisuseError(f"magic-square setup: unknown field {sorted(unknown)[0]!r}")
        check_options(options)
        opponent = setup.get("opponent", 1)
        if opponent not in (0, 1) or type(opponent) is not int:
            raise LocalMisuseError("magic-square setup: opponent must be 0 or 1")
        colours = setup.get("colours")
        if colours is None:
            if "first_lead" in setup:
                raise LocalMisuseError("magic-square setup: first_lead needs colours")
            return SquareState(opponent=opponent, phase="colour_order", colours=(None,) * 16)
        if (
            not isinstance(colours, list)
            or len(colours) != 16
            or any(c not in (0, 1) or type(c) is not int for c in colours)
            or colours.count(0) != 8
        ):
            raise LocalMisuseError("magic-square setup: colours must be 16 seats, eight 0s and eight 1s")
        first_lead = setup.get("first_lead", 0)
        if first_lead not in (0, 1) or type(first_lead) is not int:
            raise LocalMisuseError("magic-square setup: first_lead must be 0 or 1")
        return SquareState(opponent=opponent, phase="lead", colours=tuple(colours), first_lead=first_lead)

    def seats(self, state: SquareState) -> int:
        """Always two players."""
        return 2

    def to_act(self, state: SquareState) -> tuple[int, ...]:
        """The player to move, and the player who may challenge the last placement (if any)."""
        seats = {state.actor} | {state.window}
        return tuple(sorted(seat for seat in seats if seat is not None))

    def waiting_on(self, state: SquareState) -> tuple[int, ...]:
        """The player to move; a challenge is optional and the game goes on without it."""
        return () if state.actor is None or state.outcome is not None else (state.actor,)

    def legal_actions(self, state: SquareState, seat: int) -> Sequence[SquareAction]:
        """Every legal action in a stable order (a challenged player's: one valid completion, if
        any exists, and conceding)."""
        actions: list[SquareAction] = []
        if seat == state.actor:
            actions += self._moves(state)
        if seat == state.window:
            actions.append(Challenge())
        return tuple(actions)

    def _moves(self, state: SquareState) -> list[SquareAction]:
        phase = state.phase
        if phase in ("colour_order", "lead"):
            return [Order(0), Order(1)]
        if phase == "colouring":
            return [Colour(c) for c in range(16) if state.colours[c] is None]
        if phase == "place":
            grid = state.grid
            return [Place(c) for c in range(16) if grid[c] == 0]
        if phase == "challenge":
            completion = index().completion(state.cells)
            found: list[SquareAction] = [] if completion is None else [Complete(completion)]
            return [*found, Concede()]
        if phase == "swap":
            red = [c for c in range(16) if state.colours[c] == 0]
            blue = [c for c in range(16) if state.colours[c] == 1]
            return [*(Swap(r, b) for r in red for b in blue), SwapsDone()]
        return []

    parse_action = staticmethod(parse_action)

    def apply(self, state: SquareState, seat: int, action: SquareAction) -> SquareState:
        """The state after ``seat`` acts; raises IllegalActionError with the reason."""
        if seat not in (0, 1):
            raise IllegalActionError(f"no seat p{seat} in the Magic Square (seats are p0 and p1)")
        if state.outcome is not None:
            raise IllegalActionError("the match is over")
        if isinstance(action, Challenge):
            return self._challenge(state, seat)
        if seat != state.actor:
            who = "nobody" if state.actor is None else f"p{state.actor}"
            raise IllegalActionError(f"it is {who}'s move ({state.phase}), not p{seat}'s")
        state = replace(state, window=None, events=())
        if isinstance(action, Timeout):
            return self._timeout(state, seat)
        return self._move(state, seat, action)

    def _challenge(self, state: SquareState, seat: int) -> SquareState:
        if seat != state.window:
            raise IllegalActionError(
                f"p{seat} cannot challenge now: only right after the opponent's placement"
            )
        placed = len(state.cells)
        return self._say(
            replace(state, phase="challenge", challenger=seat, window=None),
            "challenge",
            seat=seat,
            number=placed,
            cell=state.cells[-1],
        )

    def _move(self, state: SquareState, seat: int, action: SquareAction) -> SquareState:
        """The player to move moves, in its phase."""
        phase = state.phase
        if phase == "colour_order":
            order = expect(action, Order, "order", "choose who colours first")
            return self._say(
                replace(state, phase="colouring", colourer=order.first, first_lead=1 - order.first),
                "colour_order",
                seat=seat,
                first=order.first,
            )
        if phase == "colouring":
            return self._colour(state, seat, expect(action, Colour, "colour", "colour a cell"))
        if phase == "swap":
            return self._swap(state, seat, action)
        if phase == "lead":
            order = expect(action, Order, "order", "choose who places first this placement round")
            return self._say(
                replace(state, phase="place", first_placer=order.first), "lead", seat=seat, first=order.first
            )
        if phase == "place":
            return self._place(state, seat, expect(action, Place, "place", "place a number"))
        # The challenge phase.
        if isinstance(action, Concede):
            return self._end_round(state, state.challenger, "challenge_upheld", how="concedes", seat=seat)
        answer = expect(action, Complete, "complete", "complete the square or concede")
        return self._answer(state, answer.grid)

    def _colour(self, state: SquareState, seat: int, action: Colour) -> SquareState:
        if state.colours[action.cell] is not None:
            raise IllegalActionError(f"{cell_name(action.cell)} is already coloured")
        colours = list(state.colours)
        colours[action.cell] = seat
        done = all(c is not None for c in colours)
        state = replace(
            state, colours=tuple(colours), colourer=1 - seat, phase="lead" if done else "colouring"
        )
        return self._say(state, "colour", seat=seat, cell=action.cell)

    def _swap(self, state: SquareState, seat: int, action: SquareAction) -> SquareState:
        if isinstance(action, SwapsDone):
            return self._say(replace(state, phase="lead", swaps_left=0), "swaps_done", seat=seat)
        swap = expect(action, Swap, "swap", "swap a red and a blue cell, or end the swaps")
        if state.colours[swap.red] != 0 or state.colours[swap.blue] != 1:
            raise IllegalActionError(
                f"swap: {cell_name(swap.red)} must be red and {cell_name(swap.blue)} blue"
            )
        colours = list(state.colours)
        colours[swap.red], colours[swap.blue] = 1, 0
        left = state.swaps_left - 1
        state = replace(state, colours=tuple(colours), swaps_left=left, phase="swap" if left else "lead")
        return self._say(state, "swap", seat=seat, red=swap.red, blue=swap.blue)

    def _place(self, state: SquareState, seat: int, action: Place) -> SquareState:
        if action.cell in state.cells:
            raise IllegalActionError(f"{cell_name(action.cell)} already holds {state.grid[action.cell]}")
        number = len(state.cells) + 1
        state = replace(state, cells=(*state.cells, action.cell), placers=(*state.placers, seat))
        placed: dict[str, Plain] = {"seat": seat, "number": number, "cell": action.cell}
        if number == 16:
            state = self._say(state, "place", **placed)
            if not is_magic(state.grid):
                return self._end_round(state, 1 - seat, "not_magic", how="placed_16", seat=seat)
            red, blue = state.scores
            if red == blue:
                return self._end_round(state, None, "tie_replay", how="scores")
            return self._end_round(state, 0 if red > blue else 1, "score", how="scores")
        phase = "lead" if number % 2 == 0 else "place"
        return self._say(replace(state, phase=phase, window=1 - seat), "place", **placed)

    def _answer(self, state: SquareState, grid: tuple[int, ...]) -> SquareState:
        challenger = state.challenger
        assert challenger is not None
        placed = state.grid
        consistent = all(n == 0 or grid[c] == n for c, n in enumerate(placed))
        if is_magic(grid) and consistent:
            return self._end_round(
                state, 1 - challenger, "challenge_failed", how="completes", seat=1 - challenger
            )
        how = "not_magic" if not is_magic(grid) else "inconsistent"
        return self._end_round(state, challenger, "challenge_upheld", how=how, seat=1 - challenger)

    def _timeout(self, state: SquareState, seat: int) -> SquareState:
        if state.phase in ("colour_order", "colouring"):
            # Colouring is a portion of round 1 and runs on the round clocks: running out loses
            # round 1 like any round-clock timeout. Round 2 keeps the colouring, so the blank cells
            # are coloured now: in a1..d4 order, alternately from the player whose turn it was (p0
            # if the order was never chosen), so each player has eight.
            first = state.colourer if state.phase == "colouring" else 0
            blank = [cell for cell in range(16) if state.colours[cell] is None]
            colours = list(state.colours)
            for i, cell in enumerate(blank):
                colours[cell] = first if i % 2 == 0 else 1 - first
            return self._end_round(
                replace(state, colours=tuple(colours)),
                1 - seat,
                "timeout",
                how="colouring_timeout",
                seat=seat,
                first=first,
                cells=blank,
            )
        reason = "challenge_upheld" if state.phase == "challenge" else "timeout"
        return self._end_round(state, 1 - seat, reason, how="timeout", seat=seat)

    def _end_round(
        self, state: SquareState, winner: int | None, reason: str, *, how: str, **told: Plain
    ) -> SquareState:
        """The round ends (``how`` it ended, and who, for the ``round_end`` event's words)."""
        last: dict[str, Plain] = {
            "winner": winner,
            "reason": reason,
            "scores": list(state.scores),
            "grid": list(state.grid),
            "round": state.round,
        }
        state = self._say(state, "round_end", how=how, **told, **last)
        fresh = replace(state, cells=(), placers=(), window=None, challenger=None, last_round=last)
        if winner is None:
            return self._say(
                replace(fresh, phase="lead", first_lead=1 - state.first_lead),
                "replay",
                round=state.round,
                lead=1 - state.first_lead,
            )
        wins = list(state.round_wins)
        wins[winner] += 1
        fresh = replace(fresh, round_wins=(wins[0], wins[1]))
        if wins[winner] >= WINS_NEEDED:
            outcome = Outcome(winner, SquareEnding.ROUND_WINS, details={"round_wins": wins})
            return self._say(
                replace(fresh, phase="over", outcome=outcome), "match_end", winner=winner, round_wins=wins
            )
        loser = 1 - winner
        return self._say(
            replace(fresh, phase="swap", round=state.round + 1, first_lead=loser, swaps_left=MAX_SWAPS),
            "next_round",
            winner=winner,
            round=state.round,
            reason=reason,
            lead=loser,
        )

    def _say(self, state: SquareState, kind: str, **data: Plain) -> SquareState:
        """Record what happened, as data (words.py says it in words)."""
        event: dict[str, Plain] = {"type": kind, **data}
        return replace(state, events=(*state.events, event))

    def outcome(self, state: SquareState) -> Outcome | None:
        """The result once a player has won two rounds."""
        return state.outcome

    full = public = staticmethod(full)  # (nothing in the Magic Square is hidden)
    public_canonical = staticmethod(public_canonical)

    def view(self, state: SquareState, seat: int) -> dict[str, Plain]:
        """Everything, plus the seat and the last step's events."""
        return {**full(state), "seat": seat, "events": list(state.events)}

    def events(self, state: SquareState) -> tuple[dict[str, Plain], ...]:
        """What the last action did."""
        return state.events


def clock(state: SquareState) -> tuple[int, str] | None:
    """Whose clock runs now and which: ("round" or "challenge"; round 1's colouring is on the
    round clock); None when the match is over."""
    if state.phase == "challenge" and state.actor is not None:
        return state.actor, "challenge"
    if state.phase in ("colour_order", "colouring", "swap", "lead", "place") and state.actor is not None:
        return state.actor, "round"
    return None


def check_options(options: Mapping[str, Any]) -> None:
    """Refuse unknown or malformed options: there are only ``round_seconds`` and
    ``challenge_seconds`` (colouring runs on the round clock; it has no limit of its own)."""
    for key, value in options.items():
        if key not in ("round_seconds", "challenge_seconds"):
            raise LocalMisuseError(f"magic-square options: unknown option {key!r}")
        if type(value) is not int or value <= 0:
            raise LocalMisuseError(f"magic-square options: {key} must be a positive whole number")


MAGIC_SQUARE: Final = MagicSquare()
