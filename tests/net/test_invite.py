"""Invites: the codec (versioned, compact, checksummed), and matches joined by invite over loopback
with the command line's own functions, a host with another key refused right after the handshake."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import join_match, target_of
from p2pgenius.cli.main import build_parser, main, pasted_whole
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.net import invite as codec
from p2pgenius.net.invite import Invite, InviteError
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

KEY = bytes(range(32))


def sample() -> Invite:
    return Invite(KEY, 7780, ("192.168.1.20", "2001:db8::20", "203.0.113.7", "friend.example.org"))


def test_an_invite_round_trips_and_is_one_short_line() -> None:
    invite = sample()
    text = invite.text()
    assert text.startswith("p2pgenius://")
    assert re.fullmatch(r"p2pgenius://[a-z2-7]+", text)
    assert codec.parse(text) == invite
    # A lone IPv4 address and the whole key: a little over a hundred characters.
    assert len(Invite(KEY, 7780, ("192.168.1.20",)).text()) < 100
    assert codec.parse(text).fingerprint == fingerprint(KEY)
    assert codec.parse_live(text).targets()[0] == ("192.168.1.20", 7780)


@pytest.mark.parametrize(
    "wrapped",
    [
        "{}",
        "  {}\n",
        "<{}>",
        '"{}"',
        "{}/",
    ],
)
def test_what_chat_programs_do_to_a_link_is_undone(wrapped: str) -> None:
    text = sample().text()
    assert codec.parse(wrapped.format(text)) == sample()
    assert codec.parse(wrapped.format(text.upper())) == sample()


def test_every_changed_character_is_caught() -> None:
    text = sample().text()
    start = len(codec.PREFIX)
    for position in range(start, len(text)):
        for replacement in "abcdefghijklmnopqrstuvwxyz234567":
            if text[position] == replacement:
                continue
            damaged = text[:position] + replacement + text[position + 1 :]
            with pytest.raises(InviteError, match="damaged"):
                codec.parse(damaged)


def test_lost_added_and_swapped_characters_are_caught() -> None:
    text = sample().text()
    start = len(codec.PREFIX)
    for position in range(start, len(text)):
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(text[:position] + text[position + 1 :])
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(text[:position] + "b" + text[position:])
    for position in range(start, len(text) - 1):
        a, b = text[position], text[position + 1]
        if a != b:
            with pytest.raises(InviteError, match="damaged"):
                codec.parse(text[:position] + b + a + text[position + 2 :])


def test_a_character_no_invite_has_is_named_with_its_place() -> None:
    text = sample().text()
    typo = text[:20] + "0" + text[21:]
    with pytest.raises(InviteError, match=r"'0' at character 21.*copy it again"):
        codec.parse(typo)


def test_not_an_invite() -> None:
    with pytest.raises(InviteError, match="an invite starts with p2pgenius://"):
        codec.parse("p2pgenius:/abc")
    assert codec.is_invite("P2PGENIUS://abc") and not codec.is_invite("192.0.2.10:7777")


def test_an_invite_of_a_newer_version_says_so() -> None:
    body = bytes([5]) + b"anything a later version writes"
    check = hashlib.sha256(codec.CHECK_LABEL + body).digest()[: codec.CHECK_LEN]
    text = codec.PREFIX + base64.b32encode(body + check).decode().rstrip("=").lower()
    with pytest.raises(InviteError, match="invite version 5; this one reads versions 1 to 4"):
        codec.parse(text)


def test_an_invite_carries_its_hosts_relays_and_older_invites_still_read() -> None:
    token = bytes(range(16))
    relays = (("relay.example.org", 4001), ("198.51.100.7", 14001), ("2001:db8::7", 4001))
    invite = codec.Invite(KEY, 7780, ("192.168.1.20",), token, relays)
    text = invite.text()
    code = text[len(codec.PREFIX) :].upper()
    assert base64.b32decode(code + "=" * (-len(code) % 8))[0] == 3
    assert codec.parse(text) == invite and codec.parse(text).relays == relays
    plain = codec.Invite(KEY, 7780, ("192.168.1.20",), token)  # no relay: still written as version 2
    code = plain.text()[len(codec.PREFIX) :].upper()
    assert base64.b32decode(code + "=" * (-len(code) % 8))[0] == 2 and codec.parse(plain.text()) == plain
    with pytest.raises(InviteError, match="at most 4 relays"):
        codec.Invite(KEY, 7780, ("192.168.1.20",), token, relays + relays)
    with pytest.raises(InviteError, match="relays carries a seat token"):
        codec.Invite(KEY, 7780, ("192.168.1.20",), b"", relays)
    with pytest.raises(InviteError, match="relay's port is 1 to 65535"):
        codec.Invite(KEY, 7780, ("192.168.1.20",), token, (("relay.example.org", 0),))


def test_an_invite_carries_the_tables_seat_token_and_a_version_1_invite_is_still_read() -> None:
    old = sample()
    assert old.token == b"" and codec.parse(old.text()).token == b""
    code = old.text()[len(codec.PREFIX) :].upper()
    assert base64.b32decode(code + "=" * (-len(code) % 8))[0] == 1
    token = bytes(range(16))
    new = codec.Invite(old.key, old.port, old.addresses, token)
    again = codec.parse(new.text())
    assert again == new and again.token == token
    with pytest.raises(InviteError, match="seat token is 16 bytes"):
        codec.Invite(old.key, old.port, old.addresses, b"short")


def test_well_checked_junk_is_malformed() -> None:
    body = bytes([1]) + b"\x1e\x64" + KEY + bytes([1, 9, 1, 2, 3, 4])  # an address of kind 9
    check = hashlib.sha256(codec.CHECK_LABEL + body).digest()[: codec.CHECK_LEN]
    text = codec.PREFIX + base64.b32encode(body + check).decode().rstrip("=").lower()
    with pytest.raises(InviteError, match="malformed"):
        codec.parse(text)


@pytest.mark.parametrize(
    ("key", "port", "addresses", "said"),
    [
        (b"short", 7780, ("192.0.2.1",), "32-byte key"),
        (KEY, 0, ("192.0.2.1",), "port is 1 to 65535"),
        (KEY, 7780, (), "1 to 16 addresses"),
        (KEY, 7780, ("not a host!",), "neither an IP address nor a host name"),
    ],
)
def test_an_invite_cannot_be_made_of_nonsense(
    key: bytes, port: int, addresses: tuple[str, ...], said: str
) -> None:
    with pytest.raises(InviteError, match=said):
        Invite(key, port, addresses)


def test_a_damaged_invite_on_the_command_line_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    text = Invite(KEY, 9, ("127.0.0.1",)).text()
    code = main(["join", text[:30] + ("a" if text[30] != "a" else "b") + text[31:], "--bot"])
    err = capsys.readouterr().err
    assert code == 2
    assert "the invite is damaged" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_invite_line_pasted_whole_after_join_is_read_as_the_invite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host shows (and saves) "p2pgenius join p2pgenius://...": a friend who has typed
    # "p2pgenius join" and pastes it all gets the invite read, here a damaged one, not argparse's
    # "unrecognized arguments".
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    text = Invite(KEY, 9, ("127.0.0.1",)).text()
    code = main(["join", "p2pgenius", "join", text[:-1] + ("a" if text[-1] != "a" else "b"), "--bot"])
    err = capsys.readouterr().err
    assert code == 2 and "the invite is damaged" in err, err
    assert pasted_whole(["--debug", "join", "p2pgenius", "join", text]) == ["--debug", "join", text]
    assert pasted_whole(["join", f"p2pgenius join {text}", "--bot"]) == ["join", text, "--bot"]
    assert pasted_whole(["join", ""]) == ["join", ""]
    assert pasted_whole(["host", "duel", "--name", "join"]) == ["host", "duel", "--name", "join"]


# -- over loopback, with the command line's functions ----------------------------------------------


async def test_a_match_joined_by_invite_plays_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One account, one machine: the joiner plays with the account's second key (see keystore).
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    clipped: list[str] = []

    def clip(text: str) -> bool:
        clipped.append(text)
        return True

    monkeypatch.setattr("p2pgenius.cli.host.to_clipboard", clip)
    host_out, join_out = io.StringIO(), io.StringIO()
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot", "random"])
    host = make_peer(hargs, "duel-host", 1, Printer(host_out, moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            guest = make_peer(jargs, "join", 2, Printer(join_out, moves=True))
            await join_match(jargs, guest, target_of(str(invite)))
    assert invite.key == host.identity.public and invite.addresses == ("127.0.0.1",)
    said = host_out.getvalue()
    assert "this machine only (--lan lets other machines join)" in said
    assert f"  p2pgenius join {invite}\n" in said
    assert clipped == [f"p2pgenius join {invite}"] and "asked to put it on the clipboard too" in said
    assert f"connecting to the invite's host, fingerprint {host.identity.fingerprint}" in join_out.getvalue()
    for side in (host, guest):
        assert side.session is not None and side.session.outcome is not None
        assert verify(side.files.transcript.read_bytes()).ok
    assert guest.identity.public != host.identity.public


async def test_a_host_with_another_key_is_refused_after_the_handshake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    impostor_key = Identity.generate().public
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            tampered = Invite(impostor_key, invite.port, invite.addresses)
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            with pytest.raises(IdentityError) as refused:
                await join_match(jargs, guest, target_of(str(tampered)))
            nursery.cancel_scope.cancel()
    message = str(refused.value)
    assert f"the invite names {fingerprint(impostor_key)}" in message
    assert f"the host at this address has {host.identity.fingerprint}" in message
    assert "Someone may be in the middle" in message
    assert guest.session is None  # nothing was played, and nothing pinned
    assert not (tmp_path / "known_peers").exists()


async def test_a_host_with_another_key_at_the_first_address_does_not_stop_the_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The invite names 127.0.0.1 then 127.0.0.2 (same port). Another host (another key) answers at
    # the first; the joiner says so and goes on to the real host at the second.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0", "--bind", "127.0.0.2"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    join_out = io.StringIO()
    decoy_out = io.StringIO()
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            dargs = build_parser().parse_args(["host", "duel", "--bot", "--port", str(invite.port)])
            decoy = make_peer(dargs, "decoy", 3, Printer(decoy_out, moves=True))
            decoy.identity = Identity.generate()
            await nursery.start(host_match, dargs, decoy, match_options(dargs))
            both = Invite(host.identity.public, invite.port, ("127.0.0.1", "127.0.0.2"), invite.token)
            guest = make_peer(jargs, "join", 2, Printer(join_out, moves=True))
            await join_match(jargs, guest, target_of(str(both)))
            nursery.cancel_scope.cancel()
    said = join_out.getvalue()
    assert f"127.0.0.1:{invite.port}: the host's key is not the one the invite names" in said
    assert "trying the invite's other addresses" in said
    assert f"connected to 127.0.0.2:{invite.port}" in said
    assert guest.session is not None and guest.session.outcome is not None
    assert guest.session.keys[0] == host.identity.public
    # The wrong host saw a caller break off its handshake, never who it was.
    seen = decoy_out.getvalue()
    assert guest.name not in seen and guest.identity.fingerprint not in seen, seen


def spawn_host(home: Path, output: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "P2PGENIUS_HOME": str(home)}
    with output.open("w") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", "host", *args],
            env=env,
            text=True,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def invite_in(output: Path) -> str:
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        if found := re.search(r"p2pgenius join (p2pgenius://\S+)", output.read_text()):
            return found[1]
        time.sleep(0.02)
    raise AssertionError(f"the host showed no invite: {output.read_text()}")


def test_two_terminals_of_one_account_play_by_invite_and_an_impostor_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host runs as its own process (another terminal); the joiner is this one, same account.
    home = tmp_path / "home"
    out = tmp_path / "host.txt"
    host = spawn_host(home, out, "magic-square", "--bot", "heuristic", "--port", "0")
    try:
        invite = codec.parse_live(invite_in(out))
        monkeypatch.setenv("P2PGENIUS_HOME", str(home))
        impostor = Invite(Identity.generate().public, invite.port, invite.addresses)
        assert main(["join", str(impostor), "--bot"]) == 1
        err = capsys.readouterr().err
        assert "error: the host's key is not the one the invite names" in err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert main(["join", str(invite), "--bot", "random"]) == 0
        said = capsys.readouterr().out
        assert "result:" in said and "connected to 127.0.0.1:" in said
        assert host.wait(timeout=HANG_S) == 0, out.read_text()
    finally:
        host.kill()
        host.wait()
    assert "result:" in out.read_text()
    assert "another p2pgenius of this account is playing" in said  # so it has a key of its own


async def test_advertised_addresses_go_first_in_the_invite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A port forwarded by hand, or a VPN name: the host cannot know them, so it is told.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    out = io.StringIO()
    advertised = ["--advertise", "friend.example.org", "--advertise", "198.51.100.9"]
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0", *advertised])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            nursery.cancel_scope.cancel()  # (nobody joins: those addresses are not this machine's)
    assert invite.addresses == ("friend.example.org", "198.51.100.9", "127.0.0.1")
    port = invite.port
    assert f"also in the invite: friend.example.org:{port}, 198.51.100.9:{port}" in out.getvalue()


def test_an_address_no_invite_can_carry_is_refused_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    assert main(["host", "duel", "--bot", "--advertise", "my host!"]) == 2
    err = capsys.readouterr().err
    assert "'my host!' is neither an IP address nor a host name" in err and err.count("\n") == 1


def test_a_text_longer_than_any_invite_is_refused_before_it_is_decoded() -> None:
    longest = codec.MAX_CODE
    with pytest.raises(InviteError, match=f"not an invite: {longest + 1} characters"):
        codec.parse(codec.PREFIX + "a" * (longest + 1))
    tail = longest - len(sample().text()) + len(codec.PREFIX)
    for length in (700, 4000, tail):  # (past the repair search's reach: said damaged at once)
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(sample().text() + "a" * length)


def test_an_invite_whose_count_is_more_than_any_invite_has_is_damaged_not_cut_short() -> None:
    # A count byte past the maxima makes fields no invite has: not the start of one cut short.
    code = sample().text()[len(codec.PREFIX) :]
    raw = bytearray(base64.b32decode(code.upper() + "=" * (-len(code) % 8)))
    at = codec._fields_end(bytes(raw[:40]))  # (where the cut fields would go on: past 40 bytes)
    assert at > 40
    count = 4 + len(KEY) + (codec.TOKEN_LEN if raw[0] >= 2 else 0) - 1
    raw[count] = codec.MAX_ADDRESSES + 1
    assert codec._fields_end(bytes(raw[: count + 8])) == 0
    cut = base64.b32encode(bytes(raw[: count + 10])).decode().rstrip("=").lower()
    with pytest.raises(InviteError, match="damaged"):
        codec.parse(codec.PREFIX + cut)
