"""The stage being played: the messages gathered for one engine decision point."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from p2pgenius.canonical import Plain
from p2pgenius.games.spec import Period


@dataclass(slots=True)
class Stage:
    """Messages gathered for one stage."""

    number: int
    waiting: tuple[int, ...]
    optional: tuple[int, ...]
    acts: dict[int, Plain] = field(default_factory=dict)  # seat -> public action
    commits: dict[int, bytes] = field(default_factory=dict)  # seat -> commitment
    reveals: dict[int, Plain] = field(default_factory=dict)  # seat -> opened action
    declined: set[int] = field(default_factory=set)
    opened: Plain | None = None  # a flip: the hidden card its owner opened
    claim: Mapping[str, Plain] | None = None  # a blind claim for this stage
    claim_author: int | None = None
    claim_seat: int | None = None
    claim_message: bytes = b""  # the hash of the blind message that carried the claim
    clocks: dict[int, tuple[Period, int]] = field(default_factory=dict)  # seat -> clock, ms left
    ms: dict[int, int] = field(default_factory=dict)  # seat -> time its decision took (declared)
    finals: set[int] = field(default_factory=set)  # sealed, without "fast": choices that stand
