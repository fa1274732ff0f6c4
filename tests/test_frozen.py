"""The small records that replace dataclasses where every command's start would pay for them
(p2pgenius/frozen.py): set once, compared and hashed by their fields, copied whole, and a secret
field left out of what they show."""

from __future__ import annotations

import copy
import pickle

import pytest

from p2pgenius.games.catalog import GAMES, RANDOM_LEVEL, Level
from p2pgenius.net.invite import Invite, InviteError, MailInvite, parse

KEY, TOKEN, MAILBOX = bytes(range(32)), bytes(16), b"\x07" * 32


def test_a_record_is_set_once() -> None:
    invite = Invite(KEY, 4000, ("127.0.0.1",), TOKEN)
    with pytest.raises(AttributeError, match="frozen"):
        invite.port = 1
    with pytest.raises(AttributeError):
        invite.other = 1  # (no field of that name: slots)


def test_records_are_equal_and_hashed_by_their_fields_and_copied_whole() -> None:
    invite = Invite(KEY, 4000, ("127.0.0.1", "::1"), TOKEN, (("relay.example", 4001),))
    assert parse(invite.text()) == invite and hash(parse(invite.text())) == hash(invite)
    assert invite != Invite(KEY, 4001, ("127.0.0.1", "::1"), TOKEN, (("relay.example", 4001),))
    assert Level("random", "beginner", "a uniformly random legal move") == RANDOM_LEVEL
    for record in (invite, MailInvite(KEY, TOKEN, MAILBOX, ("wss://relay.example",)), RANDOM_LEVEL):
        assert pickle.loads(pickle.dumps(record)) == record == copy.deepcopy(record)
    entry = GAMES[0]
    assert copy.copy(entry) == entry and entry.load_spec() is copy.copy(entry).load_spec()


def test_a_records_secrets_are_not_shown() -> None:
    shown = repr(MailInvite(KEY, TOKEN, MAILBOX, ("wss://relay.example",)))
    assert "wss://relay.example" in shown and repr(KEY) in shown
    assert "mailbox" not in shown and "token" not in shown and repr(MAILBOX) not in shown


def test_what_a_record_checks_is_checked_when_it_is_made() -> None:
    with pytest.raises(InviteError, match="port"):
        Invite(KEY, 0, ("127.0.0.1",))
    with pytest.raises(InviteError, match="each relay once"):
        MailInvite(KEY, TOKEN, MAILBOX, ("wss://relay.example", "wss://relay.example"))
