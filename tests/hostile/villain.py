"""A scripted malicious peer over real TCP: a real Peer (with bots) whose outgoing match messages
pass through a rewriting function before they reach the wire, and raw-socket callers that break
the transport. Used by the hostile-peer suite and by bench/hostile.py's table."""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.canonical import decode
from p2pgenius.net.peer import Files, Peer
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import MAX_MESSAGE_BYTES, seal
from p2pgenius.protocol.session import Event, SessionView

Rewrite = Callable[[Identity, bytes], list[bytes]]


class Villain(Peer):
    """A peer that lies on the wire: every match message it sends goes through ``rewrite``."""

    rewrite: Rewrite

    async def _start_transcript(self, role: str) -> None:
        await super()._start_transcript(role)
        session = self.session
        assert session is not None
        honest_flush = session.flush

        def lying_flush() -> Any:
            out = honest_flush()
            out.messages = [lie for raw in out.messages for lie in self.rewrite(self.identity, raw)]
            for lie in out.messages:  # (a liar's program knows what it sent in its own name: the
                # others' messages name those, and it must take them)
                envelope = decode(lie)
                if isinstance(envelope, list) and len(envelope) == 7 and envelope[2] == session.me:
                    session.chain.numbered[hashlib.sha256(lie).digest()] = (envelope[2], envelope[3])
            return out

        session.flush = lying_flush  # type: ignore[method-assign]


def unchanged(body: list[Any]) -> list[Any]:
    return body


@dataclass(frozen=True)
class Lie:
    """The lie a :class:`Chain` tells: about the ``nth`` message of ``kind`` (counted from 0), in
    its ``mode``: change | replay | equivocate | forge | oversize | drop | foreign | inject
    (``change``: the body it sends instead, or the messages it injects after it)."""

    kind: str
    change: Callable[[list[Any]], list[Any]] = unchanged
    nth: int = 1
    mode: str = "change"


@dataclass
class Chain:
    """Rewrites one message (the one its ``lie`` is about) and keeps the author's hash chain whole
    after it, re-signing every later message, as a real liar would."""

    lie: Lie
    seen: int = 0
    shift: int = 0  # messages injected so far: later ones are numbered after them
    prev: bytes | None = None
    done: bool = False
    log: list[str] = field(default_factory=list)

    def __call__(self, identity: Identity, raw: bytes) -> list[bytes]:
        _, match_id, author, seq, heads, body, _ = decode(raw)
        if self.prev is not None and self.lie.mode in ("change", "inject"):  # re-chain after the lie
            out = seal(identity, match_id, author, seq + self.shift, self.chained(heads, author), list(body))
            self.prev = hashlib.sha256(out).digest()
            return [out]
        if self.done or body[0] != self.lie.kind:
            return [raw]
        if self.seen < self.lie.nth:
            self.seen += 1
            return [raw]
        self.done = True
        self.log.append(f"{self.lie.mode} {body[0]} #{seq}")
        return self._tell(identity, raw)

    def _tell(self, identity: Identity, raw: bytes) -> list[bytes]:
        """What goes on the wire instead of ``raw``, the message lied about."""
        _, match_id, author, seq, heads, body, _ = decode(raw)
        mode = self.lie.mode
        if mode == "replay":
            return [raw, raw]
        if mode == "inject":
            return self._inject(identity, raw)
        if mode == "drop":
            self.done = False  # keep refusing
            return []
        if mode == "forge":  # (someone else's copy: the real one follows)
            return [raw[:-1] + bytes([raw[-1] ^ 1]), raw]
        if mode == "foreign":
            return [seal(identity, bytes(32), author, seq, heads, list(body)), raw]
        if mode == "oversize":
            return [
                seal(identity, match_id, author, seq, heads, ["chat", "x" * (MAX_MESSAGE_BYTES + 10)]),
                raw,
            ]
        changed = seal(identity, match_id, author, seq, heads, self.lie.change(list(body)))
        if mode == "equivocate":
            return [raw, changed]
        self.prev = hashlib.sha256(changed).digest()
        return [changed]

    def _inject(self, identity: Identity, raw: bytes) -> list[bytes]:
        """``raw``, then messages of the villain's own making after it, chained in."""
        _, match_id, author, seq, heads, body, _ = decode(raw)
        made = self.lie.change(list(body))
        sent: list[bytes] = [raw]
        self.prev = hashlib.sha256(raw).digest()
        for extra in made if made and isinstance(made[0], list) else [made]:
            self.shift += 1
            chained = self.chained(heads, author)
            sent.append(seal(identity, match_id, author, seq + self.shift, chained, extra))
            self.prev = hashlib.sha256(sent[-1]).digest()
        return sent

    def chained(self, heads: list[bytes], author: int) -> list[bytes]:
        """``heads`` with the author's own chained after the last message it sent."""
        assert self.prev is not None
        return [self.prev if peer == author else head for peer, head in enumerate(heads)]


@dataclass
class Seen:
    """What the honest peer showed its player."""

    lines: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def line(self, text: str) -> None:
        self.lines.append(text)

    def event(self, session: SessionView, event: Event) -> None:
        del session
        self.events.append(event)


def honest(tmp: Path, name: str, seen: Seen, level: str | None = None, grace: float = 60) -> Peer:
    files = Files(tmp / f"{name}.p2pt", tmp / f"{name}.secrets")
    return Peer(
        Identity.generate(),
        name,
        files,
        BotDriver(level, 1).decide,
        seen.event,
        seen.line,
        grace_s=grace,
        pin_dir=tmp / "pins" / name,
    )


def villain(tmp: Path, rewrite: Rewrite, level: str | None = None) -> Villain:
    files = Files(tmp / "villain.p2pt", tmp / "villain.secrets")
    peer = Villain(
        Identity.generate(),
        "villain",
        files,
        BotDriver(level, 2).decide,
        lambda s, e: None,
        lambda t: None,
        grace_s=math.inf,
        pin_dir=tmp / "pins" / "villain",
    )
    peer.rewrite = rewrite
    return peer


async def raw_call(port: int, data: bytes, *, trickle: float = 0.0, read: bool = False) -> bytes:
    """Connect to the host's port and send ``data`` (a byte at a time every ``trickle`` seconds);
    returns whatever came back before the host closed or 2 s passed."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    got = b""
    try:
        if trickle:
            for byte in data:
                await stream.send_all(bytes([byte]))
                await trio.sleep(trickle)
        else:
            await stream.send_all(data)
        if read:
            with trio.move_on_after(2):
                while chunk := await stream.receive_some(65536):
                    got += chunk
    except trio.BrokenResourceError:
        pass
    finally:
        await stream.aclose()
    return got


def frame_header(length: int) -> bytes:
    """A record's 4-byte length (section 4 of the SPEC)."""
    return struct.pack(">I", length)
