"""Everything a match waits on, as one table (protocol/SPEC.md, section 6, "What is owed").

A *debt* is one thing one seat (or, before the deal, one peer) owes the match now: a decision on
its clock, a sealed game's ``final``, the opening of a sealed choice or of a flipped card, a
challenge window's answer, the disclosure of its hidden choices, its signed result, its coin share.
What a session owes is worked out from the transcript alone (:meth:`Session.debts`); *when* a debt
is late is the clock layer's to measure, from the one rule of its kind here: on the debtor's own
clock (claimable once that clock has run out, as the claimant keeps it, plus the lag allowance), or
on the grace period (claimable once the grace period has passed since the debt became due, as the
claimant saw it, plus the time its debtor was cut off meanwhile, at most the patience bound per
debt: coming back renews nothing). Nothing is owed before it is due: a seat that has chosen owes no
opening while another still thinks, a challenger owes no answer while the seat before it has not
acted, and a seat with time left on its clock owes nothing yet, connected or not. A claim about a
debt that is not due changes nothing.

The lobby's ``ready`` and a peer's coming back after a cut are in the table too (what a player
must do in time), though no claim is made about them: a host turns away a caller that is not
ready in time (nothing was agreed yet), and a peer that is away owes only its debts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p2pgenius.protocol.bodies import Disclosure

CLOCK: Final = "clock"
"""Late once the debtor's clock has run out, as the claimant keeps it, plus the lag allowance."""
GRACE: Final = "grace"
"""Late once the grace period has passed since it became due, as the claimant saw it (plus the
time its debtor was cut off meanwhile, at most the patience bound per debt)."""
HOST: Final = "host"
"""Not claimed: the host's own policy decides (the lobby)."""


@dataclass(frozen=True, slots=True)
class Obligation:
    """One kind of thing a match waits on, and the rules of its time."""

    name: str
    owed: str
    """What is owed, in words."""
    by: str
    """Who owes it."""
    due: str
    """When it becomes due."""
    deadline: str
    """CLOCK, GRACE or HOST: which rule says when it is late (see the module's doc)."""
    answer: str
    """What pays it, or answers a claim about it."""
    disputable: bool
    """Whether its debtor may answer a claim with a ``dispute`` (only a decision on a clock can be
    argued: anything else can be paid at once instead)."""

    @property
    def claimed(self) -> bool:
        """Whether a peer claims it when it is late (and its debtor forfeits if the claim goes
        unanswered for the grace period)."""
        return self.deadline != HOST


OBLIGATIONS: Final[tuple[Obligation, ...]] = (
    Obligation(
        "ready",
        "its `ready` in the lobby",
        "a joiner at the host's table",
        "once its handshake is done",
        HOST,
        "its `ready`; else the host turns it away after 60 s (600 s with the invite's seat token)",
        False,
    ),
    Obligation(
        "coin",
        "the opening of its coin share (`coin_reveal`)",
        "every peer",
        "once the terms are in (every share is committed in them)",
        GRACE,
        "its `coin_reveal`",
        False,
    ),
    Obligation(
        "decision",
        "a decision (`act` or `commit`), or its timeout",
        "each seat the stage waits on",
        "when the stage opens",
        CLOCK,
        "the decision (its own peer sends the game's timeout when its clock runs out), or one "
        "`dispute` a stage saying how much its clock still has (granted only out of its grace past "
        "the clock)",
        True,
    ),
    Obligation(
        "final",
        "its `final` (a sealed game without `fast`: the choice stands)",
        "each seat that has committed",
        "once it has committed; it may change its choice until its turn clock runs out",
        CLOCK,
        "its `final`",
        False,
    ),
    Obligation(
        "window",
        "the optional action or its `decline` (a challenge)",
        "the seat that may take it",
        "once every seat the stage waits on has its decision (the optional action is allowed "
        "only before the next one)",
        GRACE,
        "its `act` or its `decline` (the reference declines at once)",
        False,
    ),
    Obligation(
        "reveal",
        "the opening (`reveal`) of its sealed choice",
        "each seat that has committed",
        "once every commitment of the stage stands (not to a peer in the dark it is withheld from)",
        GRACE,
        "its `reveal`",
        False,
    ),
    Obligation(
        "opening",
        "the opening (`reveal`) of a flipped card",
        "the flipped pile's owner",
        "when the flip comes",
        GRACE,
        "its `reveal`",
        False,
    ),
    Obligation(
        Disclosure.kind,  # (named, as the others, after what pays it)
        f"its `{Disclosure.kind}` (a game with hidden cards)",
        "every peer",
        "when the game's outcome comes",
        GRACE,
        f"its `{Disclosure.kind}`",
        False,
    ),
    Obligation(
        "end",
        "its signed result (`end`)",
        "every peer",
        f"when the result is known (after the {Disclosure.kind}, where there is one)",
        GRACE,
        "its `end`",
        False,
    ),
    Obligation(
        "reconnect",
        "nothing of its own: coming back after a cut",
        "a peer whose connection dropped",
        "never: a peer away owes only its debts above",
        HOST,
        "its coming back (`sync`), which renews no deadline; meanwhile its clock runs on, and its "
        "debts are claimed as ever",
        False,
    ),
)
"""Every obligation, in the order a match meets them."""

RULES: Final[dict[str, Obligation]] = {obligation.name: obligation for obligation in OBLIGATIONS}


@dataclass(frozen=True, slots=True)
class Debt:
    """One seat's (before the deal: one peer's) debt now: what (an obligation's name), at which
    stage (-2: the coin flip, -1: after the end)."""

    kind: str
    seat: int
    stage: int

    @property
    def rule(self) -> Obligation:
        return RULES[self.kind]
