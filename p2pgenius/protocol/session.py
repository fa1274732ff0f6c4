"""The match session, sans-IO: signed messages in, events and messages out (protocol/SPEC.md).

One :class:`Session` per peer drives the game engine in lockstep with the others. It never touches a
socket, a clock or a disk: the I/O layer feeds it messages (:meth:`receive`) and local decisions
(:meth:`submit`, :meth:`decline`, :meth:`chat`, :meth:`forfeit`), and after each call takes
:meth:`flush`, which says what to append to the transcript and the secrets file (first, durably)
and which messages to send to every other peer (after).

A match goes: terms (the host's proposal) and accepts; a commit-reveal coin flip that deals the
seat groups to the peers; then *stages*. A stage is one engine decision point: the seats the game
waits on each send one message (a public ``act``, or a ``commit`` to a hidden choice), plus, for
the Magic Square, a challenge or a ``decline`` from the seat that may challenge. Sealed choices
(every duel stage) are revealed once all commitments are in; Hornswoggle cards stay committed until
flipped or audited. When a stage is complete every peer applies it, in seat order, and sends the
hash of the public state. A blinded duellist's peer is sent signed claims instead of the opponent's
reveals, and checks every claim once the reveals come.

A :class:`Session` with no identity is an *observer*: fed a transcript's messages in order it
re-checks everything (``p2pgenius verify``).
"""

from __future__ import annotations

import hashlib
import secrets as random_source
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from p2pgenius.canonical import Plain, digest, encode
from p2pgenius.errors import IllegalActionError, LocalMisuseError, P2PGeniusError
from p2pgenius.games.base import Game, Outcome, state_hash
from p2pgenius.games.duel.actions import Gestures, Paralyze, Timeout
from p2pgenius.games.duel.engine import sanitize
from p2pgenius.games.hornswoggle.audit import audit, audit_outcome
from p2pgenius.games.hornswoggle.engine import HORNSWOGGLE
from p2pgenius.games.hornswoggle.state import perspective
from p2pgenius.games.registry import engine_fingerprint, get_game
from p2pgenius.protocol.clocks import Period, period
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import (
    NONCE_LEN,
    ZERO_HASH,
    Envelope,
    MessageError,
    coin_commitment,
    commitment,
    open_envelope,
    seal,
)

MATCH_DOMAIN: Final = b"p2pgenius/1 match"


def seat_groups(game: str, peers: int) -> list[list[int]]:
    """How the seats are grouped for the coin flip to deal one group to each peer."""
    if game != "hornswoggle":
        if peers != 2:
            raise LocalMisuseError(f"{game} is played by exactly two peers")
        return [[0], [1]]
    groups = {2: [[0, 2], [1, 3]], 3: [[0, 2], [1], [3]], 4: [[0], [1], [2], [3]]}
    if peers not in groups:
        raise LocalMisuseError("hornswoggle is played by 2 to 4 peers")
    return groups[peers]


class SessionError(P2PGeniusError):
    """The session cannot go on (the peer cheated, desynchronised, or forfeited)."""


# -- events ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatsDealt:
    """The coin flip is done: ``owner[seat]`` is the peer holding each seat."""

    owner: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class YourTurn:
    """The game waits on (or allows) these local seats to act at ``stage``."""

    stage: int
    seats: tuple[int, ...]
    optional: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Applied:
    """A stage was applied: the actions in order, and what the engine said happened."""

    stage: int
    actions: tuple[tuple[int, Plain], ...]
    events: tuple[Plain, ...]


@dataclass(frozen=True, slots=True)
class BlindClaim:
    """While a local seat is blinded: the signed claim of what it may know after ``stage``."""

    stage: int
    seat: int
    view: Mapping[str, Plain]


@dataclass(frozen=True, slots=True)
class TimeoutClaimed:
    """Peer ``author`` says ``seat`` ran out of time at ``stage``: ``observed_ms`` had passed on
    its machine. The seat's own peer accepts (sends its timeout) or disputes (sends its decision,
    declaring the time it measured); either way both messages stay in the transcript."""

    stage: int
    seat: int
    observed_ms: int
    author: int


@dataclass(frozen=True, slots=True)
class ClockView:
    """One seat's clock at the current stage: ``left_ms`` at the stage's start if it is running
    (the driver subtracts the time since), else what the seat's decision left on it."""

    kind: str
    key: int
    left_ms: int
    running: bool


@dataclass(frozen=True, slots=True)
class ChatReceived:
    """A chat line from a peer (signed, in the transcript, outside the game state)."""

    author: int
    text: str


@dataclass(frozen=True, slots=True)
class Rejected:
    """A peer's message was refused (recorded as evidence; the match goes on)."""

    author: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Fault:
    """The match is stopped: a peer cheated (``kind`` "cheat"), states diverged ("desync") or a
    peer stopped answering ("forfeit"). ``evidence`` names the messages that prove it."""

    kind: str
    peer: int | None
    stage: int
    reason: str
    evidence: Mapping[str, Plain]


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match is over and every check passed."""

    outcome: Mapping[str, Plain]


Event = (
    SeatsDealt
    | YourTurn
    | Applied
    | BlindClaim
    | TimeoutClaimed
    | ChatReceived
    | Rejected
    | Fault
    | MatchOver
)


@dataclass(slots=True)
class Flush:
    """What the I/O layer must do now: append ``records`` to the transcript and ``secrets`` to
    the secrets file (durably), *then* send ``messages`` to every other peer."""

    records: list[bytes] = field(default_factory=list)
    secrets: list[bytes] = field(default_factory=list)
    messages: list[bytes] = field(default_factory=list)


# -- the stage being played -----------------------------------------------------------------------


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
    opened_card: Plain | None = None  # a Hornswoggle flip: the card its owner opened
    claim: Mapping[str, Plain] | None = None  # a blind claim for this stage
    claim_author: int | None = None
    claim_seat: int | None = None
    clocks: dict[int, tuple[Period, int]] = field(default_factory=dict)  # seat -> clock, ms left
    ms: dict[int, int] = field(default_factory=dict)  # seat -> time its decision took (declared)
    finals: set[int] = field(default_factory=set)  # a duel without "fast": choices that stand


class Session:
    """One peer's (or an observer's) view of a match."""

    def __init__(
        self,
        *,
        keys: list[bytes],
        me: int | None,
        identity: Identity | None = None,
        names: list[str] | None = None,
        randomness: Callable[[int], bytes] = random_source.token_bytes,
        expected: Mapping[str, Any] | None = None,
    ) -> None:
        if (me is None) != (identity is None):
            raise LocalMisuseError("a player session needs both its peer index and identity")
        if me is not None and identity is not None and keys[me] != identity.public:
            raise LocalMisuseError("the identity does not match this peer's key")
        self.keys = list(keys)
        self.randomness = randomness  # the only entropy: nonces and coin shares (injectable)
        self.me = me
        self.identity = identity
        self.names = names or [f"peer {i}" for i in range(len(keys))]
        self.expected = expected  # what the lobby agreed: "game", "options", "claim" (ours)
        self.flushing = Flush()
        self.events: list[Event] = []
        # chains
        self.next_seq = [0] * len(keys)
        self.last_hash = [ZERO_HASH] * len(keys)
        self.seen: dict[tuple[int, int], bytes] = {}  # (author, seq) -> hash
        self.backlog: list[Envelope] = []  # messages for stages not reached yet
        self.archive: list[tuple[int, int, bytes]] = []  # every accepted (author, seq, message)
        self._replay: list[bytes] | None = None  # our own recorded messages, while restoring
        # match set-up
        self.terms: dict[str, Any] | None = None
        self.match_id = b""
        self.accepted: set[int] = set()
        self.coin_commits: dict[int, bytes] = {}
        self.coin_reveals: dict[int, bytes] = {}
        self.my_coin: bytes | None = None
        self.owner: tuple[int, ...] = ()
        self._mine: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        # play
        self.game: Game[Any, Any] | None = None
        self.state: Any = None
        self.stage: Stage | None = None
        self.hashes: dict[int, dict[int, bytes]] = {}  # stage -> author -> hash
        self.my_hashes: dict[int, bytes] = {}
        self.my_secrets: dict[tuple[int, int], tuple[Plain, bytes]] = {}  # (stage, seat) -> ...
        self.commit_log: dict[tuple[int, int], bytes] = {}  # every commitment: (stage, seat)
        self.pile_refs: list[list[tuple[int, int]]] = [[], [], [], []]  # hornswoggle pile cards
        self.unopened: set[tuple[int, int]] = set()
        self.opened: dict[tuple[int, int], Plain] = {}  # hidden cards opened so far
        self.log: list[tuple[int, int, Plain]] = []  # (stage, seat, action) as applied here
        self.spent: dict[tuple[int, str, int], int] = {}  # (seat, clock kind, key) -> ms charged
        self.round_key = 0  # the Magic Square: the stage at which the current round began
        self.behind: list[Stage] = []  # stages seen only through blind claims
        self.withheld: dict[int, list[list[Plain]]] = {}  # my reveals kept from a blind peer
        self.blind_during: dict[int, set[int]] = {}  # stage -> the seats it was withheld from
        self.audits: dict[int, list[Any]] = {}
        self.outcome: Outcome | None = None
        self.finished = False
        self.fault: Fault | None = None

    # -- output ----------------------------------------------------------------------------------

    def flush(self) -> Flush:
        """Take what must be persisted and sent since the last flush."""
        out, self.flushing = self.flushing, Flush()
        return out

    def take_events(self) -> list[Event]:
        """Take the events produced since the last call."""
        events, self.events = self.events, []
        return events

    def _send(self, body: list[Plain]) -> None:
        assert self.me is not None and self.identity is not None
        if self._replay:
            # Restoring: this message was sent before the crash; take it from the transcript.
            raw = self._replay.pop(0)
            recorded = open_envelope(raw, self.keys)
            if recorded.kind != body[0]:
                raise SessionError(
                    f"the transcript's next message of ours is {recorded.kind}, "
                    f"but the match now calls for {body[0]}: it does not fit"
                )
            self._accept_chain(recorded)
            self._dispatch(recorded)
            return
        raw = seal(
            self.identity, self.match_id, self.me, self.next_seq[self.me], self.last_hash[self.me], body
        )
        envelope = Envelope(
            self.match_id, self.me, self.next_seq[self.me], self.last_hash[self.me], tuple(body), raw
        )
        self._accept_chain(envelope)
        self.flushing.records.append(encode(["msg", raw]))
        self.flushing.messages.append(raw)
        self._dispatch(envelope)

    def _secret(self, record: list[Plain]) -> None:
        if self._replay is None:  # while restoring, the secrets are already on disk
            self.flushing.secrets.append(encode(record))

    # -- resuming ----------------------------------------------------------------------------------

    @classmethod
    def restore(
        cls,
        *,
        identity: Identity,
        transcript: list[list[Any]],
        secrets: list[list[Any]],
        randomness: Callable[[int], bytes] = random_source.token_bytes,
    ) -> Session:
        """Rebuild a session after a crash from its transcript and secrets records (decoded,
        header first): every message is replayed; our own are taken as recorded, not re-made."""
        meta = transcript[0][2]
        keys, me = meta["peers"], meta["me"]
        session = cls(keys=keys, me=me, identity=identity, randomness=randomness)
        candidates: dict[tuple[int, int], list[tuple[Plain, bytes]]] = {}
        for record in secrets:
            if record[0] == "coin":
                session.my_coin = record[1]
            elif record[0] == "secret":
                _, number, seat, action, nonce = record
                session.my_secrets[(number, seat)] = (action, nonce)
                candidates.setdefault((number, seat), []).append((action, nonce))
        messages = [r[1] for r in transcript[1:] if r[0] == "msg"]
        session._replay = [raw for raw in messages if open_envelope(raw, keys).author == me]
        for raw in messages:
            if open_envelope(raw, keys).author != me:
                session.receive(raw)
            elif session._replay and session._replay[0] == raw:
                # One of our own decisions (a move, a chat): the match did not make it for us.
                session._replay.pop(0)
                env = open_envelope(raw, keys)
                session._accept_chain(env)
                session._dispatch(env)
        if session._replay:
            raise SessionError(
                f"{len(session._replay)} of our recorded messages do not fit the "
                "match: the transcript is damaged"
            )
        session._replay = None
        # A duel choice replaced just before a crash: its secret reached the disk, its commitment
        # maybe not. Keep the secret that opens the commitment on record.
        for ref, options in candidates.items():
            committed = session.commit_log.get(ref)
            for action, nonce in options:
                if committed == commitment(session.match_id, ref[0], ref[1], nonce, action):
                    session.my_secrets[ref] = (action, nonce)
        session.take_events()
        return session

    def missing_for(self, next_seq: Sequence[int]) -> list[bytes]:
        """Every message we hold that a peer reporting ``next_seq`` (per author) has not seen,
        in the order we accepted them: what to send it when it reconnects."""
        return [
            raw for author, seq, raw in self.archive if author < len(next_seq) and seq >= next_seq[author]
        ]

    # -- starting ----------------------------------------------------------------------------------

    def propose(
        self,
        game: str,
        *,
        options: Mapping[str, Any],
        setup: Mapping[str, Any],
        salt: bytes | None = None,
        seats: Sequence[int] = (),
        claims: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """The host (peer 0) proposes the match terms. ``claims[p]``: seats peer ``p`` claims
        (its group is the one holding them) instead of leaving it to the coin; ``seats`` is the
        host's own claim, for short."""
        if self.me != 0:
            raise LocalMisuseError("only the host (peer 0) proposes the terms")
        engine = get_game(game)
        engine.initial(setup, options)  # refuse bad terms before anyone sees them
        wanted = [sorted(c) for c in claims] if claims is not None else [[] for _ in self.keys]
        if seats:
            wanted[0] = sorted(seats)
        problem = claims_problem(seat_groups(game, len(self.keys)), wanted)
        if problem:
            raise LocalMisuseError(problem)
        terms = {
            "game": game,
            "options": dict(options),
            "setup": dict(setup),
            "engine": engine_fingerprint(game),
            "peers": list(self.keys),
            "names": self.names,
            "groups": seat_groups(game, len(self.keys)),
            "claims": wanted,
            "salt": salt if salt is not None else self.randomness(NONCE_LEN),
        }
        self.match_id = hashlib.sha256(MATCH_DOMAIN + encode(terms)).digest()
        self._send(["terms", terms])

    def _on_terms(self, env: Envelope) -> None:
        terms = env.body[1]
        if env.author != 0 or self.terms is not None:
            raise MessageError("terms come once, from the host")
        if hashlib.sha256(MATCH_DOMAIN + encode(terms)).digest() != env.match_id:
            raise MessageError("the match id is not the hash of the terms")
        if terms.get("peers") != self.keys:
            raise MessageError("the terms list other peers than the ones connected")
        game = terms.get("game")
        if not (
            isinstance(game, str)
            and isinstance(terms.get("options", {}), dict)
            and isinstance(terms.get("setup", {}), dict)
        ):
            raise MessageError("malformed terms")
        try:
            engine = get_game(game)
            engine.initial(terms.get("setup", {}), terms.get("options", {}))
        except P2PGeniusError as exc:
            raise MessageError(f"unplayable terms: {exc}") from None
        if terms.get("engine") != engine_fingerprint(game):
            raise MessageError(
                f"the host runs a different {game} rules engine ({terms.get('engine')}; this "
                f"program has {engine_fingerprint(game)}): both must run the same version"
            )
        try:
            groups = seat_groups(game, len(self.keys))
        except LocalMisuseError as exc:
            raise MessageError(f"unplayable terms: {exc}") from None
        if terms.get("groups") != groups:
            raise MessageError("the seat groups are not the standard ones for this match")
        claims = terms.get("claims")
        if not (
            isinstance(claims, list)
            and len(claims) == len(self.keys)
            and all(isinstance(c, list) and all(type(s) is int for s in c) for c in claims)
        ):
            raise MessageError("malformed seat claims")
        problem = claims_problem(groups, claims)
        if problem:
            raise MessageError(f"impossible seat claims: {problem}")
        for key, wanted in sorted((self.expected or {}).items()):
            have = claims[self.me] if key == "claim" and self.me is not None else terms.get(key)
            if have != wanted:
                raise MessageError(f"the terms' {key} ({have}) differ from the lobby's ({wanted})")
        self.terms = terms
        self.match_id = env.match_id
        self.game = engine
        self.accepted.add(0)
        if self.me is not None and self.me != 0:
            self._send(["accept", self.match_id])

    def _on_accept(self, env: Envelope) -> None:
        if env.body[1] != self.match_id or env.author == 0 or env.author in self.accepted:
            raise MessageError("an accept must name these terms, once")
        self.accepted.add(env.author)
        if len(self.accepted) == len(self.keys) and self.me is not None:
            if self.my_coin is None:  # (a restored session has it from its secrets)
                self.my_coin = self.randomness(NONCE_LEN)
                self._secret(["coin", self.my_coin])
            self._send(["coin_commit", coin_commitment(self.match_id, self.me, self.my_coin)])

    def _on_coin_commit(self, env: Envelope) -> None:
        if len(self.accepted) != len(self.keys) or env.author in self.coin_commits:
            raise MessageError("a coin commitment out of place")
        self.coin_commits[env.author] = env.body[1]
        if len(self.coin_commits) == len(self.keys) and self.my_coin is not None:
            self._send(["coin_reveal", self.my_coin])

    def _on_coin_reveal(self, env: Envelope) -> None:
        nonce = env.body[1]
        if len(self.coin_commits) != len(self.keys) or env.author in self.coin_reveals:
            raise MessageError("a coin reveal out of place")
        if coin_commitment(self.match_id, env.author, nonce) != self.coin_commits[env.author]:
            raise CheatError(
                env.author, "opened its coin commitment to another value", {"message": env.hash.hex()}
            )
        self.coin_reveals[env.author] = nonce
        if len(self.coin_reveals) == len(self.keys):
            self._deal()

    def _deal(self) -> None:
        assert self.terms is not None and self.game is not None
        shared = encode([self.coin_reveals[a] for a in range(len(self.keys))])
        order = sorted(range(len(self.keys)), key=lambda a: hashlib.sha256(shared + bytes([a])).digest())
        groups = list(self.terms["groups"])
        claimed = {}  # peer -> the group its claim names; the coin deals the rest to the others
        for peer, claim in enumerate(self.terms["claims"]):
            group = _group_of(groups, claim)
            if group is not None:
                claimed[peer] = group
        order = sorted(claimed) + [a for a in order if a not in claimed]
        groups = [groups[claimed[p]] for p in sorted(claimed)] + [
            g for i, g in enumerate(groups) if i not in claimed.values()
        ]
        owner = [0] * sum(len(g) for g in groups)
        for peer, group in zip(order, groups, strict=True):
            for seat in group:
                owner[seat] = peer
        self.owner = tuple(owner)
        self.events.append(SeatsDealt(self.owner))
        state = self.game.initial(self.terms["setup"], self.terms["options"])
        if self.terms["game"] == "hornswoggle":
            state = perspective(state, self.my_seats)
        self.state = state
        self._open_stage(0)

    @property
    def my_seats(self) -> tuple[int, ...]:
        """The seats this peer holds (none for an observer)."""
        if self._mine[0] is not self.owner:  # worked out again only when the seats change
            self._mine = (self.owner, tuple(s for s, p in enumerate(self.owner) if p == self.me))
        return self._mine[1]

    # -- stages ------------------------------------------------------------------------------------

    def _open_stage(self, number: int, carry: Stage | None = None) -> None:
        """Start stage ``number`` from the current state (keeping what ``carry`` already got)."""
        assert self.game is not None
        outcome = self.game.outcome(self.state)
        if outcome is not None:
            self._game_over(outcome)
            return
        waiting = self.game.waiting_on(self.state)
        optional = tuple(s for s in self.game.to_act(self.state) if s not in waiting)
        stage = self.stage = Stage(number, waiting, optional)
        if carry is not None:
            stage.acts, stage.commits, stage.reveals = carry.acts, carry.commits, carry.reveals
            stage.declined, stage.ms, stage.finals = carry.declined, carry.ms, carry.finals
        self._start_clocks(stage)
        done = set(stage.acts) | set(stage.commits) | stage.declined
        mine = tuple(s for s in waiting if s in self.my_seats and s not in done)
        maybe = tuple(s for s in optional if s in self.my_seats and s not in done)
        if mine or maybe:
            self.events.append(YourTurn(number, mine + maybe, maybe))
        backlog, self.backlog = self.backlog, []
        for env in backlog:
            self._guarded(env)
        if carry is not None:
            self._progress()

    def _sealed(self) -> bool:
        assert self.terms is not None
        return bool(self.terms["game"] == "duel")

    def _fast(self) -> bool:
        """A sealed stage closes as soon as every commitment is in (the duel's "fast" option);
        otherwise choices may change until each seat's peer sends ``final``."""
        assert self.terms is not None
        return not self._sealed() or bool(self.terms["options"].get("fast", False))

    def _closed(self, stage: Stage) -> bool:
        """Every sealed choice of the stage is in and stands: time to reveal."""
        if not all(s in stage.commits for s in stage.waiting):
            return False
        return self._fast() or all(s in stage.finals for s in stage.waiting)

    # -- clocks (see protocol/clocks.py) ----------------------------------------------------------

    def _start_clocks(self, stage: Stage) -> None:
        assert self.terms is not None
        state = None if self.behind else self.state
        for seat in stage.waiting + stage.optional:
            clock = period(
                self.terms["game"], self.terms["options"], state, stage.number, seat, self.round_key
            )
            used = self.spent.get((seat, clock.kind, clock.key), 0)
            stage.clocks[seat] = (clock, max(clock.budget_ms - used, 0))

    def _check_declared(self, stage: Stage, seat: int, ms: int) -> None:
        """Refuse a decision declaring more time than its clock had (an honest peer sends its
        timeout instead)."""
        left = stage.clocks[seat][1] if seat in stage.clocks else 0
        if not 0 <= ms <= left:
            raise MessageError(f"p{seat}'s decision declares {ms} ms; its clock had {left} ms left")

    def _declared(self, stage: Stage, seat: int, ms: int) -> None:
        """Record the time a decision took, as its author declares it."""
        self._check_declared(stage, seat, ms)
        stage.ms[seat] = max(stage.ms.get(seat, 0), ms)

    def _charge(self, stage: Stage) -> None:
        for seat, ms in sorted(stage.ms.items()):
            clock = stage.clocks[seat][0]
            key = (seat, clock.kind, clock.key)
            self.spent[key] = self.spent.get(key, 0) + ms

    def clocks(self) -> dict[int, ClockView]:
        """Every seat's clock at the current stage (none between stages or after the end)."""
        stage = self.stage
        if stage is None or self.finished or self.fault is not None:
            return {}
        views = {}
        owed = self.owed()
        minute = self._sealed() and not self._fast()
        for seat, (clock, left) in sorted(stage.clocks.items()):
            if minute:
                running = seat not in stage.finals  # the whole minute runs, as the rules say
            else:
                running = seat in owed and seat not in stage.commits
            used = 0 if running else stage.ms.get(seat, 0)  # a running clock counts from the start
            views[seat] = ClockView(clock.kind, clock.key, left - used, running)
        return views

    def time_out(self, seat: int) -> None:
        """``seat``'s clock ran out on this (its own) peer: send what the rules make of it (the
        game's timeout action; letting an optional challenge pass; a sealed choice standing)."""
        stage = self._current()
        left = stage.clocks[seat][1] if seat in stage.clocks else 0
        if seat in stage.waiting:
            if seat not in stage.commits and seat not in stage.acts:
                self.submit(seat, {"type": "timeout"}, ms=left)
            if self.stage is stage and self._sealed() and not self._fast() and seat not in stage.finals:
                self.finalize(seat)
        elif seat in stage.optional and seat not in stage.declined and seat not in stage.acts:
            self.decline(seat, ms=left)

    def finalize(self, seat: int) -> None:
        """A duel without "fast": the minute is up on this peer; ``seat``'s last commitment
        stands and may be revealed once every seat's does."""
        stage = self._current()
        if seat not in self.my_seats or seat not in stage.commits or seat in stage.finals:
            raise LocalMisuseError(f"p{seat} has no commitment to let stand")
        self._send(["final", stage.number, seat])

    def claim_timeout(self, seat: int, observed_ms: int) -> None:
        """Say, signed, that another peer's ``seat`` ran out of time here: ``observed_ms`` passed
        on this machine since the stage began (lag allowance already waited out)."""
        stage = self._current()
        if seat in self.my_seats or seat not in self.owed():
            raise LocalMisuseError(f"p{seat} owes nothing to time out")
        self._send(["timeout", stage.number, seat, max(int(observed_ms), 0)])

    def submit(self, seat: int, action: Mapping[str, Plain], *, ms: int = 0) -> None:
        """A local decision for ``seat`` at the current stage, which took ``ms`` of its clock.
        Raises IllegalActionError or LocalMisuseError (nothing is sent) if it is not allowed. In
        a duel without "fast", a new choice replaces the last until :meth:`finalize`."""
        stage = self._current()
        if seat not in self.my_seats:
            raise LocalMisuseError(f"this peer does not hold seat p{seat}")
        if seat not in stage.waiting + stage.optional:
            raise LocalMisuseError(f"p{seat} has nothing to do now")
        changing = seat in stage.commits and not self._fast() and seat not in stage.finals
        if (seat in stage.acts or seat in stage.commits or seat in stage.declined) and not changing:
            raise LocalMisuseError(f"p{seat} has already acted this stage")
        left = stage.clocks[seat][1] if seat in stage.clocks else 0
        if not 0 <= ms <= left:
            raise LocalMisuseError(f"p{seat}'s clock has only {left} ms: time out instead")
        assert self.game is not None
        parsed = self.game.parse_action(action)
        if (
            self.terms is not None
            and self.terms["game"] == "hornswoggle"
            and parsed.to_plain() == {"type": "timeout"}
        ):
            # The owner resolves its own timeout, so a card it lays is committed like any other.
            parsed = HORNSWOGGLE.timeout_action(self.state, seat)
        if not self.behind:  # a blinded wizard cannot check against a field it cannot see
            self._check_legal(seat, parsed)
        plain = parsed.to_plain()
        if self._sealed() or _hidden_card(plain):
            nonce = self.randomness(NONCE_LEN)
            self._secret(["secret", stage.number, seat, plain, nonce])
            self.my_secrets[(stage.number, seat)] = (plain, nonce)
            committed = commitment(self.match_id, stage.number, seat, nonce, plain)
            self._send(["commit", stage.number, seat, committed, ms])
        else:
            self._send(["act", stage.number, seat, plain, ms])

    def awaiting(self) -> tuple[int, ...]:
        """The local seats that may still act in the current stage (drivers ask this rather than
        trusting an older YourTurn event)."""
        stage = self.stage
        if stage is None or self.finished or self.fault is not None:
            return ()
        done = set(stage.acts) | set(stage.commits) | stage.declined
        return tuple(s for s in stage.waiting + stage.optional if s in self.my_seats and s not in done)

    def unsettled(self) -> tuple[int, ...]:
        """The local seats whose choice may still change (a duel without "fast": committed but
        not final); the driver finalizes them when their minute is up."""
        stage = self.stage
        if stage is None or self.finished or self.fault is not None or self._fast():
            return ()
        return tuple(
            s for s in stage.waiting if s in self.my_seats and s in stage.commits and s not in stage.finals
        )

    def owed(self) -> tuple[int, ...]:
        """The seats the match is waiting on right now: a move, a commitment, a reveal, the
        opening of a flipped card, or (Hornswoggle, after the end) an audit."""
        stage = self.stage
        if self.finished or self.fault is not None:
            return ()
        if stage is None:
            if self.outcome is None or not self.owner:
                return ()
            return tuple(s for s, p in enumerate(self.owner) if p not in self.audits)
        owed = [s for s in stage.waiting if s not in stage.acts and s not in stage.commits]
        if self.terms is not None and not self._fast():
            owed += [s for s in stage.waiting if s in stage.commits and s not in stage.finals]
        if self.terms is not None and self._sealed():
            owed += [s for s in stage.waiting if s in stage.commits and s not in stage.reveals]
        pile = None if self.behind else self._flip_of(stage)
        if pile is not None and stage.opened_card is None:
            owed.append(pile)
        # The Magic Square's challenge window stays open until its seat challenges or declines.
        owed += [s for s in stage.optional if s not in stage.acts and s not in stage.declined]
        return tuple(sorted(set(owed)))

    def _check_legal(self, seat: int, action: Any) -> None:
        """Raise IllegalActionError unless ``seat`` may take ``action`` now."""
        assert self.game is not None
        if action.to_plain().get("type") == "flip":
            # The card is not known until its owner opens it: only the pile choice is checked.
            if action not in self.game.legal_actions(self.state, seat):
                raise IllegalActionError(f"p{seat} cannot flip pile {action.pile} now")
            return
        self.game.apply(self.state, seat, action)

    def decline(self, seat: int, *, ms: int = 0) -> None:
        """Let an optional action pass (the Magic Square: no challenge), after ``ms``."""
        stage = self._current()
        if seat not in stage.optional or seat not in self.my_seats:
            raise LocalMisuseError(f"p{seat} has no optional action to let pass")
        left = stage.clocks[seat][1] if seat in stage.clocks else 0
        self._send(["decline", stage.number, seat, min(max(ms, 0), left)])

    def chat(self, text: str) -> None:
        """Say something to the table."""
        if not text or len(text) > 500:
            raise LocalMisuseError("a chat line has 1 to 500 characters")
        self._send(["chat", text])

    def forfeit(self, seat: int, reason: str) -> None:
        """Record, signed, that ``seat``'s peer failed to answer or open in time: it loses."""
        if seat not in self.owed():
            raise LocalMisuseError(f"p{seat} owes nothing now")
        number = self.stage.number if self.stage is not None else -1
        self._send(["forfeit", number, seat, reason])

    def _current(self) -> Stage:
        if self.stage is None or self.finished or self.fault is not None:
            raise LocalMisuseError("the match is not at a stage where anyone can act")
        return self.stage

    # -- receiving ---------------------------------------------------------------------------------

    def receive(self, raw: bytes) -> list[Event]:
        """A message from a peer (or from a transcript). Returns the events it caused; a bad
        message is refused and recorded, and never raises."""
        try:
            env = open_envelope(raw, self.keys)
            if self.match_id and env.match_id != self.match_id:
                raise MessageError("a message from another match (replayed across matches)")
            if env.author == self.me:
                raise MessageError("a message claiming to be our own")
            self._accept_chain(env)
        except MessageError as exc:
            self._reject(raw, None, str(exc))
            return self.take_events()
        except CheatError as exc:  # equivocation: keep the second message, it is the proof
            if self._replay is None:
                self.flushing.records.append(encode(["rejected", raw, exc.reason]))
            self._cheat(exc)
            return self.take_events()
        if self._replay is None:
            self.flushing.records.append(encode(["msg", raw]))
        self._guarded(env)
        return self.take_events()

    def _guarded(self, env: Envelope) -> None:
        """Dispatch a peer's message; whatever is wrong with it is refused or convicted, and
        never escapes (a peer's content must not be able to crash us)."""
        try:
            self._dispatch(env)
        except MessageError as exc:
            self._reject(env.raw, env.author, str(exc))
        except CheatError as exc:
            self._cheat(exc)
        except (P2PGeniusError, LookupError, TypeError, ValueError, AttributeError) as exc:
            self._reject(env.raw, env.author, f"malformed content ({type(exc).__name__}: {exc})")

    def _accept_chain(self, env: Envelope) -> None:
        key = (env.author, env.seq)
        if key in self.seen:
            if self.seen[key] == env.hash:
                raise MessageError(f"peer {env.author}'s message {env.seq} again (replayed)")
            raise CheatError(
                env.author,
                f"sent two different messages numbered {env.seq} (equivocation)",
                {"first": self.seen[key].hex(), "second": env.hash.hex()},
            )
        if env.seq != self.next_seq[env.author] or env.prev != self.last_hash[env.author]:
            raise MessageError(
                f"peer {env.author}'s message {env.seq} is out of its chain "
                f"(expected {self.next_seq[env.author]})"
            )
        self.seen[key] = env.hash
        self.archive.append((env.author, env.seq, env.raw))
        self.next_seq[env.author] += 1
        self.last_hash[env.author] = env.hash

    def _reject(self, raw: bytes, author: int | None, reason: str) -> None:
        if self._replay is None:
            self.flushing.records.append(encode(["rejected", raw, reason]))
        self.events.append(Rejected(author, reason))

    def _cheat(self, exc: CheatError) -> None:
        self._stop(
            Fault("cheat", exc.peer, self.stage.number if self.stage else -1, exc.reason, exc.evidence)
        )

    def _stop(self, fault: Fault) -> None:
        if self.fault is None:
            self.fault = fault
            if self._replay is not None:  # restoring: the record is already on disk
                self.events.append(fault)
                return
            self.flushing.records.append(
                encode(["fault", fault.kind, fault.peer, fault.stage, fault.reason, dict(fault.evidence)])
            )
            self.events.append(fault)

    def _dispatch(self, env: Envelope) -> None:
        if self.fault is not None:
            if env.kind == "desync":
                self._on_desync(env)
            return
        kind = env.kind
        if kind == "terms":
            self._on_terms(env)
            return
        if self.terms is None:
            raise MessageError(f"a {kind} message before the terms")
        handler = {
            "accept": self._on_accept,
            "coin_commit": self._on_coin_commit,
            "coin_reveal": self._on_coin_reveal,
            "chat": self._on_chat,
            "hash": self._on_hash,
            "forfeit": self._on_forfeit,
            "desync": self._on_desync,
            "audit": self._on_audit,
        }.get(kind)
        if handler is not None:
            handler(env)
            return
        self._on_stage_message(env)

    def _on_chat(self, env: Envelope) -> None:
        if env.author != self.me:
            self.events.append(ChatReceived(env.author, str(env.body[1])))

    def _on_desync(self, env: Envelope) -> None:
        """A peer found our hashes differ and sent the state it computed: keep it as evidence."""
        if env.author != self.me:
            _, number, state = env.body
            self.flushing.records.append(encode(["desync_state", env.author, number, state]))

    def _on_forfeit(self, env: Envelope) -> None:
        _, stage, seat, reason = env.body
        if not 0 <= seat < len(self.owner) or self.owner[seat] == env.author:
            raise MessageError("a forfeit must name another peer's seat")
        current = self.stage.number if self.stage is not None else -1
        if stage != current or seat not in self.owed():
            raise MessageError(f"a forfeit of p{seat}, which owes nothing now (stage {stage})")
        self._stop(
            Fault(
                "forfeit",
                self.owner[seat],
                stage,
                f"p{seat} forfeits: {reason}",
                {"claim": env.hash.hex(), "claimed_by": env.author},
            )
        )

    # -- stage messages ----------------------------------------------------------------------------

    def _on_stage_message(self, env: Envelope) -> None:
        body = env.body
        kind, number, seat = body[0], body[1], body[2]
        if self.stage is None:
            raise MessageError(f"a {kind} message before the seats are dealt")
        if kind == "reveal" and number < self.stage.number:
            self._on_late_reveal(env)
            return
        if kind == "timeout":
            self._on_timeout_claim(env)
            return
        if number > self.stage.number:
            self.backlog.append(env)
            return
        if number < self.stage.number:
            raise MessageError(f"a {kind} message for stage {number}, already played")
        if not 0 <= seat < len(self.owner):
            raise MessageError(f"no seat p{seat}")
        if kind == "blind":
            if env.author != self.me:  # our own claims are only records
                self._on_blind(env, seat, body[3])
            return
        if self.owner[seat] != env.author:
            raise MessageError(f"peer {env.author} does not hold seat p{seat}")
        stage = self.stage
        if kind == "act":
            self._check_declared(stage, seat, body[4])
            self._on_act(stage, env, seat, body[3])
            self._declared(stage, seat, body[4])
            if self._flip_of(stage) is not None and self._holds_pile(stage):
                self._open_card(stage)  # its dispatch moves the stage on
                return
        elif kind == "commit":
            if not (self._sealed() or self._card_phase()):
                raise MessageError("nothing is committed at this point of this game")
            changing = seat in stage.commits and not self._fast() and seat not in stage.finals
            if seat not in stage.waiting or (seat in stage.commits and not changing) or seat in stage.acts:
                raise MessageError(f"an unexpected commitment for p{seat}")
            self._declared(stage, seat, body[4])
            stage.commits[seat] = body[3]
            self.commit_log[(number, seat)] = body[3]
        elif kind == "final":
            if self._fast() or seat not in stage.commits or seat in stage.finals:
                raise MessageError(f"an unexpected final for p{seat}")
            stage.finals.add(seat)
        elif kind == "reveal":
            if env.author == self.me and stage.reveals.get(seat) == body[3]:
                return  # our own gestures, released after a blindness: a record only
            if seat in stage.reveals or seat not in stage.commits:
                raise MessageError(f"an unexpected reveal for p{seat}")
            self._check_opening(env, number, seat, body[3], body[4], stage.commits[seat])
            stage.reveals[seat] = body[3]
        else:  # decline
            if seat not in stage.optional or seat in stage.declined or seat in stage.acts:
                raise MessageError(f"p{seat} has nothing to decline")
            self._declared(stage, seat, body[3])
            stage.declined.add(seat)
        self._progress()

    def _on_act(self, stage: Stage, env: Envelope, seat: int, action: Plain) -> None:
        if seat in stage.acts or seat in stage.commits or seat in stage.declined:
            raise MessageError(f"p{seat} acted twice in stage {stage.number}")
        if seat not in stage.waiting + stage.optional:
            raise MessageError(f"p{seat} has nothing to do in stage {stage.number}")
        if self._sealed() or _hidden_card(action):
            raise MessageError(f"p{seat} must commit to this action, not show it")
        assert self.game is not None
        try:
            parsed = self.game.parse_action(action)
            if seat in stage.optional and parsed.to_plain() != {"type": "challenge"}:
                raise IllegalActionError("only a challenge is allowed here")
            self._check_legal(seat, parsed)
        except IllegalActionError as exc:
            raise CheatError(
                env.author, f"an illegal action for p{seat}: {exc}", {"message": env.hash.hex()}
            ) from None
        stage.acts[seat] = parsed.to_plain()

    def _on_timeout_claim(self, env: Envelope) -> None:
        _, number, seat, observed = env.body
        if not 0 <= seat < len(self.owner) or self.owner[seat] == env.author or observed < 0:
            raise MessageError("a timeout claim must name another peer's seat and a time")
        # A claim about a stage already played crossed the decision on the wire: it stays in the
        # transcript (a dispute, if the decision declared much less) and changes nothing.
        if env.author != self.me:
            self.events.append(TimeoutClaimed(number, seat, observed, env.author))

    # Hornswoggle: a flip is opened by the pile's owner, from the commitment that laid the card.

    def _flip_of(self, stage: Stage) -> int | None:
        for act in stage.acts.values():
            if isinstance(act, dict) and act.get("type") == "flip":
                pile = act.get("pile")
                return pile if isinstance(pile, int) else None
        return None

    def _holds_pile(self, stage: Stage) -> bool:
        pile = self._flip_of(stage)
        return pile is not None and self.me is not None and self.owner[pile] == self.me

    def _top_card(self, pile: int) -> tuple[int, int]:
        flipped = sum(1 for card in self.state.pirates[pile].pile if card.flipped)
        return self.pile_refs[pile][-1 - flipped]

    def _open_card(self, stage: Stage) -> None:
        pile = self._flip_of(stage)
        assert pile is not None
        ref = self._top_card(pile)
        action, nonce = self.my_secrets[ref]
        self._send(["reveal", ref[0], ref[1], action, nonce])

    def _on_late_reveal(self, env: Envelope) -> None:
        if env.author == self.me and (self.stage is None or self._flip_of(self.stage) is None):
            return  # our own gestures, kept from a blinded peer until now: a record only
        _, number, seat, action, nonce = env.body
        if not 0 <= seat < len(self.owner) or self.owner[seat] != env.author:
            raise MessageError(f"peer {env.author} does not hold seat p{seat}")
        committed = self.commit_log.get((number, seat))
        if committed is None:
            raise MessageError(f"no commitment of p{seat} at stage {number} to open")
        self._check_opening(env, number, seat, action, nonce, committed)
        for behind in self.behind:
            if behind.number == number and seat in behind.commits:
                if seat in behind.reveals:
                    raise MessageError(f"p{seat}'s stage {number} is already open")
                behind.reveals[seat] = action
                self._catch_up()
                return
        stage = self.stage
        pile = None if stage is None or self.behind else self._flip_of(stage)
        if stage is None or pile is None or stage.opened_card is not None:
            raise MessageError(f"nothing waits for p{seat}'s stage-{number} opening")
        if self._top_card(pile) != (number, seat):
            raise CheatError(
                env.author,
                "opened another card than the one on top of the flipped pile",
                {"message": env.hash.hex()},
            )
        stage.opened_card = action.get("card") if isinstance(action, dict) else None
        self.unopened.discard((number, seat))
        self.opened[(number, seat)] = action
        self._progress()

    def _check_opening(
        self, env: Envelope, number: int, seat: int, action: Plain, nonce: bytes, committed: bytes
    ) -> None:
        if len(nonce) != NONCE_LEN or commitment(self.match_id, number, seat, nonce, action) != committed:
            raise CheatError(
                env.author,
                f"opened p{seat}'s stage-{number} commitment to something else",
                {"message": env.hash.hex()},
            )

    def _progress(self) -> None:
        """Apply the stage if everything it needs is in; send reveals once all commitments are."""
        stage = self.stage
        if stage is None or self.fault is not None:
            return
        if self.behind:
            # Blinded: the state is unknown until the reveals come, but our own sealed choices
            # are still revealed once every commitment is in.
            if self._sealed() and self._closed(stage):
                for seat in stage.waiting:
                    if self.owner[seat] == self.me and seat not in stage.reveals:
                        self._reveal_mine(stage, seat)
            return
        if stage.optional:  # the Magic Square's challenge window
            (window,) = stage.optional
            if window in stage.acts:
                self._apply(stage, [(window, stage.acts[window])])
                return
            if window not in stage.declined:
                return
        if not all(s in stage.acts or s in stage.commits for s in stage.waiting):
            return
        if self._sealed():
            if not self._closed(stage):
                return
            for seat in stage.waiting:
                if self.owner[seat] == self.me and seat not in stage.reveals:
                    self._reveal_mine(stage, seat)
            if self.stage is not stage or not all(s in stage.reveals for s in stage.waiting):
                return
            actions = [(s, stage.reveals[s]) for s in sorted(stage.waiting)]
        elif (pile := self._flip_of(stage)) is not None:
            if stage.opened_card is None:
                return
            (seat,) = stage.acts
            actions = [(seat, {"type": "flip", "pile": pile, "card": stage.opened_card})]
        else:
            actions = [
                (s, stage.acts[s] if s in stage.acts else self._hidden_or_mine(stage, s))
                for s in sorted(stage.waiting)
            ]
        self._apply(stage, actions)

    def _reveal_mine(self, stage: Stage, seat: int) -> None:
        action, nonce = self.my_secrets[(stage.number, seat)]
        body: list[Plain] = ["reveal", stage.number, seat, action, nonce]
        blind = {s for s in range(len(self.owner)) if self.owner[s] != self.me and self._blind(s)}
        if blind:
            # Keep the gestures from a blinded wizard's machine until its blindness ends.
            self.withheld.setdefault(stage.number, []).append(body)
            self.blind_during[stage.number] = blind
            stage.reveals[seat] = action
            return
        self._send(body)

    def _card_phase(self) -> bool:
        """Whether a Hornswoggle seat may be laying or discarding a hidden card now."""
        return bool(
            self.terms is not None
            and self.terms["game"] == "hornswoggle"
            and self.state is not None
            and self.state.phase in ("opening", "turns", "discarding")
        )

    def _blind(self, seat: int) -> bool:
        """Whether ``seat``'s wizard is blind during the turn being played now."""
        return self.state is not None and self._blind_in(self.state, seat)

    def _hidden_or_mine(self, stage: Stage, seat: int) -> Plain:
        if self.owner[seat] == self.me:
            return self.my_secrets[(stage.number, seat)][0]
        kind = "discard" if self.state.phase == "discarding" else "place"
        return {"type": kind, "card": None}

    def _apply(self, stage: Stage, actions: list[tuple[int, Plain]]) -> None:
        """Apply a complete stage, check and send the state hash, and open the next stage."""
        assert self.game is not None
        blind = {s for s in range(len(self.owner)) if self.owner[s] != self.me and self._blind(s)}
        if blind and self.me is not None:  # a blinded peer needs a claim for every such stage
            self.blind_during[stage.number] = blind
        events = self._apply_actions(stage, actions)
        self._charge(stage)
        self.events.append(Applied(stage.number, tuple(actions), tuple(events)))
        self._after_stage(stage)
        if self.fault is None:
            self._open_stage(stage.number + 1)

    def _apply_actions(self, stage: Stage, actions: list[tuple[int, Plain]]) -> list[Plain]:
        assert self.game is not None
        state = self.state
        events: list[Plain] = []
        for seat, action in actions:
            # Blind now, or in the turn just played: a choice asked for right after a blind turn
            # (its own Paralysis asking which hand) was made from the claims, without the field.
            blind = self._blind_in(state, seat) or self._blind_in(state, seat, turns_ago=1)
            before = self.game.events(state)
            parsed: Any = None
            try:
                parsed = self.game.parse_action(action)
                state = self.game.apply(state, seat, parsed)
            except IllegalActionError as exc:
                if not blind:
                    raise CheatError(
                        self.owner[seat], f"an illegal action for p{seat}: {exc}", {"stage": stage.number}
                    ) from None
                # A blinded wizard chose without seeing the field: its choice is made legal,
                # identically on every machine. Gestures the way a repeated submission is; where
                # its own Paralysis asks which hand, the first hand; anything else repeats.
                legal = list(self.game.legal_actions(state, seat))
                if legal and all(isinstance(a, Paralyze) for a in legal):
                    fixed: Any = legal[0]
                elif isinstance(parsed, Gestures):
                    fixed = sanitize(state, seat, parsed)
                else:
                    fixed = Timeout()
                state = self.game.apply(state, seat, fixed)
            if self.game.events(state) is not before:  # a pending submission says nothing new
                events += list(self.game.events(state))
            self.log.append((stage.number, seat, action))
            if isinstance(action, dict) and action.get("type") in ("place", "discard") and "card" in action:
                if action["type"] == "place":
                    self.pile_refs[seat].append((stage.number, seat))
                self.unopened.add((stage.number, seat))
        if getattr(state, "last_round", None) is not getattr(self.state, "last_round", None):
            self.round_key = stage.number + 1  # the Magic Square: a new round, fresh clocks
        self.state = state
        if self.terms is not None and self.terms["game"] == "hornswoggle":
            for seat, pirate in enumerate(state.pirates):
                del self.pile_refs[seat][len(pirate.pile) :]  # piles went back to the hands
        return events

    def _blind_in(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat``'s wizard is (or, ``turns_ago``, was) blind in ``state``."""
        if self.terms is None or self.terms["game"] != "duel":
            return False
        return bool(state.wizards[seat].blind_at(state.turn - turns_ago))

    def _after_stage(self, stage: Stage) -> None:
        assert self.game is not None
        h = state_hash(self.game, self.state)
        self.my_hashes[stage.number] = h
        if self.me is not None:
            if self.blind_during.get(stage.number):
                self._send_blind_claims(stage)
            self._send(["hash", stage.number, h])
            self._release_withheld()
        self._compare_hashes(stage.number)

    # -- blindness ---------------------------------------------------------------------------------

    def _claim(self, seat: int) -> dict[str, Plain]:
        assert self.game is not None
        view = dict(self.game.view(self.state, seat))
        view["next"] = list(self.game.to_act(self.state))
        view["state_hash"] = state_hash(self.game, self.state)
        return view

    def _send_blind_claims(self, stage: Stage) -> None:
        # Exactly the seats that were blind when the stage was played (judged before it was
        # applied), whether or not they or we had anything to do in it: a blinded peer cannot
        # apply any stage of its blindness and needs a claim for each.
        for seat in sorted(self.blind_during.get(stage.number, ())):
            if self.owner[seat] != self.me:
                self._send(["blind", stage.number, seat, self._claim(seat)])

    def _release_withheld(self) -> None:
        over = self.game is not None and self.game.outcome(self.state) is not None
        still_blind = any(self._blind(s) for s in range(len(self.owner)) if self.owner[s] != self.me)
        if not self.withheld or (still_blind and not over):
            return
        for number in sorted(self.withheld):
            for body in self.withheld[number]:
                self._send(body)
        self.withheld.clear()

    def _on_blind(self, env: Envelope, seat: int, view: Mapping[str, Plain]) -> None:
        stage = self.stage
        assert stage is not None
        if self.owner[seat] == env.author or not self._sealed():
            raise MessageError("a blind claim must be about another peer's wizard")
        if not self.behind and not self._blind(seat):
            raise MessageError(f"a blind claim about p{seat}, who is not blind")
        if not self._closed(stage):
            raise MessageError("a blind claim before every commitment of the stage stands")
        nxt = view.get("next")
        if not (
            isinstance(nxt, list) and nxt and all(type(s) is int and 0 <= s < len(self.owner) for s in nxt)
        ):
            raise MessageError("a blind claim without the seats to act next")
        if not _claim_shaped(view):
            raise MessageError("a blind claim that is not a duel view")
        if stage.claim is not None:
            raise MessageError(f"a second blind claim for stage {stage.number}")
        stage.claim = view
        stage.claim_author = env.author
        stage.claim_seat = seat
        self.behind.append(stage)
        self.events.append(BlindClaim(stage.number, seat, view))
        nxt = view.get("next")
        waiting = tuple(int(s) for s in nxt) if isinstance(nxt, list) else ()
        self.stage = Stage(stage.number + 1, waiting, ())
        self._start_clocks(self.stage)
        mine = tuple(s for s in waiting if s in self.my_seats)
        if mine and not view.get("outcome"):
            self.events.append(YourTurn(self.stage.number, mine))
        backlog, self.backlog = self.backlog, []
        for queued in backlog:
            self._guarded(queued)

    def _catch_up(self) -> None:
        """Replay the stages seen only through claims once every reveal is in; check each claim."""
        if not all(all(s in b.reveals for s in b.waiting) for b in self.behind):
            return
        assert self.game is not None
        behind, self.behind = self.behind, []
        for stage in behind:
            actions = [(s, stage.reveals[s]) for s in sorted(stage.waiting)]
            events = self._apply_actions(stage, actions)
            self._charge(stage)
            self.events.append(Applied(stage.number, tuple(actions), tuple(events)))
            assert stage.claim is not None and stage.claim_seat is not None
            if digest(self._claim(stage.claim_seat)) != digest(dict(stage.claim)):
                raise CheatError(
                    stage.claim_author,
                    f"its blindness claim for stage {stage.number} was false",
                    {"stage": stage.number},
                )
            self._after_stage(stage)
            if self.fault is not None:
                return
        # Pick up the stage in progress with the real state, keeping what was already received.
        current = self.stage
        assert current is not None
        self._open_stage(current.number, carry=current)

    # -- hashes, the end, the audit ----------------------------------------------------------------

    def _on_hash(self, env: Envelope) -> None:
        _, number, h = env.body
        if env.author in self.hashes.get(number, {}):
            raise MessageError(f"a second hash of stage {number} from peer {env.author}")
        self.hashes.setdefault(number, {})[env.author] = h
        self._compare_hashes(number)

    def _compare_hashes(self, number: int) -> None:
        mine = self.my_hashes.get(number)
        if mine is None:
            return
        for author, theirs in sorted(self.hashes.get(number, {}).items()):
            if theirs != mine and self.fault is None:
                if self.me is not None and self.game is not None:
                    # Tell the others what we computed, so every desync report holds both states.
                    self._send(["desync", number, self.game.public(self.state)])
                self._stop(
                    Fault(
                        "desync",
                        author,
                        number,
                        f"peer {author}'s state after stage {number} differs from ours",
                        {
                            "ours": mine.hex(),
                            "theirs": theirs.hex(),
                            "state": self.game.public(self.state) if self.game else None,
                        },
                    )
                )

    def _game_over(self, outcome: Outcome) -> None:
        self.stage = None
        self.outcome = outcome
        if self.terms is not None and self.terms["game"] == "hornswoggle":
            if self.me is not None:
                openings = [
                    [n, s, *self.my_secrets[(n, s)]]
                    for (n, s) in sorted(self.unopened)
                    if self.owner[s] == self.me
                ]
                self._send(["audit", openings])
            self._finish_audit()
            return
        self._finish()

    def _on_audit(self, env: Envelope) -> None:
        if self.outcome is None or env.author in self.audits:
            raise MessageError("an audit before the end of the match, or twice")
        openings = env.body[1]
        for opening in openings:
            if not (isinstance(opening, list) and len(opening) == 4):
                raise MessageError("a malformed audit opening")
            number, seat, action, nonce = opening
            if not (
                type(number) is int
                and type(seat) is int
                and 0 <= seat < len(self.owner)
                and isinstance(action, dict)
                and isinstance(nonce, bytes)
            ):
                raise MessageError("a malformed audit opening")
            if self.owner[seat] != env.author:
                raise MessageError(f"peer {env.author} opened p{seat}'s card")
            committed = self.commit_log.get((number, seat))
            if committed is None:
                raise MessageError(f"no commitment of p{seat} at stage {number}")
            self._check_opening(env, number, seat, action, nonce, committed)
        self.audits[env.author] = openings
        self._finish_audit()

    def _finish_audit(self) -> None:
        if self.terms is None or len(self.audits) != len(self.keys) or self.finished:
            return
        opened = dict(self.opened)
        opened.update({(o[0], o[1]): o[2] for openings in self.audits.values() for o in openings})
        full_log = []
        for number, seat, action in self.log:
            if (
                isinstance(action, dict)
                and action.get("card") is None
                and action.get("type") in ("place", "discard")
            ):
                action = opened.get((number, seat), action)
            full_log.append((seat, get_game("hornswoggle").parse_action(action)))
        missing = [ref for ref in self.unopened if ref not in opened]
        if missing:
            number, seat = missing[0]
            self._stop(
                Fault(
                    "forfeit",
                    self.owner[seat],
                    number,
                    f"p{seat} did not open its stage-{number} card at the audit",
                    {},
                )
            )
            return
        failure = audit(self.terms["setup"], self.terms["options"], full_log)
        if failure is not None:
            assert self.outcome is not None
            self.outcome = audit_outcome(self.state, failure)
        self._finish()

    def _finish(self) -> None:
        self.finished = True
        assert self.outcome is not None
        self.events.append(MatchOver(self.outcome.to_plain()))


class CheatError(P2PGeniusError):
    """Proof that a peer broke the rules (internal: becomes a Fault event)."""

    def __init__(self, peer: int | None, reason: str, evidence: Mapping[str, Plain]) -> None:
        super().__init__(reason)
        self.peer = peer
        self.reason = reason
        self.evidence = evidence


def _hidden_card(action: Mapping[str, Plain] | Plain) -> bool:
    """A Hornswoggle card laid or discarded: it travels only as a commitment."""
    return isinstance(action, Mapping) and action.get("type") in ("place", "discard") and "card" in action


def _claim_shaped(view: Mapping[str, Plain]) -> bool:
    """Whether a blind claim has the shape of a duel view (its truth is checked when the blindness
    ends; its shape now, so that nothing shows a malformed claim)."""
    wizards, monsters = view.get("wizards"), view.get("monsters")
    return (
        type(view.get("turn")) is int
        and isinstance(wizards, list)
        and len(wizards) == 2
        and all(
            isinstance(w, dict)
            and isinstance(w.get("left"), str)
            and isinstance(w.get("right"), str)
            and type(w.get("max_hp")) is int
            and (w.get("hp") is None or type(w.get("hp")) is int)
            for w in wizards
        )
        and isinstance(monsters, list)
        and all(
            isinstance(m, dict)
            and isinstance(m.get("id"), str)
            and isinstance(m.get("kind"), str)
            and (m.get("controller") is None or type(m.get("controller")) is int)  # None: unseen
            and (m.get("hp") is None or type(m.get("hp")) is int)
            for m in monsters
        )
    )


def claims_problem(groups: Sequence[Sequence[int]], claims: Sequence[Sequence[int]]) -> str:
    """Why these per-peer seat claims cannot all be granted ("" if they can)."""
    taken: dict[int, int] = {}
    for peer, claim in enumerate(claims):
        if not claim:
            continue
        group = _group_of(groups, claim)
        if group is None:
            return f"seats {', '.join(f'p{s}' for s in claim)} are not one peer's seats"
        if group in taken:
            return f"peers {taken[group]} and {peer} both claim seat p{groups[group][0]}"
        taken[group] = peer
    return ""


def _group_of(groups: Sequence[Sequence[int]], seats: Sequence[int]) -> int | None:
    """The index of the one group holding every seat in ``seats`` (None if none, or no seats)."""
    for index, group in enumerate(groups):
        if seats and all(seat in group for seat in seats):
            return index
    return None
