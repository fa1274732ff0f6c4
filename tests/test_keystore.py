"""Identity keys on disk (created once, private) and pinned peers (trust on first use)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from p2pgenius.cli.main import main
from p2pgenius.errors import LocalMisuseError
from p2pgenius.net.keystore import load_identity, load_pins, trust
from p2pgenius.protocol.identity import Identity, IdentityError


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
    assert load_pins(tmp_path) == {"ann": ann.public}


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
