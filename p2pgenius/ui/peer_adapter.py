"""The screen's side of the network :class:`~p2pgenius.net.peer.Peer`: the callbacks the peer
calls, and the person's calls into trio.

Both sides run on one thread: the trio network layer (in guest mode on the asyncio loop) reports
events and asks for decisions; the prompt_toolkit application hands over what the person typed.
Calls the other way go through ``run_sync_soon`` of trio's token, so a key press never runs trio
code outside trio (and once the match is over and trio has finished, a key press says so instead
of failing). Screens get the peer's read-only :class:`SessionView`, never its session.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

import trio

from p2pgenius import wording
from p2pgenius.bots.driver import BotDriver
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.net.events import LobbyShown, NetEvent
from p2pgenius.net.keystore import load_pins
from p2pgenius.net.peer import Peer
from p2pgenius.protocol.events import Event
from p2pgenius.protocol.session import SessionView
from p2pgenius.ui.table_state import TableState, person_seat


class PeerAdapter:
    """Takes the peer's callbacks (``asks``, ``report``, ``say``, ``notify``, ``confirm``) into a
    :class:`TableState`, and the person's moves, chat and answers to the peer. The peer's other
    seats are its bot partners' (``decide``)."""

    def __init__(self, state: TableState, partners: BotDriver) -> None:
        self.state = state
        self.partners = partners  # bots in this peer's other seats
        self._peer: Peer | None = None  # see the property: it takes the peer's typed events
        self.token: trio.lowlevel.TrioToken | None = None
        self.lobby_answered: trio.Event | None = None  # a joiner's question about the lobby
        self.answer: bool | None = None
        self._adopted: SessionView | None = None  # the session whose history the log holds

    @property
    def peer(self) -> Peer | None:
        return self._peer

    @peer.setter
    def peer(self, peer: Peer | None) -> None:
        """The peer this screen shows; its network events (status, clock warnings) come to
        :meth:`net_event`, and what its person's seat is asked to :meth:`asked`."""
        self._peer = peer
        if peer is not None:
            peer.notify, peer.asks = self.net_event, self.asked

    @property
    def session(self) -> SessionView | None:
        """The peer's session, read only (None before there is one)."""
        session = self.peer.view if self.peer is not None else None
        if session is not None and session != self._adopted:
            self._adopt(session)
        return session

    # -- what the peer calls ---------------------------------------------------------------------

    async def decide(self, session: SessionView, seat: int) -> Mapping[str, Any] | None:
        """A decision for one of this peer's other seats: its bot partner's. (The person's seat
        is asked through :meth:`asked`: never a bot's to play, whatever the wiring.)"""
        if seat == person_seat(session):
            raise LocalMisuseError("the person's seat is asked through Peer.asks, not decided by a bot")
        return await self.partners.decide(session, seat)

    def asked(self, asking: dict[int, int]) -> None:
        """What the person's seat is asked to decide now (seat -> stage; empty: nothing). Asked
        anew, the echo of the last choice sent goes (it is behind the person now); asked about a
        later stage than before (a new turn), whatever the line under the input said goes too
        (an error, a warning: last turn's words); a move that waited for its y/n goes once its
        turn is over (it was chosen for that turn)."""
        state = self.state
        later = any(stage > state.last_asked.get(seat, stage) for seat, stage in asking.items())
        state.last_asked.update(asking)
        if (asking.items() - state.asking.items() and state.echoes_sent) or later:
            state.message = ""
        confirming = state.confirming
        if confirming is not None and asking.get(confirming[1]) != state.asking.get(confirming[1]):
            state.confirming = None
            state.message = "not sent: its turn is over"
        state.asking = asking
        state.invalidate()

    def report(self, session: SessionView, event: Event) -> None:
        """A session event, into the state."""
        if session != self._adopted:
            self._adopt(session)
        self.state.on_session_event(session, event)
        self.state.invalidate()

    def line(self, text: str) -> None:
        """A line the network layer says."""
        self.state.on_line(text)
        self.state.invalidate()

    def net_event(self, event: NetEvent) -> None:
        """An event of the network layer, into the state (the person's seat's warnings under the
        input; a lobby with whether its host's key is known good already)."""
        session = self.session
        person = person_seat(session) if session is not None else None
        self.state.on_net_event(event, person=person)
        if isinstance(event, LobbyShown):
            self.state.vouched = self._vouched(event.lobby)  # (once: the pins are on disk)
        self.state.invalidate()

    async def confirm_lobby(self, lobby: Mapping[str, Any]) -> bool:
        """A joiner sees the table and the options first, and says whether it plays."""
        state = self.state
        state.lobby = lobby
        self.answer = None
        state.message = ""
        state.invalidate()
        answered = self.lobby_answered = trio.Event()
        await answered.wait()
        self.lobby_answered = None
        if not self.answer:  # (a yes keeps what was said of it: "you join ...")
            state.message = "you declined"
        return bool(self.answer)

    async def keep_time(self) -> None:
        """Refresh the clocks a few times a second (trio's clock is read only inside trio)."""
        while True:
            if self.peer is not None:
                self.state.clocks = self.peer.clock_readings()
                self.state.invalidate()
            await trio.sleep(0.25)

    # -- what the person sends -------------------------------------------------------------------

    def offer(self, seat: int, action: Mapping[str, Any] | None) -> bool:
        """Send the person's decision for ``seat``, for the stage it was asked about (or, a
        change of mind about a sealed choice, the stage being played); False if it cannot go (no
        peer, or trio has finished)."""
        number = self.state.asking.get(seat, self._stage())
        return self.peer is not None and self._to_trio(self.peer.offer, number, seat, action)

    def settle(self, seat: int) -> bool:
        """Let the person's sealed choice stand now; False if it cannot go."""
        return self.peer is not None and self._to_trio(self.peer.settle, self._stage(), seat)

    def _stage(self) -> int:
        """The number of the stage being played (-1: none)."""
        session = self.session
        return session.stage.number if session is not None and session.stage is not None else -1

    def chat(self, text: str) -> bool:
        """Send a chat line; False if it cannot go (nobody is left to read it)."""
        return self.peer is not None and self.peer.chat_open and self._to_trio(self.peer.chat, text)

    def propose(self, options: dict[str, bool]) -> bool:
        """Propose options in the lobby (fast turns); False if there is no lobby to propose in."""
        return self.peer is not None and self._to_trio(self.peer.propose, options)

    def decline_proposal(self) -> bool:
        """The host lets a player's proposal go; False if there is none."""
        return self.peer is not None and self._to_trio(self.peer.decline_proposal)

    def answer_lobby(self, yes: bool) -> bool:
        """The joiner's answer to the lobby it was shown; False if the host has gone."""
        self.answer = yes
        return self.lobby_answered is not None and self._to_trio(self.lobby_answered.set)

    def _to_trio(self, function: Callable[..., Any], *args: Any) -> bool:
        """Run ``function`` in trio soon; False if trio has finished (the match is over and its
        connections are closed)."""
        if self.token is None:
            return False
        try:
            self.token.run_sync_soon(function, *args)
        except trio.RunFinishedError:
            return False
        return True

    # -- the peer's files and pins ---------------------------------------------------------------

    def _adopt(self, session: SessionView) -> None:
        """The first sight of ``session``. A session rebuilt from its files (``p2pgenius resume``)
        already holds stages: the log and the chat come back from the transcript."""
        self._adopted = session
        peer = self.peer
        if peer is None or session.terms is None or not session.played:
            return
        try:
            transcript = peer.files.transcript.read_bytes()
        except (OSError, AttributeError):
            return
        self.state.catch_up(session, transcript)

    def _vouched(self, lobby: Mapping[str, Any]) -> str:
        """Why the host's key in ``lobby`` can be trusted already, in words, or "": the invite
        named it (the joiner checked it before its handshake ended), or the player was met before
        under this name with this key."""
        keys, names = list(lobby.get("keys", [])), list(lobby.get("names", []))
        if not keys or self.peer is None:
            return ""
        invited = getattr(self.peer, "expect_from", "") == "the invite"
        if invited and getattr(self.peer, "expect_key", None) == keys[0]:
            return "it is the key your invite names (if the invite came from the host, this is the host)"
        pins: dict[bytes, str] = {}
        with contextlib.suppress(P2PGeniusError, OSError):
            pins = load_pins(getattr(self.peer, "pin_dir", None))
        if names and pins.get(keys[0]) == names[0]:
            return f"it is the key {wording.printable(str(names[0]))} had when you last played"
        return ""
