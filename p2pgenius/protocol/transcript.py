"""Transcripts: every message of a match as this peer sent or received it, and their verification.

A transcript is a sequence of records, each a 4-byte big-endian length and a canonical msgpack
array (protocol/SPEC.md, "Transcript"):

* ``["p2pgenius-transcript", 2, {"peers": [keys], "me": index | null, ...}]``: the header, first;
* ``["msg", envelope]``: a message as sent or received (its bytes, as ``bin``), in the order this
  peer processed them;
* ``["rejected", bytes, reason]``: something a peer sent that was refused (evidence);
* ``["fault", kind, peer, stage, reason, evidence]``: why this peer stopped the match;
* ``["desync_state", author, stage, state]``: the public state another peer sent in its desync.

Every field, and each kind of fault's evidence, is in protocol/SPEC.md section 7.

:func:`verify` replays the messages in an observer :class:`Session` with the public keys alone:
signatures, chains, commitments, every action's legality, every state hash, blindness claims and
the Hornswoggle audit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from p2pgenius.canonical import Plain, decode, encode
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.messages import OLD_VERSION, VERSION
from p2pgenius.protocol.session import (
    Applied,
    BlindClaim,
    Fault,
    ForfeitVoided,
    MatchOver,
    Phase,
    Rejected,
    Session,
    TimeObserved,
)

MAGIC: Final = "p2pgenius-transcript"
MAX_RECORD: Final = 1 << 20


class TranscriptError(P2PGeniusError):
    """A transcript file that cannot be read."""


def header(keys: list[bytes], me: int | None, **extra: Plain) -> bytes:
    """The framed header record (``extra``: what a peer needs to resume, e.g. its address)."""
    return frame(encode([MAGIC, VERSION, {**extra, "peers": keys, "me": me}]))


def frame(record: bytes) -> bytes:
    """One record with its length prefix."""
    return len(record).to_bytes(4, "big") + record


def records(data: bytes, *, headed: bool = True) -> Iterator[list[Any]]:
    """The decoded records of a transcript (``headed`` False: of a secrets file, which has no
    header); raises TranscriptError on damage."""
    offset = 0
    while offset < len(data):
        # A transcript's header comes first: a first record that is not one is another kind of
        # file (a text file, say), not a damaged transcript.
        first = headed and offset == 0
        stranger = TranscriptError("not a p2pgenius transcript (it does not start with one's header)")
        if offset + 4 > len(data):
            raise stranger if first else TranscriptError(f"the transcript is cut short at byte {offset}")
        length = int.from_bytes(data[offset : offset + 4], "big")
        if length > MAX_RECORD or offset + 4 + length > len(data):
            raise (
                stranger
                if first
                else TranscriptError(f"a damaged record at byte {offset} (a crash mid-write?)")
            )
        try:
            value = decode(data[offset + 4 : offset + 4 + length])
        except EncodingError as exc:
            if first:
                raise stranger from None
            raise TranscriptError(f"a record at byte {offset} is not canonical: {exc}") from None
        if not isinstance(value, list) or not value or (first and value[0] != MAGIC):
            raise stranger if first else TranscriptError(f"a record at byte {offset} is not a list")
        yield value
        offset += 4 + length


@dataclass(frozen=True)
class Step:
    """One stage of a match as a transcript holds it: the actions applied (a hidden card as it was
    opened, once the transcript opens it), what the engine said happened, the state after."""

    stage: int
    actions: tuple[tuple[int, Plain], ...]
    events: tuple[Plain, ...]
    state: Any
    """The engine state after the stage; None for a stage the transcript shows only through a
    blindness claim (it stops before the withheld choices were opened)."""
    blind: tuple[int, ...] = ()
    """The seats that were blind while the stage was played (the duel's Blindness)."""
    seen: Mapping[str, Plain] | None = None
    """What the transcript's own peer was shown of the stage instead, when a seat of its was blind
    (the claim it received: its seat's view after the stage)."""


FINISHED: Final = "finished"
"""The transcript proves a result: its messages yield it and every peer signed it (``end``)."""
UNCONFIRMED: Final = "unconfirmed"
"""Its messages yield a result, but not every peer signed it: this peer's word alone, no result."""
STOPPED: Final = "stopped"
"""A fault stopped the match (a cheat, a forfeit, states that diverged), proven by what is signed."""
INCOMPLETE: Final = "incomplete"
"""It stops before any result (a match under way, or cut short with nothing proven)."""
REFUSED: Final = "refused"
"""The transcript's own peer refused the terms: no match was played under them."""


@dataclass
class Report:
    """What ``verify`` found."""

    ok: bool
    summary: str
    outcome: dict[str, Plain] | None = None
    """The result the messages yield (FINISHED: every peer signed it; UNCONFIRMED: not), in its
    plain form, as signed (the game's spec reads it back: ``read_outcome``)."""
    messages: int = 0
    fault: Fault | None = None
    rejected: list[str] = field(default_factory=list)
    game: str | None = None
    disputed_time: list[str] = field(default_factory=list)
    """Decisions whose declared time another peer disputed on the record (``observed``)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """The transcript's header (peers, me, role, address, name...)."""
    terms: dict[str, Any] | None = None
    names: list[str] = field(default_factory=list)
    owner: tuple[int, ...] = ()
    """The peer holding each seat (empty before the deal)."""
    initial: Any = None
    """The engine state before stage 0 (None before the deal)."""
    steps: list[Step] = field(default_factory=list)
    """Every stage played, in order (``p2pgenius replay`` and ``export`` read these)."""
    standing: str = INCOMPLETE
    """What the transcript proves: FINISHED, UNCONFIRMED, STOPPED, INCOMPLETE or REFUSED."""
    version: int = VERSION
    """Its match messages' version (2: an old transcript, which proves no result)."""
    unsigned: tuple[int, ...] = ()
    """UNCONFIRMED: the peers whose signed word of the result is missing."""
    winners: tuple[int, ...] = ()
    """The seats that won: those the result names (FINISHED), or every seat of the sides the
    peer at fault holds none of (a forfeit or a cheat, once the seats are dealt)."""
    refused_terms: str | None = None
    """Why the transcript's own peer refused the terms, if it did (its ``rejected`` record)."""
    chains: list[list[bytes]] = field(default_factory=list)
    """Per peer, the hash of each of its messages that the transcript holds, in its order: what
    a copy of the match holds of each peer's signed history (copies are compared by these)."""


def verify(data: bytes) -> Report:
    """Check a transcript with the public keys it lists alone."""
    items = iter(records(data))
    first = next(items, None)
    if not (isinstance(first, list) and len(first) == 3 and first[0] == MAGIC):
        raise TranscriptError("not a p2pgenius transcript (no header)")
    if first[1] not in (VERSION, OLD_VERSION):
        raise TranscriptError(
            f"a transcript of match version {first[1]!r}; this program reads versions {OLD_VERSION} "
            f"and {VERSION} (a transcript is verified by the p2pgenius version that played it)"
        )
    meta = first[2]
    keys = meta.get("peers") if isinstance(meta, dict) else None
    if not isinstance(keys, list) or not all(isinstance(k, bytes) for k in keys) or len(keys) < 2:
        raise TranscriptError("the header does not list the peers' keys")
    observer = Session(keys=keys, me=None, version=first[1])
    report = Report(ok=False, summary="", version=first[1], meta=dict(meta))
    claims = _replay(observer, items, report)
    observer.settle_forfeits()  # a forfeit that nothing after it answered stands
    for event in observer.take_events():
        if isinstance(event, Fault) and report.fault is None:
            report.fault = event
        elif isinstance(event, ForfeitVoided):
            report.disputed_time.append(
                f"peer {event.author} signed that {'peer' if event.stage < 0 else 'p'}{event.seat} "
                f"forfeited at stage {event.stage}, and it answered after: contested, not taken"
            )
    report.game = observer.terms["game"] if observer.terms else None
    report.terms, report.names = observer.terms, list(observer.names)
    report.owner = tuple(observer.owner)
    report.chains = _chains(observer)
    if observer.terms is not None and observer.game is not None and observer.owner:
        report.initial = observer.game.initial(observer.terms["setup"], observer.terms["options"])
        report.steps = _opened(observer, report.initial, report.steps)
        report.steps = _blindness(observer, meta.get("me"), report.initial, report.steps, claims)
    _judge(observer, report)
    return report


def _replay(observer: Session, items: Iterator[list[Any]], report: Report) -> dict[int, BlindClaim]:
    """Feed every message of the transcript to the observer, in order, noting what it finds;
    returns the blindness claims it met (by stage)."""
    last_msg = b""
    claims: dict[int, BlindClaim] = {}
    for index, record in enumerate(items, start=1):
        if record[0] == "rejected" and isinstance(record[1], bytes):
            # A message the peer refused: judged again here, unless it is the "msg" just above
            # (its envelope was accepted and its content refused: replaying it said why already).
            if record[1] == last_msg:
                if report.messages == 1 and observer.phase is Phase.COIN_REVEAL:  # (the terms)
                    report.refused_terms = str(record[2]) if len(record) > 2 else ""
                continue
            events = observer.receive(record[1])
        elif record[0] == "msg" and isinstance(record[1], bytes):
            last_msg = record[1]
            report.messages += 1
            events = observer.receive(record[1])
        else:
            continue
        for event in events:
            _note(event, index, report, claims)
    return claims


def _note(event: Any, index: int, report: Report, claims: dict[int, BlindClaim]) -> None:
    """What one event of the replay tells the report."""
    if isinstance(event, Rejected):
        report.rejected.append(f"record {index}: {event.reason}")
    elif isinstance(event, Fault) and report.fault is None:
        report.fault = event  # (equivocation: the second message is the proof)
    elif isinstance(event, MatchOver):
        report.outcome = dict(event.outcome)
    elif isinstance(event, Applied):
        report.steps.append(Step(event.stage, event.actions, event.events, event.state))
    elif isinstance(event, BlindClaim):
        claims.setdefault(event.stage, event)
    elif isinstance(event, TimeObserved):
        report.disputed_time.append(
            f"record {index}: peer {event.author} saw {event.observed_ms / 1000:.1f} s pass "
            f"before p{event.seat}'s decision at stage {event.stage}, which declared "
            f"{event.declared_ms / 1000:.1f} s"
        )


def _chains(observer: Session) -> list[list[bytes]]:
    chains: list[list[bytes]] = [[] for _ in observer.keys]
    for author, _, raw in observer.archive:
        chains[author].append(hashlib.sha256(raw).digest())
    return chains


def _judge(observer: Session, report: Report) -> None:
    """What the transcript proves, and its summary line."""
    refused, me = report.refused_terms, report.meta.get("me")
    if refused is not None and type(me) is int and me != 0 and me not in observer.accepted:
        report.standing, report.terms, report.names, report.game = REFUSED, None, [], None
        report.summary = (
            f"refused: peer {me}, whose transcript this is, refused the host's terms ({refused}): "
            "no match was played under them"
        )
        return
    if report.fault is not None:
        fault = report.fault
        report.standing = STOPPED
        report.winners = _winners_without(observer, fault)
        who = "nobody" if fault.peer is None else f"peer {fault.peer}"
        report.summary = f"{fault.kind} at stage {fault.stage} by {who}: {fault.reason}"
        return
    if report.outcome is None:
        stage = observer.stage.number if observer.stage else "setup"
        report.summary = (
            f"incomplete: the match stops at stage {stage} with no result "
            f"({report.messages} messages checked, no fault found)"
        )
        return
    outcome = observer.outcome  # (what the report's outcome is the plain form of)
    assert outcome is not None
    said = "a draw" if outcome.winner is None else f"p{outcome.winner} wins"
    result = f"{report.game}, {said} ({outcome.reason.value})"
    if observer.phase is not Phase.OVER:
        report.standing, report.unsigned = UNCONFIRMED, observer.unconfirmed()
        missing = ", ".join(f"peer {peer}" for peer in report.unsigned)
        why = (
            f"a transcript of match version {report.version}, whose signatures never bind one peer "
            "to another's messages"
            if report.version != VERSION
            else f"{missing} did not sign it (no end of theirs is here)"
        )
        report.summary = (
            f"unconfirmed: its messages yield {result}, but {why}: it proves no result "
            f"({report.messages} messages checked)"
        )
        return
    report.ok, report.standing = True, FINISHED
    report.winners = outcome.winners
    report.summary = (
        f"valid: {result}, {report.messages} messages, every signature, commitment, action and "
        "state hash checked, and the result signed by every peer"
    )
    if report.disputed_time:
        disputed = len(report.disputed_time)
        report.summary += f"; the declared time of {disputed} decision(s) disputed on the record"


def _winners_without(observer: Session, fault: Fault) -> tuple[int, ...]:
    """The seats that win by a fault: a forfeit or a cheat, once the seats are dealt, loses for
    the side of the peer at fault; a desync names nobody who lost."""
    if fault.kind not in (FaultKind.FORFEIT, FaultKind.CHEAT) or fault.peer is None or not observer.owner:
        return ()
    seats = [seat for seat, peer in enumerate(observer.owner) if peer == fault.peer]
    return observer.m.spec.winners_without(seats)


def _blindness(
    observer: Session, me: Any, initial: Any, steps: list[Step], claims: dict[int, BlindClaim]
) -> list[Step]:
    """Mark the stages played while a seat was blind, with what the transcript's own peer was
    shown when the seat was its own; and add, as seen through their claims, the stages of a
    blindness the transcript never opens (it stops before the withheld choices came)."""
    spec = observer.spec
    assert spec is not None and observer.game is not None
    seats = observer.game.seats(initial)
    marked: list[Step] = []
    before = initial
    for step in steps:
        blind = tuple(seat for seat in range(seats) if spec.blind(before, seat))
        claim = claims.get(step.stage)
        mine = claim is not None and type(me) is int and observer.owner[claim.seat] == me
        marked.append(replace(step, blind=blind, seen=dict(claim.view) if mine and claim else None))
        before = step.state
    last = steps[-1].stage if steps else -1
    pending = {stage.number: stage for stage in observer.behind}
    for number in sorted(n for n in claims if n > last):
        claim = claims[number]
        events = claim.view.get("events")
        opened = pending[number].reveals if number in pending else {}
        marked.append(
            Step(
                number,
                tuple(sorted(opened.items())),  # the choices opened so far (the blind seat's own)
                tuple(events) if isinstance(events, list) else (),
                None,
                blind=(claim.seat,),
                seen=dict(claim.view),
            )
        )
    return marked


def _opened(observer: Session, initial: Any, steps: list[Step]) -> list[Step]:
    """The steps with every hidden card the transcript opens (flips and the audit) shown. When
    it opens them all, each state is worked out again from the start, every card in sight; when
    some stay hidden (the match stopped before its audit), the states stay as seen."""
    assert observer.game is not None and observer.spec is not None
    if not any(observer.spec.unopened(action) for _, _, action in observer.log):
        return steps  # nothing was hidden (or nothing stayed hidden)
    opened, _ = observer.cards.with_openings(observer.spec, observer.log, observer.audits.values())
    by_stage: dict[int, list[tuple[int, Plain]]] = {}
    for (number, _, _), (seat, action) in zip(observer.log, opened, strict=True):
        by_stage.setdefault(number, []).append((seat, action))
    after: dict[int, Any] = {}
    if not any(observer.spec.unopened(action) for _, action in opened):
        game, state = observer.game, initial
        try:
            for (number, _, _), (seat, action) in zip(observer.log, opened, strict=True):
                state = game.apply(state, seat, game.parse_action(action))
                after[number] = state
        except P2PGeniusError:
            after = {}
    return [
        Step(
            step.stage,
            tuple(by_stage.get(step.stage, step.actions)),
            step.events,
            after.get(step.stage, step.state),
        )
        for step in steps
    ]
