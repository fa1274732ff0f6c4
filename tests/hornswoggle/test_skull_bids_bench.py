"""The Hornswoggle benchmark's counts of bids past one's own skull (bench/hornswoggle_skull_bids.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import HornState
from tests.hornswoggle.helpers import D, S, opened

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "hornswoggle_skull_bids", ROOT / "bench" / "hornswoggle_skull_bids.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "hornswoggle_skull_bids", module)  # (its dataclass looks it up)
    spec.loader.exec_module(module)
    return module


def run(counter: Any, state: HornState, moves: list[tuple[int, str, dict[str, Any]]]) -> HornState:
    """Play ``moves`` (seat, type, fields), letting ``counter`` watch each."""
    for seat, kind, fields in moves:
        action = HORNSWOGGLE.parse_action({"type": kind, **fields})
        before, state = state, HORNSWOGGLE.apply(state, seat, action)
        counter.watch(before, seat, action, state)
    return state


def test_a_bluff_nobody_raises_ends_with_its_own_skull_flipped(counting: ModuleType) -> None:
    # p0 opens with a skull and bids 1 on it; everyone passes; p0 must flip its own pile first.
    counter = counting.SkullBids({0, 2})
    state = run(
        counter, opened([S, D, D, D]), [(0, "bid", {"count": 1})] + [(s, "pass", {}) for s in (1, 2, 3)]
    )
    state = run(counter, state, [(0, "flip", {"pile": 0})])
    assert state.owing == (0,)
    assert (counter.bids, counter.past_skull, counter.on_top, counter.forced, counter.blocks) == (
        1,
        1,
        1,
        0,
        0,
    )
    assert (counter.rounds, counter.own_flips, counter.own_flip_cards, counter.raised_into_loss) == (
        1,
        1,
        1,
        0,
    )
    assert (counter.net, counter.bluff_rounds, counter.bluff_net) == (-1, 1, -1)


def test_a_block_an_opponent_raises_past_into_the_skull_wins_a_card(counting: ModuleType) -> None:
    # p1 bids 1 on its own doubloon; p0 (a skull on its pile) raises to 2; p1 raises to 3 past its
    # own pile, flips its doubloon, then p0's skull: p1 loses a card.
    counter = counting.SkullBids({0, 2})
    moves = [(1, "bid", {"count": 1}), (2, "pass", {}), (3, "pass", {}), (0, "bid", {"count": 2})]
    moves += [(1, "bid", {"count": 3}), (0, "pass", {}), (1, "flip", {"pile": 1}), (1, "flip", {"pile": 0})]
    state = run(counter, opened([S, D, D, D], first=1), moves)
    assert state.owing == (1,)
    assert (counter.past_skull, counter.blocks, counter.covered, counter.own_flips) == (1, 1, 1, 0)
    assert (counter.raised_into_loss, counter.raised_and_made, counter.net, counter.bluff_rounds) == (
        1,
        0,
        1,
        0,
    )
    # Against passing: p1's bid was covered, so passing would have cost p0 and p2 a card each.
    assert counter.against_passing == 1 + 2


def test_a_covered_block_that_flips_its_own_skull_still_beats_passing(counting: ModuleType) -> None:
    # p1 bids 1 on its own doubloon (covered: it makes it for sure); p0, a skull on top of its pile,
    # raises to 2 and nobody raises back: p0 flips its own skull first and loses a card. Passing
    # would have cost its team two (p1 makes its bid: a card from p0 and one from p2).
    counter = counting.SkullBids({0, 2})
    moves = [(1, "bid", {"count": 1}), (2, "pass", {}), (3, "pass", {}), (0, "bid", {"count": 2})]
    moves += [(1, "pass", {}), (0, "flip", {"pile": 0})]
    state = run(counter, opened([S, D, D, D], first=1), moves)
    assert state.owing == (0,)
    assert (counter.blocks, counter.covered, counter.own_flips, counter.net) == (1, 1, 1, -1)
    assert counter.against_passing == -1 + 2
    # A bluff (no block) counts as nothing lost by passing: against passing is its net.
    bluff = counting.SkullBids({0, 2})
    run(
        bluff,
        opened([S, D, D, D]),
        [(0, "bid", {"count": 1})] + [(s, "pass", {}) for s in (1, 2, 3)] + [(0, "flip", {"pile": 0})],
    )
    assert bluff.against_passing == bluff.net == -1


def test_bids_the_own_pile_covers_are_not_counted(counting: ModuleType) -> None:
    counter = counting.SkullBids({0, 2})
    state = run(counter, opened([D, D, D, D]), [(0, "bid", {"count": 1})])
    assert state.phase == "bidding" and counter.bids == 1 and counter.past_skull == 0
    other = counting.SkullBids({1, 3})  # p0 is not watched by the other team's counter
    run(other, opened([S, D, D, D]), [(0, "bid", {"count": 1})])
    assert other.bids == 0 and other.past_skull == 0
