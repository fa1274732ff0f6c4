"""The one bot driver: bots playing a peer's seats over a match session.

The command line (``--bot``, ``demo``), the terminal UI (a bot partner in a seat the person's peer
holds beside the person's own) and the in-memory table (``p2pgenius.inmemory``) all play bots
through :class:`BotDriver`. Each seat's bot is made the first time that seat must act (the game
is known by then), seeded with ``seed * 10 + seat`` so that a match can be replayed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2pgenius.bots.registry import Bot, make_bot, plain, thinks_at_once
from p2pgenius.threads import mock_clock, off_loop

if TYPE_CHECKING:
    from p2pgenius.bots.worker import Worker
    from p2pgenius.protocol.session import SessionView

__all__ = ["BotDriver", "plain"]


@dataclass(eq=False)
class BotDriver:
    """Bots for one peer's seats.

    ``level``: every seat's bot level (None or "": the game's default); ``levels``: per seat,
    overriding it; ``bots``: ready-made bots by seat, overriding both; ``delay``: seconds each bot
    waits before it decides over the network (so that a person can follow a partner's moves);
    ``thread``: think off the event loop (the default: the bots made from a level in a process
    of their own, :mod:`p2pgenius.bots.worker`, ready-made ones in a worker thread; False thinks
    on the event loop, as it does anyway under trio's mock clock, which jumps forward while work
    is done elsewhere, as if a thought took no time while every clock ran out)."""

    level: str | None = None
    seed: int = 0
    levels: Sequence[str | None] = ()
    bots: Mapping[int, Bot] | Sequence[Bot] | None = None
    delay: float = 0.0
    thread: bool = True
    _made: dict[int, Bot] = field(default_factory=dict, init=False, repr=False)
    _thinking: dict[int, Any] = field(default_factory=dict, init=False, repr=False)  # seat -> trio.Lock
    _worker: Worker | None = field(default=None, init=False, repr=False)
    _apart: set[str] = field(default_factory=set, init=False, repr=False)  # games its worker lacks
    _handed: frozenset[int] = field(default=frozenset(), init=False, repr=False)  # seats of ready-made bots

    def __post_init__(self) -> None:
        self.level = self.level or None
        given = self.bots
        self._made = dict(enumerate(given) if isinstance(given, Sequence) else given or {})
        self._handed = frozenset(self._made)  # (ready-made: they think in this process)

    def level_at(self, seat: int) -> str | None:
        """The level of the bot at ``seat`` (None: the game's default)."""
        return self.levels[seat] if seat < len(self.levels) else self.level

    def bot(self, game: str, seat: int) -> Bot:
        """The bot at ``seat`` (made now, in this process, if it has not played yet)."""
        if seat not in self._made:
            self._made[seat] = make_bot(game, self.level_at(seat), seed=self.seed * 10 + seat)
        return self._made[seat]

    def choose(self, game: str, state: Any, seat: int) -> Any:
        """The bot's action for ``seat`` in ``state`` (an engine action, or None to let an
        optional action pass), thought in this process."""
        return self.bot(game, seat).choose(state, seat)

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        """A decision for ``seat`` as a networked peer asks for it (``Peer``'s ``decide``): the
        action's plain form, or None to let an optional action pass."""
        import trio  # noqa: PLC0415  (only a networked peer decides here; the in-memory table needs no trio)

        await trio.sleep(self.delay)  # also a checkpoint: a stage that moved on cancels this
        # A bot never thinks on the event loop: a strong bot may think for a second or more, and
        # meanwhile messages and pings must still be read and answered. States are immutable, so
        # the thought reads a state nothing else changes. A decision cancelled mid-thought still
        # waits for the thought to end, and the seat's lock keeps the next decision from starting
        # a second thought beside it: a bot's seeded randomness and caches see one thought at a
        # time, and replays stay exact. (A bot that picks at once, the random one, picks on the
        # loop: a process or a thread would cost more than the move.)
        lock = self._thinking.setdefault(seat, trio.Lock())
        async with lock:
            if seat not in session.awaiting():
                return None  # the stage moved on while we waited (our answer would be ignored)
            game, state = session.game_name, session.state
            if game is None:
                return None  # (no match yet: nothing to decide)
            action: Mapping[str, Any] | None = await self._think(game, state, seat)
        return action

    async def _think(self, game: str, state: Any, seat: int) -> Any:
        """The plain action of ``seat``'s bot, thought where it should be (see the class's doc)."""
        on_loop = not self.thread or mock_clock()
        if not on_loop and self._apart_from_loop(game, seat):
            kind, action = await self._process().think(
                game, self.level_at(seat), self.seed * 10 + seat, seat, state
            )
            if kind == "ok":
                return action
            self._apart.add(game)  # (a game its process lacks: a thread, from now on)
        if not on_loop and seat not in self._made:  # (a strong bot may load tables: off the loop)
            await off_loop(self.bot, game, seat)
        if on_loop or getattr(self.bot(game, seat), "quick", False):
            return plain(self.choose(game, state, seat))
        return plain(await off_loop(self.choose, game, state, seat))

    def _apart_from_loop(self, game: str, seat: int) -> bool:
        """Whether ``seat``'s bot thinks in the bots' process: one this driver makes from a level
        that does not pick at once, in a game that process knows."""
        return (
            seat not in self._handed
            and game not in self._apart
            and not thinks_at_once(game, self.level_at(seat))
        )

    def _process(self) -> Worker:
        from p2pgenius.bots.worker import Worker  # noqa: PLC0415  (only a networked peer thinks apart)

        if self._worker is None:
            self._worker = Worker()
        return self._worker

    async def aclose(self) -> None:
        """End the bots' process now (else it ends with the trio run, or the program)."""
        if self._worker is not None:
            await self._worker.aclose()
