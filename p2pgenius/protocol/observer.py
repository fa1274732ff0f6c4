"""A transcript replayed through an observer: a :class:`Session` with no seats and no identity,
which checks every message with the public keys alone (protocol/SPEC.md section 7, "To verify").

:func:`replay` is the one loop that feeds a transcript's messages to an observer: ``verify`` (and
so ``export``, ``history``, ``replay`` and ``watch``, which read its report), a resumed player's
catch-up of the log, and the vectors generator each go over what it yields.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from p2pgenius.protocol.events import Event, Rejected
from p2pgenius.protocol.records import Header, MsgRecord, RejectedRecord, Transcript
from p2pgenius.protocol.session import Session


@dataclass(slots=True)
class Replayed:
    """One record of a transcript that carries a message, as the observer took it (read only:
    not frozen, since one is made for every message, and a frozen one is made three times slower)."""

    index: int
    """Its place in the transcript (the header is record 0)."""
    record: MsgRecord | RejectedRecord
    stage: int | None
    """The stage that was open when it came (None: none was, before the deal or between)."""
    events: tuple[Event, ...]
    """What the observer found in it; none for a repeat (it was not replayed)."""
    observer: Session
    """The observer, as it stands after this record (the same session all along)."""
    repeat: bool = False
    """A ``rejected`` record with the bytes of the ``msg`` just before it: that message's
    envelope was accepted and its content refused, which replaying the ``msg`` said already, or
    the same bytes came twice."""
    own: bool = False
    """A repeat of a ``msg`` the observer accepted: the refusal is the transcript's peer's own,
    which the observer cannot make (of terms it did not expect, or of a copy that came again
    right after the message); the record's reason stands for it."""


def observer_of(
    header: Header, *, names: list[str] | None = None, recording: bool = True, ledger: bool = True
) -> Session:
    """An observer of the match a transcript with this header holds (``recording`` False: one
    whose own record of it nobody will write, which keeps none; ``ledger`` False: one that works
    out its ledger of debts only at the first forfeit, ``Referee.ledger``: a verification's)."""
    observer = Session(
        keys=list(header.peers), me=None, names=names, version=header.version, recording=recording
    )
    if not ledger:
        observer.referee.ledger = None
    return observer


def replay(
    transcript: Transcript, observer: Session | None = None, *, evidence: bool = False
) -> Iterator[Replayed]:
    """Each ``msg`` record of ``transcript`` fed to ``observer`` (by default a new one, from its
    header), in order; with ``evidence``, each ``rejected`` record too, so that the observer
    finds the same refusals and any equivocation (a repeat of the ``msg`` above is yielded,
    marked, and not fed). The ``fault`` and ``desync_state`` records are never fed: an observer
    finds faults itself."""
    session = observer if observer is not None else observer_of(transcript.header)
    last, accepted = b"", False
    for index, record in enumerate(transcript.records, start=1):
        if not isinstance(record, MsgRecord) and not (evidence and isinstance(record, RejectedRecord)):
            continue
        current = session.stage
        stage = current.number if current is not None else None
        if isinstance(record, RejectedRecord) and record.raw == last:
            yield Replayed(index, record, stage, (), session, repeat=True, own=accepted)
            continue
        events = tuple(session.receive(record.raw))
        if isinstance(record, MsgRecord):
            last, accepted = record.raw, not any(isinstance(event, Rejected) for event in events)
        yield Replayed(index, record, stage, events, session)
