"""A session's record and standing: who plays, the chain of signed messages, what to send and
keep, and the phase the match is in (one source: no flag says it again).

Every part of a session (set-up, stages, sight, the end, time) holds the same
:class:`Courier` and speaks through it: it signs and sends our messages and hands each, as it
goes out, to the session's dispatch like any other; it records refusals and faults; it moves the
phase, only along :data:`~p2pgenius.protocol.session.phase.MOVES`, on the trigger being handled.
"""

from __future__ import annotations

import secrets as random_source
from collections.abc import Callable

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.bodies import Body
from p2pgenius.protocol.events import Event, Fault, FaultKind, Flush, Rejected
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import OLD_VERSION, VERSION, Envelope, MessageError, open_envelope, seal
from p2pgenius.protocol.session.chain import Chain
from p2pgenius.protocol.session.faults import CheatError, SessionError
from p2pgenius.protocol.session.phase import Phase, Trigger, advance

Secrets = dict[tuple[int, int], tuple[Plain, bytes]]
"""(stage, seat) -> (the action, its nonce): our own hidden choices, as committed."""
OnFile = dict[tuple[int, int], list[tuple[Plain, bytes]]]
"""(stage, seat) -> every secret the secrets file holds for it, in order (while restoring)."""


def _nowhere(env: Envelope) -> None:
    raise LocalMisuseError("a courier with no session to hand its messages to")


class Courier:
    """One peer's (or an observer's) record of a match, and where the match stands."""

    def __init__(
        self,
        *,
        keys: list[bytes],
        me: int | None,
        identity: Identity | None,
        names: list[str] | None,
        randomness: Callable[[int], bytes] = random_source.token_bytes,
        version: int = VERSION,
        recording: bool = True,
    ) -> None:
        if (me is None) != (identity is None):
            raise LocalMisuseError("a player session needs both its peer index and identity")
        if me is not None and identity is not None and keys[me] != identity.public:
            raise LocalMisuseError("the identity does not match this peer's key")
        if version not in (OLD_VERSION, VERSION) or (version != VERSION and me is not None):
            raise LocalMisuseError(f"match messages of version {version} can only be read")
        self.version = version  # of the match messages: 2 only to read an old transcript
        self.keys = list(keys)
        self.me = me
        self.identity = identity
        self.names = list(names) if names else [f"peer {i}" for i in range(len(keys))]
        self.randomness = randomness  # the only entropy: nonces and coin shares (injectable)
        self.chain = Chain(len(keys), binding=version >= VERSION)
        self.match_id = b""
        self.flushing = Flush()
        self.recording = recording  # False: an observer whose record nobody writes (a verification)
        self.events: list[Event] = []
        self.secrets: Secrets = {}
        self.replay: list[bytes] | None = None  # our own recorded messages, while restoring
        self.on_file: OnFile | None = None  # every secret of each (stage, seat) on disk, while restoring
        self.phase = Phase.TERMS
        self.fault: Fault | None = None  # why the match stopped (the phase is FAULT), once it has
        self.trigger: Trigger | None = None  # what is being handled now (what may move the phase)
        self.stage_number = -1  # the stage being played (-1: none), which a fault is dated by
        self.defer_verdict = False  # a driver with an event loop judges the match's end off it (VerdictDue)
        self.dispatch: Callable[[Envelope], None] = _nowhere  # the session's, set by the session
        self.stopping: list[Callable[[], None]] = []  # what runs once a fault has stopped the match

    @property
    def stopped(self) -> bool:
        """A fault stopped the match."""
        return self.phase is Phase.FAULT

    def enter(self, phase: Phase) -> None:
        """Move the match to ``phase`` (only as the trigger being handled allows)."""
        self.phase = advance(self.phase, phase, self.trigger)

    def handle(self, env: Envelope) -> None:
        """Dispatch ``env``, its type being what may move the phase meanwhile."""
        previous, self.trigger = self.trigger, type(env.msg)
        try:
            self.dispatch(env)
        finally:
            self.trigger = previous

    def guarded(self, env: Envelope) -> None:
        """Dispatch a peer's message; what is wrong with it is refused (MessageError) or
        convicted (CheatError). Its form was checked when its envelope was opened, so any other
        error is ours, and is not blamed on the peer: it goes up to whoever runs the session."""
        try:
            self.handle(env)
        except MessageError as exc:
            self.reject(env.raw, env.author, str(exc))
        except CheatError as exc:
            self.convict(exc)

    def send(self, msg: Body) -> None:
        """Sign ``msg`` as our next message, record it, queue it for every peer, and handle it
        here as every peer will."""
        assert self.me is not None and self.identity is not None
        if self.replay:
            # Restoring: this message was sent before the crash; take it from the transcript.
            raw = self.replay.pop(0)
            recorded = open_envelope(raw, self.keys, version=self.version)
            if recorded.kind != msg.kind:
                raise SessionError(
                    f"the transcript's next message of ours is {recorded.kind}, "
                    f"but the match now calls for {msg.kind}: it does not fit"
                )
            self.chain.accept(recorded)
            self.handle(recorded)
            return
        body = msg.to_body()
        seq, heads = self.chain.next_seq[self.me], self.chain.heads()
        raw = seal(self.identity, self.match_id, self.me, seq, heads, body)
        envelope = Envelope(self.match_id, self.me, seq, tuple(heads), tuple(body), raw, msg)
        self.chain.accept_own(envelope)
        self.flushing.records.append(encode(["msg", raw]))
        self.flushing.messages.append(raw)
        self.handle(envelope)

    def keep(self, record: list[Plain]) -> None:
        """Write ``record`` to the secrets file (while restoring, it is on disk already)."""
        if self.replay is None:
            self.flushing.secrets.append(encode(record))

    def record(self, record: list[Plain]) -> None:
        """Append ``record`` to the transcript (while restoring, it is there already; not
        recording, it is never written)."""
        if self.replay is None and self.recording:
            self.flushing.records.append(encode(record))

    def reject(self, raw: bytes, author: int | None, reason: str) -> None:
        """Refuse a message: recorded, as evidence, and told."""
        self.record(["rejected", raw, reason])
        self.events.append(Rejected(author, reason))

    def convict(self, exc: CheatError) -> None:
        """Stop the match on a peer's proven cheat."""
        self.stop(Fault(FaultKind.CHEAT, exc.peer, self.stage_number, exc.reason, exc.evidence))

    def stop(self, fault: Fault) -> None:
        """Stop the match (once: the first fault is the one that stands), then do what is done
        once it has stopped (:attr:`stopping`)."""
        if not self.stopped:
            self.fault = fault
            self.enter(Phase.FAULT)
            self.record(["fault", fault.kind, fault.peer, fault.stage, fault.reason, dict(fault.evidence)])
            self.events.append(fault)
            for then in self.stopping:
                then()

    def restate(self, fault: Fault) -> None:
        """An observer's word on why the match stopped, made precise by what the record held after
        the stop (a desync whose other hash came later: a lie, proven)."""
        assert self.me is None and self.stopped
        self.fault = fault
        self.events.append(fault)

    def flush(self) -> Flush:
        """Take what must be persisted and sent since the last flush."""
        out, self.flushing = self.flushing, Flush()
        return out

    def take_events(self) -> list[Event]:
        """Take the events produced since the last call."""
        events, self.events = self.events, []
        return events
