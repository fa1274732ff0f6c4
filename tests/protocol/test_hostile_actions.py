"""One signed action with any value in any field never stops the honest peer: through real
sessions, a hostile peer's own Session signs whatever action it likes (as a public ``act``, or
committed and then opened) and the honest session refuses it or convicts its sender; ``verify`` of
the honest transcript finds the same, and a resumed honest peer too. Every game in the table,
the tests' ``rps`` included; the duel also with its wizards blind, both ways.

The hostile messages are made through the attacker's own Session (its ``_send``, the path every
message it signs takes), never by building envelopes by hand: they stay the bodies of
p2pgenius/protocol/bodies.py, whatever the envelope around them becomes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.bots import Bot
from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.canonical import Plain, decode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games import catalog
from p2pgenius.games.registry import get_spec
from p2pgenius.inmemory import MemoryTable, randomness, transcript
from p2pgenius.protocol.bodies import Act, Body, Commit, Reveal
from p2pgenius.protocol.events import Event, Fault, Rejected
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import Envelope, commitment
from p2pgenius.protocol.session import Session, start_table
from p2pgenius.protocol.transcript import records, verify
from tests.any_action import changed, hostile_actions, parts, trees
from tests.games.rps import ENTRY

from .test_blindness import P0, P1, Script

GAMES: Final = (*catalog.names(), ENTRY.name)
HONEST: Final = 0
ATTACKER: Final = 1
SEED: Final = 5
BLIND_STAGES: Final = (5, 6, 7)
"""The stages of p1's blind turns when p0 plays P0 and p1 plays P1 (tests/protocol/test_blindness.py)."""


pytestmark = pytest.mark.usefixtures("rps_in_the_table")


class Liar(Session):
    """A session whose blindness claims go through ``lie`` before it signs them."""

    lie: Callable[[dict[str, Plain]], Plain] | None = None

    def _dispatch(self, env: Envelope) -> None:
        super()._dispatch(env)
        if self.play is not None and "claim" not in vars(self.play.sight):
            honest = self.play.sight.claim

            def claim(seat: int) -> dict[str, Plain]:
                lie, self.lie = self.lie, None  # (the first claim only)
                return honest(seat) if lie is None else dict(lie(honest(seat)))

            self.play.sight.claim = claim  # type: ignore[method-assign]


@dataclass
class Duet:
    """An honest peer (0, the host) and an attacker (1), wired back to back in memory, with bots."""

    game: str
    table: MemoryTable
    inboxes: list[list[bytes]]
    driver: BotDriver

    @classmethod
    def start(cls, game: str, *, bots: Sequence[Bot] | None = None, honest_seats: Sequence[int] = ()) -> Duet:
        identities = [Identity.from_seed(bytes([SEED, peer]) * 16) for peer in range(2)]
        keys = [identity.public for identity in identities]
        sessions = [
            kind(keys=keys, me=peer, identity=identities[peer], randomness=randomness(SEED, peer))
            for peer, kind in enumerate((Session, Liar))
        ]
        spec = get_spec(game)
        start_table(
            sessions, game, options=dict(spec.demo_options), setup={}, salt=bytes(32), seats=honest_seats
        )
        duet = cls(
            game,
            MemoryTable(sessions, identities, [[], []], [[], []], [[], []]),
            [[], []],
            BotDriver("random", SEED, bots=bots),
        )
        duet.pump(HONEST)
        return duet

    @property
    def honest(self) -> Session:
        return self.table.sessions[HONEST]

    @property
    def attacker(self) -> Session:
        return self.table.sessions[ATTACKER]

    def pump(self, peer: int) -> None:
        """Take what ``peer`` flushed: its records, and its messages into the other's inbox."""
        session = self.table.sessions[peer]
        out = session.flush()
        self.table.transcripts[peer] += out.records
        self.table.secrets[peer] += out.secrets
        self.inboxes[1 - peer] += out.messages
        self.table.events[peer] += session.take_events()

    def deliver(self, peer: int) -> list[Event]:
        """Every message waiting for ``peer``, received; the events they caused."""
        events: list[Event] = []
        while self.inboxes[peer]:
            events += self.table.sessions[peer].receive(self.inboxes[peer].pop(0))
            self.pump(peer)
        self.table.events[peer] += events
        return events

    def decide(self, peer: int, seats: Sequence[int] | None = None) -> bool:
        """``peer``'s bots decide for its seats that must (or ``seats``); whether any did."""
        session = self.table.sessions[peer]
        todo = session.awaiting() if seats is None else seats
        for seat in todo:
            if seat not in session.awaiting():
                continue
            action = self.driver.choose(self.game, session.state, seat)
            if action is None:
                session.decline(seat)
            else:
                session.submit(seat, plain(action))
            if seat in session.unsettled():  # (no clocks here: the minute is up at once)
                session.choices.finalize(seat)
            self.pump(peer)
        return bool(todo)

    def until_attacker_decides(self, nth: int, stages: Sequence[int] = ()) -> bool:
        """Play until the attacker is asked for its ``nth`` decision (from 0; only decisions at
        ``stages`` count, when given); False if the match ends first."""
        asked = 0
        for _ in range(400):
            while any(self.inboxes):
                self.deliver(HONEST)
                self.deliver(ATTACKER)
            stage = self.attacker.stage
            if self.attacker.awaiting() and stage is not None:
                if (not stages or stage.number in stages) and asked == nth:
                    return True
                asked += not stages or stage.number in stages
                self.decide(ATTACKER)
            elif not self.decide(HONEST):
                return False
        return False

    def honest_goes_on(self) -> list[Event]:
        """The honest peer reads what came and plays its own seats, alone, as far as it can."""
        events: list[Event] = []
        for _ in range(50):
            events += self.deliver(HONEST)
            before = len(self.table.events[HONEST])
            if not self.decide(HONEST) and not self.inboxes[HONEST]:
                break
            events += self.table.events[HONEST][before:]
        return events

    def send(self, body: Body) -> None:
        """The attacker signs ``body`` through its own session, and it goes to the honest peer.
        (The attacker's own session may object to what it sent: it is not the one under test.)"""
        with contextlib.suppress(P2PGeniusError):
            self.attacker.courier.send(body)
        self.pump(ATTACKER)


def hostile_decision(duet: Duet, seat: int, action: Plain, committed: bool) -> list[Event]:
    """The attacker's ``seat`` decides ``action`` at the stage it is asked at: as an ``act``, or
    committed (then opened at once in a sealed game, and once the honest peer has applied the
    stage where hidden choices are opened later). The honest peer's events from then on."""
    attacker = duet.attacker
    assert attacker.stage is not None
    number = attacker.stage.number
    others = [s for s in attacker.awaiting() if s != seat]
    duet.decide(ATTACKER, others)  # (the attacker's other seats choose as usual, first)
    if not committed:
        duet.send(Act(number, seat, action, 0))  # (any value: that is the point)
        return duet.honest_goes_on()
    nonce = bytes([7]) * 32
    attacker.courier.secrets[(number, seat)] = (action, nonce)  # (what its own session would open)
    duet.send(Commit(number, seat, commitment(attacker.match_id, number, seat, nonce, action), 0))
    stage = attacker.stage
    if (
        attacker.played.match.spec.sealed
        and stage is not None
        and stage.number == number
        and seat not in stage.reveals
    ):
        duet.send(Reveal(number, seat, action, nonce))
    events = duet.honest_goes_on()
    if not attacker.played.match.spec.sealed and applied(duet, number, seat) and duet.honest.fault is None:
        duet.send(Reveal(number, seat, action, nonce))  # a late opening
        events += duet.honest_goes_on()
    return events


def applied(duet: Duet, number: int, seat: int) -> bool:
    """Whether the honest peer applied ``seat``'s choice of stage ``number``."""
    return any(n == number and s == seat for n, s, _ in duet.honest.log)


def refused(game: str, action: Plain) -> bool:
    """Whether ``game``'s parser refuses ``action``."""
    try:
        get_spec(game).engine.parse_action(action)
    except P2PGeniusError:
        return True
    return False


def assert_only_the_attacker_is_blamed(duet: Duet, events: list[Event], action: Plain) -> None:
    """What the honest peer made of the attacker's message: refusals of it and faults of its
    sender only; the same fault when ``verify`` reads its transcript, and when it resumes."""
    for event in events:
        if isinstance(event, Rejected):
            # (An envelope whose body is not even of its kind's shape, an action that is no map,
            # is refused before its author is judged: no author then.)
            assert event.author == ATTACKER or (event.author is None and not isinstance(action, dict)), event
    faults = [e for e in duet.table.events[HONEST] if isinstance(e, Fault)]
    assert all(f.peer == ATTACKER for f in faults), faults
    assert duet.honest.fault is None or duet.honest.fault.peer == ATTACKER
    data = transcript(duet.table, HONEST)
    report = verify(data)
    if duet.honest.fault is None:
        assert report.fault is None, report.summary
    else:
        assert report.fault is not None, report.summary
        assert (report.fault.kind, report.fault.peer) == (duet.honest.fault.kind, ATTACKER)
    resumed = Session.restore(
        identity=duet.table.identities[HONEST],
        transcript=list(records(data)),
        secrets=[decode(secret) for secret in duet.table.secrets[HONEST]],
    )
    assert (resumed.fault is None) == (duet.honest.fault is None)
    if resumed.fault is not None and duet.honest.fault is not None:
        assert (resumed.fault.kind, resumed.fault.peer) == (duet.honest.fault.kind, ATTACKER)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_action_a_peer_signs_is_refused_or_convicts_it(game: str, data: st.DataObject) -> None:
    duet = Duet.start(game)
    assert duet.until_attacker_decides(data.draw(st.integers(0, 3), label="decision"))
    seat = data.draw(st.sampled_from(duet.attacker.awaiting()), label="seat")
    action = data.draw(hostile_actions(game), label="action")
    # Committed where a choice may be (every choice, in a sealed game); an act anywhere else.
    spec = duet.attacker.played.match.spec
    committed = spec.sealed or (spec.committing(duet.attacker.state) and data.draw(st.booleans()))
    events = hostile_decision(duet, seat, action, committed)
    if refused(game, action):  # (nothing blind here: a malformed action is never made legal)
        assert any(isinstance(e, Rejected | Fault) for e in events), "the honest peer took it"
    assert_only_the_attacker_is_blamed(duet, events, action)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_action_of_a_blind_wizard_is_made_legal_or_convicts_it(data: st.DataObject) -> None:
    # p1 (the attacker) is blind: the honest, sighted peer makes its choices legal, its way.
    duet = Duet.start("duel", bots=[Script(P0), Script(P1)], honest_seats=[0])
    assert duet.until_attacker_decides(data.draw(st.integers(0, 2), label="decision"), BLIND_STAGES)
    action = data.draw(hostile_actions("duel"), label="action")
    assert duet.attacker.stage is not None
    number = duet.attacker.stage.number
    events = hostile_decision(duet, 1, action, committed=True)
    # Made legal (the stage went on), or refused (an opening that is no map is no message).
    went_on = duet.honest.fault is not None or applied(duet, number, 1)
    assert went_on or any(isinstance(e, Rejected) for e in events), "the stage neither went on nor refused it"
    assert_only_the_attacker_is_blamed(duet, events, action)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_claim_a_sighted_peer_signs_is_refused_or_convicts_it(data: st.DataObject) -> None:
    # p1 (the honest peer) is blind and sees the field through the attacker's claims; the first
    # is changed at any part, to any value.
    duet = Duet.start("duel", bots=[Script(P0), Script(P1)], honest_seats=[1])
    where, value = data.draw(st.integers(min_value=0), label="where"), data.draw(trees(), label="value")
    liar = duet.attacker
    assert isinstance(liar, Liar)

    def lie(claim: dict[str, Plain]) -> Plain:
        every = list(parts(claim))[1:]  # (a claim that is no map is no blind message at all)
        return changed(claim, every[where % len(every)], lambda part: value)

    liar.lie = lie
    events: list[Event] = []
    for _ in range(100):
        while any(duet.inboxes):
            events += duet.deliver(HONEST)
            duet.deliver(ATTACKER)
        honest, attacker = duet.decide(HONEST), duet.decide(ATTACKER)
        if duet.honest.fault is not None or not (honest or attacker):
            break
    assert liar.lie is None, "no claim was made"
    assert_only_the_attacker_is_blamed(duet, events, {})


def test_a_choice_revealed_before_the_honest_one_convicts_its_sender_not_the_honest_decision() -> None:
    # The attacker commits and opens an illegal duel choice at once; the honest wizard, choosing
    # after it, completes the stage: the stage convicts the attacker, and the honest choice is
    # not refused (it was: the conviction escaped from submit as an error of its decision).
    duet = Duet.start("duel")
    assert duet.until_attacker_decides(0)
    action = {"type": "gestures", "left": "-", "right": "-", "spells": {"left": []}}
    events = hostile_decision(duet, duet.attacker.awaiting()[0], action, committed=True)
    assert duet.honest.fault is not None
    assert (duet.honest.fault.kind, duet.honest.fault.peer) == ("cheat", ATTACKER)
    assert "unknown spell []" in duet.honest.fault.reason
    assert_only_the_attacker_is_blamed(duet, events, action)
