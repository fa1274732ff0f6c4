"""A fourth game, defined in this module alone, plays over loopback TCP and verifies.

Rock-paper-scissors, best of three, with sealed throws: an engine and a spec written here,
put in the games' table, played host against join by two real peers over TCP, and the host's transcript
checked by ``p2pgenius verify``. Nothing outside this module knows the game: that is the point of
the game spec (docs/architecture.md, "One game, one place").
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
import trio

from p2pgenius.canonical import Plain
from p2pgenius.cli.main import main
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games import catalog
from p2pgenius.games.base import Ending, Outcome, only_fields
from p2pgenius.games.spec import GameSpec, TimeOption
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.session import Session, SessionView
from tests.patience import HANG_S

HANDS = ("rock", "paper", "scissors")
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


class RPSEnding(Ending):
    """The one way a match ends: two throws won."""

    ROUND_WINS = "round_wins"


@dataclass(frozen=True, slots=True)
class Throw:
    hand: str

    def to_plain(self) -> dict[str, Plain]:
        return {"type": "throw", "hand": self.hand}


@dataclass(frozen=True, slots=True)
class RPSState:
    wins: tuple[int, int] = (0, 0)
    pending: tuple[str | None, str | None] = (None, None)
    history: tuple[tuple[str, str], ...] = ()
    events: tuple[dict[str, Plain], ...] = ()


class RockPaperScissors:
    """The engine: both seats throw at once; two wins take the match; a draw is thrown again."""

    name = "sealed-rps"

    def initial(self, setup: Mapping[str, Any], options: Mapping[str, Any]) -> RPSState:
        if setup or set(options) - {"fast", "throw_seconds"}:
            raise LocalMisuseError("rock-paper-scissors takes no setup and only time options")
        return RPSState()

    def seats(self, state: RPSState) -> int:
        return 2

    def to_act(self, state: RPSState) -> tuple[int, ...]:
        if self.outcome(state) is not None:
            return ()
        return tuple(seat for seat in (0, 1) if state.pending[seat] is None)

    def waiting_on(self, state: RPSState) -> tuple[int, ...]:
        return self.to_act(state)

    def legal_actions(self, state: RPSState, seat: int) -> Sequence[Throw]:
        return tuple(Throw(hand) for hand in HANDS) if seat in self.to_act(state) else ()

    def parse_action(self, data: Any) -> Throw:
        if not isinstance(data, Mapping) or data.get("type") not in ("throw", "timeout"):
            raise IllegalActionError('an action is {"type": "throw", "hand": ...} or a timeout')
        if data["type"] == "timeout":
            only_fields(data)
            return Throw("rock")  # a missed throw is rock
        only_fields(data, "hand")
        if data.get("hand") not in HANDS:
            raise IllegalActionError(f"hand must be one of {', '.join(HANDS)}")
        return Throw(str(data["hand"]))

    def apply(self, state: RPSState, seat: int, action: Throw) -> RPSState:
        if seat not in self.to_act(state):
            raise IllegalActionError(f"p{seat} cannot throw now")
        pending = list(state.pending)
        pending[seat] = action.hand
        a, b = pending
        if a is None or b is None:
            return replace(state, pending=(a, b), events=())
        wins = list(state.wins)
        if a != b:
            wins[0 if BEATS[a] == b else 1] += 1
        text = f"p0 throws {a}, p1 throws {b}"
        return RPSState((wins[0], wins[1]), (None, None), (*state.history, (a, b)), ({"text": text},))

    def outcome(self, state: RPSState) -> Outcome | None:
        for seat in (0, 1):
            if state.wins[seat] == 2:
                return Outcome(seat, RPSEnding.ROUND_WINS)
        return None

    def full(self, state: RPSState) -> dict[str, Plain]:
        return {**self.public(state), "pending": list(state.pending)}

    def public(self, state: RPSState) -> dict[str, Plain]:
        return {"wins": list(state.wins), "history": [list(pair) for pair in state.history]}

    def view(self, state: RPSState, seat: int) -> dict[str, Plain]:
        return {**self.public(state), "mine": state.pending[seat]}

    def events(self, state: RPSState) -> tuple[dict[str, Plain], ...]:
        return state.events


class RPSSpec(GameSpec):
    """Two peers, sealed throws, a clock per throw."""

    name = "sealed-rps"
    title = "Rock-paper-scissors"
    sealed = True
    time_options = (TimeOption("throw_seconds", 30, "each throw"),)
    demo_options: ClassVar[Mapping[str, Any]] = {"fast": True}
    endings = RPSEnding


@pytest.fixture
def rps() -> Iterator[RPSSpec]:
    spec = RPSSpec(RockPaperScissors())
    catalog.add(catalog.Entry(spec.name, spec.title, "sealed throws", spec=spec))
    try:
        yield spec
    finally:
        catalog.remove(spec.name)


class Thrower:
    """Throws in turn rock, paper, scissors, shifted by ``start``."""

    def __init__(self, start: int) -> None:
        self.count = start
        self.seen: list[str] = []

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        self.count += 1
        await trio.sleep(0)
        return {"type": "throw", "hand": HANDS[self.count % 3]}

    def report(self, session: SessionView, event: Any) -> None:
        self.seen.append(type(event).__name__)

    def say(self, text: str) -> None:
        self.seen.append(text)


def make_peer(tmp: Path, name: str, thrower: Thrower) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    return Peer(
        Identity.generate(),
        name,
        files,
        thrower.decide,
        thrower.report,
        thrower.say,
        grace_s=30.0,
        pin_dir=tmp / "pins" / name,
    )


async def test_a_game_defined_in_a_test_plays_over_tcp_and_verifies(rps: RPSSpec, tmp_path: Path) -> None:
    # p0 throws paper, scissors, rock, ...; p1 rock, paper, scissors, ...: whoever has p0 wins.
    host, guest = await _play_to_file(tmp_path, dict(rps.demo_options))
    for side in (host, guest):
        assert side.session is not None and side.session.finished
        assert side.session.terms is not None and side.session.terms["game"] == "sealed-rps"
    assert host.session is not None and guest.session is not None
    outcome = host.session.outcome
    assert outcome is not None and outcome == guest.session.outcome
    assert outcome.reason == "round_wins"
    assert host.session.state.wins[outcome.winner] == 2
    # Throws travelled sealed: every throw in the transcript is a commitment, then a reveal.
    kinds = [body[0] for _, _, body in _bodies(host.session)]
    assert "commit" in kinds and "reveal" in kinds and "act" not in kinds
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["verify", str(tmp_path / "host.p2pt")])
    assert status == 0, out.getvalue()
    assert out.getvalue().startswith("valid: sealed-rps,")


def test_verify_refuses_a_transcript_of_a_game_it_does_not_know(tmp_path: Path) -> None:
    # Without the registration the same kind of file names a game this program cannot check.
    spec = RPSSpec(RockPaperScissors())
    catalog.add(catalog.Entry(spec.name, spec.title, "sealed throws", spec=spec))
    try:
        trio.run(_play_to_file, tmp_path)
    finally:
        catalog.remove(spec.name)
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["verify", str(tmp_path / "host.p2pt")])
    assert status == 1
    assert "unknown game 'sealed-rps'" in out.getvalue()


async def _play_to_file(tmp: Path, options: dict[str, Any] | None = None) -> tuple[Peer, Peer]:
    """Host against join over loopback TCP, to the end; the host's transcript is host.p2pt."""
    terms = options if options is not None else {"fast": True}
    host = make_peer(tmp, "host", Thrower(0))
    guest = make_peer(tmp, "guest", Thrower(2))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                lambda: host.host(listeners[0], game="sealed-rps", options=terms, setup={}, peers=2)
            )
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            nursery.start_soon(guest.join, stream)
    await listeners[0].aclose()
    return host, guest


def _bodies(session: Session) -> list[tuple[int, int, list[Any]]]:
    from p2pgenius.protocol.messages import open_envelope

    found = []
    for author, seq, raw in session.chain.archive:
        found.append((author, seq, list(open_envelope(raw, session.keys).body)))
    return found
