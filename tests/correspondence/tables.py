"""What the correspondence tests share: the sides of a match (each with its transcript, its
identity and its bots), one visit of a side, a real relay that can be stopped and started again
empty on its own port, and a relay of our own that keeps letters but lies about them."""

from __future__ import annotations

import json
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio_websocket

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode, encode
from p2pgenius.net.correspondence import Carrier, Offer, Visit, joined, new_table
from p2pgenius.net.files import Files
from p2pgenius.net.invite import MailInvite, parse
from p2pgenius.net.mail_state import OVER, MailState, load
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.mailbox import Mailbox, read, secret_key, write
from p2pgenius.protocol.nostr import Draft, Event, conversation_key, decrypt, encrypt, parse_event, sign_event
from p2pgenius.protocol.transcript import verify
from p2pgenius.record.matches import FINISHED
from p2pgenius.record.matches import read as record
from tests.net.relays import free_port
from tests.nostr.relays import _start, _stop

WAIT_S = 10.0
"""How long a visit gives each relay on loopback (only a hang reaches it)."""


@dataclass
class Side:
    """One side of a correspondence match: its name, its files, its identity, its bots."""

    name: str
    path: Path
    identity: Identity
    seed: int
    level: str = "wizard"
    visits: int = 0
    lines: list[str] = field(default_factory=list)
    told: list[Any] = field(default_factory=list)  # (what the visits reported: the match's events)

    @property
    def state(self) -> MailState:
        state = load(self.path)
        assert state is not None
        return state

    @property
    def over(self) -> bool:
        return self.state.phase == OVER

    def visit(self, *, now: Callable[[], float] = time.time, grace_s: float = 3600.0) -> Visit:
        """A visit of this side as its program would run it, the bots thinking on the loop."""
        state = self.state
        invite = parse(state.invite)
        assert isinstance(invite, MailInvite)
        carrier = Carrier(self.identity, Mailbox(invite.mailbox), state.relays, wait_s=WAIT_S)
        files = Files(self.path, self.path.with_suffix(".secrets"))
        bots = BotDriver(self.level, self.seed, thread=False)
        say = self.lines.append
        told = self.told.append
        return Visit(
            carrier, files, state, self.name, bots.decide, lambda v, e: told(e), say, grace_s, now=now
        )

    async def run(self, *, now: Callable[[], float] = time.time, grace_s: float = 3600.0) -> Visit:
        """One whole visit (its files closed after)."""
        visit = self.visit(now=now, grace_s=grace_s)
        self.visits += 1
        try:
            await visit.run()
        finally:  # (as the process's end would: its files closed, the match's lock let go)
            visit.files.close()
            visit.files.release()
        return visit


@dataclass(frozen=True)
class Game:
    """What a test's table plays: the host's offer, the players' names (the host's first), their
    bots' level and seed, and the game's setup (None: the game's own)."""

    offer: Offer
    names: Sequence[str]
    level: str = "wizard"
    seed: int = 0
    setup: dict[str, Any] | None = None


def table(folder: Path, game: Game, relays: Sequence[str]) -> list[Side]:
    """A host's new table and a joiner for every other name, each with its state saved (a setup
    is set on the host's table before it is posted)."""
    sides = [
        Side(name, folder / f"{name}.p2pt", Identity.generate(), game.seed, game.level) for name in game.names
    ]
    state = new_table(sides[0].identity, game.names[0], game.offer, relays)
    if game.setup is not None:
        laid = decode(bytes.fromhex(state.lobby["table"]))
        state.lobby["table"] = encode({**laid, "setup": game.setup}).hex()
    state.save(sides[0].path)
    invite = parse(state.invite)
    assert isinstance(invite, MailInvite)
    for side in sides[1:]:
        joined(invite).save(side.path)
    return sides


def mailbox(side: Side) -> Mailbox:
    invite = parse(side.state.invite)
    assert isinstance(invite, MailInvite)
    return Mailbox(invite.mailbox)


async def play_out(
    sides: Sequence[Side],
    *,
    rounds: int,
    between: Callable[[int], None] = lambda n: None,
    now: Callable[[], float] = time.time,
) -> int:
    """Every side that is not done visits in turn, one at a time, until all are done: the rounds
    it took (``between``: called before each round with its number)."""
    for number in range(rounds):
        if all(side.over for side in sides):
            return number
        between(number)
        for side in sides:
            if not side.over:
                await side.run(now=now)
    lines = {side.name: side.lines[-5:] for side in sides}
    raise AssertionError(f"the match did not end in {rounds} rounds: {lines}")


def check_finished(sides: Sequence[Side]) -> dict[str, Any]:
    """Every side's transcript verifies and all agree on the result, which the record counts as
    finished: that result."""
    outcomes = []
    for side in sides:
        report = verify(side.path.read_bytes())
        assert report.ok, (side.name, report.summary, report.rejected[:3])
        assert report.fault is None, (side.name, report.fault)
        line = record(side.path)
        assert line.kind == FINISHED and line.verified, (side.name, line)
        outcomes.append((report.outcome, line.winners, line.match_id))
    assert all(o == outcomes[0] for o in outcomes), outcomes
    return {"outcome": outcomes[0][0], "winners": outcomes[0][1]}


# -- relays ----------------------------------------------------------------------------------------


class RealRelay:
    """rust-nostr's relay on a port of its own, in memory: stopped, it loses everything; started
    again, it is a fresh empty one on the same URL."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.process: Any = None
        for _ in range(5):
            self.port = free_port()
            self.process = _start(folder, self.port)
            if self.process is not None:
                break
        else:
            raise RuntimeError("the relay did not start")
        self.url = f"ws://127.0.0.1:{self.port}"

    def wipe(self) -> None:
        """Stopped and started again: empty, same URL."""
        self.stop()
        for _ in range(50):
            self.process = _start(self.folder, self.port)
            if self.process is not None:
                return
            time.sleep(0.1)
        raise RuntimeError(f"the relay did not start again on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)
            self.process = None


@dataclass
class Liar:
    """A relay of our own (NIP-01 over trio-websocket, see ``hostile_relay``) that keeps what it
    is sent but serves it badly: it says OK to some letters and drops them, and on a read leaves
    some out, sends some twice, shuffles them, withholds the newest on some reads, and mixes in
    forgeries: a letter re-wrapped under another one-time key, events whose id or signature is
    wrong, and letters of a stranger (who holds the mailbox: one the invite reached) carrying
    the players' messages, a hello without the token and a ready of its own."""

    seed: int = 0
    box: Mailbox | None = None  # (the match's, once its table is made: the forger holds it)
    kept: list[dict[str, Any]] = field(default_factory=list)
    reads: int = 0
    done: Counter[str] = field(default_factory=Counter)
    stranger: Identity = field(default_factory=Identity.generate)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    async def script(self, connection: trio_websocket.WebSocketConnection) -> None:
        while True:
            frame = json.loads(await connection.get_message())
            if frame[0] == "EVENT":
                event = frame[1]
                if self.rng.random() < 0.2:
                    self.done["dropped a letter it said it kept"] += 1
                else:
                    self.kept.append(event)
                await connection.send_message(json.dumps(["OK", event["id"], True, ""]))
            elif frame[0] == "REQ":
                for event in self.serve():
                    await connection.send_message(json.dumps(["EVENT", frame[1], event]))
                await connection.send_message(json.dumps(["EOSE", frame[1]]))

    def serve(self) -> list[dict[str, Any]]:
        """What one read is sent."""
        self.reads += 1
        rng, out = self.rng, list(self.kept)
        if out and self.reads % 3 == 0:
            out = out[: -rng.randint(1, min(3, len(out)))]
            self.done["withheld the newest"] += 1
        out = [event for event in out if rng.random() > 0.15]
        out += rng.sample(out, min(3, len(out)))  # (duplicates, and old letters again)
        out += self.forgeries()
        rng.shuffle(out)
        self.done["served"] += 1
        return out

    def forgeries(self) -> list[dict[str, Any]]:
        if not self.kept or self.box is None:
            return []
        rng = self.rng
        real = parse_event(rng.choice(self.kept))
        bad_id = {**real.to_json(), "content": real.content[:-4] + "AAA="}
        signature = str(real.to_json()["sig"])
        bad_sig = {**real.to_json(), "sig": ("0" if signature[0] != "0" else "1") + signature[1:]}
        out = [bad_id, bad_sig, rewrapped(self.box, real).to_json()]
        letter = read(self.box, real)
        now = int(time.time())
        out.append(write(self.box, self.stranger, letter.messages, now, secrets.token_bytes(96)).to_json())
        self.done["forged"] += len(out)
        return out


def rewrapped(box: Mailbox, event: Event) -> Event:
    """``event``'s letter, word for word, under another one-time key (its author signed the key
    it came with, so this is a forgery a reader must refuse)."""
    plaintext = decrypt(event.content, conversation_key(box.key, bytes.fromhex(event.pubkey)))
    sender = secret_key(secrets.token_bytes(32))
    content = encrypt(plaintext, conversation_key(sender, box.key.public), secrets.token_bytes(32))
    draft = Draft.of(event.created_at, event.kind, [["p", box.address]], content)
    return sign_event(sender, draft, bytes(32))
