"""Time on the record: what each decision declared, what other peers say they saw pass, timeout
claims that stand, disputes, and other peers' forfeits this peer has not checked for itself."""

from __future__ import annotations

from typing import Final

from p2pgenius.protocol.events import Fault

MAX_ALLOWANCE_MS: Final = 10_000
"""The longest lag allowance a peer gives another's clock before it claims (protocol/SPEC.md,
section 6, "Timeout claims and lag")."""
MAX_GRACE_MS: Final = 86_400_000
"""The longest grace period a peer may wait on silence before it forfeits (a day: ``--grace``)."""

Ref = tuple[int, int]
"""(stage, seat); before the deal, (SETUP, peer)."""


class TimeLedger:
    """Claims, disputes and declared times, as this peer has them."""

    def __init__(self) -> None:
        self.claims: dict[Ref, set[int]] = {}  # -> the peers whose claim that it timed out stands
        self.disputes: set[Ref] = set()  # whose peer disputed a claim (once a stage)
        self.declared: dict[Ref, int] = {}  # -> ms its decision declared (the larger, if two)
        self.had: dict[Ref, int] = {}  # -> ms its clock had when the stage began
        self.observed: dict[tuple[int, int, int], int] = {}  # (stage, seat, by peer) -> ms seen
        self.pending: dict[Ref, tuple[int, Fault]] = {}  # another peer's forfeit, unchecked here

    # -- claims ---------------------------------------------------------------------------------

    def claim(self, ref: Ref, author: int) -> None:
        """``author`` claims that ``ref``'s seat ran out of time; it stands until answered."""
        self.claims.setdefault(ref, set()).add(author)

    def claimants(self, ref: Ref) -> set[int]:
        """The peers whose claim about ``ref`` stands."""
        return self.claims.get(ref, set())

    def answered(self, ref: Ref) -> None:
        """The seat answered (a decision): no claim about it stands."""
        self.claims.pop(ref, None)

    def disputed(self, ref: Ref) -> None:
        """The seat's peer disputed: the claims stop standing, and it may not dispute again."""
        self.claims.pop(ref, None)
        self.disputes.add(ref)

    # -- declared and observed times -----------------------------------------------------------------

    def declare(self, ref: Ref, ms: int, had: int) -> None:
        """A decision for ``ref`` declared ``ms`` (a seat that both declines and acts: the larger);
        its clock had ``had`` ms when the stage began."""
        self.declared[ref] = max(self.declared.get(ref, 0), ms)
        self.had[ref] = had

    def most_seen(self, ref: Ref) -> int:
        """The most time an honest peer can have seen pass before ``ref``'s decision: its clock,
        a claim after the lag allowance, one dispute giving at most the clock again, a second
        claim after the allowance, and the longest grace period it may wait before forfeiting.
        (What an ``observed`` says beyond it is no measure, and it is its author's fault.)"""
        return 2 * self.had.get(ref, 0) + 2 * MAX_ALLOWANCE_MS + MAX_GRACE_MS

    def observe(self, ref: Ref, by: int, ms: int) -> None:
        """Peer ``by`` says it saw ``ms`` pass before ``ref``'s decision."""
        self.observed[(*ref, by)] = ms

    def observed_by(self, ref: Ref, by: int | None) -> bool:
        """Whether ``by`` already said what it saw before ``ref``'s decision."""
        return (*ref, by) in self.observed

    # -- other peers' forfeits ---------------------------------------------------------------------

    def hold_forfeit(self, ref: Ref, author: int, fault: Fault) -> None:
        """Another peer's forfeit of ``ref``'s seat, held until this peer's own grace period."""
        self.pending.setdefault(ref, (author, fault))
