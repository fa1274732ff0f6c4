"""The match's clocks as the transcript defines them (protocol/SPEC.md, "Time").

Which clock a decision runs on comes from the game's spec; the time a decision took is what its
author declares, and exactly that is charged, so every peer's clocks are a function of the
transcript. Nothing here reads a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pgenius.games.spec import GameSpec
from p2pgenius.protocol.events import ClockView
from p2pgenius.protocol.messages import MessageError
from p2pgenius.protocol.session.stage import Stage


class ClockBook:
    """Time charged so far, per (seat, clock kind, clock key), and where the current round began."""

    def __init__(self) -> None:
        self.spent: dict[tuple[int, str, int], int] = {}
        self.round_key = 0  # the stage at which the current round began (games with round clocks)

    def start(self, stage: Stage, spec: GameSpec, options: Mapping[str, Any], state: Any) -> None:
        """Give each seat of ``stage`` its clock and what is left on it. ``state`` may be None (a
        peer in the dark does not know it)."""
        for seat in stage.waiting + stage.optional:
            clock = spec.period(options, state, stage.number, seat, self.round_key)
            used = self.spent.get((seat, clock.kind, clock.key), 0)
            stage.clocks[seat] = (clock, max(clock.budget_ms - used, 0))

    @staticmethod
    def left(stage: Stage, seat: int) -> int:
        """What ``seat``'s clock had when ``stage`` began."""
        return stage.clocks[seat][1] if seat in stage.clocks else 0

    def check_declared(self, stage: Stage, seat: int, ms: int) -> None:
        """Refuse a decision declaring more time than its clock had (an honest peer sends its
        timeout instead)."""
        left = self.left(stage, seat)
        if not 0 <= ms <= left:
            raise MessageError(f"p{seat}'s decision declares {ms} ms; its clock had {left} ms left")

    def declare(self, stage: Stage, seat: int, ms: int) -> None:
        """Record the time a decision took, as its author declares it."""
        self.check_declared(stage, seat, ms)
        stage.ms[seat] = max(stage.ms.get(seat, 0), ms)

    def charge(self, stage: Stage) -> None:
        """Charge a played stage's declared times to their clocks."""
        for seat, ms in sorted(stage.ms.items()):
            clock = stage.clocks[seat][0]
            key = (seat, clock.kind, clock.key)
            self.spent[key] = self.spent.get(key, 0) + ms

    def new_round(self, stage_number: int) -> None:
        """A round ended with stage ``stage_number``: the next stage starts fresh round clocks."""
        self.round_key = stage_number + 1

    @staticmethod
    def views(stage: Stage, whole_period: bool, only: int | None = None) -> dict[int, ClockView]:
        """Every seat's clock at ``stage`` (or ``only`` that seat's, if it has one: what a local
        decision reads), open and the match going on. ``whole_period``: sealed choices that may
        change until the time is up (every clock runs until its seat's choice stands). Otherwise a
        clock runs while its seat owes its decision: a seat the stage waits on that has neither
        acted nor committed, which is every such seat while the stage is open (``Play.debts``: it
        is what the match waits on; asking that would sort every debt)."""
        views, clocks = {}, stage.clocks
        chosen = sorted(clocks.items()) if only is None else [(only, clocks[only])] if only in clocks else []
        for seat, (clock, left) in chosen:
            if whole_period:
                running = seat not in stage.finals
            else:  # (a seat with only an optional action, a challenge window, is not on the clock;
                # nor one that has decided and owes what pays on the grace period: its own
                # flipped card's opening)
                running = seat in stage.waiting and seat not in stage.commits and seat not in stage.acts
            used = 0 if running else stage.ms.get(seat, 0)  # a running clock counts from the start
            views[seat] = ClockView(clock.kind, clock.key, left - used, running)
        return views
