"""The end of a match: state hashes compared after every stage; in a game with hidden choices, the
disclosure of every commitment not yet opened and the game's verdict on the whole match with all of
them open; and the result that every peer signs (``end``) before the match is over."""

from __future__ import annotations

from dataclasses import dataclass

from p2pgenius.canonical import Plain, encode
from p2pgenius.errors import shown
from p2pgenius.games.base import Outcome
from p2pgenius.games.spec import Finding
from p2pgenius.protocol.bodies import Desync, Disclosure, End, Hash
from p2pgenius.protocol.events import Confirmed, Fault, FaultKind, Hashed, MatchOver, VerdictDue
from p2pgenius.protocol.messages import Envelope, MessageError
from p2pgenius.protocol.session.cards import MadeHere, Ref, check_card, openings_of
from p2pgenius.protocol.session.courier import Courier
from p2pgenius.protocol.session.debts import Debt
from p2pgenius.protocol.session.faults import CheatError
from p2pgenius.protocol.session.match import DealtMatch
from p2pgenius.protocol.session.phase import Local, Phase


@dataclass(frozen=True, slots=True)
class Judged:
    """The game's verdict on a match with every card opened: the whole match's actions as it
    replayed them ((seat, plain action), each hidden card opened) and what it found of them."""

    opened: tuple[tuple[int, Plain], ...]
    finding: Finding


Verdict = Judged | Ref
"""What the game's verdict on a disclosed match finds: the first card left unopened, or the
game's finding on the whole match (another outcome, or none: the game's stands)."""


class EndJudge:
    """How a match's end is judged: the state hashes compared, the disclosure, the signed result."""

    def __init__(
        self, courier: Courier, match: DealtMatch, commits: dict[Ref, bytes], made: MadeHere
    ) -> None:
        self.courier = courier
        self.match = match
        self.commits = commits  # every commitment of the match: (stage, seat) -> it
        self.made = made  # those this peer made in this process
        self.hashes: dict[int, dict[int, bytes]] = {}  # stage -> author -> hash
        self.hashed_by: dict[int, dict[int, bytes]] = {}  # stage -> author -> its hash message's hash
        self.my_hashes: dict[int, bytes] = {}
        self.disclosures: dict[int, list[list[object]]] = {}  # peer -> the openings it disclosed
        self.ends: dict[int, Envelope] = {}  # peer -> its signed word of the result (``end``)
        self.outcome: Outcome | None = None
        self.verdict_due = False
        self.judged: Judged | None = None  # the verdict, once concluded (a report shows its states)

    # -- hashes -----------------------------------------------------------------------------------

    def on_hash(self, env: Envelope, msg: Hash) -> None:
        number, h = msg.stage, msg.digest
        hashes = self.hashes.setdefault(number, {})
        if env.author in hashes:
            raise MessageError(f"a second hash of stage {number} from peer {env.author}")
        hashes[env.author] = h
        self.hashed_by.setdefault(number, {})[env.author] = env.hash
        if env.author != self.courier.me:
            self.courier.events.append(Hashed(env.author, number))
        self.compare_hashes(number)

    def compare_hashes(self, number: int) -> None:
        """Every peer's hash of stage ``number`` against ours (once we have ours)."""
        mine = self.my_hashes.get(number)
        if mine is None:
            return
        courier, game, state = self.courier, self.match.game, self.match.state
        if courier.me is None:
            self._referee(number, mine)
            return
        for author, theirs in sorted(self.hashes.get(number, {}).items()):
            if theirs != mine and not courier.stopped:
                # Tell the others what we computed, so every desync report holds both states.
                courier.send(Desync(number, game.public(state)))
                courier.stop(self._desync(number, author, mine, theirs))

    def _desync(self, number: int, author: int, mine: bytes, theirs: bytes) -> Fault:
        state = self.match.game.public(self.match.state)
        return Fault(
            FaultKind.DESYNC,
            author,
            number,
            f"peer {author}'s state after stage {number} differs from ours",
            {"ours": mine.hex(), "theirs": theirs.hex(), "state": state},
        )

    def _referee(self, number: int, mine: bytes) -> None:
        """An observer's judgement of the hashes of stage ``number``: its replay of every signed
        message is the state the terms' engine gives, so a peer's hash that differs while another
        peer's agrees is a lie its author signed (its proven cheat: a loser cannot turn a lost
        match into states that diverged). With no peer agreeing, the match stops there as a
        desync (nothing after it is judged against a state that may be the observer's own
        mistake); a hash of that stage later in the record that agrees makes it the lie it was
        (:meth:`settle`)."""
        courier, hashes = self.courier, self.hashes.get(number, {})
        wrong = [author for author, theirs in hashes.items() if theirs != mine]
        if not wrong or courier.stopped:
            return
        wrong.sort()  # (sorted only when some differ: on every hash message, none does)
        if any(theirs == mine for theirs in hashes.values()):
            courier.convict(self._lie(number, wrong[0]))
        else:
            courier.stop(self._desync(number, wrong[0], mine, hashes[wrong[0]]))

    def _lie(self, number: int, liar: int) -> CheatError:
        return CheatError(
            liar,
            f"signed a false state hash of stage {number}: the signed messages give another state, "
            "which another peer's hash agrees with",
            {"message": self.hashed_by[number][liar].hex()},
        )

    def on_late_hash(self, env: Envelope, msg: Hash) -> None:
        """A hash an observer reads after the match stopped on a desync of its stage: kept, for
        :meth:`settle` (nothing else after a stop is judged)."""
        fault = self.courier.fault
        if fault is not None and fault.kind is FaultKind.DESYNC and msg.stage == fault.stage:
            self.hashes.setdefault(msg.stage, {}).setdefault(env.author, msg.digest)
            self.hashed_by.setdefault(msg.stage, {}).setdefault(env.author, env.hash)

    def settle(self) -> None:
        """The end of an observer's record: a desync that a hash later in the record shows to be
        one peer's lie (it agrees with the replay) is that peer's cheat."""
        courier, fault = self.courier, self.courier.fault
        if fault is None or fault.kind is not FaultKind.DESYNC or courier.me is not None:
            return
        number = fault.stage
        mine, hashes = self.my_hashes.get(number), self.hashes.get(number, {})
        if mine is None or mine not in hashes.values():
            return
        liar = next(author for author, theirs in sorted(hashes.items()) if theirs != mine)
        lie = self._lie(number, liar)
        courier.restate(Fault(FaultKind.CHEAT, liar, fault.stage, lie.reason, lie.evidence))

    # -- the disclosure -----------------------------------------------------------------------

    def game_over(self, outcome: Outcome) -> None:
        """The game is over here: in a game with hidden choices, disclose ours and await the
        others' (then the game's verdict); then sign."""
        self.outcome = outcome
        if not self.match.spec.audited:
            self._finish()
            return
        courier = self.courier
        courier.enter(Phase.DISCLOSURE)
        if courier.me is not None:
            mine = openings_of(self.match.cards, self.match.owner, courier.me)
            courier.send(Disclosure([[n, s, *courier.secrets[(n, s)]] for n, s in mine]))
        self._judge_once_disclosed()

    def on_disclosure(self, env: Envelope, msg: Disclosure) -> None:
        if env.author in self.disclosures:
            raise MessageError(f"a second {msg.kind}")
        match, openings = self.match, msg.openings
        for number, seat, action, nonce in openings:  # (each of this shape: bodies.Disclosure)
            if seat >= len(match.owner):
                raise MessageError(f"a malformed {msg.kind} opening")
            if match.owner[seat] != env.author:
                raise MessageError(f"peer {env.author} opened p{seat}'s card")
            committed = self.commits.get((number, seat))
            if committed is None:
                raise MessageError(f"no commitment of p{seat} at stage {number}")
            self.made.check(self.courier.match_id, env, (number, seat), (action, nonce), committed)
            check_card(match.cards, match.spec, env, (number, seat), action)
        self.disclosures[env.author] = openings
        self._judge_once_disclosed()

    def _judge_once_disclosed(self) -> None:
        courier, disclosed = self.courier, len(self.disclosures) == len(self.courier.keys)
        if courier.phase is not Phase.DISCLOSURE or not disclosed or self.verdict_due:
            return
        if courier.defer_verdict:
            # The driver judges it off its event loop (the replay takes tens of milliseconds):
            # verdict() in a worker thread, then conclude() here.
            self.verdict_due = True
            courier.events.append(VerdictDue(self.verdict, self.conclude))
            return
        self.conclude(self.verdict())

    def verdict(self) -> Verdict:
        """What the game finds of the whole match with every disclosure in, reading only (a driver
        may ask in a worker thread): the first card left unopened, as (stage, seat); else what
        the game finds of it (``spec.audit``), with its outcome instead of the game's if it has
        one (a seat played a card it did not hold, say)."""
        match = self.match
        opened, missing = match.cards.with_openings(match.spec, match.log, self.disclosures.values())
        if missing:
            return missing[0]
        full_log = [(seat, match.game.parse_action(action)) for seat, action in opened]
        setup, options = match.terms["setup"], match.terms["options"]
        return Judged(tuple(opened), match.spec.audit(setup, options, full_log, match.state))

    def conclude(self, verdict: Verdict) -> None:
        """End the match with the game's verdict (:meth:`verdict`; a driver judges it off its
        event loop and concludes here, a step of its own: :attr:`Local.VERDICT`)."""
        courier = self.courier
        previous, courier.trigger = courier.trigger, courier.trigger or Local.VERDICT
        try:
            self._conclude(verdict)
        finally:
            courier.trigger = previous

    def _conclude(self, verdict: Verdict) -> None:
        self.verdict_due = False
        if self.courier.phase is not Phase.DISCLOSURE:
            return
        if isinstance(verdict, tuple):
            number, seat = verdict
            self.courier.stop(
                Fault(
                    FaultKind.FORFEIT,
                    self.match.owner[seat],
                    number,
                    f"p{seat} did not open its stage-{number} card at the {Disclosure.kind}",
                    {},
                )
            )
            return
        self.judged = verdict
        if verdict.finding.outcome is not None:
            self.outcome = verdict.finding.outcome
        self._finish()

    # -- the signed result --------------------------------------------------------------------

    def debts(self) -> tuple[Debt, ...]:
        """What the match waits on after the game's end (none before it): every peer's disclosure
        (a game with hidden choices), then its signed result, each a debt of the peer's lowest
        seat (the one seat a claim about it names: SPEC 6)."""
        if self.outcome is None:
            return ()
        owner = self.match.owner
        disclosing = self.courier.phase is Phase.DISCLOSURE
        kind, done = (Disclosure.kind, self.disclosures) if disclosing else (End.kind, self.ends)
        lowest = sorted({owner.index(peer) for peer in owner})
        return tuple(Debt(kind, seat, -1) for seat in lowest if owner[seat] not in done)

    def _finish(self) -> None:
        """The result is known here: say it, signed (``end``), and hold it against what every
        other peer signs of it. It stands once every peer has."""
        courier, outcome = self.courier, self.outcome
        assert outcome is not None
        courier.enter(Phase.ENDING)
        courier.events.append(MatchOver(outcome.to_plain()))
        if courier.me is not None:
            courier.send(End(outcome.to_plain()))
        for author, env in sorted(self.ends.items()):  # (signed before we knew it ourselves)
            if not courier.stopped and author != courier.me:
                self._judge_end(env)
        self._confirm()

    def on_end(self, env: Envelope, msg: End) -> None:
        """A peer's signed word of the result: kept until this peer knows the result too, then
        held against it (another result is a lie, signed)."""
        del msg
        if env.author in self.ends:
            raise MessageError(f"a second end from peer {env.author}")
        self.ends[env.author] = env
        if self.courier.phase in (Phase.ENDING, Phase.OVER) and env.author != self.courier.me:
            self._judge_end(env)
            self._confirm()

    def _judge_end(self, env: Envelope) -> None:
        """Another result than ours, signed, is a lie (the same canonical bytes, or it is another:
        ``True`` is not ``1`` here)."""
        assert self.outcome is not None
        ours, theirs = self.outcome.to_plain(), env.body[1]
        if encode(theirs) != encode(ours):
            self.courier.convict(
                CheatError(
                    env.author,
                    f"signed a result the match did not have ({shown(theirs)}; it is {shown(ours)})",
                    {"message": env.hash.hex()},
                )
            )

    def _confirm(self) -> None:
        """Every peer has signed the result: the match is over for the record."""
        if self.courier.phase is Phase.ENDING and len(self.ends) == len(self.courier.keys):
            self.courier.enter(Phase.OVER)
            assert self.outcome is not None
            self.courier.events.append(Confirmed(self.outcome.to_plain()))

    def unconfirmed(self) -> tuple[int, ...]:
        """The peers whose signed word of the known result has not come (none before it is known)."""
        if self.courier.phase is not Phase.ENDING:
            return ()
        return tuple(peer for peer in range(len(self.courier.keys)) if peer not in self.ends)
