"""Blindness: a blinded seat's peer is sent signed claims instead of the other's choices, plays
on from the claims, and checks every claim once the withheld choices are opened
(protocol/SPEC.md, section 6, "Blindness (duel)"). Which seats are blind is the game spec's call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pgenius.canonical import Plain, encode
from p2pgenius.protocol.bodies import Blind, Body
from p2pgenius.protocol.events import BlindClaim
from p2pgenius.protocol.messages import Envelope, MessageError
from p2pgenius.protocol.session.blinds import Blinds
from p2pgenius.protocol.session.courier import Courier
from p2pgenius.protocol.session.faults import CheatError
from p2pgenius.protocol.session.match import DealtMatch
from p2pgenius.protocol.session.phase import Phase
from p2pgenius.protocol.session.stage import Claim, Stage


class Blindness:
    """Claims for blind peers, sent and checked; what blindness keeps pending (:class:`Blinds`)."""

    def __init__(self, courier: Courier, match: DealtMatch) -> None:
        self.courier = courier
        self.match = match
        self.blinds = Blinds()

    @property
    def behind(self) -> bool:
        """This peer's seat is blind: it plays on from claims (the phase says so)."""
        return self.courier.phase is Phase.BEHIND

    def blind_in(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat`` is (or, ``turns_ago``, was) blind in ``state``."""
        return self.match.spec.blind(state, seat, turns_ago)

    def blind(self, seat: int) -> bool:
        """Whether ``seat``'s wizard is blind during the turn being played now."""
        return self.blind_in(self.match.state, seat)

    def blind_others(self) -> set[int]:
        """The other peers' seats that are blind now, whose peers must not be sent what they
        may not see. None when a seat of ours is blind too: with everyone blind nobody could
        apply a stage and claim it for the others, so the choices are exchanged as usual (each
        screen still hides what its player may not see)."""
        me, owner = self.courier.me, self.match.owner
        if me is None or any(self.blind(s) for s in self.match.mine):
            return set()
        return {s for s in range(len(owner)) if owner[s] != me and self.blind(s)}

    def withheld_from_me(self, peer: int) -> bool:
        """Whether ``peer`` keeps its sealed choices from this peer now: a seat of ours is blind
        and none of its own is: they are not owed to us until the blindness ends."""
        if self.courier.me is None or peer == self.courier.me:
            return False
        if self.behind:
            return True
        theirs = [s for s, p in enumerate(self.match.owner) if p == peer]
        return any(self.blind(s) for s in self.match.mine) and not any(self.blind(s) for s in theirs)

    def withhold(self, number: int, body: Body, seats: set[int]) -> None:
        """Keep our ``body`` of stage ``number`` from the blinded ``seats``' peers for now."""
        self.blinds.withhold(number, body, seats)

    def claim(self, seat: int) -> dict[str, Plain]:
        """What a blind seat may know after a stage: its view and who acts next. Nothing that
        depends on what it may not know (no hash of the whole state: the blind peer could test
        guesses of the withheld choices against it, a turn having only so many)."""
        game, state = self.match.game, self.match.state
        view = dict(game.view(state, seat))
        view["next"] = list(game.to_act(state))
        return view

    def send_claims(self, stage: Stage) -> None:
        """A claim to each seat that was blind when ``stage`` was played (judged before it was
        applied), whether or not they or we had anything to do in it: a blinded peer cannot
        apply any stage of its blindness and needs a claim for each."""
        for seat in sorted(self.blinds.during.get(stage.number, ())):
            if self.match.owner[seat] != self.courier.me:
                self.courier.send(Blind(stage.number, seat, self.claim(seat)))

    def release_withheld(self) -> None:
        """Send what was kept from blinded peers once none is blind (or the game is over)."""
        over = self.match.game.outcome(self.match.state) is not None
        # Released when no other seat is blind, or when ours is too: then no claims are sent, so
        # a peer behind on claims would wait for ever for what we keep.
        still_blind = bool(self.blind_others())
        if not self.blinds.withheld or (still_blind and not over):
            return
        for body in self.blinds.release():
            self.courier.send(body)

    def release_all(self) -> None:
        """The match stopped on a fault: what was kept from blinded peers goes out now, signed and
        recorded, so that a reader of this transcript holds every choice and hash it played (a
        blinded peer's false hash of a stage whose hash this peer kept is then shown for the lie
        it is)."""
        for body in self.blinds.release():
            self.courier.send(body)

    def take_claim(
        self, env: Envelope, stage: Stage, seat: int, view: Mapping[str, Plain], *, closed: bool
    ) -> None:
        """A claim about ``stage`` for our blind ``seat``: checked for form, kept on the stage
        (to be checked against the truth later), and this peer falls behind."""
        owner, spec = self.match.owner, self.match.spec
        if owner[seat] == env.author or not spec.sealed:
            raise MessageError("a blind claim must be about another peer's wizard")
        if not self.behind and not self.blind(seat):
            raise MessageError(f"a blind claim about p{seat}, who is not blind")
        if not closed:
            raise MessageError("a blind claim before every commitment of the stage stands")
        nxt = view.get("next")
        if not (isinstance(nxt, list) and nxt and all(type(s) is int and 0 <= s < len(owner) for s in nxt)):
            raise MessageError("a blind claim without the seats to act next")
        if not spec.claim_shaped(view):
            raise MessageError(f"a blind claim that is not a {spec.name} view")
        if stage.claim is not None:
            raise MessageError(f"a second blind claim for stage {stage.number}")
        stage.claim = Claim(view, env.author, seat, env.hash)
        self.blinds.fall_behind(stage)
        self.courier.enter(Phase.BEHIND)
        self.courier.events.append(BlindClaim(stage.number, seat, view))

    def check_claim(self, stage: Stage) -> None:
        """``stage``, seen through a claim, is now applied with the truth: the claim must say
        exactly what it shows (the canonical bytes, every field and ``next`` included)."""
        claim = stage.claim
        assert claim is not None  # (every stage seen from behind came with one)
        expected, claimed = self.claim(claim.seat), dict(claim.view)
        if encode(expected) != encode(claimed):
            raise CheatError(
                claim.author,
                f"its blindness claim about p{claim.seat} for stage {stage.number} was false",
                {
                    "stage": stage.number,
                    "seat": claim.seat,
                    "message": claim.message.hex(),
                    "expected": expected,
                    "claimed": claimed,
                },
            )
