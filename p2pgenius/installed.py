"""Which packages installed beside p2pgenius name an entry-point group, read from their metadata
files, without ``importlib.metadata``: that imports the standard library's mail modules and parses
every package's metadata, about 20 ms of every command's start-up (docs/performance.md, "Start-up:
the plugin look-up"), while most installations have no game plugin at all. The command line and
the bots' worker process ask :func:`may_name` before
:func:`p2pgenius.games.catalog.install_plugins`."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def may_name(group: str, path: Sequence[str] | None = None) -> bool:
    """Whether any package on the path (``sys.path`` by default) may name something in the
    entry-point ``group``: a ``.dist-info`` or ``.egg-info`` folder whose ``entry_points.txt``
    mentions the group, or a path entry that is a file (a zip: left to ``importlib.metadata``).
    It reads only the file names of each folder on the path and the entry points of the packages
    installed there."""
    wanted = f"[{group}]"
    for folder in sys.path if path is None else path:
        try:
            with os.scandir(folder or ".") as found:
                names = [item.name for item in found]
        except NotADirectoryError:
            return True  # (a zip on the path: importlib.metadata reads it)
        except OSError:
            continue  # (a folder that is not there, or a path hook's marker)
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8") as points:
                        if wanted in points.read():
                            return True
                except OSError:
                    continue
    return False
