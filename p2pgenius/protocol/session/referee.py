"""Time, refereed: timeout claims, disputes, observed times and forfeits, on the record
(protocol/SPEC.md, section 6, "What is owed"). Who owes what, and from when, is the session's to
say (:class:`Standing`); this part takes what peers sign about it and what this peer says."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from p2pgenius.errors import LocalMisuseError
from p2pgenius.protocol.bodies import SETUP, Dispute, Forfeit, Observed, TimeoutClaim
from p2pgenius.protocol.events import (
    ClaimDisputed,
    Fault,
    FaultKind,
    ForfeitVoided,
    Rejected,
    TimeObserved,
    TimeoutClaimed,
)
from p2pgenius.protocol.messages import Envelope, MessageError
from p2pgenius.protocol.session.courier import Courier
from p2pgenius.protocol.session.debts import GRACE, Debt
from p2pgenius.protocol.session.ledger import Ref, TimeLedger
from p2pgenius.protocol.session.phase import Phase
from p2pgenius.protocol.session.play import Play
from p2pgenius.protocol.session.setup import MatchSetup
from p2pgenius.protocol.session.stage import Stage
from p2pgenius.protocol.session.timing import ClockBook

PLAYS_ON: Final = frozenset({"act", "commit", "decline", "final", "timeout", "dispute", "forfeit"})
"""The kinds of message by which a forfeit's author shows it played on after it (a stopped peer
sends none of them)."""


class Standing(Protocol):
    """What the referee asks of the session: the seats, the stage, and what is owed now."""

    @property
    def owner(self) -> tuple[int, ...]: ...
    @property
    def my_seats(self) -> tuple[int, ...]: ...
    @property
    def stage(self) -> Stage | None: ...
    @property
    def play(self) -> Play | None: ...
    @property
    def setup(self) -> MatchSetup: ...
    def owed(self) -> tuple[int, ...]: ...
    def debts(self) -> tuple[Debt, ...]: ...
    def ledger_so_far(self) -> DebtLedger: ...


@dataclass
class DebtLedger:
    """An observer's: when each debt fell due and which message paid it, which a forfeit's
    judgement reads (did its author know the debt was due? did an answer cross it?)."""

    due_at: dict[Debt, tuple[int, ...]] = field(default_factory=dict)
    """Each debt, and how many messages of each author the observer had read when it fell due (a
    peer that had not read them all may not have known it was due)."""
    paid_by: dict[Debt, tuple[int, int]] = field(default_factory=dict)
    """Each debt paid, and the message (author, number) after which it was owed no more."""
    owed: frozenset[Debt] = frozenset()
    """What was owed after the last message."""

    def heard(self, env: Envelope, owed: frozenset[Debt], read: Sequence[int]) -> None:
        """``env`` was taken, and ``owed`` is owed since; ``read``: the messages taken of each author."""
        if owed == self.owed:
            return  # (nothing fell due, nothing was paid)
        for debt in owed - self.owed:
            self.due_at[debt] = tuple(read)
        for debt in self.owed - owed:
            self.paid_by.setdefault(debt, (env.author, env.seq))
        self.owed = owed


class Referee:
    """Claims, disputes, observed times and forfeits: sent, taken and judged."""

    def __init__(self, courier: Courier, standing: Standing) -> None:
        self.courier = courier
        self.standing = standing
        self.time = TimeLedger()  # declared times, observations, claims, disputes, held forfeits
        self.answers: dict[Ref, tuple[int, int]] = {}
        """A held forfeit's answer: (author, number) of the message after which it stood no more."""
        self.claims: set[tuple[int, int, int]] = set()
        """(stage, seat, author) of every timeout claim read, standing or not."""
        self.ledger: DebtLedger | None = DebtLedger()
        """An observer's ledger of debts, kept message by message. None: worked out only at the
        first forfeit, which alone reads it (a transcript's verification, ``observer_of(...,
        ledger=False)``, which reads the whole match at once with no event loop to hold up: most
        matches have no forfeit, and keeping it was a fifth of a duel transcript's Python; a
        spectator keeps it as it goes)."""

    def _number(self) -> int:
        """The current stage's number; -1 between stages (after the end: the disclosure)."""
        stage = self.standing.stage
        return stage.number if stage is not None else -1

    def _hold(self, env: Envelope) -> None:
        play = self.standing.play
        assert play is not None  # (a stage is being played: the seats are dealt)
        play.hold(env)

    # -- claims ------------------------------------------------------------------------------

    def claim_timeout(self, seat: int, observed_ms: int) -> None:
        """Say, signed, that another peer's ``seat`` ran out of time here: ``observed_ms`` passed
        on this machine since the stage began (lag allowance already waited out)."""
        courier, standing = self.courier, self.standing
        if courier.phase in (Phase.OVER, Phase.FAULT) or not standing.owner:
            raise LocalMisuseError("the match is not at a stage where anyone can time out")
        if seat in standing.my_seats or seat not in standing.owed():
            raise LocalMisuseError(f"p{seat} owes nothing to time out")
        courier.send(TimeoutClaim(self._number(), seat, max(int(observed_ms), 0)))

    def claim_walkaway(self, peer: int, observed_ms: int) -> None:
        """Say, signed, that ``peer`` has not opened its coin share: ``observed_ms`` passed here."""
        if peer == self.courier.me or peer not in self.standing.setup.unrevealed():
            raise LocalMisuseError(f"peer {peer} owes no coin share")
        self.courier.send(TimeoutClaim(SETUP, peer, max(int(observed_ms), 0)))

    def on_time_message(self, env: Envelope, msg: TimeoutClaim | Dispute) -> None:
        """A timeout claim or a dispute: about the coin flip, a stage (held if we are not there
        yet), or, after the end, the disclosure or the result."""
        if isinstance(msg, TimeoutClaim) and msg.stage == SETUP:
            self._on_setup_claim(env, msg)
            return
        stage = self.standing.stage
        if stage is not None and msg.stage > stage.number:
            # From a peer further along than us (with three or four peers, messages reach us through the
            # host in another order): it counts when we get there, not never.
            self._hold(env)
            return
        if not self.standing.owner:
            raise MessageError(f"a {msg.kind} message before the seats are dealt")
        if isinstance(msg, TimeoutClaim):
            self._on_timeout_claim(env, msg)
        else:
            self._on_dispute(env, msg)

    def _on_timeout_claim(self, env: Envelope, msg: TimeoutClaim) -> None:
        number, seat, observed = msg.stage, msg.seat, msg.observed_ms
        owner = self.standing.owner
        if seat >= len(owner) or owner[seat] == env.author:
            raise MessageError("a timeout claim must name another peer's seat and a time")
        self.claims.add((number, seat, env.author))
        # A claim about a stage already played crossed the decision on the wire: it stays in the
        # transcript (a dispute, if the decision declared much less) and changes nothing.
        if number == self._number() and seat in self.standing.owed():
            self.time.claim((number, seat), env.author)
        if env.author != self.courier.me:
            debts = self.standing.debts()
            owed = next((d.kind for d in debts if d.seat == seat and d.stage == number), "")
            self.courier.events.append(TimeoutClaimed(number, seat, observed, env.author, owed))

    def _on_setup_claim(self, env: Envelope, msg: TimeoutClaim) -> None:
        peer, observed = msg.seat, msg.observed_ms
        if peer >= len(self.courier.keys) or peer == env.author:
            raise MessageError("a timeout claim before the deal must name another peer and a time")
        if peer in self.standing.setup.unrevealed():
            self.time.claim((SETUP, peer), env.author)
        if env.author != self.courier.me:
            self.courier.events.append(TimeoutClaimed(SETUP, peer, observed, env.author, "coin"))

    # -- disputes and observed times ------------------------------------------------------------

    def note_observed(self, stage: int, seat: int, observed_ms: int) -> None:
        """Say, signed, that more time passed here before ``seat``'s decision at ``stage`` than it
        declared (``observed_ms``: this machine's measure, less the lag allowance). Nothing is
        charged differently (every peer charges the declared time, so every clock agrees): the
        dispute is on the record, for the players and for anyone who verifies the transcript."""
        declared = self.time.declared.get((stage, seat))
        if seat in self.standing.my_seats or declared is None or observed_ms <= declared:
            raise LocalMisuseError(f"nothing to dispute about p{seat}'s time at stage {stage}")
        if observed_ms > self.time.most_seen((stage, seat)):  # (this machine slept: no measure)
            raise LocalMisuseError(f"{observed_ms} ms is longer than anyone waits for p{seat}'s decision")
        if self.time.observed_by((stage, seat), self.courier.me):
            raise LocalMisuseError(f"p{seat}'s time at stage {stage} is already disputed")
        self.courier.send(Observed(stage, seat, int(observed_ms)))

    def on_observed(self, env: Envelope, msg: Observed) -> None:
        number, seat, ms = msg.stage, msg.seat, msg.ms
        owner = self.standing.owner
        if not owner or seat >= len(owner) or owner[seat] == env.author:
            raise MessageError("an observed time must be about another peer's seat")
        declared = self.time.declared.get((number, seat))
        if declared is None or self.time.observed_by((number, seat), env.author):
            raise MessageError(f"an observed time for p{seat} at stage {number}, which decided nothing then")
        most = self.time.most_seen((number, seat))
        if ms > most:
            # No honest peer can have waited that long for the decision (it would have claimed,
            # and forfeited the seat, long before): a false measure, refused, its author's fault.
            raise MessageError(
                f"an observed time of {ms} ms before p{seat}'s decision at stage {number}, more than "
                f"any peer can wait for it ({most} ms: its clock twice, the lag and the grace period)"
            )
        self.time.observe((number, seat), env.author, ms)
        self.courier.events.append(TimeObserved(number, seat, ms, declared, env.author))

    def dispute(self, seat: int, left_ms: int) -> None:
        """Answer a timeout claim about our ``seat``: by our clock ``left_ms`` are still left."""
        problem = self._dispute_problem(self._number(), seat, left_ms)
        if seat not in self.standing.my_seats or problem:
            raise LocalMisuseError(problem or f"p{seat} is not ours")
        self.courier.send(Dispute(self._number(), seat, max(int(left_ms), 0)))

    def _on_dispute(self, env: Envelope, msg: Dispute) -> None:
        """The seat's own peer answers a timeout claim: by its clock, time is left. Every claim
        about that seat at that stage stops standing (a forfeit needs a claim that stands)."""
        number, seat, left = msg.stage, msg.seat, msg.left_ms
        owner = self.standing.owner
        if seat >= len(owner) or owner[seat] != env.author:
            raise MessageError("a dispute must name one of its author's seats and the time left")
        problem = self._dispute_problem(number, seat, left)
        if problem:
            raise MessageError(problem)
        self.time.disputed((number, seat))
        if env.author != self.courier.me:
            self.courier.events.append(ClaimDisputed(number, seat, left, env.author))

    def _dispute_problem(self, number: int, seat: int, left_ms: int) -> str:
        """Why ``seat`` may not dispute a claim now ("" if it may): a dispute answers a standing
        claim about a decision still on its clock, once per stage. Anything else owed (a reveal,
        an opening, a final, a disclosure) can be sent at once instead, so it is no time to argue."""
        stage = self.standing.stage
        if not self.time.claimants((number, seat)):
            return f"a dispute with no timeout claim about p{seat} standing"
        if stage is None or number != stage.number or seat not in stage.waiting + stage.optional:
            return f"p{seat} owes no decision on its clock: it can pay what it owes instead"
        if seat in stage.acts or seat in stage.commits or seat in stage.declined:
            return f"p{seat} has decided this stage: it can pay what it owes instead"
        if (number, seat) in self.time.disputes:
            return f"p{seat} already disputed a claim this stage (once is all an honest clock needs)"
        had = ClockBook.left(stage, seat)
        if left_ms > had:
            return f"p{seat}'s dispute says {left_ms} ms are left; its clock had {had} ms"
        return ""

    # -- forfeits ---------------------------------------------------------------------------------

    def forfeit(self, seat: int, reason: str) -> None:
        """Record, signed, that ``seat``'s peer failed to answer our timeout claim in time: it
        loses. (A forfeit needs our claim about that seat at this stage, still standing.)"""
        number, owes = self._owing(seat)
        if not owes:
            raise LocalMisuseError(f"p{seat} owes nothing now")
        if self.courier.me not in self.time.claimants((number, seat)):
            raise LocalMisuseError(f"claim p{seat}'s timeout first (a forfeit needs a standing claim)")
        self.courier.send(Forfeit(number, seat, reason))

    def _owing(self, seat: int) -> tuple[int, bool]:
        """(the stage number a claim about ``seat`` names now, whether it owes something). Before
        the deal ``seat`` names a peer that owes its coin share."""
        if self.courier.phase is Phase.COIN_REVEAL:
            return SETUP, seat in self.standing.setup.unrevealed()
        return self._number(), seat in self.standing.owed()

    def on_forfeit(self, env: Envelope, msg: Forfeit) -> None:
        if self.courier.me is None and self.ledger is None:
            # The first forfeit: read as it came (held or not, it is the last message taken).
            assert self.courier.chain.archive[-1][2] == env.raw
            self.ledger = self.standing.ledger_so_far()
        stage, seat, reason = msg.stage, msg.seat, msg.reason
        if stage == SETUP:
            self._on_walkaway(env, msg)
            return
        owner, current = self.standing.owner, self.standing.stage
        if seat >= len(owner) or owner[seat] == env.author:
            raise MessageError("a forfeit must name another peer's seat")
        if owner[seat] == self.courier.me:
            # We hold that seat and are reading this: we are here and answering. Whatever we
            # owe, our own clock decides (and answers the claim); a forfeit is never taken on
            # another peer's word.
            raise MessageError(f"a forfeit of p{seat}, whose peer (this one) is here and answering")
        if current is not None and stage > current.number:
            self._hold(env)  # from a peer further along: judged when we get there
            return
        if stage != self._number() or seat not in self.standing.owed():
            if self._crossed(env.author, (stage, seat)):
                self._hold_crossed(env, (stage, seat), owner[seat], reason)
                return
            raise MessageError(f"a forfeit of p{seat}, which owes nothing now (stage {stage})")
        if env.author not in self.time.claimants((stage, seat)):
            raise MessageError(
                f"a forfeit of p{seat} with no timeout claim of its author standing (a claim must "
                "come first, and stay unanswered)"
            )
        name = self.courier.names[owner[seat]]
        evidence = {"claim": env.hash.hex(), "claimed_by": env.author}
        reason = f"{name} (p{seat}) forfeits: {reason}"
        self._forfeited(env, (stage, seat), Fault(FaultKind.FORFEIT, owner[seat], stage, reason, evidence))

    def _on_walkaway(self, env: Envelope, msg: Forfeit) -> None:
        """A forfeit before the deal: ``peer`` saw the others' coin shares and did not open its
        own. Walking away then (and re-rolling the seats in a new match) must not be free."""
        peer, reason = msg.seat, msg.reason
        if peer >= len(self.courier.keys) or peer == env.author:
            raise MessageError("a forfeit must name another peer")
        if peer == self.courier.me:
            raise MessageError(f"a forfeit of peer {peer}, which (this one) is here and answering")
        if peer not in self.standing.setup.unrevealed() or env.author not in self.time.claimants(
            (SETUP, peer)
        ):
            raise MessageError(
                f"a forfeit of peer {peer} before the deal without a standing claim that it owes its coin"
            )
        reason = f"{self.courier.names[peer]} forfeits: did not open its coin share ({reason})"
        evidence = {"claim": env.hash.hex(), "claimed_by": env.author}
        self._forfeited(env, (SETUP, peer), Fault(FaultKind.FORFEIT, peer, SETUP, reason, evidence))

    def _forfeited(self, env: Envelope, key: Ref, fault: Fault) -> None:
        """A forfeit that holds on its face. Its author's stops the match at once. Anyone else's
        (a bystander's, with three or four peers, or an observer's reading a transcript or
        watching) cannot check its author's clock, so it waits: it stands once this peer's own
        grace period has passed with the seat still silent (:meth:`confirm_forfeit`), or, for an
        observer, once the transcript ends without an answer (:meth:`settle_forfeits`); an answer
        voids it (and is told, :class:`ForfeitVoided`: the forfeit is contested on the record).
        (With two peers a reader is the author, the accused, which refused it already, or an
        observer: one copy of a match cannot show that the accused was silent, only that
        nothing after the forfeit answered the claim.)"""
        if env.author == self.courier.me:
            self.courier.stop(fault)
            return
        owing = self._owes_at_once(env.author)
        if owing:
            # It leaves unpaid what it could pay at once (its own coin share, reveal, disclosure or
            # signed result): as silent as the one it accuses, its word that the other was
            # silent stands for nothing (an honest peer pays those as they fall due).
            raise MessageError(f"a forfeit by peer {env.author}, which itself owes its {owing}")
        self.time.hold_forfeit(key, env.author, fault)

    def _saw(self, author: int, message: tuple[int, int] | None) -> bool:
        """Whether ``author``'s messages so far named ``message`` ((author, number)), or it is its
        own; None (not known): yes."""
        if message is None or message[0] == author:
            return True
        return self.courier.chain.named[author][message[0]] >= message[1]

    def _kept(self) -> DebtLedger:
        """The ledger a forfeit's judgement reads: kept by then (:meth:`on_forfeit` works it out
        first where it was not)."""
        assert self.ledger is not None
        return self.ledger

    def _knew_due(self, peer: int, debt: Debt) -> bool:
        """Whether ``peer``'s messages so far named every message an observer had read when
        ``debt`` fell due (so ``peer`` knew it was due); a peer in the match: yes."""
        counts = self._kept().due_at.get(debt)
        named = self.courier.chain.named[peer]
        return counts is None or all(
            named[other] >= count - 1 for other, count in enumerate(counts) if other != peer
        )

    def _crossed(self, author: int, key: Ref) -> bool:
        """Whether, to an observer, a forfeit by ``author`` of a seat that owes nothing now crossed
        its answer: its author claimed that seat at that stage, and what the seat owed there,
        which its author knew was due, was paid by a message its author's messages never named.
        Which came first on the wire nobody can tell (copies judged together place what crossed
        by author index, SPEC section 7, step 3), so the forfeit is held as answered by that
        message (a contested match, unless a peer of another side had read the answer), never
        refused as its author's fault: refusing it would let the late answer's author forfeit the
        other in its turn."""
        if self.courier.me is not None or (*key, author) not in self.claims:
            return False
        return self._crossing(author, key) is not None

    def _crossing(self, author: int, key: Ref) -> tuple[int, int] | None:
        """The message that paid, unseen by ``author``, a debt of ``key`` (stage, seat) that
        ``author`` knew had fallen due (by its messages' heads: a claim of a debt it could not
        have known of is no crossing), or None."""
        stage, seat = key
        return next(
            (
                paid
                for debt, paid in self._kept().paid_by.items()
                if debt.stage == stage
                and debt.seat == seat
                and not self._saw(author, paid)
                and self._knew_due(author, debt)
            ),
            None,
        )

    def _hold_crossed(self, env: Envelope, key: Ref, debtor: int, reason: str) -> None:
        """Hold a forfeit that crossed its answer (:meth:`_crossed`): voided when the transcript
        ends (:meth:`forfeits_pending`). Its author's own debts count only if it had read what
        made them due (:meth:`_owes_at_once`)."""
        stage, seat = key
        owing = self._owes_at_once(env.author)
        if owing:
            raise MessageError(f"a forfeit by peer {env.author}, which itself owes its {owing}")
        if key in self.time.pending:
            return
        name = self.courier.names[debtor]
        reason = f"{name} (p{seat}) forfeits: {reason}"
        evidence = {"claim": env.hash.hex(), "claimed_by": env.author}
        self.time.hold_forfeit(key, env.author, Fault(FaultKind.FORFEIT, debtor, stage, reason, evidence))
        answer = self._crossing(env.author, key)
        assert answer is not None  # (:meth:`_crossed` found it)
        self.answers[key] = answer

    def _forfeit_stands(self, key: Ref, author: int) -> bool:
        """Whether the claim under a pending forfeit still stands unanswered."""
        stage, seat = key
        if author not in self.time.claimants(key):
            return False
        if stage == SETUP:
            return seat in self.standing.setup.unrevealed()
        return stage == self._number() and seat in self.standing.owed()

    def _owes_at_once(self, peer: int) -> str:
        """What ``peer`` owes now on the grace period ("" for nothing): a debt it can pay at once
        (not one the rules hold back, a sealed choice's opening kept from a peer that cannot
        see)."""
        owner, play = self.standing.owner, self.standing.play
        for debt in self.standing.debts():
            if debt.rule.deadline != GRACE or (play is not None and play.held_back(debt)):
                continue
            if not self._knew_due(peer, debt):
                continue  # (an observer's: it fell due by a message ``peer`` had not read)
            if (debt.seat if debt.stage == SETUP else owner[debt.seat]) == peer:
                return debt.kind if debt.stage == SETUP else f"{debt.kind} of p{debt.seat}"
        return ""

    def forfeits_pending(self) -> list[Ref]:
        """The (stage, seat) of others' forfeits waiting for this peer's own check (a pending
        forfeit whose seat answered is dropped here). An observer's forfeit answered by what did
        not name it (the answer and the forfeit crossed) leaves the match contested: nobody can
        tell whether the answer came in time, so no result is proven and nothing after counts
        (unless every peer has signed the result: it stands)."""
        for key, (author, fault) in sorted(self.time.pending.items()):
            if self._forfeit_stands(key, author):
                continue
            del self.time.pending[key]
            self.courier.events.append(ForfeitVoided(key[0], key[1], author))
            # (a result every peer signed stands; an answer a peer of another side had read came in
            # time as far as anyone can tell)
            crossed = self.courier.phase is not Phase.OVER and not self._vouched(key, author)
            if self.courier.me is None and crossed and not self.courier.stopped:
                self.courier.stop(self._contested(key, author, fault))
        return sorted(self.time.pending)

    def heard(self, env: Envelope) -> None:
        """``env`` was taken: a held forfeit that stands no more since is answered by it. An
        observer also notes which debts fell due and which were paid by it, in its :attr:`ledger`
        (what a forfeit's author had read of them is judged by its messages' heads:
        :meth:`_crossed`)."""
        pending = self.time.pending  # (none held: the usual case)
        for key, (author, _) in pending.items():
            if key not in self.answers and not self._forfeit_stands(key, author):
                self.answers[key] = (env.author, env.seq)
        if self.courier.me is None:
            if pending:
                self._went_on(env)
            if self.ledger is not None:
                self.ledger.heard(env, frozenset(self.standing.debts()), self.courier.chain.next_seq)

    def _went_on(self, env: Envelope) -> None:
        """An observer's: a held forfeit whose author wrote ``env`` after it is withdrawn (a peer
        stops its match at its own forfeit: one that plays on did not stand by it), refused as
        a peer in the match would have refused it."""
        if env.kind not in PLAYS_ON:
            return  # (what a stopped peer still sends: its openings withheld from a peer in the dark, ...)
        for key, (author, fault) in list(self.time.pending.items()):
            if author != env.author or env.hash.hex() == fault.evidence.get("claim"):
                continue
            del self.time.pending[key]
            self.answers.pop(key, None)
            who = f"peer {key[1]}" if key[0] == SETUP else f"p{key[1]}"
            self.courier.events.append(
                Rejected(author, f"a forfeit of {who} by peer {author}, which played on after it (withdrawn)")
            )

    def _vouched(self, key: Ref, forfeiter: int) -> bool:
        """Whether the answer to a held forfeit came in time as far as a peer of another side can
        tell: one that holds only seats the answer's author plays against (it has no reason to
        vouch for it), and is not the forfeit's author, had read it (its messages name it)."""
        answer, owner = self.answers.get(key), self.standing.owner
        if answer is None or not owner or self.standing.play is None:
            return False
        by, number = answer
        spec = self.standing.play.match.spec
        against = set(spec.winners_without([seat for seat, peer in enumerate(owner) if peer == by]))
        for peer in range(len(self.courier.keys)):
            seats = {seat for seat, holder in enumerate(owner) if holder == peer}
            if peer in (by, forfeiter) or not seats or not seats <= against:
                continue
            if self.courier.chain.named[peer][by] >= number:
                return True
        return False

    def _contested(self, key: Ref, author: int, fault: Fault) -> Fault:
        stage, seat = key
        who = f"peer {seat}" if stage == SETUP else f"p{seat}"
        reason = (
            f"{self.courier.names[author]}'s forfeit of {who} and {who}'s answer crossed (neither "
            "names the other): nobody can tell whether the answer came in time"
        )
        return Fault(FaultKind.CONTESTED, None, stage, reason, dict(fault.evidence))

    def confirm_forfeit(self, stage: int, seat: int) -> bool:
        """This peer's own grace period passed after another peer's forfeit of ``seat`` (a peer,
        at stage -2): if the seat is still silent, the forfeit stands and stops the match."""
        entry = self.time.pending.pop((stage, seat), None)
        if entry is None or self.courier.stopped or not self._forfeit_stands((stage, seat), entry[0]):
            return False
        self.courier.stop(entry[1])
        return True

    def settle_forfeits(self) -> None:
        """The end of a transcript (an observer): a forfeit never answered stands (every forfeit
        is looked at for an answer before any stands: one that crossed its answer contests the
        match, whatever the order of their seats)."""
        for stage, seat in self.forfeits_pending():
            if self.confirm_forfeit(stage, seat):
                return
