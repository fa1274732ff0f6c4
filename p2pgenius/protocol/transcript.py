"""Transcripts: their verification, with the public keys alone.

A transcript is the framed sequence of records of :mod:`p2pgenius.protocol.records` (its header,
then ``msg``, ``rejected``, ``fault`` and ``desync_state`` records; every field, and each kind of
fault's evidence, is in protocol/SPEC.md section 7), read there into types; the framing and the
reading are named here too, for the modules that write and read transcripts.

:func:`verify` replays the messages in an observer :class:`Session` (:func:`~p2pgenius.protocol.
observer.replay`) with the public keys alone: signatures, chains, commitments, every action's
legality, every state hash, view claims and what every peer disclosed at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.events import FaultKind
from p2pgenius.protocol.messages import OLD_VERSION, VERSION
from p2pgenius.protocol.observer import Replayed, observer_of, replay
from p2pgenius.protocol.overdue import Owed, longest_limit, owed_now
from p2pgenius.protocol.records import (
    MAGIC,
    MAX_RECORD,
    MsgRecord,
    Transcript,
    TranscriptError,
    frame,
    header,
    read,
    read_header,
    records,
)
from p2pgenius.protocol.session import (
    Applied,
    Fault,
    ForfeitVoided,
    MatchOver,
    Phase,
    Rejected,
    Session,
    TimeObserved,
    ViewClaimed,
)
from p2pgenius.protocol.union import union

__all__ = [
    "FINISHED",
    "INCOMPLETE",
    "MAGIC",
    "MAX_RECORD",
    "REFUSED",
    "STOPPED",
    "UNCONFIRMED",
    "Report",
    "Step",
    "TranscriptError",
    "frame",
    "header",
    "judge",
    "read",
    "read_header",
    "records",
    "verify",
    "verify_copies",
]


@dataclass(frozen=True)
class Step:
    """One stage of a match as a transcript holds it: the actions applied (a hidden card as it was
    opened, once the transcript opens it), what the engine said happened, the state after."""

    stage: int
    actions: tuple[tuple[int, Plain], ...]
    events: tuple[Plain, ...]
    state: Any
    """The engine state after the stage; None for a stage the transcript shows only through a
    view claim (it stops before the withheld choices were opened)."""
    dark: tuple[int, ...] = ()
    """The seats kept in the dark while the stage was played (as the game's trait says)."""
    seen: Mapping[str, Plain] | None = None
    """What the transcript's own peer was shown of the stage instead, when a seat of its was in
    the dark (the view claim it received: its seat's view after the stage)."""


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
    unchained: list[int] = field(default_factory=list)
    """The ``msg`` records (their indexes) whose envelopes fail the checks of SPEC section 5 (a
    signature, a chain): no author's chain holds them, so they prove nothing and change nothing
    (SPEC section 7, "A msg record that fails the checks"); the verdict is the one the transcript
    has without them."""
    owed: tuple[Owed, ...] = ()
    """What the match waited on where the transcript stops, each debt with its peer (and its
    clock, if it is on one): an unfinished match's, whose own peer may have been claimed since
    (:mod:`p2pgenius.protocol.overdue`)."""
    longest_s: float = 0.0
    """The match's longest time limit, in seconds (0 before the terms)."""


def verify(data: bytes) -> Report:
    """Check a transcript with the public keys it lists alone."""
    return judge(read(data))


def verify_copies(copies: Sequence[bytes], terms: bytes | None = None) -> Report:
    """Several transcripts of one match judged whole: every signed message they hold of the match
    whose terms hash to ``terms`` (None: the one match they hold), merged by hash
    (:func:`~p2pgenius.protocol.union.union`), checked as one transcript. NotOneMatchError if they
    hold no such match."""
    return judge(union([read(data) for data in copies], terms))


def judge(transcript: Transcript) -> Report:
    """Check a transcript, read, with the public keys it lists alone."""
    version = transcript.header.version
    if version not in (VERSION, OLD_VERSION):
        raise TranscriptError(
            f"a transcript of match version {version!r}; this program reads versions {OLD_VERSION} "
            f"and {VERSION} (a transcript is verified by the p2pgenius version that played it)"
        )
    # (a report is made, no record; the ledger of debts is worked out at the first forfeit, if any)
    observer = observer_of(transcript.header, recording=False, ledger=False)
    report = Report(ok=False, summary="", version=version, meta=dict(transcript.header.meta))
    claims: dict[int, ViewClaimed] = {}
    archived = 0
    for step in replay(transcript, observer, evidence=True):
        joined = len(observer.chain.archive) > archived  # (its envelope passed: its author's word)
        archived = len(observer.chain.archive)
        _take(step, report, claims, joined=joined)
    observer.settle()  # a forfeit nothing answered; a desync a later hash showed to be a lie
    for event in observer.take_events():
        if isinstance(event, ForfeitVoided):
            report.disputed_time.append(
                f"peer {event.author} signed that {'peer' if event.stage < 0 else 'p'}{event.seat} "
                f"forfeited at stage {event.stage}, and it answered after: contested, not taken"
            )
    report.fault = observer.fault  # (the observer's last word: settling may have restated it)
    _describe(observer, report, claims)
    _judge(observer, report)
    if report.unchained:
        records = spans(report.unchained)
        report.summary += (
            f"; {len(report.unchained)} msg record(s) (record{'s' if len(report.unchained) > 1 else ''} "
            f"{records}) fail the envelope checks: "
            "no author's chain holds them, so they prove nothing and change nothing"
        )
    return report


def spans(numbers: list[int]) -> str:
    """Ascending numbers in words, each run of consecutive ones as its ends: "3, 7 to 9, 12" (a
    file damaged at one record fails from there on: hundreds of numbers in one run)."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1][-1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(first) if first == last else f"{first} to {last}" for first, last in runs)


def _take(step: Replayed, report: Report, claims: dict[int, ViewClaimed], *, joined: bool) -> None:
    """What one record of the replay tells the report (``joined``: a message its author's chain
    took; the view claims it met, by stage, go to ``claims``)."""
    if isinstance(step.record, MsgRecord):
        if joined:
            report.messages += 1
        else:
            report.unchained.append(step.index)
    elif step.repeat and report.messages == 1 and step.observer.phase is Phase.COIN_REVEAL:
        # The first message, the terms, refused by the transcript's own peer: their envelope
        # was accepted, their content not.
        report.refused_terms = step.record.reason
    elif step.own:  # (a copy of the message that came again, refused as a replay)
        said = step.record.reason[:200]
        told = f"a copy of the message before it, refused (its peer's word: {said})"
        report.rejected.append(f"record {step.index}: {told}")
    for event in step.events:
        _note(event, step.index, report, claims)


def _describe(observer: Session, report: Report, claims: dict[int, ViewClaimed]) -> None:
    """The match the replay found: its game, terms, players and stages (each hidden card the
    transcript opens shown, each stage played with a seat in the dark marked)."""
    report.game = observer.terms["game"] if observer.terms else None
    report.terms, report.names = observer.terms, list(observer.names)
    report.owner = tuple(observer.owner)
    report.chains = _chains(observer)
    report.owed, report.longest_s = owed_now(observer), longest_limit(observer.terms)
    if observer.terms is not None and observer.match is not None:
        report.initial = observer.match.game.initial(observer.terms["setup"], observer.terms["options"])
        report.steps = _opened(observer, report.initial, report.steps)
        me = report.meta.get("me")
        report.steps = _in_dark(observer, me, report.initial, report.steps, claims)


_NOTED: Final = (Rejected, Fault, MatchOver, Applied, ViewClaimed, TimeObserved)
"""The events that tell a report something (:func:`_note`)."""


def _note(event: Any, index: int, report: Report, claims: dict[int, ViewClaimed]) -> None:
    """What one event of the replay tells the report."""
    if not isinstance(event, _NOTED):
        return  # (most events, a hash or a decision seen, tell it nothing: one check, not six)
    if isinstance(event, Rejected):
        report.rejected.append(f"record {index}: {event.reason}")
    elif isinstance(event, Fault) and report.fault is None:
        report.fault = event  # (equivocation: the second message is the proof)
    elif isinstance(event, MatchOver):
        report.outcome = dict(event.outcome)
    elif isinstance(event, Applied):
        report.steps.append(Step(event.stage, event.actions, event.events, event.state))
    elif isinstance(event, ViewClaimed):
        claims.setdefault(event.stage, event)
    elif isinstance(event, TimeObserved):
        report.disputed_time.append(
            f"record {index}: peer {event.author} saw {event.observed_ms / 1000:.1f} s pass "
            f"before p{event.seat}'s decision at stage {event.stage}, which declared "
            f"{event.declared_ms / 1000:.1f} s"
        )


def _chains(observer: Session) -> list[list[bytes]]:
    chains: list[list[bytes]] = [[] for _ in observer.keys]
    for author, seq, _ in observer.chain.archive:
        chains[author].append(observer.chain.seen[(author, seq)])  # (SHA-256 of its bytes, taken once)
    return chains


def _judge(observer: Session, report: Report) -> None:
    """What the transcript proves, and its summary line."""
    refused, me = report.refused_terms, report.meta.get("me")
    if refused is not None and type(me) is int and me != 0 and me not in observer.setup.accepted:
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
        who = "nobody" if fault.peer is None else _peer_name(report, fault.peer)
        if fault.stage >= 0:
            when = f"at step {fault.stage + 1}"
        else:  # (no stage open: before the deal, or after the last one)
            when = f"after step {len(report.steps)}, the last," if report.owner else "before the deal"
        by = "" if fault.kind is FaultKind.CONTESTED else f" by {who}"  # (nobody was proven at fault)
        report.summary = f"{fault.kind} {when}{by}: {fault.reason}"
        return
    if report.outcome is None:
        # (in steps, counted from 1 as replay and export count them: never the protocol's stages)
        # (no stage open: before the deal, or every stage played and the disclosures or the ends owed)
        played = observer.stage.number if observer.stage else (len(report.steps) if report.owner else None)
        where = "before the deal" if played is None else f"after {played} step" + ("" if played == 1 else "s")
        report.summary = (
            f"incomplete: the match stops {where} with no result "
            f"({report.messages} messages checked, no fault found)"
        )
        return
    outcome = observer.outcome  # (what the report's outcome is the plain form of)
    assert outcome is not None
    # (the game words its results, seats by number as the record has them: "p0 wins (knocked
    # out)", not "p0 wins (knocked_out)"; then who held each seat, by name)
    result = f"{report.game}, {observer.played.match.spec.outcome_words(outcome)} {_seating(report)}"
    if observer.phase is not Phase.OVER:
        report.standing, report.unsigned = UNCONFIRMED, observer.unconfirmed()
        missing = ", ".join(_peer_name(report, peer) for peer in report.unsigned)
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


def _seating(report: Report) -> str:
    """Who held each seat, by name: "[p0: alice, p1: bob]", "[p0/p2: bob, p1/p3: carol]"."""
    held = []
    for peer, name in enumerate(report.names):
        seats = [seat for seat, owner in enumerate(report.owner) if owner == peer]
        if seats:
            held.append((seats[0], f"{'/'.join(f'p{seat}' for seat in seats)}: {name}"))
    return "[" + ", ".join(words for _, words in sorted(held)) + "]"


def _peer_name(report: Report, peer: int) -> str:
    """A peer in a summary: its name, and which peer it is ("alice (peer 1)")."""
    if 0 <= peer < len(report.names):
        return f"{report.names[peer]} (peer {peer})"
    return f"peer {peer}"


def _winners_without(observer: Session, fault: Fault) -> tuple[int, ...]:
    """The seats that win by a fault: a forfeit or a cheat, once the seats are dealt, loses for
    the side of the peer at fault; a desync names nobody who lost."""
    if fault.kind not in (FaultKind.FORFEIT, FaultKind.CHEAT) or fault.peer is None or not observer.owner:
        return ()
    seats = [seat for seat, peer in enumerate(observer.owner) if peer == fault.peer]
    return observer.played.match.spec.winners_without(seats)


def _in_dark(
    observer: Session, me: Any, initial: Any, steps: list[Step], claims: dict[int, ViewClaimed]
) -> list[Step]:
    """Mark the stages played while a seat was in the dark, with what the transcript's own peer
    was shown when the seat was its own; and add, as seen through their view claims, the stages
    the transcript never opens (it stops before the withheld choices came)."""
    spec = observer.played.match.spec
    seats = spec.engine.seats(initial)
    marked: list[Step] = []
    before = initial
    for step in steps:
        dark = tuple(seat for seat in range(seats) if spec.blind(before, seat))
        claim = claims.get(step.stage)
        mine = claim is not None and type(me) is int and observer.owner[claim.seat] == me
        seen = dict(claim.view) if mine and claim else None
        # (as it is, most often: a copy of every step was 1.4 % of a verification's Python)
        marked.append(
            step
            if dark == step.dark and seen is None and step.seen is None
            else replace(step, dark=dark, seen=seen)
        )
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
                tuple(sorted(opened.items())),  # opened so far: those of the seat in the dark
                tuple(events) if isinstance(events, list) else (),
                None,
                dark=(claim.seat,),
                seen=dict(claim.view),
            )
        )
    return marked


def _opened(observer: Session, initial: Any, steps: list[Step]) -> list[Step]:
    """The steps with every hidden card the transcript opens (flips and the disclosures at the
    end) shown. When it opens them all, each state is the one of the match replayed from the
    start, every card in sight; when some stay hidden (the match stopped before its
    disclosures), or that replay fails, the states stay as seen."""
    match, ending = observer.played.match, observer.played.ending
    if not any(match.spec.unopened(action) for _, _, action in match.log):
        return steps  # nothing was hidden (or nothing stayed hidden)
    if ending.judged is not None:
        # (the verdict at the end opened them all: nothing is played, flipped or disclosed after
        # it, so these are the actions it replayed)
        opened = list(ending.judged.opened)
    else:
        opened, _ = match.cards.with_openings(match.spec, match.log, ending.disclosures.values())
    by_stage: dict[int, list[tuple[int, Plain]]] = {}
    for (number, _, _), (seat, action) in zip(observer.log, opened, strict=True):
        by_stage.setdefault(number, []).append((seat, action))
    after: dict[int, Any] = {}
    if not any(match.spec.unopened(action) for _, action in opened):
        states = _opened_states(observer, initial, opened)  # (one after each action, or none)
        if states:
            after = {number: state for (number, _, _), state in zip(observer.log, states, strict=True)}
    return [
        Step(
            step.stage,
            tuple(by_stage.get(step.stage, step.actions)),
            step.events,
            after.get(step.stage, step.state),
        )
        for step in steps
    ]


def _opened_states(observer: Session, initial: Any, opened: list[tuple[int, Plain]]) -> Sequence[Any]:
    """The state after each action of the ``opened`` match, replayed from ``initial``; none if
    an action does not apply. The verdict at the match's end replayed these very actions with the
    match's engine when every one applied: its states are taken, not worked out a second time."""
    match, judged = observer.played.match, observer.played.ending.judged
    if (
        judged is not None
        and match.game is match.spec.engine
        and len(judged.finding.states) == len(opened)
        and judged.opened == tuple(opened)
    ):
        return judged.finding.states
    game, state, states = match.game, initial, []
    try:
        for seat, action in opened:
            state = game.apply(state, seat, game.parse_action(action))
            states.append(state)
    except P2PGeniusError:
        return ()
    return states
