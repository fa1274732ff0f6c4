"""A game's front end: how people see and play it in the terminal UI.

:class:`FrontEnd` is also the *generic* front end, the one a game without a registered front end
is played through: its state is shown as its view (plain JSON), moves are typed as an action's
type and fields (``place cell=5``) or as JSON, and Tab lists ``legal_actions``. A game's own front
end subclasses it and overrides what it does better (a real board, a move syntax, completions
that say what each move does, help). Everything here is a pure function of the game, the state
this machine knows and the seat; nothing touches the terminal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Final

from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.base import Game
from p2pgenius.games.registry import get_game, get_spec
from p2pgenius.games.spec import GameSpec
from p2pgenius.ui.lines import Glyphs, Line, namer, seat_name, wrap


class InputError(P2PGeniusError):
    """What the player typed is not a move (the message says what is)."""


@dataclass(frozen=True)
class Parsed:
    """A move to send, and, for an irreversible or self-defeating one, the question to confirm."""

    action: dict[str, Any] | None  # None: let an optional action pass
    confirm: str = ""


@dataclass(frozen=True)
class Question:
    """What a seat is being asked: a short ``prompt`` for the input line ("gestures") and a
    sentence saying what is being decided ("choose both hands' gestures for turn 3")."""

    prompt: str
    text: str


@dataclass(frozen=True)
class Choice:
    """A completion: the text to type and a one-line explanation."""

    text: str
    meta: str
    extra: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class BoardRequest:
    """A board to draw: ``game``'s board from ``view`` (the engine's view for the person's seat,
    or a spectator's; ``view["partners"]``, if there, the views of the others), how to draw it,
    and the room it has.

    ``names``: the players' names by seat; ``mine``: the seats this machine holds, the first being
    the person's; ``hints``: mark the moves that help; ``width`` columns and about ``height``
    rows, of which a board uses what it is given (more detail when there is room) and never more
    columns than ``width``; ``memory``: what :meth:`FrontEnd.remember` kept of the match so far
    on this screen (a round's reckoning); ``scroll``: how far the person scrolled the board's
    history back from its newest (Up/Down; :meth:`FrontEnd.scroll_limit` says how far it goes)."""

    game: str
    view: Mapping[str, Any]
    names: Mapping[int, str]
    _: KW_ONLY
    ascii_only: bool
    hints: bool
    mine: Sequence[int]
    width: int = 80
    height: int = 40
    memory: Mapping[str, Any] | None = None
    scroll: int = 0

    @property
    def glyphs(self) -> Glyphs:
        """The glyphs to draw with: plain ones with ``ascii_only``."""
        return Glyphs.pick(self.ascii_only)


GENERIC_HELP: Final = (
    "Type a move as its type and fields: place cell=5 (a field's value is JSON when it reads as "
    'JSON: 5, true, [1,2], "5"; otherwise text), or the whole action as JSON: {"type": "place"}.\n'
    "pass lets a move you may make but need not pass."
)


TIME_UP: Final = "{time_up}"
"""In a front end's help, where the match's own time limit goes, in words: "the turn's time is
up (2m a turn)" (:func:`p2pgenius.ui.moves.help_text` puts it there; the help never guesses a
length the match may not have)."""


class FrontEnd:
    """How people see and play one game. These defaults are the generic front end."""

    help: str = GENERIC_HELP
    """What to type, for the help window (the common keys are added by the UI): one item per
    line, each a whole sentence, which the window wraps to its width; :data:`TIME_UP` where the
    match's time limit is said."""
    styles: Mapping[str, str] = {}
    """The styles of the board's own classes (``{"hp": "bold"}`` styles ``class:hp``), added to
    the UI's common ones (title, dim, effect, seat, seat.me, ...)."""
    scroll_keys: str = ""
    """The line of a replay's help that says what Up and Down scroll on this game's board (""
    when they scroll nothing: see :meth:`scroll_limit`)."""
    replay_unit: str = "stage"
    """What ``go N`` counts in a replay (``p2pgenius replay``): see :meth:`replay_number`."""

    def __init__(self, game: str) -> None:
        self.game = game

    @property
    def spec(self) -> GameSpec:
        return get_spec(self.game)

    @property
    def engine(self) -> Game[Any, Any]:
        return get_game(self.game)

    # -- what the player sees ------------------------------------------------------------------

    def board(self, request: BoardRequest) -> list[Line]:
        """The board ``request`` asks for: by default the game's title, the players and the view
        as JSON."""
        spec = self.spec
        lines: list[Line] = [[("class:title", f" {spec.title or spec.name}")]]
        players = [seat_name(request.names, seat) for seat in sorted(request.names)]
        if players:
            you = f"   (you are p{request.mine[0]})" if request.mine else ""
            lines.append([("", " " + ", ".join(players)), ("class:dim", you)])
        # (ASCII: json.dumps escapes whatever is not)
        text = json.dumps(request.view, indent=2, sort_keys=True, default=str)
        lines += [[("", " " + row)] for row in text.splitlines()]
        return lines

    def scroll_limit(self, request: BoardRequest) -> int:
        """How far back the board ``request`` asks for can scroll its history (Up/Down: the
        duel's turns): 0, as by default, for a board with none."""
        del request
        return 0

    def spectator_view(self, state: Any) -> dict[str, Any]:
        """Everything in ``state``, for someone who plays no seat (a replay): the first seat's
        view with every other seat's as ``partners`` (so every hand and face-down card shows, as
        far as ``state`` knows them) and ``"spectator": True``, which tells :meth:`board` to call
        nobody "you"."""
        engine = self.engine
        view = dict(engine.view(state, 0))
        view["partners"] = {seat: engine.view(state, seat) for seat in range(1, engine.seats(state))}
        view["spectator"] = True
        return view

    def replay_number(self, stage: int, view: Mapping[str, Any]) -> int:
        """The number ``go N`` finds a replay's step by (in :attr:`replay_unit`), from the step's
        ``stage`` and the :meth:`spectator_view` after it: the stage itself by default."""
        del view
        return stage

    def question(self, view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> Question:
        """What ``seat`` is asked to decide now, seen from its ``view``."""
        del view, seat, names
        return Question("move", "your move: type it, or press Tab for the legal moves")

    def idle(self, view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> str:
        """What the person at ``seat`` is told while nothing is asked of it ("": the table says
        whom the match waits for)."""
        del view, seat, names
        return ""

    def remember(
        self,
        memory: dict[str, Any],
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        actions: Sequence[tuple[int, Any]] = (),
    ) -> None:
        """Keep what the board should go on showing after the state moved past it (a round's
        reckoning, say): called with each step's new ``events``, the ``view`` after it and the
        step's ``actions`` (seat and action, as the transcript has them)."""
        del memory, events, view, actions

    def echo(self, action: Mapping[str, Any], state: Any, seat: int) -> str:
        """What the person at ``seat`` is told it sent (``state``: the game's state it was sent
        in): :meth:`describe` unless the game's words say it better."""
        del state, seat
        return self.describe(action)

    def log_lines(
        self,
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any] | None,
        names: Mapping[int, str] | None = None,
    ) -> list[str]:
        """The log's lines for one step's ``events`` (``view``: the seat's view after it), each
        worded by the game (its spec's ``words``) with the players' ``names``."""
        del view
        who = namer(names or {})
        return [self.spec.words(e, who) for e in events if isinstance(e, Mapping)]

    def describe(self, action: Mapping[str, Any]) -> str:
        """An action in the words a player would type (what :meth:`parse` reads back)."""
        words = [str(action.get("type"))]
        for key, value in action.items():
            if key != "type":
                words.append(f"{key}={_field_text(value)}")
        return " ".join(words)

    # -- what the player types -----------------------------------------------------------------

    def parse(self, text: str, state: Any, seat: int) -> Parsed:
        """The move ``text`` means for ``seat`` (not yet checked against the rules: the caller
        does that); raises InputError."""
        text = text.strip()
        if text.startswith("{"):
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise InputError(f"not JSON: {exc}") from None
            if not isinstance(data, dict):
                raise InputError("an action is a JSON object with a type")
            return Parsed(data)
        words = text.split()
        legal_types = {str(a.to_plain().get("type")) for a in self._legal(state, seat)}
        if words == ["pass"] and "pass" not in legal_types:
            if state is not None and seat in self.engine.waiting_on(state):
                raise InputError("the game waits for your move: you cannot pass")
            return Parsed(None)
        action: dict[str, Any] = {"type": words[0]}
        for word in words[1:]:
            key, sep, value = word.partition("=")
            if not sep or not key:
                raise InputError(f"{word!r}: expected FIELD=VALUE, like cell=5 (or type the action as JSON)")
            action[key] = _field_value(value)
        return Parsed(action)

    def caution(self, action: Mapping[str, Any], state: Any, seat: int) -> str:
        """With hints on, the question to confirm a legal ``action`` of ``seat`` the hints mark as
        a mistake ("": they do not, as by default)."""
        del action, state, seat
        return ""

    def choices(self, state: Any, seat: int, typed: str, *, hints: bool) -> list[Choice]:
        """The completions for what is typed so far: the legal moves."""
        del typed, hints
        if state is None:
            return []
        legal = self._legal(state, seat)
        out = [Choice(self.describe(action.to_plain()), "a legal move") for action in legal]
        if seat not in self.engine.waiting_on(state) and not any(c.text == "pass" for c in out):
            out.append(Choice("pass", "let it pass"))
        return out

    def dark_choices(self, typed: str, seat: int) -> list[Choice]:
        """The completions while the person's seat is kept in the dark (this machine does not
        know the state): none by default."""
        del typed, seat
        return []

    def dark_words(self) -> str:
        """What the person is told, once, when its seat goes into the dark (its first view claim)."""
        return "you cannot see the others' choices: you see only what you are told (the rest is shown later)"

    def dark_note(self, who: str, *, opened: bool) -> str:
        """What a replayed stage that ``who`` played in the dark says first: it shows what ``who``
        was shown; ``opened``, all was opened later, else the transcript stops before."""
        if opened:
            return f"{who} was kept in the dark: this is what it was shown (all was opened later)"
        return (
            f"{who} was kept in the dark: this is what it was shown; the transcript stops before the "
            "choices withheld from it were opened"
        )

    def _legal(self, state: Any, seat: int) -> list[Any]:
        if state is None:
            return []
        try:
            return list(self.engine.legal_actions(state, seat))
        except P2PGeniusError:
            return []


CHAT_ROOM: Final = 8
"""Rows a board leaves free under it (for the chat) when it adds the rules in brief."""


def rules_lines(
    rules: Mapping[str, Sequence[str]], phase: str, width: int, used: int, height: int
) -> list[Line]:
    """The rules of what is on a board, for a board of ``used`` rows with rows to spare in its
    ``height`` (a large window), each wrapped to ``width``, under a heading: ``rules[""]`` and
    every phase's entry in order, the entry of ``phase`` standing out, when they all fit; else
    ``rules[""]`` and ``phase``'s alone; else none."""
    heading: list[Line] = [[], [("class:title", " The rules in brief (F2: the whole rules page)")]]
    for keys in (list(rules), ["", phase]):
        lines = list(heading)
        for key in keys:
            style = "class:effect" if key == phase else "class:dim"
            for sentence in rules.get(key, ()):
                lines += wrap([(style, f"  - {sentence}")], width, 4)
        if len(lines) > len(heading) and used + len(lines) + CHAT_ROOM <= height:
            return lines
    return []


def _field_text(value: Any) -> str:
    """A field's value as typed: text as is when it reads back as the same text, else JSON."""
    readable = isinstance(value, str) and value and not any(c.isspace() for c in value)
    if readable and _field_value(value) == value:
        return str(value)
    return json.dumps(value, separators=(",", ":"), default=str)


def _field_value(text: str) -> Any:
    """A typed field's value: JSON if it reads as JSON, else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text
