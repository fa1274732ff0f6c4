"""A resumed peer opens each of its commitments on record with the secret on file that opens it,
and with nothing else (protocol/SPEC.md section 7, "The secrets file"): an edited or damaged
secrets file never becomes the card it goes on with, nor a crash (review of issue 48)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from p2pgenius.canonical import decode
from p2pgenius.errors import P2PGeniusError
from p2pgenius.inmemory import MemoryTable, play
from p2pgenius.protocol.bodies import Commit
from p2pgenius.protocol.session import Session, SessionError
from p2pgenius.protocol.transcript import header

PEER = 0


@functools.cache
def _table(game: str, seed: int) -> MemoryTable:
    return play(game, seed=seed, deterministic=True)


def _restore(table: MemoryTable, cut: int, secrets: list[Any]) -> Session:
    keys = [identity.public for identity in table.identities]
    head = [decode(header(keys, PEER)[4:])]
    records = [decode(record) for record in table.transcripts[PEER][:cut]]
    return Session.restore(identity=table.identities[PEER], transcript=head + records, secrets=secrets)


def _committed_secrets(table: MemoryTable, cut: int) -> tuple[Session, list[Any], list[Any]]:
    """The peer restored from its files cut at ``cut``, its secrets, and those of them whose
    commitment is on record by then."""
    secrets = [decode(secret) for secret in table.secrets[PEER]]
    session = _restore(table, cut, secrets)
    play_ = session.play
    assert play_ is not None
    committed = [s for s in secrets if s[0] == "secret" and (s[1], s[2]) in play_.commit_log]
    return session, secrets, committed


def _other_card(secret: list[Any]) -> list[Any]:
    action = secret[3]
    other = "doubloon" if action.get("card") == "skull" else "skull"
    return [*secret[:3], {**action, "card": other}, secret[4]]


def _timeout(secret: list[Any]) -> list[Any]:
    return [*secret[:3], {"type": "timeout"}, secret[4]]


@pytest.mark.parametrize("edit", [_other_card, _timeout])
@pytest.mark.parametrize("cut", [40, 90, 140])
def test_a_secret_that_opens_no_commitment_on_record_changes_nothing(cut: int, edit: Any) -> None:
    """Hornswoggle's own face-down cards come from the secrets file as the peer resumes: a secret
    appended after the real one (another card, or a made-up action, under the same nonce) for
    every card on record leaves the peer exactly as the real files leave it."""
    table = _table("hornswoggle", 22)
    honest, secrets, committed = _committed_secrets(table, cut)
    assert committed, "no committed card by this cut: choose another"
    edited = _restore(table, cut, secrets + [edit(secret) for secret in committed])
    assert repr(edited.state) == repr(honest.state)
    assert edited.courier.secrets == honest.courier.secrets
    assert edited.awaiting() == honest.awaiting()
    assert edited.fault is None and honest.fault is None


@pytest.mark.parametrize(("game", "cut"), [("hornswoggle", 90), ("duel", 40)])
def test_secrets_that_open_none_of_a_commitment_on_record_are_refused(game: str, cut: int) -> None:
    """A secrets file whose every secret of one commitment on record fails to open it (a nonce
    changed by a damaged disk) is refused, in words: the peer would otherwise go on from a card
    it never committed to, or sign an opening that convicts it."""
    table = _table(game, 22)
    _, secrets, committed = _committed_secrets(table, cut)
    damaged = committed[-1]
    changed = [*damaged[:4], bytes([damaged[4][0] ^ 1]) + damaged[4][1:]]
    kept = [changed if secret is damaged else secret for secret in secrets]
    with pytest.raises(SessionError, match="no opening of our commitment"):
        _restore(table, cut, kept)
    assert issubclass(SessionError, P2PGeniusError)  # (the command line's one-line error)


def test_a_card_committed_early_and_held_is_opened_by_nothing_else() -> None:
    """A card chosen early (before its stage: correspondence always chooses so, and restores at
    every visit) is held, not yet taken in, when the replay ends: it too is opened by the secret
    on file that opens it (review of this change: it kept the newest secret on file, and the
    peer then laid a card it never committed to, and convicted itself at the flip)."""
    table = play("hornswoggle", peers=2, seed=3, deterministic=True, early=True)
    secrets = [decode(secret) for secret in table.secrets[PEER]]
    for cut in range(4, 40):
        honest = _restore(table, cut, secrets)
        played = honest.play
        assert played is not None
        held = [env.msg for env in played.backlog if env.author == PEER and isinstance(env.msg, Commit)]
        if held:
            break
    else:
        raise AssertionError("no early commitment held at any cut: choose another seed")
    ref = (held[0].stage, held[0].seat)
    (real,) = [s for s in secrets if s[0] == "secret" and (s[1], s[2]) == ref]
    edited = _restore(table, cut, [*secrets, _other_card(real)])
    assert edited.courier.secrets[ref] == honest.courier.secrets[ref] == (real[3], real[4])
    damaged = [*real[:4], bytes([real[4][0] ^ 1]) + real[4][1:]]
    with pytest.raises(SessionError, match="no opening of our commitment"):
        _restore(table, cut, [damaged if s is real else s for s in secrets])
