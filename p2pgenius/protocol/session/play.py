"""Stages, as they are played: from the deal to the game's end (protocol/SPEC.md, section 6).

A stage is one engine decision point: the seats the game waits on each send one message (a
public ``act``, or a ``commit`` to a hidden choice), plus, where the game merely allows a seat to
act (its spec's optional actions, such as a challenge), that action or a ``decline``. Sealed
choices (a sealed game's every stage) are revealed once all commitments are in; hidden cards stay
committed until flipped or disclosed. When a stage is complete every peer applies it, in seat
order, and sends the hash of the public state. :class:`Play` holds the match from the deal on
(never without one) and, holding the same match, its :class:`Sight` and its :class:`EndJudge`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from operator import attrgetter
from typing import Any, Final

from p2pgenius.canonical import Plain
from p2pgenius.errors import IllegalActionError, LocalMisuseError
from p2pgenius.games.base import state_hash
from p2pgenius.protocol.bodies import NONCE_LEN, Act, Commit, Decline, FinalChoice, Hash, Reveal, ViewClaim
from p2pgenius.protocol.events import Applied, ClockView, Decided, YourTurn
from p2pgenius.protocol.messages import Envelope, MessageError, commitment
from p2pgenius.protocol.session.cards import MadeHere, Ref, check_card
from p2pgenius.protocol.session.courier import Courier
from p2pgenius.protocol.session.debts import Debt
from p2pgenius.protocol.session.ending import EndJudge
from p2pgenius.protocol.session.faults import CheatError, SessionError
from p2pgenius.protocol.session.ledger import TimeLedger
from p2pgenius.protocol.session.match import DealtMatch
from p2pgenius.protocol.session.phase import Phase
from p2pgenius.protocol.session.sight import Sight
from p2pgenius.protocol.session.stage import Stage
from p2pgenius.protocol.session.timing import ClockBook

StageMessage = ViewClaim | Act | Commit | Reveal | FinalChoice | Decline
"""The messages of one stage, which name it and a seat."""
STAGE_MESSAGES: Final = (ViewClaim, Act, Commit, Reveal, FinalChoice, Decline)

_DECIDING: Final = (Act, Commit, Decline)
"""The messages that decide a seat's part of a stage, declaring the time it took."""
_BY_SEAT: Final = attrgetter("seat", "kind")
"""The order of a stage's debts: by seat, then kind."""
MAX_HELD: Final = 256
"""Messages of one author held for stages this peer has not reached yet, at most."""


def check_legal(match: DealtMatch, seat: int, action: Any, state: Any = None) -> Any:
    """Raise IllegalActionError unless ``seat`` may take ``action`` now (or in ``state``); the
    state after it (None for a flip, whose card is not known until its owner opens it)."""
    state = match.state if state is None else state
    pile = match.spec.flipped_pile(action.to_plain())
    if pile is not None:
        # The card is not known until its owner opens it: only the pile choice is checked.
        if action not in match.game.legal_actions(state, seat):
            raise IllegalActionError(f"p{seat} cannot flip pile {pile} now")
        return None
    return match.game.apply(state, seat, action)


def check_optional(match: DealtMatch, stage: Stage, seat: int, action: Any) -> None:
    """Raise IllegalActionError if ``seat`` holds only an optional action in ``stage`` (a
    window) and ``action`` is not of the kinds the game allows there."""
    if seat in stage.optional and action.to_plain().get("type") not in match.spec.optional_types:
        allowed = " or ".join(match.spec.optional_types) or "nothing"
        raise IllegalActionError(f"only {allowed} is allowed here")


class Play:
    """The stages of one match, on one peer (or an observer)."""

    def __init__(self, courier: Courier, match: DealtMatch, time: TimeLedger) -> None:
        self.courier = courier
        self.match = match
        self.time = time
        self.clockbook = ClockBook()
        self.commit_log: dict[Ref, bytes] = {}  # every commitment: (stage, seat) -> it
        self.made = MadeHere()  # the commitments this peer made in this process
        self.sight = Sight(courier, match)
        courier.stopping.append(self.sight.release_all)
        self.choices = Choices(self)
        self.ending = EndJudge(courier, match, self.commit_log, self.made)
        self.backlog: list[Envelope] = []  # messages for stages not reached yet
        # Our act being sent, (stage, seat, action), parsed and checked as it was made.
        self.vetted: tuple[int, int, Plain] | None = None
        # The last action checked, (state, seat, parsed action, state after): another peer's act
        # as it came, or a local decision (an act or a commitment) as it was made. The engine is
        # a pure function of the three, so the stage that applies it does so once (issue 48: a
        # peer's own decision was applied once to check it and again with its stage).
        self.checked: tuple[Any, int, Any, Any] | None = None
        self._stage: Stage | None = None

    @property
    def stage(self) -> Stage | None:
        """The stage being played (None once the game is over)."""
        return self._stage

    @stage.setter
    def stage(self, stage: Stage | None) -> None:
        self._stage = stage
        self.courier.stage_number = stage.number if stage is not None else -1

    @property
    def open(self) -> bool:
        """A stage is being played and the match goes on (not over, not stopped)."""
        return self._stage is not None and self.courier.phase not in (Phase.OVER, Phase.FAULT)

    def current(self) -> Stage:
        """The stage where a local decision is made (LocalMisuseError if there is none)."""
        if self._stage is None or not self.open:
            raise LocalMisuseError("the match is not at a stage where anyone can act")
        return self._stage

    # -- opening a stage ------------------------------------------------------------------------

    def open_stage(self, number: int, carry: Stage | None = None) -> None:
        """Start stage ``number`` from the current state (keeping what ``carry`` already got)."""
        match = self.match
        outcome = match.game.outcome(match.state)
        if outcome is not None:
            self.stage = None
            self.ending.game_over(outcome)
            return
        waiting = match.game.waiting_on(match.state)
        optional = tuple(s for s in match.game.to_act(match.state) if s not in waiting)
        stage = self.stage = Stage(number, waiting, optional)
        if carry is not None:
            stage.acts, stage.commits, stage.reveals = carry.acts, carry.commits, carry.reveals
            stage.declined, stage.ms, stage.finals = carry.declined, carry.ms, carry.finals
        self._start_clocks(stage)
        if match.mine:  # (an observer's turn never comes)
            self._tell_turn(stage)
        self._replay_backlog()
        if carry is not None:
            self.progress()

    def _tell_turn(self, stage: Stage) -> None:
        """Tell this peer's seats that ``stage`` waits on them (or allows them an action), those
        that have not decided already."""
        number, me, ours = stage.number, self.courier.me, self.match.mine.__contains__
        mine, maybe = tuple(filter(ours, stage.waiting)), tuple(filter(ours, stage.optional))
        if (mine or maybe) and (stage.acts or stage.commits or stage.declined or self.backlog):
            # (A new stage, nothing held: the usual case, with nothing decided to leave out.)
            done = set(stage.acts) | set(stage.commits) | stage.declined
            done |= {  # our own choices made early (held, taken in just below)
                env.msg.seat
                for env in self.backlog
                if env.author == me and isinstance(env.msg, Commit) and env.msg.stage == number
            }
            mine = tuple(s for s in mine if s not in done)
            maybe = tuple(s for s in maybe if s not in done)
        if mine or maybe:
            self.courier.events.append(YourTurn(number, mine + maybe, maybe))

    def _replay_backlog(self) -> None:
        backlog, self.backlog = self.backlog, []
        for env in backlog:
            self.courier.guarded(env)

    def hold(self, env: Envelope) -> None:
        """Keep a message for a stage not reached yet (a bounded number per author: a peer can be
        a few stages further along, never hundreds of messages)."""
        if sum(1 for held in self.backlog if held.author == env.author) >= MAX_HELD:
            raise MessageError(f"more than {MAX_HELD} messages for stages not reached yet")
        self.backlog.append(env)

    def _start_clocks(self, stage: Stage) -> None:
        state = None if self.sight.behind else self.match.state
        self.clockbook.start(stage, self.match.spec, self.match.terms["options"], state)

    def closed(self, stage: Stage) -> bool:
        """Every sealed choice of the stage is in and stands: time to reveal."""
        if not all(s in stage.commits for s in stage.waiting):
            return False
        return self.match.fast or all(s in stage.finals for s in stage.waiting)

    def clocks(self, only: int | None = None) -> dict[int, ClockView]:
        """Every seat's clock at the current stage (none between stages or after the end), or
        ``only`` that seat's."""
        if self._stage is None or not self.open:
            return {}
        return ClockBook.views(self._stage, self.match.sealed and not self.match.fast, only)

    # -- what is owed -------------------------------------------------------------------------

    def owed(self) -> tuple[int, ...]:
        """The seats the match is waiting on right now."""
        return tuple(sorted({debt.seat for debt in self.debts()}))

    def debts(self) -> tuple[Debt, ...]:
        """Everything the match waits on now, each due (debts.py)."""
        if self.courier.phase in (Phase.OVER, Phase.FAULT):
            return ()
        stage = self._stage
        if stage is None:
            return self.ending.debts()
        return tuple(sorted(self._stage_debts(stage), key=_BY_SEAT))

    def held_back(self, debt: Debt) -> bool:
        """Whether the rules hold ``debt``'s payment back from a peer for now: the opening of a
        sealed choice of a stage played while a seat was in the dark (withheld from its peer
        until it sees again, SPEC 6 "Sight"): not a debt a peer can pay at once."""
        if debt.kind != "reveal":
            return False
        dark = [seat for seat in range(len(self.match.owner)) if self.sight.dark(seat)]
        return bool(dark) and debt.seat not in dark

    def _stage_debts(self, stage: Stage) -> list[Debt]:
        number, waiting, commits, match = stage.number, stage.waiting, stage.commits, self.match
        debts = [Debt("decision", s, number) for s in waiting if s not in stage.acts and s not in commits]
        if match.sealed and not match.fast:
            debts += [Debt("final", s, number) for s in waiting if s in commits and s not in stage.finals]
        if match.sealed and self.closed(stage):  # (a reveal is due once every choice stands)
            debts += [
                Debt("reveal", s, number)
                for s in stage.waiting
                if s not in stage.reveals and not self.sight.withheld_from_me(match.owner[s])
            ]
        pile = None if self.sight.behind else self._flip_of(stage)
        if pile is not None and stage.opened is None:
            debts.append(Debt("opening", pile, number))
        if all(s in stage.acts or s in stage.commits for s in stage.waiting):
            # A window is open only until the next action: due once every waited-on seat decided.
            debts += [
                Debt("window", s, number)
                for s in stage.optional
                if s not in stage.acts and s not in stage.declined
            ]
        return debts

    # -- a stage's messages ---------------------------------------------------------------------

    def on_stage_message(self, env: Envelope, msg: StageMessage) -> None:
        """A message naming a stage: an opening of one played, held for one to come, a claim,
        or one seat's part of this one."""
        number, stage = msg.stage, self._stage
        if stage is None:
            raise MessageError(f"a {msg.kind} message after the game's end")
        if isinstance(msg, Reveal) and number < stage.number:
            self._on_late_reveal(env, msg)
        elif number > stage.number:
            self.hold(env)
        elif number < stage.number:
            raise MessageError(f"a {msg.kind} message for stage {number}, already played")
        elif msg.seat >= len(self.match.owner):
            raise MessageError(f"no seat p{msg.seat}")
        elif isinstance(msg, ViewClaim):
            if env.author != self.courier.me:  # our own claims are only records
                self._on_claim(env, stage, msg.seat, msg.claim)
        elif self.match.owner[msg.seat] != env.author:
            raise MessageError(f"peer {env.author} does not hold seat p{msg.seat}")
        else:
            self._on_seat_message(env, stage, msg)

    def _on_seat_message(
        self, env: Envelope, stage: Stage, msg: Act | Commit | Reveal | FinalChoice | Decline
    ) -> None:
        number, seat = msg.stage, msg.seat
        if not self._take(env, stage, msg):
            return
        self.time.answered((number, seat))  # the seat answered: no claim about it stands
        if isinstance(msg, _DECIDING):
            self.time.declare((number, seat), msg.ms, ClockBook.left(stage, seat))
            if env.author != self.courier.me and seat not in stage.optional:  # (a window is off the clock)
                self.courier.events.append(Decided(number, seat, msg.ms, env.author))
        self._lapse_windows(stage)
        self.progress()

    def _take(self, env: Envelope, stage: Stage, msg: Act | Commit | Reveal | FinalChoice | Decline) -> bool:
        """Take one seat's message into ``stage`` (False: a record only, nothing changes)."""
        seat = msg.seat
        match msg:
            case Act():
                self.clockbook.check_declared(stage, seat, msg.ms)
                self._on_act(stage, env, seat, msg.action)
                self.clockbook.declare(stage, seat, msg.ms)
                flips = self.match.spec.flipped_pile(msg.action) is not None
                if flips and stage.opened is None and self._holds_pile(stage):
                    # This act is the flip of our pile (not another act of the stage, such as an
                    # optional one beside it): open the card, once. (An optional seat's window
                    # beside it still lapses below: the flip was the next action.)
                    self._open_card(stage)
            case Commit():
                self._on_commit(stage, seat, msg)
            case FinalChoice():
                if self.match.fast or seat not in stage.commits or seat in stage.finals:
                    raise MessageError(f"an unexpected final for p{seat}")
                stage.finals.add(seat)
            case Reveal():
                return self._on_reveal(env, stage, msg)
            case Decline():
                if seat not in stage.optional or seat in stage.declined or seat in stage.acts:
                    raise MessageError(f"p{seat} has nothing to decline")
                self.clockbook.declare(stage, seat, msg.ms)
                stage.declined.add(seat)
        return True

    def _on_reveal(self, env: Envelope, stage: Stage, msg: Reveal) -> bool:
        seat = msg.seat
        if env.author == self.courier.me and stage.reveals.get(seat) == msg.action:
            return False  # our own choices, withheld from a peer in the dark until now: a record only
        if seat in stage.reveals or seat not in stage.commits:
            raise MessageError(f"an unexpected reveal for p{seat}")
        opening, ref, committed = (msg.action, msg.nonce), (stage.number, seat), stage.commits[seat]
        self.made.check(self.courier.match_id, env, ref, opening, committed)
        stage.reveals[seat] = msg.action
        return True

    def _on_commit(self, stage: Stage, seat: int, msg: Commit) -> None:
        match = self.match
        if not match.spec.committing(match.state):
            raise MessageError("nothing is committed at this point of this game")
        changing = seat in stage.commits and not match.fast and seat not in stage.finals
        if seat not in stage.waiting or (seat in stage.commits and not changing) or seat in stage.acts:
            raise MessageError(f"an unexpected commitment for p{seat}")
        self.clockbook.declare(stage, seat, msg.ms)
        stage.commits[seat] = msg.commitment
        self.commit_log[(stage.number, seat)] = msg.commitment
        if self.courier.on_file is not None and match.owner[seat] == self.courier.me:
            self.open_from_file((stage.number, seat), msg.commitment)

    def open_from_file(self, ref: Ref, committed: bytes) -> None:
        """While restoring: our commitment of ``ref`` on record is opened by the newest of its
        secrets on file that opens it (a duel's replaced choice has several), and by nothing else:
        whatever else the file holds, edited or damaged, never becomes the card or gesture the
        match goes on with (protocol/SPEC.md section 7, "The secrets file")."""
        on_file = self.courier.on_file or {}
        for action, nonce in reversed(on_file.get(ref, [])):
            if commitment(self.courier.match_id, ref[0], ref[1], nonce, action) == committed:
                self.courier.secrets[ref] = (action, nonce)
                return
        raise SessionError(
            f"the secrets file holds no opening of our commitment for p{ref[1]} at stage {ref[0]}: "
            "it is damaged, and this match cannot be resumed from it"
        )

    def _on_act(self, stage: Stage, env: Envelope, seat: int, action: Plain) -> None:
        match = self.match
        if seat in stage.acts or seat in stage.commits or seat in stage.declined:
            raise MessageError(f"p{seat} acted twice in stage {stage.number}")
        if seat not in stage.waiting + stage.optional:
            raise MessageError(f"p{seat} has nothing to do in stage {stage.number}")
        if match.sealed or match.spec.hidden(action):
            raise MessageError(f"p{seat} must commit to this action, not show it")
        timeout = isinstance(action, dict) and action.get("type") == "timeout"
        if match.spec.owner_resolves_timeout and timeout:
            # Its own peer plays what the rules' timeout plays, committed like any card: a bare
            # timeout would lay a card nobody committed to (and break the flip that meets it).
            raise MessageError(f"p{seat}'s timeout is played by its own peer as the card the rules choose")
        vetted, self.vetted = self.vetted, None
        if env.author == self.courier.me and vetted == (stage.number, seat, action):
            stage.acts[seat] = action  # (ours, parsed and checked as it was made: not again)
            return
        try:
            parsed = match.game.parse_action(action)
            check_optional(match, stage, seat, parsed)
            after = check_legal(match, seat, parsed)
        except IllegalActionError as exc:
            raise CheatError(
                env.author, f"an illegal action for p{seat}: {exc}", {"message": env.hash.hex()}
            ) from None
        stage.acts[seat] = parsed.to_plain()
        self.checked = None if after is None else (match.state, seat, parsed, after)

    def _lapse_windows(self, stage: Stage) -> None:
        """An optional action (a challenge) is allowed only before the next action: once every
        seat the stage waits on has acted, a window of ours still open lapses, declined at once
        (no one has to type "pass", and it costs no time)."""
        if self._stage is not stage or not stage.optional or self.courier.stopped:
            return
        if not all(s in stage.acts or s in stage.commits for s in stage.waiting):
            return
        for seat in stage.optional:
            if seat in self.match.mine and seat not in stage.acts and seat not in stage.declined:
                self.courier.send(Decline(stage.number, seat, 0))

    # -- hidden cards: a flip is opened by the pile's owner, from the commitment that laid it ----

    def _flip_of(self, stage: Stage) -> int | None:
        for act in stage.acts.values():
            pile = self.match.spec.flipped_pile(act)
            if pile is not None:
                return pile
        return None

    def _holds_pile(self, stage: Stage) -> bool:
        pile = self._flip_of(stage)
        return pile is not None and self.courier.me is not None and self.match.owner[pile] == self.courier.me

    def _top_card(self, pile: int) -> Ref:
        return self.match.cards.top(self.match.spec, self.match.state, pile)

    def _open_card(self, stage: Stage) -> None:
        pile = self._flip_of(stage)
        assert pile is not None
        ref = self._top_card(pile)
        action, nonce = self.courier.secrets[ref]
        self.courier.send(Reveal(ref[0], ref[1], action, nonce))

    def _on_late_reveal(self, env: Envelope, msg: Reveal) -> None:
        stage, match = self._stage, self.match
        if env.author == self.courier.me and (stage is None or self._flip_of(stage) is None):
            return  # our own choices, withheld from a peer in the dark until now: a record only
        number, seat, action = msg.stage, msg.seat, msg.action
        if seat >= len(match.owner) or match.owner[seat] != env.author:
            raise MessageError(f"peer {env.author} does not hold seat p{seat}")
        committed = self.commit_log.get((number, seat))
        if committed is None:
            raise MessageError(f"no commitment of p{seat} at stage {number} to open")
        self.made.check(self.courier.match_id, env, (number, seat), (action, msg.nonce), committed)
        check_card(match.cards, match.spec, env, (number, seat), action)
        if self.sight.unseen.open(number, seat, action):
            self._catch_up()
            return
        pile = None if stage is None or self.sight.behind else self._flip_of(stage)
        if stage is None or pile is None or stage.opened is not None:
            raise MessageError(f"nothing waits for p{seat}'s stage-{number} opening")
        if self._top_card(pile) != (number, seat):
            raise CheatError(
                env.author,
                "opened another card than the one on top of the flipped pile",
                {"message": env.hash.hex()},
            )
        stage.opened = action
        match.cards.open((number, seat), action)
        self.progress()

    # -- completing a stage ---------------------------------------------------------------------

    def progress(self) -> None:
        """Apply the stage if everything it needs is in; send reveals once all commitments are."""
        stage = self._stage
        if stage is None or self.courier.stopped:
            return
        if self.sight.behind:
            # In the dark: the state is unknown until the reveals come, but our own sealed choices
            # are still revealed once every commitment is in.
            if self.match.sealed and self.closed(stage):
                self._reveal_mine(stage)
            return
        if stage.optional:  # an optional action's window (a challenge, say)
            (window,) = stage.optional
            if window in stage.acts:
                self._apply(stage, [(window, stage.acts[window])])
                return
            if window not in stage.declined:
                return
        if not all(s in stage.acts or s in stage.commits for s in stage.waiting):
            return
        actions = self._sealed_actions(stage) if self.match.sealed else self._open_actions(stage)
        if actions is not None:
            self._apply(stage, actions)

    def _sealed_actions(self, stage: Stage) -> list[tuple[int, Plain]] | None:
        """The stage's opened choices, once all are (ours are opened here once all stand)."""
        if not self.closed(stage):
            return None
        self._reveal_mine(stage)
        if self.courier.stopped or self._stage is not stage:
            return None  # (a reveal of ours just above completed the stage: applied, or a fault)
        if not all(s in stage.reveals for s in stage.waiting):
            return None
        return [(s, stage.reveals[s]) for s in sorted(stage.waiting)]

    def _open_actions(self, stage: Stage) -> list[tuple[int, Plain]] | None:
        """The stage's actions in a game of open choices (a flip: once its card is opened)."""
        pile = self._flip_of(stage)
        if pile is None:
            return [
                (s, stage.acts[s] if s in stage.acts else self._hidden_or_mine(stage, s))
                for s in sorted(stage.waiting)
            ]
        if stage.opened is None:
            return None
        (seat,) = stage.acts
        piles = self.match.spec.piles
        assert piles is not None  # (_flip_of found a flip: the game has piles)
        return [(seat, piles.flip_with(pile, stage.opened))]

    def _reveal_mine(self, stage: Stage) -> None:
        """Open our sealed choices of ``stage`` (withheld from a peer in the dark instead)."""
        for seat in stage.waiting:
            if self.match.owner[seat] != self.courier.me or seat in stage.reveals:
                continue
            action, nonce = self.courier.secrets[(stage.number, seat)]
            body = Reveal(stage.number, seat, action, nonce)
            dark = self.sight.dark_others()
            if dark:
                # Withhold the choice from the peers in the dark until they see again.
                self.sight.withhold(stage.number, body, dark)
                stage.reveals[seat] = action
            else:
                self.courier.send(body)

    def _hidden_or_mine(self, stage: Stage, seat: int) -> Plain:
        if self.match.owner[seat] == self.courier.me:
            return self.courier.secrets[(stage.number, seat)][0]
        cards = self.match.spec.cards
        assert cards is not None  # (another peer's choice is unknown here only if it is hidden)
        return cards.placeholder(self.match.state, seat)

    def _apply(self, stage: Stage, actions: list[tuple[int, Plain]]) -> None:
        """Apply a complete stage, check and send the state hash, and open the next stage."""
        dark = self.sight.dark_others()
        if dark and self.courier.me is not None:  # a peer in the dark needs a claim for every such stage
            self.sight.unseen.during[stage.number] = dark
        try:
            events = self._apply_actions(stage, actions)
        except CheatError as exc:
            # Whichever message completed the stage: maybe one of ours, when the peer at fault
            # revealed its choice early, before ours. The match stops on the fault here; it is
            # not a refusal of our decision (the driver would take it for one and ask again).
            self.courier.convict(exc)
            return
        self.clockbook.charge(stage)
        self.courier.events.append(Applied(stage.number, tuple(actions), tuple(events), self.match.state))
        self._after_stage(stage)
        if not self.courier.stopped:
            self.open_stage(stage.number + 1)

    def _apply_actions(self, stage: Stage, actions: list[tuple[int, Plain]]) -> list[Plain]:
        match = self.match
        spec, game, state = match.spec, match.game, match.state
        events: list[Plain] = []
        for seat, action in actions:
            before = game.events(state)
            parsed: Any = None
            try:
                parsed = game.parse_action(action)
                state = self._applied(state, seat, parsed)
            except IllegalActionError as exc:
                # In the dark now, or in the turn just played: a choice asked for right after such
                # a turn (the duel's Paralysis asking which hand) was made from the claims, unseeing.
                if not (self.sight.dark_in(state, seat) or self.sight.dark_in(state, seat, turns_ago=1)):
                    raise CheatError(
                        match.owner[seat], f"an illegal action for p{seat}: {exc}", {"stage": stage.number}
                    ) from None
                # A player in the dark chose without seeing the field: its choice is made legal,
                # the game's way, identically on every machine.
                state = game.apply(state, seat, spec.made_legal(state, seat, parsed))
            if game.events(state) is not before:  # a pending submission says nothing new
                events += list(game.events(state))
            match.log.append((stage.number, seat, action))
            match.cards.played(spec, (stage.number, seat), action)
        if spec.new_round(match.state, state):
            self.clockbook.new_round(stage.number)
        match.state = state
        match.cards.settle(spec, state)
        return events

    def _applied(self, state: Any, seat: int, parsed: Any) -> Any:
        """The state after ``seat``'s ``parsed`` action: the one found when it was checked, if
        it was checked in this very state (:attr:`checked`), else the engine's."""
        checked, self.checked = self.checked, None
        if checked is not None and checked[0] is state and checked[1] == seat and checked[2] == parsed:
            return checked[3]
        return self.match.game.apply(state, seat, parsed)

    def _after_stage(self, stage: Stage) -> None:
        courier, ending = self.courier, self.ending
        h = state_hash(self.match.game, self.match.state)
        ending.my_hashes[stage.number] = h
        if courier.me is not None:
            body = Hash(stage.number, h)
            dark = self.sight.unseen.during.get(stage.number)
            if dark:
                self.sight.send_claims(stage)
                # The hash covers the withheld choices: it waits with them until the peer in the
                # dark sees again (it could otherwise test its guesses against it).
                self.sight.withhold(stage.number, body, dark)
                self.sight.release_withheld()
            else:
                # A hash sealed here is compared with every hash held as it is taken (on_hash);
                # one a restore takes from the transcript may name another stage (a damaged
                # disk), so this stage's hashes are compared below all the same.
                restoring = bool(courier.replay)
                courier.send(body)
                self.sight.release_withheld()
                if not restoring:
                    return
        ending.compare_hashes(stage.number)

    # -- sight: playing on from view claims in the dark, and catching up -----------------------

    def _on_claim(self, env: Envelope, stage: Stage, seat: int, view: Mapping[str, Plain]) -> None:
        self.sight.take_claim(env, stage, seat, view, closed=self.closed(stage))
        nxt = view.get("next")
        waiting = tuple(int(s) for s in nxt) if isinstance(nxt, list) else ()
        self.stage = Stage(stage.number + 1, waiting, ())
        self._start_clocks(self.stage)
        mine = tuple(s for s in waiting if s in self.match.mine)
        if mine and not view.get("outcome"):
            self.courier.events.append(YourTurn(self.stage.number, mine))
        self._replay_backlog()

    def _catch_up(self) -> None:
        """Replay the stages seen only through claims once every reveal is in; check each claim."""
        unseen = self.sight.unseen
        if not unseen.all_open():
            return
        behind = unseen.catch_up()
        self.courier.enter(Phase.PLAYING)
        for stage in behind:
            actions = [(s, stage.reveals[s]) for s in sorted(stage.waiting)]
            events = self._apply_actions(stage, actions)
            self.clockbook.charge(stage)
            self.courier.events.append(Applied(stage.number, tuple(actions), tuple(events), self.match.state))
            self.sight.check_claim(stage)
            self._after_stage(stage)
            if self.courier.stopped:
                return
        # Pick up the stage in progress with the real state, keeping what was already received.
        current = self._stage
        assert current is not None
        self.open_stage(current.number, carry=current)


class Choices:
    """This peer's side of the stages: what its seats may decide now, and sending it."""

    def __init__(self, play: Play) -> None:
        self.play = play

    def awaiting(self) -> tuple[int, ...]:
        """The local seats that may still act in the current stage."""
        stage = self.play.stage
        if stage is None or not self.play.open:
            return ()
        mine, acts, commits, declined = self.play.match.mine, stage.acts, stage.commits, stage.declined
        return tuple(
            s
            for s in stage.waiting + stage.optional
            if s in mine and s not in acts and s not in commits and s not in declined
        )

    def unsettled(self) -> tuple[int, ...]:
        """The local seats whose choice may still change (sealed, without "fast": committed but
        not final); the driver finalizes them when their minute is up."""
        stage = self.play.stage
        if stage is None or not self.play.open or self.play.match.fast:
            return ()
        mine = self.play.match.mine
        return tuple(s for s in stage.waiting if s in mine and s in stage.commits and s not in stage.finals)

    def committed(self, seat: int) -> Plain | None:
        """What this peer committed ``seat`` to at the current stage (its latest choice, not yet
        opened to the others), or None; also right after a resume, from the secrets on disk. A
        copy: the action kept is opened later as it is, unchecked (``cards.MadeHere``), so no
        caller may change it in place."""
        stage = self.play.stage
        if stage is None or seat not in self.play.match.mine or seat not in stage.commits:
            return None
        secret = self.play.courier.secrets.get((stage.number, seat))
        return None if secret is None else copy.deepcopy(secret[0])

    def submit(self, seat: int, action: Mapping[str, Plain], *, ms: int = 0) -> None:
        """A local decision for ``seat`` at the current stage (see ``Session.submit``)."""
        stage, match = self.play.current(), self.play.match
        if seat not in match.mine:
            raise LocalMisuseError(f"this peer does not hold seat p{seat}")
        if seat not in stage.waiting + stage.optional:
            raise LocalMisuseError(f"p{seat} has nothing to do now")
        changing = seat in stage.commits and not match.fast and seat not in stage.finals
        if (seat in stage.acts or seat in stage.commits or seat in stage.declined) and not changing:
            raise LocalMisuseError(f"p{seat} has already acted this stage")
        left = ClockBook.left(stage, seat)
        if not 0 <= ms <= left:
            raise LocalMisuseError(f"p{seat}'s clock has only {left} ms: time out instead")
        parsed = match.game.parse_action(action)
        if parsed.to_plain() == {"type": "timeout"}:
            # Where the seat's own peer must resolve its timeout (a card it lays from its hidden
            # hand, say), it does, and what it sends is committed like any other choice.
            parsed = match.spec.own_timeout(match.state, seat) or parsed
        check_optional(match, stage, seat, parsed)
        # (A seat in the dark has no field to check its choice against.)
        checked = not self.play.sight.behind
        after = check_legal(match, seat, parsed) if checked else None
        if after is not None:  # (set before it is sent: our message may complete the stage)
            self.play.checked = (match.state, seat, parsed, after)
        plain = parsed.to_plain()
        if match.sealed or match.spec.hidden(plain):
            self._commit(stage.number, seat, plain, ms)
        else:
            self.play.vetted = (stage.number, seat, plain) if checked else None
            self.play.courier.send(Act(stage.number, seat, plain, ms))

    def _commit(self, number: int, seat: int, plain: Plain, ms: int) -> None:
        """Send a commitment to ``plain``, its secret kept first."""
        courier = self.play.courier
        nonce = courier.randomness(NONCE_LEN)
        courier.keep(["secret", number, seat, plain, nonce])
        courier.secrets[(number, seat)] = (plain, nonce)
        committed = commitment(courier.match_id, number, seat, nonce, plain)
        self.play.made.note((number, seat), plain, nonce, committed)
        courier.send(Commit(number, seat, committed, ms))

    def early(self) -> tuple[int, ...]:
        """The local seats that may already choose for the *next* stage, as commitments, while
        this one is still open (the game's ``spec.ahead``), and have not yet."""
        stage = self.play.stage
        if stage is None or not self.play.open or self.play.sight.behind:
            return ()
        early = self.play.match.spec.ahead(self.play.match.state)
        if early is None:
            return ()
        number, mine, secrets = stage.number + 1, self.play.match.mine, self.play.courier.secrets
        return tuple(
            s for s in self.play.match.game.waiting_on(early) if s in mine and (number, s) not in secrets
        )

    def early_state(self) -> Any:
        """The state the seats of :meth:`early` choose from (None: nobody may choose early)."""
        if self.play.stage is None or self.play.sight.behind:
            return None
        return self.play.match.spec.ahead(self.play.match.state)

    def submit_early(self, seat: int, action: Mapping[str, Plain]) -> None:
        """A local decision for ``seat`` at the next stage (see ``Session.submit``, ``early``)."""
        if seat not in self.early():
            raise LocalMisuseError(f"p{seat} cannot choose early for the next stage now")
        stage = self.play.current()
        early = self.early_state()
        parsed = self.play.match.game.parse_action(action)
        plain = parsed.to_plain()
        if not (self.play.match.sealed or self.play.match.spec.hidden(plain)):
            raise LocalMisuseError("only a choice that travels as a commitment may be made early")
        check_legal(self.play.match, seat, parsed, early)
        self._commit(stage.number + 1, seat, plain, 0)

    def decline(self, seat: int) -> None:
        """Let an optional action pass (say, no challenge): off the clock, it declares no time."""
        stage = self.play.current()
        if seat not in stage.optional or seat not in self.play.match.mine:
            raise LocalMisuseError(f"p{seat} has no optional action to let pass")
        self.play.courier.send(Decline(stage.number, seat, 0))

    def finalize(self, seat: int) -> None:
        """A sealed game without "fast": ``seat``'s last commitment stands."""
        stage = self.play.current()
        if seat not in self.play.match.mine or seat not in stage.commits or seat in stage.finals:
            raise LocalMisuseError(f"p{seat} has no commitment to let stand")
        self.play.courier.send(FinalChoice(stage.number, seat))

    def time_out(self, seat: int) -> None:
        """``seat``'s clock ran out on this (its own) peer: send what the rules make of it."""
        stage = self.play.current()
        left = ClockBook.left(stage, seat)
        if seat in stage.waiting:
            if seat not in stage.commits and seat not in stage.acts:
                self.submit(seat, {"type": "timeout"}, ms=left)
            if (
                self.play.stage is stage
                and self.play.match.sealed
                and not self.play.match.fast
                and seat not in stage.finals
            ):
                self.finalize(seat)
        elif seat in stage.optional and seat not in stage.declined and seat not in stage.acts:
            self.decline(seat)
