"""Blindness: a blinded seat's peer is sent signed claims instead of the other's choices, plays
on from the claims, and checks every claim once the withheld choices are opened
(protocol/SPEC.md, section 6, "Blindness (duel)"). Which seats are blind is the game spec's call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pgenius.canonical import Plain, encode
from p2pgenius.protocol.bodies import Blind
from p2pgenius.protocol.events import Applied, BlindClaim, YourTurn
from p2pgenius.protocol.messages import Envelope, MessageError
from p2pgenius.protocol.session.base import SessionBase
from p2pgenius.protocol.session.faults import CheatError
from p2pgenius.protocol.session.phase import Phase
from p2pgenius.protocol.session.stage import Stage


class Blindness(SessionBase):
    """Claims for blind peers, sent and checked."""

    def _blind_in(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat`` is (or, ``turns_ago``, was) blind in ``state``."""
        return self.spec is not None and self.m.spec.blind(state, seat, turns_ago)

    def _blind_others(self) -> set[int]:
        """The other peers' seats that are blind now, whose peers must not be sent what they
        may not see. None when a seat of ours is blind too: with everyone blind nobody could
        apply a stage and claim it for the others, so the choices are exchanged as usual (each
        screen still hides what its player may not see)."""
        if self.me is None or any(self._blind(s) for s in self.my_seats):
            return set()
        return {s for s in range(len(self.owner)) if self.owner[s] != self.me and self._blind(s)}

    def _blind(self, seat: int) -> bool:
        """Whether ``seat``'s wizard is blind during the turn being played now."""
        return self.state is not None and self._blind_in(self.state, seat)

    def _claim(self, seat: int) -> dict[str, Plain]:
        """What a blind seat may know after a stage: its view and who acts next. Nothing that
        depends on what it may not know (no hash of the whole state: the blind peer could test
        guesses of the withheld choices against it, a turn having only so many)."""
        view = dict(self.m.game.view(self.state, seat))
        view["next"] = list(self.m.game.to_act(self.state))
        return view

    def _send_blind_claims(self, stage: Stage) -> None:
        # Exactly the seats that were blind when the stage was played (judged before it was
        # applied), whether or not they or we had anything to do in it: a blinded peer cannot
        # apply any stage of its blindness and needs a claim for each.
        for seat in sorted(self.blinds.during.get(stage.number, ())):
            if self.owner[seat] != self.me:
                self._send(Blind(stage.number, seat, self._claim(seat)))

    def _release_withheld(self) -> None:
        over = self.game is not None and self.m.game.outcome(self.state) is not None
        # Released when no other seat is blind, or when ours is too: then no claims are sent, so
        # a peer behind on claims would wait for ever for what we keep.
        still_blind = bool(self._blind_others())
        if not self.blinds.withheld or (still_blind and not over):
            return
        for body in self.blinds.release():
            self._send(body)

    def _on_blind(self, env: Envelope, seat: int, view: Mapping[str, Plain]) -> None:
        stage = self.stage
        assert stage is not None
        if self.owner[seat] == env.author or not self._sealed():
            raise MessageError("a blind claim must be about another peer's wizard")
        if not self.behind and not self._blind(seat):
            raise MessageError(f"a blind claim about p{seat}, who is not blind")
        if not self._closed(stage):
            raise MessageError("a blind claim before every commitment of the stage stands")
        nxt = view.get("next")
        if not (
            isinstance(nxt, list) and nxt and all(type(s) is int and 0 <= s < len(self.owner) for s in nxt)
        ):
            raise MessageError("a blind claim without the seats to act next")
        if not self.m.spec.claim_shaped(view):
            raise MessageError(f"a blind claim that is not a {self.m.spec.name} view")
        if stage.claim is not None:
            raise MessageError(f"a second blind claim for stage {stage.number}")
        stage.claim = view
        stage.claim_author = env.author
        stage.claim_seat = seat
        stage.claim_message = env.hash
        self.blinds.fall_behind(stage)
        self._enter(Phase.BEHIND)
        self.events.append(BlindClaim(stage.number, seat, view))
        nxt = view.get("next")
        waiting = tuple(int(s) for s in nxt) if isinstance(nxt, list) else ()
        self.stage = Stage(stage.number + 1, waiting, ())
        self._start_clocks(self.stage)
        mine = tuple(s for s in waiting if s in self.my_seats)
        if mine and not view.get("outcome"):
            self.events.append(YourTurn(self.stage.number, mine))
        backlog, self.backlog = self.backlog, []
        for queued in backlog:
            self._guarded(queued)

    def _catch_up(self) -> None:
        """Replay the stages seen only through claims once every reveal is in; check each claim."""
        if not self.blinds.all_open():
            return
        behind = self.blinds.catch_up()
        self._enter(Phase.PLAYING)
        for stage in behind:
            actions = [(s, stage.reveals[s]) for s in sorted(stage.waiting)]
            events = self._apply_actions(stage, actions)
            self.clockbook.charge(stage)
            self.events.append(Applied(stage.number, tuple(actions), tuple(events), self.state))
            assert stage.claim is not None and stage.claim_seat is not None
            expected, claimed = self._claim(stage.claim_seat), dict(stage.claim)
            # Exact equality: the canonical bytes, every field and ``next`` included.
            if encode(expected) != encode(claimed):
                raise CheatError(
                    stage.claim_author,
                    f"its blindness claim about p{stage.claim_seat} for stage {stage.number} was false",
                    {
                        "stage": stage.number,
                        "seat": stage.claim_seat,
                        "message": stage.claim_message.hex(),
                        "expected": expected,
                        "claimed": claimed,
                    },
                )
            self._after_stage(stage)
            if self.fault is not None:
                return
        # Pick up the stage in progress with the real state, keeping what was already received.
        current = self.stage
        assert current is not None
        self._open_stage(current.number, carry=current)
