"""``p2pgenius replay``: a match stepped through from its transcript, in the terminal.

:class:`Replay` is the model, kept apart from prompt_toolkit so it can be tested headless: the
verified transcript's steps (``p2pgenius.protocol.transcript.verify``), the position shown (0 is
the start, before the first step; ``k`` is the state after the ``k``-th step), and the lines to
draw there: the status bar, the board (the game's own front end, from a spectator's view of the
whole state, hidden cards shown as far as the transcript opens them) and the log (every step up
to this one, the newest last, this one highlighted). :func:`build` is the full-screen
application around it, in the frame the match screen has too (``p2pgenius.ui.frame``): the board
beside the log on a wide terminal, above it on a narrow one.

One numbering is shown, and ``go N`` takes it: the steps, counted from 1 as ``export`` counts them,
or the game's own unit where its front end has one (the duel's turns, a Paralysis choice in the
turn that cast it). The protocol's stages, counted from 0, are never shown: a person read
"stage 31" beside "step 32" and typed the wrong one.

``p2pgenius watch`` shows the same screen live (``live``): titled as watching, its log ending in
"the match goes on" until the match ends, then in the result.

Keys: Right, Space or n the next step; Left, p or Backspace the one before; Home and End the
first and the last; Up and Down scroll the board's history (the duel's turns); ``go N`` (typed,
then Enter) jumps to what the status bar calls N (0: the start); F1 or ? the help; F2 (or
``rules``) the game's whole rules page; q, Ctrl-C or Ctrl-Q leave.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import AnyContainer, Dimension, VSplit, Window
from prompt_toolkit.widgets import Frame

from p2pgenius import wording
from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_spec
from p2pgenius.games.registry import names as game_names
from p2pgenius.protocol.identity import fingerprint
from p2pgenius.protocol.transcript import UNCONFIRMED, Report, Step
from p2pgenius.rules_pages import rules_page
from p2pgenius.ui.frame import (
    MIN_LOG,
    InputLine,
    application,
    fitted,
    frame,
    frame_keys,
    geometry,
    help_overlay,
    lines_text,
    rule_line,
    stacked,
    terminal_size,
    text_control,
)
from p2pgenius.ui.frontends import frontend
from p2pgenius.ui.lines import Line, namer, seat_name, width_of, wrap, wrap_all
from p2pgenius.ui.render import BoardRequest
from p2pgenius.ui.style import replay_style

HELP: Final = """{what}

Right, Space or n     the next step
Left, p or Backspace  the step before
Home / End            the start / the last step
{scroll}go N, then Enter      {unit} N, as the status bar counts (0: the start; a number alone does the same)
first, last, next, back: the same, typed
F1 or ?               this help (Esc closes it)
F2, or rules typed    the whole rules page of the game (F2 or Esc closes it)
q, Ctrl-C or Ctrl-Q   leave

The board shows the whole state after the step, with every card the transcript opens; the \
log, every step up to it, the one shown highlighted; the status bar, the players with their \
fingerprints, the step, whether the transcript verified (valid, a fault, or incomplete) and \
the result."""

REPLAYING: Final = "Replaying a match from its transcript (nothing is sent anywhere)."
WATCHING: Final = (
    "Watching a match live (nothing is sent to the table): End follows the newest step, the "
    "others look back while the match goes on."
)
PROTOCOL_UNIT: Final = "stage"
"""A front end's default unit: the protocol's stages, counted from 0, which the replay does not
show (it counts the steps from 1 instead)."""
STEP: Final = "step"
GOES_ON: Final = "the match goes on: waiting for the next move"
WAITING: Final = "waiting for the match to begin: the board shows once the seats are dealt"


class ReplayError(P2PGeniusError):
    """A transcript with no match in it to replay."""


@dataclass(frozen=True)
class Entry:
    """One position's lines in the log: a head (the step, and what each seat did) and the rest
    (what the engine said happened; after the last step, how the match ended)."""

    head: str
    lines: tuple[str, ...]


class Replay:
    """A verified transcript, the position shown, and what to draw there."""

    def __init__(
        self,
        report: Report,
        *,
        ascii_only: bool = False,
        live: bool = False,
        notes: list[tuple[int, str]] | None = None,
    ) -> None:
        self.begun = report.game is not None and report.initial is not None and bool(report.owner)
        if not self.begun and not live:
            raise ReplayError("nothing to replay: the transcript stops before the seats were dealt")
        self.report = report
        self.game: str = report.game if report.game in game_names() else ""
        self.ascii_only = ascii_only
        self.live = live  # watched as it is played (p2pgenius watch)
        self.stopped = ""  # live: why the watching stopped before the match ended, once it did
        self.away = ""  # live: while the watching is cut, its calls again (updated at each)
        self.notes: list[tuple[int, str]] = [] if notes is None else notes
        """Live: what the spectator was told besides the moves (the connection, the players'
        chat), each at the position the match was at when it came."""
        self.title = (get_spec(self.game).title or self.game) if self.game else "a match"
        self.index = 0
        self.message = ""
        self.help_open = False
        self.help_top = 0  # the help's first line shown (PageUp/PageDown and the arrows move it)
        self.rules_open = False  # the window over the board shows the rules page, not the help
        self.history_back = 0  # turns the board's history (the duel's) is scrolled back (Up)
        self._boards: dict[tuple[int, int, int, int], list[Line]] = {}
        self.front = frontend(self.game)  # (no game yet: the generic one, which draws nothing here)
        # Live, before the deal: one position, no board yet, the log saying what it waits for.
        self.names: dict[int, str] = {}
        self.states: list[Any] = [None]
        self.views: list[Mapping[str, Any]] = [{}]
        self.memories: list[Mapping[str, Any]] = [{}]
        self.unit, self.numbers, self.hidden = STEP, [0], False
        self.entries: list[Entry] = [Entry("before the first move", ())]
        if self.begun:
            self._read_match(report)
            return
        self._bare_last = self.entries[0]
        self._read_ending()

    def _read_match(self, report: Report) -> None:
        """Every position of the match so far: its state, its view, its number and its entry."""
        spec = get_spec(self.game)
        self.names = {
            seat: wording.printable(str(report.names[peer])) for seat, peer in enumerate(report.owner)
        }
        self.states = [report.initial] + [step.state for step in report.steps]
        self.views = [self.front.spectator_view(report.initial)] + [
            self._step_view(step) for step in report.steps
        ]
        self.unit, self.numbers = self._numbering()
        self.hidden = any(spec.unopened(action) for step in report.steps for _, action in step.actions)
        self.memories, self.entries = [], []
        self._read_steps()

    def _numbering(self) -> tuple[str, list[int]]:
        """What the replay counts (the front end's unit, or the steps) and each position's number
        in it, 0 for the start."""
        if self.front.replay_unit == PROTOCOL_UNIT:
            return STEP, list(range(len(self.states)))
        marks = [
            self.front.replay_number(step.stage, self.views[k])
            for k, step in enumerate(self.report.steps, start=1)
        ]
        return self.front.replay_unit, [0, *marks]

    def mark(self, index: int, *notes: str) -> str:
        """What position ``index`` is called, with ``notes``: "turn 3", "step 12", "turn 3
        (continued)" (a second step of turn 3), "turn 0 (the start)"."""
        number = self.numbers[index]
        if index == 0:
            notes = ("the start", *notes)
        elif self.numbers[index - 1] == number:
            notes = ("continued", *notes)
        return f"{self.unit} {number}" + (f" ({', '.join(notes)})" if notes else "")

    def _step_view(self, step: Step) -> Mapping[str, Any]:
        """The board after ``step``: the whole field, or, for a stage this transcript's peer saw
        in the dark, what it was shown (its seat's view, the others' choices unseen)."""
        if step.seen is None:
            return self.front.spectator_view(step.state)
        view = {key: value for key, value in step.seen.items() if key != "next"}
        view["spectator"] = True
        view["dark_seat"] = int(step.dark[0]) if step.dark else view.get("seat", 0)
        return view

    # -- what each step says -------------------------------------------------------------------

    def _read_steps(self) -> None:
        """Each position's log entry and the front end's memory after it (a step that tells the
        events of the step before again, as a duel turn finished by a Paralysis choice does,
        adds only what is new: the very same event objects, as the session reported them)."""
        memory: dict[str, Any] = {}
        shown: tuple[Any, ...] = ()
        who = namer(self.names)  # (a player by name, its seat beside it: "Hana (p1)")
        seats = ", ".join(who(seat) for seat in sorted(self.names))
        self.entries.append(Entry("the start", (f"seats: {seats}",)))
        self.memories.append(copy.deepcopy(memory))
        for k, step in enumerate(self.report.steps, start=1):
            events = tuple(item for item in step.events if isinstance(item, Mapping))
            fresh = events
            again = shown and len(events) >= len(shown)
            if again and all(a is b for a, b in zip(events, shown, strict=False)):
                fresh = events[len(shown) :]
            shown = events
            view = self.views[k]
            with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
                self.front.remember(memory, fresh, view, step.actions)
            self.memories.append(copy.deepcopy(memory))
            try:
                said = self.front.log_lines(fresh, view, self.names)
            except (LookupError, TypeError, ValueError, AttributeError):  # (a transcript's odd event)
                said = [str(e.get("type")) for e in fresh]
            moves = "; ".join(
                f"{who(seat)}: {self._move(action)}" for seat, action in self._shown_actions(step)
            )
            dark = " and ".join(seat_name(self.names, s) for s in step.dark)
            marks = [self.front.spec.dark_mark(dark)] if dark else []
            head = self.mark(k, *marks) + (f"  {moves}" if moves else "")
            said = self._dark_note(step) + said
            self.entries.append(Entry(wording.printable(head), tuple(wording.printable(t) for t in said)))
        self._bare_last = self.entries[-1]
        self._read_ending()

    def _read_ending(self) -> None:
        """The last position's entry, with how the transcript ends (so far) under it."""
        last = self._bare_last
        ending = self._ending()
        self._ending_rows = len(ending)
        self.entries[-1] = Entry(last.head, last.lines + tuple(ending))

    def _shown_actions(self, step: Step) -> list[tuple[int, Any]]:
        """What the step's seats did, as far as the replay shows it: a stage the transcript's
        peer saw in the dark shows only its own seats' choices (the others it did not see)."""
        if step.seen is None:
            return list(step.actions)
        own = {seat for seat, peer in enumerate(self.report.owner) if peer == self.report.meta.get("me")}
        return [(seat, action) for seat, action in step.actions if seat in own]

    def _dark_note(self, step: Step) -> list[str]:
        """What a stage played in the dark shows, in the game's words (its front end's)."""
        if step.seen is None:
            return []
        who = " and ".join(seat_name(self.names, s) for s in step.dark) or "this player"
        return [self.front.dark_note(who, opened=step.state is not None)]

    def _move(self, action: Any) -> str:
        """An action in the words a player types; a hidden card nobody opened, as such."""
        if get_spec(self.game).unopened(action):
            return f"{action.get('type')} (face down)"
        try:
            return self.front.describe(action) if isinstance(action, Mapping) else str(action)
        except (LookupError, TypeError, ValueError, AttributeError):
            return str(action)

    def _ending(self) -> list[str]:
        """How the transcript ends: the result, the fault, or no result (yet: live, the match
        goes on; or the watching stopped before the match ended)."""
        report = self.report
        out = []
        if report.fault is not None:
            fault = report.fault
            out.append(
                f"the match stopped ({fault.kind}, {self._peer_words(fault.peer)}, at "
                f"{self._stage_words(fault.stage)}): {fault.reason}"
            )
        elif report.outcome is not None and report.standing == UNCONFIRMED:
            said = self._result()
            who = " and ".join(self._peer_words(peer).removeprefix("by ") for peer in report.unsigned)
            if self.live and not self.stopped:
                out.append(f"the moves yield: {said}; waiting for {who or 'every player'} to sign it")
            else:
                signed = f"{who or 'a player'} never signed it"
                out.append(f"unconfirmed: the moves yield {said}, but {signed}: no result")
        elif report.outcome is not None:
            out.append(f"the match is over: {self._result()}")
        elif self.stopped:
            ended = "ended" if self.begun else "began"
            out.append(f"the watching stopped here, before the match {ended}: {self.stopped}")
        elif not self.begun:
            out.append(WAITING)
        elif self.live:
            out.append(GOES_ON)
        else:
            out.append("the transcript ends here, with no result")
        if self.hidden:
            out.append("(face-down cards the transcript never opens stay hidden)")
        return [wording.printable(text) for text in out]

    def _result(self) -> str:
        """The result the transcript's moves yield, told to an onlooker in its game's words."""
        assert self.report.outcome is not None
        spec = get_spec(self.game)
        return spec.outcome_words(spec.read_outcome(self.report.outcome), self.names)

    def _stage_words(self, stage: int) -> str:
        """The protocol's stage ``stage`` (a fault's) in the replay's numbering: its step's, or
        the step after the last that was played."""
        for index, step in enumerate(self.report.steps, start=1):
            if step.stage == stage:
                return self.mark(index)
        if self.unit == STEP:
            return f"step {self.count + 1}"
        return f"the step after {self.unit} {self.numbers[-1]}"

    def _peer_words(self, peer: int | None) -> str:
        if peer is None or not 0 <= peer < len(self.report.names):
            return "nobody's fault in particular"
        return f"by {wording.printable(str(self.report.names[peer]))}"

    def update(self, report: Report) -> None:
        """The match went on (a spectator watching it live): read it again. A view at the last
        step follows the newest; one stepped back stays where it is."""
        following = self.index >= self.count
        index, help_open, help_top = self.index, self.help_open, self.help_top
        stopped, message = self.stopped, self.message
        away, back = self.away, self.history_back
        self.__init__(report, ascii_only=self.ascii_only, live=self.live, notes=self.notes)  # type: ignore[misc]
        if stopped:
            self.stop(stopped)
        self.index = self.count if following else min(index, self.count)
        self.help_open, self.help_top, self.message = help_open, help_top, message
        self.away, self.history_back = away, back

    def stop(self, reason: str) -> None:
        """Live: the watching ended (``reason``) before the match did; the log says so."""
        if not self.report.ok and self.report.fault is None:
            self.stopped = reason
            self._read_ending()

    def over(self) -> bool:
        """Whether nothing more will come: the match ended (a result or a fault), or it is a
        replay, or the watching stopped."""
        return not self.live or bool(self.stopped) or self.report.ok or self.report.fault is not None

    # -- moving ---------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        """How many steps the transcript holds (positions run from 0, the start, to this)."""
        return len(self.states) - 1

    def jump(self, index: int) -> None:
        """Show position ``index`` (kept within the start and the last step)."""
        self.index = max(0, min(index, self.count))
        self.message = ""

    def forward(self) -> None:
        if self.index >= self.count:
            self.message = "this is the last step (Home goes back to the start)"
            return
        self.jump(self.index + 1)

    def back(self) -> None:
        if self.index <= 0:
            self.message = "this is the start (End goes to the last step)"
            return
        self.jump(self.index - 1)

    def first(self) -> None:
        self.jump(0)

    def last(self) -> None:
        self.jump(self.count)

    def go(self, number: int) -> bool:
        """Jump to what the status bar calls ``unit`` ``number`` (the first step of it: a duel
        turn with a Paralysis choice has two); False, with a message saying what there is, if
        there is none."""
        for index, mark in enumerate(self.numbers):
            if mark == number:
                self.jump(index)
                return True
        last = self.numbers[-1]
        if not self.over() and number > last:
            self.message = f"no {self.unit} {number} yet: the match is at {self.unit} {last}"
        else:
            self.message = f"no {self.unit} {number} in this match: {self.unit}s 0 (the start) to {last}"
        return False

    def enter(self, text: str) -> bool:
        """A typed command; True when it says to leave."""
        words = text.strip().lower().split()
        self.message = ""
        if not words:
            return False
        head = words[0]
        if head in ("q", "quit", "exit"):
            return True
        commands: dict[str, Callable[[], None]] = {
            **dict.fromkeys(("n", "next"), self.forward),
            **dict.fromkeys(("p", "prev", "back"), self.back),
            **dict.fromkeys(("first", "start", "home"), self.first),
            **dict.fromkeys(("last", "end"), self.last),
            **dict.fromkeys(("help", "?"), self.page),
            "rules": partial(self.page, rules=True),
        }
        if head in commands:
            commands[head]()
        elif head == "go" and len(words) == 2 and _number(words[1]) is not None:
            self.go(_number(words[1]) or 0)
        elif len(words) == 1 and _number(head) is not None:
            self.go(_number(head) or 0)
        else:
            self.message = (
                f"{text.strip()[:40]!r}: type go N ({self.unit} N), first, last, next, back, rules or q"
            )
        return False

    # -- what to show ---------------------------------------------------------------------------

    def view(self, index: int | None = None) -> Mapping[str, Any]:
        return self.views[self.index if index is None else index]

    def where(self) -> str:
        """ "turn 3 of 8", "step 12 of 31", "step 0 of 31 (the start)", "turn 3 of 8 (continued)";
        live before the deal, "before the first move"."""
        if not self.begun:
            return "before the first move"
        number, notes = self.mark(self.index).partition(" (")[::2]
        return f"{number} of {self.numbers[-1]}" + (f" ({notes}" if notes else "")

    def verdict(self) -> tuple[str, bool]:
        """What the verification found, in a word or two, and whether it is good news (live:
        every message so far checked is)."""
        report = self.report
        if report.fault is not None:
            return f"fault: {report.fault.kind} at {self._stage_words(report.fault.stage)}", False
        if report.ok:
            return "valid", True
        if not self.over():
            return "checked so far", True
        if report.standing == UNCONFIRMED:
            return "unconfirmed", False
        return "incomplete", False

    def result(self) -> str:
        report = self.report
        if report.outcome is not None and report.standing == UNCONFIRMED:
            return wording.printable(f"unconfirmed: {self._result()}")
        if report.outcome is not None:
            return wording.printable(self._result())
        if report.fault is not None:
            return "stopped, no result"
        if self.stopped:
            return "no result: the watching stopped"
        if self.live and self.away:  # (cut off: the calls again, in place; why, if it fits)
            return wording.printable(self.away)
        if not self.begun:
            return "not begun yet"
        return "the match goes on" if self.live else "no result yet"

    def players(self) -> list[str]:
        """Each peer, in the order of their first seats: its name, its seats, its fingerprint."""
        keys = self.report.meta.get("peers") or []
        owner = self.report.owner
        out = []
        for peer in sorted(
            range(len(self.report.names)), key=lambda p: (p not in owner, owner.index(p) if p in owner else p)
        ):
            seats = "/".join(f"p{s}" for s, holder in enumerate(owner) if holder == peer)
            key = keys[peer] if peer < len(keys) and isinstance(keys[peer], bytes) else b""
            name = wording.printable(str(self.report.names[peer]))
            out.append(f"{name} ({seats or 'no seat'}) {fingerprint(key)}")
        return out

    def status_lines(self, width: int = 80) -> list[Line]:
        """The status bar: the game and the players with their fingerprints; where the replay is,
        the verdict and the result. One line when all fit, else the players and the rest apart,
        each part packed a whole item at a time (the game by its short name if that saves a
        line; by its whole title if nothing does)."""
        words, good = self.verdict()
        players: Line = [("class:status", f" {player} ") for player in self.players()]
        rest: Line = [
            ("class:status.title", f" {self.where()} "),
            ("class:status.good" if good else "class:status.warn", f" {words} "),
            ("class:status", f" {self.result()} "),
        ]
        heads: list[Line] = [[("class:status.title", title), *players] for title in self.titles()]
        for head in heads:
            if width_of(head + rest) <= width:
                return [head + rest]
        head = next((head for head in heads if len(pack(head, width)) == 1), heads[0])
        return pack(head, width) + pack(rest, width)

    def titles(self) -> tuple[str, ...]:
        """The status bar's title, longest first: "replay: The wizard duel", or live, "watching
        The wizard duel live"."""
        if self.live and not self.game:  # (before the terms name it)
            return (f" watching {self.title} live ", " watching live ")
        if self.live:
            return (
                f" watching {self.title} live ",
                f" watching {self.game} live ",
                f" watching {self.game} ",
            )
        return (f" replay: {self.title} ", f" replay {self.game} ", f" {self.game} ")

    @property
    def command(self) -> str:
        """The command this screen is (its prompt)."""
        return "watch" if self.live else "replay"

    def board_lines(self, width: int = 80, height: int = 40) -> list[Line]:
        """The board after the current step, for ``width`` columns and about ``height`` rows."""
        if not self.begun:
            return wrap([("class:dim", " the board shows once the seats are dealt")], width, 1)
        key = (self.index, width, height, self.history_back)
        if key not in self._boards:
            if len(self._boards) > 512:  # (a terminal resized over and over)
                self._boards.clear()
            try:
                lines = self.front.board(board_request(self, width, height))
            except (LookupError, TypeError, ValueError, AttributeError) as exc:
                lines = [[("class:effect", f" the board cannot be drawn here ({exc!r})")]]
            self._boards[key] = wrap_all(lines, width)
        return self._boards[key]

    def entry_lines(self, index: int, width: int) -> list[Line]:
        """Position ``index``'s log entry, wrapped to ``width`` (highlighted if it is the
        current one)."""
        entry = self.entries[index]
        current = index == self.index
        head: Line = [("class:current" if current else "class:old-head", entry.head)]
        out = wrap(head, width, 2)
        style = "class:current-text" if current else "class:old"
        lines = [(style, text) for text in entry.lines]
        said = [("class:chat", text) for at, text in self.notes if at == index]
        # What was said comes before how the transcript ends so far (the last entry's tail).
        cut = len(lines) - self._ending_rows if index == self.count else len(lines)
        for kind, text in lines[:cut] + said + lines[cut:]:
            out += wrap([(kind, "  " + text)], width, 4)
        return out

    def log_lines(self, width: int = 40, height: int | None = None) -> list[Line]:
        """The log up to the current step for ``width`` columns: the newest last, and (given
        ``height``) only the rows that show: the newest, but never below the current step's
        first line (a step longer than the log shows its top)."""
        out: list[Line] = []
        start = 0
        for index in range(self.index + 1):
            if index == self.index:
                start = len(out)
            out += self.entry_lines(index, width)
        if height is None or len(out) <= height:
            return out
        top = min(len(out) - height, start)
        return out[top : top + height]

    def keys_line(self) -> Line:
        arrows = ("Right", "Left") if self.ascii_only else ("\u2192", "\u2190")
        return [
            ("class:label", " keys "),
            ("class:dim", f" {arrows[0]}/n next  {arrows[1]}/p back  Home/End  go N: {self.unit} N  "),
            ("class:dim", "q quits  F1 help  F2 rules"),
        ]

    def help_text(self) -> str:
        if self.rules_open:  # (the rules page, as the table shows it: wrapped to the window)
            return "\n".join(text for _, text in rules_page(self.game, ascii_only=self.ascii_only))
        scroll = self.front.scroll_keys
        return HELP.format(
            unit=self.unit, what=WATCHING if self.live else REPLAYING, scroll=scroll + "\n" if scroll else ""
        )

    def page(self, *, rules: bool = False, toggle: bool = False) -> None:
        """The help (or, ``rules``, the game's whole rules page, which the board's rules in brief
        name) in the window over the board; ``toggle``: closed instead if it is open already."""
        if toggle and self.help_open and self.rules_open == rules:
            self.close()
        elif rules and self.game not in game_names():
            self.message = "the rules show once the game is known"
        else:
            self.help_open, self.help_top, self.rules_open = True, 0, rules

    def close(self) -> None:
        """Esc: the help (or the rules page) closes, and what the last key or command said goes."""
        self.help_open = self.rules_open = False
        self.message = ""


def pack(items: Line, width: int) -> list[Line]:
    """``items`` on as few lines of ``width`` columns as they take whole (one longer than a
    line is wrapped)."""
    out: list[Line] = []
    current: Line = []
    for item in items:
        if current and width_of(current) + width_of(item[1]) > width:
            out.append(current)
            current = []
        if width_of(item[1]) > width:
            out += wrap([item], width)
            continue
        current.append(item)
    return out + [current] if current else out


def board_request(replay: Replay, width: int, height: int) -> BoardRequest:
    """What ``replay``'s board is drawn from, ``width`` x ``height``, at the position shown."""
    return BoardRequest(
        replay.game,
        replay.view(),
        replay.names,
        ascii_only=replay.ascii_only,
        hints=False,
        mine=(),
        width=width,
        height=height,
        memory=replay.memories[replay.index],
        scroll=replay.history_back,
    )


def _number(word: str) -> int | None:
    return int(word) if word.isascii() and word.isdigit() else None


# -- the application ------------------------------------------------------------------------------


class Screen:
    """The replay's pieces that depend on the terminal's size."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay

    def status(self) -> list[Line]:
        return self.replay.status_lines(terminal_size()[0])

    def keys(self) -> list[Line]:
        """The keys, or in their place what the last key or command said."""
        text = self.replay.message
        line = [("class:message", " " + text)] if text else self.replay.keys_line()
        return wrap(line, terminal_size()[0])

    def chrome(self) -> int:
        """Rows taken by everything but the board and the log (and the rule between them)."""
        return len(self.status()) + len(self.keys()) + 1

    def wide(self) -> bool:
        columns, rows = terminal_size()
        return geometry(columns, rows, self.chrome()).wide

    def narrow_rows(self) -> tuple[list[Line], int]:
        """On a narrow screen: the board, and the rows the log gets under it. The log gets room
        for the current step (up to half the screen), the board the rest: a board that does not
        fit is asked again for fewer rows (it leaves out what it can do without)."""
        columns, rows = terminal_size()
        body = max(rows - self.chrome(), 4)
        height = self.board_size()[1]
        lines = self.replay.board_lines(columns, height)
        shown = max(min(len(lines), height), 1)
        return lines[:shown], body - 1 - shown

    def scroll_history(self, turns: int) -> None:
        """The board's history (the duel's turns) ``turns`` further back (forward, if negative),
        never past its first nor its newest at the board's size now."""
        replay = self.replay
        limit = 0
        if replay.begun:
            with contextlib.suppress(LookupError, TypeError, ValueError, AttributeError):
                limit = replay.front.scroll_limit(board_request(replay, *self.board_size()))
        replay.history_back = max(min(replay.history_back + turns, limit), 0)

    def board_size(self) -> tuple[int, int]:
        """The columns and rows the board is drawn for: inside its frame on a wide screen; on a
        narrow one, what the log under it leaves (:meth:`narrow_rows`)."""
        if self.wide():
            width, height, _ = self.wide_sizes()
            return width, height
        columns, rows = terminal_size()
        body = max(rows - self.chrome(), 4)
        current = len(self.replay.entry_lines(self.replay.index, columns))
        want = max(MIN_LOG, min(current, body // 2))
        return columns, body - 1 - want

    def wide_sizes(self) -> tuple[int, int, int]:
        """On a wide screen: the board's width and height inside its frame, the log's width."""
        columns, rows = terminal_size()
        geo = geometry(columns, rows, self.chrome())
        return geo.board_width, geo.board_height, geo.side_width - 2

    def log_height(self) -> int:
        if self.wide():
            _, rows = terminal_size()
            return max(rows - self.chrome() - 2, 1)
        return self.narrow_rows()[1]

    def log_text(self) -> StyleAndTextTuples:
        """The log up to the current step, as many rows of it as show."""
        width = self.wide_sizes()[2] if self.wide() else terminal_size()[0]
        return lines_text(self.replay.log_lines(width, self.log_height()))

    def rule(self) -> StyleAndTextTuples:
        replay = self.replay
        title = f" what happened, up to {replay.where()} " if replay.begun else " what happened so far "
        return rule_line(title, terminal_size()[0], ascii_only=replay.ascii_only)

    def body(self) -> AnyContainer:
        """The board framed beside the log (wide), or over a rule and the log (narrow)."""
        replay = self.replay
        log = Window(text_control(self.log_text), wrap_lines=False)
        if not self.wide():
            board_lines, _ = self.narrow_rows()
            return stacked(lambda: board_lines, len(board_lines), self.rule, log)
        width, height, side = self.wide_sizes()
        drawn = replay.board_lines(width, height)
        return VSplit(
            [
                Frame(
                    Window(text_control(lambda: lines_text(drawn)), wrap_lines=False),
                    title=lambda: f"{replay.title}: {replay.where()}",
                ),
                Frame(log, title="what happened", width=Dimension.exact(side + 2)),
            ]
        )


def keys(replay: Replay, buffer: Buffer, screen: Screen) -> KeyBindingsBase:
    """On an empty input line: Right, Space or n the next step; Left, p or Backspace the one
    before; Home and End the first and the last; q leaves. Up and Down scroll the board's
    history (the duel's turns) on the ``screen``'s board (the help, while it is open). And the
    frame's keys."""
    empty = Condition(lambda: not buffer.text)
    own = KeyBindings()

    def moving(action: Callable[[], None]) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            replay.help_open = False
            action()

        return handler

    for key in ("right", "space", "n"):
        own.add(key, filter=empty)(moving(replay.forward))
    for key in ("left", "p", "backspace"):
        own.add(key, filter=empty)(moving(replay.back))
    own.add("home", filter=empty)(moving(replay.first))
    own.add("end", filter=empty)(moving(replay.last))

    def scrolling(turns: int) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            screen.scroll_history(turns)

        return handler

    board = Condition(lambda: not replay.help_open)  # (the help open, the arrows scroll it)
    own.add("up", filter=board)(scrolling(1))
    own.add("down", filter=board)(scrolling(-1))

    def leave(event: KeyPressEvent) -> None:
        event.app.exit()

    own.add("q", filter=empty)(leave)
    own.add("f2")(lambda event: replay.page(rules=True, toggle=True))
    return merge_key_bindings(
        [
            own,
            frame_keys(
                empty=empty,
                toggle_help=partial(replay.page, toggle=True),
                help_pane=replay,
                close=replay.close,
                leave=leave,
            ),
        ]
    )


def build(replay: Replay, **app_args: Any) -> Application[None]:
    """The full-screen replay of ``replay`` (``app_args``: input, output, for tests)."""
    screen = Screen(replay)

    def accept(buff: Buffer) -> bool:
        if replay.enter(buff.text):
            get_app().exit()
        return False  # clear the line

    buffer = Buffer(multiline=False, accept_handler=accept)
    root = frame(
        status=screen.status,
        body=screen.body,
        typing=InputLine(buffer, f"{replay.command}> ", above=[fitted(screen.keys)]),
        floats=[help_overlay(replay)],
    )
    return application(
        root,
        buffer=buffer,
        keys=keys(replay, buffer, screen),
        style=lambda: replay_style(replay.game or None),
        **app_args,
    )


def run(replay: Replay) -> None:
    """Show ``replay`` on this terminal until the person leaves."""
    build(replay).run()
