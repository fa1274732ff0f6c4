"""What the person at the table types and presses: moves (checked before they are sent, some
confirmed first), chat, the commands (help, rules, hint), the y/n answers, and the panes those
open (help, rules, the log scrolled back, the question whether to leave). The key bindings of
:mod:`p2pgenius.ui.key_bindings` only say which key does which of these."""

from __future__ import annotations

import base64
import os
from typing import Final

from prompt_toolkit.application import get_app
from prompt_toolkit.output import DummyOutput, Output

from p2pgenius.errors import P2PGeniusError
from p2pgenius.rules_pages import rules_page
from p2pgenius.ui import moves
from p2pgenius.ui.frontends import frontend
from p2pgenius.ui.peer_adapter import PeerAdapter
from p2pgenius.ui.table_state import TableState, person_seat
from p2pgenius.ui.table_text import TableText

LEAVE_QUESTION: Final = (
    "leave the match? Your transcript is kept and `p2pgenius resume` carries on. "
    "Ctrl-Q again leaves, Esc stays"
)
"""Said under the input at the first Ctrl-Q of a match still going."""
LEAVE_LOBBY_QUESTION: Final = (
    "leave? No match has begun: nothing is played, and there is nothing to resume. "
    "Ctrl-Q again leaves, Esc stays"
)
"""Said at the first Ctrl-Q before the match begins (the waiting screen, the lobby)."""


LEAVE_WORDS: Final = ("quit", "exit", "q")
"""Typed to leave (never a move in any game): answered with the key that leaves."""


NO_CLIPBOARD: Final = "P2PGENIUS_NO_CLIPBOARD"
"""Set: the terminal is never asked to copy (as the host's command line never asks it then)."""


def terminal_clipboard(output: Output, text: str) -> bool:
    """Ask the terminal the screen draws on to put ``text`` on its clipboard (OSC 52); False if
    there is no terminal to ask (or it is dumb, or asking is turned off)."""
    if os.environ.get(NO_CLIPBOARD) or os.environ.get("TERM") == "dumb" or isinstance(output, DummyOutput):
        return False
    output.write_raw(f"\x1b]52;c;{base64.b64encode(text.encode()).decode('ascii')}\x07")
    output.flush()
    return True


class TableInput:
    """The person's input, and the panes it opens over the screen."""

    def __init__(self, state: TableState, adapter: PeerAdapter, text: TableText) -> None:
        self.state = state
        self.adapter = adapter
        self.text = text
        self.help_open = False
        self.help_top = 0  # the help's first line shown (PageUp/PageDown and the arrows move it)
        self.rules_open = False
        self.rules: list[tuple[str, str]] = []
        self.rules_scroll = 0
        self.follow = True  # the log shows its newest lines (PageUp stops that, End resumes it)
        self.log_top = 0  # the first line shown while not following
        self.leaving = False  # Ctrl-Q pressed once: a second one leaves

    def enter(self, text: str) -> None:
        """What the person typed and sent with Enter."""
        state = self.state
        text = text.strip()
        state.message = ""
        if self.adapter.lobby_answered is not None:
            self._answer_lobby(text)
            return
        if state.confirming is not None:
            if not text:
                return  # (an empty line answers nothing: y or n)
            _, seat, parsed = state.confirming
            state.confirming = None
            if text.lower() in ("y", "yes"):
                self._send(seat, parsed)
            else:
                state.message = "not sent"
            state.invalidate()
            return
        if not text:
            return
        self._command(text)
        state.invalidate()

    def _answer_lobby(self, text: str) -> None:
        """y, n or fast to the host's lobby: join, leave, or join proposing fast turns."""
        if not text or self.adapter.answer is not None:
            return  # (an empty line answers nothing; and the answer given stands)
        answer = text.lower()
        yes = answer in ("y", "yes", "fast")
        if answer == "fast":  # join, and propose fast turns with it
            self.adapter.propose({"fast": True})
        if not self.adapter.answer_lobby(yes):
            self.state.message = "the host has gone"
        elif answer == "fast":
            self.state.say_of_lobby(
                "you join and propose fast turns: the host takes them up or keeps its options"
            )
        elif yes:
            self.state.say_of_lobby("you join: the match begins once every player has said yes")

    def asks_yes_no(self) -> bool:
        """Whether the person is asked a yes-or-no question now."""
        return self.state.confirming is not None or self.adapter.lobby_answered is not None

    def _command(self, text: str) -> None:
        """A command, a chat line, or else a move."""
        lowered = text.lower()
        panes = {"help": self.toggle_help, "?": self.toggle_help, "rules": self.show_rules}
        panes |= {"copy": self.copy_invite, "copy invite": self.copy_invite}
        if lowered in panes:
            panes[lowered]()
        elif lowered in ("done", "stand") and self._unsettled() is not None:
            self._settle()
        elif lowered in ("fast", "fast on", "fast off"):
            self._propose(lowered != "fast off")
        elif lowered == "keep" and self.adapter.decline_proposal():
            self.state.proposal = None
            self.state.say_of_lobby("the table keeps its options")
        elif lowered in LEAVE_WORDS:
            self.state.message = self._how_to_leave()
        elif lowered == "hint":
            self.state.hints = not self.state.hints
            self.state.message = f"hints {'on' if self.state.hints else 'off'}"
        elif lowered.startswith("say ") or text.startswith("'") or lowered == "say":
            words = text[3:] if lowered.startswith("say") else text[1:]
            self._chat(words.strip())
        else:
            try:
                self._move(text)
            except P2PGeniusError as exc:  # (moves.parse says InputError; anything else, too)
                self.state.message = str(exc)
            except (LookupError, TypeError, ValueError) as exc:
                self.state.message = f"not understood: {exc}"

    def _how_to_leave(self) -> str:
        """What ``quit`` (``exit``, ``q``) answers: the key that leaves, and what leaving keeps."""
        session = self.text.session
        if self.state.finished:
            return "Ctrl-Q leaves"
        if session is None or session.terms is None:
            return "to leave, press Ctrl-Q twice: no match has begun, so there is nothing to resume"
        return "to leave, press Ctrl-Q twice: the match is kept, and `p2pgenius resume` carries on"

    def copy_invite(self) -> None:
        """F3 or ``copy``: the host's invite, whole, to the clipboard: the screen's own, and the
        terminal's, asked with OSC 52 (``ESC ] 52 ; c ; BASE64 BEL``: a terminal that allows it
        puts it on the system clipboard; nothing says whether it did)."""
        state = self.state
        if not state.invite:
            state.message = "there is no invite to copy: a host shows one while it waits for players"
            return
        app = get_app()
        app.clipboard.set_text(state.invite)
        asked = terminal_clipboard(app.output, state.invite)
        saved = f", or copy it from {state.saved}" if state.saved else ""
        if asked:
            state.message = (
                "invite copied: your terminal was asked to put it on the clipboard (OSC 52); paste "
                f"it to check: a terminal that does not allow it keeps nothing{saved}"
            )
        else:
            state.message = f"this terminal has no clipboard p2pgenius can reach: select its rows{saved}"
        state.invalidate()

    # -- the panes -------------------------------------------------------------------------------

    def toggle_help(self) -> None:
        """Open the help from its first line, over the rules page if it is open (which closes);
        or close it."""
        self.help_open = not self.help_open
        if self.help_open:
            self.help_top = 0
            self.rules_open = False

    def help_text(self) -> str:
        """The help's words: the game's (in this match's time limit), then the keys every game
        shares (the window's last line says that Esc closes it, wherever it is scrolled)."""
        text = self.text
        return moves.help_text(text.game(), text.time_words()) + "\n\n" + moves.COMMON_HELP

    def show_rules(self) -> None:
        """Open the rules page of this game over the board (Esc closes it)."""
        game = self.text.game()
        if game is None:
            self.state.message = "the rules show once the game is known"
            return
        try:
            self.rules = rules_page(game, ascii_only=self.state.ascii_only)
        except P2PGeniusError as exc:
            self.state.message = str(exc)
            return
        self.help_open = False
        self.rules_open = True
        self.rules_scroll = 0

    def toggle_rules(self) -> None:
        if self.rules_open:
            self.rules_open = False
        else:
            self.show_rules()

    def scroll_rules(self, rows: int) -> None:
        """The rules page ``rows`` further down (up, if negative; never above its top)."""
        self.rules_scroll = max(self.rules_scroll + rows, 0)

    def page_up(self, top: int, height: int) -> None:
        """The log a page back from ``top``, the line it shows first (it stops following)."""
        self.log_top = max(top - height, 0)
        self.follow = False

    def page_down(self, top: int, height: int, count: int) -> None:
        """The log a page on from ``top``; at the end of its ``count`` lines it follows again."""
        if self.follow:
            return
        self.log_top = top + height
        if self.log_top + height >= count:
            self.follow = True

    def scroll_history(self, turns: int, limit: int) -> None:
        """The board's history (the duel's turns) ``turns`` further back (forward, if negative),
        never past its first (``limit`` back) nor its newest."""
        self.state.history_back = max(min(self.state.history_back + turns, limit), 0)
        self.state.invalidate()

    def newest(self) -> None:
        """The log follows its newest lines again."""
        self.follow = True

    def oldest(self) -> None:
        """The log from its first line."""
        self.follow = False
        self.log_top = 0

    def close(self) -> None:
        """Esc: close the panes, stay at the table, and answer no to what was asked."""
        self.help_open = False
        self.rules_open = False
        if self.leaving:
            self.leaving = False
            self.state.message = ""
        if self.state.confirming is not None:
            self.enter("n")

    def leave(self) -> bool:
        """Ctrl-Q: True to leave now (the match is over, or it was asked already), else ask."""
        if self.state.finished or self.leaving:
            return True
        self.leaving = True
        session = self.text.session
        begun = session is not None and session.terms is not None
        self.state.message = LEAVE_QUESTION if begun else LEAVE_LOBBY_QUESTION
        return False

    # -- chat and moves --------------------------------------------------------------------------

    def _chat(self, text: str) -> None:
        state = self.state
        if not text or len(text) > 500:
            state.message = "a chat line has 1 to 500 characters (say TEXT)"
            return
        session = self.text.session
        if self.adapter.peer is None or session is None or session.terms is None:
            state.message = "chat opens when the match starts"
            return
        if session.fault is not None:
            state.message = "the match stopped: the chat has closed"
            return
        if not self.adapter.chat(text):
            state.message = "the chat has closed: everyone else has left the table"
            return
        state.chat_sent(session.names[session.me or 0], text)

    def _move(self, text: str) -> None:
        state = self.state
        session = self.text.session
        game = self.text.game()
        if session is None or game is None or session.terms is None:
            state.message = "the match has not started yet"
            return
        if state.finished:
            chat = "the chat has closed" if state.chat_closed else "say TEXT chats"
            state.message = f"the match is over ({chat}; Ctrl-Q leaves)"
            return
        seat = person_seat(session)
        changing = seat is not None and seat in session.unsettled()
        if seat is None or (seat not in state.asking and not changing):
            state.message = "not your move now: " + (self.text.expected() or "wait") + " (say TEXT chats)"
            return
        try:
            parsed = moves.parse(
                game, text, None if session.in_dark else session.state, seat, hints=state.hints
            )
        except moves.InputError as exc:
            state.message = str(exc)  # (seats stay seats: a refusal may say what to type, "flip p0")
            return
        if parsed.confirm:
            state.confirming = (parsed.confirm, seat, parsed)  # (the question line asks)
            return
        self._send(seat, parsed)

    def _propose(self, fast: bool) -> None:
        """``fast`` / ``fast off`` in the host's lobby: the table plays with (or without) fast
        turns, and every player agrees again."""
        session = self.text.session
        if session is not None and session.terms is not None:
            self.state.message = "the match has started: its options are settled"
        elif not self.adapter.propose({"fast": fast}):
            self.state.message = "there is no lobby to change the options in"
        else:
            words = "fast turns" if fast else "the whole minute for each turn"
            taken = self.state.proposal is not None  # (a player's proposal, taken up)
            self.state.proposal = None
            said = (
                f"the table plays with {words}: every player agrees again" if taken else f"proposed: {words}"
            )
            self.state.say_of_lobby(said)

    def _unsettled(self) -> int | None:
        """The person's seat, if its sealed choice may still change (else None)."""
        session = self.text.session
        seat = person_seat(session) if session is not None else None
        return seat if session is not None and seat is not None and seat in session.unsettled() else None

    def _settle(self) -> None:
        """``done``: the person's sealed choice stands now (the turn resolves once every choice
        stands, instead of at the end of its minute). (Elsewhere ``done`` is the game's own
        word: the Magic Square's end of swaps.)"""
        state, seat = self.state, self._unsettled()
        assert seat is not None
        if not self.adapter.settle(seat):
            state.message = "the match is over: nothing was sent"
            return
        state.settled.add(seat)
        state.echo_sent(f"your choice stands: {state.chosen.get(seat, 'it')}")  # (goes once asked again)

    def _send(self, seat: int, parsed: moves.Parsed) -> None:
        state = self.state
        if not self.adapter.offer(seat, parsed.action):
            state.message = "the match is over: nothing was sent"
            return
        game = self.text.game()
        session = self.text.session
        shown = "pass"
        if parsed.action is not None and game is not None:
            shown = frontend(game).echo(parsed.action, getattr(session, "state", None), seat)
        state.chosen[seat] = shown
        state.asking.pop(seat, None)
        sent = f"sent: {shown}"
        if state.cut_off:  # (signed and kept: it goes out as the connection comes back)
            sent = f"kept: {shown} (it goes to whoever is away as soon as they are back)"
        if session is not None and session.terms is not None and not session.fast:  # it may change
            sent += f"; `done` lets it stand now, or change it until {self.text.time_words()}"
        state.echo_sent(sent)
