"""The stage being played: the messages gathered for one engine decision point."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from p2pgenius.canonical import Plain
from p2pgenius.games.spec import Period


@dataclass(frozen=True, slots=True)
class Claim:
    """A view claim as taken: what a sighted peer said, signed, a seat in the dark may know after
    a stage."""

    view: Mapping[str, Plain]
    author: int
    seat: int
    message: bytes
    """The hash of the message that carried it (the evidence, if it was false)."""


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
    claim: Claim | None = None  # a view claim for this stage (this peer's seat is in the dark)
    clocks: dict[int, tuple[Period, int]] = field(default_factory=dict)  # seat -> clock, ms left
    ms: dict[int, int] = field(default_factory=dict)  # seat -> time its decision took (declared)
    finals: set[int] = field(default_factory=set)  # sealed, without "fast": choices that stand
