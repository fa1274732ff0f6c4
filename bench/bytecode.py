"""What the benchmarks that start ``p2pgenius`` processes share: start them as an installed
program starts, from compiled bytecode.

``pip install`` compiles every module it installs, and Python keeps what it compiles of an
editable install in ``__pycache__``, so a user's second run reads bytecode. A machine whose
environment sets ``PYTHONDONTWRITEBYTECODE`` (this project's development sandboxes do) never keeps
it: every process would compile each module from source, a third of a joiner's start-up. So the
benchmarks compile the package and its dependencies once, and start their processes without that
variable.
"""

from __future__ import annotations

import compileall
import os
import sys
import sysconfig
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "p2pgenius"


def as_installed() -> str:
    """Compile the package and the installed libraries (a no-op once their bytecode is up to
    date), and let this process's children keep and read bytecode. Returns a line saying so."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    for folder in (PACKAGE, Path(sysconfig.get_paths()["purelib"])):
        compileall.compile_dir(folder, quiet=2, workers=0)
    return "Every module compiled beforehand, as an installed program's are (no PYTHONDONTWRITEBYTECODE)."
