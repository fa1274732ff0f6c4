"""The match session, sans-IO: signed messages in, events and messages out (protocol/SPEC.md).

One :class:`Session` per peer drives the game engine in lockstep with the others. It never touches a
socket, a clock or a disk: the I/O layer feeds it messages (:meth:`receive`) and local decisions
(:meth:`submit`, :meth:`decline`, :meth:`chat`; what is said of time, a forfeit too, through its
:class:`~.referee.Referee`), and after each call takes ``flush()`` (its courier's), which says
what to append to the transcript and the secrets file (first, durably) and which messages to send
to every other peer (after).

A match goes: terms (the host's proposal) and accepts; a commit-reveal coin flip that deals the
seat groups to the peers; then *stages*, until the game's end, the disclosure of every hidden
choice not yet opened (a game with them) and every peer's signed result. The session is thin: it
opens each message, hands it by type to the part that takes it, and asks the parts what a driver
asks it. The parts, each an object, share one
:class:`~.courier.Courier` (the record, the chain, the phase): :class:`~.setup.MatchSetup` (the
terms and the deal), :class:`~.referee.Referee` (time: claims, disputes, forfeits) and, from the
deal on, :class:`~.play.Play` (the stages), which holds the match with its
:class:`~.sight.Sight` and its :class:`~.ending.EndJudge`.

A :class:`Session` with no identity is an *observer*: fed a transcript's messages in order it
re-checks everything (``p2pgenius verify``).
"""

from __future__ import annotations

import secrets as random_source
from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import LocalMisuseError
from p2pgenius.games.base import Outcome
from p2pgenius.protocol.bodies import (
    MAX_TEXT,
    SETUP,
    Accept,
    Body,
    Chat,
    CoinReveal,
    Commit,
    Desync,
    Disclosure,
    Dispute,
    End,
    Forfeit,
    Hash,
    Invalid,
    Observed,
    Terms,
    TimeoutClaim,
    is_text,
)
from p2pgenius.protocol.events import ChatReceived, ClockView, Event, Fault
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import VERSION, Envelope, MessageError, open_envelope
from p2pgenius.protocol.records import CoinSecret, secrets_of, typed
from p2pgenius.protocol.session.chain import SignedLog
from p2pgenius.protocol.session.courier import Courier
from p2pgenius.protocol.session.debts import Debt
from p2pgenius.protocol.session.faults import CheatError, SessionError
from p2pgenius.protocol.session.match import DealtMatch
from p2pgenius.protocol.session.phase import ACCEPTED, WHEN, Phase, PhaseError
from p2pgenius.protocol.session.play import STAGE_MESSAGES, Choices, Play
from p2pgenius.protocol.session.referee import DebtLedger, Referee
from p2pgenius.protocol.session.setup import MatchSetup
from p2pgenius.protocol.session.stage import Stage
from p2pgenius.protocol.session.view import SessionView


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
        coin: bytes | None = None,
        version: int = VERSION,
        recording: bool = True,
    ) -> None:
        courier = Courier(
            keys=keys,
            me=me,
            identity=identity,
            names=names,
            randomness=randomness,
            version=version,
            recording=recording,
        )
        self.courier = courier
        self.keys, self.me, self.identity = courier.keys, me, identity
        self.randomness, self.version, self.chain = randomness, version, courier.chain
        self.names = courier.names  # (one list: the terms' names replace its contents)
        self.setup = MatchSetup(courier, expected=expected, coin=coin)
        self.referee = Referee(courier, self)
        self.time = self.referee.time
        self.play: Play | None = None  # from the deal on: the stages, the match, its end
        courier.dispatch = self._dispatch
        # What the driver takes after each call: the courier's own (see the module's doc).
        self.flush = courier.flush  # what to persist and send since the last flush
        self.take_events = courier.take_events  # the events produced since the last call

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
        courier = session.courier
        courier.on_file = _take_secrets(session, secrets)
        messages = read.messages
        courier.replay = [raw for raw in messages if open_envelope(raw, keys).author == me]
        for raw in messages:
            if open_envelope(raw, keys).author != me:
                session.receive(raw)
            elif courier.replay and courier.replay[0] == raw:
                # One of our own decisions (a move, a chat): the match did not make it for us.
                courier.replay.pop(0)
                env = open_envelope(raw, keys)
                courier.chain.accept(env)
                courier.handle(env)
        if courier.replay:
            raise SessionError(
                f"{len(courier.replay)} of our recorded messages do not fit the "
                "match: the transcript is damaged"
            )
        # Each of our commitments on record took the secret that opens it as the replay took it
        # in; one still held for a stage not reached yet (a choice made early) is opened here, by
        # nothing else either. A secret with none on record (written just before a crash, its
        # commitment not sent) stays the newest on file, as _take_secrets left it.
        if session.play is not None:
            for env in session.play.backlog:
                if env.author == me and isinstance(env.msg, Commit):
                    session.play.open_from_file((env.msg.stage, env.msg.seat), env.msg.commitment)
        courier.replay = courier.on_file = None
        session.take_events()
        return session

    # -- where the match stands (the parts' answers) ------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the match stands: the one source (phase.py)."""
        return self.courier.phase

    @property
    def fault(self) -> Fault | None:
        """Why the match stopped (None: it did not)."""
        return self.courier.fault

    @property
    def finished(self) -> bool:
        """The match is over and every check passed."""
        return self.courier.phase is Phase.OVER

    @property
    def match_id(self) -> bytes:
        """The hash of the terms (empty before they are in)."""
        return self.courier.match_id

    @property
    def terms(self) -> dict[str, Any] | None:
        """The host's terms, once they are in."""
        return self.setup.terms

    @property
    def played(self) -> Play:
        """The stages, from the deal on (asking before is a bug: the phase says when)."""
        if self.play is None:
            raise PhaseError("no match yet: the seats are not dealt")
        return self.play

    @property
    def match(self) -> DealtMatch | None:
        """The match, from the deal on."""
        return self.play.match if self.play is not None else None

    @property
    def stage(self) -> Stage | None:
        """The stage being played (None before the deal and after the game's end)."""
        return self.play.stage if self.play is not None else None

    @property
    def state(self) -> Any:
        """The engine state (None before the deal)."""
        return self.play.match.state if self.play is not None else None

    @property
    def owner(self) -> tuple[int, ...]:
        """The peer holding each seat (empty before the deal)."""
        return self.play.match.owner if self.play is not None else ()

    @property
    def my_seats(self) -> tuple[int, ...]:
        """The seats this peer holds (none for an observer, or before the deal)."""
        return self.play.match.mine if self.play is not None else ()

    @property
    def log(self) -> list[tuple[int, int, Plain]]:
        """(stage, seat, action) as applied here."""
        return self.play.match.log if self.play is not None else []

    @property
    def outcome(self) -> Outcome | None:
        """The match's result, once known here."""
        return self.play.ending.outcome if self.play is not None else None

    @property
    def fast(self) -> bool:
        """Whether a stage closes as soon as every choice is in (no choice can change after)."""
        spec, terms = self.setup.spec, self.setup.terms
        return spec is None or terms is None or not spec.sealed or bool(terms["options"].get("fast", False))

    @property
    def behind(self) -> list[Stage]:
        """The stages this peer saw only through view claims (none: it sees the field)."""
        return self.play.sight.unseen.behind if self.play is not None else []

    @property
    def view(self) -> SessionView:
        """This session, read only: what a screen, a bot or a report is given."""
        return SessionView(self)

    # -- messages in, and the record out ------------------------------------------------------

    def receive(self, raw: bytes) -> list[Event]:
        """A message from a peer (or from a transcript). Returns the events it caused; a bad
        message is refused and recorded, and never raises."""
        courier = self.courier
        try:
            env = open_envelope(raw, self.keys, version=self.version)
            if courier.match_id and env.match_id != courier.match_id:
                raise MessageError("a message from another match (replayed across matches)")
            if env.author == self.me:
                raise MessageError("a message claiming to be our own")
            courier.chain.accept(env)
        except MessageError as exc:
            courier.reject(raw, None, str(exc))
            return courier.take_events()
        except CheatError as exc:  # equivocation: keep the second message, it is the proof
            courier.record(["rejected", raw, exc.reason])
            courier.convict(exc)
            return courier.take_events()
        courier.record(["msg", raw])
        courier.guarded(env)
        self.referee.heard(env)
        return courier.take_events()

    def ledger_so_far(self) -> DebtLedger:
        """An observer's ledger of debts as it would stand had it been kept from the start
        (:attr:`Referee.ledger`): a new observer's, fed every message this one took before the
        one being read. The whole match so far replayed: for a verification, once at most."""
        observer = Session(
            keys=self.keys, me=None, names=list(self.names), version=self.version, recording=False
        )
        for _, _, raw in self.chain.archive[:-1]:
            observer.receive(raw)
        assert observer.referee.ledger is not None  # (kept from the start: a new observer's is)
        return observer.referee.ledger

    @property
    def defer_verdict(self) -> bool:
        """Whether a driver with an event loop judges the match's end off it (:class:`VerdictDue`)."""
        return self.courier.defer_verdict

    @defer_verdict.setter
    def defer_verdict(self, value: bool) -> None:
        self.courier.defer_verdict = value

    def holds_forfeit(self, stage: int, seat: int) -> bool:
        """Whether another peer's forfeit of ``seat`` (a peer, at stage -2) at ``stage`` is held
        here, waiting for its check, and nothing read since has answered it."""
        key = (stage, seat)
        return key in self.referee.time.pending and key not in self.referee.answers

    @property
    def signed_log(self) -> SignedLog:
        """The match's signed messages as a carrier moves them (a ``sync``, a spectator's feed, a
        peer that came back): read only."""
        return SignedLog(self.courier.chain)

    def _dispatch(self, env: Envelope) -> None:
        msg, courier = env.msg, self.courier
        if courier.stopped:
            if isinstance(msg, Desync):
                _keep_desync(courier, env, msg)
            elif isinstance(msg, Hash) and self.me is None and self.play is not None:
                self.play.ending.on_late_hash(env, msg)
            return
        if isinstance(msg, Invalid):
            raise MessageError(msg.reason)
        if not isinstance(msg, ACCEPTED[courier.phase]):
            raise MessageError(f"a {msg.kind} message {WHEN[courier.phase]}")
        _HANDLERS[type(msg)](self, env, msg)

    # -- local decisions ------------------------------------------------------------------------

    @property
    def choices(self) -> Choices:
        """This peer's side of the stages, which takes its local decisions (LocalMisuseError
        before the deal): besides :meth:`submit` and :meth:`decline`, a driver calls
        ``choices.finalize(seat)`` (a sealed game without "fast": the time is up on this peer,
        ``seat``'s last commitment stands) and ``choices.time_out(seat)`` (``seat``'s clock ran
        out on this, its own, peer: the rules' timeout action, an optional challenge let pass, a
        sealed choice standing)."""
        if self.play is None:
            raise LocalMisuseError("the match is not at a stage where anyone can act")
        return self.play.choices

    def submit(self, seat: int, action: Mapping[str, Plain], *, ms: int = 0, early: bool = False) -> None:
        """A local decision for ``seat`` at the current stage, which took ``ms`` of its clock.
        Raises IllegalActionError or LocalMisuseError (nothing is sent) if it is not allowed. In
        a sealed game without "fast", a new choice replaces the last until ``choices.finalize``.
        ``early``: for the *next* stage, made while the current one is still open (see
        :meth:`early`); it travels as a commitment, declaring no time, and every peer (this one
        too) holds it until that stage opens."""
        if early:
            self.choices.submit_early(seat, action)
        else:
            self.choices.submit(seat, action, ms=ms)

    def decline(self, seat: int, *, ms: int = 0) -> None:
        """Let an optional action pass (say, no challenge). A window is not on the clock: the
        decline declares no time (``ms`` is ignored)."""
        del ms
        self.choices.decline(seat)

    def chat(self, text: str) -> None:
        """Say something to the table."""
        if not text or not is_text(text):
            raise LocalMisuseError(
                f"a chat line has 1 to {MAX_TEXT} printable characters (no control characters)"
            )
        self.courier.send(Chat(text))

    # -- what is owed, and by whom ----------------------------------------------------------

    def debts(self) -> tuple[Debt, ...]:
        """Everything the match waits on now, each due (debts.py: what is owed, when it falls
        due, and which rule says when it is late): nothing before it is due."""
        if self.courier.phase is Phase.COIN_REVEAL:
            return tuple(Debt("coin", peer, SETUP) for peer in self.setup.unrevealed())
        return self.play.debts() if self.play is not None else ()

    def owed(self) -> tuple[int, ...]:
        """The seats the match is waiting on right now (their :meth:`debts`; none before the deal)."""
        return self.play.owed() if self.play is not None else ()

    def awaiting(self) -> tuple[int, ...]:
        """The local seats that may still act in the current stage (drivers ask this rather than
        trusting an older YourTurn event)."""
        return self.play.choices.awaiting() if self.play is not None else ()

    def unsettled(self) -> tuple[int, ...]:
        """The local seats whose choice may still change (sealed, without "fast")."""
        return self.play.choices.unsettled() if self.play is not None else ()

    def committed(self, seat: int) -> Plain | None:
        """What this peer committed ``seat`` to at the current stage (not yet opened), or None."""
        return self.play.choices.committed(seat) if self.play is not None else None

    def early(self) -> tuple[int, ...]:
        """The local seats that may already choose for the *next* stage (the game's ``spec.ahead``)."""
        return self.play.choices.early() if self.play is not None else ()

    def early_state(self) -> Any:
        """The state the seats of :meth:`early` choose from (None: nobody may choose early)."""
        return self.play.choices.early_state() if self.play is not None else None

    def settle(self) -> None:
        """The end of an observer's record (a transcript replayed): what it held for lack of an
        answer stands now: a forfeit nothing answered; and a desync that a hash later in the
        record showed to be a lie is its author's cheat."""
        if self.play is not None:
            self.play.ending.settle()
        self.referee.settle_forfeits()

    def unconfirmed(self) -> tuple[int, ...]:
        """The peers whose signed word of the known result has not come (none before it is known)."""
        return self.play.ending.unconfirmed() if self.play is not None else ()

    def clocks(self, only: int | None = None) -> dict[int, ClockView]:
        """Every seat's clock at the current stage (none between stages or after the end), or
        ``only`` that seat's (a local decision reads its own: the others' are not made)."""
        return self.play.clocks(only) if self.play is not None else {}


def _paid_at_the_end(
    session: Session, env: Envelope, take: Callable[[Envelope, Any], None], msg: Any
) -> None:
    """A peer's disclosure or signed result, taken: it answers every claim about its seats after
    the end (a claim about its disclosure, answered, does not stand on for the result it owes
    next)."""
    take(env, msg)
    for seat, peer in enumerate(session.owner):
        if peer == env.author:
            session.referee.time.answered((-1, seat))


def _keep_desync(courier: Courier, env: Envelope, msg: Desync) -> None:
    """A peer found our hashes differ and sent the state it computed: keep it as evidence."""
    if env.author != courier.me:
        courier.flushing.records.append(encode(["desync_state", env.author, msg.stage, msg.state]))


def _on_coin_reveal(session: Session, env: Envelope, msg: CoinReveal) -> None:
    dealt = session.setup.on_coin_reveal(env, msg)
    if dealt is not None:  # the last share: the seats are dealt, the stages begin
        session.play = Play(session.courier, dealt, session.time)
        session.play.open_stage(0)


def _on_chat(session: Session, env: Envelope, msg: Chat) -> None:
    if env.author != session.me:
        session.courier.events.append(ChatReceived(env.author, msg.text))


_HANDLERS: Final[dict[type[Body], Callable[[Session, Envelope, Any], None]]] = {
    Terms: lambda s, env, msg: s.setup.on_terms(env, msg),
    Accept: lambda s, env, msg: s.setup.on_accept(env, msg),
    CoinReveal: _on_coin_reveal,
    Chat: _on_chat,
    Desync: lambda s, env, msg: _keep_desync(s.courier, env, msg),
    Observed: lambda s, env, msg: s.referee.on_observed(env, msg),
    TimeoutClaim: lambda s, env, msg: s.referee.on_time_message(env, msg),
    Dispute: lambda s, env, msg: s.referee.on_time_message(env, msg),
    Forfeit: lambda s, env, msg: s.referee.on_forfeit(env, msg),
    Hash: lambda s, env, msg: s.played.ending.on_hash(env, msg),
    Disclosure: lambda s, env, msg: _paid_at_the_end(s, env, s.played.ending.on_disclosure, msg),
    End: lambda s, env, msg: _paid_at_the_end(s, env, s.played.ending.on_end, msg),
    **{kind: lambda s, env, msg: s.played.on_stage_message(env, msg) for kind in STAGE_MESSAGES},
}
"""The part that takes each type of message (every type a phase accepts: phase.ACCEPTED)."""


def _take_secrets(
    session: Session, secrets: list[list[Any]]
) -> dict[tuple[int, int], list[tuple[Plain, bytes]]]:
    """Take our coin share and sealed choices from the secrets records; every secret of each
    (stage, seat), in order (a choice replaced has several)."""
    candidates: dict[tuple[int, int], list[tuple[Plain, bytes]]] = {}
    for secret in secrets_of(secrets):
        if isinstance(secret, CoinSecret):
            session.setup.my_coin = secret.nonce
        else:
            ref, choice = (secret.stage, secret.seat), (secret.action, secret.nonce)
            session.courier.secrets[ref] = choice
            candidates.setdefault(ref, []).append(choice)
    return candidates
