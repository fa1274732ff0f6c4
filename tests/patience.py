"""The suite's one limit on a wait in real time.

A test over TCP on loopback, subprocesses or threads waits for the thing it needs (a line printed,
a match over, a process gone), never for a span it guesses is enough: on a machine three times
slower, or with other busy processes on its cores, every span a person would guess is too short.
What such a wait still needs is a bound, so that a hang fails the test instead of stalling the
suite. That bound is ``HANG_S``: long enough that slowness never reaches it, only a hang. A test on
trio's autojump clock has fake seconds and sets its own limits; a limit that is the behaviour
under test (a bound the code promises) stays in that test, with the code's own constant.
"""

from __future__ import annotations

from typing import Final

HANG_S: Final = 600.0
"""Seconds of real time after which a wait counts as a hang (ten minutes: the whole suite takes
less on two idle cores)."""
