"""The session's shared state and its plumbing: the message chain, sending, recording, stopping.

The concerns of a match live in their own modules, each a part of :class:`Session` built on this
base (setup: terms and the coin flip; core: stages; blindness; ending: hashes, the audit,
forfeits). The base declares the few steps one concern asks of another; ``Session`` provides them.
"""

from __future__ import annotations

import secrets as random_source
from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.base import Game, Outcome
from p2pgenius.games.spec import GameSpec
from p2pgenius.protocol.bodies import Body
from p2pgenius.protocol.events import Event, Fault, FaultKind, Flush, Rejected
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import OLD_VERSION, VERSION, Envelope, open_envelope, seal
from p2pgenius.protocol.session.blinds import Blinds
from p2pgenius.protocol.session.cards import HiddenCards
from p2pgenius.protocol.session.chain import Archived, Chain
from p2pgenius.protocol.session.faults import CheatError, SessionError
from p2pgenius.protocol.session.ledger import TimeLedger
from p2pgenius.protocol.session.match import Match
from p2pgenius.protocol.session.phase import Phase, PhaseError, advance
from p2pgenius.protocol.session.stage import Stage
from p2pgenius.protocol.session.timing import ClockBook

SETUP: Final = -2
"""The stage number of a timeout claim or forfeit before the seats are dealt (the coin flip), whose
"seat" field then names a peer: there are no seats yet."""


class SessionBase:
    """One peer's (or an observer's) view of a match: the state every concern shares."""

    def __init__(
        self,
        *,
        keys: list[bytes],
        me: int | None,
        identity: Identity | None = None,
        names: list[str] | None = None,
        randomness: Callable[[int], bytes] = random_source.token_bytes,
        expected: Mapping[str, Any] | None = None,
        coin: bytes | None = None,
        version: int = VERSION,
    ) -> None:
        if (me is None) != (identity is None):
            raise LocalMisuseError("a player session needs both its peer index and identity")
        if me is not None and identity is not None and keys[me] != identity.public:
            raise LocalMisuseError("the identity does not match this peer's key")
        if version not in (OLD_VERSION, VERSION) or (version != VERSION and me is not None):
            raise LocalMisuseError(f"match messages of version {version} can only be read")
        self.version = version  # of the match messages: 2 only to read an old transcript
        self.keys = list(keys)
        self.randomness = randomness  # the only entropy: nonces and coin shares (injectable)
        self.me = me
        self.identity = identity
        self.names = names or [f"peer {i}" for i in range(len(keys))]
        self.expected = expected  # what the lobby agreed: "game", "options", "claim" (ours)
        self.flushing = Flush()
        self.events: list[Event] = []
        self.chain = Chain(len(keys), binding=version >= VERSION)
        self.backlog: list[Envelope] = []  # messages for stages not reached yet
        self._replay: list[bytes] | None = None  # our own recorded messages, while restoring
        # match set-up
        self.terms: dict[str, Any] | None = None
        self.match_id = b""
        self.accepted: set[int] = set()
        self.coin_reveals: dict[int, bytes] = {}
        self.my_coin = coin  # our coin share (a joiner's: committed in its ready, in the lobby)
        # play
        self.game: Game[Any, Any] | None = None
        self.spec: GameSpec | None = None
        self.stage: Stage | None = None
        self.hashes: dict[int, dict[int, bytes]] = {}  # stage -> author -> hash
        self.my_hashes: dict[int, bytes] = {}
        self.my_secrets: dict[tuple[int, int], tuple[Plain, bytes]] = {}  # (stage, seat) -> ...
        self.commit_log: dict[tuple[int, int], bytes] = {}  # every commitment: (stage, seat)
        self.match: Match | None = None  # from the deal on: the game, seats, state, hidden cards
        self.clockbook = ClockBook()
        self.blinds = Blinds()  # what blindness leaves pending: withheld, or seen through claims
        self.audits: dict[int, list[Any]] = {}
        self.ends: dict[int, Envelope] = {}  # peer -> its signed word of the result (``end``)
        self.defer_audit = False  # a driver with an event loop judges the audit off it (AuditDue)
        self.audit_due = False
        self.time = TimeLedger()  # declared times, observations, claims, disputes, held forfeits
        self.outcome: Outcome | None = None
        self.fault: Fault | None = None
        self.phase = Phase.TERMS

    def _enter(self, phase: Phase) -> None:
        """Move the match to ``phase`` (only along the transitions phase.py allows)."""
        self.phase = advance(self.phase, phase)

    @property
    def finished(self) -> bool:
        """The match is over and every check passed."""
        return self.phase is Phase.OVER

    @property
    def spent(self) -> dict[tuple[int, str, int], int]:
        """Time charged so far: (seat, clock kind, clock key) -> ms."""
        return self.clockbook.spent

    @property
    def round_key(self) -> int:
        """The stage at which the current round began (the key of the round clocks)."""
        return self.clockbook.round_key

    @property
    def behind(self) -> list[Stage]:
        """The stages this peer saw only through blindness claims (none: it sees the field)."""
        return self.blinds.behind

    @property
    def m(self) -> Match:
        """The match, once the seats are dealt (asking before is a bug in the session)."""
        if self.match is None:
            raise PhaseError("no match yet: the seats are not dealt")
        return self.match

    @property
    def owner(self) -> tuple[int, ...]:
        """The peer holding each seat (empty before the deal)."""
        return self.match.owner if self.match is not None else ()

    @property
    def my_seats(self) -> tuple[int, ...]:
        """The seats this peer holds (none for an observer, or before the deal)."""
        return self.match.mine if self.match is not None else ()

    @property
    def state(self) -> Any:
        """The engine state (None before the deal)."""
        return self.match.state if self.match is not None else None

    @state.setter
    def state(self, state: Any) -> None:
        self.m.state = state

    @property
    def cards(self) -> HiddenCards:
        """The hidden cards played so far (none before the deal)."""
        return self.match.cards if self.match is not None else HiddenCards(0)

    @property
    def log(self) -> list[tuple[int, int, Plain]]:
        """(stage, seat, action) as applied here."""
        return self.match.log if self.match is not None else []

    def flush(self) -> Flush:
        """Take what must be persisted and sent since the last flush."""
        out, self.flushing = self.flushing, Flush()
        return out

    def take_events(self) -> list[Event]:
        """Take the events produced since the last call."""
        events, self.events = self.events, []
        return events

    def _send(self, msg: Body) -> None:
        assert self.me is not None and self.identity is not None
        if self._replay:
            # Restoring: this message was sent before the crash; take it from the transcript.
            raw = self._replay.pop(0)
            recorded = open_envelope(raw, self.keys, version=self.version)
            if recorded.kind != msg.kind:
                raise SessionError(
                    f"the transcript's next message of ours is {recorded.kind}, "
                    f"but the match now calls for {msg.kind}: it does not fit"
                )
            self._accept_chain(recorded)
            self._dispatch(recorded)
            return
        body = msg.to_body()
        seq, heads = self.chain.next_seq[self.me], self.chain.heads()
        raw = seal(self.identity, self.match_id, self.me, seq, heads, body)
        envelope = Envelope(self.match_id, self.me, seq, tuple(heads), tuple(body), raw, msg)
        self._accept_chain(envelope)
        self.flushing.records.append(encode(["msg", raw]))
        self.flushing.messages.append(raw)
        self._dispatch(envelope)

    def _secret(self, record: list[Plain]) -> None:
        if self._replay is None:  # while restoring, the secrets are already on disk
            self.flushing.secrets.append(encode(record))

    @property
    def next_seq(self) -> list[int]:
        """The number of the next message expected from each author."""
        return self.chain.next_seq

    @property
    def last_hash(self) -> list[bytes]:
        """The hash each author's next message must name as its predecessor."""
        return self.chain.last_hash

    @property
    def archive(self) -> list[Archived]:
        """Every message accepted, in order: (author, number, bytes)."""
        return self.chain.archive

    def _accept_chain(self, env: Envelope) -> None:
        self.chain.accept(env)

    def _reject(self, raw: bytes, author: int | None, reason: str) -> None:
        if self._replay is None:
            self.flushing.records.append(encode(["rejected", raw, reason]))
        self.events.append(Rejected(author, reason))

    def _cheat(self, exc: CheatError) -> None:
        self._stop(
            Fault(
                FaultKind.CHEAT, exc.peer, self.stage.number if self.stage else -1, exc.reason, exc.evidence
            )
        )

    def _stop(self, fault: Fault) -> None:
        if self.fault is None:
            self.fault = fault
            self._enter(Phase.FAULT)
            if self._replay is not None:  # restoring: the record is already on disk
                self.events.append(fault)
                return
            self.flushing.records.append(
                encode(["fault", fault.kind, fault.peer, fault.stage, fault.reason, dict(fault.evidence)])
            )
            self.events.append(fault)

    # -- steps one concern asks of another (Session provides them) ------------------------------

    def _dispatch(self, env: Envelope) -> None:
        raise NotImplementedError

    def _guarded(self, env: Envelope) -> None:
        raise NotImplementedError

    def _open_stage(self, number: int, carry: Stage | None = None) -> None:
        raise NotImplementedError

    def _hold(self, env: Envelope) -> None:
        raise NotImplementedError

    def _after_stage(self, stage: Stage) -> None:
        raise NotImplementedError

    def _apply_actions(self, stage: Stage, actions: list[tuple[int, Plain]]) -> list[Plain]:
        raise NotImplementedError

    def _closed(self, stage: Stage) -> bool:
        raise NotImplementedError

    def _sealed(self) -> bool:
        raise NotImplementedError

    def _start_clocks(self, stage: Stage) -> None:
        raise NotImplementedError

    def _check_opening(
        self, env: Envelope, number: int, seat: int, action: Plain, nonce: bytes, committed: bytes
    ) -> None:
        raise NotImplementedError

    def owed(self) -> tuple[int, ...]:
        raise NotImplementedError

    def unrevealed(self) -> tuple[int, ...]:
        raise NotImplementedError

    def _check_card(self, env: Envelope, number: int, seat: int, action: Plain) -> None:
        raise NotImplementedError
