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
A thread stops at the first signature of its share that fails: a forged transcript costs at most
one check more a thread than its replay alone.

The replay does not wait for the checks to start (two threads that both want the interpreter
would wait on each other's turns), so they are all made before it starts: at most
:data:`AT_MOST` of them (the first messages), which the replay still finds remembered; a longer
match's later messages are checked by the replay itself, as before.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Final

from p2pgenius.protocol.identity import VERIFIED_KEPT
from p2pgenius.protocol.identity import verify as signature_holds
from p2pgenius.protocol.messages import signature_check
from p2pgenius.protocol.records import MsgRecord, Transcript, read
from p2pgenius.protocol.transcript import Report, judge
from p2pgenius.protocol.union import union

AT_MOST: Final = VERIFIED_KEPT // 2
"""The most signatures checked before one replay: what the process remembers, halved (so that
none is forgotten before the replay reaches it, beside what was remembered before)."""
FEWEST: Final = 64
"""A transcript of fewer messages is checked by its replay alone (a thread's start costs more)."""


def verify(data: bytes, *, threads: int | None = None) -> Report:
    """:func:`p2pgenius.protocol.transcript.verify`, its signatures checked first on ``threads``
    threads (None: one per core this process may use)."""
    transcript = read(data)
    check_first(transcript, threads)
    return judge(transcript)


def verify_copies(
    copies: Sequence[bytes], terms: bytes | None = None, *, threads: int | None = None
) -> Report:
    """:func:`p2pgenius.protocol.transcript.verify_copies`, its signatures checked first."""
    transcript = union([read(data) for data in copies], terms)
    check_first(transcript, threads)
    return judge(transcript)


def check_first(transcript: Transcript, threads: int | None = None) -> None:
    """Check the signatures of ``transcript``'s messages (at most :data:`AT_MOST`) on ``threads``
    threads at once, the calling thread's among them, and remember those that hold."""
    count = cores() if threads is None else threads
    if count < 2:
        return
    keys = transcript.header.peers
    checks = [
        check
        for record in transcript.records
        if isinstance(record, MsgRecord) and (check := signature_check(record.raw, keys)) is not None
    ][:AT_MOST]
    if len(checks) < FEWEST:
        return
    shares = [checks[start::count] for start in range(count)]
    helpers = [threading.Thread(target=_check, args=(share,), daemon=True) for share in shares[1:]]
    for helper in helpers:
        helper.start()
    _check(shares[0])
    for helper in helpers:
        helper.join()


def _check(share: list[tuple[bytes, bytes, bytes]]) -> None:
    """Check ``share`` in order, up to its first signature that fails: a transcript with forged
    messages is checked by its replay, which checks a signature again unless it held, so that
    forgeries cost no more than without this (at most one check more a thread)."""
    for key, signature, signed in share:
        if not signature_holds(key, signature, signed):
            return


_chosen: list[int] = []
"""What :func:`use_cores` chose (a worker beside others: one core its own); empty: every core."""


def cores() -> int:
    """How many threads check signatures at once: one per core this process may use."""
    if _chosen:
        return _chosen[0]
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (no affinity on this system)
        return max(1, os.cpu_count() or 1)


def use_cores(count: int) -> None:
    """Check signatures on ``count`` threads from now on (a worker process beside others that
    keep the other cores busy: 1)."""
    _chosen[:] = [count]
