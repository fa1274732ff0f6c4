"""Transcripts verified with their signatures checked first, on every core this process may use.

A transcript's verification (:mod:`p2pgenius.protocol.transcript`) replays the match on one
thread, and checks each message's Ed25519 signature as the replay reaches it: about half of its
time. libsodium lets go of the interpreter while it checks a signature, so here every message's
signature is checked first, on as many threads as this process has cores (a share each, the
calling thread's among them), and remembered (:data:`~p2pgenius.protocol.identity.VERIFIED`);
then the replay, as before, finds each one remembered instead of checking it.

The verdict is the replay's alone, whatever was checked first: a check made first remembers only
a signature that held, by that key over exactly those bytes (the very check the replay makes of a
message it reaches: :func:`~p2pgenius.protocol.messages.signature_check`). A signature that
fails is not remembered, and the replay checks it again and refuses it, in its order; a message
the replay refuses before its signature (too long, not canonical) is refused as before. So the
checks are made in the order the threads reach them, and nothing of that order reaches a result.

What it may cost more than the replay alone, at worst: a thread stops at the first signature of
its share that fails, so forged signatures cost at most one check more a thread; a message that
is well signed but refused by the replay before its signature is checked (not canonical, say) is
checked first for nothing, at most :data:`AT_MOST` of them. Merged copies of a match are checked
before they are merged (the merge opens every envelope), each envelope once.

The replay does not wait for the checks to start (two threads that both want the interpreter
would wait on each other's turns), so they are all made before it starts: at most
:data:`AT_MOST` of them (the first messages), which the replay still finds remembered; a longer
match's later messages are checked by the replay itself, as before. At most
:data:`MOST_THREADS` threads check, each at least :data:`FEWEST` signatures.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator, Sequence
from typing import Final

from p2pgenius.protocol.identity import VERIFIED_KEPT
from p2pgenius.protocol.identity import verify as signature_holds
from p2pgenius.protocol.messages import OLD_VERSION, VERSION, signature_check
from p2pgenius.protocol.records import MsgRecord, Transcript, read
from p2pgenius.protocol.transcript import Report, judge
from p2pgenius.protocol.union import union

AT_MOST: Final = VERIFIED_KEPT // 2
"""The most signatures checked before one replay: what the process remembers, halved (so that
none is forgotten before the replay reaches it, beside what was remembered before)."""
FEWEST: Final = 32
"""Signatures a thread is given at the least (fewer: fewer threads, or none, a thread's start
costing more than the checks it would share)."""
MOST_THREADS: Final = 4
"""The most threads that check at once: the Python around each check takes turns with the
others', so more threads than this gain nothing (docs/profiling.md)."""


def verify(data: bytes, *, threads: int | None = None) -> Report:
    """:func:`p2pgenius.protocol.transcript.verify`, its signatures checked first on ``threads``
    threads (None: :func:`threads_to_use`)."""
    transcript = read(data)
    check_first([transcript], threads)
    return judge(transcript)


def verify_copies(
    copies: Sequence[bytes], terms: bytes | None = None, *, threads: int | None = None
) -> Report:
    """:func:`p2pgenius.protocol.transcript.verify_copies`, the signatures of every copy checked
    first (before they are merged, which opens every envelope)."""
    transcripts = [read(data) for data in copies]
    check_first(transcripts, threads)
    return judge(union(transcripts, terms))


def check_first(transcripts: Sequence[Transcript], threads: int | None = None) -> None:
    """Check the signatures of the messages of ``transcripts`` (each envelope once, at most
    :data:`AT_MOST`) on up to ``threads`` threads at once, the calling thread's among them, and
    remember those that hold. A thread that cannot start leaves its share to the replay."""
    wanted = threads_to_use() if threads is None else threads
    if wanted < 2:
        return
    checks = list(itertools.islice(_checks(transcripts), AT_MOST))
    count = min(wanted, MOST_THREADS, len(checks) // FEWEST)
    if count < 2:
        return
    helpers = []
    for start in range(1, count):
        helper = threading.Thread(target=_check, args=(checks[start::count],), daemon=True)
        try:
            helper.start()
        except RuntimeError:  # (no thread to be had: a cap on processes)
            break
        helpers.append(helper)
    _check(checks[0::count])
    for helper in helpers:
        helper.join()


def _checks(transcripts: Sequence[Transcript]) -> Iterator[tuple[bytes, bytes, bytes]]:
    """The signature check of each envelope of ``transcripts`` of a version the replay reads,
    each envelope once."""
    seen: set[bytes] = set()
    for transcript in transcripts:
        if transcript.header.version not in (VERSION, OLD_VERSION):
            continue  # (the replay refuses it before any message)
        for record in transcript.records:
            if isinstance(record, MsgRecord) and record.raw not in seen:
                seen.add(record.raw)
                check = signature_check(record.raw, transcript.header.peers)
                if check is not None:
                    yield check


def _check(share: list[tuple[bytes, bytes, bytes]]) -> None:
    """Check ``share`` in order, up to its first signature that fails: the replay checks again
    every signature that did not hold, so a transcript of forged signatures costs at most one
    check more a thread than its replay alone."""
    for key, signature, signed in share:
        if not signature_holds(key, signature, signed):
            return


def cores() -> int:
    """How many cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (no affinity on this system)
        return max(1, os.cpu_count() or 1)


_chosen: list[int] = []
"""What :func:`use_threads` chose (a worker process beside others); empty: one a core."""


def threads_to_use() -> int:
    """How many threads may check signatures at once: what :func:`use_threads` chose, else one a
    core."""
    return _chosen[0] if _chosen else cores()


def use_threads(count: int) -> None:
    """Check signatures on at most ``count`` threads from now on (a worker process beside others
    that keep the other cores busy: its share of the cores)."""
    _chosen[:] = [count]
