"""The match session, sans-IO: signed messages in, events and messages out (protocol/SPEC.md).

One :class:`Session` per peer drives the game engine in lockstep with the others. It never touches a
socket, a clock or a disk: the I/O layer feeds it messages (:meth:`receive`) and local decisions
(:meth:`submit`, :meth:`decline`, :meth:`chat`, :meth:`forfeit`), and after each call takes
:meth:`flush`, which says what to append to the transcript and the secrets file (first, durably)
and which messages to send to every other peer (after).

A match goes: terms (the host's proposal) and accepts; a commit-reveal coin flip that deals the
seat groups to the peers; then *stages*. A stage is one engine decision point: the seats the game
waits on each send one message (a public ``act``, or a ``commit`` to a hidden choice), plus, where
the game merely allows a seat to act (its spec's optional actions, such as a challenge), that
action or a ``decline``. Sealed choices (a sealed game's every stage) are revealed once all
commitments are in; hidden cards stay committed until flipped or audited. When a stage is complete
every peer applies it, in seat order, and sends the hash of the public state. A blinded seat's peer
is sent signed claims instead of the other's reveals, and checks every claim once the reveals come.
What differs between games comes from the game's spec (``p2pgenius.games.spec``).

A :class:`Session` with no identity is an *observer*: fed a transcript's messages in order it
re-checks everything (``p2pgenius verify``).
"""

from __future__ import annotations

import secrets as random_source
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import IllegalActionError, LocalMisuseError, shown
from p2pgenius.games.base import state_hash
from p2pgenius.protocol.bodies import (
    MAX_TEXT,
    Accept,
    Act,
    Audit,
    Blind,
    Chat,
    CoinReveal,
    Commit,
    Decline,
    Desync,
    Dispute,
    End,
    FinalChoice,
    Forfeit,
    Hash,
    Invalid,
    Observed,
    Reveal,
    Terms,
    TimeoutClaim,
    is_text,
)
from p2pgenius.protocol.events import (
    Applied,
    ChatReceived,
    ClaimDisputed,
    ClockView,
    Decided,
    Event,
    TimeObserved,
    TimeoutClaimed,
    YourTurn,
)
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import (
    NONCE_LEN,
    VERSION,
    Envelope,
    MessageError,
    commitment,
    open_envelope,
)
from p2pgenius.protocol.records import CoinSecret, secrets_of, typed
from p2pgenius.protocol.session.base import SETUP, SessionBase
from p2pgenius.protocol.session.blindness import Blindness
from p2pgenius.protocol.session.debts import Debt
from p2pgenius.protocol.session.ending import Ending
from p2pgenius.protocol.session.faults import CheatError, SessionError
from p2pgenius.protocol.session.phase import ACCEPTED, WHEN, Phase
from p2pgenius.protocol.session.setup import MatchSetup
from p2pgenius.protocol.session.stage import Stage
from p2pgenius.protocol.session.timing import ClockBook
from p2pgenius.protocol.session.view import SessionView

StageMessage = Blind | Act | Commit | Reveal | FinalChoice | Decline
"""The messages of one stage, which name it and a seat."""

MAX_HELD: Final = 256
"""Messages of one author held for stages this peer has not reached yet, at most."""


class Session(MatchSetup, Blindness, Ending, SessionBase):
    """One peer's (or an observer's) view of a match: stages, as they are played."""

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
        read = typed(transcript)
        if read.header.version != VERSION:
            raise SessionError(
                f"this match was played with match messages of version {read.header.version!r}; this "
                f"program plays version {VERSION}: its transcript can be read, not resumed"
            )
        keys, me = list(read.header.peers), read.header.me
        session = cls(
            keys=keys,
            me=me,
            identity=identity,
            randomness=randomness,
            expected=read.header.expected,  # what a joiner agreed to in the lobby (terms to come)
        )
        candidates: dict[tuple[int, int], list[tuple[Plain, bytes]]] = {}
        for secret in secrets_of(secrets):
            if isinstance(secret, CoinSecret):
                session.my_coin = secret.nonce
            else:
                ref, choice = (secret.stage, secret.seat), (secret.action, secret.nonce)
                session.my_secrets[ref] = choice
                candidates.setdefault(ref, []).append(choice)
        messages = read.messages
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
        # A sealed choice replaced just before a crash: its secret reached the disk, its commitment
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
        return self.chain.missing_for(next_seq)

    def _open_stage(self, number: int, carry: Stage | None = None) -> None:
        """Start stage ``number`` from the current state (keeping what ``carry`` already got)."""
        outcome = self.m.game.outcome(self.state)
        if outcome is not None:
            self._game_over(outcome)
            return
        waiting = self.m.game.waiting_on(self.state)
        optional = tuple(s for s in self.m.game.to_act(self.state) if s not in waiting)
        stage = self.stage = Stage(number, waiting, optional)
        if carry is not None:
            stage.acts, stage.commits, stage.reveals = carry.acts, carry.commits, carry.reveals
            stage.declined, stage.ms, stage.finals = carry.declined, carry.ms, carry.finals
        self._start_clocks(stage)
        done = set(stage.acts) | set(stage.commits) | stage.declined
        done |= {  # our own choices made ahead (held, taken in just below)
            env.msg.seat
            for env in self.backlog
            if env.author == self.me and isinstance(env.msg, Commit) and env.msg.stage == number
        }
        mine = tuple(s for s in waiting if s in self.my_seats and s not in done)
        maybe = tuple(s for s in optional if s in self.my_seats and s not in done)
        if mine or maybe:
            self.events.append(YourTurn(number, mine + maybe, maybe))
        backlog, self.backlog = self.backlog, []
        for env in backlog:
            self._guarded(env)
        if carry is not None:
            self._progress()

    def _hold(self, env: Envelope) -> None:
        """Keep a message for a stage not reached yet (a bounded number per author: a peer can be
        a few stages ahead, never hundreds of messages)."""
        if sum(1 for held in self.backlog if held.author == env.author) >= MAX_HELD:
            raise MessageError(f"more than {MAX_HELD} messages for stages not reached yet")
        self.backlog.append(env)

    def _sealed(self) -> bool:
        return self.m.spec.sealed

    def _fast(self) -> bool:
        """A sealed stage closes as soon as every commitment is in (the "fast" option);
        otherwise choices may change until each seat's peer sends ``final``."""
        assert self.terms is not None
        return not self._sealed() or bool(self.terms["options"].get("fast", False))

    @property
    def view(self) -> SessionView:
        """This session, read only: what a screen, a bot or a report is given."""
        return SessionView(self)

    @property
    def fast(self) -> bool:
        """Whether a stage closes as soon as every choice is in (no choice can change after)."""
        return self._fast()

    def _closed(self, stage: Stage) -> bool:
        """Every sealed choice of the stage is in and stands: time to reveal."""
        if not all(s in stage.commits for s in stage.waiting):
            return False
        return self._fast() or all(s in stage.finals for s in stage.waiting)

    def _start_clocks(self, stage: Stage) -> None:
        state = None if self.behind else self.state
        self.clockbook.start(stage, self.m.spec, self.m.terms["options"], state)

    def clocks(self) -> dict[int, ClockView]:
        """Every seat's clock at the current stage (none between stages or after the end)."""
        stage = self.stage
        if stage is None or self.finished or self.fault is not None:
            return {}
        return ClockBook.views(stage, self.owed(), self._sealed() and not self._fast())

    def time_out(self, seat: int) -> None:
        """``seat``'s clock ran out on this (its own) peer: send what the rules make of it (the
        game's timeout action; letting an optional challenge pass; a sealed choice standing)."""
        stage = self._current()
        left = ClockBook.left(stage, seat)
        if seat in stage.waiting:
            if seat not in stage.commits and seat not in stage.acts:
                self.submit(seat, {"type": "timeout"}, ms=left)
            if self.stage is stage and self._sealed() and not self._fast() and seat not in stage.finals:
                self.finalize(seat)
        elif seat in stage.optional and seat not in stage.declined and seat not in stage.acts:
            self.decline(seat, ms=left)

    def finalize(self, seat: int) -> None:
        """A sealed game without "fast": the time is up on this peer; ``seat``'s last commitment
        stands and may be revealed once every seat's does."""
        stage = self._current()
        if seat not in self.my_seats or seat not in stage.commits or seat in stage.finals:
            raise LocalMisuseError(f"p{seat} has no commitment to let stand")
        self._send(FinalChoice(stage.number, seat))

    def claim_timeout(self, seat: int, observed_ms: int) -> None:
        """Say, signed, that another peer's ``seat`` ran out of time here: ``observed_ms`` passed
        on this machine since the stage began (lag allowance already waited out)."""
        if self.finished or self.fault is not None or not self.owner:
            raise LocalMisuseError("the match is not at a stage where anyone can time out")
        if seat in self.my_seats or seat not in self.owed():
            raise LocalMisuseError(f"p{seat} owes nothing to time out")
        self._send(TimeoutClaim(self._number(), seat, max(int(observed_ms), 0)))

    def submit(self, seat: int, action: Mapping[str, Plain], *, ms: int = 0) -> None:
        """A local decision for ``seat`` at the current stage, which took ``ms`` of its clock.
        Raises IllegalActionError or LocalMisuseError (nothing is sent) if it is not allowed. In
        a sealed game without "fast", a new choice replaces the last until :meth:`finalize`."""
        stage = self._current()
        if seat not in self.my_seats:
            raise LocalMisuseError(f"this peer does not hold seat p{seat}")
        if seat not in stage.waiting + stage.optional:
            raise LocalMisuseError(f"p{seat} has nothing to do now")
        changing = seat in stage.commits and not self._fast() and seat not in stage.finals
        if (seat in stage.acts or seat in stage.commits or seat in stage.declined) and not changing:
            raise LocalMisuseError(f"p{seat} has already acted this stage")
        left = ClockBook.left(stage, seat)
        if not 0 <= ms <= left:
            raise LocalMisuseError(f"p{seat}'s clock has only {left} ms: time out instead")
        parsed = self.m.game.parse_action(action)
        if parsed.to_plain() == {"type": "timeout"}:
            # Where the seat's own peer must resolve its timeout (a card it lays from its hidden
            # hand, say), it does, and what it sends is committed like any other choice.
            parsed = self.m.spec.own_timeout(self.state, seat) or parsed
        if not self.behind:  # a blinded wizard cannot check against a field it cannot see
            self._check_legal(seat, parsed)
        plain = parsed.to_plain()
        if self._sealed() or self.m.spec.hidden(plain):
            nonce = self.randomness(NONCE_LEN)
            self._secret(["secret", stage.number, seat, plain, nonce])
            self.my_secrets[(stage.number, seat)] = (plain, nonce)
            committed = commitment(self.match_id, stage.number, seat, nonce, plain)
            self._send(Commit(stage.number, seat, committed, ms))
        else:
            self._send(Act(stage.number, seat, plain, ms))

    def ahead(self) -> tuple[int, ...]:
        """The local seats that may already choose for the *next* stage, as commitments, while
        this one is still open (``GameSpec.ahead``: where nothing done now can change who acts
        next or what each may do), and have not yet."""
        stage = self.stage
        if stage is None or self.finished or self.fault is not None or self.behind or self.match is None:
            return ()
        early = self.m.spec.ahead(self.state)
        if early is None:
            return ()
        number = stage.number + 1
        waiting = self.m.game.waiting_on(early)
        return tuple(s for s in waiting if s in self.my_seats and (number, s) not in self.my_secrets)

    def ahead_state(self) -> Any:
        """The state the seats of :meth:`ahead` choose from (None: nobody may choose ahead)."""
        if self.stage is None or self.match is None or self.behind:
            return None
        return self.m.spec.ahead(self.state)

    def submit_ahead(self, seat: int, action: Mapping[str, Plain]) -> None:
        """A local decision for ``seat`` at the next stage, made while the current one is still
        open (see :meth:`ahead`). It travels as a commitment, declaring no time, and every peer
        (this one too) holds it until that stage opens. Raises IllegalActionError or
        LocalMisuseError (nothing is sent) if it is not allowed."""
        if seat not in self.ahead():
            raise LocalMisuseError(f"p{seat} cannot choose ahead of the next stage now")
        stage = self._current()
        early = self.ahead_state()
        parsed = self.m.game.parse_action(action)
        plain = parsed.to_plain()
        if not (self._sealed() or self.m.spec.hidden(plain)):
            raise LocalMisuseError("only a choice that travels as a commitment may be made ahead")
        self._check_legal(seat, parsed, early)
        number = stage.number + 1
        nonce = self.randomness(NONCE_LEN)
        self._secret(["secret", number, seat, plain, nonce])
        self.my_secrets[(number, seat)] = (plain, nonce)
        self._send(Commit(number, seat, commitment(self.match_id, number, seat, nonce, plain), 0))

    def committed(self, seat: int) -> Plain | None:
        """What this peer committed ``seat`` to at the current stage (its latest choice, not yet
        opened to the others), or None; also right after a resume, from the secrets on disk."""
        stage = self.stage
        if stage is None or seat not in self.my_seats or seat not in stage.commits:
            return None
        secret = self.my_secrets.get((stage.number, seat))
        return None if secret is None else secret[0]

    def awaiting(self) -> tuple[int, ...]:
        """The local seats that may still act in the current stage (drivers ask this rather than
        trusting an older YourTurn event)."""
        stage = self.stage
        if stage is None or self.finished or self.fault is not None:
            return ()
        done = set(stage.acts) | set(stage.commits) | stage.declined
        return tuple(s for s in stage.waiting + stage.optional if s in self.my_seats and s not in done)

    def unsettled(self) -> tuple[int, ...]:
        """The local seats whose choice may still change (sealed, without "fast": committed but
        not final); the driver finalizes them when their minute is up."""
        stage = self.stage
        if stage is None or self.finished or self.fault is not None or self._fast():
            return ()
        return tuple(
            s for s in stage.waiting if s in self.my_seats and s in stage.commits and s not in stage.finals
        )

    def owed(self) -> tuple[int, ...]:
        """The seats the match is waiting on right now (their :meth:`debts`; none before the deal)."""
        return tuple(sorted({debt.seat for debt in self.debts() if debt.stage != SETUP}))

    def debts(self) -> tuple[Debt, ...]:
        """Everything the match waits on now, each due (debts.py: what is owed, when it falls
        due, and which rule says when it is late): nothing before it is due."""
        if self.phase is Phase.COIN_REVEAL:
            return tuple(Debt("coin", peer, SETUP) for peer in self.unrevealed())
        stage = self.stage
        if self.finished or self.fault is not None or not self.owner:
            return ()
        if stage is None:
            if self.outcome is None:
                return ()
            # After the end: every peer's audit (an audited game), then its signed result; a
            # seat owes what its peer owes.
            kind, done = ("audit", self.audits) if self.phase is Phase.AUDIT else ("end", self.ends)
            return tuple(Debt(kind, s, -1) for s, p in enumerate(self.owner) if p not in done)
        return tuple(sorted(self._stage_debts(stage), key=lambda d: (d.seat, d.kind)))

    def _stage_debts(self, stage: Stage) -> list[Debt]:
        number, waiting, commits = stage.number, stage.waiting, stage.commits
        debts = [Debt("decision", s, number) for s in waiting if s not in stage.acts and s not in commits]
        if self._sealed() and not self._fast():
            debts += [Debt("final", s, number) for s in waiting if s in commits and s not in stage.finals]
        if self._sealed() and self._closed(stage):  # (a reveal is due once every choice stands)
            debts += [
                Debt("reveal", s, number)
                for s in stage.waiting
                if s not in stage.reveals and not self._withheld_from_me(self.owner[s])
            ]
        pile = None if self.behind else self._flip_of(stage)
        if pile is not None and stage.opened is None:
            debts.append(Debt("opening", pile, number))
        if all(s in stage.acts or s in stage.commits for s in stage.waiting):
            # A window is open only until the next action: due once every waited-on seat decided.
            debts += [
                Debt("window", s, number)
                for s in stage.optional
                if s not in stage.acts and s not in stage.declined
            ]
        return debts

    def _withheld_from_me(self, peer: int) -> bool:
        """Whether ``peer`` keeps its sealed choices from this peer now: a seat of ours is blind
        and none of its own is (Blindness): they are not owed to us until the blindness ends."""
        if self.me is None or peer == self.me:
            return False
        if self.behind:
            return True
        theirs = [s for s, p in enumerate(self.owner) if p == peer]
        return any(self._blind(s) for s in self.my_seats) and not any(self._blind(s) for s in theirs)

    def _check_legal(self, seat: int, action: Any, state: Any = None) -> None:
        """Raise IllegalActionError unless ``seat`` may take ``action`` now (or in ``state``)."""
        state = self.state if state is None else state
        pile = self.m.spec.flipped_pile(action.to_plain())
        if pile is not None:
            # The card is not known until its owner opens it: only the pile choice is checked.
            if action not in self.m.game.legal_actions(state, seat):
                raise IllegalActionError(f"p{seat} cannot flip pile {pile} now")
            return
        self.m.game.apply(state, seat, action)

    def decline(self, seat: int, *, ms: int = 0) -> None:
        """Let an optional action pass (say, no challenge). A window is not on the clock: the
        decline declares no time (``ms`` is ignored)."""
        del ms
        stage = self._current()
        if seat not in stage.optional or seat not in self.my_seats:
            raise LocalMisuseError(f"p{seat} has no optional action to let pass")
        self._send(Decline(stage.number, seat, 0))

    def chat(self, text: str) -> None:
        """Say something to the table."""
        if not text or not is_text(text):
            raise LocalMisuseError(
                f"a chat line has 1 to {MAX_TEXT} printable characters (no control characters)"
            )
        self._send(Chat(text))

    def _current(self) -> Stage:
        if self.stage is None or self.finished or self.fault is not None:
            raise LocalMisuseError("the match is not at a stage where anyone can act")
        return self.stage

    def receive(self, raw: bytes) -> list[Event]:
        """A message from a peer (or from a transcript). Returns the events it caused; a bad
        message is refused and recorded, and never raises."""
        try:
            env = open_envelope(raw, self.keys, version=self.version)
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
        """Dispatch a peer's message; what is wrong with it is refused (MessageError) or
        convicted (CheatError). Its form was checked when its envelope was opened, so any other
        error is ours, and is not blamed on the peer: it goes up to whoever runs the session."""
        try:
            self._dispatch(env)
        except MessageError as exc:
            self._reject(env.raw, env.author, str(exc))
        except CheatError as exc:
            self._cheat(exc)

    def _dispatch(self, env: Envelope) -> None:
        msg = env.msg
        if self.fault is not None:
            if isinstance(msg, Desync):
                self._on_desync(env, msg)
            return
        if isinstance(msg, Invalid):
            raise MessageError(msg.reason)
        if not isinstance(msg, ACCEPTED[self.phase]):
            raise MessageError(f"a {msg.kind} message {WHEN[self.phase]}")
        match msg:
            case Terms():
                self._on_terms(env, msg)
            case Accept():
                self._on_accept(env, msg)
            case CoinReveal():
                self._on_coin_reveal(env, msg)
            case Chat():
                self._on_chat(env, msg)
            case Hash():
                self._on_hash(env, msg)
            case Forfeit():
                self._on_forfeit(env, msg)
            case Desync():
                self._on_desync(env, msg)
            case Audit():
                self._on_audit(env, msg)
            case End():
                self._on_end(env, msg)
            case Observed():
                self._on_observed(env, msg)
            case TimeoutClaim() | Dispute():
                self._on_time_message(env, msg)
            case Blind() | Act() | Commit() | Reveal() | FinalChoice() | Decline():
                self._on_stage_message(env, msg)

    def _on_chat(self, env: Envelope, msg: Chat) -> None:
        if env.author != self.me:
            self.events.append(ChatReceived(env.author, msg.text))

    def _on_desync(self, env: Envelope, msg: Desync) -> None:
        """A peer found our hashes differ and sent the state it computed: keep it as evidence."""
        if env.author != self.me:
            self.flushing.records.append(encode(["desync_state", env.author, msg.stage, msg.state]))

    def _on_time_message(self, env: Envelope, msg: TimeoutClaim | Dispute) -> None:
        """A timeout claim or a dispute: about the coin flip, a stage (held if we are not there
        yet), or, after the end, the audit."""
        if isinstance(msg, TimeoutClaim) and msg.stage == SETUP:
            self._on_setup_claim(env, msg)
            return
        if self.stage is not None and msg.stage > self.stage.number:
            # From a peer ahead of us (with three or four peers, messages reach us through the
            # host in another order): it counts when we get there, not never.
            self._hold(env)
            return
        if not self.owner:
            raise MessageError(f"a {msg.kind} message before the seats are dealt")
        if isinstance(msg, TimeoutClaim):
            self._on_timeout_claim(env, msg)
        else:
            self._on_dispute(env, msg)

    def _on_stage_message(
        self, env: Envelope, msg: Blind | Act | Commit | Reveal | FinalChoice | Decline
    ) -> None:
        number, seat = msg.stage, msg.seat
        if self.stage is None:
            raise MessageError(f"a {msg.kind} message before the seats are dealt")
        if isinstance(msg, Reveal) and number < self.stage.number:
            self._on_late_reveal(env, msg)
            return
        if number > self.stage.number:
            self._hold(env)
            return
        if number < self.stage.number:
            raise MessageError(f"a {msg.kind} message for stage {number}, already played")
        if seat >= len(self.owner):
            raise MessageError(f"no seat p{seat}")
        if isinstance(msg, Blind):
            if env.author != self.me:  # our own claims are only records
                self._on_blind(env, seat, msg.claim)
            return
        if self.owner[seat] != env.author:
            raise MessageError(f"peer {env.author} does not hold seat p{seat}")
        stage = self.stage
        match msg:
            case Act():
                self.clockbook.check_declared(stage, seat, msg.ms)
                self._on_act(stage, env, seat, msg.action)
                self.clockbook.declare(stage, seat, msg.ms)
                flips = self.m.spec.flipped_pile(msg.action) is not None
                if flips and stage.opened is None and self._holds_pile(stage):
                    # This act is the flip of our pile (not another act of the stage, such as an
                    # optional one beside it): open the card, once. (An optional seat's window
                    # beside it still lapses below: the flip was the next action.)
                    self._open_card(stage)
            case Commit():
                if self.spec is None or not self.m.spec.committing(self.state):
                    raise MessageError("nothing is committed at this point of this game")
                changing = seat in stage.commits and not self._fast() and seat not in stage.finals
                if (
                    seat not in stage.waiting
                    or (seat in stage.commits and not changing)
                    or seat in stage.acts
                ):
                    raise MessageError(f"an unexpected commitment for p{seat}")
                self.clockbook.declare(stage, seat, msg.ms)
                stage.commits[seat] = msg.commitment
                self.commit_log[(number, seat)] = msg.commitment
            case FinalChoice():
                if self._fast() or seat not in stage.commits or seat in stage.finals:
                    raise MessageError(f"an unexpected final for p{seat}")
                stage.finals.add(seat)
            case Reveal():
                if env.author == self.me and stage.reveals.get(seat) == msg.action:
                    return  # our own gestures, released after a blindness: a record only
                if seat in stage.reveals or seat not in stage.commits:
                    raise MessageError(f"an unexpected reveal for p{seat}")
                self._check_opening(env, number, seat, msg.action, msg.nonce, stage.commits[seat])
                stage.reveals[seat] = msg.action
            case Decline():
                if seat not in stage.optional or seat in stage.declined or seat in stage.acts:
                    raise MessageError(f"p{seat} has nothing to decline")
                self.clockbook.declare(stage, seat, msg.ms)
                stage.declined.add(seat)
        self.time.answered((number, seat))  # the seat answered: no claim about it stands
        if isinstance(msg, Act | Commit | Decline):
            self.time.declare((number, seat), msg.ms, ClockBook.left(stage, seat))
            if env.author != self.me and seat not in stage.optional:  # (a window is off the clock)
                self.events.append(Decided(number, seat, msg.ms, env.author))
        self._lapse_windows(stage)
        self._progress()

    def _lapse_windows(self, stage: Stage) -> None:
        """An optional action (a challenge) is allowed only before the next action: once every
        seat the stage waits on has acted, a window of ours still open lapses, declined at once
        (no one has to type "pass", and it costs no time)."""
        if self.stage is not stage or not stage.optional or self.fault is not None:
            return
        if not all(s in stage.acts or s in stage.commits for s in stage.waiting):
            return
        for seat in stage.optional:
            if seat in self.my_seats and seat not in stage.acts and seat not in stage.declined:
                self._send(Decline(stage.number, seat, 0))

    def _on_act(self, stage: Stage, env: Envelope, seat: int, action: Plain) -> None:
        if seat in stage.acts or seat in stage.commits or seat in stage.declined:
            raise MessageError(f"p{seat} acted twice in stage {stage.number}")
        if seat not in stage.waiting + stage.optional:
            raise MessageError(f"p{seat} has nothing to do in stage {stage.number}")
        if self._sealed() or self.m.spec.hidden(action):
            raise MessageError(f"p{seat} must commit to this action, not show it")
        timeout = isinstance(action, dict) and action.get("type") == "timeout"
        if self.m.spec.owner_resolves_timeout and timeout:
            # Its own peer plays what the rules' timeout plays, committed like any card: a bare
            # timeout would lay a card nobody committed to (and break the flip that meets it).
            raise MessageError(f"p{seat}'s timeout is played by its own peer as the card the rules choose")
        try:
            parsed = self.m.game.parse_action(action)
            if seat in stage.optional and parsed.to_plain().get("type") not in self.m.spec.optional_types:
                allowed = " or ".join(self.m.spec.optional_types) or "nothing"
                raise IllegalActionError(f"only {allowed} is allowed here")
            self._check_legal(seat, parsed)
        except IllegalActionError as exc:
            raise CheatError(
                env.author, f"an illegal action for p{seat}: {exc}", {"message": env.hash.hex()}
            ) from None
        stage.acts[seat] = parsed.to_plain()

    def _on_timeout_claim(self, env: Envelope, msg: TimeoutClaim) -> None:
        number, seat, observed = msg.stage, msg.seat, msg.observed_ms
        if seat >= len(self.owner) or self.owner[seat] == env.author:
            raise MessageError("a timeout claim must name another peer's seat and a time")
        # A claim about a stage already played crossed the decision on the wire: it stays in the
        # transcript (a dispute, if the decision declared much less) and changes nothing.
        if number == self._number() and seat in self.owed():
            self.time.claim((number, seat), env.author)
        if env.author != self.me:
            owed = next((d.kind for d in self.debts() if d.seat == seat and d.stage == number), "")
            self.events.append(TimeoutClaimed(number, seat, observed, env.author, owed))

    def unrevealed(self) -> tuple[int, ...]:
        """The peers the coin flip waits on: each committed its share and has not opened it. One
        that walks away here (having seen the others' shares, and so the deal) forfeits."""
        if self.phase is not Phase.COIN_REVEAL:
            return ()
        return tuple(p for p in range(len(self.keys)) if p not in self.coin_reveals)

    def claim_walkaway(self, peer: int, observed_ms: int) -> None:
        """Say, signed, that ``peer`` has not opened its coin share: ``observed_ms`` passed here."""
        if peer == self.me or peer not in self.unrevealed():
            raise LocalMisuseError(f"peer {peer} owes no coin share")
        self._send(TimeoutClaim(SETUP, peer, max(int(observed_ms), 0)))

    def _on_setup_claim(self, env: Envelope, msg: TimeoutClaim) -> None:
        peer, observed = msg.seat, msg.observed_ms
        if peer >= len(self.keys) or peer == env.author:
            raise MessageError("a timeout claim before the deal must name another peer and a time")
        if peer in self.unrevealed():
            self.time.claim((SETUP, peer), env.author)
        if env.author != self.me:
            self.events.append(TimeoutClaimed(SETUP, peer, observed, env.author, "coin"))

    def note_observed(self, stage: int, seat: int, observed_ms: int) -> None:
        """Say, signed, that more time passed here before ``seat``'s decision at ``stage`` than it
        declared (``observed_ms``: this machine's measure, less the lag allowance). Nothing is
        charged differently (every peer charges the declared time, so every clock agrees): the
        dispute is on the record, for the players and for anyone who verifies the transcript."""
        declared = self.time.declared.get((stage, seat))
        if seat in self.my_seats or declared is None or observed_ms <= declared:
            raise LocalMisuseError(f"nothing to dispute about p{seat}'s time at stage {stage}")
        if observed_ms > self.time.most_seen((stage, seat)):  # (this machine slept: no measure)
            raise LocalMisuseError(f"{observed_ms} ms is longer than anyone waits for p{seat}'s decision")
        if self.time.observed_by((stage, seat), self.me):
            raise LocalMisuseError(f"p{seat}'s time at stage {stage} is already disputed")
        self._send(Observed(stage, seat, int(observed_ms)))

    def _on_observed(self, env: Envelope, msg: Observed) -> None:
        number, seat, ms = msg.stage, msg.seat, msg.ms
        if not self.owner or seat >= len(self.owner) or self.owner[seat] == env.author:
            raise MessageError("an observed time must be about another peer's seat")
        declared = self.time.declared.get((number, seat))
        if declared is None or self.time.observed_by((number, seat), env.author):
            raise MessageError(f"an observed time for p{seat} at stage {number}, which decided nothing then")
        most = self.time.most_seen((number, seat))
        if ms > most:
            # No honest peer can have waited that long for the decision (it would have claimed,
            # and forfeited the seat, long before): a false measure, refused, its author's fault.
            raise MessageError(
                f"an observed time of {ms} ms before p{seat}'s decision at stage {number}, more than "
                f"any peer can wait for it ({most} ms: its clock twice, the lag and the grace period)"
            )
        self.time.observe((number, seat), env.author, ms)
        self.events.append(TimeObserved(number, seat, ms, declared, env.author))

    def _on_dispute(self, env: Envelope, msg: Dispute) -> None:
        """The seat's own peer answers a timeout claim: by its clock, time is left. Every claim
        about that seat at that stage stops standing (a forfeit needs a claim that stands)."""
        number, seat, left = msg.stage, msg.seat, msg.left_ms
        if seat >= len(self.owner) or self.owner[seat] != env.author:
            raise MessageError("a dispute must name one of its author's seats and the time left")
        problem = self._dispute_problem(number, seat, left)
        if problem:
            raise MessageError(problem)
        self.time.disputed((number, seat))
        if env.author != self.me:
            self.events.append(ClaimDisputed(number, seat, left, env.author))

    def _number(self) -> int:
        """The current stage's number; -1 between stages (after the end: the audit)."""
        return self.stage.number if self.stage is not None else -1

    def dispute(self, seat: int, left_ms: int) -> None:
        """Answer a timeout claim about our ``seat``: by our clock ``left_ms`` are still left."""
        problem = self._dispute_problem(self._number(), seat, left_ms)
        if seat not in self.my_seats or problem:
            raise LocalMisuseError(problem or f"p{seat} is not ours")
        self._send(Dispute(self._number(), seat, max(int(left_ms), 0)))

    def _dispute_problem(self, number: int, seat: int, left_ms: int) -> str:
        """Why ``seat`` may not dispute a claim now ("" if it may): a dispute answers a standing
        claim about a decision still on its clock, once per stage. Anything else owed (a reveal,
        an opening, a final, an audit) can be sent at once instead, so it is no time to argue."""
        stage = self.stage
        if not self.time.claimants((number, seat)):
            return f"a dispute with no timeout claim about p{seat} standing"
        if stage is None or number != stage.number or seat not in stage.waiting + stage.optional:
            return f"p{seat} owes no decision on its clock: it can pay what it owes instead"
        if seat in stage.acts or seat in stage.commits or seat in stage.declined:
            return f"p{seat} has decided this stage: it can pay what it owes instead"
        if (number, seat) in self.time.disputes:
            return f"p{seat} already disputed a claim this stage (once is all an honest clock needs)"
        had = ClockBook.left(stage, seat)
        if left_ms > had:
            return f"p{seat}'s dispute says {left_ms} ms are left; its clock had {had} ms"
        return ""

    # Hidden cards: a flip is opened by the pile's owner, from the commitment that laid the card.

    def _flip_of(self, stage: Stage) -> int | None:
        for act in stage.acts.values():
            pile = self.m.spec.flipped_pile(act)
            if pile is not None:
                return pile
        return None

    def _holds_pile(self, stage: Stage) -> bool:
        pile = self._flip_of(stage)
        return pile is not None and self.me is not None and self.owner[pile] == self.me

    def _top_card(self, pile: int) -> tuple[int, int]:
        return self.cards.top(self.m.spec, self.state, pile)

    def _open_card(self, stage: Stage) -> None:
        pile = self._flip_of(stage)
        assert pile is not None
        ref = self._top_card(pile)
        action, nonce = self.my_secrets[ref]
        self._send(Reveal(ref[0], ref[1], action, nonce))

    def _on_late_reveal(self, env: Envelope, msg: Reveal) -> None:
        if env.author == self.me and (self.stage is None or self._flip_of(self.stage) is None):
            return  # our own gestures, kept from a blinded peer until now: a record only
        number, seat, action, nonce = msg.stage, msg.seat, msg.action, msg.nonce
        if seat >= len(self.owner) or self.owner[seat] != env.author:
            raise MessageError(f"peer {env.author} does not hold seat p{seat}")
        committed = self.commit_log.get((number, seat))
        if committed is None:
            raise MessageError(f"no commitment of p{seat} at stage {number} to open")
        self._check_opening(env, number, seat, action, nonce, committed)
        self._check_card(env, number, seat, action)
        if self.blinds.open(number, seat, action):
            self._catch_up()
            return
        stage = self.stage
        pile = None if stage is None or self.behind else self._flip_of(stage)
        if stage is None or pile is None or stage.opened is not None:
            raise MessageError(f"nothing waits for p{seat}'s stage-{number} opening")
        if self._top_card(pile) != (number, seat):
            raise CheatError(
                env.author,
                "opened another card than the one on top of the flipped pile",
                {"message": env.hash.hex()},
            )
        stage.opened = action
        self.cards.open((number, seat), action)
        self._progress()

    def _check_card(self, env: Envelope, number: int, seat: int, action: Plain) -> None:
        """A hidden card's opening must be a card, of the kind it was played as: a commitment to
        anything else (a bid, a ruby) convicts the peer that made it, not the one who flipped."""
        applied = self.cards.applied.get((number, seat))
        if applied is not None and not self.m.spec.opens(applied, action):
            raise CheatError(
                env.author,
                f"opened p{seat}'s stage-{number} card to something that is not one ({shown(action)})",
                {"message": env.hash.hex()},
            )

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
        if stage.optional:  # an optional action's window (a challenge, say)
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
            if self.fault is not None or self.stage is not stage:
                return  # (a reveal of ours just above completed the stage: applied, or a fault)
            if not all(s in stage.reveals for s in stage.waiting):
                return
            actions = [(s, stage.reveals[s]) for s in sorted(stage.waiting)]
        elif (pile := self._flip_of(stage)) is not None:
            if stage.opened is None:
                return
            (seat,) = stage.acts
            piles = self.m.spec.piles
            assert piles is not None  # (_flip_of found a flip: the game has piles)
            actions = [(seat, piles.flip_with(pile, stage.opened))]
        else:
            actions = [
                (s, stage.acts[s] if s in stage.acts else self._hidden_or_mine(stage, s))
                for s in sorted(stage.waiting)
            ]
        self._apply(stage, actions)

    def _reveal_mine(self, stage: Stage, seat: int) -> None:
        action, nonce = self.my_secrets[(stage.number, seat)]
        body = Reveal(stage.number, seat, action, nonce)
        blind = self._blind_others()
        if blind:
            # Keep the gestures from a blinded wizard's machine until its blindness ends.
            self.blinds.withhold(stage.number, body, blind)
            stage.reveals[seat] = action
            return
        self._send(body)

    def _hidden_or_mine(self, stage: Stage, seat: int) -> Plain:
        if self.owner[seat] == self.me:
            return self.my_secrets[(stage.number, seat)][0]
        cards = self.m.spec.cards
        assert cards is not None  # (another peer's choice is unknown here only if it is hidden)
        return cards.placeholder(self.state, seat)

    def _apply(self, stage: Stage, actions: list[tuple[int, Plain]]) -> None:
        """Apply a complete stage, check and send the state hash, and open the next stage."""
        blind = self._blind_others()
        if blind and self.me is not None:  # a blinded peer needs a claim for every such stage
            self.blinds.during[stage.number] = blind
        try:
            events = self._apply_actions(stage, actions)
        except CheatError as exc:
            # Whichever message completed the stage: maybe one of ours, when the peer at fault
            # revealed its choice early, before ours. The match stops on the fault here; it is
            # not a refusal of our decision (the driver would take it for one and ask again).
            self._cheat(exc)
            return
        self.clockbook.charge(stage)
        self.events.append(Applied(stage.number, tuple(actions), tuple(events), self.state))
        self._after_stage(stage)
        if self.fault is None:
            self._open_stage(stage.number + 1)

    def _apply_actions(self, stage: Stage, actions: list[tuple[int, Plain]]) -> list[Plain]:
        spec = self.m.spec
        state = self.state
        events: list[Plain] = []
        for seat, action in actions:
            # Blind now, or in the turn just played: a choice asked for right after a blind turn
            # (its own Paralysis asking which hand) was made from the claims, without the field.
            blind = self._blind_in(state, seat) or self._blind_in(state, seat, turns_ago=1)
            before = self.m.game.events(state)
            parsed: Any = None
            try:
                parsed = self.m.game.parse_action(action)
                state = self.m.game.apply(state, seat, parsed)
            except IllegalActionError as exc:
                if not blind:
                    raise CheatError(
                        self.owner[seat], f"an illegal action for p{seat}: {exc}", {"stage": stage.number}
                    ) from None
                # A blinded player chose without seeing the field: its choice is made legal, the
                # game's way, identically on every machine.
                assert spec.blindness is not None  # (a seat is blind only in a game with blindness)
                state = self.m.game.apply(state, seat, spec.blindness.fix(state, seat, parsed))
            if self.m.game.events(state) is not before:  # a pending submission says nothing new
                events += list(self.m.game.events(state))
            self.log.append((stage.number, seat, action))
            self.cards.played(spec, (stage.number, seat), action)
        if spec.new_round(self.state, state):
            self.clockbook.new_round(stage.number)
        self.state = state
        self.cards.settle(spec, state)
        return events

    def _after_stage(self, stage: Stage) -> None:
        h = state_hash(self.m.game, self.state)
        self.my_hashes[stage.number] = h
        if self.me is not None:
            body = Hash(stage.number, h)
            blind = self.blinds.during.get(stage.number)
            if blind:
                self._send_blind_claims(stage)
                # The hash covers the withheld choices: it waits with them until the blindness
                # ends (a blind peer could otherwise test its guesses against it).
                self.blinds.withhold(stage.number, body, blind)
            else:
                self._send(body)
            self._release_withheld()
        self._compare_hashes(stage.number)
