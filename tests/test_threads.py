"""Work kept off the event loop, and the heap set aside from the garbage collector."""

from __future__ import annotations

import gc
import subprocess
import sys

from tests.patience import HANG_S


def test_the_heap_is_settled_once_a_process_and_only_what_was_loaded_is_set_aside() -> None:
    # In a fresh process: the garbage collector's full passes then skip everything loaded so far.
    code = (
        "import gc, p2pgenius.threads as t, p2pgenius.games.registry\n"
        "assert gc.get_freeze_count() == 0\n"
        "t.settle_heap(); frozen = gc.get_freeze_count(); assert frozen > 10_000, frozen\n"
        "later = [[i] for i in range(50_000)]\n"
        "t.settle_heap(); assert gc.get_freeze_count() == frozen  # once: later objects stay collectable\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr
    assert gc.isenabled()  # (this process's collector was left alone)
