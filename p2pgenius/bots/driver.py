"""The one bot driver: bots playing a peer's seats over a match session.

The command line (``--bot``, ``demo``), the terminal UI (a bot partner in a seat the person's peer
holds beside the person's own) and the in-memory table (``p2pgenius.inmemory``) all play bots
through :class:`BotDriver`. Each seat's bot is made the first time that seat must act (the game
is known by then), seeded with ``seed * 10 + seat`` so that a match can be replayed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from p2pgenius.bots.registry import Bot, make_bot
from p2pgenius.threads import off_loop

if TYPE_CHECKING:
    from p2pgenius.protocol.session import SessionView


class BotDriver:
    """Bots for one peer's seats.

    ``level``: every seat's bot level (None or "": the game's default); ``levels``: per seat,
    overriding it; ``bots``: ready-made bots by seat, overriding both; ``delay``: seconds each bot
    waits before it decides over the network (so that a person can follow a partner's moves);
    ``thread``: think in a worker thread (the default; False thinks on the event loop, which only
    a test on trio's autojump clock wants: that clock jumps while a thread works, as if the
    thought took no time, so a timed match would run out its clocks during one thought)."""

    def __init__(
        self,
        level: str | None = None,
        seed: int = 0,
        *,
        levels: Sequence[str | None] = (),
        bots: Mapping[int, Bot] | Sequence[Bot] | None = None,
        delay: float = 0.0,
        thread: bool = True,
    ) -> None:
        self.level = level or None
        self.levels = list(levels)
        self.seed = seed
        self.delay = delay
        self.thread = thread
        self.bots: dict[int, Bot] = dict(enumerate(bots) if isinstance(bots, Sequence) else bots or {})
        self._thinking: dict[int, Any] = {}  # seat -> a trio.Lock: one thought at a time per seat

    def bot(self, game: str, seat: int) -> Bot:
        """The bot at ``seat`` (made now if it has not played yet)."""
        if seat not in self.bots:
            level = self.levels[seat] if seat < len(self.levels) else self.level
            self.bots[seat] = make_bot(game, level, seed=self.seed * 10 + seat)
        return self.bots[seat]

    def choose(self, game: str, state: Any, seat: int) -> Any:
        """The bot's action for ``seat`` in ``state`` (an engine action, or None to let an
        optional action pass)."""
        return self.bot(game, seat).choose(state, seat)

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        """A decision for ``seat`` as a networked peer asks for it (``Peer``'s ``decide``): the
        action's plain form, or None to let an optional action pass."""
        import trio  # noqa: PLC0415  (only a networked peer decides here; the in-memory table needs no trio)

        await trio.sleep(self.delay)  # also a checkpoint: a stage that moved on cancels this
        # The bot thinks in a worker thread, never on the event loop: a strong bot may think for
        # a second or more, and meanwhile messages and pings must still be read and answered.
        # States are immutable, so the thread reads a state nothing else changes. A decision
        # cancelled mid-thought (its stage moved on) still waits for the thought to end, and the
        # seat's lock keeps the next decision from starting a second thought beside it: a bot's
        # seeded randomness and caches are used by one thread at a time, and replays stay exact.
        # (A bot that says it is quick, the random one, picks on the loop: a thread per move
        # would cost more than the move.)
        lock = self._thinking.setdefault(seat, trio.Lock())
        async with lock:
            if seat not in session.awaiting():
                return None  # the stage moved on while we waited (our answer would be ignored)
            game, state = session.game_name, session.state
            if game is None:
                return None  # (no match yet: nothing to decide)
            if self.thread and seat not in self.bots:  # (a strong bot may load tables: off the loop)
                await off_loop(self.bot, game, seat)
            if not self.thread or getattr(self.bot(game, seat), "quick", False):
                action = self.choose(game, state, seat)
            else:
                action = await trio.to_thread.run_sync(self.choose, game, state, seat)
        return None if action is None else plain(action)


def plain(action: Any) -> Any:
    """An action's plain form (a bot may return an engine action or plain data)."""
    return action.to_plain() if hasattr(action, "to_plain") else action
