"""Correspondence play end to end in one process: host and joiner take turns visiting a real
relay (rust-nostr's, as its own process), never at once, until the match is over."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.correspondence import Carrier, Offer, Visit, joined, new_table, peek
from p2pgenius.net.files import Files
from p2pgenius.net.invite import MailInvite, parse
from p2pgenius.net.mail_state import OVER, load
from p2pgenius.protocol.identity import Identity
from p2pgenius.protocol.mailbox import Mailbox
from p2pgenius.protocol.transcript import verify
from tests.nostr.relays import local_relay, local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing()))


def visit(path: Path, identity: Identity, name: str, seed: int, lines: list[str]) -> Visit:
    state = load(path)
    assert state is not None
    invite = parse(state.invite)
    assert isinstance(invite, MailInvite)
    carrier = Carrier(identity, Mailbox(invite.mailbox), state.relays, wait_s=10)
    files = Files(path, path.with_suffix(".secrets"))
    return Visit(
        carrier, files, state, name, BotDriver("random", seed).decide, lambda v, e: None, lines.append, 3600.0
    )


def test_a_duel_by_correspondence_one_side_at_a_time(tmp_path: Path) -> None:
    host_id, join_id = Identity.generate(), Identity.generate()
    host_path, join_path = tmp_path / "host.p2pt", tmp_path / "join.p2pt"
    lines: list[str] = []
    with local_relay(tmp_path) as url:
        state = new_table(host_id, "ann", Offer("duel", {"turn_seconds": 86400, "fast": True}), [url])
        state.save(host_path)
        invite = parse(state.invite)
        assert isinstance(invite, MailInvite)
        joined(invite).save(join_path)
        visits = {"ann": 0, "bob": 0}
        for _ in range(400):
            for path, ident, name in ((host_path, host_id, "ann"), (join_path, join_id, "bob")):
                # (a bot made afresh each visit: its seed must differ, or it plays its first
                # choice again every turn)
                v = visit(path, ident, name, 2 * visits[name] + (name == "ann"), lines)
                if v.state.phase == OVER:
                    continue
                visits[name] += 1
                trio.run(v.run)
                v.files.close()
            if all(load(p).phase == OVER for p in (host_path, join_path)):  # type: ignore[union-attr]
                break
        else:
            raise AssertionError(f"the duel did not end: {lines[-20:]}")
    for path in (host_path, join_path):
        report = verify(path.read_bytes())
        assert report.ok, report.summary
    print(visits, lines[-5:], [verify(p.read_bytes()).summary for p in (host_path, join_path)])


def test_what_waits_on_the_relays_is_read_without_changing_anything(tmp_path: Path) -> None:
    host_id, join_id = Identity.generate(), Identity.generate()
    host_path, join_path = tmp_path / "host.p2pt", tmp_path / "join.p2pt"
    lines: list[str] = []

    def look(path: Path, identity: Identity) -> str | None:
        state = load(path)
        assert state is not None
        invite = parse(state.invite)
        assert isinstance(invite, MailInvite)
        carrier = Carrier(identity, Mailbox(invite.mailbox), state.relays, wait_s=10)
        return trio.run(peek, carrier, path, state)

    with local_relay(tmp_path) as url:
        new_table(host_id, "ann", Offer("duel", {"turn_seconds": 86400, "fast": True}), [url]).save(host_path)
        invite = parse(load(host_path).invite)  # type: ignore[union-attr]
        assert isinstance(invite, MailInvite)
        joined(invite).save(join_path)
        trio.run(visit(host_path, host_id, "ann", 1, lines).run)
        assert look(host_path, host_id) is None
        assert look(join_path, join_id) is None  # (its lobby: nothing started yet)
        trio.run(visit(join_path, join_id, "bob", 2, lines).run)
        assert look(host_path, host_id) == "1 player said ready"
        trio.run(visit(host_path, host_id, "ann", 3, lines).run)
        assert look(join_path, join_id) == "the host has started the match"
        trio.run(visit(join_path, join_id, "bob", 4, lines).run)
        before = host_path.read_bytes(), load(host_path)
        waiting = look(host_path, host_id)
        assert waiting is not None and re.fullmatch(r"\d+ new messages?", waiting), waiting
        assert (host_path.read_bytes(), load(host_path)) == before  # (nothing written)
