"""A forger: one peer of a real match, writing the transcripts it could write alone.

It holds its own identity and its own transcript (every message it sent and every one it received,
in the order it processed them), and nothing of the other peers but their signed messages. It
may rewrite, drop or add its own messages (signing each again and chaining it again), and cut
everything anywhere. protocol/SPEC.md, section 7, "What a transcript proves", says what none of
that can achieve: a transcript that verifies as finished with a result the match did not have.
``tests/protocol/test_forger.py`` tries every rewrite here at every message of the forger's, and
every cut, in every game; ``generate.py`` keeps a few of them as ``forgeries.json``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgenius.canonical import Plain, decode, encode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.messages import ZERO_HASH, commitment, seal
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import frame, header, read

ALTERNATIVES = 2
"""How many other actions the forger tries at each of its decisions."""
DECISIONS = ("act", "commit", "reveal", "final", "decline")
"""The messages a stage is decided by."""


@dataclass(frozen=True)
class Forgery:
    """A transcript the forger wrote: what it did, and the messages, in the order read."""

    note: str
    messages: tuple[bytes, ...]


@dataclass(frozen=True)
class Own:
    """One of the forger's messages as it would have it: a body to sign (in its place)."""

    body: list[Plain]


Part = bytes | Own
"""A message kept as it is (another peer's, or the forger's own, still to be chained again)."""


class Forger:
    """Peer ``me`` of a match, from its ``identity`` and its own ``transcript``."""

    def __init__(self, identity: Identity, transcript: bytes) -> None:
        own = read(transcript)
        self.meta: dict[str, Any] = dict(own.header.meta)
        self.keys: list[bytes] = list(own.header.peers)
        if own.header.me is None or self.keys[own.header.me] != identity.public:
            raise ValueError("the forger's identity is not its transcript's peer")
        self.me: int = own.header.me
        self.identity = identity
        self.messages = list(own.messages)
        self.match_id = decode(self.messages[0])[1]
        self._states = self._replay()

    def own(self, index: int) -> bool:
        """Whether message ``index`` is the forger's."""
        return bool(decode(self.messages[index])[2] == self.me)

    def write(self, forgery: Forgery) -> bytes:
        """The forgery as a transcript file, under the forger's own header."""
        extra = {key: value for key, value in self.meta.items() if key not in ("peers", "me")}
        body = b"".join(frame(encode(["msg", raw])) for raw in forgery.messages)
        return header(self.keys, self.me, **extra) + body

    def signed(self, parts: Sequence[Part]) -> list[bytes]:
        """``parts`` as envelopes: each of the forger's own (an :class:`Own`, or its original
        bytes) signed again, numbered and chained after the last one of its own kept, naming of
        the others what it named then (never more than the transcript holds)."""
        out: list[bytes] = []
        seq, prev = 0, ZERO_HASH
        newest = [ZERO_HASH] * len(self.keys)  # what the forged transcript holds of each peer
        for part in parts:
            if isinstance(part, bytes) and decode(part)[2] != self.me:
                out.append(part)
                newest[decode(part)[2]] = hashlib.sha256(part).digest()
                continue
            body = part.body if isinstance(part, Own) else decode(part)[5]
            heads = [prev if peer == self.me else newest[peer] for peer in range(len(self.keys))]
            raw = seal(self.identity, self.match_id, self.me, seq, heads, body)
            out.append(raw)
            seq, prev = seq + 1, hashlib.sha256(raw).digest()
        return out

    # -- what it tries -------------------------------------------------------------------------

    def forgeries(self, at: Iterable[int] | None = None) -> Iterator[Forgery]:
        """Every rewrite of each of its own messages (``at``: of those at these indexes), each cut
        right after it, and each with the rest of the match kept (its own later messages signed
        again after the lie)."""
        for index in range(len(self.messages)) if at is None else sorted(set(at)):
            if not self.own(index):
                continue
            kind = decode(self.messages[index])[5][0]
            for note, replaced in self.rewrites(index):
                before: list[Part] = list(self.messages[:index])
                note = f"its {kind} (message {index}) {note}"
                yield Forgery(f"{note}; cut there", tuple(self.signed(before + replaced)))
                rest = [self._later(raw, index, replaced) for raw in self.messages[index + 1 :]]
                yield Forgery(
                    f"{note}; the rest kept",
                    tuple(self.signed(before + replaced + [r for r in rest if r is not None])),
                )

    def old_attack(self, last: int = 2) -> Iterator[Forgery]:
        """The attack that worked on match messages version 2, at each of its decisions of the
        ``last`` stages, with every legal action: the others' decisions of that stage kept,
        everything of theirs after dropped; then its own hash of the state that yields and its
        own end of a result (the match's, or another, where the action changed it). Made with an
        observer blind to the heads, as version 2's was: one that checks them refuses the
        others' openings, which name the forger's real commitment."""
        mine = [i for i in range(len(self.messages)) if self.own(i)]
        decisions = [i for i in mine if self._kind(i) in ("act", "commit")]
        final = {decode(self.messages[i])[5][1] for i in decisions}
        stages = sorted(final)[-last:]
        for index in (i for i in decisions if decode(self.messages[i])[5][1] in stages):
            body = decode(self.messages[index])[5]
            for action in self._others(index, body, every=True):
                forgery = self._signed_to_the_end(index, body, [Own(self._decision(body, action))])
                if forgery is not None:
                    note = f"its {body[0]} (message {index}) made {action!r}, signed to the end"
                    yield Forgery(note, forgery)

    def _signed_to_the_end(
        self, index: int, body: list[Any], replaced: list[Part]
    ) -> tuple[bytes, ...] | None:
        parts: list[Part] = list(self.messages[:index]) + replaced
        for raw in self.messages[index + 1 :]:
            later = decode(raw)[5]
            if later[0] in DECISIONS and later[1] == body[1]:
                kept = self._later(raw, index, replaced)
                if kept is not None:
                    parts.append(kept)
        observer = Session(keys=self.keys, me=None)
        observer.chain.binding = False
        for raw in self.signed(parts):
            observer.receive(raw)
        if observer.outcome is None or body[1] not in observer.played.ending.my_hashes:
            return None
        hashed = Own(["hash", body[1], observer.played.ending.my_hashes[body[1]]])
        return tuple(self.signed([*parts, hashed, Own(["end", observer.outcome.to_plain()])]))

    def _kind(self, index: int) -> str:
        return str(decode(self.messages[index])[5][0])

    def rewrites(self, index: int) -> Iterator[tuple[str, list[Part]]]:
        """What the forger can put in place of its message ``index``: nothing; another action
        (a commitment to another, opened later as that one); a changed hash; a result it
        signs alone."""
        body = decode(self.messages[index])[5]
        kind = body[0]
        yield "dropped", []
        if kind in ("act", "commit"):
            for action in self._others(index, body):
                yield f"made {action!r}", [Own(self._decision(body, action))]
        elif kind == "hash":
            yield "made another hash", [Own(["hash", body[1], hashlib.sha256(encode(body)).digest()])]
        elif kind == "end":
            for outcome in self._outcomes(body[1]):
                yield f"signed another result, {outcome!r}", [Own(["end", outcome])]
        elif kind == "reveal":
            other = Own(["reveal", body[1], body[2], {"type": "timeout"}, body[4]])
            yield "opened to another choice", [other]

    def claims(self, chat: int = 0, at: Iterable[int] | None = None) -> Iterator[Forgery]:
        """At each point where another peer owes something, everything after cut and a timeout
        claim and a forfeit of that seat added: the forfeit path, the other's answers left out;
        then ``chat`` signed chat lines (padding: a copy with more signed messages). Where the
        forger's own messages went on after that point, its claim takes a number it had used
        (a second history); after its last one, nothing it signed is signed twice. ``at``: only
        at these indexes."""
        chosen = None if at is None else set(at)
        for index, (owed, number) in enumerate(self._states):
            if chosen is not None and index not in chosen:
                continue
            for seat in owed:
                claim = Own(["timeout", number, seat, 10**9])
                forfeit = Own(["forfeit", number, seat, "no answer to a timeout claim"])
                padding = [Own(["chat", f"padding {line}"]) for line in range(chat)]
                note = f"after message {index}: claimed p{seat} timed out and forfeited it"
                note += f", then {chat} chat lines" if chat else ""
                parts = [*self.messages[: index + 1], claim, forfeit, *padding]
                yield Forgery(note, tuple(self.signed(parts)))

    def cuts(self) -> Iterator[Forgery]:
        """Everything after each message cut (nothing signed anew)."""
        for index in range(len(self.messages)):
            yield Forgery(f"cut after message {index}", tuple(self.messages[: index + 1]))

    def last_own(self) -> int:
        """The index of the forger's last message (-1: none)."""
        return max((index for index in range(len(self.messages)) if self.own(index)), default=-1)

    # -- how ---------------------------------------------------------------------------------

    def _later(self, raw: bytes, index: int, replaced: list[Part]) -> Part | None:
        """A later message kept after a rewrite at ``index``: the forger's own reveal of a
        commitment it rewrote opens the new one; every other kept as it is."""
        body = decode(raw)[5]
        if decode(raw)[2] != self.me or body[0] != "reveal" or not replaced:
            return raw
        new = replaced[0]
        if isinstance(new, Own) and new.body[0] == "commit" and new.body[1:3] == body[1:3]:
            action, nonce = self._opened[(new.body[1], new.body[2])]
            return Own(["reveal", body[1], body[2], action, nonce])
        return raw

    def _decision(self, body: list[Any], action: Plain) -> list[Plain]:
        if body[0] == "act":
            return ["act", body[1], body[2], action, body[4]]
        nonce = hashlib.sha256(encode(["forged nonce", body[1], body[2], action])).digest()
        self._opened[(body[1], body[2])] = (action, nonce)
        committed = commitment(self.match_id, body[1], body[2], nonce, action)
        return ["commit", body[1], body[2], committed, body[4]]

    def _others(self, index: int, body: list[Any], *, every: bool = False) -> list[Plain]:
        """Up to ALTERNATIVES (``every``: all) legal actions of the seat other than the one it
        took (none where the state is not known here: a hidden hand)."""
        state, game = self._at.get(index, (None, None))
        if state is None or game is None:
            return []
        took = body[3] if body[0] == "act" else None
        try:
            legal = [a.to_plain() for a in game.legal_actions(state, body[2])]
        except (P2PGeniusError, LookupError, TypeError, ValueError):  # (a hand it cannot see)
            return []
        others = [a for a in legal if a != took and a.get("type") != "timeout"]
        return others if every else others[:ALTERNATIVES]

    @staticmethod
    def _outcomes(outcome: dict[str, Any]) -> list[dict[str, Any]]:
        winner = outcome.get("winner")
        others = [0, 1, None] if "winning_seats" not in outcome else [0, 1]
        return [{**outcome, "winner": w} for w in others if w != winner]

    def _replay(self) -> list[tuple[tuple[int, ...], int]]:
        """Per message, what an observer owes after it (seats of others only) and the stage
        number; and, per decision of the forger's, the state it was made in."""
        observer = Session(keys=self.keys, me=None)
        self._at: dict[int, tuple[Any, Any]] = {}
        self._opened: dict[tuple[int, int], tuple[Plain, bytes]] = {}
        out: list[tuple[tuple[int, ...], int]] = []
        for index, raw in enumerate(self.messages):
            if self.own(index) and observer.match is not None and observer.stage is not None:
                self._at[index] = (observer.state, observer.played.match.game)
            observer.receive(raw)
            owner = observer.owner
            owed = tuple(s for s in observer.owed() if owner and owner[s] != self.me)
            out.append((owed, observer.stage.number if observer.stage is not None else -1))
        return out
