"""Every game, one entry each: the one table that the command line, the registry, the bots, the
terminal UI, ``rules``, ``sim``, ``demo``, the documentation tests and the vectors generator read.

An entry is data: the game's name and title, its rules page, and where its parts live, as
``"module:attribute"`` paths that are imported only when first asked for (``p2pgenius --help``
reads the names and never loads an engine), each in the game's own package:

* ``spec``: its :class:`~p2pgenius.games.spec.GameSpec` (the engine, and how peers play it);
* ``bots``: its :class:`BotLevels` (the strategies, pure, in the game's own package), or None:
  the uniformly random bot only, which plays every game;
* ``frontend``: a game from outside the package only (a plugin, a test's): its own terminal
  front end, or None: the generic one (the built-in games' front ends are the UI's to know, and
  it lists them itself: a table in this layer names nothing above it);
* ``levels``: its bot levels in words (:class:`Level`), which ``--bot`` and the lobby say.

A part may also be given as the object itself (a game a test defines in its own module). Adding a
game is adding an entry here (docs/architecture.md, "Adding a game"), or installing a package that
names its entry in the entry-point group :data:`PLUGINS` (``[project.entry-points."p2pgenius.games"]
NAME = "package.module:ENTRY"``): every command then plays it, from the table, as one of these
(:func:`install_plugins`).
"""

from __future__ import annotations

import importlib
import sys

from p2pgenius.errors import LocalMisuseError
from p2pgenius.frozen import Frozen

TYPE_CHECKING = False  # (typing itself is not imported: every command's start reads this table)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Final

    from p2pgenius.games.spec import GameSpec


RANKS: Final = ("strongest", "club", "beginner")
"""How strong a bot level is, in words a player knows: the game's best, one that plays soundly but
can be beaten (a club player), one that plays at random (docs/bots.md measures each against the
others)."""


class Level(Frozen):
    """A bot level as players are told it: its ``name`` (``--bot NAME``), its ``rank`` (one of
    :data:`RANKS`) and ``what`` it does, in a few words."""

    __slots__ = ("name", "rank", "what")
    _fields = ("name", "rank", "what")
    name: str
    rank: str
    what: str

    def __init__(self, name: str, rank: str, what: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "what", what)

    def __str__(self) -> str:
        return f"{self.name} ({self.rank})"


RANDOM_LEVEL: Final = Level("random", "beginner", "a uniformly random legal move")
"""The level every game has."""


class BotLevels(Frozen):
    """A game's bots: each level's factory (called with ``seed=``; the first level is the
    game's default) and, for ``p2pgenius demo``, the levels of the host's and the guest's bots."""

    __slots__ = ("demo", "levels")
    _fields = ("levels", "demo")
    levels: Mapping[str, Callable[..., Any]]
    demo: tuple[str, str] | None

    def __init__(self, levels: Mapping[str, Callable[..., Any]], demo: tuple[str, str] | None = None) -> None:
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "demo", demo)

    def __hash__(self) -> int:  # (its levels are a mapping)
        return hash((tuple(self.levels), self.demo))


class Entry(Frozen):
    """One game (see the module's doc)."""

    __slots__ = ("_loaded", "bots", "frontend", "levels", "name", "rules", "spec", "summary", "title")
    _fields = ("name", "title", "summary", "spec", "bots", "frontend", "rules", "levels")
    """Its parts, in ``__init__``'s order (what it has loaded is no part of what it is)."""
    name: str
    """Its name on the command line and in match terms."""
    title: str
    """Its name for people."""
    summary: str
    """What it is, in a line (``p2pgenius --help``)."""
    spec: str | GameSpec
    bots: str | BotLevels | None
    frontend: str | object | None
    """A game from outside the package: its terminal front end (see the module's doc)."""
    rules: str
    """Its rules page: a file in ``p2pgenius/rules/`` (default: ``NAME.md``), or a path of its
    own (a game a test defines)."""
    levels: tuple[Level, ...]
    """Its own bot levels as players are told them, strongest (the default) first: the names of
    ``bots``' levels, in their order (a test holds the two together; kept here so that the
    command line's help says them without loading a bot)."""
    _loaded: dict[str, Any]

    def __init__(  # noqa: PLR0913  (each part by name, as the table writes them)
        self,
        name: str,
        title: str,
        summary: str,
        spec: str | GameSpec,
        bots: str | BotLevels | None = None,
        frontend: str | object | None = None,
        rules: str = "",
        levels: tuple[Level, ...] = (),
    ) -> None:
        self._set(name=name, title=title, summary=summary, spec=spec, bots=bots, frontend=frontend)
        self._set(rules=rules, levels=levels, _loaded={})

    @property
    def described(self) -> tuple[Level, ...]:
        """Its bot levels as players are told them, strongest first, ``random`` last (read
        without loading a bot)."""
        own = self.levels
        return own if any(level.name == RANDOM_LEVEL.name for level in own) else (*own, RANDOM_LEVEL)

    def level_words(self, level: str) -> str:
        """One of its bot levels in words, "wizard (club)" ("": its default; a level it does not
        have: the name alone)."""
        known = self.described
        chosen = level or known[0].name
        return next((str(each) for each in known if each.name == chosen), chosen)

    @property
    def rules_file(self) -> str:
        return self.rules or f"{self.name}.md"

    def load_spec(self) -> GameSpec:
        """The game's spec (imported the first time)."""
        spec: GameSpec = self._load("spec")
        return spec

    def load_bots(self) -> BotLevels | None:
        """The game's bots (None: random play only)."""
        bots: BotLevels | None = self._load("bots")
        return bots

    def load_frontend(self) -> Any:
        """The terminal front end its entry gives (None: none; the UI then looks for its own)."""
        return self._load("frontend")

    def _load(self, part: str) -> Any:
        if part not in self._loaded:
            where = getattr(self, part)
            self._loaded[part] = _import(where) if isinstance(where, str) else where
        return self._loaded[part]


def _import(path: str) -> Any:
    """``"package.module:attribute"``, imported."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


GAMES: Final[list[Entry]] = [
    Entry(
        "duel",
        "The wizard duel",
        "simultaneous hand gestures that cast 16 spells (Waving Hands style)",
        spec="p2pgenius.games.duel.spec:DUEL_SPEC",
        bots="p2pgenius.games.duel.bots:BOTS",
        levels=(
            Level("archmage", "strongest", "looks a turn ahead over both wizards' moves"),
            Level("wizard", "club", "builds spells toward the opponent's weakness"),
        ),
    ),
    Entry(
        "magic-square",
        "The Magic Square",
        "colour a 4x4 grid, then place 1..16 keeping it completable to a magic square",
        spec="p2pgenius.games.magic_square.spec:MAGIC_SQUARE_SPEC",
        bots="p2pgenius.games.magic_square.bots:BOTS",
        levels=(
            Level("perfect", "strongest", "exact play in every phase"),
            Level("heuristic", "club", "keeps the square completable, colours by rule of thumb"),
        ),
    ),
    Entry(
        "hornswoggle",
        "Hornswoggle",
        "face-down doubloons and skulls, bids and bluffs, for two teams of two",
        spec="p2pgenius.games.hornswoggle.spec:HORNSWOGGLE_SPEC",
        bots="p2pgenius.games.hornswoggle.bots:BOTS",
        levels=(
            Level("captain", "strongest", "remembers what each pirate showed and plays out its close calls"),
            Level("pirate", "club", "weighs the odds of every pile"),
        ),
    ),
]
"""Every game, in the order ``demo`` plays them."""


PLUGINS: Final = "p2pgenius.games"
"""The entry-point group of games installed beside p2pgenius (each names an :class:`Entry`)."""


def install_plugins() -> None:
    """Put the games installed as plugins in the table, after the built-in ones, in the order of
    their names (the command line does, first thing; the engines' layer reads no package metadata
    on its own, which would import the standard library's mail and network modules). A plugin
    that does not load, or is no whole game, is left out with one line on standard error (the
    other games still play). Once a process: a second call adds nothing."""
    import importlib.metadata  # noqa: PLC0415  (see above)

    for point in sorted(importlib.metadata.entry_points(group=PLUGINS), key=lambda p: p.name):
        try:
            entry = point.load()
            if not isinstance(entry, Entry):
                raise LocalMisuseError(f"it names a {type(entry).__name__}, not a game's Entry")
            if entry.name != point.name:
                raise LocalMisuseError(f"it names the game {entry.name!r}, not {point.name!r}")
            if any(known is entry for known in GAMES):
                continue
            add(entry)
        except Exception as exc:  # (someone else's code: whatever it raises)
            where = f"{point.name!r} ({point.value})"
            sys.stderr.write(f"p2pgenius: the game plugin {where} is left out: {exc}\n")


def levels_help() -> str:
    """Every game's bot levels, for ``--bot``'s help: "duel: wizard (strongest), random
    (beginner); ..."."""
    return "; ".join(f"{entry.name}: {', '.join(map(str, entry.described))}" for entry in GAMES)


def names() -> tuple[str, ...]:
    """Every game's name, in the table's order."""
    return tuple(entry.name for entry in GAMES)


def find(name: object) -> Entry:
    """The entry of game ``name``; raises LocalMisuseError for an unknown game."""
    for entry in GAMES:
        if entry.name == name:
            return entry
    raise LocalMisuseError(f"unknown game {name!r} (choose one of: {', '.join(names())})")


def add(entry: Entry) -> None:
    """Put a game in the table (after the others). Its spec is loaded and checked now
    (:func:`p2pgenius.games.spec.check`): a spec that is not a whole game is refused here, not
    at its first match."""
    if not entry.name or entry.name in names():
        raise LocalMisuseError(f"a game needs a name of its own (got {entry.name!r})")
    from p2pgenius.games.spec import check  # noqa: PLC0415  (the table itself loads nothing)

    check(entry.load_spec(), entry.name)
    GAMES.append(entry)


def remove(name: str) -> None:
    """Take a game out of the table (a test's own game, once the test is done)."""
    GAMES[:] = [entry for entry in GAMES if entry.name != name]
