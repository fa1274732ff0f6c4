"""The end of a match, and how it can stop early: state hashes compared after every stage, the
end-of-match audit of hidden cards, forfeits."""

from __future__ import annotations

from p2pgenius.canonical import encode
from p2pgenius.errors import LocalMisuseError, shown
from p2pgenius.games.base import Outcome
from p2pgenius.protocol.bodies import Audit, Desync, End, Forfeit, Hash
from p2pgenius.protocol.events import AuditDue, Confirmed, Fault, FaultKind, ForfeitVoided, MatchOver
from p2pgenius.protocol.messages import Envelope, MessageError
from p2pgenius.protocol.session.base import SETUP, SessionBase
from p2pgenius.protocol.session.cards import openings_of
from p2pgenius.protocol.session.faults import CheatError
from p2pgenius.protocol.session.phase import Phase


class Ending(SessionBase):
    """Hashes, the audit, forfeits, the match's end."""

    def forfeit(self, seat: int, reason: str) -> None:
        """Record, signed, that ``seat``'s peer failed to answer our timeout claim in time: it
        loses. (A forfeit needs our claim about that seat at this stage, still standing.)"""
        number, owes = self._owing(seat)
        if not owes:
            raise LocalMisuseError(f"p{seat} owes nothing now")
        if self.me not in self.time.claimants((number, seat)):
            raise LocalMisuseError(f"claim p{seat}'s timeout first (a forfeit needs a standing claim)")
        self._send(Forfeit(number, seat, reason))

    def _on_forfeit(self, env: Envelope, msg: Forfeit) -> None:
        stage, seat, reason = msg.stage, msg.seat, msg.reason
        if stage == SETUP:
            self._on_walkaway(env, msg)
            return
        if seat >= len(self.owner) or self.owner[seat] == env.author:
            raise MessageError("a forfeit must name another peer's seat")
        if self.owner[seat] == self.me:
            # We hold that seat and are reading this: we are here and answering. Whatever we
            # owe, our own clock decides (and answers the claim); a forfeit is never taken on
            # another peer's word.
            raise MessageError(f"a forfeit of p{seat}, whose peer (this one) is here and answering")
        if self.stage is not None and stage > self.stage.number:
            self._hold(env)  # from a peer ahead of us: judged when we get there
            return
        current = self.stage.number if self.stage is not None else -1
        if stage != current or seat not in self.owed():
            raise MessageError(f"a forfeit of p{seat}, which owes nothing now (stage {stage})")
        if env.author not in self.time.claimants((stage, seat)):
            raise MessageError(
                f"a forfeit of p{seat} with no timeout claim of its author standing (a claim must "
                "come first, and stay unanswered)"
            )
        self._forfeited(
            env,
            (stage, seat),
            Fault(
                FaultKind.FORFEIT,
                self.owner[seat],
                stage,
                f"{self.names[self.owner[seat]]} (p{seat}) forfeits: {reason}",
                {"claim": env.hash.hex(), "claimed_by": env.author},
            ),
        )

    def _forfeited(self, env: Envelope, key: tuple[int, int], fault: Fault) -> None:
        """A forfeit that holds on its face. Its author's stops the match at once. Anyone else's
        (a bystander's, with three or four peers, or an observer's reading a transcript or
        watching) cannot check its author's clock, so it waits: it stands once this peer's own
        grace period has passed with the seat still silent (:meth:`confirm_forfeit`), or, for an
        observer, once the transcript ends without an answer (:meth:`settle_forfeits`); an answer
        voids it (and is told, :class:`ForfeitVoided`: the forfeit is contested on the record).
        (With two peers a reader is the author, the accused, which refused it already, or an
        observer: one copy of a match cannot show that the accused was silent, only that
        nothing after the forfeit answered the claim.)"""
        if env.author == self.me:
            self._stop(fault)
            return
        self.time.hold_forfeit(key, env.author, fault)

    def _forfeit_stands(self, key: tuple[int, int], author: int) -> bool:
        """Whether the claim under a pending forfeit still stands unanswered."""
        stage, seat = key
        if author not in self.time.claimants(key):
            return False
        if stage == SETUP:
            return seat in self.unrevealed()
        current = self.stage.number if self.stage is not None else -1
        return stage == current and seat in self.owed()

    def forfeits_pending(self) -> list[tuple[int, int]]:
        """The (stage, seat) of others' forfeits waiting for this peer's own check (a pending
        forfeit whose seat answered is dropped here)."""
        for key, (author, _) in sorted(self.time.pending.items()):
            if not self._forfeit_stands(key, author):
                del self.time.pending[key]
                self.events.append(ForfeitVoided(key[0], key[1], author))
        return sorted(self.time.pending)

    def confirm_forfeit(self, stage: int, seat: int) -> bool:
        """This peer's own grace period passed after another peer's forfeit of ``seat`` (a peer,
        at stage -2): if the seat is still silent, the forfeit stands and stops the match."""
        entry = self.time.pending.pop((stage, seat), None)
        if entry is None or self.fault is not None or not self._forfeit_stands((stage, seat), entry[0]):
            return False
        self._stop(entry[1])
        return True

    def settle_forfeits(self) -> None:
        """The end of a transcript (an observer): a forfeit never answered stands."""
        for stage, seat in self.forfeits_pending():
            if self.confirm_forfeit(stage, seat):
                return

    def _owing(self, seat: int) -> tuple[int, bool]:
        """(the stage number a claim about ``seat`` names now, whether it owes something). Before
        the deal ``seat`` names a peer that owes its coin share."""
        if self.phase is Phase.COIN_REVEAL:
            return SETUP, seat in self.unrevealed()
        return (self.stage.number if self.stage is not None else -1), seat in self.owed()

    def _on_walkaway(self, env: Envelope, msg: Forfeit) -> None:
        """A forfeit before the deal: ``peer`` saw the others' coin shares and did not open its
        own. Walking away then (and re-rolling the seats in a new match) must not be free."""
        peer, reason = msg.seat, msg.reason
        if peer >= len(self.keys) or peer == env.author:
            raise MessageError("a forfeit must name another peer")
        if peer == self.me:
            raise MessageError(f"a forfeit of peer {peer}, which (this one) is here and answering")
        if peer not in self.unrevealed() or env.author not in self.time.claimants((SETUP, peer)):
            raise MessageError(
                f"a forfeit of peer {peer} before the deal without a standing claim that it owes its coin"
            )
        self._forfeited(
            env,
            (SETUP, peer),
            Fault(
                FaultKind.FORFEIT,
                peer,
                SETUP,
                f"{self.names[peer]} forfeits: did not open its coin share ({reason})",
                {"claim": env.hash.hex(), "claimed_by": env.author},
            ),
        )

    def _on_hash(self, env: Envelope, msg: Hash) -> None:
        number, h = msg.stage, msg.digest
        if env.author in self.hashes.get(number, {}):
            raise MessageError(f"a second hash of stage {number} from peer {env.author}")
        self.hashes.setdefault(number, {})[env.author] = h
        self._compare_hashes(number)

    def _compare_hashes(self, number: int) -> None:
        mine = self.my_hashes.get(number)
        if mine is None:
            return
        for author, theirs in sorted(self.hashes.get(number, {}).items()):
            if theirs != mine and self.fault is None:
                if self.me is not None and self.game is not None:
                    # Tell the others what we computed, so every desync report holds both states.
                    self._send(Desync(number, self.m.game.public(self.state)))
                self._stop(
                    Fault(
                        FaultKind.DESYNC,
                        author,
                        number,
                        f"peer {author}'s state after stage {number} differs from ours",
                        {
                            "ours": mine.hex(),
                            "theirs": theirs.hex(),
                            "state": self.m.game.public(self.state) if self.game else None,
                        },
                    )
                )

    def _game_over(self, outcome: Outcome) -> None:
        self.stage = None
        self.outcome = outcome
        if self.spec is not None and self.m.spec.audited:
            self._enter(Phase.AUDIT)
            if self.me is not None:
                mine = openings_of(self.cards, self.owner, self.me)
                self._send(Audit([[n, s, *self.my_secrets[(n, s)]] for n, s in mine]))
            self._finish_audit()
            return
        self._finish()

    def _on_audit(self, env: Envelope, msg: Audit) -> None:
        if env.author in self.audits:
            raise MessageError("a second audit")
        openings = msg.openings
        for number, seat, action, nonce in openings:  # (each of this shape: bodies.Audit)
            if seat >= len(self.owner):
                raise MessageError("a malformed audit opening")
            if self.owner[seat] != env.author:
                raise MessageError(f"peer {env.author} opened p{seat}'s card")
            committed = self.commit_log.get((number, seat))
            if committed is None:
                raise MessageError(f"no commitment of p{seat} at stage {number}")
            self._check_opening(env, number, seat, action, nonce, committed)
            self._check_card(env, number, seat, action)
        self.audits[env.author] = openings
        self._finish_audit()

    def _finish_audit(self) -> None:
        if self.phase is not Phase.AUDIT or len(self.audits) != len(self.keys) or self.audit_due:
            return
        if self.defer_audit:
            # The driver judges it off its event loop (the replay takes tens of milliseconds):
            # audit_verdict() in a worker thread, then conclude_audit() here.
            self.audit_due = True
            self.events.append(AuditDue())
            return
        self.conclude_audit(self.audit_verdict())

    def audit_verdict(self) -> Outcome | tuple[int, int] | None:
        """What the audit finds, reading only (a driver may ask in a worker thread): the first
        card left unopened, as (stage, seat); else the outcome if a seat played a card it did
        not hold; else None (the game's outcome stands)."""
        opened, missing = self.cards.with_openings(self.m.spec, self.log, self.audits.values())
        if missing:
            return missing[0]
        full_log = [(seat, self.m.game.parse_action(action)) for seat, action in opened]
        return self.m.spec.audit(self.m.terms["setup"], self.m.terms["options"], full_log, self.state)

    def conclude_audit(self, verdict: Outcome | tuple[int, int] | None) -> None:
        """End the match with the audit's verdict (:meth:`audit_verdict`)."""
        self.audit_due = False
        if self.phase is not Phase.AUDIT:
            return
        if isinstance(verdict, tuple):
            number, seat = verdict
            self._stop(
                Fault(
                    FaultKind.FORFEIT,
                    self.owner[seat],
                    number,
                    f"p{seat} did not open its stage-{number} card at the audit",
                    {},
                )
            )
            return
        if verdict is not None:
            self.outcome = verdict
        self._finish()

    def _finish(self) -> None:
        """The result is known here: say it, signed (``end``), and hold it against what every
        other peer signs of it. It stands once every peer has."""
        self._enter(Phase.ENDING)
        assert self.outcome is not None
        self.events.append(MatchOver(self.outcome.to_plain()))
        if self.me is not None:
            self._send(End(self.outcome.to_plain()))
        for author, env in sorted(self.ends.items()):  # (signed before we knew it ourselves)
            if self.fault is None and author != self.me:
                self._judge_end(env)
        self._confirm()

    def _on_end(self, env: Envelope, msg: End) -> None:
        """A peer's signed word of the result: kept until this peer knows the result too, then
        held against it (another result is a lie, signed)."""
        if env.author in self.ends:
            raise MessageError(f"a second end from peer {env.author}")
        self.ends[env.author] = env
        if self.phase in (Phase.ENDING, Phase.OVER) and env.author != self.me:
            self._judge_end(env)
            self._confirm()

    def _judge_end(self, env: Envelope) -> None:
        """Another result than ours, signed, is a lie (the same canonical bytes, or it is another:
        ``True`` is not ``1`` here)."""
        assert self.outcome is not None
        ours, theirs = self.outcome.to_plain(), env.body[1]
        if encode(theirs) != encode(ours):
            self._cheat(
                CheatError(
                    env.author,
                    f"signed a result the match did not have ({shown(theirs)}; it is {shown(ours)})",
                    {"message": env.hash.hex()},
                )
            )

    def _confirm(self) -> None:
        """Every peer has signed the result: the match is over for the record."""
        if self.phase is Phase.ENDING and len(self.ends) == len(self.keys):
            self._enter(Phase.OVER)
            assert self.outcome is not None
            self.events.append(Confirmed(self.outcome.to_plain()))

    def unconfirmed(self) -> tuple[int, ...]:
        """The peers whose signed word of the known result has not come (none before it is known)."""
        if self.phase is not Phase.ENDING:
            return ()
        return tuple(peer for peer in range(len(self.keys)) if peer not in self.ends)
