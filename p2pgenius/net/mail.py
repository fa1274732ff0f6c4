"""A match's mail through several Nostr relays at once: each letter posted to every relay, and
the mailbox read from all of them (protocol/SPEC.md, section 4e).

No relay is trusted, and none is needed: a letter counts as sent once one relay has said it
keeps it (the others are told too, and the line a player reads says how many), and the mailbox
is read from every relay that answers, the letters of all of them taken once each. A relay that
cannot be reached, refuses, says nothing in time, loses what it kept, or hands over events that
are no letters of this match changes nothing but what the lines say and the evidence kept: each
refusal is one line with the relay's URL (:attr:`Collected.refused`), never an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import trio

from p2pgenius.errors import shown
from p2pgenius.net import nostr_relay
from p2pgenius.net.nostr_relay import RelayError
from p2pgenius.protocol.mailbox import LETTER_KIND, Letter, Mailbox, read
from p2pgenius.protocol.nostr import Event, NostrError
from p2pgenius.protocol.nostr_frames import Filter

WAIT_S = 20.0
"""How long one relay may take to connect and answer (each relay has its own; they run at once)."""
MAX_EVENTS = 2000
"""The most events taken from one relay in one reading: past it the relay counts as not having
sent all it keeps (a relay that floods is not read without end)."""
MAX_REFUSALS = 100
"""The refusals kept as evidence from one reading (the others are counted)."""


@dataclass
class Posted:
    """Where a letter went: the relays that keep it, and why each of the others does not."""

    event: Event
    kept_by: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def sent(self) -> bool:
        """Whether one relay at least keeps it (enough: any one suffices)."""
        return bool(self.kept_by)

    def words(self) -> str:
        """One line for the player: "sent to 2 of 3 relays" (and why not to the others)."""
        return sent_words(len(self.kept_by), len(self.kept_by) + len(self.failed), self.failed)


def sent_words(kept: int, total: int, failed: dict[str, str]) -> str:
    """ "sent to 2 of 3 relays (URL: why not)"."""
    line = f"sent to {kept} of {total} relays"
    if failed:
        line += " (" + "; ".join(f"{url}: {why}" for url, why in sorted(failed.items())) + ")"
    return line


@dataclass
class Collected:
    """What the mailbox held on the relays that answered: every letter once (in the order first
    seen), the relays that answered, those that did not and why, and every event refused (the
    relay, the event's id, why), kept as evidence."""

    letters: list[Letter] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    refused_more: int = 0  # refusals past MAX_REFUSALS, counted only
    _seen: set[str] = field(default_factory=set, repr=False)

    def take(self, url: str, box: Mailbox, event: Event) -> None:
        """An event a relay handed over: read once (another relay's copy of it is skipped)."""
        if event.id in self._seen:
            return
        self._seen.add(event.id)
        try:
            self.letters.append(read(box, event))
        except NostrError as refusal:
            if len(self.refused) < MAX_REFUSALS:
                self.refused.append((url, event.id, str(refusal)))
            else:
                self.refused_more += 1


async def post(relays: Sequence[str], event: Event, *, wait_s: float = WAIT_S) -> Posted:
    """Post ``event`` (a letter) to every relay at once, each given ``wait_s`` to connect and take
    it (its answer counts as soon as it comes: a relay slow to close changes nothing)."""
    posted = Posted(event)

    async def publish(url: str, relay: nostr_relay.Relay, left: float) -> None:
        ok = await relay.publish(event, timeout_s=left)
        if ok.accepted:
            posted.kept_by.append(url)
        else:
            posted.failed[url] = f"refused it ({shown(ok.message)})"

    await _on_every_relay(relays, wait_s, publish, posted.failed)
    return posted


async def collect(
    relays: Sequence[str], box: Mailbox, *, since: int | None = None, wait_s: float = WAIT_S
) -> Collected:
    """Every letter of ``box`` the relays keep, read from all of them at once, each given
    ``wait_s`` to connect and send them. ``since``: only letters claiming a time from then on (a
    time the author claims, so a caller leaves a wide margin: it saves reading, never decides)."""
    collected = Collected()
    wanted = Filter(kinds=(LETTER_KIND,), tags={"p": (box.address,)}, since=since)

    async def fetch(url: str, relay: nostr_relay.Relay, left: float) -> None:
        fetched = await relay.fetch([wanted], timeout_s=left, max_events=MAX_EVENTS)
        if fetched.complete:
            collected.answered.append(url)
        elif fetched.events or fetched.closed is not None:  # (what it sent is taken)
            collected.failed[url] = "did not say it had sent all it keeps"
        else:
            collected.failed[url] = f"no answer within {wait_s:g} s"
        for event in fetched.events:
            collected.take(url, box, event)

    await _on_every_relay(relays, wait_s, fetch, collected.failed)
    return collected


Job = Callable[[str, nostr_relay.Relay, float], Awaitable[None]]
"""What is done with one relay (its URL, its connection, the seconds left)."""


async def _on_every_relay(relays: Sequence[str], wait_s: float, job: Job, failed: dict[str, str]) -> None:
    """Run ``job`` on every relay at once (a relay named twice is asked once), each within
    ``wait_s``; why each that did not run it to its end failed goes in ``failed`` (unless the
    job said why itself)."""

    async def one(url: str) -> None:
        if (why := await _with_relay(url, wait_s, partial(job, url))) is not None:
            failed.setdefault(url, why)

    async with trio.open_nursery() as nursery:
        for url in dict.fromkeys(relays):
            nursery.start_soon(one, url)


async def _with_relay(
    url: str, wait_s: float, job: Callable[[nostr_relay.Relay, float], Awaitable[None]]
) -> str | None:
    """Run ``job`` on a connection to ``url`` within ``wait_s`` (closing politely comes after,
    bounded by ``nostr_relay.CLOSE_S``): None once it ran to its end, else why not. Whatever goes
    wrong with this relay (unreachable, refusing, silent, broken or lying in its handshake) is
    said, never raised: one bad relay stops no other."""
    deadline = trio.current_time() + wait_s
    done, why = False, f"no answer within {wait_s:g} s"
    with trio.move_on_at(deadline + nostr_relay.CLOSE_S + 1):
        try:
            async with nostr_relay.connect(url, timeout_s=wait_s) as relay:
                await job(relay, max(deadline - trio.current_time(), 0.0))
                done = True  # (what it said counts, however its closing goes)
        except Exception as exc:  # (a group too: trio-websocket raises some inside one)
            why = _why(exc)
    return None if done else why


def _why(exc: BaseException) -> str:
    """Why a relay failed us, in words (its URL is said beside it)."""
    if isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        return _why(exc.exceptions[0])
    if not isinstance(exc, RelayError):
        return f"broke off ({type(exc).__name__}: {shown(str(exc))})"
    text = str(exc)
    return text.split(": ", 1)[1] if text.startswith("relay ") and ": " in text else text
