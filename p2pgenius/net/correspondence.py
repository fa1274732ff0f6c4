"""Correspondence play: a match moved by letters through Nostr relays, one visit at a time.

Nobody needs to be online with anybody: each side's program runs a *visit* (protocol/SPEC.md,
section 4f) and ends it once it owes nothing it can pay now. A visit reads every letter of the
match's mailbox from every relay (:mod:`p2pgenius.net.mail`), takes the messages it does not hold
yet in an order the chains allow (``SignedLog.catch_up``), lets the match's I/O-free machine
(:class:`~p2pgenius.protocol.machine.MatchMachine`) do what they and the time since call for
(on the wall clock: a deadline of a day is a day), asks its local seats for what they owe (a
bot, here), appends everything to the transcript and its secrets first, and then posts every
message of its own that no relay has taken yet. What it posts is counted only once a relay said
``OK``; a crash anywhere loses nothing (the transcript is the one source, and a message written
but not posted goes with the next visit).

Before the match has its terms the letters carry the lobby: the host's table (``["lobby",
map]``), and each joiner's ``["hello", {"name", "token"}]`` and signed ``["ready", map]`` (the
ready of section 4a: its coin share committed, bound to the table). The host seats the first
joiners whose hello holds the invite's token and whose ready verifies, and starts the match.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import hmac
import math
import secrets as random_source
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.durations import words
from p2pgenius.errors import EncodingError, LocalMisuseError, P2PGeniusError
from p2pgenius.games.catalog import find
from p2pgenius.games.registry import get_spec
from p2pgenius.net.files import Files
from p2pgenius.net.invite import MailInvite
from p2pgenius.net.keystore import check_name
from p2pgenius.net.mail import WAIT_S, Collected, collect, post, sent_words
from p2pgenius.net.mail_state import LOBBY, OVER, PLAYING, MailState, Next
from p2pgenius.net.match_loop import Decide, Report
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.bodies import SETUP, Disclosure, End
from p2pgenius.protocol.clocks import MAX_ALLOWANCE_S, Clocks, Due, patience
from p2pgenius.protocol.events import SAID
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.machine import MatchMachine, Step
from p2pgenius.protocol.mailbox import (
    Hello,
    Letter,
    Mailbox,
    Signed,
    hello,
    in_letters,
    item,
    seat_proof,
    write,
)
from p2pgenius.protocol.messages import printable
from p2pgenius.protocol.records import header
from p2pgenius.protocol.session import Event, Rejected, Session, TimeoutClaimed
from p2pgenius.protocol.session.setup import agreement, claims_problem, make_ready, ready_problem
from p2pgenius.protocol.transcript import records as read_records
from p2pgenius.threads import off_loop

__all__ = [
    "POLL_S",
    "Carrier",
    "Decide",
    "MailMachine",
    "Offer",
    "PostponedError",
    "RelaysDownError",
    "Sent",
    "Visit",
    "Watch",
    "joined",
    "match_messages",
    "new_table",
    "peek",
]

POLL_S: Final = 10.0
"""With ``--stay``: how often the relays are read again."""
MAX_TICKS: Final = 1000
"""The most deadlines one reading acts on (each changes the session: a bound, not a count)."""


class RelaysDownError(P2PGeniusError):
    """No relay of the match could be read, or none took this side's letters: nothing is lost
    (what was written waits in the files for the next visit), and the command fails (exit 1)."""


class PostponedError(LocalMisuseError):
    """A local seat's decision was put off (its person will decide on a later visit): the visit
    sends what it has and ends."""


@dataclass
class Sent:
    """Where one visit's letters went: the relays that took every one of them, of how many."""

    kept_by: list[str]
    relays: int
    failed: dict[str, str] = field(default_factory=dict)

    def words(self) -> str:
        return sent_words(len(self.kept_by), self.relays, self.failed)


@dataclass
class Carrier:
    """How this side reaches the match's mailbox: who writes, the mailbox, the relays."""

    identity: Identity
    box: Mailbox
    relays: list[str]
    wait_s: float = WAIT_S

    async def read(self) -> Collected:
        """Every letter the relays keep (each relay at once; any one suffices)."""
        return await collect(self.relays, self.box, wait_s=self.wait_s)

    async def send(self, messages: Sequence[bytes]) -> Sent:
        """``messages``, in order, in as few letters as fit, each posted to every relay; a relay
        counts as having taken them once it took every letter."""
        kept: set[str] | None = None
        failed: dict[str, str] = {}
        for part in in_letters(messages):
            event = write(self.box, self.identity, part, int(time.time()), random_source.token_bytes(96))
            posted = await post(self.relays, event, wait_s=self.wait_s)
            kept = set(posted.kept_by) if kept is None else kept & set(posted.kept_by)
            failed.update(posted.failed)
        took = sorted(kept or ())
        return Sent(took, len(set(self.relays)), {u: w for u, w in failed.items() if u not in took})


def match_messages(letters: Sequence[Letter], keys: Sequence[bytes]) -> list[bytes]:
    """Every match message of ``letters`` whose letter its own author wrote (a letter carries
    its writer's messages only: one of another author's is left out, as a relay's replay would
    be)."""
    out: list[bytes] = []
    for letter in letters:
        for message in letter.messages:
            read = item(message)
            if isinstance(read, Signed) and read.author < len(keys) and keys[read.author] == letter.author:
                out.append(read.raw)
    return out


def refusals(records: Iterable[bytes | list[Any]]) -> dict[bytes, str]:
    """The SHA-256 of every message ``records`` (a transcript's, encoded or decoded) refused, with
    why: what a reading leaves out once it cannot be placed (``SignedLog.catch_up``), so that a
    message a relay keeps serving, which no chain takes, is recorded once and not at every
    visit."""
    out: dict[bytes, str] = {}
    for record in records:
        with contextlib.suppress(EncodingError):
            value = decode(record) if isinstance(record, bytes) else record
            shaped = isinstance(value, list) and len(value) == 3 and isinstance(value[1], bytes)
            if shaped and value[0] == "rejected":
                out[hashlib.sha256(value[1]).digest()] = str(value[2])
    return out


class MailMachine(MatchMachine):
    """The match machine as a visit drives it: another seat's declared time is not judged
    against when its message was read (a letter is read at the reader's next visit, hours after
    it was written: that delay is the carrier's, never the writer's); and while a visit takes
    what it read (``reading``), a claim about our seats is answered only once all of it is in
    (:meth:`answer_claims`): a forfeit that came behind the claim is read before any answer."""

    reading = False
    _claims: list[Event] | None = None

    def _on_clock_event(self, event: Event, at: float | None = None) -> None:
        if self.reading and isinstance(event, TimeoutClaimed):
            self._claims = [*(self._claims or []), event]
            return
        self.clocks.answer_claim(self.session, event, self._step.told.append)

    def answer_claims(self) -> Step:
        """Answer the claims read meanwhile (those the match still has to answer)."""
        self._step = Step()
        claims, self._claims = self._claims or [], None
        for event in claims:
            if not self.over:
                self.clocks.answer_claim(self.session, event, self._step.told.append)
        return self._flush()


def keep_clocks(clocks: Clocks) -> dict[str, Any]:
    """What a visit keeps of its clocks for the next (wall-clock times: a deadline of a day spans
    visits): when each debt fell due, the claims made and seen, the stage they are about."""
    return {
        "stage": clocks.stage_number,
        "stage_at": clocks.stage_at,
        "due": [[k, s, st, at, away] for (k, s, st), (at, away) in sorted(clocks.due.items())],
        "claimed": sorted(clocks.claimed.items()),
        "disputed": sorted(clocks.disputed.items()),
        "walk_claimed": sorted(clocks.walk_claimed.items()),
        "forfeit_seen": [[st, s, at] for (st, s), at in sorted(clocks.forfeit_seen.items())],
        "overtime": [[s, r, t] for (s, r), t in sorted(clocks.overtime.items())],
    }


def restore_clocks(clocks: Clocks, kept: dict[str, Any]) -> None:
    """Take back what :func:`keep_clocks` kept (what is about another stage is left: it was
    settled; a damaged note is ignored, and the clocks run from this visit)."""
    with contextlib.suppress(TypeError, ValueError, KeyError):
        for kind, seat, stage, at, away in kept.get("due", []):
            clocks.due[(str(kind), int(seat), int(stage))] = (float(at), float(away))
        for seat, at in kept.get("walk_claimed", []):
            clocks.walk_claimed[int(seat)] = float(at)
        for stage, seat, at in kept.get("forfeit_seen", []):
            clocks.forfeit_seen[(int(stage), int(seat))] = float(at)
        for seat, key, seconds in kept.get("overtime", []):
            clocks.overtime[(int(seat), int(key))] = float(seconds)
        if kept.get("stage") == clocks.stage_number:
            # When the stage began here: the other seats' clocks run from it, across visits (a
            # seat that never comes back is claimed a turn after it began, not after each visit).
            began = min(float(kept.get("stage_at", clocks.stage_at)), clocks.stage_at)
            clocks.stage_at = clocks.opened[clocks.stage_number] = began
            clocks.claimed.update({int(s): float(at) for s, at in kept.get("claimed", [])})
            clocks.disputed.update({int(s): float(at) for s, at in kept.get("disputed", [])})


def when_words(at: float, now: float) -> str:
    """A deadline as a person reads it: "Tue 18:00" within a week, else "12 Jan 18:00"."""
    moment = datetime.datetime.fromtimestamp(at)
    if 0 <= at - now < 6 * 86400:
        return moment.strftime("%a %H:%M")
    return moment.strftime("%d %b %H:%M").lstrip("0")


@dataclass
class Visit:
    """One side of a correspondence match, for one run of the program: its files and state, how
    it reaches the mailbox, how its seats decide and what it tells its person."""

    carrier: Carrier
    files: Files
    state: MailState
    name: str
    decide: Decide
    report: Report
    say: Callable[[str], None]
    grace_s: float
    now: Callable[[], float] = time.time
    machine: MailMachine | None = None
    sent: Sent | None = None
    postponed: bool = False  # a decision was put off on this visit
    refused: dict[bytes, str] = field(default_factory=dict)  # the hashes of the messages refused, why
    away_grace_s: float | None = None
    """The grace period this side kept while it was away (None: ``grace_s``): a forfeit read on
    its return is judged by the smaller of it and this visit's, never by a larger one given on
    the return (a newcomer's try: ``--grace 30m`` on the return refused a forfeit the kept one
    would have conceded)."""

    @property
    def identity(self) -> Identity:
        return self.carrier.identity

    @property
    def invite(self) -> MailInvite:
        from p2pgenius.net.invite import parse  # noqa: PLC0415  (the state's invite, read once here)

        read = parse(self.state.invite)
        assert isinstance(read, MailInvite)
        return read

    # -- the visit -------------------------------------------------------------------------------

    async def run(self, *, stay: bool = False, poll_s: float = POLL_S) -> None:
        """Read, act, send, until this side owes nothing it can pay now (``stay``: until the
        match is over, reading again every ``poll_s``, or a decision is put off)."""
        waited = False
        while True:
            collected = await self.carrier.read()
            if not collected.answered:
                why = "; ".join(f"{url}: {w}" for url, w in sorted(collected.failed.items()))
                raise RelaysDownError(f"no relay of the match answered ({why}); nothing was changed")
            for url, _event_id, why in collected.refused[:3]:
                self.say(f"{url} served an event that is no letter of this match ({why}): ignored")
            if self.state.phase == LOBBY:
                if self.state.role == "host":
                    await self._host_lobby(collected.letters)
                else:
                    await self._join_lobby(collected.letters)
            if self.state.phase == PLAYING:
                await self._play(collected.letters)
            self.state.visited = self.now()
            self.state.save(self.files.transcript)
            if self.state.phase == OVER or not stay or self.postponed:
                return  # (a decision put off, `later`: for the next visit, even while staying)
            if not waited:
                waited = True
                self.say(
                    f"staying: reading the relays every {poll_s:g} s until the match is over "
                    "(Ctrl-C stops; nothing is lost)"
                )
            await trio.sleep(poll_s)

    async def _send(self, messages: Sequence[bytes]) -> None:
        """Post ``messages``; a visit that could leave nothing on any relay fails (nothing is
        lost: what was written waits in the transcript for the next visit)."""
        if not messages:
            return
        sent = self.sent = await self.carrier.send(messages)
        self.state.sent = [len(sent.kept_by), sent.relays]
        if not sent.kept_by:
            raise RelaysDownError(f"no relay took this side's letters ({sent.words()}); run again to retry")

    # -- the lobby ------------------------------------------------------------------------------

    async def _host_lobby(self, letters: Sequence[Letter]) -> None:
        """Seat the first joiners whose hello and ready hold, once there are enough; then start."""
        table: dict[str, Any] = decode(bytes.fromhex(self.state.lobby["table"]))
        if not self.state.lobby.get("posted"):
            await self._send([wire.lobby(table)])
            self.state.lobby["posted"] = True
        needed = int(table["needed"])
        spec = get_spec(table["game"])
        groups = spec.seat_groups(needed + 1)
        agreed = _agreed(table["keys"][0], table)
        token = self.invite.token
        seated: list[tuple[bytes, str, dict[str, Any]]] = []
        said: dict[bytes, Hello] = {}
        for letter in letters:
            if letter.author == self.identity.public or any(k == letter.author for k, _, _ in seated):
                continue
            for message in letter.messages:
                value = item(message)
                if isinstance(value, Hello):
                    said[letter.author] = value
                elif isinstance(value, wire.Ready) and len(seated) < needed:
                    why = _ready_problem(
                        letter.author, said.get(letter.author), value, token, (agreed, table["salt"])
                    )
                    claims = [table["claims"][0], *(r["seats"] for _, _, r in seated), value.seats]
                    why = why or claims_problem(groups, claims)
                    name = said[letter.author].name if letter.author in said else ""  # (none: refused above)
                    if not why and name in [table["names"][0], *(n for _, n, _ in seated)]:
                        why = f"the name {name!r} is taken at this table"
                    if why:
                        self.say(f"a ready was refused: {why}")
                        continue
                    seated.append((letter.author, name, value.fields))
        if len(seated) < needed:
            left = needed - len(seated)
            self.say(f"waiting for {left} more player{'s' if left > 1 else ''} to join with the invite")
            self.state.next = Next(words=f"waiting for {left} more player{'s' if left > 1 else ''}")
            return
        keys = [self.identity.public, *(k for k, _, _ in seated)]
        names = [table["names"][0], *(n for _, n, _ in seated)]
        session = Session(keys=keys, me=0, identity=self.identity, names=names)
        self._start_files(session, "host", {})
        session.setup.propose(
            table["game"],
            options=table["options"],
            setup=table["setup"],
            claims=[table["claims"][0], *(sorted(r["seats"]) for _, _, r in seated)],
            salt=table["salt"],
            readies=[None, *(r for _, _, r in seated)],
        )
        self.say(f"the table is full ({', '.join(names)}): the match starts")
        self._begin(session)

    async def _join_lobby(self, letters: Sequence[Letter]) -> None:
        """Say we are ready to the host's table (once); then wait for the terms."""
        host = self.invite.key
        lobby = self.state.lobby
        if "coin" not in lobby:
            table = _latest_table(letters, host)
            if table is None:
                self.say("the host's table is not on the relays yet: try again later")
                self.state.next = Next(words="waiting for the host's table")
                return
            find(str(table.get("game")))  # (a game this program has, or a one-line error)
            claim = sorted(lobby.get("claim", []))
            nonce = random_source.token_bytes(32)
            agreed = _agreed(host, table)
            ready = make_ready(self.identity, nonce, salt=table["salt"], agreed=agreed, claim=claim)
            expected = {"game": table["game"], "options": table["options"], "setup": table["setup"]}
            expected |= {"salt": table["salt"], "claim": claim}
            lobby["coin"], lobby["expected"] = nonce.hex(), encode(expected).hex()
            said = hello(self.name, self.invite.token, self.identity.public)
            lobby["said"] = [said.hex(), wire.ready(ready).hex()]
            limits = limits_words(str(table["game"]), table["options"])
            lobby["at"] = f"ready at {table['names'][0]}'s table for {table['game']}{limits}"
            self.state.game = str(table["game"])
            self.state.save(self.files.transcript)  # (the coin share kept before it is committed)
        if "said" in lobby and not lobby.get("posted"):
            # (Until a relay took them: a visit killed before, or that no relay took them from,
            # posts the same hello and ready again, its coin share committed once.)
            await self._send([bytes.fromhex(message) for message in lobby["said"]])
            lobby["posted"] = True
            self.say(str(lobby.get("at", "ready at the host's table")))
        terms = _terms(letters, host)
        if terms is None:
            self.state.next = Next(words="waiting for the host to start the match")
            return
        keys, names = terms.get("peers"), terms.get("names")
        if not (isinstance(keys, list) and isinstance(names, list)) or self.identity.public not in keys:
            self.state.phase, self.state.result = OVER, "the host started the match without this player"
            self.say(self.state.result)
            return
        expected = decode(bytes.fromhex(lobby["expected"]))
        me = keys.index(self.identity.public)
        nonce = bytes.fromhex(lobby["coin"])
        session = Session(
            keys=keys, me=me, identity=self.identity, names=names, expected=expected, coin=nonce
        )
        self._start_files(session, "join", {"expected": expected})
        self.files.append(self.files.secrets, [encode(["coin", nonce])])
        self._begin(session)

    def _start_files(self, session: Session, role: str, kept: dict[str, Any]) -> None:
        meta: dict[str, Any] = {"role": role, "address": "", "name": self.name, "mail": True, **kept}
        meta["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        self.files.start(header(session.keys, session.me, **meta))

    def _begin(self, session: Session) -> None:
        self.state.phase = PLAYING
        self.machine = self._machine(session)

    def _machine(self, session: Session) -> MailMachine:
        session.defer_verdict = True
        # By mail the other players are never here (section 6, "What is owed"): a debt of theirs
        # on the grace period waits as a debt of a peer cut off does, the grace period and the
        # match's longest time limit (a reveal owed once we have moved is paid at their next
        # visit, a turn later at most).
        clocks = Clocks(now=self.now, absent=True)
        return MailMachine(session, clocks, self.grace_s, decide_early=True, settle_at_once=True)

    # -- the match ------------------------------------------------------------------------------

    def restore(self) -> None:
        """The match as the files hold it (a visit after the first)."""
        records = list(read_records(self.files.transcript.read_bytes()))
        secrets = list(read_records(self.files.secrets.read_bytes(), headed=False))
        session = Session.restore(identity=self.identity, transcript=records, secrets=secrets)
        self.refused = refusals(records)
        self.machine = self._machine(session)

    async def _play(self, letters: Sequence[Letter]) -> None:
        if self.machine is None:
            self.restore()
        machine = self.machine
        assert machine is not None
        session = machine.session
        if machine.clocks.stage_number == -2:  # (this visit's first reading)
            await self._carry_out(machine.start())
            noted = self.files.stage_began()
            if noted is not None:
                machine.resumed = (noted[0], max(self.now() - noted[1], 0.0))
            self._follow()
            restore_clocks(machine.clocks, self.state.lobby.get("clocks", {}))
        fresh = session.signed_log.catch_up(match_messages(letters, session.keys), self.refused)
        if self._conceded(fresh):
            return
        await self._take(fresh)
        try:
            await self._decide_all()
        except PostponedError:
            self.postponed = True
        mine = session.signed_log.missing_for(
            [self.state.posted if peer == session.me else 1 << 62 for peer in range(len(session.keys))]
        )
        if mine:
            # (Saved before anything leaves: a visit killed once its first messages are out must
            # find the match begun, never begin it again and sign other terms or coin.)
            self.state.save(self.files.transcript)
            await self._send(mine)
            self.state.posted += len(mine)
        self._note_next()

    async def _take(self, fresh: Sequence[bytes]) -> None:
        """What was read, taken in its order; the claims about our seats among it answered once
        all of it is in (a forfeit behind a claim is read before any answer)."""
        machine = self.machine
        assert machine is not None
        machine.reading = True
        try:
            for raw in fresh:
                await self._carry_out(machine.received(raw, self.now()))
        finally:
            machine.reading = False
        await self._carry_out(machine.answer_claims())

    def _follow(self) -> set[tuple[int, int]]:
        """The decisions the machine wants now (a stage new here is noted in the files)."""
        machine = self.machine
        assert machine is not None
        wanted, began = machine.follow()
        if began is not None:
            number, away = began
            self.files.note_stage(number, self.now() - away)
        return wanted

    def _conceded(self, fresh: Sequence[bytes]) -> bool:
        """A forfeit of one of our seats among what was read, which stands and which our own
        clocks say we earned (:meth:`_earned`): the match is over for this side, told and kept
        in the state, and nothing more is taken or signed (its author's copy proves the forfeit;
        ours stops before it, and the record judges the copies together). A forfeit our clocks
        do not back is taken as a live peer takes one: refused, said in words, and the match
        goes on."""
        machine = self.machine
        assert machine is not None
        session, now = machine.session, self.now()
        for index, raw in enumerate(fresh):
            forfeit = forfeit_of_ours(raw, session)
            if forfeit is not None:
                author, stage, seat, reason = forfeit
                by = session.names[author]  # (forfeit_of_ours: one of the match's peers)
                if self._earned(fresh[:index], raw, (stage, seat), now):
                    said = f"{by} forfeited you: {printable(reason)} (you were away past your time)"
                    self.say(said)
                    self.state.phase, self.state.result = (
                        OVER,
                        f"you forfeited ({by}'s signed forfeit: {printable(reason)})",
                    )
                    self.state.next = Next(words="the match is over")
                    return True
                self.say(
                    f"{by} says you forfeited ({printable(reason)}); it does not stand, or by your "
                    "clocks you could not have been late yet: refused, and the match goes on here "
                    f"(if {by} has stopped, the record will read it contested)"
                )
        return False

    def _earned(self, before: Sequence[bytes], raw: bytes, key: tuple[int, int], now: float) -> bool:
        """Whether the forfeit ``raw`` of our seat ``key`` (stage, seat; a peer, before the
        deal) stands on its face once ``before`` (what was read before it) is taken, and our own
        clocks say a side that kept the rules could have claimed and forfeited it by now.

        On its face, as an observer of the match judges it with the players' keys alone, on a
        copy of the match kept nowhere: its author's signed message of this match, the next of
        its chain, about a seat that owes at the current stage, after a claim of its author's
        that stands, and not answered by anything read (one forged, of another match, out of its
        chain, of a stage not reached, of a seat that owed nothing or paid: never conceded to).

        By our clocks: where we saw the stage open (at an earlier visit: its clock ran here
        from then), its clock and the lag allowance since, whatever the other side's grace
        period (each side's is its own, and may be short: a side back past its clock was late).
        Where it opened in what this visit reads, nothing says when (the other side's word
        alone), so only an absence our own grace period makes long: twice the grace period, and
        the seat's clock at that stage, since our last visit (a debt without a clock: twice the
        grace period and the match's longest time limit, the most it waits)."""
        machine = self.machine
        assert machine is not None
        session, (stage, seat) = machine.session, key
        copy = Session(keys=session.keys, me=None, names=session.names)
        for earlier in [*session.signed_log.taken_since(0), *before]:
            copy.receive(earlier)
        if any(isinstance(event, Rejected) for event in copy.receive(raw)):
            return False
        number = copy.stage.number if copy.stage is not None else -1
        if not copy.holds_forfeit(stage, seat) or stage not in (SETUP, number):
            return False  # (held for a stage not reached, or answered: it does not stand)
        view = session.clocks().get(seat) if stage != SETUP else None
        if view is not None and view.running and stage == machine.clocks.stage_number:
            return machine.clocks.own_elapsed() >= view.left_ms / 1000 + MAX_ALLOWANCE_S
        shown = copy.clocks().get(seat) if stage != SETUP else None
        grace_s = self.grace_s if self.away_grace_s is None else min(self.grace_s, self.away_grace_s)
        limit = shown.left_ms / 1000 if shown is not None and shown.running else patience(session, grace_s)
        return now - self.state.visited >= 2 * grace_s + limit + MAX_ALLOWANCE_S

    async def _decide_all(self) -> None:
        """Follow the match: deadlines that have passed, then every decision asked, until
        nothing more can be done now."""
        machine = self.machine
        assert machine is not None
        for _ in range(MAX_TICKS):
            wanted = self._follow()
            if machine.over:
                return
            if machine.wake_at() <= self.now():
                before = machine.session.signed_log.taken
                await self._carry_out(machine.tick())
                if machine.session.signed_log.taken != before or machine.wake_at() <= self.now():
                    continue
            if not wanted:
                return
            view, stage = machine.session.view, machine.session.stage
            for number, seat in sorted(wanted):
                asked = (view.next() or view) if stage is not None and number > stage.number else view
                action = await self.decide(asked, seat)
                await self._carry_out(machine.decided(number, seat, action))
        self.say("the match kept asking for more in one visit: stopped here, run again")

    async def _carry_out(self, step: Step) -> None:
        self.files.append(self.files.secrets, step.secrets)
        self.files.append(self.files.transcript, step.records)
        self.refused |= refusals(step.records)
        machine = self.machine
        assert machine is not None
        view = machine.session.view
        for said in step.told:
            if isinstance(said, SAID):
                self.say(said.text)
            else:
                self.report(view, said)
        for due in step.verdicts:
            await self._carry_out(machine.concluded(due, await off_loop(due.judge)))

    def _note_next(self) -> None:
        """What this visit leaves: whose move, until when, in the state and in one line."""
        machine = self.machine
        assert machine is not None
        session, state, now = machine.session, self.state, self.now()
        state.lobby["clocks"] = keep_clocks(machine.clocks)
        if machine.over:
            state.phase = OVER
            state.next = Next(words="the match is over")
            return
        debts = [d for d in session.debts() if d.seat >= 0]
        # (before the deal a debt's seat is a peer: its coin share)
        owners = sorted(
            {
                d.seat if d.stage == SETUP else session.owner[d.seat]
                for d in debts
                if d.stage == SETUP or d.seat < len(session.owner)
            }
        )
        who = [session.names[p] for p in owners]
        deadlines = [
            d for d in machine._deadlines() if d.what in (Due.CLAIM, Due.LATE, Due.EXPIRE, Due.WALKING)
        ]
        deadline = min((d.when for d in deadlines), default=None)
        mine = session.me in owners
        others = [session.names[p] for p in owners if p != session.me]
        # The game over, what is owed is its signed result (or first the hidden choices' disclosure).
        ending = bool(debts) and all(d.stage == -1 for d in debts)
        result, owed = OWED_AFTER_THE_END.get(debts[0].kind, ("", "move")) if ending else ("", "move")
        if not owners:
            words = "waiting for the other players"
        elif not others:
            words = f"{result}your {owed} next"
        elif mine:
            words = f"{result}your {owed} next (and {' and '.join(others)}'s)"
        elif owed == "move":
            words = f"{' and '.join(others)} to move next" if len(others) > 1 else f"{others[0]}'s move next"
        else:
            words = f"{result}{' and '.join(others)}'s {owed} next"
        if deadline is not None and math.isfinite(deadline):
            words += f" (deadline {when_words(deadline, now)})"
        state.next = Next(who=who, mine=mine, deadline=deadline, words=words)


OWED_AFTER_THE_END: Final = {
    End.kind: ("the result is in: ", "signature"),
    Disclosure.kind: ("the game has ended: ", "disclosure of the hidden choices"),
}
"""What a peer owes once the game has ended, as a visit's last line names it ("the result is in:
bob's signature next"), not a move (a newcomer's try: it said "bob's move next" after the result).
Before the disclosures the result is not in yet: what they open may still stop the match."""


def _agreed(host: bytes, table: dict[str, Any]) -> dict[str, Any]:
    """What a joiner's ready signs besides the salt, its claim and its coin, from the table."""
    return agreement(host, table["game"], table["options"], table["setup"], table["claims"][0])


def _ready_problem(
    key: bytes,
    said: Hello | None,
    ready: wire.Ready,
    token: bytes,
    table: tuple[dict[str, Any], bytes],
) -> str:
    """Why a joiner's hello and ready do not seat it ("" if they do); ``table``: what the ready
    must be signed over (the agreement and the salt)."""
    agreed, salt = table
    if said is None:
        return "no hello came before it"
    if not hmac.compare_digest(said.token, seat_proof(token, key)):
        return "its hello does not carry the invite's seat token"
    try:
        check_name(said.name)
    except P2PGeniusError as exc:
        return str(exc)
    return ready_problem(key, ready.fields, salt=salt, agreed=agreed)


def _latest_table(letters: Sequence[Letter], host: bytes) -> dict[str, Any] | None:
    """The host's last table on the relays (None: none yet)."""
    table = None
    for letter in letters:
        if letter.author != host:
            continue
        for message in letter.messages:
            value = item(message)
            if isinstance(value, wire.Lobby):
                table = value.table
    return table


def _terms(letters: Sequence[Letter], host: bytes) -> dict[str, Any] | None:
    """The host's terms (its first match message), read without checking (the session checks
    them as it takes them); None if they have not come."""
    for raw in match_messages(letters, [host]):
        with contextlib.suppress(EncodingError, IndexError, TypeError):
            value = decode(raw)
            body = value[5]
            if value[3] == 0 and isinstance(body, list) and body and body[0] == "terms":
                terms = body[1]
                return terms if isinstance(terms, dict) else None
    return None


@dataclass(frozen=True)
class Offer:
    """What a host offers: the game, its options, how many peers, its own seat claim, whether
    spectators may read the match."""

    game: str
    options: dict[str, Any]
    peers: int = 2
    claim: Sequence[int] = ()
    spectators: bool = False


def new_table(identity: Identity, name: str, offer: Offer, relays: Sequence[str]) -> MailState:
    """A host's new correspondence match: its invite (a fresh seat token and mailbox) and its
    table, kept in the state until the first visit posts it."""
    game, claim = offer.game, offer.claim
    invite = MailInvite(
        identity.public, random_source.token_bytes(16), random_source.token_bytes(32), tuple(relays)
    )
    table = {
        "game": game,
        "options": dict(offer.options),
        "setup": {},
        "names": [name],
        "keys": [identity.public],
        "claims": [sorted(claim)],
        "ready": [True],
        "needed": offer.peers - 1,
        "start": False,
        "salt": random_source.token_bytes(32),
        "spectators": offer.spectators,
    }
    return MailState(
        invite=invite.text(),
        role="host",
        game=game,
        relays=list(relays),
        lobby={"table": encode(table).hex()},
    )


def joined(invite: MailInvite, *, relays: Sequence[str] = (), claim: Sequence[int] = ()) -> MailState:
    """A joiner's state from a correspondence invite (``relays``: its own, read and written
    besides the invite's)."""
    every = list(dict.fromkeys([*invite.relays, *relays]))
    return MailState(invite=invite.text(), role="join", game="", relays=every, lobby={"claim": sorted(claim)})


async def peek(carrier: Carrier, transcript: Path, state: MailState) -> str | None:
    """What waits on the relays for this side of a match, read without changing anything (no
    file is written, nothing is posted): how many messages it lacks, and what matters among
    them (the match stopped, a forfeit, a claim about its seats, the result). None: nothing."""
    collected = await carrier.read()
    if not collected.answered:
        return "no relay answered"
    if state.phase == LOBBY:
        return _lobby_news(collected.letters, carrier.identity.public, state)
    if not transcript.exists():
        return None
    records = list(read_records(transcript.read_bytes()))
    secrets = list(read_records(transcript.with_suffix(".secrets").read_bytes(), headed=False))
    session = Session.restore(identity=carrier.identity, transcript=records, secrets=secrets)
    fresh = session.signed_log.catch_up(match_messages(collected.letters, session.keys), refusals(records))
    if not fresh:
        return None
    events: list[Event] = []
    for raw in fresh:
        events += session.receive(raw)
    words = [f"{len(fresh)} new message{'s' if len(fresh) != 1 else ''}"]
    if session.fault is not None:
        words.append(f"the match stopped: {session.fault.reason}")
    elif session.outcome is not None:
        words.append("the result is in")
    for event in events:
        if isinstance(event, TimeoutClaimed) and event.seat in session.my_seats:
            words.append(f"{session.names[event.author]} claims your time ran out (p{event.seat})")
    # (a forfeit of ours is not taken by a peek, which a live peer would refuse: the visit judges
    # it by our clocks, conceding or refusing it; said here, not left to the next visit)
    authors = sorted({f[0] for f in (forfeit_of_ours(raw, session) for raw in fresh) if f is not None})
    words += [
        f"{session.names[a]} says you forfeited (your next visit checks it by your clocks)" for a in authors
    ]
    return "; ".join(words)


def limits_words(game: str, options: Mapping[str, Any]) -> str:
    """A match's time limits in words, after its game's name: " (2d a turn)", " (16d a round,
    2d a challenge)" ("" for a game without them, or options no engine takes)."""
    try:
        spec = get_spec(game)
        said = []
        for option in spec.time_options:
            seconds = int(options.get(option.name, option.seconds))
            kind = option.name.removesuffix("_seconds").replace("_", " ")
            said.append(f"{words(seconds)} a {kind}")
    except (LookupError, TypeError, ValueError, AttributeError):
        return ""
    return f" ({', '.join(said)})" if said else ""


def forfeit_of_ours(raw: bytes, session: Session) -> tuple[int, int, int, str] | None:
    """(author, stage, seat, reason) of ``raw`` if it is another peer's forfeit of one of our
    seats (of our peer, before the deal), read loosely: nothing about it is checked here."""
    with contextlib.suppress(EncodingError, IndexError, TypeError, ValueError):
        value = decode(raw)
        body, author = value[5], int(value[2])
        if isinstance(body, list) and len(body) == 4 and body[0] == "forfeit":
            stage, seat, reason = int(body[1]), int(body[2]), str(body[3])
            ours = seat == session.me if stage == SETUP else seat in session.my_seats
            if ours and author != session.me and 0 <= author < len(session.names):
                return author, stage, seat, reason
    return None


def _lobby_news(letters: Sequence[Letter], me: bytes, state: MailState) -> str | None:
    """What waits in the lobby: for a host, the players who said ready (with the invite's seat
    token); for a joiner, the start (the host's terms: nobody else's letter starts the match)."""
    from p2pgenius.net.invite import parse  # noqa: PLC0415  (as Visit.invite reads it)

    invite = parse(state.invite)
    if not isinstance(invite, MailInvite):
        return None
    if state.role != "host":
        return "the host has started the match" if _terms(letters, invite.key) is not None else None
    token, ready = invite.token, set()
    for letter in letters:
        if letter.author == me:
            continue
        items = [item(m) for m in letter.messages]
        proof = seat_proof(token, letter.author)
        hellos = [i for i in items if isinstance(i, Hello) and hmac.compare_digest(i.token, proof)]
        if hellos and any(isinstance(i, wire.Ready) for i in items):
            ready.add(letter.author)
    count = len(ready)
    return f"{count} player{'s' if count != 1 else ''} said ready" if count else None


@dataclass
class Watch:
    """A spectator of a correspondence match (its invite without the seat token): every message
    on the relays taken by an observer that checks each with the players' keys alone, as a
    spectator of a live match does, kept in ``files`` (a transcript ``verify`` reads) and told
    through ``report``."""

    carrier: Carrier
    host: bytes
    files: Files
    report: Report
    session: Session | None = None
    refused: dict[bytes, str] = field(default_factory=dict)  # the hashes of the messages refused, why

    async def read(self) -> int:
        """Read the relays once and take what is new; returns how many messages were."""
        collected = await self.carrier.read()
        if not collected.answered:
            why = "; ".join(f"{url}: {w}" for url, w in sorted(collected.failed.items()))
            raise RelaysDownError(f"no relay of the match answered ({why})")
        if self.session is None:
            terms = _terms(collected.letters, self.host)
            keys, names = (terms or {}).get("peers"), (terms or {}).get("names")
            if not (isinstance(keys, list) and isinstance(names, list) and len(keys) == len(names)):
                return 0  # (the match has not started: nothing to follow yet)
            self.session = Session(keys=keys, me=None, names=names)
            self.files.start(header(keys, None, role="watch", address="", mail=True))
        session = self.session
        fresh = session.signed_log.catch_up(match_messages(collected.letters, session.keys), self.refused)
        for raw in fresh:
            events = session.receive(raw)
            records = session.flush().records
            self.files.append(self.files.transcript, records)
            self.refused |= refusals(records)
            for event in events:
                self.report(session.view, event)
        return len(fresh)

    @property
    def over(self) -> bool:
        return self.session is not None and (self.session.finished or self.session.fault is not None)
