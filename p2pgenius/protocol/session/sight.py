"""Sight: a peer whose seat is kept in the dark (the game's trait says which seats, and when) is
sent signed view claims instead of the other peers' choices, plays on from the claims, and
checks every claim once the withheld choices are opened (protocol/SPEC.md, section 6, "Sight").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from p2pgenius.canonical import Plain, encode
from p2pgenius.protocol.bodies import Body, ViewClaim
from p2pgenius.protocol.events import ViewClaimed
from p2pgenius.protocol.messages import Envelope, MessageError
from p2pgenius.protocol.session.courier import Courier
from p2pgenius.protocol.session.faults import CheatError
from p2pgenius.protocol.session.match import DealtMatch
from p2pgenius.protocol.session.phase import Phase
from p2pgenius.protocol.session.stage import Claim, Stage
from p2pgenius.protocol.session.unseen import Unseen

_NOTHING: Final = object()
"""No state yet (a state that is None is one)."""


class Sight:
    """View claims for peers in the dark, sent and checked; what sight keeps pending
    (:class:`Unseen`)."""

    def __init__(self, courier: Courier, match: DealtMatch) -> None:
        self.courier = courier
        self.match = match
        self.unseen = Unseen()
        # (state, dark_others in it): asked up to three times a stage, of a state that does not
        # change in between (an engine's states are values: a new state is a new object).
        self._others: tuple[object, frozenset[int]] = (_NOTHING, frozenset())

    @property
    def behind(self) -> bool:
        """This peer's seat is in the dark: it plays on from view claims (the phase says so)."""
        return self.courier.phase is Phase.BEHIND

    def dark_in(self, state: Any, seat: int, turns_ago: int = 0) -> bool:
        """Whether ``seat`` is (or, ``turns_ago``, was) in the dark in ``state``: the game says."""
        return self.match.spec.blind(state, seat, turns_ago)

    def dark(self, seat: int) -> bool:
        """Whether ``seat`` is in the dark during the stage being played now."""
        return self.dark_in(self.match.state, seat)

    def dark_others(self) -> set[int]:
        """The other peers' seats in the dark now, whose peers must not be sent what they may not
        see. None when a seat of ours is in the dark too: with every seat in the dark nobody could
        apply a stage and claim it for the others, so the choices are exchanged as usual (each
        screen still hides what its player may not see)."""
        me, owner, state = self.courier.me, self.match.owner, self.match.state
        if me is None:
            return set()
        if self._others[0] is not state:
            others: frozenset[int] = frozenset()
            if not any(self.dark_in(state, s) for s in self.match.mine):
                others = frozenset(s for s in range(len(owner)) if owner[s] != me and self.dark_in(state, s))
            self._others = (state, others)
        return set(self._others[1])

    def withheld_from_me(self, peer: int) -> bool:
        """Whether ``peer`` keeps its sealed choices from this peer now: a seat of ours is in the
        dark and none of its own is: they are not owed to us until we see again."""
        if self.courier.me is None or peer == self.courier.me:
            return False
        if self.behind:
            return True
        theirs = [s for s, p in enumerate(self.match.owner) if p == peer]
        return any(self.dark(s) for s in self.match.mine) and not any(self.dark(s) for s in theirs)

    def withhold(self, number: int, body: Body, seats: set[int]) -> None:
        """Keep our ``body`` of stage ``number`` from the peers of the ``seats`` in the dark."""
        self.unseen.withhold(number, body, seats)

    def claim(self, seat: int) -> dict[str, Plain]:
        """What a seat in the dark may know after a stage: its view and who acts next. Nothing
        that depends on what it may not know (no hash of the whole state: its peer could test
        guesses of the withheld choices against it, a stage having only so many)."""
        game, state = self.match.game, self.match.state
        view = dict(game.view(state, seat))
        view["next"] = list(game.to_act(state))
        return view

    def send_claims(self, stage: Stage) -> None:
        """A view claim to each seat that was in the dark when ``stage`` was played (judged before
        it was applied), whether or not they or we had anything to do in it: a peer in the dark
        cannot apply any stage it does not see and needs a claim for each."""
        for seat in sorted(self.unseen.during.get(stage.number, ())):
            if self.match.owner[seat] != self.courier.me:
                self.courier.send(ViewClaim(stage.number, seat, self.claim(seat)))

    def release_withheld(self) -> None:
        """Send what was withheld from peers in the dark once none is (or the game is over)."""
        if not self.unseen.withheld:
            return  # (nothing kept: the usual case, asked after every stage)
        over = self.match.game.outcome(self.match.state) is not None
        # Released when no other seat is in the dark, or when ours is too: then no claims are
        # sent, so a peer behind on claims would wait for ever for what we keep.
        if self.dark_others() and not over:
            return
        for body in self.unseen.release():
            self.courier.send(body)

    def release_all(self) -> None:
        """The match stopped on a fault: what was withheld from peers in the dark goes out now,
        signed and recorded, so that a reader of this transcript holds every choice and hash it
        played (a false hash, from a peer in the dark, of a stage whose hash this peer kept is
        then shown for the lie it is)."""
        for body in self.unseen.release():
            self.courier.send(body)

    def take_claim(
        self, env: Envelope, stage: Stage, seat: int, view: Mapping[str, Plain], *, closed: bool
    ) -> None:
        """A view claim about ``stage`` for our ``seat`` in the dark: checked for form, kept on
        the stage (to be checked against the truth later), and this peer falls behind."""
        owner, spec = self.match.owner, self.match.spec
        if owner[seat] == env.author or not spec.sealed:
            raise MessageError("a view claim must be about another peer's seat")
        if not self.behind and not self.dark(seat):
            raise MessageError(f"a view claim about p{seat}, which is not in the dark")
        if not closed:
            raise MessageError("a view claim before every commitment of the stage stands")
        nxt = view.get("next")
        if not (isinstance(nxt, list) and nxt and all(type(s) is int and 0 <= s < len(owner) for s in nxt)):
            raise MessageError("a view claim without the seats to act next")
        if not spec.claim_shaped(view):
            raise MessageError(f"a view claim that is not a {spec.name} view")
        if stage.claim is not None:
            raise MessageError(f"a second view claim for stage {stage.number}")
        stage.claim = Claim(view, env.author, seat, env.hash)
        self.unseen.fall_behind(stage)
        self.courier.enter(Phase.BEHIND)
        self.courier.events.append(ViewClaimed(stage.number, seat, view))

    def check_claim(self, stage: Stage) -> None:
        """``stage``, seen through a view claim, is now applied with the truth: the claim must say
        exactly what it shows (the canonical bytes, every field and ``next`` included)."""
        claim = stage.claim
        assert claim is not None  # (every stage seen from behind came with one)
        expected, claimed = self.claim(claim.seat), dict(claim.view)
        if encode(expected) != encode(claimed):
            raise CheatError(
                claim.author,
                f"its view claim about p{claim.seat} for stage {stage.number} was false",
                {
                    "stage": stage.number,
                    "seat": claim.seat,
                    "message": claim.message.hex(),
                    "expected": expected,
                    "claimed": claimed,
                },
            )
