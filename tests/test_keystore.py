"""Identity keys on disk (created once, private) and pinned peers (trust on first use)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.errors import LocalMisuseError
from p2pgenius.net.keystore import check_known, load_identity, load_pins, trust
from p2pgenius.protocol.identity import Identity, IdentityError
from tests.patience import HANG_S


def test_the_identity_is_created_once_with_private_permissions(tmp_path: Path) -> None:
    first, created = load_identity(tmp_path / "cfg")
    again, created_again = load_identity(tmp_path / "cfg")
    assert (created, created_again) == (True, False)
    assert first.public == again.public
    key_file = tmp_path / "cfg" / "identity.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "cfg").stat().st_mode) == 0o700


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    load_identity(tmp_path)
    (tmp_path / "identity.key").chmod(0o644)
    with pytest.raises(LocalMisuseError, match="chmod 600"):
        load_identity(tmp_path)


def test_peers_are_pinned_on_first_use_and_a_changed_key_is_refused(tmp_path: Path) -> None:
    ann, impostor = Identity.generate(), Identity.generate()
    assert trust("ann", ann.public, tmp_path) is True
    assert trust("ann", ann.public, tmp_path) is False
    with pytest.raises(IdentityError, match="changed"):
        trust("ann", impostor.public, tmp_path)
    assert load_pins(tmp_path) == {ann.public: "ann"}


def test_names_are_any_printable_unicode_and_are_kept_as_written(tmp_path: Path) -> None:
    jose = Identity.generate()
    assert trust("José", jose.public, tmp_path) is True
    assert trust("Zoë van Dijk", Identity.generate().public, tmp_path) is True
    assert load_pins(tmp_path)[jose.public] == "José"
    for bad in ("", " ann", "ann\n", "a" * 33, "bell\x07"):
        with pytest.raises(LocalMisuseError):
            check_known(bad, jose.public, tmp_path)


def test_a_known_key_under_a_new_name_is_still_known(tmp_path: Path) -> None:
    ann = Identity.generate()
    trust("ann", ann.public, tmp_path)
    assert check_known("annie", ann.public, tmp_path) is True


def test_a_known_key_cannot_borrow_the_name_of_another_known_player(tmp_path: Path) -> None:
    # mallory played before; alice too, with another key. mallory's key calling itself alice is
    # refused, as a stranger's would be (it was let through: the key alone was "known").
    alice, mallory = Identity.generate(), Identity.generate()
    trust("alice", alice.public, tmp_path)
    trust("mallory", mallory.public, tmp_path)
    with pytest.raises(IdentityError, match="the key of peer 'alice' has changed"):
        check_known("alice", mallory.public, tmp_path)


def test_two_processes_pinning_at_once_both_land(tmp_path: Path) -> None:
    # Host and join on one account write known_peers at the same moment: a fixed temporary name
    # once made one process's rename fail. Each now writes its own temporary file, under a lock.
    import multiprocessing

    keys = [Identity.generate().public for _ in range(8)]
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=trust, args=(f"p{i}", key, tmp_path)) for i, key in enumerate(keys)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=HANG_S)
    assert [worker.exitcode for worker in workers] == [0] * len(workers)
    assert set(load_pins(tmp_path)) == set(keys)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_an_older_known_peers_file_is_read(tmp_path: Path) -> None:
    ann = Identity.generate()
    from p2pgenius.protocol.identity import fingerprint

    (tmp_path / "known_peers").write_text(f"ann {fingerprint(ann.public)} {ann.public.hex()}\n")
    assert load_pins(tmp_path) == {ann.public: "ann"}


def test_id_command_shows_the_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    assert main(["id"]) == 0
    first = capsys.readouterr().out
    assert "created a new identity" in first
    assert main(["id"]) == 0
    second = capsys.readouterr().out
    assert "created" not in second
    fingerprint_line = next(line for line in second.splitlines() if line.startswith("fingerprint"))
    assert fingerprint_line in first
    # Where the private key is kept, as the help promises, every time (not only when made).
    assert f"private key: {tmp_path / 'identity.key'} (keep it to yourself)" in second.splitlines()


def test_a_second_process_of_one_account_plays_with_a_key_of_its_own(tmp_path: Path) -> None:
    # Host in one terminal, join in another, one account: each process holds its own key (the
    # second a key derived from the account's), so they can play each other and resume later.
    from p2pgenius.net.keystore import account_identities, claim_identity

    first, created, number = claim_identity(tmp_path)
    second, created_again, number_again = claim_identity(tmp_path)
    assert (created, number) == (True, 0) and (created_again, number_again) == (False, 1)
    assert first.public != second.public
    assert [i.public for i in account_identities(tmp_path)[:2]] == [first.public, second.public]


def test_a_fingerprint_group_of_digits_alone_is_still_read() -> None:
    # base32 groups such as "2345" have no letter: the file's first word is still a fingerprint.
    from p2pgenius.net.keystore import _is_fingerprint

    assert _is_fingerprint("2345-ABCD-7Q2Z-WXYZ")
    assert not _is_fingerprint("ann")
