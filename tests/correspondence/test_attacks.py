"""Attacks on correspondence play by those who hold the mailbox: a spectator, a stranger, a
dishonest player. Each test shows what a visit does with their letters (and what it must not do:
seat them, record the same junk again on every visit, concede to them, write on a peek)."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pgenius.canonical import decode, encode
from p2pgenius.net.correspondence import Carrier, Offer, Watch, _agreed, peek
from p2pgenius.net.files import Files
from p2pgenius.net.invite import MailInvite, parse
from p2pgenius.net.mail import collect, post
from p2pgenius.protocol import channel_messages as wire
from p2pgenius.protocol.bodies import Chat, Forfeit
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.mailbox import Hello, Mailbox, hello, item, write
from p2pgenius.protocol.messages import TAG, seal
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.session.setup import make_ready
from p2pgenius.protocol.transcript import records as read_records
from p2pgenius.protocol.transcript import verify
from tests.correspondence.tables import Game, RealRelay, Side, check_finished, mailbox, play_out, table
from tests.correspondence.test_crashes import Killer, no_equivocation
from tests.correspondence.test_days import DAY, HOUR, FakeClock
from tests.correspondence.test_strangers import a_ready
from tests.nostr.relays import local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing()))

DUEL = Game(Offer("duel", {"turn_seconds": 86400}), ["ann", "bob"], "wizard", seed=42)


async def send(box: Mailbox, url: str, who: Identity, messages: Sequence[bytes]) -> None:
    event = write(box, who, messages, int(time.time()), secrets.token_bytes(96))
    assert (await post([url], event, wait_s=10)).sent


def session_of(side: Side) -> Session:
    """The match as ``side``'s files hold it."""
    records = list(read_records(side.path.read_bytes()))
    kept = list(read_records(side.path.with_suffix(".secrets").read_bytes(), headed=False))
    return Session.restore(identity=side.identity, transcript=records, secrets=kept)


def signed_next(side: Side, body: list[Any]) -> bytes:
    """``body`` signed as ``side``'s next message, over what its files hold (a real one, as its
    own program would sign it)."""
    session = session_of(side)
    chain = session.courier.chain
    me = session.me
    assert me is not None
    return seal(side.identity, session.courier.match_id, me, chain.next_seq[me], chain.heads(), body)


async def started(sides: Sequence[Side], now: FakeClock | None = None) -> None:
    """The table, the ready, the terms, the accept: the duel under way, ann to move next."""
    clock = now or time.time
    ann, bob = sides
    for side in (ann, bob, ann, bob):
        await side.run(now=clock, grace_s=DAY)


def test_a_spectator_cannot_take_a_seat_with_a_joiners_token(tmp_path: Path) -> None:
    """A watch-only invite holds the mailbox, so its holder reads a joiner's hello and can post
    a hello of its own with what it carries: the host must not seat it (the hello carries a
    proof of the seat token bound to its author's key, not the token)."""
    relay = RealRelay(tmp_path)
    game = Game(Offer("hornswoggle", {}, peers=3), ["ann", "bob", "cid"], "pirate", seed=3)
    ann, bob, _cid = table(tmp_path, game, [relay.url])
    box, eve = mailbox(ann), Identity.generate()  # (eve: given the invite for spectators)

    async def play() -> None:
        await ann.run()
        await bob.run()
        letters = (await collect([relay.url], box, wait_s=10)).letters
        tokens = [i.token for letter in letters for m in letter.messages if isinstance(i := item(m), Hello)]
        copied = encode(["hello", {"name": "eve", "token": tokens[0]}])  # (bob's, word for word)
        await send(box, relay.url, eve, [copied, a_ready(eve, ann)])
        await ann.run()

    try:
        trio.run(play)
    finally:
        relay.stop()
    if ann.state.phase == "playing":
        assert eve.public not in session_of(ann).keys, "a spectator took cid's seat with bob's token"
    assert ann.state.phase == "lobby", ann.lines


def junk(side: Side) -> list[bytes]:
    """Messages of ``side``'s own (its letter, its author index) that no chain can take: one
    with a gap before it, one naming a head nobody sent, one that is no version-3 envelope."""
    session = session_of(side)
    chain = session.courier.chain
    me = session.me
    assert me is not None
    heads = chain.heads()
    gap = seal(side.identity, session.courier.match_id, me, chain.next_seq[me] + 5, heads, ["chat", "gap"])
    odd_heads = [h if peer == me else b"\x07" * 32 for peer, h in enumerate(heads)]
    unknown = seal(side.identity, session.courier.match_id, me, chain.next_seq[me], odd_heads, ["chat", "x"])
    shapeless = encode([TAG, 3, me, 0, b"no heads", ["chat", "y"], bytes(64)])
    return [gap, unknown, shapeless]


def test_a_message_no_chain_takes_is_recorded_once_not_every_visit(tmp_path: Path) -> None:
    """Bob posts messages of his that cannot be placed: each visit of ann's reads them again;
    the transcript records each refusal once, and a visit with nothing new adds nothing."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)
    invite = parse(ann.state.invite)
    assert isinstance(invite, MailInvite)
    files = Files(tmp_path / "watch.p2pt", tmp_path / "watch.secrets")
    watch = Watch(
        Carrier(Identity.generate(), box, [relay.url], wait_s=10), invite.key, files, lambda v, e: None
    )

    async def play() -> None:
        await started(sides)
        await send(box, relay.url, bob.identity, junk(bob))
        await ann.run()  # (reads the junk: refused, recorded)
        await ann.run()  # (its own letters may go now)
        size = ann.path.stat().st_size
        for _ in range(3):
            await ann.run()
            await watch.read()  # (a spectator reading on, as --stay does every 10 s)
        assert ann.path.stat().st_size == size, "ann's transcript grew on visits that read nothing new"

    try:
        trio.run(play)
    finally:
        relay.stop()
        files.close()
    for path in (ann.path, files.transcript):
        rejected = [r for r in read_records(path.read_bytes()) if isinstance(r, list) and r[0] == "rejected"]
        assert rejected, path
        assert len(rejected) == len({bytes(r[1]) for r in rejected}), (path, [r[2] for r in rejected])


def test_equivocation_is_proven_to_the_other_side_and_a_spectator(tmp_path: Path) -> None:
    """Bob signs two different messages under one number, one on each relay: ann's visit (the
    next one at the latest) and a spectator's watch stop the match on his cheat, with both
    messages as evidence."""
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    one, two = RealRelay(tmp_path / "1"), RealRelay(tmp_path / "2")
    ann, bob = sides = table(tmp_path, DUEL, [one.url, two.url])
    box = mailbox(ann)
    invite = parse(ann.state.invite)
    assert isinstance(invite, MailInvite)
    seen: list[Any] = []
    watch_files = Files(tmp_path / "watch.p2pt", tmp_path / "watch.secrets")
    watch = Watch(
        Carrier(Identity.generate(), box, [one.url, two.url], wait_s=10),
        invite.key,
        watch_files,
        lambda v, e: seen.append(e),
    )

    async def play() -> None:
        await started(sides)
        first = signed_next(bob, Chat("good game").to_body())
        second = signed_next(bob, Chat("bad game").to_body())
        await send(box, one.url, bob.identity, [first])
        await send(box, two.url, bob.identity, [second])
        for _ in range(2):
            await watch.read()
            if not ann.over:
                await ann.run()

    try:
        trio.run(play)
    finally:
        one.stop()
        two.stop()
        watch_files.close()
    assert ann.over, ann.lines
    report = verify(ann.path.read_bytes())
    assert report.fault is not None and "equivocation" in str(report.fault), report.summary
    assert watch.session is not None and watch.session.fault is not None
    assert "equivocation" in watch.session.fault.reason


@pytest.mark.parametrize("ahead", [0, 5], ids=["this-stage", "a-stage-not-reached"])
def test_a_forfeit_of_a_seat_that_owed_nothing_is_not_conceded(tmp_path: Path, ahead: int) -> None:
    """Ann moves and is away ten days (past twice her grace period of a day and the longest
    time limit, two days); bob, whose move it is, signs a claim-less forfeit of ann's seat, at
    this stage or at one five ahead (held, not judged, by a reader not there yet: an attack's
    find, once conceded to): ann owed nothing, so she must not concede."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)
    clock = FakeClock()

    async def play() -> None:
        await started(sides, clock)
        clock.at += HOUR
        await ann.run(now=clock, grace_s=DAY)  # (ann moves: bob's turn now)
        theirs = session_of(bob)
        stage = (theirs.stage.number if theirs.stage is not None else 0) + ahead
        seat = min(session_of(ann).my_seats)
        forfeit = signed_next(bob, Forfeit(stage, seat, "away").to_body())
        await send(box, relay.url, bob.identity, [forfeit])
        clock.at += 10 * DAY
        await ann.run(now=clock, grace_s=DAY)

    try:
        trio.run(play)
    finally:
        relay.stop()
    assert not ann.over, ann.lines[-3:]


def test_a_forged_forfeit_is_not_conceded(tmp_path: Path) -> None:
    """A forfeit in bob's letter whose envelope does not verify (a wrong signature, another
    match): ann, away past her grace period, must not concede to it."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)
    clock = FakeClock()

    async def play() -> None:
        await started(sides, clock)
        await ann.run(now=clock, grace_s=DAY)  # (ann moves: bob's turn now)
        seat = min(session_of(ann).my_seats)
        real = signed_next(bob, Forfeit(0, seat, "away").to_body())
        forged = real[:-1] + bytes([real[-1] ^ 1])
        other = seal(
            bob.identity,
            hashlib.sha256(b"another match").digest(),
            1,
            0,
            [bytes(32), bytes(32)],
            Forfeit(0, seat, "away").to_body(),
        )
        await send(box, relay.url, bob.identity, [forged, other])
        clock.at += 10 * DAY
        await ann.run(now=clock, grace_s=DAY)

    try:
        trio.run(play)
    finally:
        relay.stop()
    assert not ann.over, ann.lines[-3:]


def test_peek_writes_nothing_whatever_the_letters(tmp_path: Path) -> None:
    """``peek`` (``p2pgenius games``) with junk, a forged forfeit and another match's letters on
    the relay: no file of the match changes."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)

    async def play() -> None:
        await started(sides)
        await send(box, relay.url, bob.identity, [*junk(bob), signed_next(bob, Forfeit(0, 0, "x").to_body())])
        before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in tmp_path.glob("ann*")}
        state = ann.state
        invite = parse(state.invite)
        assert isinstance(invite, MailInvite)
        carrier = Carrier(ann.identity, Mailbox(invite.mailbox), state.relays, wait_s=10)
        said = await peek(carrier, ann.path, state)
        after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in tmp_path.glob("ann*")}
        assert said is not None
        assert before == after

    try:
        trio.run(play)
    finally:
        relay.stop()


def test_a_second_table_of_the_host_changes_nothing_a_joiner_signed(tmp_path: Path) -> None:
    """The host posts its table, the joiner signs its ready over it, then a second table with
    other options appears (by the host's key): the terms must be the first table's, or the
    joiner refuses them."""
    relay = RealRelay(tmp_path)
    ann, bob = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)

    async def play() -> None:
        await ann.run()
        await bob.run()
        laid: dict[str, Any] = decode(bytes.fromhex(ann.state.lobby["table"]))
        await send(box, relay.url, ann.identity, [wire.lobby({**laid, "options": {"turn_seconds": 60}})])
        await ann.run()
        await bob.run()

    try:
        trio.run(play)
    finally:
        relay.stop()
    assert bob.state.phase == "playing", bob.lines
    assert verify(bob.path.read_bytes()).fault is None


def test_a_joiner_whose_ready_did_not_go_out_sends_it_at_its_next_visit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's first visit keeps its coin share and then dies before its hello and ready leave
    (killed, or no relay took them): his next visit must post them (the same coin share: it
    is committed in the ready), so that ann seats him and the duel starts."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    killer = Killer()
    monkeypatch.setattr("p2pgenius.net.correspondence.post", killer.post)

    async def play() -> None:
        await ann.run()
        await killer.visit(bob, "before")
        assert killer.kills["before"] == 1
        coin = bob.state.lobby["coin"]
        for side in (bob, ann, bob):
            await side.run()
        assert bob.state.lobby["coin"] == coin

    try:
        trio.run(play)
    finally:
        relay.stop()
    assert [side.state.phase for side in sides] == ["playing", "playing"], (ann.lines, bob.lines)


def test_a_message_of_another_match_does_not_hold_up_the_real_one(tmp_path: Path) -> None:
    """Bob's letters carry, besides his next message, one of his from another match with the
    same players under the same number (a player's own old message, or one made to look like
    it), read before the real one: it is refused (once), and the real one is taken at the next
    visit at the latest: the other match's message never takes its place for good."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)

    async def play() -> int:
        await started(sides)
        await ann.run()  # (ann moves: bob's turn)
        session = session_of(bob)
        me = session.me
        assert me is not None
        number, heads = session.courier.chain.next_seq[me], session.courier.chain.heads()
        other = seal(
            bob.identity, hashlib.sha256(b"another match").digest(), me, number, heads, ["chat", "hi"]
        )
        for created in (int(time.time()) + 1000, int(time.time()) - 1000):  # (first, newest or oldest first)
            event = write(box, bob.identity, [other], created, secrets.token_bytes(96))
            assert (await post([relay.url], event, wait_s=10)).sent
        await bob.run()  # (his real message under that number)
        for _ in range(2):
            await ann.run()
        return number

    try:
        number = trio.run(play)
    finally:
        relay.stop()
    assert session_of(ann).courier.chain.next_seq[1] > number + 1, ann.lines[-3:]
    rejected = [r for r in read_records(ann.path.read_bytes()) if isinstance(r, list) and r[0] == "rejected"]
    assert ["another match" in r[2] for r in rejected].count(True) == 1, [r[2] for r in rejected]
    assert len(rejected) == len({bytes(r[1]) for r in rejected}), [r[2] for r in rejected]


def test_equivocation_first_seen_out_of_order_is_still_proven(tmp_path: Path) -> None:
    """Bob posts a version of his message N + 1 before any N exists (ann refuses it: out of its
    chain), then plays N and his real N + 1: ann takes the real ones, and then the first version
    is the proof of his equivocation, not a message she refused once and leaves out."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)

    async def play() -> None:
        await started(sides)
        await ann.run()  # (ann moves: bob's turn)
        session = session_of(bob)
        me = session.me
        assert me is not None
        number, heads = session.courier.chain.next_seq[me], session.courier.chain.heads()
        early = seal(bob.identity, session.courier.match_id, me, number + 1, heads, ["chat", "early"])
        await send(box, relay.url, bob.identity, [early])
        await ann.run()  # (refused: out of its chain)
        await bob.run()  # (N and the real N + 1)
        for _ in range(2):
            if not ann.over:
                await ann.run()

    try:
        trio.run(play)
    finally:
        relay.stop()
    report = verify(ann.path.read_bytes())
    assert report.fault is not None and "equivocation" in str(report.fault), (report.summary, ann.lines[-3:])


@pytest.mark.parametrize("where", ["before", "between", "after"])
def test_the_host_killed_as_it_posts_the_terms_starts_the_match_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The host's visit that seats the joiner and signs the terms dies before its letter leaves,
    after one relay took it, or after both (before its state is saved): its next visit starts
    the same match, never a second one with other terms or another coin share, and the duel
    is played out."""
    first, second = RealRelay(tmp_path), RealRelay(tmp_path)
    relays = [first.url, second.url]
    ann, bob = sides = table(tmp_path, DUEL, relays)
    killer = Killer()
    monkeypatch.setattr("p2pgenius.net.correspondence.post", killer.post)

    async def play() -> None:
        await ann.run()
        await bob.run()
        await killer.visit(ann, where)
        assert killer.kills[where] == 1
        await play_out(sides, rounds=60)

    try:
        trio.run(play)
        check_finished(sides)
        trio.run(no_equivocation, sides, relays)
    finally:
        first.stop()
        second.stop()


def test_the_host_seats_only_good_readies(tmp_path: Path) -> None:
    """Before bob, the mailbox holds: a stranger's table (other options), a ready under the
    host's name, a ready claiming a seat the game does not have, and bob's own hello twice
    (his ready once): the host seats bob alone, and bob signs the host's table, not the
    stranger's."""
    relay = RealRelay(tmp_path)
    ann, bob = sides = table(tmp_path, DUEL, [relay.url])
    box = mailbox(ann)
    invite = parse(ann.state.invite)
    assert isinstance(invite, MailInvite)
    eve, dan, cy = Identity.generate(), Identity.generate(), Identity.generate()
    laid: dict[str, Any] = decode(bytes.fromhex(ann.state.lobby["table"]))

    async def play() -> None:
        await ann.run()
        fake = {**laid, "keys": [eve.public], "options": {"turn_seconds": 60}, "salt": bytes(32)}
        await send(box, relay.url, eve, [wire.lobby(fake)])
        await send(box, relay.url, dan, [hello("ann", invite.token, dan.public), a_ready(dan, ann)])
        agreed = _agreed(ann.identity.public, laid)
        wide = make_ready(cy, secrets.token_bytes(32), salt=laid["salt"], agreed=agreed, claim=[7])
        await send(box, relay.url, cy, [hello("cy", invite.token, cy.public), wire.ready(wide)])
        await ann.run()  # (none of them seated)
        assert ann.state.phase == "lobby"
        await bob.run()
        await send(box, relay.url, bob.identity, [hello("bobby", invite.token, bob.identity.public)])
        await ann.run()
        await play_out(sides, rounds=60)

    try:
        trio.run(play)
    finally:
        relay.stop()
    check_finished(sides)
    assert sorted(verify(ann.path.read_bytes()).names) == ["ann", "bob"]
    refused = [line for line in ann.lines if "a ready was refused" in line]
    assert any("is taken at this table" in line for line in refused), ann.lines
    assert len(refused) >= 2, refused


def test_peek_in_the_lobby_believes_no_stranger(tmp_path: Path) -> None:
    """``p2pgenius games`` in the lobby: a stranger's match message does not tell the joiner the
    host started, nor a ready without the seat token tell the host a player is ready."""
    relay = RealRelay(tmp_path)
    ann, bob = table(tmp_path, DUEL, [relay.url])
    box, eve = mailbox(ann), Identity.generate()
    fake_terms = seal(eve, bytes(32), 0, 0, [bytes(32), bytes(32)], ["chat", "the match is on"])

    async def look(side: Side) -> str | None:
        state = side.state
        return await peek(Carrier(side.identity, box, state.relays, wait_s=10), side.path, state)

    async def play() -> None:
        await ann.run()
        await send(
            box,
            relay.url,
            eve,
            [fake_terms, hello("eve", secrets.token_bytes(16), eve.public), a_ready(eve, ann)],
        )
        assert await look(bob) is None
        assert await look(ann) is None
        await bob.run()
        assert await look(ann) == "1 player said ready"

    try:
        trio.run(play)
    finally:
        relay.stop()
