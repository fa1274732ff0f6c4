"""One player's table: the screen's state, what the person types, and the side the network peer
calls, held together as the one object the command line and the bridge pass around.

The parts, each of one job:

* :class:`~p2pgenius.ui.table_state.TableState`: what the screen holds, updated from the typed
  events of the session and of the network layer;
* :class:`~p2pgenius.ui.peer_adapter.PeerAdapter`: the peer's callbacks (``asks``, ``report``,
  ``say``, ``notify``, ``confirm``; ``decide`` for the bot partners' seats) and the person's calls
  into trio through its token;
* :class:`~p2pgenius.ui.table_text.TableText`: the words and lines the screen shows of them;
* :class:`~p2pgenius.ui.table_input.TableInput`: what the person types and presses.

:class:`TableScreen` builds them and holds them; its callers use each part for what it does
(``table.state.asking``, ``table.input.enter(...)``), with no attribute of one part copied onto
the table.
"""

from __future__ import annotations

from p2pgenius.bots.driver import BotDriver
from p2pgenius.ui.peer_adapter import PeerAdapter
from p2pgenius.ui.table_input import TableInput
from p2pgenius.ui.table_state import TableState
from p2pgenius.ui.table_text import TableText


class TableScreen:
    """One player's table on the terminal: what the player sees and may do."""

    __slots__ = ("adapter", "input", "state", "text")  # (setting anything else is a mistake)

    def __init__(
        self,
        *,
        ascii_only: bool = False,
        hints: bool = False,
        partner_level: str | None = None,
        game: str | None = None,
        partner_delay: float = 0.3,
    ) -> None:
        self.state = TableState(game=game, ascii_only=ascii_only, hints=hints)
        # Bots in this peer's other seats (a pause before each move lets the person follow it).
        self.adapter = PeerAdapter(self.state, BotDriver(partner_level, delay=partner_delay))
        self.text = TableText(self.state, self.adapter)
        self.input = TableInput(self.state, self.adapter, self.text)
